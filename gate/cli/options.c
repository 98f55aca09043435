/* Declarative options (see options.h). */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void print_option_row(FILE *to, const char *name, const char *arg, const char *help)
{
    char left[80];
    snprintf(left, sizeof left, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
    print_option(to, left, help);
}

void pg_options_help(const pg_command_spec *spec, FILE *to)
{
    pg_options_help_table(spec, NULL, to);
}

void pg_options_help_table(const pg_command_spec *spec, const pg_opt *table, FILE *to)
{
    fprintf(to, "usage: %s\n\n", spec->usage);
    print_wrapped(to, spec->summary, 0, 0);
    fprintf(to, "\noptions:\n");
    for (const pg_option *o = spec->options; o && o->name; o++)
        print_option_row(to, o->name, o->arg, o->help);
    for (size_t i = 0, n = table ? pg_opt_count(table) : 0; i < n; i++)
        if (table[i].name)
            print_option_row(to, table[i].name, table[i].arg, table[i].help);
    print_option(to, "--help", "Show this help and exit.");
    if (spec->details)
        fprintf(to, "\n%s\n", spec->details);
    if (spec->examples)
        fprintf(to, "\nexamples:\n%s\n", spec->examples);
}

/* argv split by table (base/optable.h), its problems printed. */
static int parse_argv(const pg_command_spec *spec, const pg_opt *table, int argc, char **argv,
                      pg_opt_args *args)
{
    const char *bad;
    switch (pg_opt_parse_argv(table, argc, argv, args, &bad)) {
    case PG_OPT_ARGS_OK:
        return 0;
    case PG_OPT_ARGS_HELP:
        pg_options_help_table(spec, spec->options ? NULL : table, stdout);
        return -1;
    case PG_OPT_ARGS_NEEDS_VALUE:
        fprintf(stderr, "ptxgate %s: option '%s' needs an argument\n", spec->name, bad);
        return 2;
    case PG_OPT_ARGS_NO_VALUE:
        fprintf(stderr, "ptxgate %s: option '%s' takes no argument\n", spec->name, bad);
        return 2;
    case PG_OPT_ARGS_UNKNOWN:
        if (bad)
            fprintf(stderr, "ptxgate %s: unknown option '%s' (see 'ptxgate %s --help')\n",
                    spec->name, bad, spec->name);
        return 2;
    }
    return 2;
}

int pg_options_parse(pg_command_spec *spec, int argc, char **argv, char ***positional, int *npos)
{
    /* The text rows as typed rows without fields: only names and arguments matter here. */
    pg_opt rows[PG_OPT_MAX + 1];
    int n = 0;
    memset(rows, 0, sizeof rows);
    for (; spec->options[n].name && n < PG_OPT_MAX; n++) {
        rows[n].name = spec->options[n].name;
        rows[n].arg = spec->options[n].arg;
        rows[n].kind = spec->options[n].arg ? PG_OPT_STRING : PG_OPT_FLAG;
        spec->options[n].value = NULL;
    }
    pg_opt_args args;
    int rc = parse_argv(spec, rows, argc, argv, &args);
    for (int i = 0; rc == 0 && i < n; i++)
        if (args.given >> i & 1)
            spec->options[i].value = args.text[i] ? args.text[i] : "1";
    *positional = args.positional;
    *npos = args.npos;
    if (!*positional) /* out of memory: an empty list the caller can free */
        *positional = calloc(1, sizeof(char *));
    return rc;
}

bool pg_options_parse_flags(pg_command_spec *spec, int argc, char **argv, int *npos,
                            int *exit_code)
{
    char **pos = NULL;
    if (!pg_options_parse_cmd(spec, argc, argv, &pos, npos, exit_code))
        return false;
    free(pos);
    return true;
}

int pg_options_subcommand_help(int argc, char **argv, void (*usage)(FILE *to))
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    return -1;
}

bool pg_options_parse_cmd(pg_command_spec *spec, int argc, char **argv, char ***positional,
                          int *npos, int *exit_code)
{
    int rc = pg_options_parse(spec, argc, argv, positional, npos);
    *exit_code = rc < 0 ? 0 : rc;
    if (rc == 0)
        return true;
    free(*positional);
    *positional = NULL;
    return false;
}

int pg_options_parse_table(const pg_command_spec *spec, const pg_opt *table, int argc, char **argv,
                           pg_opt_args *args)
{
    return parse_argv(spec, table, argc, argv, args);
}

int pg_options_fail(const pg_command_spec *spec, const pg_diag *d)
{
    char buf[4096];
    if (d->field[0] || d->file[0])
        fprintf(stderr, "ptxgate: %s\n", pg_diag_format(d, buf, sizeof buf));
    else
        fprintf(stderr, "ptxgate %s: %s\n", spec->name, d->message);
    return d->status ? (int)d->status : 3;
}

int pg_options_apply(const pg_command_spec *spec, const pg_opt *table, const pg_opt_args *args,
                     void *obj)
{
    pg_diag d;
    pg_diag_clear(&d);
    return pg_opt_apply(table, args, obj, &d) == PG_OK ? 0 : pg_options_fail(spec, &d);
}

const char *pg_option_value(const pg_command_spec *spec, const char *name)
{
    for (const pg_option *o = spec->options; o && o->name; o++)
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
