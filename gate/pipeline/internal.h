/* Shared state of one `ptxgate check` run, private to gate/pipeline. */
#ifndef PG_PIPELINE_INTERNAL_H
#define PG_PIPELINE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "base/pathroot.h"
#include "check.h"
#include "device/device.h"
#include "model/baseline.h"
#include "model/binding.h"
#include "model/launch_limits.h"
#include "model/manifest.h"
#include "model/plan.h"
#include "model/targets.h"
#include "model/workload_filter.h"
#include "model/task.h"
#include "ptx/inventory.h"
#include "ptx/signature.h"
#include "stats/accuracy.h"
#include "stats/comparison.h"
#include "tool/assemble.h"

#define PG_PATH_MAX 4096

/* Offset of the accepted kernel's temporary file names from the candidate's; a submission
 * prepared with an index at or above it is a task's accepted kernel. */
#define PG_ACCEPTED_INDEX_BASE 100000

/* One submission, validated and ready to run. */
typedef struct pg_submission pg_submission;
struct pg_submission {
    pg_manifest *manifest;
    pg_task *task;
    char arch[32];
    char ptx_path[PG_PATH_MAX];   /* the PTX that is assembled: the source or nvcc's output */
    char cubin_path[PG_PATH_MAX];
    bool from_cu;
    bool cu_compiled;             /* .cu → PTX succeeded (always true for .ptx sources) */
    pg_assemble_result cu_result; /* nvcc's run, when from_cu (the -M run when the include
                                     check failed); its output filtered (cu_includes.c) */
    char include_error[2048];     /* why the .cu was not compiled: a file it includes lies
                                     outside the allowed folders, or nvcc -M failed; "" = none */
    bool includes_ok;             /* nvcc -M ran and every file it listed is allowed */
    int includes_checked;         /* files nvcc -M listed, all inside the allowed folders */
    double includes_wall_s;       /* seconds the nvcc -M run took (0: not run) */
    int cu_dropped;               /* nvcc diagnostic lines dropped as quoting other files */
    bool has_sig;
    pg_ptx_module_info sig;
    char sig_error[2048];         /* PTX signature parse failure: an assemble failure */
    bool has_inventory;
    pg_ptx_inventory inventory;   /* the PTX's instructions (ptx/inventory.h); released by
                                     pg_instr_static once the static check is recorded */
    char inventory_error[2048];   /* why there is none (a gate limitation: the stage errors) */
    char refusal[2048];           /* PTX refused before assembly (ptx/refusals.h): an assemble
                                     failure; "" when accepted */
    long refusal_line;
    char heap_refusal[1024];      /* why the module must not be loaded (a device-heap call):
                                     the load stage fails with it, GPU or not; "" = none */
    char instr_policy[16];        /* "require", "warn" or "off" (--instructions, else the task) */
    bool has_targets;             /* the task lists targets for arch (and the policy is not off) */
    pg_target_set targets;
    pg_arch_table *arch_table;    /* the table of arch, when has_targets */
    bool uses_device_symbols;     /* an expression names num_sms, l2_bytes, ... */
    pg_device_symbols device_symbols; /* their values, when uses_device_symbols */
    json_t *instr_static;         /* the instructions stage as computed once after assemble
                                     (stage_instructions.c); each workload records a copy */
    int instr_copies;
    int *workloads;               /* indices into task->workloads */
    int n_workloads;
    /* The manifest's compile options as tool arguments (NULL-terminated; entries point into
     * the manifest and the storage below): nvcc's std, flags and -I<resolved folder>, and
     * ptxas's flags. */
    const char *nvcc_extra[PG_COMPILE_MAX_FLAGS + PG_COMPILE_MAX_INCLUDE_DIRS + 2];
    const char *ptxas_extra[PG_COMPILE_MAX_FLAGS + 1];
    char std_arg[16];
    char include_args[PG_COMPILE_MAX_INCLUDE_DIRS][PG_PATH_MAX + 4];
    int *declined;                /* selected workloads the manifest's "supports" declines
                                     (indices into task->workloads): recorded not_applicable,
                                     never run */
    int n_declined;
    pg_plan *plans;               /* one per selected workload */
    json_t *json;                 /* borrowed: this submission's object in the results */
    /* The task's accepted kernel (accepted.c), re-measured next to the candidate: NULL when the
     * task names none or --accepted-kernel none. */
    pg_submission *accepted;
    bool accepted_shared;         /* accepted is the run's (pg_run.accepted_cache), not owned */
    bool accepted_self;           /* the accepted kernel's manifest is this submission's own
                                     file: accepted == this submission, assembled once */
    bool is_accepted;             /* this is some submission's accepted kernel (progress label) */
    bool accepted_usable;         /* assembled (and, on the GPU, loaded) */
    bool accepted_identical;      /* its cubin holds the candidate's kernels (SASS-identical) */
    const char *accepted_identical_by; /* which test matched: "bytes" (byte-identical cubin) or
                                          "code_sections" (gate/ptx/cubin_code.h); NULL when not
                                          identical (static strings) */
    char accepted_note[1200];     /* why it is not usable, for the performance stage */
    pg_module *accepted_module;
    pg_kernel **accepted_kernels;
    /* Isolated runs: the comparisons its workers reported, in report order, waiting for the
     * run's Holm step (pg_worker_flush_perf registers them), and the device ordinal its GPU
     * work was given to (-1 before). */
    struct pg_perf_pending *pending;
    size_t n_pending, cap_pending;
    int device;
};

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
    json_t **perf_stages;         /* performance stages of the recorded comparisons, in order */
    int *perf_cmp_index;          /* index of each in its stage's "comparisons" */
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
    /* The accepted kernels prepared and assembled once per run (accepted.c), shared by the
     * submissions of their task; NULL with shards (each submission compacts its own). */
    struct pg_accepted_entry *accepted_cache;
    size_t n_accepted_cache;
} pg_run;

/* A submission's work is done: count its items and report progress (o->items_progress). The
 * caller holds run->lock when there is one. */
void pg_run_submission_done(pg_run *run, const pg_submission *s);

/* A comparison a worker reported for the run's Holm step: position cmp_index in the
 * "comparisons" of performance stage `stage` (a borrowed record of the submission). */
struct pg_perf_pending {
    json_t *stage;
    int cmp_index;
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

/* --- submission.c: offline validation (input errors abort the run) */
pg_status pg_submission_prepare(pg_run *run, const char *manifest_path, int index,
                                pg_submission *s, pg_diag *d);
/* The worker's copy of a submission its parent prepared: manifest and task read again, the
 * instruction targets resolved again (for the instructions stage), the PTX and cubin the parent
 * made (cubin_path "" = the driver JIT), and the given task workload indices, in order. No
 * accepted kernel: the worker prepares that one with this function too (worker_main.c). */
pg_status pg_submission_prepare_worker(pg_run *run, const char *manifest_path, const char *arch,
                                       const char *ptx_path, const char *cubin_path,
                                       const int *workloads, int n_workloads, pg_submission *s,
                                       pg_diag *d);
void pg_submission_release(pg_submission *s);

/* --- accepted.c: the task's accepted kernel, the arm of the regression comparison (issue 4:
 * re-measured in the same process, never read from a file). prepare validates it offline like
 * a submission (input errors are the run's: the manifest is the task's or the command line's);
 * assemble records it under the submission's "accepted_kernel"; load loads its module on the
 * GPU (after the candidate's); release frees all of it. */
pg_status pg_accepted_prepare(pg_run *run, pg_submission *s, int index, pg_diag *d);
void pg_accepted_assemble(pg_run *run, pg_submission *s);
void pg_accepted_load(pg_run *run, pg_submission *s);
void pg_accepted_release(pg_submission *s);
/* Release the run's shared accepted kernels (after every submission's release). */
void pg_accepted_cache_free(pg_run *run);
/* Why a SASS-identical candidate needs no timing, after the test that matched
 * (s->accepted_identical_by): a short phrase for the stage message, and the comparison's reason
 * (static strings). */
const char *pg_accepted_identical_text(const pg_submission *s);
const char *pg_accepted_identical_reason(const pg_submission *s);

/* stage_gpu.c: read the submission's cubin (or PTX for the driver JIT) and load it, then get
 * every launch's kernel (kernels: manifest->n_launches entries). log receives the JIT log. */
pg_status pg_submission_load_module(pg_run *run, pg_submission *s, pg_module **mod,
                                    pg_kernel **kernels, char *log, size_t log_len,
                                    pg_diag *d);

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
 * at the end of the run (FAILs Holm does not keep become INCONCLUSIVE warnings). cmp_index is
 * the comparison's position in the stage's details.comparisons (0: candidate_vs_<library>,
 * 2: candidate_vs_accepted). In an isolated run the worker reports its records and the parent
 * records them again on its copy of the stage (worker.c). */
void pg_perf_record(pg_run *run, json_t *stage, int cmp_index, const pg_cmp_result *r);
void pg_perf_holm_finalize(pg_run *run);
void pg_perf_release(pg_run *run);

/* --- shard_filter.c: with o->shard_count > 0, keep only the shard's work items in subs[0..n)
 * (model/shard.h; each submission's workloads, and its accepted kernel's, compacted in place)
 * and return the "shard" record of the results (index, count, items_total and the kept items
 * with their positions in the unsharded run) in *record (new reference). Errors: PG_ERR_INFRA. */
pg_status pg_run_select_shard(pg_run *run, pg_submission *subs, size_t n, json_t **record,
                              pg_diag *d);

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

/* --- stages */
void pg_stage_assemble(pg_run *run, pg_submission *s);
/* stage_instructions.c: the static half, once per submission right after assemble (PTX
 * inventory against the targets, disassembly of the assembled cubin) into s->instr_static. */
void pg_instr_static(pg_run *run, pg_submission *s);
/* Append the submission's instructions stage to a workload's stages (a copy of the static
 * result; the runtime half fills it in further). Returns the appended stage (borrowed). */
json_t *pg_stage_instructions(pg_run *run, pg_submission *s, json_t *stages);
/* The runtime half's entry point (docs/instructions.md, "Runtime fields"): record for target
 * (its pattern as the task writes it, "wgmma.mma_async") the executed count of its SASS
 * instructions over the submission's launches of one workload, and coverage = executed tensor
 * work / required work (NaN when not computed) against min_coverage (e.g. 0.99; NaN: no
 * requirement). Sets the target's runtime {status "measured", executed_count, coverage,
 * min_coverage, reason}: reason never_executed when executed <= 0, coverage_too_low when
 * coverage < min_coverage, else null; a runtime reason fails the target unless a static reason
 * already did; then the stage's status and message are derived again under its policy.
 * NaN executed records null (not measured). An unknown target name changes nothing. */
/* instr_runtime.c: the runtime half for workload c (correct, on the GPU): one CUPTI
 * range-profiler run over the submission's launches, counts and coverage recorded into the
 * workload's instructions stage (pg_instr_record_runtime); profiling that cannot run makes
 * the targets "unknown" and the stage an infrastructure error (policy warn: a warning). */
struct pg_wctx;
void pg_instr_runtime(struct pg_wctx *c, json_t *stage);
void pg_instr_record_runtime(json_t *stage, const char *target, double executed,
                             double coverage, double min_coverage);
/* Runs load, then correctness, instructions, performance and verify per workload, in this
 * process. */
void pg_stages_gpu(pg_run *run, pg_submission *s);

/* --- stage_gpu.c, the pieces pg_stages_gpu and the worker share */
/* Append a skeleton record per selected workload to s->json "workloads". */
void pg_gpu_workloads_init(pg_submission *s);
/* Why the GPU stages cannot run (NULL when they can): the assemble stage did not pass (status
 * "skipped"), the PTX calls the device heap (the load stage is recorded as failed), or no GPU
 * ("skipped" or "error" per --if-no-gpu). Asks for the device. */
const char *pg_gpu_why_not(pg_run *run, pg_submission *s, const char **status,
                           bool *compile_error);
/* Record load and every workload's GPU stages as not run with status and reason (the
 * instructions stage, which needs no GPU, as computed). */
void pg_gpu_record_not_run(pg_run *run, pg_submission *s, const char *status, const char *why,
                           bool compile_error);
/* Record `name` as not run in `stages`, with status and reason (progress for non-skips). */
void pg_record_not_run(pg_run *run, pg_submission *s, json_t *stages, const char *workload,
                       const char *name, const char *status, const char *reason);
/* The load stage record (submission level): the module loads and every entry is found; then
 * the accepted kernel is loaded (pg_accepted_load). */
bool pg_gpu_stage_load(pg_run *run, pg_submission *s);
/* Correctness and instructions, then (when correct) performance and verify of workload i
 * (position in s->workloads), filling its record wj. */
void pg_gpu_run_workload(pg_run *run, pg_submission *s, int i, json_t *wj);

/* --- worker.c: the parent side of process isolation (docs/isolation.md) */
/* Open the GPU in a probe worker: fills run->info, or run->gpu_skip_reason (from the heater's
 * report when one runs). */
bool pg_worker_probe(pg_run *run);
/* The heater (worker.c): the probe worker with --heat, started on a thread of its own when the
 * run begins, so that the GPU's fingerprint and a warm GPU are there when the offline stages are
 * done (docs/performance.md, step 4). Start: false when no thread could be made (the run goes on
 * without). Join: have it killed, wait until its process is reaped and free it; when it heated
 * for at least PG_HEATER_MIN_S, run->gpu_warm_t = that moment and run->heater_seconds = how
 * long it heated. Called before the first submission's worker starts, so its kernels never run
 * next to a submission's (a no-op without a heater). */
#define PG_HEATER_MIN_S 1.0
bool pg_heater_start(pg_run *run);
void pg_heater_join(pg_run *run);
/* Probe device `ordinal`: *info on success (true), else why in reason[n]. */
bool pg_worker_probe_device(pg_run *run, int ordinal, pg_device_info *info, char *reason,
                            size_t n);
/* The GPU stages of one submission in worker processes, merged into s->json; a worker that
 * hangs or dies costs only the step it was in. Its comparisons are registered for Holm at
 * once (pg_worker_flush_perf). */
void pg_worker_stages_gpu(pg_run *run, pg_submission *s);
/* The same on the device of `slot` (its ordinal and peaks; NULL: o->device_ordinal and the
 * run's peaks), leaving the comparisons in s->pending. With run->lock set, the caller holds
 * it; it is released only while a worker runs (the status callbacks take it). */
void pg_worker_stages_gpu_on(pg_run *run, pg_submission *s, pg_device_slot *slot);
/* Register s->pending for the run's Holm step, in report order, and empty it. */
void pg_worker_flush_perf(pg_run *run, pg_submission *s);
/* The job file of one worker (gate/pipeline/worker.h): the submission (with its accepted
 * kernel and its instructions stage as computed after assemble), the workloads at the given
 * positions in s->workloads, the run's settings. mode "check" runs the GPU stages; "sanitize"
 * loads and runs one correctness set per workload on plain (unguarded) buffers, for a worker
 * run under compute-sanitizer. */
pg_status pg_worker_write_job(pg_run *run, pg_submission *s, const int *positions, int n,
                              bool load_stage, const char *mode, const char *path, pg_diag *d);

/* --- stage_sanitize.c: with --sanitize, the submission-level sanitize stage: a worker under
 * compute-sanitizer per tool, on the submission's smallest workload, findings per kernel. */
void pg_stage_sanitize(pg_run *run, pg_submission *s);

/* --- worker_pool.c: `--devices` with more than one device (docs/isolation.md).
 * probe: one probe worker per device; all must be the same GPU model (name, compute capability,
 * SM count), else PG_ERR_INPUT naming --devices; a device that cannot be opened makes the run
 * GPU-less as with one device (run->gpu_skip_reason names it). Fills run->info (the first
 * device), run->dev_infos.
 * run: the GPU stages of the submissions with active[i] on the devices, at most one worker per
 * device at a time, whole submissions longest first (model/devices.h); results stay in
 * s->json in submission order and the comparisons are registered for Holm after all ended, in
 * submission order. */
pg_status pg_worker_pool_probe(pg_run *run, pg_diag *d);
void pg_worker_pool_run(pg_run *run, pg_submission *subs, size_t n, const bool *active);

/* --- worker_json.c: what crosses the process boundary */
json_t *pg_device_info_to_json(const pg_device_info *i);
bool pg_device_info_from_json(const json_t *j, pg_device_info *out);
/* Every field; non-finite numbers as the strings "nan", "inf", "-inf". */
json_t *pg_cmp_result_to_json(const pg_cmp_result *r);
bool pg_cmp_result_from_json(const json_t *j, pg_cmp_result *out);

/* --- cu_includes.c: what a .cu may make nvcc read (issue 14).
 * check_includes: "nvcc -M" with the compile's flags into <tmpdir>/submission<index>.d; every
 * listed file must resolve (realpath) inside run->root, run->tasks_root, the CUDA toolkit's
 * include folders or the host compiler's system include folders; else s->include_error names
 * the first such file, the file (and line) that included it, and how many more there are, and
 * s->cu_result is the -M run (its output filtered). nvcc missing: s->cu_result.tool_found false.
 * s->includes_ok: the compile may run.
 * Returns PG_OK unless the arch is malformed (PG_ERR_INPUT) or memory runs out (PG_ERR_INFRA).
 * filter_log: r's output reduced to the lines of files in those folders and its diagnostics
 * parsed again; *dropped counts the diagnostics dropped (tool/diag_filter.h).
 * display_path: path relative to run->root when it resolves inside it, else as given. */
pg_status pg_cu_check_includes(pg_run *run, pg_submission *s, int index, pg_diag *d);
pg_status pg_cu_filter_log(pg_run *run, pg_assemble_result *r, int *dropped, pg_diag *d);
void pg_cu_display_path(const pg_run *run, const char *path, char *out, size_t n);
/* Build the run's allowed include folders now (otherwise on first use), so that threads that
 * check includes only read them (prepare_all.c). */
void pg_cu_include_roots_ready(pg_run *run);

/* --- prepare_all.c: pg_submission_prepare of every manifest, on up to one thread per CPU
 * core (at most 16), into subs[i] with status[i] and diags[i] (arrays of n, caller-owned;
 * subs[i] is prepared whatever its status, so the caller releases every one it keeps or drops).
 * Accepted kernels are left out (run->defer_accepted): the caller prepares them afterwards with
 * pg_accepted_prepare, in order. */
void pg_prepare_all(pg_run *run, const char *const *manifests, size_t n, pg_submission *subs,
                    pg_status *status, pg_diag *diags);

/* Progress helper. */
void pg_progress(pg_run *run, const pg_submission *s, const char *workload, const char *stage,
                 const char *status, const char *message);

/* One workload of one submission on the GPU: its buffers and launches. */
/* phases.c: where a GPU stage's time went, per phase, in seconds (the stage's details
 * "phases_s"; docs/performance.md, "Where the time goes"). The workload context's primitives
 * add to them; each stage resets them when it begins. */
typedef enum {
    PG_PHASE_FILL,      /* input fills (and for mha_bwd the reference forward making O, LSE) */
    PG_PHASE_CHECKSUM,  /* input checksums after a fill */
    PG_PHASE_KERNEL,    /* the submission's launches, enqueue to completion (untimed runs) */
    PG_PHASE_GUARDS,    /* canaries and input checksums after launches */
    PG_PHASE_REFERENCE, /* ptxgate's reference of every output */
    PG_PHASE_COMPARE,   /* the tolerance comparison and the determinism diff (on the GPU) */
    PG_PHASE_ARMS,      /* performance: arms set up (vendor plan search or pinning, modules) */
    PG_PHASE_PROBE,     /* performance: the probe launch per arm */
    PG_PHASE_SOAK,      /* performance: the heat soak */
    PG_PHASE_BLOCKS,    /* performance: the blocks up to the deciding look */
    PG_PHASE_PEAKS,     /* performance: the device's peaks, measured once per process */
    PG_PHASE_COUNT
} pg_phase;
typedef struct {
    double seconds[PG_PHASE_COUNT];
} pg_phase_times;

typedef struct pg_wctx pg_wctx;
struct pg_wctx {
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
    /* device_struct parameters: one guarded buffer each, its packed bytes (tensor maps
     * encoded) kept on the host to be written again before every run, and its field name. */
    pg_buffer *dstruct[PG_MAX_DEVICE_STRUCTS];
    unsigned char *dstruct_host[PG_MAX_DEVICE_STRUCTS];
    size_t dstruct_bytes[PG_MAX_DEVICE_STRUCTS];
    const char *dstruct_field[PG_MAX_DEVICE_STRUCTS];
    int n_dstruct;
    pg_launch *launches;
    int a, b, c;              /* gemm_nt operand tensor indices */
    json_t *json;             /* the workload's results object */
    const pg_wctx *inputs_from; /* set before setup: borrow its input tensors (arms share
                                   inputs, each has its own outputs); NULL = allocate all */
    bool borrowed[PG_MAX_TENSORS];
    uint64_t input_sum[PG_MAX_TENSORS]; /* checksums of the inputs as last filled */
    /* Timing: before each launch pg_wctx_prepare_launch also fills the refillable inputs anew
     * (pg_refrun_refill), from pg_wctx_refill_seed(c), so no two timed launches see the same
     * inputs and no cache of earlier answers can ever hit. refills counts those fills. */
    bool refresh_inputs;
    uint64_t timing_seed;
    long long refills;
    pg_phase_times phases;
};

/* phases.c: add the time since since_s (pg_now_s) to a phase of c; reset all; the non-zero
 * phases as {"fill": 0.0123, ...} (seconds, 4 decimals; new reference). */
void pg_phase_add(pg_wctx *c, pg_phase phase, double since_s);
void pg_phases_reset(pg_wctx *c);
json_t *pg_phases_json(const pg_wctx *c);

/* workload.c */
/* Value of symbol `name` in workload w; 0 when the task has no such symbol. */
int64_t pg_workload_symbol(const pg_task *t, const pg_workload *w, const char *name);
/* Allocate the tensors (borrowing inputs from c->inputs_from when set), workspaces and argument
 * blocks of c; pg_wctx_release frees what setup allocated, never borrowed tensors. */
pg_status pg_wctx_setup(pg_wctx *c, pg_diag *d);
void pg_wctx_release(pg_wctx *c);
/* Re-initialise workspaces (zero or poison, per manifest). */
pg_status pg_wctx_init_workspaces(pg_wctx *c, pg_diag *d);
/* Enqueue all launches of the submission (a pg_enqueue_fn over pg_wctx). */
pg_status pg_wctx_enqueue(void *wctx, pg_diag *d);
/* Enqueue all launches and wait for them (timeout: the run's --timeout), timed as the kernel
 * phase. PG_FAIL_KERNEL when the kernel faulted or timed out. */
pg_status pg_wctx_run_once(pg_wctx *c, pg_diag *d);
/* Before every launch (a pg_enqueue_fn, the candidate arm's prepare in cold mode): outputs
 * poisoned with PG_POISON_BYTE and workspaces re-initialized (zero or poison, per manifest), so
 * a launch that does not compute its whole output leaves poison, whatever earlier launches
 * wrote; with refresh_inputs also new refillable inputs (pg_refrun_refill: enqueued fills, no
 * wait, no checksum). */
pg_status pg_wctx_prepare_launch(void *wctx, pg_diag *d);
/* The seed of the refilled inputs the last timed launch saw: timing_seed + 64·refills (tensor i
 * adds i; 64 keeps the tensors' seeds apart). */
uint64_t pg_wctx_refill_seed(const pg_wctx *c);
/* The inputs of one input set (pg_refrun_fill_inputs: for mha_bwd O and LSE from the reference
 * forward), wait, and record every input's checksum. */
pg_status pg_wctx_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d);
/* After launches: every canary of the tensors and workspaces intact, every input's checksum
 * unchanged. A violation is written to why (one line naming the buffer; "" when none) and the
 * canaries are re-armed; the return is PG_OK either way unless the GPU fails. */
pg_status pg_wctx_check_guards(pg_wctx *c, char *why, size_t n, pg_diag *d);
/* {"A": "0x7f...", ..., "ws": "0x..."}: the device addresses of this context's buffers. */
json_t *pg_wctx_addresses_json(const pg_wctx *c);
/* {"A": {"vmm", "front_canary_bytes", "back_canary_bytes", "guard_bytes"}, ...}. */
json_t *pg_wctx_guards_json(const pg_wctx *c);

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
    bool no_flush;    /* sustained mode: no L2 flush before timed launches (default: flush) */
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
    bool warm_start;              /* the GPU was timing until at most PG_SOAK_WARM_S ago */
    double min_s;                 /* the minimum the soak ran: 2 s cold, 0.5 s warm */
} pg_soak_result;
/* The heat soak: all arms back to back for at least 2 s (0.5 s when warm) and until three
 * consecutive 100 ms windows agree within 0.5 % (at most 10 s; 3 s when warm). since_warm_s: seconds since
 * the GPU last ran timing blocks (a previous workload, in this process or another worker of
 * the run; +inf or NaN: never). The GPU counts as warm within PG_SOAK_WARM_S of that: the
 * clocks and the power draw are those of steady timing, and the window agreement still has
 * to hold (docs/performance.md, step 4). */
#define PG_SOAK_WARM_S 10.0
pg_status pg_heat_soak(pg_device *dev, const pg_arm *arms, size_t n_arms, double timeout_s,
                       double since_warm_s, pg_soak_result *out, pg_diag *d);

/* reference_run.c: the per-operation parts of the correctness stage. */
/* Fill the inputs of one input set: input tensor i gets N(0,1) samples from seed + i, except
 * that for mha_bwd O and LSE are the reference forward of the filled Q, K, V (O rounded to the
 * task's dtype, LSE fp32), so the backward sees a consistent forward. Enqueued work plus, for
 * mha_bwd, synchronous reference work (waits bounded by the run's timeout). */
pg_status pg_refrun_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d);
/* True for the inputs a timed launch may get anew without the reference forward: those
 * pg_refrun_fill_inputs draws at random and no other input is derived from. Every input of
 * gemm_nt and mha_fwd; of mha_bwd only dO (Q, K, V stay, so O and LSE stay consistent). */
bool pg_refrun_refillable(const pg_task *t, int tensor);
/* Enqueue N(0,1) fills (seed + i for tensor i, as pg_refrun_fill_inputs) of the refillable
 * inputs only; no wait. */
pg_status pg_refrun_refill(pg_wctx *c, uint64_t seed, pg_diag *d);
/* ptxgate's fp32 reference of every output tensor i into refs[i] (tensor_elements[i] floats;
 * NULL entries for inputs), from the current inputs; returns after the GPU finished. */
pg_status pg_refrun_outputs(pg_wctx *c, pg_buffer *const *refs, pg_diag *d);

/* vendor_arm.c: the vendor baseline a task is timed against, as one arm of the performance
 * stage: cuBLASLt (gemm_nt: the fastest of the task's max_candidates heuristic algorithms) or
 * cuDNN (attention: the SDPA graphs of device.h). prepare allocates the baseline's own outputs
 * and chooses its algorithm for workload c (whose inputs it reads); *out is owned by the caller
 * (pg_vendor_free). Errors: the library's, as PG_ERR_INFRA with the operation named. */
typedef struct pg_vendor pg_vendor;
pg_status pg_vendor_prepare(pg_wctx *c, pg_vendor **out, pg_diag *d);
/* The arm that enqueues one baseline run; {NULL, NULL} for a NULL baseline. */
pg_arm pg_vendor_arm(pg_vendor *b);
/* Add the baseline's record to the results object `obj`: "library" ("cublaslt" | "cudnn"),
 * the algorithm or engine and their settings (docs/results.md). */
void pg_vendor_describe(const pg_vendor *b, json_t *obj);
/* "cuBLASLt" or "cuDNN", for messages. */
const char *pg_vendor_label(const pg_vendor *b);
/* The cuBLASLt plan of a GEMM baseline (NULL for cuDNN), and the baseline's own output buffer
 * of task tensor `tensor` (NULL for inputs): sustained mode rebinds the plan to rotated copies. */
pg_blaslt_gemm *pg_vendor_gemm(pg_vendor *b);
pg_buffer *pg_vendor_output(pg_vendor *b, int tensor);
void pg_vendor_free(pg_vendor *b);

/* stage_correctness.c: the outputs of a task with their fp32 reference buffers, shared by the
 * correctness and verify stages. The comparison runs on the GPU (pg_buffer_compare_accuracy):
 * nothing is downloaded but its per-block sums. */
typedef struct {
    int n;                                    /* outputs of the task */
    int tensor[PG_MAX_TENSORS];               /* their task tensor indices */
    const pg_tolerance *tol[PG_MAX_TENSORS];  /* pg_task_output_tolerance */
    pg_buffer *ref[PG_MAX_TENSORS];           /* fp32 references, one per output */
} pg_outputs;
pg_status pg_outputs_setup(pg_wctx *c, pg_outputs *o, pg_diag *d);
void pg_outputs_release(pg_outputs *o);
/* ptxgate's reference of every output from the current inputs, and every output of c against
 * it: acc[i] for output i (o->n entries). Reference failures are PG_ERR_INFRA. */
pg_status pg_outputs_compare(pg_wctx *c, pg_outputs *o, pg_accuracy *acc, pg_diag *d);
/* Seed of input set `set` of task workload `wl` (docs/correctness.md). Sets 0 .. sets-1 are
 * the correctness sets; set `sets` feeds the timing, set `sets + 1` the post-timing run on new
 * inputs. */
uint64_t pg_set_seed(uint64_t base, int wl, int set);

/* stage_correctness.c / stage_performance.c: return true when the stage passed. */
bool pg_stage_correctness(pg_wctx *c);
bool pg_stage_performance(pg_wctx *c);
/* stage_verify.c: after the performance stage, on the context it timed (its inputs from
 * pg_set_seed(.., sets)): the last timed launch's outputs against the reference, inputs and
 * canaries intact, then one launch on new inputs (set sets + 1) with poisoned outputs. True
 * when all hold. */
bool pg_stage_verify(pg_wctx *c);

/* --- baseline_check.c: stored baselines at check time (docs/baselines.md).
 * resolve: once per run after the device is opened (or not): the GPU key, then per task of
 * the run its file <baselines_dir>/<gpu-key>/<task>.json loaded and validated (a bad file is
 * PG_ERR_INPUT naming the file and field: the run stops before any GPU work), the live
 * fingerprint compared with the stored one, and the accepted kernel's hashes compared.
 * Without a GPU and without --gpu-key nothing is looked up.
 * refuses: true (with the reason) when --on-missing-baseline=fail and workload c has no usable
 * stored entry: the performance stage is then recorded as an infrastructure error, not run.
 * prepare_gemm: the performance stage's cuBLASLt preparation (perf_arms.c): the stored
 * algorithm pinned when the stored and live cuBLASLt versions match and the entry describes
 * c's workload, else the heuristic search (also when cuBLASLt refuses the pinned algorithm);
 * how it went is written to the current performance stage's details.stored_baseline.
 * prepare_sdpa: the same for cuDNN's attention graphs (vendor_arm.c): args->pin set to the
 * stored engine configuration when the cuDNN versions match (and reset after), else, or when
 * cuDNN refuses it, the heuristics choose.
 * check_stage: after the performance stage: the live vendor median and interval against the
 * stored ones (details.baseline_drift); drift beyond --drift-tolerance is a warning or an
 * infrastructure error per --on-drift. Verdicts stay those of the live measurement.
 * json: the run's "baselines" section (docs/results.md). */
pg_status pg_baselines_resolve(pg_run *run, pg_submission *subs, size_t n, pg_diag *d);
bool pg_baseline_refuses(pg_wctx *c, char *why, size_t n);
pg_status pg_baseline_prepare_gemm(pg_wctx *c, pg_dtype dtype, int64_t M, int64_t N, int64_t K,
                                   const pg_buffer *A, const pg_buffer *B, pg_buffer *C,
                                   int max_candidates, pg_blaslt_gemm **out,
                                   pg_blaslt_choice *choice, pg_diag *d);
pg_status pg_baseline_prepare_sdpa(pg_wctx *c, pg_sdpa_args *args, pg_cudnn_sdpa **out,
                                   pg_cudnn_sdpa_info *info, pg_diag *d);
void pg_baseline_check_stage(pg_wctx *c);
json_t *pg_baselines_json(const pg_run *run);
void pg_baselines_release(pg_run *run);
/* Isolated runs: the worker resolves the baselines again (the same options and files) and
 * reports the per-workload notes it adds; the parent appends them to its own record of the
 * task. events_since returns a new array of the task's notes from position *from on and
 * advances *from; add_events appends such an array (strings) to the task's notes. */
json_t *pg_baselines_events_since(const pg_run *run, const char *task, size_t *from);
void pg_baselines_add_events(pg_run *run, const char *task, const json_t *events);

#endif
