/* Assembling PTX into a cubin with ptxas, and compiling CUDA C++ device code into PTX with nvcc,
 * as child processes (see process.h) whose output is parsed into located diagnostics and
 * per-entry resource usage (see ptxas_log.h). Host code is never compiled to run. */
#ifndef PG_TOOL_ASSEMBLE_H
#define PG_TOOL_ASSEMBLE_H

#include <stdbool.h>

#include "../base/diag.h"
#include "../ptx/ptxas_log.h"

/* Output kept from one tool run; more is dropped (see pg_process_run). */
#define PG_ASSEMBLE_MAX_OUTPUT (4u << 20)

typedef struct {
    bool tool_found;       /* ptxas / nvcc was found (see toolchain.h) */
    char tool_path[1024];
    char command[2048];    /* the command line as run, shell-quoted, for the report */
    bool ok;               /* exit 0 and a non-empty output file produced */
    bool timed_out;        /* killed after timeout_s */
    int exit_code;         /* -1 when killed by a signal or not run */
    pg_ptxas_log log;      /* diagnostics and usage parsed from the output */
    char *raw_output;      /* stdout+stderr of the tool; NULL when it did not run; caller frees
                              via pg_assemble_result_free */
    double wall_s;         /* seconds the tool ran */
} pg_assemble_result;

/* Run "ptxas -arch=<arch> -v -lineinfo --warn-on-spills <extra...> -o <cubin_path> <ptx_path>".
 * extra: NULL-terminated further arguments (the manifest's checked ptxas_flags), or NULL.
 * arch: "sm_" + 2 or 3 digits + optional 'a' or 'f' ("sm_90a", "sm_100a", "sm_120f").
 * A file already at cubin_path is removed first, so ok never reports a stale cubin.
 * timeout_s: wall-clock limit in seconds (<= 0: none).
 * *out is always initialized (also on error); release it with pg_assemble_result_free.
 * Returns PG_OK whenever ptxas ran, whatever it said (check out->ok and out->log).
 * Errors: PG_ERR_INPUT for a malformed arch or a path that is empty or starts with '-';
 * PG_ERR_INFRA when ptxas is absent (tool_found false) or cannot be started. */
pg_status pg_assemble_ptx(const char *ptx_path, const char *arch, const char *cubin_path,
                          const char *const *extra, double timeout_s, pg_assemble_result *out,
                          pg_diag *d);

/* Run "nvcc -ptx -arch=<arch> -lineinfo <extra...> -o <ptx_path> <cu_path>" (device code
 * only; extra: the manifest's checked std, flags and -I folders, or NULL). The log holds nvcc's
 * "file(line): error: ..." diagnostics. Same conventions as pg_assemble_ptx. */
pg_status pg_compile_cu_to_ptx(const char *cu_path, const char *arch, const char *ptx_path,
                               const char *const *extra, double timeout_s,
                               pg_assemble_result *out, pg_diag *d);

/* Run "nvcc -ptx -arch=<arch> -lineinfo <extra...> -M -MF <dep_path> -Xcompiler -H <cu_path>":
 * the compile's flags (extra as for pg_compile_cu_to_ptx), preprocessing only. dep_path receives the make rule of every file the
 * preprocessor opened (see cu_deps.h); the output holds the -H include tree and the
 * preprocessor's diagnostics, which may quote ANY file the source names: never report it
 * unfiltered (see diag_filter.h). ok: exit 0 and a non-empty dep_path. Same conventions as
 * pg_assemble_ptx. */
pg_status pg_list_cu_includes(const char *cu_path, const char *arch, const char *dep_path,
                              const char *const *extra, double timeout_s,
                              pg_assemble_result *out, pg_diag *d);

/* Free what r owns and reset it. r may be NULL. */
void pg_assemble_result_free(pg_assemble_result *r);

#endif
