/* Attention problems of tasks' workloads (mha_problem.h). */
#include "mha_problem.h"

#include <math.h>
#include <string.h>

#include "task_ops.h"

float pg_mha_default_scale(int64_t D)
{
    return D > 0 ? (float)(1.0 / sqrt((double)D)) : 0.0f;
}

pg_mha_strides pg_mha_dense_strides(int64_t H, int64_t S, int64_t D, bool bshd)
{
    if (bshd)
        return (pg_mha_strides){.b = S * H * D, .h = D, .s = H * D, .d = 1};
    return (pg_mha_strides){.b = H * S * D, .h = S * D, .s = D, .d = 1};
}

void pg_mha_problem_bhsd(int64_t B, int64_t H, int64_t S, int64_t D, bool causal,
                         pg_mha_problem *out)
{
    memset(out, 0, sizeof *out);
    out->B = B;
    out->H = out->H_kv = H;
    out->S_q = out->S_kv = S;
    out->D = out->D_v = D;
    out->causal = causal;
    out->scale = pg_mha_default_scale(D);
    out->has_lse = true;
    pg_mha_strides x = pg_mha_dense_strides(H, S, D, false);
    out->q = out->k = out->v = out->o = out->d_o = out->dq = out->dk = out->dv = x;
}

/* The value of symbol name in w, or `fallback` when the task has no such symbol. */
static int64_t symbol_or(const pg_task *t, const pg_workload *w, const char *name,
                         int64_t fallback)
{
    int i = pg_task_find_symbol(t, name);
    return i < 0 ? fallback : w->values[i];
}

/* Strides of tensor k (index in t, -1: none): BSHD when its dims[1] is a sequence symbol (the
 * contract allows only a head or a sequence symbol there). */
static pg_mha_strides strides_of(const pg_task *t, int k, int64_t heads, int64_t positions,
                                 int64_t dim)
{
    if (k < 0)
        return (pg_mha_strides){0};
    const char *second = t->tensors[k].dims[1];
    bool bshd = strcmp(second, "S") == 0 || strcmp(second, "S_q") == 0 ||
                strcmp(second, "S_kv") == 0;
    return pg_mha_dense_strides(heads, positions, dim, bshd);
}

pg_status pg_mha_problem_of(const pg_task *t, const pg_workload *w, pg_mha_problem *out,
                            pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!pg_operation_is_attention(t->op))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "operation",
                           "operation %s is not attention", t->operation);
    int64_t S = symbol_or(t, w, "S", 0);
    out->B = symbol_or(t, w, "B", 0);
    out->H = symbol_or(t, w, "H", 0);
    out->H_kv = symbol_or(t, w, "H_kv", out->H);
    out->S_q = symbol_or(t, w, "S_q", S);
    out->S_kv = symbol_or(t, w, "S_kv", S);
    out->D = symbol_or(t, w, "D", 0);
    out->D_v = symbol_or(t, w, "D_v", out->D);
    out->causal = t->causal;
    out->scale = t->softmax_scale > 0 ? (float)t->softmax_scale : pg_mha_default_scale(out->D);
    out->lse_log2 = t->lse_log2;
    out->lse_unscaled = t->lse_unscaled;
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    out->has_lse = m.lse >= 0;
    out->q = strides_of(t, m.q, out->H, out->S_q, out->D);
    out->k = strides_of(t, m.k, out->H_kv, out->S_kv, out->D);
    out->v = strides_of(t, m.v, out->H_kv, out->S_kv, out->D_v);
    out->o = strides_of(t, m.o, out->H, out->S_q, out->D_v);
    out->d_o = strides_of(t, m.d_o, out->H, out->S_q, out->D_v);
    out->dq = strides_of(t, m.dq, out->H, out->S_q, out->D);
    out->dk = strides_of(t, m.dk, out->H_kv, out->S_kv, out->D);
    out->dv = strides_of(t, m.dv, out->H_kv, out->S_kv, out->D_v);
    return PG_OK;
}

double pg_mha_lse_factor(const pg_mha_problem *p)
{
    double f = p->lse_log2 ? 1.4426950408889634 /* log2 e */ : 1.0;
    return p->lse_unscaled ? f / (double)p->scale : f;
}

int64_t pg_mha_visible_keys(const pg_mha_problem *p, int64_t i)
{
    if (!p->causal)
        return p->S_kv;
    int64_t n = i + 1 + p->S_kv - p->S_q;
    return n < 0 ? 0 : n > p->S_kv ? p->S_kv : n;
}

uint64_t pg_mha_tensor_bytes(const pg_mha_problem *p, int64_t heads, int64_t positions,
                             int64_t dim, size_t elem_size)
{
    return (uint64_t)p->B * (uint64_t)heads * (uint64_t)positions * (uint64_t)dim * elem_size;
}
