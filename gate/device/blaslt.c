/* The cuBLASLt baseline GEMM: descriptors for a pg_gemm_problem in cuBLASLt's column-major
 * form (gemm_blas.h), the heuristic's candidates timed on the device and the fastest kept (or a
 * stored algorithm re-created from its configuration attributes), then enqueued on the device
 * stream. */
#include "device_internal.h"

#include <cublasLt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gemm_blas.h"

/* Workspace handed to cuBLASLt; the heuristic only proposes algorithms that fit. */
#define PG_BLASLT_WORKSPACE ((size_t)64 << 20)
#define PG_BLASLT_MAX_CANDIDATES 64
/* Selection timing per candidate: 2 warm-up, 5 timed launches, L2 flushed, median. */
#define PG_BLASLT_WARMUP 2
#define PG_BLASLT_REPS 5
#define PG_BLASLT_TIMEOUT_S 60.0
/* Largest workspace a stored baseline may ask for. */
#define PG_BLASLT_MAX_PINNED_WORKSPACE ((size_t)4 << 30)

struct pg_blaslt_gemm {
    pg_device *dev;
    cublasLtMatmulDesc_t op;
    /* cuBLASLt's A, B, C and D (gemm_blas.h: its A is our B buffer when swapped); c_layout is
     * NULL without a C input, and C is then D's buffer and layout with beta 0. */
    cublasLtMatrixLayout_t a_layout, b_layout, c_layout, d_layout;
    cublasLtMatmulAlgo_t algo;
    pg_gemm_blas blas;
    CUdeviceptr a, b, c, d; /* our A, B, C (0 without C input) and D buffers */
    size_t a_bytes, b_bytes, c_bytes, d_bytes;
    CUdeviceptr workspace;
    size_t workspace_bytes;
    cublasComputeType_t compute;
    cudaDataType_t ta, tb, tc, td; /* types of cuBLASLt's A, B, C, D */
    int64_t M, N, K, batch;        /* for messages */
    pg_dtype in_dtype;
    float alpha, beta; /* read by cublasLtMatmul at call time (host pointer mode) */
    /* fp8 scales: our scale_A and scale_B (device fp32) for the matmuls of
     * pg_blaslt_gemm_enqueue (pg_blaslt_gemm_set_scales); 0 until set, which cuBLASLt reads as
     * scale 1 (the algorithm search runs so). */
    CUdeviceptr scale_a, scale_b;
    /* block scales (PG_GEMM_SCALE_BLOCK): cuBLASLt reads them in every call, the search's
     * too, so until pg_blaslt_gemm_set_scales it reads these, owned, all 1.0 */
    pg_gemm_scale_mode scale_mode;
    CUdeviceptr ones_a, ones_b;
    size_t scale_a_floats, scale_b_floats;
    /* the scale pointers on the descriptor now: set only when they change, so that no host
     * work falls between the events around a timed launch */
    CUdeviceptr cur_a, cur_b;
};

static pg_status lt_check(cublasStatus_t s, const char *what, pg_diag *d)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return PG_OK;
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s: %s (%s)", what,
                       cublasLtGetStatusName(s), cublasLtGetStatusString(s));
}

/* The handle is created on first use, never at open: it starts the CUDA runtime inside
 * cuBLASLt, which then adopts the primary context already current on this thread. */
static pg_status handle(pg_device *dev, pg_diag *d)
{
    if (dev->blaslt)
        return PG_OK;
    cublasLtHandle_t h = NULL;
    pg_status st = lt_check(cublasLtCreate(&h), "cublasLtCreate", d);
    if (st == PG_OK)
        dev->blaslt = h;
    return st;
}

void pg_blaslt_release(pg_device *dev)
{
    if (dev->blaslt)
        cublasLtDestroy(dev->blaslt);
    dev->blaslt = NULL;
}

/* Point the descriptor's A and B scales at our scale_A and scale_B (swapped: cuBLASLt's A is
 * our B, so its A scale is our scale_B). */
static pg_status set_scale_pointers(pg_blaslt_gemm *g, CUdeviceptr sa, CUdeviceptr sb,
                                    pg_diag *d)
{
    if (sa == g->cur_a && sb == g->cur_b)
        return PG_OK;
    const void *la = (const void *)(uintptr_t)(g->blas.swapped ? sb : sa);
    const void *lb = (const void *)(uintptr_t)(g->blas.swapped ? sa : sb);
    pg_status st = lt_check(cublasLtMatmulDescSetAttribute(g->op,
                                                           CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                           &la, sizeof la),
                            "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                     &lb, sizeof lb),
                      "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)", d);
    if (st == PG_OK) {
        g->cur_a = sa;
        g->cur_b = sb;
    }
    return st;
}

static pg_status matmul_on(pg_blaslt_gemm *g, const cublasLtMatmulAlgo_t *algo, CUdeviceptr a,
                           CUdeviceptr b, CUdeviceptr c, CUdeviceptr dd, pg_diag *d)
{
    pg_status st = pg_dev_enter(g->dev, d);
    if (st != PG_OK)
        return st;
    /* Swapped (row-major D): cuBLASLt's "A" is our B buffer and its "B" our A buffer. Without
     * a C input, C is D's buffer and layout (beta is 0 then, so it is not read). */
    CUdeviceptr la = g->blas.swapped ? b : a, lb = g->blas.swapped ? a : b;
    CUdeviceptr lc = g->c_layout ? c : dd;
    cublasLtMatrixLayout_t c_layout = g->c_layout ? g->c_layout : g->d_layout;
    cublasStatus_t s = cublasLtMatmul(
        g->dev->blaslt, g->op, &g->alpha, (const void *)(uintptr_t)la, g->a_layout,
        (const void *)(uintptr_t)lb, g->b_layout, &g->beta, (const void *)(uintptr_t)lc,
        c_layout, (void *)(uintptr_t)dd, g->d_layout, algo, (void *)(uintptr_t)g->workspace,
        g->workspace_bytes, (cudaStream_t)g->dev->stream);
    return lt_check(s, "cublasLtMatmul", d);
}

static pg_status matmul(pg_blaslt_gemm *g, const cublasLtMatmulAlgo_t *algo, pg_diag *d)
{
    pg_status st = set_scale_pointers(g, g->scale_a, g->scale_b, d); /* a no-op unless changed */
    return st == PG_OK ? matmul_on(g, algo, g->a, g->b, g->c, g->d, d) : st;
}

pg_status pg_blaslt_gemm_enqueue(pg_blaslt_gemm *g, pg_diag *d)
{
    return matmul(g, &g->algo, d);
}

/* The scale pointers of s (NULL: none) as device addresses; PG_ERR_INPUT for a buffer below 4
 * bytes or only one of the two. */
static pg_status scale_addresses(const pg_blaslt_gemm *g, const pg_gemm_scales *s,
                                 CUdeviceptr *sa, CUdeviceptr *sb, pg_diag *d)
{
    *sa = *sb = 0;
    if (!s || (!s->a && !s->b))
        return PG_OK;
    bool block = g->scale_mode == PG_GEMM_SCALE_BLOCK;
    size_t na = block ? g->scale_a_floats : 1, nb = block ? g->scale_b_floats : 1;
    if (!s->a || !s->b || pg_buffer_bytes(s->a) < na * sizeof(float) ||
        pg_buffer_bytes(s->b) < nb * sizeof(float))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt GEMM: scales come in pairs of fp32 buffers of at least %zu "
                           "(scale_A) and %zu (scale_B) values", na, nb);
    *sa = (CUdeviceptr)pg_buffer_address(s->a);
    *sb = (CUdeviceptr)pg_buffer_address(s->b);
    return PG_OK;
}

pg_status pg_blaslt_gemm_set_scales(pg_blaslt_gemm *g, const pg_gemm_scales *s, pg_diag *d)
{
    if (!pg_dtype_is_fp8(g->in_dtype))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt GEMM: per-tensor scales need fp8 A and B, not %s",
                           pg_dtype_name(g->in_dtype));
    pg_status st = scale_addresses(g, s, &g->scale_a, &g->scale_b, d);
    if (g->scale_a == 0 && g->scale_mode == PG_GEMM_SCALE_BLOCK) {
        g->scale_a = g->ones_a; /* block scales are always read */
        g->scale_b = g->ones_b;
    }
    /* on the descriptor now, so that no timed call has to */
    pg_status put = set_scale_pointers(g, g->scale_a, g->scale_b, d);
    return st != PG_OK ? st : put;
}

pg_status pg_blaslt_gemm_enqueue_on(pg_blaslt_gemm *g, const pg_buffer *A, const pg_buffer *B,
                                    const pg_buffer *C, const pg_gemm_scales *scales,
                                    pg_buffer *D, pg_diag *d)
{
    bool has_c = g->c_layout != NULL;
    if (!A || !B || !D || (has_c && !C) || pg_buffer_bytes(A) < g->a_bytes ||
        pg_buffer_bytes(B) < g->b_bytes || pg_buffer_bytes(D) < g->d_bytes ||
        (has_c && pg_buffer_bytes(C) < g->c_bytes))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt GEMM: the buffers given are smaller than the prepared ones%s",
                           has_c && !C ? " (no C input given)" : "");
    CUdeviceptr sa = 0, sb = 0;
    pg_status st = scales ? scale_addresses(g, scales, &sa, &sb, d) : PG_OK;
    /* this call's scales (pg_blaslt_gemm_enqueue puts the stored ones back when it runs) */
    if (st == PG_OK && sa)
        st = set_scale_pointers(g, sa, sb, d);
    if (st == PG_OK)
        st = matmul_on(g, &g->algo, pg_buffer_address(A), pg_buffer_address(B),
                       has_c ? pg_buffer_address(C) : 0, pg_buffer_address(D), d);
    return st;
}

void pg_blaslt_gemm_free(pg_blaslt_gemm *g)
{
    if (!g)
        return;
    if (g->op)
        cublasLtMatmulDescDestroy(g->op);
    cublasLtMatrixLayout_t layouts[] = {g->a_layout, g->b_layout, g->c_layout, g->d_layout};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i])
            cublasLtMatrixLayoutDestroy(layouts[i]);
    if (!g->dev->hung && g->dev->cu->CtxSetCurrent(g->dev->ctx) == CUDA_SUCCESS) {
        CUdeviceptr owned[] = {g->workspace, g->ones_a, g->ones_b};
        for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
            if (owned[i])
                g->dev->cu->MemFree(owned[i]);
    }
    free(g);
}

/* One matrix layout: column-major rows x cols with its leading dimension; for a batch of more
 * than one, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT (int32_t) and STRIDED_BATCH_OFFSET (int64_t,
 * elements) as well. Batch 1 sets neither, as the historic baseline did. */
static pg_status make_layout(cublasLtMatrixLayout_t *l, cudaDataType_t type,
                             const pg_gemm_blas_matrix *m, int64_t batch, const char *what,
                             pg_diag *d)
{
    char call[160];
    snprintf(call, sizeof call, "cublasLtMatrixLayoutCreate(%s)", what);
    pg_status st = lt_check(cublasLtMatrixLayoutCreate(l, type, (uint64_t)m->rows,
                                                       (uint64_t)m->cols, m->ld),
                            call, d);
    if (st != PG_OK || batch <= 1)
        return st;
    int32_t count = (int32_t)batch;
    int64_t stride = m->batch_stride;
    snprintf(call, sizeof call, "cublasLtMatrixLayoutSetAttribute(%s, BATCH_COUNT)", what);
    st = lt_check(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                   sizeof count),
                  call, d);
    if (st == PG_OK) {
        snprintf(call, sizeof call, "cublasLtMatrixLayoutSetAttribute(%s, STRIDED_BATCH_OFFSET)",
                 what);
        st = lt_check(cublasLtMatrixLayoutSetAttribute(
                          *l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                      call, d);
    }
    return st;
}

/* The matmul descriptor and the layouts of g->blas (gemm_blas.h explains the column-major
 * form). For the historic gemm_nt problem this is, as before the generalized GEMM: compute
 * CUBLAS_COMPUTE_32F, scale CUDA_R_32F, TRANSA = T, TRANSB = N, cuBLASLt A = the B buffer
 * K x N ld K, cuBLASLt B = the A buffer K x M ld K, C = D = the output N x M ld N, no batch
 * attributes. That "TN" form is also the one cuBLASLt supports best for 16-bit inputs. */
static pg_status describe_problem(pg_blaslt_gemm *g, pg_diag *d)
{
    const pg_gemm_blas *bl = &g->blas;
    pg_status st = lt_check(cublasLtMatmulDescCreate(&g->op, g->compute, CUDA_R_32F),
                            "cublasLtMatmulDescCreate", d);
    cublasOperation_t ta = bl->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t tb = bl->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                                     sizeof(ta)),
                      "cublasLtMatmulDescSetAttribute(TRANSA)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                                     sizeof(tb)),
                      "cublasLtMatmulDescSetAttribute(TRANSB)", d);
    if (st == PG_OK && g->scale_mode == PG_GEMM_SCALE_BLOCK) {
        /* swapped (the only orientation block scales take): cuBLASLt's A is our B (128 x 128
         * blocks), its B our A (1 x 128) */
        int32_t ma = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        int32_t mb = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &ma,
                                                     sizeof ma),
                      "cublasLtMatmulDescSetAttribute(A_SCALE_MODE BLK128x128_32F)", d);
        if (st == PG_OK)
            st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                         &mb, sizeof mb),
                          "cublasLtMatmulDescSetAttribute(B_SCALE_MODE VEC128_32F)", d);
        if (st == PG_OK)
            st = set_scale_pointers(g, g->scale_a, g->scale_b, d);
    }
    if (st == PG_OK)
        st = make_layout(&g->a_layout, g->ta, &bl->a, bl->batch,
                         bl->swapped ? "A = B buffer" : "A = A buffer", d);
    if (st == PG_OK)
        st = make_layout(&g->b_layout, g->tb, &bl->b, bl->batch,
                         bl->swapped ? "B = A buffer" : "B = B buffer", d);
    if (st == PG_OK && bl->has_c)
        st = make_layout(&g->c_layout, g->tc, &bl->c, bl->batch, "C = C buffer", d);
    if (st == PG_OK)
        st = make_layout(&g->d_layout, g->td, &bl->d, bl->batch,
                         bl->has_c ? "D = D buffer" : "C = D = output buffer", d);
    return st;
}

/* The configuration attributes of algo (cublasLtMatmulAlgoConfigAttributes_t). */
static void read_config(const cublasLtMatmulAlgo_t *algo, pg_blaslt_algo *out)
{
    size_t w;
    memset(out, 0, sizeof *out);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &out->algo_id,
                                         sizeof(out->algo_id), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &out->tile,
                                         sizeof(out->tile), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &out->stages,
                                         sizeof(out->stages), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &out->splitk,
                                         sizeof(out->splitk), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                         &out->reduction, sizeof(out->reduction), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &out->swizzle,
                                         sizeof(out->swizzle), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &out->custom,
                                         sizeof(out->custom), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID,
                                         &out->inner_shape, sizeof(out->inner_shape), &w);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                         &out->cluster_shape, sizeof(out->cluster_shape), &w);
}

/* An algorithm for g's problem re-created from its configuration: AlgoInit for the algorithm
 * id and g's types, then every settable attribute. cuBLASLt statuses are returned as they are
 * (the caller decides whether a refusal is an input error). */
static cublasStatus_t build_algo(const pg_blaslt_gemm *g, const pg_blaslt_algo *c,
                                 cublasLtMatmulAlgo_t *algo, const char **failed_call)
{
    memset(algo, 0, sizeof *algo);
    *failed_call = "cublasLtMatmulAlgoInit";
    cublasStatus_t s = cublasLtMatmulAlgoInit(g->dev->blaslt, g->compute, CUDA_R_32F, g->ta,
                                              g->tb, g->tc, g->td, c->algo_id, algo);
    const struct {
        cublasLtMatmulAlgoConfigAttributes_t attr;
        const void *value;
        size_t size;
        const char *call;
    } set[] = {
        {CUBLASLT_ALGO_CONFIG_TILE_ID, &c->tile, sizeof c->tile,
         "cublasLtMatmulAlgoConfigSetAttribute(TILE_ID)"},
        {CUBLASLT_ALGO_CONFIG_STAGES_ID, &c->stages, sizeof c->stages,
         "cublasLtMatmulAlgoConfigSetAttribute(STAGES_ID)"},
        {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c->splitk, sizeof c->splitk,
         "cublasLtMatmulAlgoConfigSetAttribute(SPLITK_NUM)"},
        {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c->reduction, sizeof c->reduction,
         "cublasLtMatmulAlgoConfigSetAttribute(REDUCTION_SCHEME)"},
        {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &c->swizzle, sizeof c->swizzle,
         "cublasLtMatmulAlgoConfigSetAttribute(CTA_SWIZZLING)"},
        {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &c->custom, sizeof c->custom,
         "cublasLtMatmulAlgoConfigSetAttribute(CUSTOM_OPTION)"},
        {CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &c->inner_shape, sizeof c->inner_shape,
         "cublasLtMatmulAlgoConfigSetAttribute(INNER_SHAPE_ID)"},
        {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c->cluster_shape, sizeof c->cluster_shape,
         "cublasLtMatmulAlgoConfigSetAttribute(CLUSTER_SHAPE_ID)"},
    };
    for (size_t i = 0; s == CUBLAS_STATUS_SUCCESS && i < sizeof set / sizeof set[0]; i++) {
        *failed_call = set[i].call;
        s = cublasLtMatmulAlgoConfigSetAttribute(algo, set[i].attr, set[i].value, set[i].size);
    }
    return s;
}

/* choice->config and ->algorithm from algo, and whether re-creating the configuration gives
 * the same opaque bytes (then the stored form of a baseline is complete). */
static void describe_choice(const pg_blaslt_gemm *g, const cublasLtMatmulAlgo_t *algo,
                            pg_blaslt_choice *choice)
{
    read_config(algo, &choice->config);
    pg_blaslt_algo_format(&choice->config, choice->algorithm, sizeof choice->algorithm);
    cublasLtMatmulAlgo_t again;
    const char *call;
    choice->config_reproduces = build_algo(g, &choice->config, &again, &call) ==
                                    CUBLAS_STATUS_SUCCESS &&
                                memcmp(&again, algo, sizeof again) == 0;
}

typedef struct {
    pg_blaslt_gemm *g;
    const cublasLtMatmulAlgo_t *algo;
} candidate_arm;

static pg_status enqueue_candidate(void *ctx, pg_diag *d)
{
    candidate_arm *c = ctx;
    return matmul(c->g, c->algo, d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool cuda_type(pg_dtype t, cudaDataType_t *out)
{
    switch (t) {
    case PG_DTYPE_FP32: *out = CUDA_R_32F; return true;
    case PG_DTYPE_BF16: *out = CUDA_R_16BF; return true;
    case PG_DTYPE_FP16: *out = CUDA_R_16F; return true;
    case PG_DTYPE_E4M3: *out = CUDA_R_8F_E4M3; return true;
    case PG_DTYPE_E5M2: *out = CUDA_R_8F_E5M2; return true;
    default: return false;
    }
}

/* "1000x513 ld 1000" */
static int matrix_text(char *buf, size_t n, const pg_gemm_blas_matrix *m)
{
    return snprintf(buf, n, "%s %lldx%lld ld %lld", pg_dtype_name(m->dtype), (long long)m->rows,
                    (long long)m->cols, (long long)m->ld);
}

/* choice->compute, ->layouts and ->plain_nt of g's problem (pg_blaslt_choice). */
static void describe_text(const pg_blaslt_gemm *g, const pg_gemm_problem *p,
                          pg_blaslt_choice *choice)
{
    const pg_gemm_blas *bl = &g->blas;
    char a[96], b[96], c[96], dd[96];
    matrix_text(a, sizeof a, &bl->a);
    matrix_text(b, sizeof b, &bl->b);
    matrix_text(c, sizeof c, &bl->c);
    matrix_text(dd, sizeof dd, &bl->d);
    choice->plain_nt = pg_gemm_problem_is_plain_nt(p);
    snprintf(choice->compute, sizeof choice->compute, "%s",
             p->compute == PG_GEMM_COMPUTE_TF32 ? "tf32" : "fp32");
    int used = snprintf(choice->layouts, sizeof choice->layouts,
                        "m=%lld n=%lld k=%lld, column-major: A = our %s %s op %s; B = our %s %s "
                        "op %s; C = our %s %s; D = our D %s",
                        (long long)bl->m, (long long)bl->n, (long long)bl->k,
                        bl->swapped ? "B" : "A", a, bl->trans_a ? "T" : "N",
                        bl->swapped ? "A" : "B", b, bl->trans_b ? "T" : "N",
                        bl->has_c ? "C" : "D", c, dd);
    if (bl->batch > 1 && used > 0 && (size_t)used < sizeof choice->layouts)
        snprintf(choice->layouts + used, sizeof choice->layouts - (size_t)used,
                 "; batch %lld, batch strides A %lld B %lld C %lld D %lld", (long long)bl->batch,
                 (long long)bl->a.batch_stride, (long long)bl->b.batch_stride,
                 (long long)bl->c.batch_stride, (long long)bl->d.batch_stride);
}

/* PG_ERR_INPUT unless buffer buf (named what) holds operand x's span (gemm_blas.h). */
static pg_status check_span(const pg_gemm_operand *x, int64_t batch, int64_t rows, int64_t cols,
                            const pg_buffer *buf, const char *what, pg_diag *d)
{
    int64_t elements = 0;
    size_t esz = pg_dtype_size(x->dtype);
    if (!buf)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "cuBLASLt baseline: no %s buffer",
                           what);
    if (!pg_gemm_operand_span(x, batch, rows, cols, &elements) ||
        (uint64_t)elements > pg_buffer_bytes(buf) / esz)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: %s (%lld x %lld, batch %lld, strides %lld/%lld/%lld "
                           "elements) needs %lld %s elements; the buffer holds %zu bytes",
                           what, (long long)rows, (long long)cols, (long long)batch,
                           (long long)x->row_stride, (long long)x->col_stride,
                           (long long)x->batch_stride, (long long)elements,
                           pg_dtype_name(x->dtype), pg_buffer_bytes(buf));
    return PG_OK;
}

/* The problem checks of pg_blaslt_choice's contract: types cuBLASLt's cublasLtMatmul table
 * lists for 32-bit compute and scale, and tf32 only for fp32 inputs. */
static pg_status check_types(const pg_gemm_problem *p, pg_diag *d)
{
    pg_dtype in = p->a.dtype, out = p->d.dtype;
    cudaDataType_t t;
    const char *accepted = "A = B bf16 with C = D bf16 or fp32, A = B fp16 with C = D fp16 or "
                           "fp32, A = B fp32 with C = D fp32, A and B fp8 (not both e5m2) with "
                           "C = D bf16, fp16 or fp32";
    if (!cuda_type(in, &t) || !cuda_type(p->b.dtype, &t) || !cuda_type(out, &t) ||
        (p->has_c && !cuda_type(p->c.dtype, &t)))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline takes fp32, bf16, fp16 or fp8 operands, not A %s, "
                           "B %s, C %s, D %s",
                           pg_dtype_name(in), pg_dtype_name(p->b.dtype),
                           p->has_c ? pg_dtype_name(p->c.dtype) : "none", pg_dtype_name(out));
    bool fp8 = pg_dtype_is_fp8(in) && pg_dtype_is_fp8(p->b.dtype);
    bool ok = (!p->has_c || p->c.dtype == out) &&
              (fp8 ? !(in == PG_DTYPE_E5M2 && p->b.dtype == PG_DTYPE_E5M2) &&
                         !pg_dtype_is_fp8(out)
                   : p->b.dtype == in && (out == in || out == PG_DTYPE_FP32));
    if (!ok)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: A %s, B %s, C %s, D %s is not a combination "
                           "cublasLtMatmul supports with fp32 compute (%s)",
                           pg_dtype_name(in), pg_dtype_name(p->b.dtype),
                           p->has_c ? pg_dtype_name(p->c.dtype) : "none", pg_dtype_name(out),
                           accepted);
    if (p->compute == PG_GEMM_COMPUTE_TF32 && in != PG_DTYPE_FP32)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: tf32 compute (CUBLAS_COMPUTE_32F_FAST_TF32) takes "
                           "fp32 A and B, not %s", pg_dtype_name(in));
    if (p->batch > INT32_MAX)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: a batch of %lld is above cuBLASLt's int32 batch "
                           "count", (long long)p->batch);
    return PG_OK;
}

/* Block scales: buffers of 1.0 in the shapes of scale_A ([ceil(K/128), M]) and scale_B
 * ([ceil(N/128), ceil(K/128)]) for the calls before pg_blaslt_gemm_set_scales. */
static pg_status block_scale_ones(pg_blaslt_gemm *g, const pg_gemm_problem *p, pg_diag *d)
{
    const pg_cu_api *cu = g->dev->cu;
    size_t kb = (size_t)pg_gemm_scale_blocks(p->K), nb = (size_t)pg_gemm_scale_blocks(p->N);
    g->scale_a_floats = kb * (size_t)p->M;
    g->scale_b_floats = nb * kb;
    const unsigned int one = 0x3f800000u; /* 1.0f */
    pg_status st = pg_dev_check(g->dev, cu->MemAlloc(&g->ones_a, g->scale_a_floats * 4),
                                PG_ERR_INFRA, "cuMemAlloc(cuBLASLt scale_A of ones)", d);
    if (st == PG_OK)
        st = pg_dev_check(g->dev, cu->MemAlloc(&g->ones_b, g->scale_b_floats * 4), PG_ERR_INFRA,
                          "cuMemAlloc(cuBLASLt scale_B of ones)", d);
    if (st == PG_OK)
        st = pg_dev_check(g->dev, cu->MemsetD32Async(g->ones_a, one, g->scale_a_floats,
                                                     g->dev->stream),
                          PG_ERR_INFRA, "cuMemsetD32Async(scale_A)", d);
    if (st == PG_OK)
        st = pg_dev_check(g->dev, cu->MemsetD32Async(g->ones_b, one, g->scale_b_floats,
                                                     g->dev->stream),
                          PG_ERR_INFRA, "cuMemsetD32Async(scale_B)", d);
    g->scale_a = g->ones_a;
    g->scale_b = g->ones_b;
    return st;
}

/* Checks, the handle, the workspace and the descriptors shared by both ways of preparing. */
static pg_status setup(pg_device *dev, const pg_gemm_problem *p, const pg_buffer *A,
                       const pg_buffer *B, const pg_buffer *C, pg_buffer *D,
                       size_t workspace_bytes, pg_blaslt_gemm **out, pg_diag *d)
{
    *out = NULL;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    pg_gemm_blas bl;
    st = check_types(p, d);
    if (st == PG_OK)
        st = pg_gemm_blas_of(p, &bl, d);
    if (st == PG_OK && p->scale.mode == PG_GEMM_SCALE_BLOCK && (!bl.swapped || p->batch != 1))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: block scales (VEC128_32F for A, BLK128x128_32F "
                           "for B) are set up for an unbatched row-major output only");
    if (st == PG_OK)
        st = check_span(&p->a, p->batch, p->M, p->K, A, "A", d);
    if (st == PG_OK)
        st = check_span(&p->b, p->batch, p->K, p->N, B, "B", d);
    if (st == PG_OK && p->has_c)
        st = check_span(&p->c, p->batch, p->M, p->N, C, "C", d);
    if (st == PG_OK)
        st = check_span(&p->d, p->batch, p->M, p->N, D, "D", d);
    if (st != PG_OK)
        return st;
    if (p->has_c && pg_buffer_address(C) == pg_buffer_address(D))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: C and D must be distinct buffers");
    pg_blaslt_gemm *g = calloc(1, sizeof(*g));
    if (!g)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    g->dev = dev;
    g->blas = bl;
    g->compute = p->compute == PG_GEMM_COMPUTE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                    : CUBLAS_COMPUTE_32F;
    cuda_type(bl.a.dtype, &g->ta);
    cuda_type(bl.b.dtype, &g->tb);
    cuda_type(bl.c.dtype, &g->tc);
    cuda_type(bl.d.dtype, &g->td);
    g->M = p->M;
    g->N = p->N;
    g->K = p->K;
    g->batch = p->batch;
    g->in_dtype = p->a.dtype;
    g->a = (CUdeviceptr)pg_buffer_address(A);
    g->b = (CUdeviceptr)pg_buffer_address(B);
    g->c = p->has_c ? (CUdeviceptr)pg_buffer_address(C) : 0;
    g->d = (CUdeviceptr)pg_buffer_address(D);
    g->a_bytes = pg_buffer_bytes(A);
    g->b_bytes = pg_buffer_bytes(B);
    g->c_bytes = p->has_c ? pg_buffer_bytes(C) : 0;
    g->d_bytes = pg_buffer_bytes(D);
    g->alpha = p->alpha;
    g->beta = p->has_c ? p->beta : 0.0f;
    g->workspace_bytes = workspace_bytes;
    g->scale_mode = p->scale.mode;
    st = handle(dev, d);
    if (st == PG_OK && p->scale.mode == PG_GEMM_SCALE_BLOCK)
        st = block_scale_ones(g, p, d);
    if (st == PG_OK && workspace_bytes > 0)
        st = pg_dev_check(dev, dev->cu->MemAlloc(&g->workspace, workspace_bytes), PG_ERR_INFRA,
                          "cuMemAlloc(cuBLASLt workspace)", d);
    if (st == PG_OK)
        st = describe_problem(g, d);
    if (st != PG_OK) {
        pg_blaslt_gemm_free(g);
        return st;
    }
    *out = g;
    return PG_OK;
}

/* "257x513x1000 bf16" (+ " batch 3" when batched), for messages. */
static void problem_text(const pg_blaslt_gemm *g, char *buf, size_t n)
{
    int used = snprintf(buf, n, "%lldx%lldx%lld %s", (long long)g->M, (long long)g->N,
                        (long long)g->K, pg_dtype_name(g->in_dtype));
    if (g->batch > 1 && used > 0 && (size_t)used < n)
        snprintf(buf + used, n - (size_t)used, " batch %lld", (long long)g->batch);
}

pg_status pg_blaslt_gemm_prepare(pg_device *dev, const pg_gemm_problem *p, const pg_buffer *A,
                                 const pg_buffer *B, const pg_buffer *C, pg_buffer *D,
                                 int max_candidates, pg_blaslt_gemm **out,
                                 pg_blaslt_choice *choice, pg_diag *d)
{
    *out = NULL;
    memset(choice, 0, sizeof(*choice));
    choice->chosen_index = -1;
    if (max_candidates < 1)
        max_candidates = 1;
    if (max_candidates > PG_BLASLT_MAX_CANDIDATES)
        max_candidates = PG_BLASLT_MAX_CANDIDATES;

    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t results[PG_BLASLT_MAX_CANDIDATES];
    double times[PG_BLASLT_REPS];
    pg_blaslt_gemm *g = NULL;
    pg_status st = setup(dev, p, A, B, C, D, PG_BLASLT_WORKSPACE, &g, d);
    if (st != PG_OK)
        return st;
    describe_text(g, p, choice);
    st = lt_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", d);
    uint64_t ws = PG_BLASLT_WORKSPACE;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulPreferenceSetAttribute(
                          pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
                      "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", d);
    int returned = 0;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulAlgoGetHeuristic(
                          dev->blaslt, g->op, g->a_layout, g->b_layout,
                          g->c_layout ? g->c_layout : g->d_layout, g->d_layout, pref,
                          max_candidates, results, &returned),
                      "cublasLtMatmulAlgoGetHeuristic", d);
    if (st != PG_OK)
        goto done;
    choice->candidates_returned = returned;

    /* Time every usable candidate alone; one that cuBLASLt refuses at run time is skipped, but
     * a fault (device broken) ends the selection. */
    pg_diag cand_diag;
    char first_error[512] = "";
    for (int i = 0; i < returned; i++) {
        if (results[i].state != CUBLAS_STATUS_SUCCESS || results[i].workspaceSize > ws)
            continue;
        candidate_arm arm_ctx = {g, &results[i].algo};
        pg_arm arm = {.enqueue = enqueue_candidate, .ctx = &arm_ctx};
        pg_diag_clear(&cand_diag);
        pg_status cs = pg_device_time(dev, &arm, 1, PG_BLASLT_WARMUP, PG_BLASLT_REPS, true,
                                      PG_BLASLT_TIMEOUT_S, times, &cand_diag);
        if (cs != PG_OK) {
            if (dev->broken) {
                st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                                 "cuBLASLt candidate %d broke the device: %s", i,
                                 cand_diag.message);
                goto done;
            }
            if (!first_error[0])
                snprintf(first_error, sizeof(first_error), "candidate %d: %.400s", i,
                         cand_diag.message);
            continue;
        }
        qsort(times, PG_BLASLT_REPS, sizeof(times[0]), cmp_double);
        double median = times[PG_BLASLT_REPS / 2];
        choice->candidates_timed++;
        if (choice->chosen_index < 0 || median < choice->chosen_median_ms) {
            choice->chosen_index = i;
            choice->chosen_median_ms = median;
        }
    }
    if (choice->chosen_index < 0) {
        char what[128];
        problem_text(g, what, sizeof what);
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                         "cuBLASLt: none of %d heuristic candidates for %s ran%s%s", returned,
                         what, first_error[0] ? "; " : "", first_error);
        goto done;
    }
    g->algo = results[choice->chosen_index].algo;
    describe_choice(g, &g->algo, choice);
    choice->workspace_bytes = PG_BLASLT_WORKSPACE;
    *out = g;
    g = NULL;
done:
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    pg_blaslt_gemm_free(g);
    return st;
}

pg_status pg_blaslt_gemm_prepare_pinned(pg_device *dev, const pg_gemm_problem *p,
                                        const pg_buffer *A, const pg_buffer *B,
                                        const pg_buffer *C, pg_buffer *D,
                                        const pg_blaslt_algo *algo, size_t workspace_bytes,
                                        pg_blaslt_gemm **out, pg_blaslt_choice *choice,
                                        pg_diag *d)
{
    *out = NULL;
    memset(choice, 0, sizeof(*choice));
    choice->chosen_index = -1;
    choice->chosen_median_ms = NAN;
    char text[256];
    pg_blaslt_algo_format(algo, text, sizeof text);
    if (workspace_bytes > PG_BLASLT_MAX_PINNED_WORKSPACE)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "pinned cuBLASLt algorithm: a workspace of %zu bytes is above the "
                           "%zu-byte limit", workspace_bytes, PG_BLASLT_MAX_PINNED_WORKSPACE);
    pg_blaslt_gemm *g = NULL;
    pg_status st = setup(dev, p, A, B, C, D, workspace_bytes, &g, d);
    if (st != PG_OK)
        return st;
    describe_text(g, p, choice);
    const char *call = "";
    cublasStatus_t s = build_algo(g, algo, &g->algo, &call);
    cublasLtMatmulHeuristicResult_t check;
    memset(&check, 0, sizeof check);
    if (s == CUBLAS_STATUS_SUCCESS) {
        call = "cublasLtMatmulAlgoCheck";
        s = cublasLtMatmulAlgoCheck(dev->blaslt, g->op, g->a_layout, g->b_layout,
                                    g->c_layout ? g->c_layout : g->d_layout, g->d_layout,
                                    &g->algo, &check);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        /* Refusals of the configuration are the baseline's problem, not the device's. */
        bool refused = s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE ||
                       s == CUBLAS_STATUS_ARCH_MISMATCH;
        char what[128];
        problem_text(g, what, sizeof what);
        st = pg_diag_set(d, refused ? PG_ERR_INPUT : PG_ERR_INFRA, NULL, 0, NULL,
                         "cuBLASLt refuses the pinned algorithm (%s) for %s: %s: %s (%s)", text,
                         what, call, cublasLtGetStatusName(s), cublasLtGetStatusString(s));
    } else if (check.workspaceSize > workspace_bytes) {
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                         "the pinned cuBLASLt algorithm (%s) needs %zu bytes of workspace, the "
                         "baseline gives %zu", text, check.workspaceSize, workspace_bytes);
    }
    if (st != PG_OK) {
        pg_blaslt_gemm_free(g);
        return st;
    }
    describe_choice(g, &g->algo, choice);
    /* Pinned: complete when cuBLASLt kept every attribute as it was set. */
    choice->config_reproduces = pg_blaslt_algo_equal(&choice->config, algo);
    choice->pinned = true;
    choice->workspace_bytes = workspace_bytes;
    *out = g;
    return PG_OK;
}
