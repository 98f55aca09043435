/* Declarative options (see options.h). */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_options(const pg_command_spec *spec)
{
    int n = 0;
    while (spec->options[n].name)
        n++;
    return n;
}

/* Help layout: lines of at most HELP_WIDTH columns; option descriptions start at HELP_COL. */
enum { HELP_WIDTH = 100, HELP_NAME_WIDTH = 26, HELP_COL = 2 + HELP_NAME_WIDTH + 1 };

/* Print text word-wrapped to HELP_WIDTH, continuation lines indented by `indent` columns; the
 * cursor is at column `col` when it starts. A word longer than a line is printed whole. Columns
 * are counted in bytes, which is exact for the ASCII help texts. */
static void print_wrapped(FILE *to, const char *text, int indent, int col)
{
    const char *p = text;
    bool first = true;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        if (!first && col + 1 + (int)len > HELP_WIDTH) {
            fprintf(to, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', to);
            col++;
        }
        fwrite(p, 1, len, to);
        col += (int)len;
        p += len;
        first = false;
    }
    fputc('\n', to);
}

/* One option line: "  --name ARG" padded to HELP_COL, or on a line of its own when longer. */
static void print_option(FILE *to, const char *left, const char *help)
{
    if ((int)strlen(left) > HELP_NAME_WIDTH) {
        fprintf(to, "  %s\n%*s", left, HELP_COL, "");
    } else {
        fprintf(to, "  %-*s ", HELP_NAME_WIDTH, left);
    }
    print_wrapped(to, help, HELP_COL, HELP_COL);
}

void pg_options_help(const pg_command_spec *spec, FILE *to)
{
    fprintf(to, "usage: %s\n\n", spec->usage);
    print_wrapped(to, spec->summary, 0, 0);
    fprintf(to, "\noptions:\n");
    for (const pg_option *o = spec->options; o->name; o++) {
        char left[80];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        print_option(to, left, o->help);
    }
    print_option(to, "--help", "Show this help and exit.");
    if (spec->details)
        fprintf(to, "\n%s\n", spec->details);
    if (spec->examples)
        fprintf(to, "\nexamples:\n%s\n", spec->examples);
}

int pg_options_parse(pg_command_spec *spec, int argc, char **argv, char ***positional, int *npos)
{
    int n = count_options(spec);
    struct option *lo = calloc((size_t)n + 2, sizeof *lo);
    *positional = calloc((size_t)argc + 1, sizeof(char *));
    *npos = 0;
    if (!lo || !*positional) {
        free(lo);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        lo[i].name = spec->options[i].name;
        lo[i].has_arg = spec->options[i].arg ? required_argument : no_argument;
        lo[i].val = 1000 + i;
        spec->options[i].value = NULL;
    }
    lo[n].name = "help";
    lo[n].val = 'h';
    optind = 1;
    opterr = 0;
    int c, rc = 0;
    /* "-" first: positional arguments are returned in order as option 1. */
    while ((c = getopt_long(argc, argv, "-h", lo, NULL)) != -1) {
        if (c == 1)
            (*positional)[(*npos)++] = optarg;
        else if (c == 'h') {
            pg_options_help(spec, stdout);
            rc = -1;
            break;
        } else if (c >= 1000)
            spec->options[c - 1000].value = optarg ? optarg : "1";
        else {
            const char *bad = argv[optind - 1];
            if (c == ':' || (optopt >= 1000))
                fprintf(stderr, "ptxgate %s: option '%s' needs an argument\n", spec->name, bad);
            else
                fprintf(stderr, "ptxgate %s: unknown option '%s' (see 'ptxgate %s --help')\n",
                        spec->name, bad, spec->name);
            rc = 2;
            break;
        }
    }
    while (rc == 0 && optind < argc)
        (*positional)[(*npos)++] = argv[optind++];
    free(lo);
    return rc;
}

const char *pg_option_value(const pg_command_spec *spec, const char *name)
{
    for (const pg_option *o = spec->options; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o->value;
    return NULL;
}

bool pg_option_int(const pg_command_spec *spec, const char *name, long lo, long hi, long *out)
{
    const char *v = pg_option_value(spec, name);
    if (!v)
        return true;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "ptxgate %s: --%s: expected an integer from %ld to %ld, got '%s'\n",
                spec->name, name, lo, hi, v);
        return false;
    }
    *out = x;
    return true;
}

bool pg_option_double(const pg_command_spec *spec, const char *name, double lo, double hi,
                      double *out)
{
    const char *v = pg_option_value(spec, name);
    if (!v)
        return true;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "ptxgate %s: --%s: expected a number from %g to %g, got '%s'\n",
                spec->name, name, lo, hi, v);
        return false;
    }
    *out = x;
    return true;
}
