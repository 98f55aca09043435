/* The stage context: one workload of one submission on the GPU (pg_wctx: its buffers and
 * launches, for the length of its GPU stages) and the workload-level stage entry points
 * (bool pg_stage_X(ctx)), private to gate/pipeline. */
#ifndef PG_PIPELINE_STAGE_H
#define PG_PIPELINE_STAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "device/device.h"
#include "model/binding.h"
#include "model/gemm_problem.h"
#include "model/mha_problem.h"
#include "model/plan.h"
#include "model/task.h"
#include "stats/accuracy.h"
#include "run.h"
#include "submission.h"

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
    /* GEMM tasks (set by pg_wctx_setup from pg_gemm_problem_of): the workload's problem and
     * its operand tensors, A, B, the C input (-1 when the GEMM reads none) and the output D
     * (the tensor named C of a gemm_nt task). is_gemm false and all four -1 otherwise. */
    bool is_gemm;
    pg_gemm_problem gemm;
    int a, b, c_in, d_out;
    /* Attention tasks (pg_wctx_setup, pg_mha_problem_of): the workload's problem; zeroed for
     * other tasks. */
    pg_mha_problem mha;
    json_t *json;             /* write-only: the workload's results object (wl->json) */
    pg_wl_state *wl;          /* the workload's typed state; NULL (and json NULL) for the
                                 performance stage's arm copies */
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
/* The scale buffers of c's fp8 GEMM (c->gemm.scale: scale_A and scale_B, per-tensor or block),
 * or both NULL for a GEMM without scales. */
pg_gemm_scales pg_wctx_gemm_scales(const pg_wctx *c);
/* Allocate the tensors (borrowing inputs from c->inputs_from when set), workspaces and argument
 * blocks of c, after setting its GEMM fields (is_gemm, gemm, a, b, c_in, d_out);
 * pg_wctx_release frees what setup allocated, never borrowed tensors. */
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

/* instr_runtime.c: the runtime half for workload c (correct, on the GPU): one CUPTI
 * range-profiler run over the submission's launches, counts and coverage recorded into rec,
 * the typed copy of the workload's instructions stage (pg_stage_instructions_rec,
 * pg_instr_record_runtime), then the record `stage` written from rec again (its keys in
 * place); profiling that cannot run makes the targets "unknown" and the stage an
 * infrastructure error (policy warn: a warning). rec NULL (out of memory) does nothing. */
struct pg_instr_stage;
void pg_instr_runtime(struct pg_wctx *c, struct pg_instr_stage *rec, json_t *stage);

#endif
