/* The timed arms of the performance stage: the candidate, the vendor baseline (cuBLASLt or
 * cuDNN), the baseline again as the A/A canary, and the task's accepted kernel, in cold mode (eager launches, L2 flushed by the block
 * protocol) or sustained mode (one CUDA graph per arm of back-to-back launches that rotate over
 * copies of the inputs and outputs, so that no launch finds its operands in L2). All arms read
 * the same inputs; each writes its own outputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference_run.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission.h"
#include "vendor_arm.h"
#include "perf_arms.h"

/* Sustained mode: the rotated copies together hold at least 3 × L2 (issue 4); a graph lasts at
 * least 20 ms. */
#define PG_ROTATION_L2_MULTIPLE 3.0
#define PG_SUSTAINED_GRAPH_MS 20.0

static pg_status enqueue_accepted(void *ctx, pg_diag *d)
{
    return pg_wctx_enqueue(ctx, d);
}


/* Copy `copy` of the candidate's buffers: copy 0 is the candidate workload itself. */
static pg_wctx *cand_copy(pg_perf_arms *p, int copy)
{
    return copy == 0 ? p->c : &p->cand[copy];
}

static pg_status rot_candidate(void *ctx, int rotation, pg_diag *d)
{
    pg_perf_arms *p = ctx;
    return pg_wctx_enqueue(cand_copy(p, rotation % p->copies), d);
}

static pg_status rot_accepted(void *ctx, int rotation, pg_diag *d)
{
    pg_perf_arms *p = ctx;
    return pg_wctx_enqueue(&p->acc[rotation % p->copies], d);
}

static pg_status rot_baseline(void *ctx, int rotation, pg_diag *d)
{
    pg_perf_arms *p = ctx;
    int k = rotation % p->copies;
    pg_blaslt_gemm *gemm = pg_vendor_gemm(p->baseline);
    if (!gemm || k == 0) {
        pg_arm arm = pg_vendor_arm(p->baseline);
        return arm.enqueue(arm.ctx, d);
    }
    /* Copy k's own inputs (its C input too, when the GEMM reads one) and the baseline's own
     * output of that copy. */
    const pg_wctx *w = cand_copy(p, k);
    pg_gemm_scales scales = pg_wctx_gemm_scales(w);
    return pg_blaslt_gemm_enqueue_on(gemm, w->tensors[w->a], w->tensors[w->b],
                                     w->c_in >= 0 ? w->tensors[w->c_in] : NULL,
                                     scales.a ? &scales : NULL, p->base_out[k], d);
}

static size_t set_bytes(const pg_wctx *c)
{
    const pg_task *t = c->s->task;
    size_t bytes = 0;
    for (int i = 0; i < t->n_tensors; i++)
        bytes += (size_t)c->plan->tensor_elements[i] * pg_dtype_size(t->tensors[i].dtype);
    return bytes;
}

int pg_perf_rotation_copies(size_t set_bytes, long long l2_bytes)
{
    if (set_bytes == 0 || l2_bytes <= 0)
        return 1;
    double k = ceil(PG_ROTATION_L2_MULTIPLE * (double)l2_bytes / (double)set_bytes);
    return k < 1 ? 1 : k > PG_PERF_MAX_COPIES ? PG_PERF_MAX_COPIES : (int)k;
}

/* A copy of the candidate's workload with its own tensors: inputs generated as for a
 * correctness set from a fresh seed (never zeros: an all-zero input ran ~13 % faster on the
 * H200), workspaces initialised. */
static pg_status setup_copy(pg_perf_arms *p, int k, uint64_t seed, pg_diag *d)
{
    pg_wctx *w = &p->cand[k];
    const pg_wctx *c = p->c;
    *w = (pg_wctx){.run = c->run, .s = c->s, .index = c->index, .w = c->w, .plan = c->plan,
                   .kernels = c->kernels};
    pg_status st = pg_wctx_setup(w, d);
    /* The correctness stage's input generation (consistent O and LSE for a backward). */
    if (st == PG_OK)
        st = pg_refrun_fill_inputs(w, seed + 1000u * (uint64_t)k, d);
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(w, d);
    return st;
}

static pg_status setup_accepted(pg_perf_arms *p, int k, pg_diag *d)
{
    const pg_submission *a = p->c->s->accepted.kernel;
    pg_wctx *w = &p->acc[k];
    *w = (pg_wctx){.run = p->c->run, .s = (pg_submission *)a, .index = p->c->index,
                   .w = p->c->w, .plan = pg_accepted_plan(p->c->s, p->c->index),
                   .kernels = p->c->s->accepted.kernels, .inputs_from = cand_copy(p, k)};
    pg_status st = pg_wctx_setup(w, d);
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(w, d);
    p->n_acc = k + 1;
    return st;
}

pg_status pg_perf_arms_setup(pg_perf_arms *p, pg_wctx *c, bool sustained, bool with_accepted,
                             double timeout_s, pg_diag *d)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->sustained = sustained;
    p->copies = 1;
    pg_device *dev = c->run->dev;
    const pg_task *t = c->s->task;
    if (sustained)
        p->copies = pg_perf_rotation_copies(set_bytes(c), pg_device_get_info(dev)->l2_bytes);
    pg_status st = PG_OK;
    for (int k = 1; st == PG_OK && k < p->copies; k++) {
        st = setup_copy(p, k, c->run->o->seed ^ 0x5157A1ull, d);
        p->n_cand = k + 1;
    }
    bool gemm = c->is_gemm && c->d_out >= 0;
    size_t out_bytes = gemm ? (size_t)c->plan->tensor_elements[c->d_out] *
                                  pg_dtype_size(t->tensors[c->d_out].dtype)
                            : 0;
    for (int k = 1; st == PG_OK && gemm && k < p->copies; k++)
        st = pg_buffer_alloc(dev, out_bytes, &p->base_out[k], d);
    if (st == PG_OK)
        st = pg_vendor_prepare(c, &p->baseline, d);
    /* cuDNN refused the configuration and the task's baseline is optional (vendor_arm.c turns
     * the refusal into an infrastructure error otherwise): with an accepted kernel to time, the
     * stage is judged against it alone */
    if (st == PG_ERR_UNAVAILABLE && t->baseline_optional && with_accepted) {
        snprintf(p->vendor_refusal, sizeof p->vendor_refusal, "%s", d ? d->message : "");
        p->reference_is_accepted = true;
        if (d)
            pg_diag_clear(d);
        st = PG_OK;
    }
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(c, d);
    for (int k = 0; st == PG_OK && with_accepted && k < p->copies; k++)
        st = setup_accepted(p, k, d);
    if (st != PG_OK)
        return st;

    p->has_accepted = with_accepted && !p->reference_is_accepted;
    p->n_arms = p->has_accepted ? PG_ARM_ACCEPTED + 1 : PG_ARM_CANARY + 1;
    for (int a = 0; a < PG_PERF_MAX_ARMS; a++)
        p->launches[a] = 1;
    if (!sustained) {
        /* Anti-replay (docs/isolation.md): before each launch of the candidate, outside its
         * events and before the L2 flush, its outputs are poisoned, its workspaces
         * re-initialized and its refillable inputs filled anew. Sustained graphs cannot do
         * this per launch: there the verify stage after the timing is the check. */
        p->arms[PG_ARM_CAND] = (pg_arm){.enqueue = pg_wctx_enqueue, .ctx = c,
                                         .prepare = pg_wctx_prepare_launch};
        /* The canary's two arms share one baseline plan (same algorithm, same output): a second
         * heuristic search could pick another algorithm and the A/A pair would not be A/A. */
        p->arms[PG_ARM_BASE] = p->arms[PG_ARM_CANARY] = pg_vendor_arm(p->baseline);
        /* Before each launch of the accepted kernel, as before the candidate's: its own
         * outputs poisoned and workspaces re-initialized (its inputs are the candidate's, so
         * its refresh_inputs stays false), so both arms reach their launches through the same
         * device work (docs/performance.md, the accepted kernel). */
        p->arms[PG_ARM_ACCEPTED] = (pg_arm){.enqueue = enqueue_accepted, .ctx = &p->acc[0],
                                             .prepare = pg_wctx_prepare_launch};
        if (p->reference_is_accepted)
            p->arms[PG_ARM_BASE] = p->arms[PG_ARM_CANARY] = p->arms[PG_ARM_ACCEPTED];
        return PG_OK;
    }
    pg_enqueue_rot_fn rot[PG_PERF_MAX_ARMS] = {rot_candidate, rot_baseline, NULL, rot_accepted};
    if (p->reference_is_accepted)
        rot[PG_ARM_BASE] = rot_accepted;
    for (int a = 0; st == PG_OK && a < p->n_arms; a++) {
        if (a == PG_ARM_CANARY)
            continue;
        st = pg_sgraph_build(dev, rot[a], p, PG_SUSTAINED_GRAPH_MS, timeout_s, &p->graph[a], d);
        if (st == PG_OK) {
            p->arms[a] = (pg_arm){.enqueue = pg_sgraph_enqueue, .ctx = p->graph[a]};
            p->launches[a] = pg_sgraph_launches(p->graph[a]);
        }
    }
    /* The canary launches the baseline's own graph: the same work, the same algorithm. */
    p->arms[PG_ARM_CANARY] = p->arms[PG_ARM_BASE];
    p->launches[PG_ARM_CANARY] = p->launches[PG_ARM_BASE];
    return st;
}

void pg_perf_arms_release(pg_perf_arms *p)
{
    for (int a = 0; a < PG_PERF_MAX_ARMS; a++)
        pg_sgraph_free(p->graph[a]);
    for (int k = 0; k < p->n_acc; k++)
        pg_wctx_release(&p->acc[k]);
    for (int k = 1; k < p->n_cand; k++)
        pg_wctx_release(&p->cand[k]);
    pg_vendor_free(p->baseline);
    for (int k = 0; k < PG_PERF_MAX_COPIES; k++)
        if (p->base_out[k])
            pg_buffer_free(p->base_out[k]);
    memset(p, 0, sizeof *p);
}

/* Energy: a graph of the arm's work (rotation-aware arms reuse their graph), launched back to
 * back for at least min_s inside one NVML watch: the energy counter moves in steps of ~10 ms,
 * so a window of >= 1 s bounds its quantisation error to about 1 %. */
static pg_status cold_rot(void *ctx, int rotation, pg_diag *d)
{
    (void)rotation;
    const pg_arm *arm = ctx;
    return arm->enqueue(arm->ctx, d);
}

pg_status pg_perf_arm_energy(pg_perf_arms *p, int a, double min_s, double timeout_s,
                             pg_arm_energy *out, pg_diag *d)
{
    pg_device *dev = p->c->run->dev;
    memset(out, 0, sizeof *out);
    pg_sgraph *own = NULL;
    pg_arm graph_arm = p->arms[a];
    int per_launch = p->launches[a];
    pg_status st = PG_OK;
    if (!p->sustained) {
        st = pg_sgraph_build(dev, cold_rot, &p->arms[a], 50.0, timeout_s, &own, d);
        if (st != PG_OK)
            return st;
        graph_arm = (pg_arm){.enqueue = pg_sgraph_enqueue, .ctx = own};
        per_launch = pg_sgraph_launches(own);
    }
    double graph_ms;
    st = pg_envwatch_begin(dev, d);
    double t0 = pg_now_s();
    long long launches = 0;
    while (st == PG_OK && pg_now_s() - t0 < min_s) {
        st = pg_device_time(dev, &graph_arm, 1, 0, 1, false, timeout_s, &graph_ms, d);
        out->busy_ms += graph_ms;
        launches += per_launch;
    }
    pg_env_watch w;
    pg_diag wd;
    if (pg_envwatch_end(dev, &w, &wd) == PG_OK && st == PG_OK && w.available &&
        w.energy_j > 0 && launches > 0) {
        out->measured = true;
        out->launches = launches;
        out->energy_j = w.energy_j;
        out->wall_s = w.wall_s;
        out->energy_per_launch_j = w.energy_j / (double)launches;
        out->power_w = w.energy_j / w.wall_s;
        out->sm_clock_mhz = w.sm_clock_mhz_median;
    }
    pg_sgraph_free(own);
    return st;
}
