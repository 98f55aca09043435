/* The vendor baseline of the performance stage as one arm: cuBLASLt for GEMM tasks, cuDNN's
 * SDPA graphs for attention tasks (see vendor_arm.h). The baseline writes its own outputs, never
 * the candidate's, and reads the workload's inputs as the correctness stage left them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/task_ops.h"
#include "baseline_check.h"
#include "results_json.h"
#include "stage.h"
#include "vendor_arm.h"

struct pg_vendor {
    bool cudnn;
    pg_buffer *out[PG_MAX_TENSORS]; /* the baseline's own output buffers */
    pg_blaslt_gemm *gemm;
    pg_blaslt_choice choice;
    pg_cudnn_sdpa *sdpa;
    pg_cudnn_sdpa_info info;
};

static pg_status enqueue_gemm(void *ctx, pg_diag *d)
{
    return pg_blaslt_gemm_enqueue(((pg_vendor *)ctx)->gemm, d);
}

static pg_status enqueue_sdpa(void *ctx, pg_diag *d)
{
    return pg_cudnn_sdpa_enqueue(((pg_vendor *)ctx)->sdpa, d);
}

static pg_status alloc_output(pg_wctx *c, pg_vendor *b, int tensor, pg_diag *d)
{
    const pg_task *t = c->s->task;
    size_t bytes =
        (size_t)c->plan->tensor_elements[tensor] * pg_dtype_size(t->tensors[tensor].dtype);
    return pg_buffer_alloc(c->run->dev, bytes ? bytes : 1, &b->out[tensor], d);
}

static pg_status prepare_gemm(pg_wctx *c, pg_vendor *b, pg_diag *d)
{
    const pg_task *t = c->s->task;
    if (!c->is_gemm || c->d_out < 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "operation",
                           "operation %s has no cuBLASLt baseline", t->operation);
    pg_status st = alloc_output(c, b, c->d_out, d);
    if (st != PG_OK)
        return st;
    /* The workload's problem (layouts, batch, alpha/beta, C input, compute) on the workload's
     * inputs, into the baseline's own output; the stored baseline's pinned algorithm when there
     * is one (baseline_check.c). */
    st = pg_baseline_prepare_gemm(c, &c->gemm, c->tensors[c->a], c->tensors[c->b],
                                  c->c_in >= 0 ? c->tensors[c->c_in] : NULL, b->out[c->d_out],
                                  t->baseline_max_candidates, &b->gemm, &b->choice, d);
    /* fp8: the workload's scales from here on (the search multiplied with scale 1) */
    pg_gemm_scales scales = pg_wctx_gemm_scales(c);
    if (st == PG_OK && scales.a)
        st = pg_blaslt_gemm_set_scales(b->gemm, &scales, d);
    return st;
}

static pg_status prepare_sdpa(pg_wctx *c, pg_vendor *b, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    bool bwd = t->op == PG_OP_MHA_BWD;
    pg_status st = PG_OK;
    const int outs[] = {m.o, m.lse, m.dq, m.dk, m.dv};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0] && st == PG_OK; i++)
        if (outs[i] >= 0 && t->tensors[outs[i]].is_output)
            st = alloc_output(c, b, outs[i], d);
    if (st != PG_OK)
        return st;
    pg_sdpa_args a = {
        .backward = bwd,
        .dtype = t->tensors[m.q].dtype,
        .problem = c->mha,
        .max_configs = t->baseline_max_candidates,
        .Q = c->tensors[m.q],
        .K = c->tensors[m.k],
        .V = c->tensors[m.v],
        /* forward: the baseline's own O and LSE (none when the task has no LSE: cuDNN's stats
         * go to its own scratch); backward: the workload's inputs */
        .O = bwd ? c->tensors[m.o] : b->out[m.o],
        .LSE = bwd ? c->tensors[m.lse] : m.lse >= 0 ? b->out[m.lse] : NULL,
        .dO = bwd ? c->tensors[m.d_o] : NULL,
        .dQ = bwd ? b->out[m.dq] : NULL,
        .dK = bwd ? b->out[m.dk] : NULL,
        .dV = bwd ? b->out[m.dv] : NULL,
    };
    /* The stored baseline's pinned engine configuration when there is one (baseline_check.c). */
    st = pg_baseline_prepare_sdpa(c, &a, &b->sdpa, &b->info, d);
    /* cuDNN refused the configuration: the performance stage goes on without the vendor arm
     * only when the task allows it; otherwise an infrastructure error, as any baseline failure */
    if (st == PG_ERR_UNAVAILABLE && !t->baseline_optional) {
        st = PG_ERR_INFRA;
        if (d)
            d->status = st;
    }
    return st;
}

pg_status pg_vendor_prepare(pg_wctx *c, pg_vendor **out, pg_diag *d)
{
    *out = NULL;
    pg_vendor *b = calloc(1, sizeof *b);
    if (!b)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    b->cudnn = pg_operation_is_attention(c->s->task->op);
    pg_status st = b->cudnn ? prepare_sdpa(c, b, d) : prepare_gemm(c, b, d);
    if (st != PG_OK) {
        pg_vendor_free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

pg_arm pg_vendor_arm(pg_vendor *b)
{
    pg_arm arm = {.enqueue = NULL, .ctx = NULL};
    if (b) {
        arm.enqueue = b->cudnn ? enqueue_sdpa : enqueue_gemm;
        arm.ctx = b;
    }
    return arm;
}

pg_blaslt_gemm *pg_vendor_gemm(pg_vendor *b)
{
    return b && !b->cudnn ? b->gemm : NULL;
}

pg_buffer *pg_vendor_output(pg_vendor *b, int tensor)
{
    return b && tensor >= 0 && tensor < PG_MAX_TENSORS ? b->out[tensor] : NULL;
}

const char *pg_vendor_label(const pg_vendor *b)
{
    return b && b->cudnn ? "cuDNN" : "cuBLASLt";
}

const char *pg_vendor_library(const pg_vendor *b)
{
    return !b ? NULL : b->cudnn ? "cudnn" : "cublaslt";
}

void pg_vendor_describe(const pg_vendor *b, json_t *obj)
{
    if (!b)
        return;
    if (!b->cudnn) {
        const pg_blaslt_choice *ch = &b->choice;
        json_object_set_new(obj, "library", json_string("cublaslt"));
        json_object_set_new(obj, "algorithm", json_string(ch->algorithm));
        json_object_set_new(obj, "candidates_returned", json_integer(ch->candidates_returned));
        json_object_set_new(obj, "candidates_timed", json_integer(ch->candidates_timed));
        json_object_set_new(obj, "chosen_rank", json_integer(ch->chosen_index));
        json_object_set_new(obj, "workspace_bytes", json_integer((json_int_t)ch->workspace_bytes));
        /* The problem as cuBLASLt was given it, for every problem but the historic gemm_nt one
         * (whose reports stay as they were: fp32 compute, the "TN" layouts). */
        if (!ch->plain_nt) {
            json_object_set_new(obj, "compute", json_string(ch->compute));
            json_object_set_new(obj, "layouts", pg_jstr(ch->layouts));
        }
        return;
    }
    const pg_cudnn_sdpa_info *i = &b->info;
    char version[32], header[32], algorithm[768], config[600];
    snprintf(version, sizeof version, "%ld.%ld.%ld", i->version / 10000, i->version / 100 % 100,
             i->version % 100);
    snprintf(header, sizeof header, "%ld.%ld.%ld", i->header_version / 10000,
             i->header_version / 100 % 100, i->header_version % 100);
    pg_cudnn_config_format(&i->config, config, sizeof config);
    snprintf(algorithm, sizeof algorithm, "%s; %s", i->graph, config);
    json_object_set_new(obj, "library", json_string("cudnn"));
    json_object_set_new(obj, "algorithm", json_string(algorithm));
    json_object_set_new(obj, "cudnn_version", json_string(version));
    json_object_set_new(obj, "cudnn_header_version", json_string(header));
    json_object_set_new(obj, "graph", json_string(i->graph));
    json_object_set_new(obj, "engine_id", json_integer((json_int_t)i->config.engine_id));
    const char *knobs = strchr(config, ';');
    json_object_set_new(obj, "knobs", json_string(knobs ? knobs + 2 : ""));
    json_object_set_new(obj, "configuration", pg_cudnn_config_to_json(&i->config));
    json_object_set_new(obj, "heuristics", json_string(i->heuristics));
    json_object_set_new(obj, "candidates_returned", json_integer(i->configs_returned));
    json_object_set_new(obj, "chosen_rank", json_integer(i->configs_tried - 1));
    json_object_set_new(obj, "configs_tried", json_integer(i->configs_tried));
    json_object_set_new(obj, "plan_cached", json_boolean(i->cached));
    json_object_set_new(obj, "workspace_bytes", json_integer((json_int_t)i->workspace_bytes));
    json_object_set_new(obj, "scratch_bytes", json_integer((json_int_t)i->scratch_bytes));
}

void pg_vendor_free(pg_vendor *b)
{
    if (!b)
        return;
    if (b->gemm)
        pg_blaslt_gemm_free(b->gemm);
    if (b->sdpa)
        pg_cudnn_sdpa_free(b->sdpa);
    for (int i = 0; i < PG_MAX_TENSORS; i++)
        if (b->out[i])
            pg_buffer_free(b->out[i]);
    free(b);
}
