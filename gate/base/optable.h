/* Typed option tables: one row per setting of a settings struct (its command-line name, type,
 * range or choices, field, default and help) drives the command line's conversion (argv →
 * struct, each value checked), the defaults, and the setting's JSON faces in both directions:
 * a record written into results and a job read back by another process. A new option is one
 * row. Pure: nothing is printed; problems come back as pg_status and a pg_diag. */
#ifndef PG_BASE_OPTABLE_H
#define PG_BASE_OPTABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/jsonget.h"

/* Most rows in one table (a parse keeps one bit per row). */
#define PG_OPT_MAX 64

/* How a row's value is stored in its field (offset, size: PG_OPT_FIELD). */
typedef enum {
    PG_OPT_FLAG,   /* bool; on the command line without argument: true (PG_OPT_INVERT: false) */
    PG_OPT_STRING, /* const char *, borrowed from argv or from the JSON read */
    PG_OPT_INT,    /* a signed integer or size_t/uint64_t of `size` bytes (4 or 8), lo..hi */
    PG_OPT_REAL,   /* double, lo <= x <= hi (NaN refused) */
    PG_OPT_CHOICE, /* one of choices: its code into a bool/int/enum of `size` bytes (1 or 4), or
                      with PG_OPT_NAME the choice's name (static) into a const char * */
    PG_OPT_CUSTOM  /* no generic storage: parse writes the fields; record renders them */
} pg_opt_kind;

/* Row flags. */
enum {
    PG_OPT_NONEMPTY = 1u << 0,     /* an empty argument is refused ("expected a value") */
    PG_OPT_INVERT = 1u << 1,       /* FLAG: given means false (--no-energy → energy = false) */
    PG_OPT_NAME = 1u << 2,         /* CHOICE: store the name, NULL when not given */
    PG_OPT_JOB_OPTIONAL = 1u << 3, /* job: left out when NULL; a missing key reads as NULL */
    PG_OPT_REC_POSITIVE = 1u << 4, /* record: REAL written as null unless > 0 */
};

/* One value of a CHOICE row; lists end with {NULL}. */
typedef struct {
    const char *name;
    int code;
} pg_opt_choice;

typedef struct pg_opt pg_opt;

/* Convert the command-line text of row into obj (a pointer to the settings struct). Errors:
 * PG_ERR_INPUT; a message without d->field is the command's own words ("--arch: expected ...",
 * printed after "ptxgate CMD: "), one with a field a located diagnostic. */
typedef pg_status (*pg_opt_parse_fn)(const pg_opt *row, const char *text, void *obj, pg_diag *d);
/* The record value of row for obj, a new reference (NULL: out of memory); ctx as given to
 * pg_opt_record. */
typedef json_t *(*pg_opt_record_fn)(const pg_opt *row, const void *obj, const void *ctx);

struct pg_opt {
    /* Command line (name NULL: a setting without one, e.g. a value the program finds). */
    const char *name;  /* long name without "--" */
    const char *arg;   /* argument placeholder ("DIR"); NULL for a flag */
    const char *help;  /* sentences for --help */
    /* Storage. */
    pg_opt_kind kind;
    size_t offset, size;          /* of the field in the settings struct */
    double lo, hi;                /* INT and REAL: accepted range, inclusive */
    const pg_opt_choice *choices; /* CHOICE */
    double def;                   /* default of FLAG, INT, REAL, CHOICE (code) */
    const char *def_str;          /* default of STRING and CHOICE with PG_OPT_NAME */
    unsigned flags;
    pg_opt_parse_fn parse;        /* replaces the generic conversion (validation, storing) */
    /* The record (e.g. results.json "settings"): key at 1-based position rec_pos (0: none);
     * record renders it instead of the generic rendering of kind. */
    const char *rec_key;
    int rec_pos;
    pg_opt_record_fn record;
    /* The job (e.g. a worker's "options"): key at 1-based position job_pos (0: none). */
    const char *job_key;
    int job_pos;
};

/* offset and size of field `f` of struct type T, for a row's initialiser. */
#define PG_OPT_FIELD(T, f) .offset = offsetof(T, f), .size = sizeof(((T *)0)->f)

/* Rows in a table, which ends with a row whose name, rec_key and job_key are all NULL. */
size_t pg_opt_count(const pg_opt *table);

/* Whether the table is well formed: at most PG_OPT_MAX rows; command-line names unique; field
 * sizes fit the kinds; ranges ordered; CHOICE rows have choices and defaults among them; the
 * record and job positions each run 1..n without gaps or repeats. False with the first problem
 * in why (n bytes). For tests and assertions. */
bool pg_opt_table_valid(const pg_opt *table, char *why, size_t n);

/* The address of row's field in obj (for parse functions). */
void *pg_opt_field(const pg_opt *row, void *obj);

/* Store every row's default in obj (CUSTOM rows are left alone). */
void pg_opt_defaults(const pg_opt *table, void *obj);

/* The command line of one parse: which rows were given and their arguments as given (the last
 * one when an option repeats; NULL for flags). */
typedef struct {
    uint64_t given;              /* bit i: row i was given */
    const char *text[PG_OPT_MAX];
    int npos;                    /* positional arguments (argv pointers, in order) */
    char **positional;           /* caller frees (pg_opt_args_free) */
} pg_opt_args;

typedef enum {
    PG_OPT_ARGS_OK,
    PG_OPT_ARGS_HELP,       /* --help or -h, before any unknown option: show the help */
    PG_OPT_ARGS_UNKNOWN,    /* *bad: an option no row has */
    PG_OPT_ARGS_NEEDS_VALUE, /* *bad: an option that takes an argument got none */
    PG_OPT_ARGS_NO_VALUE     /* *bad: a flag given an argument ("--quiet=1") */
} pg_opt_argv_result;

/* Split argv (argv[0] is the command's name) into the rows given and the positional arguments,
 * by getopt_long: long options, "--name VALUE" or "--name=VALUE", unique prefixes, arguments
 * after "--" positional. Nothing is converted yet (pg_opt_apply), so --help anywhere wins over
 * bad values. *bad is the argv element at fault. Out of memory (or a table of more than
 * PG_OPT_MAX rows) is PG_OPT_ARGS_UNKNOWN with *bad NULL. Always pg_opt_args_free *a. */
pg_opt_argv_result pg_opt_parse_argv(const pg_opt *table, int argc, char **argv, pg_opt_args *a,
                                     const char **bad);
void pg_opt_args_free(pg_opt_args *a);

/* Whether the row whose field is at `offset` was given (false when no row has that field). */
bool pg_opt_given(const pg_opt *table, const pg_opt_args *a, size_t offset);
/* Its argument as given, or NULL. */
const char *pg_opt_text(const pg_opt *table, const pg_opt_args *a, size_t offset);

/* Convert text for row into obj: NONEMPTY, then row->parse or the kind's conversion (INT by
 * strtol base 10 in lo..hi, REAL by strtod in lo..hi, CHOICE by exact name). Errors:
 * PG_ERR_INPUT with the message, e.g. "--sets: expected an integer from 1 to 100, got '0'",
 * "--mode: expected 'cold' or 'sustained', got 'hot'", "--gpu-key: expected a value, got an
 * empty string". */
pg_status pg_opt_set(const pg_opt *row, void *obj, const char *text, pg_diag *d);
/* pg_opt_set for every given row, in table order; stops at the first error. */
pg_status pg_opt_apply(const pg_opt *table, const pg_opt_args *a, void *obj, pg_diag *d);

/* How strings are written as JSON, and the context of record functions. */
typedef struct {
    json_t *(*text)(const char *s); /* a new JSON string of s (e.g. invalid UTF-8 replaced) */
    const void *ctx;                /* passed to the rows' record functions */
} pg_opt_writer;

/* The record of obj: an object with each row that has rec_pos, in position order. Generic
 * rendering: INT integer, REAL real (null unless > 0 with PG_OPT_REC_POSITIVE), FLAG boolean,
 * STRING and CHOICE-by-name a string or null, CHOICE the choice's name. NULL when out of
 * memory. */
json_t *pg_opt_record(const pg_opt *table, const void *obj, const pg_opt_writer *w);

/* The job of obj: an object with each row that has job_pos, in position order: INT integer,
 * REAL real, FLAG boolean, STRING and CHOICE-by-name a string (left out when NULL with
 * PG_OPT_JOB_OPTIONAL, else "" for NULL), CHOICE the choice's name. NULL when out of memory. */
json_t *pg_opt_job(const pg_opt *table, const void *obj, const pg_opt_writer *w);

/* Read a job written by pg_opt_job back into obj (strings borrowed from job): every job row in
 * position order, required unless PG_OPT_JOB_OPTIONAL. ctx locates the object in its file.
 * Errors: PG_ERR_INPUT naming the file and the field (a missing key, a wrong type, a name that
 * is not one of a CHOICE row's). */
pg_status pg_opt_job_read(const pg_opt *table, void *obj, const json_t *job, const pg_jctx *ctx,
                          pg_diag *d);

#endif
