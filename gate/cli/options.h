/* Declarative command-line options: one table per command drives both parsing (getopt_long)
 * and the --help text, so the two cannot drift apart. A command either lists its options as
 * pg_option rows whose values come back as text (pg_option_value), or gives a typed table
 * (base/optable.h) whose rows convert straight into its settings struct (pg_options_parse_table,
 * pg_options_apply). */
#ifndef PG_CLI_OPTIONS_H
#define PG_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/optable.h"

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
    pg_option *options;     /* terminated by {0}; NULL for a command with a typed table */
} pg_command_spec;

/* Parse argv (argv[0] is the command name). Positional arguments are collected into
 * *positional (argv pointers; caller frees the array). Returns 0, or 2 after printing an error
 * naming the bad flag to stderr. --help prints the help and returns -1. */
int pg_options_parse(pg_command_spec *spec, int argc, char **argv, char ***positional, int *npos);
/* pg_options_parse at a command's entry: true when the command goes on (*positional is then
 * its to free); false when it must return *exit_code at once (0 after --help, 2 after a bad
 * flag), *positional already freed and NULL. */
bool pg_options_parse_cmd(pg_command_spec *spec, int argc, char **argv, char ***positional,
                          int *npos, int *exit_code);
/* pg_options_parse_cmd for a command that takes no positional arguments: *npos receives how
 * many were given (the command says what it does with them). */
bool pg_options_parse_flags(pg_command_spec *spec, int argc, char **argv, int *npos,
                            int *exit_code);
/* The entry of a command with subcommands (ptxgate itself, ptxgate baseline): without one,
 * usage(stderr) and 2; for "--help", "-h" or "help", usage(stdout) and 0; else -1, go on with
 * argv[1]. */
int pg_options_subcommand_help(int argc, char **argv, void (*usage)(FILE *to));
/* The same for a command with a typed table (its rows with a name are its options; spec gives
 * the rest of its help): *args gets which rows were given and their text, and
 * the positional arguments (pg_opt_args_free them). Nothing is converted yet, so --help wins
 * over bad values and the command can check its positional arguments first. Returns 0, 2 after
 * printing the unknown option or the missing argument, -1 after printing the help. */
int pg_options_parse_table(const pg_command_spec *spec, const pg_opt *table, int argc, char **argv,
                           pg_opt_args *args);
/* Convert every given row into obj (pg_opt_apply), in table order. Returns 0, or after printing
 * the first problem the exit code: 2, as "ptxgate CMD: MESSAGE" or, for a located diagnostic
 * (one naming a field), as "ptxgate: field '--x': MESSAGE". */
int pg_options_apply(const pg_command_spec *spec, const pg_opt *table, const pg_opt_args *args,
                     void *obj);
/* Print a problem found after pg_options_apply the same way; returns its exit code. */
int pg_options_fail(const pg_command_spec *spec, const pg_diag *d);

/* Print the command's help to `to`: usage, the summary and every option's help word-wrapped to
 * 100 columns (an option whose name and argument do not fit the 26-column name field gets its
 * description on the next line), then details and examples verbatim. Writes nothing else. */
void pg_options_help(const pg_command_spec *spec, FILE *to);
/* The same with the named rows of a typed table as the options. */
void pg_options_help_table(const pg_command_spec *spec, const pg_opt *table, FILE *to);
/* The value of option `name` (NULL when absent); for pg_option specs. */
const char *pg_option_value(const pg_command_spec *spec, const char *name);

/* Number parsing for flags: print "ptxgate: --flag: expected ..." and return false on error. */
bool pg_option_int(const pg_command_spec *spec, const char *name, long lo, long hi, long *out);
bool pg_option_double(const pg_command_spec *spec, const char *name, double lo, double hi,
                      double *out);

#endif
