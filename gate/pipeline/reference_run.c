/* The correctness stage's per-operation parts: the inputs of one input set and ptxgate's fp32
 * reference of every output, for GEMM and attention tasks (docs/correctness.md,
 * docs/attention.md). */
#include <stdlib.h>
#include <string.h>

#include "model/task_ops.h"
#include "reference_run.h"
#include "stage.h"

/* mha_bwd: O and LSE from the reference forward of the filled Q, K, V: LSE straight into its
 * tensor (in the task's convention), O through an fp32 scratch (at O's strides) rounded to the
 * task's dtype. */
static pg_status backward_forward_inputs(pg_wctx *c, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_device *dev = c->run->dev;
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    pg_dtype dt = t->tensors[m.q].dtype;
    size_t count = (size_t)c->plan->tensor_elements[m.o];
    pg_buffer *o32 = NULL;
    pg_status st = pg_buffer_alloc(dev, count * 4, &o32, d);
    if (st == PG_OK)
        st = pg_reference_mha_fwd(dev, dt, &c->mha, c->tensors[m.q], c->tensors[m.k],
                                  c->tensors[m.v], o32, c->tensors[m.lse], c->run->o->timeout_s,
                                  d);
    if (st == PG_OK)
        st = pg_buffer_convert(c->tensors[m.o], dt, o32, count, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    pg_buffer_free(o32);
    return st;
}

/* Input tensor i of c from seed: the scales of an fp8 GEMM (per-tensor or block) positive
 * (pg_buffer_fill_scale), every other input N(0,1). */
static pg_status fill_input(pg_wctx *c, int i, uint64_t seed, pg_diag *d)
{
    const pg_task *t = c->s->task;
    size_t count = (size_t)c->plan->tensor_elements[i];
    bool scale = c->is_gemm && c->gemm.scale.mode != PG_GEMM_SCALE_NONE &&
                 (i == c->gemm.scale.a || i == c->gemm.scale.b);
    return scale ? pg_buffer_fill_scale(c->tensors[i], count, seed, d)
                 : pg_buffer_fill_normal(c->tensors[i], t->tensors[i].dtype, count, seed, d);
}

pg_status pg_refrun_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d)
{
    const pg_task *t = c->s->task;
    bool derived_o_lse = t->op == PG_OP_MHA_BWD;
    pg_status st = PG_OK;
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++) {
        if (t->tensors[i].is_output)
            continue;
        const char *name = t->tensors[i].name;
        if (derived_o_lse && (strcmp(name, "O") == 0 || strcmp(name, "LSE") == 0))
            continue;
        st = fill_input(c, i, seed + (uint64_t)i, d);
    }
    if (st == PG_OK && derived_o_lse)
        st = backward_forward_inputs(c, d);
    return st;
}

bool pg_refrun_refillable(const pg_task *t, int tensor)
{
    if (t->tensors[tensor].is_output)
        return false;
    /* mha_bwd: Q, K, V determine O and LSE through the reference forward, too slow to run
     * before every timed launch; dO alone is free, and every output depends on it. */
    if (t->op == PG_OP_MHA_BWD)
        return strcmp(t->tensors[tensor].name, "dO") == 0;
    return true;
}

pg_status pg_refrun_refill(pg_wctx *c, uint64_t seed, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_status st = PG_OK;
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (pg_refrun_refillable(t, i))
            st = fill_input(c, i, seed + (uint64_t)i, d);
    return st;
}

pg_status pg_refrun_outputs(pg_wctx *c, pg_buffer *const *refs, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_device *dev = c->run->dev;
    double timeout = c->run->o->timeout_s;
    pg_status st;
    if (c->is_gemm) {
        /* The fp32 result at the output's own strides, so that it compares element for
         * element with the output tensor. */
        pg_gemm_scales scales = pg_wctx_gemm_scales(c);
        st = pg_reference_gemm(dev, &c->gemm, c->tensors[c->a], c->tensors[c->b],
                               c->c_in >= 0 ? c->tensors[c->c_in] : NULL,
                               scales.a ? &scales : NULL, refs[c->d_out], d);
        return st == PG_OK ? pg_device_sync(dev, timeout, d) : st;
    }
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    pg_dtype dt = t->tensors[m.q].dtype;
    if (t->op == PG_OP_MHA_FWD)
        return pg_reference_mha_fwd(dev, dt, &c->mha, c->tensors[m.q], c->tensors[m.k],
                                    c->tensors[m.v], refs[m.o], m.lse >= 0 ? refs[m.lse] : NULL,
                                    timeout, d);
    return pg_reference_mha_bwd(dev, dt, &c->mha, c->tensors[m.q], c->tensors[m.k],
                                c->tensors[m.v], c->tensors[m.o], c->tensors[m.d_o],
                                c->tensors[m.lse], refs[m.dq], refs[m.dk], refs[m.dv], timeout,
                                d);
}
