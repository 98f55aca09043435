/* Reading what ptxas (and the driver JIT, and nvcc) print: located diagnostics and the per-entry
 * resource usage of "-v". The formats are recorded from the real ptxas 13.0 as the .log files in
 * tests/data/ptx. */
#ifndef PG_PTX_PTXAS_LOG_H
#define PG_PTX_PTXAS_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* Hard limits on what is kept; lines past them are still counted in n_errors/n_warnings. */
#define PG_PTXAS_MAX_DIAGS 4096
#define PG_PTXAS_MAX_ENTRIES 4096

typedef enum { PG_SEV_ERROR, PG_SEV_WARNING, PG_SEV_INFO } pg_severity;

typedef struct {
    pg_severity severity; /* "fatal" is an error; nvcc's "remark" is info */
    int line;             /* PTX (or .cu for nvcc) line, 0 if none */
    char file[256];       /* as printed: "x.ptx", "application ptx input"; "" if none */
    char message[512];    /* the text after "severity :", e.g. "Unknown symbol '%r9'" */
} pg_ptxas_diag;

/* Resource usage of one entry; every number is 0 when ptxas did not report it. */
typedef struct {
    char entry[256];
    int registers;
    long shared_bytes;      /* "N bytes smem" */
    long constant0_bytes;   /* "N bytes cmem[0]" (ptxas 13.0 prints it for sm_80, not for sm_90a) */
    long stack_frame_bytes;
    long spill_store_bytes;
    long spill_load_bytes;
    int barriers;
} pg_ptxas_entry_usage;

typedef struct {
    pg_ptxas_diag *diags;           /* in output order; every error, warning and info line */
    int n_diags;
    pg_ptxas_entry_usage *entries;  /* one per "Compiling entry function", in output order */
    int n_entries;
    int n_errors;                   /* errors and fatals */
    int n_warnings;
} pg_ptxas_log;

/* Parse ptxas output (stdout and stderr together) into *out. Understood lines:
 *  "ptxas application ptx input, line 8; error   : Unknown symbol 'r9'"  (driver JIT)
 *  "ptxas /path/x.ptx, line 8; error   : ..."                             (ptxas on a file)
 *  "ptxas warning : ..." / "ptxas fatal   : Ptx assembly aborted due to errors"
 *  "ptxas info    : Compiling entry function 'name' for 'sm_90a'"
 *  "ptxas info    : Function properties for name" and the next line
 *  "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
 *  "ptxas info    : Used 168 registers, used 1 barriers, 32768 bytes smem, 400 bytes cmem[0]"
 *  "x.cu(4): error: ..." / "x.cu(4): warning #177-D: ..."                 (nvcc front end)
 * Other lines are ignored. Over-long text is cut to the field sizes.
 * *out is always initialized; release it with pg_ptxas_log_free.
 * Errors: PG_ERR_INFRA when out of memory (then *out is empty). */
pg_status pg_ptxas_log_parse(const char *text, pg_ptxas_log *out);

/* Release everything owned by l and leave it empty. l may be NULL. */
void pg_ptxas_log_free(pg_ptxas_log *l);

/* The version in "--version" output: "Cuda compilation tools, release 13.0, V13.0.88" ->
 * "13.0.88" (the release, "13.0", when there is no V part). out gets at most n-1 characters.
 * Returns false if no version is found (out is then ""). */
bool pg_ptxas_parse_version(const char *version_output, char *out, size_t n);

#endif
