/* The cuBLASLt baseline GEMM: descriptors for row-major C = A · Bᵀ, the heuristic's candidates
 * timed on the device and the fastest kept (or a stored algorithm re-created from its
 * configuration attributes), then enqueued on the device stream. */
#include "device_internal.h"

#include <cublasLt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    cublasLtMatrixLayout_t a_layout, b_layout, c_layout;
    cublasLtMatmulAlgo_t algo;
    CUdeviceptr a, b, c; /* see the layout comment in pg_blaslt_gemm_prepare */
    size_t a_bytes, b_bytes, c_bytes;
    CUdeviceptr workspace;
    size_t workspace_bytes;
    cudaDataType_t type;
    float alpha, beta; /* read by cublasLtMatmul at call time (host pointer mode) */
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

static pg_status matmul_on(pg_blaslt_gemm *g, const cublasLtMatmulAlgo_t *algo, CUdeviceptr a,
                           CUdeviceptr b, CUdeviceptr c, pg_diag *d)
{
    pg_status st = pg_dev_enter(g->dev, d);
    if (st != PG_OK)
        return st;
    /* Matrix "A" of cuBLASLt is our B buffer and its "B" our A buffer (see prepare). */
    cublasStatus_t s = cublasLtMatmul(
        g->dev->blaslt, g->op, &g->alpha, (const void *)(uintptr_t)b, g->a_layout,
        (const void *)(uintptr_t)a, g->b_layout, &g->beta, (const void *)(uintptr_t)c,
        g->c_layout, (void *)(uintptr_t)c, g->c_layout, algo, (void *)(uintptr_t)g->workspace,
        g->workspace_bytes, (cudaStream_t)g->dev->stream);
    return lt_check(s, "cublasLtMatmul", d);
}

static pg_status matmul(pg_blaslt_gemm *g, const cublasLtMatmulAlgo_t *algo, pg_diag *d)
{
    return matmul_on(g, algo, g->a, g->b, g->c, d);
}

pg_status pg_blaslt_gemm_enqueue(pg_blaslt_gemm *g, pg_diag *d)
{
    return matmul(g, &g->algo, d);
}

pg_status pg_blaslt_gemm_enqueue_on(pg_blaslt_gemm *g, const pg_buffer *A, const pg_buffer *B,
                                    pg_buffer *C, pg_diag *d)
{
    if (!A || !B || !C || pg_buffer_bytes(A) < g->a_bytes || pg_buffer_bytes(B) < g->b_bytes ||
        pg_buffer_bytes(C) < g->c_bytes)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt GEMM: the buffers given are smaller than the prepared ones");
    return matmul_on(g, &g->algo, pg_buffer_address(A), pg_buffer_address(B),
                     pg_buffer_address(C), d);
}

void pg_blaslt_gemm_free(pg_blaslt_gemm *g)
{
    if (!g)
        return;
    if (g->op)
        cublasLtMatmulDescDestroy(g->op);
    if (g->a_layout)
        cublasLtMatrixLayoutDestroy(g->a_layout);
    if (g->b_layout)
        cublasLtMatrixLayoutDestroy(g->b_layout);
    if (g->c_layout)
        cublasLtMatrixLayoutDestroy(g->c_layout);
    if (g->workspace && !g->dev->hung && g->dev->cu->CtxSetCurrent(g->dev->ctx) == CUDA_SUCCESS)
        g->dev->cu->MemFree(g->workspace);
    free(g);
}

/* Descriptors for row-major C[M,N] = A[M,K] · B[N,K]ᵀ in cuBLASLt's column-major world.
 *
 * A row-major R x C matrix with leading dimension C is, read column-major, its transpose: a
 * C x R matrix with ld C. So the A buffer is the column-major K x M matrix Aᵀ (ld K), the B
 * buffer the K x N matrix Bᵀ (ld K), and the C buffer the N x M matrix Cᵀ (ld N). Row-major
 * C = A·Bᵀ is therefore Cᵀ = B·Aᵀ in column-major terms: an (N x K)·(K x M) product with
 * m = N, n = M, k = K, where
 *   cuBLASLt "A" = the B buffer, layout K x N, ld K, TRANSA = T  (op gives N x K = B),
 *   cuBLASLt "B" = the A buffer, layout K x M, ld K, TRANSB = N  (K x M = Aᵀ),
 *   cuBLASLt "C" = "D" = the C buffer, layout N x M, ld N.
 * This "TN" form is also the one cuBLASLt supports best for 16-bit inputs. */
static pg_status describe_problem(pg_blaslt_gemm *g, cudaDataType_t type, int64_t M, int64_t N,
                                  int64_t K, pg_diag *d)
{
    pg_status st = lt_check(cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                            "cublasLtMatmulDescCreate", d);
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                                     sizeof(ta)),
                      "cublasLtMatmulDescSetAttribute(TRANSA)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                                     sizeof(tb)),
                      "cublasLtMatmulDescSetAttribute(TRANSB)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatrixLayoutCreate(&g->a_layout, type, (uint64_t)K, (uint64_t)N, K),
                      "cublasLtMatrixLayoutCreate(A = B buffer)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatrixLayoutCreate(&g->b_layout, type, (uint64_t)K, (uint64_t)M, K),
                      "cublasLtMatrixLayoutCreate(B = A buffer)", d);
    if (st == PG_OK)
        st = lt_check(cublasLtMatrixLayoutCreate(&g->c_layout, type, (uint64_t)N, (uint64_t)M, N),
                      "cublasLtMatrixLayoutCreate(C = D = C buffer)", d);
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
    cublasStatus_t s = cublasLtMatmulAlgoInit(g->dev->blaslt, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                              g->type, g->type, g->type, g->type, c->algo_id,
                                              algo);
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

/* Checks, the handle, the workspace and the descriptors shared by both ways of preparing. */
static pg_status setup(pg_device *dev, pg_dtype dtype, int64_t M, int64_t N, int64_t K,
                       const pg_buffer *A, const pg_buffer *B, pg_buffer *C,
                       size_t workspace_bytes, pg_blaslt_gemm **out, pg_diag *d)
{
    *out = NULL;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    cudaDataType_t type;
    if (dtype == PG_DTYPE_BF16)
        type = CUDA_R_16BF;
    else if (dtype == PG_DTYPE_FP16)
        type = CUDA_R_16F;
    else
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline takes bf16 or fp16, not %s", pg_dtype_name(dtype));
    if (M <= 0 || N <= 0 || K <= 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline: M=%lld N=%lld K=%lld must be positive",
                           (long long)M, (long long)N, (long long)K);
    unsigned long long esz = pg_dtype_size(dtype);
    if ((unsigned long long)M * (unsigned long long)K * esz > pg_buffer_bytes(A) ||
        (unsigned long long)N * (unsigned long long)K * esz > pg_buffer_bytes(B) ||
        (unsigned long long)M * (unsigned long long)N * esz > pg_buffer_bytes(C))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuBLASLt baseline %lldx%lldx%lld: a buffer is too small",
                           (long long)M, (long long)N, (long long)K);
    pg_blaslt_gemm *g = calloc(1, sizeof(*g));
    if (!g)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    g->dev = dev;
    g->type = type;
    g->a = (CUdeviceptr)pg_buffer_address(A);
    g->b = (CUdeviceptr)pg_buffer_address(B);
    g->c = (CUdeviceptr)pg_buffer_address(C);
    g->a_bytes = pg_buffer_bytes(A);
    g->b_bytes = pg_buffer_bytes(B);
    g->c_bytes = pg_buffer_bytes(C);
    g->alpha = 1.0f;
    g->beta = 0.0f;
    g->workspace_bytes = workspace_bytes;
    st = handle(dev, d);
    if (st == PG_OK && workspace_bytes > 0)
        st = pg_dev_check(dev, dev->cu->MemAlloc(&g->workspace, workspace_bytes), PG_ERR_INFRA,
                          "cuMemAlloc(cuBLASLt workspace)", d);
    if (st == PG_OK)
        st = describe_problem(g, type, M, N, K, d);
    if (st != PG_OK) {
        pg_blaslt_gemm_free(g);
        return st;
    }
    *out = g;
    return PG_OK;
}

pg_status pg_blaslt_gemm_prepare(pg_device *dev, pg_dtype dtype, int64_t M, int64_t N, int64_t K,
                                 const pg_buffer *A, const pg_buffer *B, pg_buffer *C,
                                 int max_candidates, pg_blaslt_gemm **out, pg_blaslt_choice *choice,
                                 pg_diag *d)
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
    pg_status st = setup(dev, dtype, M, N, K, A, B, C, PG_BLASLT_WORKSPACE, &g, d);
    if (st != PG_OK)
        return st;
    st = lt_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", d);
    uint64_t ws = PG_BLASLT_WORKSPACE;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulPreferenceSetAttribute(
                          pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
                      "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", d);
    int returned = 0;
    if (st == PG_OK)
        st = lt_check(cublasLtMatmulAlgoGetHeuristic(dev->blaslt, g->op, g->a_layout, g->b_layout,
                                                     g->c_layout, g->c_layout, pref,
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
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                         "cuBLASLt: none of %d heuristic candidates for %lldx%lldx%lld %s ran%s%s",
                         returned, (long long)M, (long long)N, (long long)K, pg_dtype_name(dtype),
                         first_error[0] ? "; " : "", first_error);
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

pg_status pg_blaslt_gemm_prepare_pinned(pg_device *dev, pg_dtype dtype, int64_t M, int64_t N,
                                        int64_t K, const pg_buffer *A, const pg_buffer *B,
                                        pg_buffer *C, const pg_blaslt_algo *algo,
                                        size_t workspace_bytes, pg_blaslt_gemm **out,
                                        pg_blaslt_choice *choice, pg_diag *d)
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
    pg_status st = setup(dev, dtype, M, N, K, A, B, C, workspace_bytes, &g, d);
    if (st != PG_OK)
        return st;
    const char *call = "";
    cublasStatus_t s = build_algo(g, algo, &g->algo, &call);
    cublasLtMatmulHeuristicResult_t check;
    memset(&check, 0, sizeof check);
    if (s == CUBLAS_STATUS_SUCCESS) {
        call = "cublasLtMatmulAlgoCheck";
        s = cublasLtMatmulAlgoCheck(dev->blaslt, g->op, g->a_layout, g->b_layout, g->c_layout,
                                    g->c_layout, &g->algo, &check);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        /* Refusals of the configuration are the baseline's problem, not the device's. */
        bool refused = s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE ||
                       s == CUBLAS_STATUS_ARCH_MISMATCH;
        st = pg_diag_set(d, refused ? PG_ERR_INPUT : PG_ERR_INFRA, NULL, 0, NULL,
                         "cuBLASLt refuses the pinned algorithm (%s) for %lldx%lldx%lld %s: %s: "
                         "%s (%s)",
                         text, (long long)M, (long long)N, (long long)K, pg_dtype_name(dtype),
                         call, cublasLtGetStatusName(s), cublasLtGetStatusString(s));
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
