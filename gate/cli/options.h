/* Declarative command-line options: one table per command drives both parsing (getopt_long)
 * and the --help text, so the two cannot drift apart. */
#ifndef PG_CLI_OPTIONS_H
#define PG_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    const char *name;    /* long name without "--" */
    const char *arg;     /* argument placeholder ("DIR"), NULL for a flag */
    const char *help;    /* one or more sentences */
    const char *value;   /* out: the argument, or "1" for a flag that was given; NULL if absent */
} pg_option;

typedef struct {
    const char *name;       /* "check" */
    const char *usage;      /* "ptxgate check [options] MANIFEST|DIR..." */
    const char *summary;    /* one line */
    const char *details;    /* paragraphs after the option list (may be NULL) */
    const char *examples;   /* example command lines, one per line */
    pg_option *options;     /* terminated by {0} */
} pg_command_spec;

/* Parse argv (argv[0] is the command name). Positional arguments are collected into
 * *positional (argv pointers; caller frees the array). Returns 0, or 2 after printing an error
 * naming the bad flag to stderr. --help prints the help and returns -1. */
int pg_options_parse(pg_command_spec *spec, int argc, char **argv, char ***positional, int *npos);
/* Print the command's help to `to`: usage, the summary and every option's help word-wrapped to
 * 100 columns (an option whose name and argument do not fit the 26-column name field gets its
 * description on the next line), then details and examples verbatim. Writes nothing else. */
void pg_options_help(const pg_command_spec *spec, FILE *to);
/* The value of option `name` (NULL when absent). */
const char *pg_option_value(const pg_command_spec *spec, const char *name);

/* Number parsing for flags: print "ptxgate: --flag: expected ..." and return false on error. */
bool pg_option_int(const pg_command_spec *spec, const char *name, long lo, long hi, long *out);
bool pg_option_double(const pg_command_spec *spec, const char *name, double lo, double hi,
                      double *out);

#endif
