/* The settings of a `ptxgate check` run: the struct every stage reads (pg_check_options) and
 * the one option table (gate/base/optable.h) that drives, for each setting, the command line
 * (conversion, range, choices, default, --help), the "settings" record of results.json and the
 * worker's job in both directions (docs/isolation.md). A new option is one row in settings.c
 * and one field here. */
#ifndef PG_PIPELINE_SETTINGS_H
#define PG_PIPELINE_SETTINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/optable.h"
#include "model/devices.h"

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
    int devices[PG_DEVICES_MAX];
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
    /* The command's own settings around the run (cli/cmd_check.c; pg_check_run reads none of
     * them): where the reports go, how arguments expand, what is printed, the run's metadata. */
    const char *output_dir;        /* --output, default "reports" */
    const char *junit_copy;        /* --junit-copy, NULL = none */
    bool follow_output_link;       /* --follow-output-link */
    bool recursive;                /* --recursive: folders stand for their subfolders too */
    bool quiet;                    /* --quiet: no progress callbacks */
    bool no_isolation;             /* --no-isolation: worker_exe stays NULL */
    const char *label, *commit, *commit_time; /* run.label, run.commit, run.commit_time_utc */
} pg_check_options;

/* Defaults as documented above: the table's (pg_check_option_table), the data folder's PTX →
 * SASS tables and the watchdog's. */
void pg_check_options_init(pg_check_options *o);

/* The option table of `ptxgate check`, over pg_check_options, in --help order; it ends with an
 * all-NULL row. Rows without a command-line name are settings the program finds (the arch
 * tables' folder, the L2 flush size, the working directory) that the record or the job carry.
 * Static, never NULL. */
const pg_opt *pg_check_option_table(void);

/* The rules between options, after pg_opt_apply: --device and --devices name the same device;
 * several --devices need worker processes (not --no-isolation); device_ordinal becomes
 * devices[0]; --no-gpu without --if-no-gpu skips the GPU stages. a is the parse of the table.
 * Errors: PG_ERR_INPUT with the command's message (no field), e.g. "--device 1 and --devices
 * 0,1: give one of them". */
pg_status pg_check_options_finish(pg_check_options *o, const pg_opt_args *a, pg_diag *d);

/* results.json "settings" (docs/results.md): the table's record rows in their order;
 * flush_l2_bytes is the L2 flush size of the run's GPU (0 without one). New reference, NULL
 * when out of memory. */
json_t *pg_check_settings_json(const pg_check_options *o, size_t flush_l2_bytes);

/* The worker job's "options" object (worker.h) of o, and back: pg_check_job_options_read sets
 * every job row of o from opts (strings borrowed from it). file and the path "options" locate
 * errors: PG_ERR_INPUT naming the field (missing, wrong type, not one of a choice's names). */
json_t *pg_check_job_options(const pg_check_options *o);
pg_status pg_check_job_options_read(pg_check_options *o, const json_t *opts, const char *file,
                                    pg_diag *d);


#endif
