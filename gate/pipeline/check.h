/* `ptxgate check`: the recipe that takes submissions through assemble → load → correctness →
 * instructions → performance on one GPU and builds the results model (docs/results.md). The pipeline never
 * prints: progress goes through a callback, and the caller writes the reports. */
#ifndef PG_PIPELINE_CHECK_H
#define PG_PIPELINE_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"

/* Progress events: one per stage start and end. status is NULL at the start of a stage and
 * "pass"/"fail"/"error"/"skipped" at its end; workload is NULL for submission-level stages;
 * message is a one-line summary at the end (may be NULL). */
typedef void (*pg_progress_fn)(void *ctx, const char *task, const char *submission,
                               const char *workload, const char *stage, const char *status,
                               const char *message);

/* Run progress: called each time a submission's work is done (its GPU stages, or its offline
 * stages when there are none to run), with the (submission, workload) items done so far of
 * items_total, the submissions done of subs_total, and the seconds since the run started.
 * With --devices it is called from the device threads, one at a time. */
typedef void (*pg_items_fn)(void *ctx, size_t items_done, size_t items_total, size_t subs_done,
                            size_t subs_total, double elapsed_s);

/* One progress line into buf (n bytes): "progress: 12/45 items (3/9 submissions), 1 min 15 s"
 * and, when the run is estimated to take longer than a minute, ", about 3 min 20 s left" (the
 * remaining items at the mean rate so far: elapsed / done × (total − done)). Returns buf. */
char *pg_progress_format(char *buf, size_t n, size_t items_done, size_t items_total,
                         size_t subs_done, size_t subs_total, double elapsed_s);

/* What a run does when the stored baseline of a task (or one of its workloads) is missing
 * (docs/baselines.md): search cuBLASLt's algorithm as without baselines and note it (MEASURE),
 * the same with a warning in the stage message (WARN), or make the performance stage an
 * infrastructure error without timing (FAIL). */
typedef enum { PG_MISSING_MEASURE, PG_MISSING_WARN, PG_MISSING_FAIL } pg_missing_policy;
/* Runner drift (the live cuBLASLt time differs from the stored one beyond the tolerance): a
 * warning in the stage message (WARN) or an infrastructure error of the stage (FAIL). */
typedef enum { PG_ON_DRIFT_WARN, PG_ON_DRIFT_FAIL } pg_drift_policy;
/* Watchdog limits of an isolated worker, seconds of wall time. Each limit counts from the
 * moment the worker announces the step; when it passes, the worker's process group is killed
 * and the step is recorded as TIMEOUT. Defaults (pg_check_options_init) in brackets. */
typedef struct {
    double startup_s;     /* spawn until the GPU is open, and any gap between stages [120] */
    double load_s;        /* the load stage [300] */
    double correctness_s; /* the correctness stage of one workload [900] */
    double performance_s; /* the performance stage of one workload [1800] */
    double verify_s;      /* the post-timing verification of one workload [300] */
    double exit_s;        /* from the worker's last report until it has exited [30] */
    double sanitize_s;    /* one compute-sanitizer run, from spawn to exit [3600] */
} pg_watchdog;

/* True when list is a comma-separated list of known compute-sanitizer tools (memcheck,
 * racecheck, synccheck, initcheck), each at most once. */
bool pg_sanitize_tools_valid(const char *list);

/* Set the limit named `stage` ("startup", "load", "correctness", "performance", "verify",
 * "exit", "sanitize") to seconds; false for an unknown name. */
bool pg_watchdog_set(pg_watchdog *w, const char *stage, double seconds);
/* The limit of `stage`; startup_s for names without their own limit. */
double pg_watchdog_limit(const pg_watchdog *w, const char *stage);

typedef struct {
    const char *tasks_dir;         /* folder holding <task-id>/task.json: trusted configuration
                                      (its files may lie anywhere) */
    /* The submission root (issue 14): every manifest's source must resolve, links followed,
     * inside it or the tasks folder (else PG_ERR_INPUT naming the manifest, field 'source' and the resolved path),
     * and a .cu may include only files inside it, the tasks folder, the CUDA toolkit's include
     * folders and the host compiler's system include folders (else its assemble stage fails).
     * NULL: the repository's top level (base/pathroot.h pg_root_default). Sources may also lie
     * in the tasks folder (trusted configuration: the shipped examples, accepted kernels). */
    const char *root;
    int device_ordinal;            /* CUDA device ordinal, default 0 */
    /* --devices: the ordinals of a multi-GPU runner (device_ordinal is devices[0]); with
     * n_devices > 1 (isolated runs only) each device runs one worker at a time and submissions
     * run on them concurrently (docs/isolation.md). n_devices 0 or 1: device_ordinal alone. */
    const int *devices;
    int n_devices;
    bool skip_without_gpu;         /* no GPU: GPU stages "skipped" (true) or "error" (false) */
    bool no_gpu;                   /* do not open the GPU at all (offline checks only) */
    double min_speedup_override;   /* <= 0: use each task's gate.min_speedup */
    int correctness_sets;          /* fresh input sets per workload, >= 1 (default 3) */
    uint64_t seed;                 /* base seed; each set's seed is recorded in the results */
    int warmup;                    /* untimed launches per arm and block (default 2) */
    int repetitions;               /* most timed launches per arm and block (default 10; fewer
                                      for kernels over 0.2 ms, about 2 ms of timing per block) */
    double confidence;             /* of the speedup interval (default 0.95) */
    double timeout_s;              /* per GPU wait and per tool run (default 60) */
    const char *workloads;         /* comma-separated workload names/aliases, NULL = all */
    const char *arch;              /* target architecture for every submission (e.g. "sm_90a"),
                                      NULL = each manifest's arch, else its task's default */
    const char *timing_mode;       /* "cold"/"sustained" for every task, NULL = each task's
                                      gate.timing_mode */
    const char *accepted_kernel;   /* manifest of the accepted kernel for every submission,
                                      "none" = no regression comparison, NULL = each task's
                                      gate.accepted_kernel */
    bool energy;                   /* measure energy per launch per arm (default true) */
    const char *arch_dir;          /* folder of the PTX → SASS tables (<arch>.json, data/arch) */
    const char *instructions;      /* instruction stage policy for every submission: "require",
                                      "warn" or "off"; NULL = each task's gate.instructions */
    int shard_index, shard_count;  /* --shard i/n (model/shard.h): run only shard i of n of the
                                      (task, submission, workload) items; count 0 = no shards */
    const char *baselines_dir;     /* stored baselines (<gpu-key>/<task>.json), NULL = none */
    const char *gpu_key;           /* folder of this GPU's baselines, NULL = derived from the
                                      device name (gate/model/gpu_key.h) */
    pg_missing_policy on_missing_baseline; /* default PG_MISSING_MEASURE */
    pg_drift_policy on_drift;      /* default PG_ON_DRIFT_WARN */
    double drift_tolerance;        /* δ of the drift decision (gate/stats/drift.h), default 0.05 */
    pg_progress_fn progress;       /* may be NULL */
    void *progress_ctx;            /* passed to progress and items_progress */
    pg_items_fn items_progress;    /* may be NULL */
    /* Process isolation (docs/isolation.md): the path of the ptxgate binary to run as
     * `ptxgate worker` for each submission's GPU stages; NULL runs them in this process. */
    const char *worker_exe;
    pg_watchdog watchdog;          /* per-stage limits of a worker (isolated runs only) */
    size_t max_ptx_bytes;          /* largest kernel source or PTX accepted (default 64 MiB);
                                      larger is an input error */
    /* --sanitize: compute-sanitizer tools to run, a comma-separated subset of memcheck,
     * racecheck, synccheck, initcheck (validated by pg_sanitize_tools_valid); NULL = none.
     * Runs `self_exe worker` under the tool, isolated or not. */
    const char *sanitize;
    const char *self_exe;          /* this program (for --sanitize); NULL disables it */
} pg_check_options;

/* Defaults as documented above. */
void pg_check_options_init(pg_check_options *o);

/* Validate every manifest against its task and its PTX first (input errors abort before any GPU
 * work: PG_ERR_INPUT with the file and field), then run the stages and return the results model
 * in *results (a new reference; the caller json_decref's it). Kernel failures and unavailable
 * GPUs are results, not errors: the return is PG_OK and results' "exit_code" says 0/1/3.
 * With shards, every manifest is still validated and Holm's m counts the comparisons of all
 * shards (so each comparison runs at the unsharded run's level); only the shard's items run and
 * appear in the results, with a "shard" record; a submission without items in the shard is
 * left out, and a shard without items passes.
 * Errors: PG_ERR_INPUT (bad task/manifest/flags), PG_ERR_INFRA (out of memory, temp folder). */
pg_status pg_check_run(const pg_check_options *o, const char *const *manifests, size_t n,
                       json_t **results, pg_diag *d);

#endif
