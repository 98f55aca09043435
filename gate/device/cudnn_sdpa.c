/* The cuDNN attention baseline (device.h "cuDNN scaled-dot-product attention"): the forward and
 * backward graphs in cuDNN's backend API, a plan cache per device, buffers bound through variant
 * packs, execution on the device stream. Graph shapes follow what cuDNN's own frontend builds
 * for a cuDNN 9.x backend before 9.21 (docs/attention.md lists the operations). */
#include "cudnn_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unique ids of the graph tensors that are bound in the variant pack (virtual tensors take ids
 * from VIRT up). The by-value tensors (SCALE, ONE, NEG_INF) are bound to host floats. */
enum {
    U_Q = 1, U_K, U_V, U_O, U_LSE, U_DO, U_DQ, U_DK, U_DV,
    U_SCALE, U_ONE, U_NEG_INF,
    U_SKV, U_SQ, /* bottom-right causal mask: S_kv and S_q as by-value int32 */
    U_SUM,    /* backward: rowsum(dO ⊙ O), fp32 [B,H,S,1], a buffer ptxgate provides */
    U_DQ_ACC, /* backward: fp32 dQ accumulator [B,H,S,D], a buffer ptxgate provides */
    U_COUNT,
    VIRT = 100
};

/* The graphs (model/cudnn_config.h): PG_DNN_GRAPH_FWD_FUSED is the SDPA_FWD operation;
 * _FWD_COMPOSITE matmul, scale, mask, softmax with stats, matmul; _BWD_COMPOSITE the frontend's
 * graph with the K reshape feeding dS·K in fp32; _BWD_COMPOSITE_IO the same with that reshape in
 * the I/O type. */
typedef pg_dnn_graph_kind graph_kind;

static const char *const k_graph_names[PG_DNN_GRAPH_COUNT] = {
    "fused SDPA_FWD", "composite forward", "composite backward",
    "composite backward (I/O-type K view)"};

/* A finalized plan for one shape and graph, or the reason it could not be made. Owned by the
 * device's cache for the life of the device. */
typedef struct plan_entry {
    struct plan_entry *next;
    bool backward;
    pg_dtype dtype;
    pg_mha_problem problem;
    graph_kind kind;
    bool pinned;        /* made from `pin`, not by the heuristics */
    pg_cudnn_config pin;
    bool ok;
    char error[768];
    pg_dnn_graph graph; /* owns every descriptor, the plan included */
    cudnnBackendDescriptor_t plan;
    unsigned roles;     /* bit u set: uid u is bound in the variant pack */
    pg_cudnn_sdpa_info info;
} plan_entry;

struct pg_cudnn_state {
    const pg_dnn_api *api;
    cudnnHandle_t handle;
    plan_entry *plans;
};

struct pg_cudnn_sdpa {
    pg_device *dev;
    const pg_dnn_api *api;
    cudnnHandle_t handle;
    plan_entry *entry;           /* borrowed from the cache */
    cudnnBackendDescriptor_t vp; /* owned */
    pg_buffer *workspace, *sum, *dq_acc;
    pg_buffer *stats;            /* cuDNN's natural-log stats when the task has no LSE (forward)
                                    or stores another convention (backward: converted once) */
    size_t dq_acc_bytes;
    bool zero_dq_acc;            /* cuDNN < 9.6: the accumulator starts from zero each run */
    float scale, one, neg_inf;   /* by-value tensors, read at execution */
    int32_t s_kv, s_q;
};

/* ---- the device's cuDNN state ---------------------------------------------------------- */

void pg_cudnn_release(pg_device *dev)
{
    struct pg_cudnn_state *s = dev->cudnn;
    if (!s)
        return;
    for (plan_entry *e = s->plans, *next; e; e = next) {
        next = e->next;
        pg_dnn_graph_release(&e->graph);
        free(e);
    }
    if (s->handle)
        s->api->Destroy(s->handle);
    free(s);
    dev->cudnn = NULL;
}

/* Load cuDNN and create the handle on first use, bound to the device stream. */
static pg_status state(pg_device *dev, struct pg_cudnn_state **out, pg_diag *d)
{
    if (dev->cudnn) {
        *out = dev->cudnn;
        return PG_OK;
    }
    const pg_dnn_api *api;
    pg_status st = pg_dnn_load(&api, d);
    if (st != PG_OK)
        return st;
    struct pg_cudnn_state *s = calloc(1, sizeof *s);
    if (!s)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    s->api = api;
    char err[640];
    cudnnStatus_t r = api->Create(&s->handle);
    if (r == CUDNN_STATUS_SUCCESS)
        r = api->SetStream(s->handle, (cudaStream_t)dev->stream);
    if (r != CUDNN_STATUS_SUCCESS) {
        pg_dnn_describe(api, r, err, sizeof err);
        if (s->handle)
            api->Destroy(s->handle);
        free(s);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cudnnCreate/cudnnSetStream: %s", err);
    }
    dev->cudnn = s;
    *out = s;
    return PG_OK;
}

/* ---- graphs ------------------------------------------------------------------------------ */

/* Dims and strides (elements) of every tensor of the graphs, from the problem: Q, O, dO, dQ
 * [B,H,S_q,·], K, V, dK, dV [B,H_kv,S_kv,·] at their own (BHSD or BSHD) strides, K and V also
 * as transposed views, the scores [B,H,S_q,S_kv] and their transpose, the stats [B,H,S_q,1],
 * the full-head dK, dV of GQA [B,H,S_kv,·] and dense fp32 intermediates. */
typedef struct {
    int64_t q[4], q_str[4], dq_str[4], o[4], o_str[4], do_str[4];
    int64_t k[4], k_str[4], kt[4], kt_str[4], dk_str[4];
    int64_t v[4], v_str[4], vt[4], vt_str[4], dv_str[4];
    int64_t q_dense_str[4], o_dense[4], o_dense_str[4];
    int64_t dk_full[4], dk_full_str[4], dv_full[4], dv_full_str[4];
    int64_t bhs1[4], bhs1_str[4];
    int64_t bhss[4], bhss_str[4];
    int64_t bhss_t[4], bhss_t_str[4];
    int64_t one[4], one_str[4];
} shapes;

static void set4(int64_t *v, int64_t a, int64_t b, int64_t c, int64_t d)
{
    v[0] = a;
    v[1] = b;
    v[2] = c;
    v[3] = d;
}

static void strides4(int64_t *v, pg_mha_strides x)
{
    set4(v, x.b, x.h, x.s, 1);
}

/* The transposed view [B, heads, dim, positions] of a tensor with strides x. */
static void strides4_t(int64_t *v, pg_mha_strides x)
{
    set4(v, x.b, x.h, 1, x.s);
}

static void make_shapes(const pg_mha_problem *m, shapes *s)
{
    const int64_t B = m->B, H = m->H, Hk = m->H_kv, Sq = m->S_q, Skv = m->S_kv, D = m->D,
                  Dv = m->D_v;
    set4(s->q, B, H, Sq, D);
    strides4(s->q_str, m->q);
    strides4(s->dq_str, m->dq);
    set4(s->q_dense_str, H * Sq * D, Sq * D, D, 1);
    set4(s->o, B, H, Sq, Dv);
    strides4(s->o_str, m->o);
    strides4(s->do_str, m->d_o);
    set4(s->o_dense, B, H, Sq, Dv);
    set4(s->o_dense_str, H * Sq * Dv, Sq * Dv, Dv, 1);
    set4(s->k, B, Hk, Skv, D);
    strides4(s->k_str, m->k);
    strides4(s->dk_str, m->dk);
    set4(s->kt, B, Hk, D, Skv);
    strides4_t(s->kt_str, m->k);
    set4(s->v, B, Hk, Skv, Dv);
    strides4(s->v_str, m->v);
    strides4(s->dv_str, m->dv);
    set4(s->vt, B, Hk, Dv, Skv);
    strides4_t(s->vt_str, m->v);
    set4(s->dk_full, B, H, Skv, D);
    set4(s->dk_full_str, H * Skv * D, Skv * D, D, 1);
    set4(s->dv_full, B, H, Skv, Dv);
    set4(s->dv_full_str, H * Skv * Dv, Skv * Dv, Dv, 1);
    set4(s->bhs1, B, H, Sq, 1);
    set4(s->bhs1_str, H * Sq, Sq, 1, 1);
    set4(s->bhss, B, H, Sq, Skv);
    set4(s->bhss_str, H * Sq * Skv, Sq * Skv, Skv, 1);
    set4(s->bhss_t, B, H, Skv, Sq);
    set4(s->bhss_t_str, H * Sq * Skv, Sq * Skv, 1, Skv);
    set4(s->one, 1, 1, 1, 1);
    set4(s->one_str, 1, 1, 1, 1);
}

/* Builder state for one graph: the next virtual uid. */
typedef struct {
    pg_dnn_graph *g;
    const shapes *s;
    const pg_mha_problem *m;
    cudnnDataType_t io;
    int64_t next;
} build;

static cudnnBackendDescriptor_t virt(build *b, cudnnDataType_t type, const int64_t *dims,
                                     const int64_t *str)
{
    return pg_dnn_tensor(b->g, b->next++, type, 4, dims, str, true, false);
}

/* A tensor bound in the variant pack (a buffer), and a by-value fp32 scalar (a host float). */
static cudnnBackendDescriptor_t bound(build *b, int64_t uid, cudnnDataType_t type,
                                      const int64_t *dims, const int64_t *str)
{
    return pg_dnn_tensor(b->g, uid, type, 4, dims, str, false, false);
}

static cudnnBackendDescriptor_t scalar(build *b, int64_t uid)
{
    return pg_dnn_tensor(b->g, uid, CUDNN_DATA_FLOAT, 4, b->s->one, b->s->one_str, false, true);
}

static cudnnBackendDescriptor_t scalar_int(build *b, int64_t uid)
{
    return pg_dnn_tensor(b->g, uid, CUDNN_DATA_INT32, 4, b->s->one, b->s->one_str, false, true);
}

/* P or dS with the causal mask applied after it: keys j > query i + S_kv − S_q get `fill`
 * (−inf). The mask is the frontend's pre-9.21 form: row and column indices, the row shifted
 * by + S_kv − S_q when they differ (bottom-right alignment, two int32 pointwise ops), row >=
 * column, binary select. */
static cudnnBackendDescriptor_t causal_mask(build *b, cudnnBackendDescriptor_t x,
                                            cudnnBackendDescriptor_t fill, unsigned *roles)
{
    const shapes *s = b->s;
    cudnnBackendDescriptor_t row = virt(b, CUDNN_DATA_INT32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t col = virt(b, CUDNN_DATA_INT32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t keep = virt(b, CUDNN_DATA_BOOLEAN, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t y = virt(b, CUDNN_DATA_FLOAT, s->bhss, s->bhss_str);
    pg_dnn_pointwise(b->g, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, x, NULL, NULL, row, 2,
                     "row index");
    pg_dnn_pointwise(b->g, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, x, NULL, NULL, col, 3,
                     "column index");
    if (b->m->S_q != b->m->S_kv) {
        cudnnBackendDescriptor_t r1 = virt(b, CUDNN_DATA_INT32, s->bhss, s->bhss_str);
        cudnnBackendDescriptor_t r2 = virt(b, CUDNN_DATA_INT32, s->bhss, s->bhss_str);
        pg_dnn_pointwise(b->g, CUDNN_POINTWISE_ADD, CUDNN_DATA_INT32, row, scalar_int(b, U_SKV),
                         NULL, r1, 3, "row + S_kv");
        pg_dnn_pointwise(b->g, CUDNN_POINTWISE_SUB, CUDNN_DATA_INT32, r1, scalar_int(b, U_SQ),
                         NULL, r2, 3, "row + S_kv - S_q");
        *roles |= 1u << U_SKV | 1u << U_SQ;
        row = r2;
    }
    pg_dnn_pointwise(b->g, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, NULL, keep, -1,
                     "row >= column");
    pg_dnn_pointwise(b->g, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, x, fill, keep, y, -1,
                     "causal select");
    return y;
}

static void fwd_fused(build *b, bool causal, unsigned *roles)
{
    (void)causal; /* offered for non-causal passes only */
    const shapes *s = b->s;
    pg_dnn_graph *g = b->g;
    cudnnBackendDescriptor_t q = bound(b, U_Q, b->io, s->q, s->q_str);
    cudnnBackendDescriptor_t k = bound(b, U_K, b->io, s->k, s->k_str);
    cudnnBackendDescriptor_t v = bound(b, U_V, b->io, s->v, s->v_str);
    cudnnBackendDescriptor_t o = bound(b, U_O, b->io, s->o, s->o_str);
    cudnnBackendDescriptor_t lse = bound(b, U_LSE, CUDNN_DATA_FLOAT, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t scale = scalar(b, U_SCALE);
    pg_dnn_sdpa_fwd(g, q, k, v, o, lse, scale);
    *roles = 1u << U_Q | 1u << U_K | 1u << U_V | 1u << U_O | 1u << U_LSE | 1u << U_SCALE;
}

static void fwd_composite(build *b, bool causal, unsigned *roles)
{
    const shapes *s = b->s;
    pg_dnn_graph *g = b->g;
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t q = bound(b, U_Q, b->io, s->q, s->q_str);
    cudnnBackendDescriptor_t kt = bound(b, U_K, b->io, s->kt, s->kt_str);
    cudnnBackendDescriptor_t v = bound(b, U_V, b->io, s->v, s->v_str);
    cudnnBackendDescriptor_t o = bound(b, U_O, b->io, s->o, s->o_str);
    cudnnBackendDescriptor_t lse = bound(b, U_LSE, f32, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t scale = scalar(b, U_SCALE);
    *roles = 1u << U_Q | 1u << U_K | 1u << U_V | 1u << U_O | 1u << U_LSE | 1u << U_SCALE;

    cudnnBackendDescriptor_t s0 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t s1 = virt(b, f32, s->bhss, s->bhss_str);
    pg_dnn_matmul(g, q, kt, s0, "Q.K^T");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, s0, scale, NULL, s1, -1, "scale");
    if (causal) {
        cudnnBackendDescriptor_t fill = scalar(b, U_NEG_INF);
        *roles |= 1u << U_NEG_INF;
        s1 = causal_mask(b, s1, fill, roles);
    }
    cudnnBackendDescriptor_t mx = virt(b, f32, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t e0 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t e1 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t sum = virt(b, f32, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t lg = virt(b, f32, s->bhs1, s->bhs1_str);
    /* bmm2's A operand must have the I/O type (cuDNN's frontend notes the backend requires it) */
    cudnnBackendDescriptor_t p = virt(b, b->io, s->bhss, s->bhss_str);
    pg_dnn_reduction(g, CUDNN_REDUCE_TENSOR_MAX, s1, mx, "row max");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, s1, mx, NULL, e0, -1, "minus max");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_EXP, f32, e0, NULL, NULL, e1, -1, "exp");
    pg_dnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, e1, sum, "row sum");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_LOG, f32, sum, NULL, NULL, lg, -1, "log");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_ADD, f32, mx, lg, NULL, lse, -1, "stats");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_DIV, f32, e1, sum, NULL, p, -1, "normalize");
    pg_dnn_matmul(g, p, v, o, "P.V");
}

static void bwd_composite(build *b, bool causal, bool k_view_io, unsigned *roles)
{
    const shapes *s = b->s;
    pg_dnn_graph *g = b->g;
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, io = b->io;
    const bool gqa = b->m->H_kv != b->m->H;
    cudnnBackendDescriptor_t q = bound(b, U_Q, io, s->q, s->q_str);
    cudnnBackendDescriptor_t kt = bound(b, U_K, io, s->kt, s->kt_str);
    cudnnBackendDescriptor_t vt = bound(b, U_V, io, s->vt, s->vt_str);
    cudnnBackendDescriptor_t o = bound(b, U_O, io, s->o, s->o_str);
    cudnnBackendDescriptor_t d_o = bound(b, U_DO, io, s->o, s->do_str);
    cudnnBackendDescriptor_t lse = bound(b, U_LSE, f32, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t dq = bound(b, U_DQ, io, s->q, s->dq_str);
    cudnnBackendDescriptor_t dk = bound(b, U_DK, io, s->k, s->dk_str);
    cudnnBackendDescriptor_t dv = bound(b, U_DV, io, s->v, s->dv_str);
    cudnnBackendDescriptor_t scale = scalar(b, U_SCALE);
    cudnnBackendDescriptor_t one = scalar(b, U_ONE);
    cudnnBackendDescriptor_t sum = bound(b, U_SUM, f32, s->bhs1, s->bhs1_str);
    cudnnBackendDescriptor_t acc = bound(b, U_DQ_ACC, f32, s->q, s->q_dense_str);
    *roles = 1u << U_Q | 1u << U_K | 1u << U_V | 1u << U_O | 1u << U_DO | 1u << U_LSE |
             1u << U_DQ | 1u << U_DK | 1u << U_DV | 1u << U_SCALE | 1u << U_ONE | 1u << U_SUM |
             1u << U_DQ_ACC;

    /* softmax sum: rowsum(dO ⊙ O) (× 1, the frontend's dropout-scale slot) */
    cudnnBackendDescriptor_t t0 = virt(b, f32, s->o_dense, s->o_dense_str);
    cudnnBackendDescriptor_t t1 = virt(b, f32, s->bhs1, s->bhs1_str);
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, d_o, o, NULL, t0, -1, "dO*O");
    pg_dnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, t0, t1, "rowsum(dO*O)");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, t1, one, NULL, sum, -1, "softmax sum");

    /* P = exp(scale·Q·Kᵀ − stats), masked */
    cudnnBackendDescriptor_t s0 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t s1 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t s2 = virt(b, f32, s->bhss, s->bhss_str);
    pg_dnn_matmul(g, q, kt, s0, "Q.K^T");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, s0, scale, NULL, s1, -1, "scale");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, s1, lse, NULL, s2, -1, "minus stats");
    if (causal) {
        cudnnBackendDescriptor_t fill = scalar(b, U_NEG_INF);
        *roles |= 1u << U_NEG_INF;
        s2 = causal_mask(b, s2, fill, roles);
    }
    cudnnBackendDescriptor_t p = virt(b, f32, s->bhss, s->bhss_str);
    pg_dnn_pointwise(g, CUDNN_POINTWISE_EXP, f32, s2, NULL, NULL, p, -1, "exp");

    /* dV = Pᵀ·dO */
    cudnnBackendDescriptor_t pt = virt(b, io, s->bhss_t, s->bhss_t_str);
    pg_dnn_reshape(g, p, pt, "P^T");
    if (gqa) { /* per query head, then summed over each KV head's group (the frontend's form) */
        cudnnBackendDescriptor_t full = virt(b, io, s->dv_full, s->dv_full_str);
        pg_dnn_matmul(g, pt, d_o, full, "P^T.dO");
        pg_dnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, full, dv, "dV over the group");
    } else {
        pg_dnn_matmul(g, pt, d_o, dv, "P^T.dO");
    }

    /* dS = P ⊙ (dO·Vᵀ − sum) · scale */
    cudnnBackendDescriptor_t dp = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t g0 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t g1 = virt(b, f32, s->bhss, s->bhss_str);
    cudnnBackendDescriptor_t ds = virt(b, f32, s->bhss, s->bhss_str);
    pg_dnn_matmul(g, d_o, vt, dp, "dO.V^T");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, dp, sum, NULL, g0, -1, "minus softmax sum");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, g0, p, NULL, g1, -1, "times P");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, g1, scale, NULL, ds, -1, "dS scale");

    /* dK = dSᵀ·Q */
    cudnnBackendDescriptor_t dst = virt(b, io, s->bhss_t, s->bhss_t_str);
    pg_dnn_reshape(g, ds, dst, "dS^T");
    if (gqa) {
        cudnnBackendDescriptor_t full = virt(b, io, s->dk_full, s->dk_full_str);
        pg_dnn_matmul(g, dst, q, full, "dS^T.Q");
        pg_dnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, full, dk, "dK over the group");
    } else {
        pg_dnn_matmul(g, dst, q, dk, "dS^T.Q");
    }

    /* dQ = dS·K through the fp32 accumulator */
    cudnnBackendDescriptor_t k = virt(b, k_view_io ? io : f32, s->k, s->k_str);
    pg_dnn_reshape(g, kt, k, "K");
    pg_dnn_matmul(g, ds, k, acc, "dS.K");
    pg_dnn_pointwise(g, CUDNN_POINTWISE_IDENTITY, f32, acc, NULL, NULL, dq, -1, "dQ");
}

/* ---- plans ------------------------------------------------------------------------------- */

static bool same_strides(pg_mha_strides x, pg_mha_strides y)
{
    return x.b == y.b && x.h == y.h && x.s == y.s && x.d == y.d;
}

/* Everything of two problems that shapes a graph (the LSE convention does not: cuDNN's stats
 * are always natural, converted outside the graph). */
static bool same_problem(const pg_mha_problem *x, const pg_mha_problem *y)
{
    return x->B == y->B && x->H == y->H && x->H_kv == y->H_kv && x->S_q == y->S_q &&
           x->S_kv == y->S_kv && x->D == y->D && x->D_v == y->D_v && x->causal == y->causal &&
           x->scale == y->scale && same_strides(x->q, y->q) && same_strides(x->k, y->k) &&
           same_strides(x->v, y->v) && same_strides(x->o, y->o) && same_strides(x->d_o, y->d_o) &&
           same_strides(x->dq, y->dq) && same_strides(x->dk, y->dk) && same_strides(x->dv, y->dv);
}

static plan_entry *find(struct pg_cudnn_state *st, const pg_sdpa_args *a, graph_kind kind)
{
    for (plan_entry *e = st->plans; e; e = e->next)
        if (e->backward == a->backward && e->dtype == a->dtype &&
            same_problem(&e->problem, &a->problem) && e->kind == kind &&
            e->pinned == (a->pin != NULL) && (!a->pin || pg_cudnn_config_equal(&e->pin, a->pin)))
            return e;
    return NULL;
}

/* Build the graph of `kind` for a and its plan; the entry records success or the failure. */
static plan_entry *make_entry(struct pg_cudnn_state *st, const pg_sdpa_args *a, graph_kind kind,
                              pg_diag *d)
{
    plan_entry *e = calloc(1, sizeof *e);
    if (!e) {
        pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
        return NULL;
    }
    e->backward = a->backward;
    e->dtype = a->dtype;
    e->problem = a->problem;
    e->kind = kind;
    e->pinned = a->pin != NULL;
    if (a->pin)
        e->pin = *a->pin;
    pg_dnn_graph_init(&e->graph, st->api);
    shapes s;
    make_shapes(&a->problem, &s);
    build b = {&e->graph, &s, &e->problem,
               a->dtype == PG_DTYPE_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, VIRT};
    const bool causal = a->problem.causal;
    switch (kind) {
    case PG_DNN_GRAPH_FWD_FUSED: fwd_fused(&b, causal, &e->roles); break;
    case PG_DNN_GRAPH_FWD_COMPOSITE: fwd_composite(&b, causal, &e->roles); break;
    case PG_DNN_GRAPH_BWD_COMPOSITE: bwd_composite(&b, causal, false, &e->roles); break;
    case PG_DNN_GRAPH_BWD_COMPOSITE_IO: bwd_composite(&b, causal, true, &e->roles); break;
    case PG_DNN_GRAPH_COUNT: break;
    }
    pg_diag pd;
    pg_diag_clear(&pd);
    if (e->graph.status != CUDNN_STATUS_SUCCESS) {
        pg_dnn_graph_error(&e->graph, e->error, sizeof e->error);
    } else if (pg_dnn_plan(&e->graph, st->handle, a->max_configs, a->pin, &e->plan, &e->info,
                           &pd) != PG_OK) {
        snprintf(e->error, sizeof e->error, "%s", pd.message);
    } else {
        e->info.config.graph = kind;
        e->ok = true;
        e->info.version = st->api->version;
        e->info.header_version = CUDNN_VERSION;
        snprintf(e->info.graph, sizeof e->info.graph, "%s (%d operation%s)", k_graph_names[kind],
                 e->graph.n_ops, e->graph.n_ops == 1 ? "" : "s");
    }
    if (!e->ok) /* keep the reason, drop the descriptors */
        pg_dnn_graph_release(&e->graph);
    e->next = st->plans;
    st->plans = e;
    return e;
}

/* The forward graphs to try, in order: the fused operation where the runtime has it and the
 * pass is not causal (cuDNN >= 9.13.1; its causal form needs >= 9.21), then the composite
 * graph. PTXGATE_CUDNN_SDPA_GRAPH=fused|composite forces one. */
static pg_status forward_kinds(long version, bool causal, graph_kind *kinds, int *n, pg_diag *d)
{
    const char *force = getenv("PTXGATE_CUDNN_SDPA_GRAPH");
    *n = 0;
    if (force && force[0] && strcmp(force, "auto") != 0) {
        if (strcmp(force, "fused") == 0 && causal)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "PTXGATE_CUDNN_SDPA_GRAPH",
                               "the fused graph is built without a mask: it cannot time a "
                               "causal task (use auto or composite)");
        if (strcmp(force, "fused") == 0)
            kinds[(*n)++] = PG_DNN_GRAPH_FWD_FUSED;
        else if (strcmp(force, "composite") == 0)
            kinds[(*n)++] = PG_DNN_GRAPH_FWD_COMPOSITE;
        else
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "PTXGATE_CUDNN_SDPA_GRAPH",
                               "unknown value '%s'; accepted: auto, fused, composite", force);
        return PG_OK;
    }
    if (!causal && version >= 91301)
        kinds[(*n)++] = PG_DNN_GRAPH_FWD_FUSED;
    kinds[(*n)++] = PG_DNN_GRAPH_FWD_COMPOSITE;
    return PG_OK;
}

/* "B=4 H=32 H_kv=8 S_q=4096 S_kv=4096 D=128 D_v=128", for messages. */
static void problem_text(const pg_mha_problem *m, char *buf, size_t n)
{
    snprintf(buf, n, "B=%lld H=%lld H_kv=%lld S_q=%lld S_kv=%lld D=%lld D_v=%lld",
             (long long)m->B, (long long)m->H, (long long)m->H_kv, (long long)m->S_q,
             (long long)m->S_kv, (long long)m->D, (long long)m->D_v);
}

static pg_status check_args(pg_device *dev, const pg_sdpa_args *a, pg_diag *d)
{
    const pg_mha_problem *m = &a->problem;
    char text[160];
    problem_text(m, text, sizeof text);
    if (a->dtype != PG_DTYPE_BF16 && a->dtype != PG_DTYPE_FP16)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuDNN attention takes bf16 or fp16 tensors, not %s",
                           pg_dtype_name(a->dtype));
    const int64_t lim = (int64_t)1 << 31;
    int64_t S = m->S_q > m->S_kv ? m->S_q : m->S_kv;
    if (m->B < 1 || m->H < 1 || m->H_kv < 1 || m->H % m->H_kv != 0 || m->S_q < 1 ||
        m->S_kv < 1 || m->D < 1 || m->D_v < 1 || m->B * m->H >= lim || S >= lim ||
        m->D >= lim || m->D_v >= lim || m->B * m->H * S >= lim)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "cuDNN attention: %s out of range",
                           text);
    size_t esz = pg_dtype_size(a->dtype);
    size_t q = pg_mha_tensor_bytes(m, m->H, m->S_q, m->D, esz),
           k = pg_mha_tensor_bytes(m, m->H_kv, m->S_kv, m->D, esz),
           v = pg_mha_tensor_bytes(m, m->H_kv, m->S_kv, m->D_v, esz),
           o = pg_mha_tensor_bytes(m, m->H, m->S_q, m->D_v, esz),
           rows = (size_t)(m->B * m->H * m->S_q);
    const struct {
        const pg_buffer *b;
        const char *name;
        size_t need;
        bool bwd_only, optional;
    } bufs[] = {{a->Q, "Q", q, false, false},          {a->K, "K", k, false, false},
                {a->V, "V", v, false, false},          {a->O, "O", o, false, false},
                {a->LSE, "LSE", rows * 4, false, !a->backward},
                {a->dO, "dO", o, true, false},         {a->dQ, "dQ", q, true, false},
                {a->dK, "dK", k, true, false},         {a->dV, "dV", v, true, false}};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        if ((bufs[i].bwd_only && !a->backward) || (bufs[i].optional && !bufs[i].b))
            continue;
        if (!bufs[i].b || pg_buffer_device(bufs[i].b) != dev ||
            pg_buffer_bytes(bufs[i].b) < bufs[i].need)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "cuDNN attention: buffer %s is missing, on another device or "
                               "smaller than %zu bytes",
                               bufs[i].name, bufs[i].need);
    }
    return PG_OK;
}

/* The stats cuDNN reads or writes: the caller's LSE when it is cuDNN's convention (natural log
 * of the scaled scores), else p->stats: a scratch for a forward without LSE, or (backward) the
 * caller's LSE converted once into the natural convention. */
static pg_status stats_buffer(pg_cudnn_sdpa *p, const pg_sdpa_args *a, const pg_buffer **out,
                              pg_diag *d)
{
    const pg_mha_problem *m = &a->problem;
    double f = pg_mha_lse_factor(m);
    size_t rows = (size_t)(m->B * m->H * m->S_q);
    *out = a->LSE;
    if (a->LSE && (!a->backward || f == 1.0))
        return PG_OK;
    pg_status st = pg_buffer_alloc(p->dev, rows * 4, &p->stats, d);
    if (st == PG_OK && a->LSE)
        st = pg_buffer_copy(p->stats, (pg_buffer *)a->LSE, rows * 4, d);
    if (st == PG_OK && a->LSE)
        st = pg_buffer_scale_f32(p->stats, rows, (float)(1.0 / f), d);
    *out = p->stats;
    return st;
}

/* Bind the entry's plan to a's buffers: scratch buffers, workspace, variant pack. */
static pg_status bind(pg_cudnn_sdpa *p, const pg_sdpa_args *a, pg_diag *d)
{
    const plan_entry *e = p->entry;
    const pg_mha_problem *m = &e->problem;
    size_t rows = (size_t)(m->B * m->H * m->S_q);
    const pg_buffer *stats = NULL;
    pg_status st = pg_buffer_alloc(p->dev, e->info.workspace_bytes, &p->workspace, d);
    if (st == PG_OK)
        st = stats_buffer(p, a, &stats, d);
    if (st == PG_OK && a->backward) {
        p->dq_acc_bytes = rows * (size_t)m->D * 4;
        st = pg_buffer_alloc(p->dev, rows * 4, &p->sum, d);
        if (st == PG_OK)
            st = pg_buffer_alloc(p->dev, p->dq_acc_bytes, &p->dq_acc, d);
        /* cuDNN's frontend zeroes the accumulator itself before 9.6.0 and leaves it to cuDNN
         * from 9.6.0 on. */
        p->zero_dq_acc = e->info.version < 90600;
    }
    if (st != PG_OK)
        return st;
    p->scale = m->scale;
    p->one = 1.0f;
    p->s_kv = (int32_t)m->S_kv;
    p->s_q = (int32_t)m->S_q;
    /* The frontend masks with −inf from cuDNN 9.10 on and with the lowest float before. */
    p->neg_inf = e->info.version >= 91000 ? -INFINITY : -FLT_MAX;
    int64_t uids[U_COUNT];
    void *ptrs[U_COUNT];
    int n = 0;
    const pg_buffer *dev_bufs[U_COUNT] = {
        [U_Q] = a->Q,   [U_K] = a->K,   [U_V] = a->V,   [U_O] = a->O,   [U_LSE] = stats,
        [U_DO] = a->dO, [U_DQ] = a->dQ, [U_DK] = a->dK, [U_DV] = a->dV, [U_SUM] = p->sum,
        [U_DQ_ACC] = p->dq_acc};
    void *host[U_COUNT] = {[U_SCALE] = &p->scale, [U_ONE] = &p->one, [U_NEG_INF] = &p->neg_inf,
                           [U_SKV] = &p->s_kv, [U_SQ] = &p->s_q};
    for (int u = 1; u < U_COUNT; u++) {
        if (!(e->roles & (1u << u)))
            continue;
        uids[n] = u;
        ptrs[n] = host[u] ? host[u] : (void *)(uintptr_t)pg_buffer_address(dev_bufs[u]);
        n++;
    }
    return pg_dnn_variant_pack(p->api, uids, ptrs, n,
                               (void *)(uintptr_t)pg_buffer_address(p->workspace), &p->vp, d);
}

pg_status pg_cudnn_sdpa_prepare(pg_device *dev, const pg_sdpa_args *a, pg_cudnn_sdpa **out,
                                pg_cudnn_sdpa_info *info, pg_diag *d)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    pg_status st = pg_dev_enter(dev, d);
    if (st == PG_OK)
        st = check_args(dev, a, d);
    struct pg_cudnn_state *cs = NULL;
    if (st == PG_OK)
        st = state(dev, &cs, d);
    if (st != PG_OK)
        return st;
    graph_kind kinds[2];
    int n_kinds = 0;
    if (a->pin) {
        bool bwd_graph = a->pin->graph == PG_DNN_GRAPH_BWD_COMPOSITE ||
                         a->pin->graph == PG_DNN_GRAPH_BWD_COMPOSITE_IO;
        if (bwd_graph != a->backward || !pg_dnn_graph_id(a->pin->graph))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "the pinned configuration's graph %s is not a %s graph",
                               pg_dnn_graph_id(a->pin->graph) ? pg_dnn_graph_id(a->pin->graph)
                                                              : "(unknown)",
                               a->backward ? "backward" : "forward");
        kinds[n_kinds++] = a->pin->graph;
    } else if (a->backward) {
        kinds[n_kinds++] = PG_DNN_GRAPH_BWD_COMPOSITE;
        kinds[n_kinds++] = PG_DNN_GRAPH_BWD_COMPOSITE_IO;
    } else if ((st = forward_kinds(cs->api->version, a->problem.causal, kinds, &n_kinds, d)) !=
               PG_OK) {
        return st;
    }
    plan_entry *chosen = NULL;
    char why[1600] = "";
    size_t used = 0;
    bool cached = false;
    for (int i = 0; i < n_kinds && !chosen; i++) {
        plan_entry *e = find(cs, a, kinds[i]);
        cached = e != NULL;
        if (!e && !(e = make_entry(cs, a, kinds[i], d)))
            return PG_ERR_INFRA;
        if (e->ok)
            chosen = e;
        else if (used < sizeof why)
            used += (size_t)snprintf(why + used, sizeof why - used, "%s%s: %s", used ? "; " : "",
                                     k_graph_names[kinds[i]], e->error);
    }
    if (!chosen && a->pin)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "%s", why);
    if (!chosen) {
        char v[32], text[160];
        pg_dnn_version_text(cs->api->version, v, sizeof v);
        problem_text(&a->problem, text, sizeof text);
        return pg_diag_set(d, PG_ERR_UNAVAILABLE, NULL, 0, NULL,
                           "cuDNN %s cannot run SDPA %s (%s%s, %s): %s", v,
                           a->backward ? "backward" : "forward", pg_dtype_name(a->dtype),
                           a->problem.causal ? ", causal" : "", text, why);
    }
    pg_cudnn_sdpa *p = calloc(1, sizeof *p);
    if (!p)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    p->dev = dev;
    p->api = cs->api;
    p->handle = cs->handle;
    p->entry = chosen;
    st = bind(p, a, d);
    if (st != PG_OK) {
        pg_cudnn_sdpa_free(p);
        return st;
    }
    *info = chosen->info;
    info->cached = cached;
    info->scratch_bytes = (p->sum ? pg_buffer_bytes(p->sum) : 0) + p->dq_acc_bytes +
                          (p->stats ? pg_buffer_bytes(p->stats) : 0);
    *out = p;
    return PG_OK;
}

pg_status pg_cudnn_sdpa_enqueue(pg_cudnn_sdpa *p, pg_diag *d)
{
    pg_status st = pg_dev_enter(p->dev, d);
    if (st != PG_OK)
        return st;
    if (p->zero_dq_acc) {
        st = pg_dev_check(p->dev,
                          p->dev->cu->MemsetD32Async((CUdeviceptr)pg_buffer_address(p->dq_acc), 0,
                                                     p->dq_acc_bytes / 4, p->dev->stream),
                          PG_ERR_INFRA, "cuMemsetD32Async (cuDNN dQ accumulator)", d);
        if (st != PG_OK)
            return st;
    }
    cudnnStatus_t s = p->api->Execute(p->handle, p->entry->plan, p->vp);
    if (s == CUDNN_STATUS_SUCCESS)
        return PG_OK;
    char err[640];
    pg_dnn_describe(p->api, s, err, sizeof err);
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cudnnBackendExecute (%s): %s",
                       p->entry->info.graph, err);
}

void pg_cudnn_sdpa_free(pg_cudnn_sdpa *p)
{
    if (!p)
        return;
    if (p->vp)
        p->api->DestroyDescriptor(p->vp);
    pg_buffer_free(p->workspace);
    pg_buffer_free(p->sum);
    pg_buffer_free(p->dq_acc);
    pg_buffer_free(p->stats);
    free(p);
}
