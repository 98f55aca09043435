/* Shared state of one `ptxgate check` run, private to gate/pipeline. */
#ifndef PG_PIPELINE_INTERNAL_H
#define PG_PIPELINE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>

#include "check.h"
#include "device/device.h"
#include "model/binding.h"
#include "model/launch_limits.h"
#include "model/manifest.h"
#include "model/plan.h"
#include "model/task.h"
#include "ptx/signature.h"
#include "stats/accuracy.h"
#include "stats/comparison.h"
#include "tool/assemble.h"

#define PG_PATH_MAX 4096

/* One submission, validated and ready to run. */
typedef struct {
    pg_manifest *manifest;
    pg_task *task;
    char arch[32];
    char ptx_path[PG_PATH_MAX];   /* the PTX that is assembled: the source or nvcc's output */
    char cubin_path[PG_PATH_MAX];
    bool from_cu;
    bool cu_compiled;             /* .cu → PTX succeeded (always true for .ptx sources) */
    pg_assemble_result cu_result; /* nvcc's run, when from_cu */
    bool has_sig;
    pg_ptx_module_info sig;
    char sig_error[2048];         /* PTX signature parse failure: an assemble failure */
    char refusal[1024];           /* why the module must not be loaded (a device-heap call):
                                     the load stage fails with it, GPU or not; "" = none */
    int *workloads;               /* indices into task->workloads */
    int n_workloads;
    pg_plan *plans;               /* one per selected workload */
    json_t *json;                 /* borrowed: this submission's object in the results */
} pg_submission;

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
    json_t **perf_stages;         /* performance stages with a main comparison, in order */
    pg_cmp_result *perf_results;
    size_t n_perf, cap_perf;
    char tmpdir[PG_PATH_MAX];
    pg_device *dev;
    bool dev_tried;
    char gpu_skip_reason[1024];
    json_t *results;
    /* The GPU's fingerprint and limits: read from the device in process, or reported by the
     * probe worker of an isolated run (worker.c); have_info false when no GPU was opened. */
    pg_device_info info;
    bool have_info;
    int workers;                  /* workers started so far (names their temporary files) */
    /* A worker in sanitize mode (under compute-sanitizer): correctness only, plain buffers
     * (the tool's own bounds checks see the exact allocation). */
    bool sanitize_mode;
} pg_run;

/* --- submission.c: offline validation (input errors abort the run) */
pg_status pg_submission_prepare(pg_run *run, const char *manifest_path, int index,
                                pg_submission *s, pg_diag *d);
/* The worker's copy of a submission its parent prepared: manifest and task read again, the PTX
 * and cubin the parent made (cubin_path "" = the driver JIT), and the given task workload
 * indices, in order. */
pg_status pg_submission_prepare_worker(pg_run *run, const char *manifest_path, const char *arch,
                                       const char *ptx_path, const char *cubin_path,
                                       const int *workloads, int n_workloads, pg_submission *s,
                                       pg_diag *d);
void pg_submission_release(pg_submission *s);

/* --- results_json.c: building the results model */
json_t *pg_stage_new(const char *stage);
/* Set status ("pass"/"fail"/"error"/"skipped"), duration and message of a stage. */
void pg_stage_finish(json_t *stage, const char *status, double duration_s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
json_t *pg_stage_details(json_t *stage); /* borrowed */
const char *pg_stage_status(const json_t *stage);
/* A JSON string of untrusted text (paths, logs, kernel names): bytes that are not valid UTF-8
 * become U+FFFD, so a hostile byte can neither drop the text nor break the report. NULL gives
 * "". New reference. */
json_t *pg_jstr(const char *s);
/* Nullable number: NaN becomes null. New reference. */
json_t *pg_json_real_or_null(double v);
double pg_now_s(void);

/* --- stage_performance.c: record a main comparison for the run-level Holm step, and apply it
 * at the end of the run (FAILs Holm does not keep become INCONCLUSIVE warnings). */
void pg_perf_record(pg_run *run, json_t *stage, const pg_cmp_result *r);
void pg_perf_holm_finalize(pg_run *run);
void pg_perf_release(pg_run *run);

/* --- peaks.c: measure the device's peaks once per run (NaN when a measurement failed). */
pg_status pg_run_measure_peaks(pg_run *run, pg_diag *d);

/* --- environment.c */
json_t *pg_environment_json(const pg_run *run);

/* Open the GPU once per run (stage_gpu.c); false with run->gpu_skip_reason set when it is
 * unavailable, disabled or broken. */
bool pg_run_ensure_device(pg_run *run);
/* The GPU's fingerprint and limits, or NULL with run->gpu_skip_reason set: opens the device in
 * process, or asks a probe worker in an isolated run (so the parent never creates a CUDA
 * context). */
const pg_device_info *pg_run_device_info(pg_run *run);

/* --- stages */
void pg_stage_assemble(pg_run *run, pg_submission *s);
/* Runs load, then correctness and performance per workload, in this process. */
void pg_stages_gpu(pg_run *run, pg_submission *s);

/* --- stage_gpu.c, the pieces pg_stages_gpu and the worker share */
/* Append a skeleton record per selected workload to s->json "workloads". */
void pg_gpu_workloads_init(pg_submission *s);
/* Why the GPU stages cannot run (NULL when they can): the assemble stage did not pass (status
 * "skipped"), or no GPU ("skipped" or "error" per --if-no-gpu). Asks for the device. */
const char *pg_gpu_why_not(pg_run *run, pg_submission *s, const char **status,
                           bool *compile_error);
/* Record load and every workload's GPU stages as not run with status and reason. */
void pg_gpu_record_not_run(pg_run *run, pg_submission *s, const char *status, const char *why,
                           bool compile_error);
/* Record `name` as not run in `stages`, with status and reason (progress for non-skips). */
void pg_record_not_run(pg_run *run, pg_submission *s, json_t *stages, const char *workload,
                       const char *name, const char *status, const char *reason);
/* The load stage record (submission level): the module loads and every entry is found. */
bool pg_gpu_stage_load(pg_run *run, pg_submission *s);
/* Correctness, then (when correct) performance of workload i (position in s->workloads),
 * filling its record wj. */
void pg_gpu_run_workload(pg_run *run, pg_submission *s, int i, json_t *wj);

/* --- worker.c: the parent side of process isolation (docs/isolation.md) */
/* Open the GPU in a probe worker: fills run->info, or run->gpu_skip_reason. */
bool pg_worker_probe(pg_run *run);
/* The GPU stages of one submission in worker processes, merged into s->json; a worker that
 * hangs or dies costs only the step it was in. */
void pg_worker_stages_gpu(pg_run *run, pg_submission *s);

/* The job file of one worker (gate/pipeline/worker.h): the submission, the workloads at the
 * given positions in s->workloads, the run's settings. mode "check" runs the GPU stages;
 * "sanitize" loads and runs one correctness set per workload on plain (unguarded) buffers,
 * for a worker run under compute-sanitizer. */
pg_status pg_worker_write_job(pg_run *run, pg_submission *s, const int *positions, int n,
                              bool load_stage, const char *mode, const char *path, pg_diag *d);

/* --- stage_sanitize.c: with --sanitize, the submission-level sanitize stage: a worker under
 * compute-sanitizer per tool, on the submission's smallest workload, findings per kernel. */
void pg_stage_sanitize(pg_run *run, pg_submission *s);

/* --- worker_json.c: what crosses the process boundary */
json_t *pg_device_info_to_json(const pg_device_info *i);
bool pg_device_info_from_json(const json_t *j, pg_device_info *out);
/* Every field; non-finite numbers as the strings "nan", "inf", "-inf". */
json_t *pg_cmp_result_to_json(const pg_cmp_result *r);
bool pg_cmp_result_from_json(const json_t *j, pg_cmp_result *out);

/* Progress helper. */
void pg_progress(pg_run *run, const pg_submission *s, const char *workload, const char *stage,
                 const char *status, const char *message);

#endif

/* One workload of one submission on the GPU: its buffers and launches. */
typedef struct {
    pg_run *run;
    pg_submission *s;
    int index;                /* into s->workloads / s->plans */
    const pg_workload *w;
    const pg_plan *plan;
    pg_kernel **kernels;      /* one per launch, borrowed from the module */
    pg_buffer *tensors[PG_MAX_TENSORS];
    uint64_t tensor_addr[PG_MAX_TENSORS];
    pg_buffer *ws[PG_MAX_WORKSPACES];
    uint64_t ws_addr[PG_MAX_WORKSPACES];
    pg_arg_block *args;       /* one per launch */
    pg_launch *launches;
    int a, b, c;              /* gemm_nt operand tensor indices */
    json_t *json;             /* the workload's results object */
    uint64_t input_sum[PG_MAX_TENSORS]; /* checksums of the inputs as last filled */
    /* Timing: before each launch pg_wctx_prepare_launch also fills the inputs anew, from
     * pg_wctx_refill_seed(c), so no two timed launches see the same inputs and no cache of
     * earlier answers can ever hit. refills counts those fills. */
    bool refresh_inputs;
    uint64_t timing_seed;
    long long refills;
} pg_wctx;

/* workload.c */
/* Value of symbol `name` in workload w; 0 when the task has no such symbol. */
int64_t pg_workload_symbol(const pg_task *t, const pg_workload *w, const char *name);
pg_status pg_wctx_setup(pg_wctx *c, pg_diag *d);
void pg_wctx_release(pg_wctx *c);
/* Re-initialise workspaces (zero or poison, per manifest). */
pg_status pg_wctx_init_workspaces(pg_wctx *c, pg_diag *d);
/* Enqueue all launches of the submission (a pg_enqueue_fn over pg_wctx). */
pg_status pg_wctx_enqueue(void *wctx, pg_diag *d);
/* Before every launch (a pg_enqueue_fn, the candidate arm's prepare): outputs poisoned with
 * PG_POISON_BYTE and workspaces re-initialized (zero or poison, per manifest), so a launch
 * that does not compute its whole output leaves poison, whatever earlier launches wrote; with
 * refresh_inputs also new inputs (enqueued fills, no wait, no checksum). */
pg_status pg_wctx_prepare_launch(void *wctx, pg_diag *d);
/* The seed of the inputs the last timed launch saw: timing_seed + 64·refills (tensor i adds i;
 * 64 keeps the tensors' seeds apart). */
uint64_t pg_wctx_refill_seed(const pg_wctx *c);
/* Fill every input tensor with N(0,1) from seed (tensor i: seed + i), wait, and record the
 * inputs' checksums. */
pg_status pg_wctx_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d);
/* After launches: every canary of the tensors and workspaces intact, every input's checksum
 * unchanged. A violation is written to why (one line naming the buffer; "" when none) and the
 * canaries are re-armed; the return is PG_OK either way unless the GPU fails. */
pg_status pg_wctx_check_guards(pg_wctx *c, char *why, size_t n, pg_diag *d);
/* {"A": "0x7f...", ..., "ws": "0x..."}: the device addresses of this context's buffers. */
json_t *pg_wctx_addresses_json(const pg_wctx *c);
/* {"A": {"vmm", "front_canary_bytes", "back_canary_bytes", "guard_bytes"}, ...}. */
json_t *pg_wctx_guards_json(const pg_wctx *c);

/* stage_correctness.c: run ptxgate's reference on the current inputs and compare the output
 * tensor with it (host_out: output bytes, host_ref: count floats, caller-owned). */
pg_status pg_wctx_compare(pg_wctx *c, pg_buffer *ref, void *host_out, float *host_ref,
                          pg_accuracy *acc, pg_diag *d);
/* Seed of input set `set` of task workload `wl` (docs/correctness.md). Sets 0 .. sets-1 are
 * the correctness sets; set `sets` feeds the timing, set `sets + 1` the post-timing run on new
 * inputs. */
uint64_t pg_set_seed(uint64_t base, int wl, int set);

/* blocks.c: the block protocol and the heat soak of the performance stage. */
#define PG_BLOCK_MAX_ARMS 8
#define PG_BLOCK_MAX_BLOCKS 64 /* the last group-sequential look */
typedef struct {
    const pg_arm *arms;
    size_t n_arms;
    int warmup, reps; /* per arm and block; reps <= 10 */
    uint64_t seed;    /* block b's arm order comes from (seed, b) and is reproducible */
    double timeout_s; /* per arm and block */
    bool cupti;       /* also record CUPTI activity GPU time (cross-check; falls back when off) */
    bool watch;       /* NVML environment watch per arm and block, with flagging and re-runs */
    int max_reruns;   /* flagged blocks re-run at most this many times in total */
} pg_block_plan;
/* What the blocks measured besides the block statistic. Arrays are indexed
 * [a * PG_BLOCK_MAX_BLOCKS + b]; NaN where not measured. */
typedef struct {
    double gpu_ms[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS];       /* CUPTI median per block */
    double sm_clock_mhz[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS]; /* NVML median per block */
    bool cupti_used;          /* CUPTI times recorded; false after the first CUPTI failure */
    char cupti_error[512];    /* why CUPTI was turned off */
    bool nvml_used;
    int flagged;              /* blocks flagged (clock spread > 2 % or HW/thermal slowdown) */
    int reruns;               /* of those, re-run */
    int other_processes;      /* most other compute processes seen; -1 unknown */
    bool hw_slowdown, thermal, power_cap;
    double energy_j, watched_s; /* summed over the watched arm-blocks */
    int launches;             /* timed + untimed launches of all arms */
} pg_block_data;
/* Arm order of block b: a permutation of 0..n_arms-1 (Fisher–Yates over splitmix64). */
void pg_block_order(uint64_t seed, int block, size_t n_arms, int *order);
/* Run blocks [first, last): block_ms[a * PG_BLOCK_MAX_BLOCKS + b] = median of arm a's timed
 * launches in block b (ms); all_ms (may be NULL) receives every timed launch at
 * ((a * PG_BLOCK_MAX_BLOCKS + b) * reps + r). */
pg_status pg_blocks_run(pg_device *dev, const pg_block_plan *p, int first, int last,
                        double *block_ms, double *all_ms, pg_block_data *data, pg_diag *d);
/* Clear data before the first pg_blocks_run of a comparison. */
void pg_block_data_init(pg_block_data *data);
typedef struct {
    double seconds;               /* wall time of the soak */
    int windows;                  /* 100 ms windows run */
    bool steady;                  /* three consecutive windows agreed within 0.5 % */
    double last_window_round_ms;  /* mean time of one round of all arms in the last window */
} pg_soak_result;
pg_status pg_heat_soak(pg_device *dev, const pg_arm *arms, size_t n_arms, double timeout_s,
                       pg_soak_result *out, pg_diag *d);

/* stage_correctness.c / stage_performance.c: return true when the stage passed. */
bool pg_stage_correctness(pg_wctx *c);
bool pg_stage_performance(pg_wctx *c);
/* stage_verify.c: after the performance stage, on the context it timed (its inputs from
 * pg_set_seed(.., sets)): the last timed launch's output against the reference, inputs and
 * canaries intact, then one launch on new inputs (set sets + 1) with poisoned outputs. True
 * when all hold. */
bool pg_stage_verify(pg_wctx *c);
