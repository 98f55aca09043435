/* `ptxgate baseline refresh`: re-measure the stored baselines of tasks on the current GPU
 * (docs/baselines.md). Each task's accepted kernel runs as the candidate of one `check` run
 * with the heuristic search (no stored baseline consulted, no fourth arm, no energy windows);
 * its performance stage gives cuBLASLt's chosen algorithm, cuBLASLt's median with its interval
 * and method, and the accepted kernel's time and speedup. The library never prints: the caller
 * gets old and new baselines per task and prints the difference. */
#ifndef PG_PIPELINE_REFRESH_H
#define PG_PIPELINE_REFRESH_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"
#include "model/baseline.h"

typedef struct {
    const char *tasks_dir;
    const char *root;          /* submission root for the accepted kernels' includes (see
                                  pg_check_options.root); NULL = the repository's top level.
                                  Their manifests and sources, the tasks' own, may lie in the
                                  tasks folder too. */
    const char *arch_dir;       /* the PTX → SASS tables; NULL = the resolved default
                                   (gate/base/datadir.h), as for check */
    const char *baselines_dir;  /* where <gpu-key>/<task>.json are written (created if missing) */
    bool follow_links;          /* write through symbolic links on the way (pg_outdir_open) */
    const char *gpu_key;        /* NULL = derived from the device name */
    const char *workloads;      /* comma-separated names/aliases, NULL = all of each task's */
    int device_ordinal;
    double timeout_s;           /* per tool run and GPU wait (check's --timeout) */
    pg_progress_fn progress;    /* the check run's progress, may be NULL */
    void *progress_ctx;
} pg_refresh_options;

/* Outcome of one task. */
typedef struct {
    char task[128];
    char path[4096];            /* the file written (or that would have been) */
    pg_baseline *old;           /* the file before, NULL when there was none (owned) */
    pg_baseline *updated;       /* the file written, NULL when the task was not measured */
    int dropped;                /* entries of old not re-measured and dropped: another
                                   environment or accepted kernel, or sizes the task changed */
    int exit_code;              /* 0 written; 1 the accepted kernel failed a stage; 3 an
                                   infrastructure error (nothing written for this task) */
    char message[4096];         /* why it was not written, or notes ("" when none) */
} pg_refresh_task;

typedef struct {
    char gpu_key[64];
    char gpu_name[256];
    pg_refresh_task *tasks;     /* n entries, in the order of the task ids (owned) */
    size_t n;
} pg_refresh_result;

/* Refresh the baselines of task_ids (n of them; n == 0: every folder of tasks_dir holding a
 * task.json, sorted). Writes each measured task's file atomically; a task that could not be
 * measured keeps its old file. *out is filled even when some tasks failed (their exit_code says
 * so); release it with pg_refresh_result_free.
 * Errors: PG_ERR_INFRA when no GPU can be opened ("baseline refresh needs a GPU: <reason>"),
 * or on out-of-memory; PG_ERR_INPUT for an unknown task, a task without gate.accepted_kernel,
 * a bad --gpu-key or workload filter, an unusable accepted kernel (named with its field), or an
 * unwritable baselines folder. */
pg_status pg_baseline_refresh(const pg_refresh_options *o, const char *const *task_ids, size_t n,
                              pg_refresh_result *out, pg_diag *d);
void pg_refresh_result_free(pg_refresh_result *r);

#endif
