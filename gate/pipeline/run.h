/* The run: the state of one `ptxgate check` run from its settings to its end (pg_run), with its
 * progress, its device and its run-level steps (peaks, environment, the Holm step), private to
 * gate/pipeline. Knows submissions only by name (pg_submission, submission.h). */
#ifndef PG_PIPELINE_RUN_H
#define PG_PIPELINE_RUN_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/pathroot.h"
#include "device/device.h"
#include "model/fingerprint.h"
#include "model/workload_filter.h"
#include "stats/comparison.h"
#include "ledger.h"
#include "settings.h"
#include "wl_state.h"

#define PG_PATH_MAX 4096

typedef struct pg_submission pg_submission; /* submission.h */

/* The run's false-FAIL level for the performance comparisons and, separately, for the A/A
 * canaries (issue 4: 1 % per run). */
#define PG_RUN_ALPHA 0.01

typedef struct {
    const pg_check_options *o;
    int n_comparisons;            /* performance comparisons the run may make (Holm's m) */
    bool peaks_measured;
    double peak_tflops;           /* measured dense bf16 matrix rate, TFLOP/s (peaks.c), raised
                                     to any faster cuBLASLt launch seen later in the run */
    double peak_write_gbps;       /* measured memset write bandwidth, GB/s (10^9 bytes/s) */
    double gpu_warm_t;            /* pg_now_s() when timing blocks (or the heater) last ended
                                     on the run's GPU (0: never; a worker's job carries it) */
    struct pg_heater *heater;     /* worker.c: running from the run's start, NULL otherwise */
    double heater_seconds;        /* how long it kept the GPU busy (results: environment) */
    pg_stage_entry **perf_stages; /* performance stages of the recorded comparisons, in order
                                     (borrowed from their workloads' ledgers) */
    int *perf_cmp_index;          /* index of each in its stage's "comparisons" */
    pg_perf_cmp *perf_cmps;       /* name and record of each */
    pg_cmp_result *perf_results;
    size_t n_perf, cap_perf;
    char tmpdir[PG_PATH_MAX];
    char root[PG_PATH_MAX];       /* the submission root, resolved (--root, else the
                                     repository's top level) */
    char tasks_root[PG_PATH_MAX]; /* the tasks folder, resolved; "" when it does not resolve */
    pg_dirset include_roots;      /* what a .cu may include (cu_includes.c), built on first use */
    bool include_roots_ready;
    pthread_mutex_t *info_lock;   /* set while manifests are prepared side by side: taken by
                                     pg_run_device_info (prepare_all.c) */
    bool defer_accepted;          /* pg_submission_prepare leaves the accepted kernel out
                                     (prepare_all.c: the caller prepares it afterwards) */
    pg_device *dev;
    bool dev_tried;
    char gpu_skip_reason[1024];
    json_t *results;
    struct pg_baseline_state *baselines; /* baseline_check.c; NULL before resolution */
    /* The GPU's fingerprint and limits: read from the device in process, or reported by the
     * probe worker of an isolated run (worker.c); have_info false when no GPU was opened. */
    pg_device_info info;
    bool have_info;
    int workers;                  /* workers started so far (names their temporary files) */
    /* A worker in sanitize mode (under compute-sanitizer): correctness only, plain buffers
     * (the tool's own bounds checks see the exact allocation). */
    bool sanitize_mode;
    /* --devices with more than one device (worker_pool.c): held by whichever thread touches
     * the run or a submission's results; NULL when one thread does everything. */
    pthread_mutex_t *lock;
    pg_device_info *dev_infos;    /* per device of o->devices, as probed (owned); NULL if none */
    int n_dev_infos;
    /* o->workloads parsed (owned; NULL = every workload): applied to each submission's task,
     * its items' use checked over the whole run (pg_check_run). */
    pg_workload_filter *wfilter;
    /* Progress of the run's items (pg_run_submission_done): totals, done so far, start. */
    size_t items_total, items_done, subs_total, subs_done;
    double t0;
    /* The accepted kernels prepared and assembled once per run (accepted.c), one per manifest
     * path, shared by the submissions of their task; in a shard too (kept whole: each
     * submission borrows its plans of the workloads it kept, shard_filter.c). */
    struct pg_accepted_entry *accepted_cache;
    size_t n_accepted_cache;
} pg_run;

/* A submission's work is done: count its items and report progress (o->items_progress). The
 * caller holds run->lock when there is one. */
void pg_run_submission_done(pg_run *run, const pg_submission *s);

/* A comparison a worker reported for the run's Holm step: position cmp_index in the
 * "comparisons" of performance stage `stage` (borrowed from a workload's ledger), named and
 * written as cmp says. */
struct pg_perf_pending {
    pg_stage_entry *stage;
    int cmp_index;
    pg_perf_cmp cmp;
    pg_cmp_result result;
};

/* One device of a multi-GPU run and the peaks its first worker measured (each device measures
 * its own: peaks are a property of the GPU they ran on). */
typedef struct {
    int ordinal;
    bool peaks_measured;
    double peak_tflops, peak_write_gbps;
    double gpu_warm_t; /* as pg_run's, for this device */
} pg_device_slot;

/* Progress helper. */
void pg_progress(pg_run *run, const pg_submission *s, const char *workload, const char *stage,
                 const char *status, const char *message);
/* The start every stage shares (results_json.c): a new entry of kind appended to the owner's
 * ledger (the submission's s->stages, or one workload's) and so to its "stages" array, and the
 * progress line saying it began (workload: the workload's name; NULL for a submission-level
 * stage). Returns the entry, borrowed from owner (NULL when out of memory or the ledger is
 * full: the stage functions then do nothing). */
pg_stage_entry *pg_stage_begin(pg_run *run, const pg_submission *s, pg_ledger *owner,
                               const char *workload, pg_stage_kind kind);

/* --- stage_performance.c: record a main comparison for the run-level Holm step, and apply it
 * at the end of the run (FAILs Holm does not keep become INCONCLUSIVE warnings). cmp_index is
 * the comparison's position in the stage's details.comparisons (0: candidate_vs_<library>,
 * 2: candidate_vs_accepted). In an isolated run the worker reports its records and the parent
 * records them again on its copy of the stage (worker.c). */
void pg_perf_record(pg_run *run, pg_stage_entry *stage, int cmp_index, const pg_perf_cmp *cmp,
                    const pg_cmp_result *r);
void pg_perf_holm_finalize(pg_run *run);
void pg_perf_release(pg_run *run);

/* --- peaks.c: measure the device's peaks once per run (NaN when a measurement failed). */
pg_status pg_run_measure_peaks(pg_run *run, pg_diag *d);

/* --- environment.c */
json_t *pg_environment_json(const pg_run *run);
/* The run's fingerprint (gate/model/fingerprint.h) from the open device and the toolchain;
 * only toolchain fields without a device. */
void pg_run_fingerprint(const pg_run *run, pg_fingerprint *out);


/* Open the GPU once per run (stage_gpu.c); false with run->gpu_skip_reason set when it is
 * unavailable, disabled or broken. */
bool pg_run_ensure_device(pg_run *run);
/* The GPU's fingerprint and limits, or NULL with run->gpu_skip_reason set: opens the device in
 * process, or asks a probe worker in an isolated run (so the parent never creates a CUDA
 * context). */
const pg_device_info *pg_run_device_info(pg_run *run);

#endif
