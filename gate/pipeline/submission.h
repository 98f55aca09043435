/* The prepared submission: one manifest validated offline (assembled, its includes and
 * instructions checked) and ready to run, with its accepted kernel; prepared before any GPU
 * work and released at the end of the run. Private to gate/pipeline. */
#ifndef PG_PIPELINE_SUBMISSION_H
#define PG_PIPELINE_SUBMISSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "device/device.h"
#include "model/arch_table.h"
#include "model/compile_options.h"
#include "model/device_symbols.h"
#include "model/manifest.h"
#include "model/plan.h"
#include "model/targets.h"
#include "model/task.h"
#include "ptx/inventory.h"
#include "ptx/signature.h"
#include "tool/assemble.h"
#include "run.h"
#include "wl_state.h"

/* Offset of the accepted kernel's temporary file names from the candidate's; a submission
 * prepared with an index at or above it is a task's accepted kernel. */
#define PG_ACCEPTED_INDEX_BASE 100000

/* One submission, validated and ready to run. */
typedef struct pg_submission pg_submission;

/* A submission's accepted kernel (accepted.c): the task's kernel of record, prepared like a
 * submission and re-measured next to the candidate as the regression comparison's second arm,
 * with what the candidate's run needs to know of it. Zero-initialized = none. */
typedef struct {
    pg_submission *kernel;        /* NULL when the task names none or --accepted-kernel none */
    bool shared;                  /* kernel is the run's (pg_run.accepted_cache), not owned */
    bool self;                    /* the accepted kernel's manifest is the candidate's own
                                     file: kernel == the candidate, assembled once */
    bool usable;                  /* assembled (and, on the GPU, loaded) */
    bool identical;               /* its cubin holds the candidate's kernels (SASS-identical) */
    const char *identical_by;     /* which test matched: "bytes" (byte-identical cubin) or
                                     "code_sections" (gate/ptx/cubin_code.h); NULL when not
                                     identical (static strings) */
    char note[1200];              /* why it is not usable, for the performance stage */
    pg_module *module;            /* loaded on the GPU (owned unless self) */
    pg_kernel **kernels;          /* one per launch of its manifest */
} pg_accepted;
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
    struct pg_instr_stage *instr; /* the instructions stage as computed once after assemble
                                     (stage_instructions.c, instr_stage.h; owned, NULL when out
                                     of memory); each workload records a copy */
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
    pg_ledger stages;             /* its submission-level stages (json's "stages") */
    json_t *workloads_json;       /* write-only: json's "workloads" (one reference owned) */
    pg_wl_state *wl;              /* per position in workloads once the GPU stages begin
                                     (pg_gpu_workloads_init; owned), else NULL */
    /* The task's accepted kernel (accepted.c), re-measured next to the candidate. */
    pg_accepted accepted;
    bool is_accepted;             /* this is some submission's accepted kernel (progress label) */
    /* Isolated runs: the comparisons its workers reported, in report order, waiting for the
     * run's Holm step (pg_worker_flush_perf registers them), and the device ordinal its GPU
     * work was given to (-1 before). */
    struct pg_perf_pending *pending;
    size_t n_pending, cap_pending;
    int device;
};

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
/* wl_state.c: make obj (borrowed; may be NULL) the submission's results object: empty "stages"
 * and "workloads" arrays are set in it (in that order) and s->stages writes into the first.
 * results_release frees the typed state (ledger, workload states) and drops the arrays; obj is
 * the caller's. */
void pg_submission_results_init(pg_submission *s, json_t *obj);
void pg_submission_results_release(pg_submission *s);

/* --- accepted.c: the task's accepted kernel, the arm of the regression comparison (issue 4:
 * re-measured in the same process, never read from a file). prepare validates it offline like
 * a submission (input errors are the run's: the manifest is the task's or the command line's);
 * assemble records it under the submission's "accepted_kernel"; load loads its module on the
 * GPU (after the candidate's); release frees all of it. */
pg_status pg_accepted_prepare(pg_run *run, pg_submission *s, int index, pg_diag *d);
void pg_accepted_assemble(pg_run *run, pg_submission *s);
void pg_accepted_load(pg_run *run, pg_submission *s);
void pg_accepted_release(pg_submission *s);
/* The accepted kernel's plan for the candidate's workload at position i (0 <= i <
 * s->n_workloads): the one of the same task workload (s->workloads[i]), found among the
 * kernel's own workloads, so that it holds whatever either manifest's `supports` declined and
 * after a shard split (the kernel stays whole). Borrowed from the kernel; NULL without an
 * accepted kernel or when the accepted kernel declines that workload (nothing to compare). */
const pg_plan *pg_accepted_plan(const pg_submission *s, int i);
/* Release the run's shared accepted kernels (after every submission's release). */
void pg_accepted_cache_free(pg_run *run);
/* Why a SASS-identical candidate needs no timing, after the test that matched
 * (s->accepted.identical_by): a short phrase for the stage message, and the comparison's reason
 * (static strings). */
const char *pg_accepted_identical_text(const pg_submission *s);
const char *pg_accepted_identical_reason(const pg_submission *s);

/* stage_gpu.c: read the submission's cubin (or PTX for the driver JIT) and load it, then get
 * every launch's kernel (kernels: manifest->n_launches entries). log receives the JIT log. */
pg_status pg_submission_load_module(pg_run *run, pg_submission *s, pg_module **mod,
                                    pg_kernel **kernels, char *log, size_t log_len,
                                    pg_diag *d);

/* --- shard_filter.c: with o->shard_count > 0, keep only the shard's work items in subs[0..n)
 * (model/shard.h; each submission's workloads compacted in place; a shared accepted kernel left
 * whole: pg_accepted_plan finds its plans by task workload) and
 * return the "shard" record of the results (index, count, items_total and the kept items with
 * their positions in the unsharded run) in *record (new reference). Errors: PG_ERR_INFRA (then
 * the submissions are in a state only fit for release). */
pg_status pg_run_select_shard(pg_run *run, pg_submission *subs, size_t n, json_t **record,
                              pg_diag *d);

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

#endif
