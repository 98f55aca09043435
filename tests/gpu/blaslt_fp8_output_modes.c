/* Which fp8 output modes the installed cuBLASLt runs on this GPU (issue 17: "D's amax/scale
 * where the baseline supports it"): an e4m3 × e4m3 TN GEMM (M = N = K = 256, fp32 compute and
 * scale type, per-tensor A and B scales) with D of type bf16, fp16, fp32 or e4m3, each with and
 * without CUBLASLT_MATMUL_DESC_D_SCALE_POINTER and CUBLASLT_MATMUL_DESC_AMAX_D_POINTER. For
 * each mode: the heuristic's status and algorithm count, then cublasLtMatmul's status and, when
 * it ran, the amax it wrote (all inputs 1.0, so the exact amax is K = 256, times the D scale
 * where cuBLASLt applies it after the amax). One row per mode; nothing is judged beyond the plain
 * mode (no D scale, no amax) having to run: the table is the record. Exit 0, 1 when the plain
 * bf16 mode fails, 77 without a GPU ("SKIP: <reason>").
 * Uses the CUDA runtime and cuBLASLt directly: a fact about the library, not about ptxgate. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

enum { DIM = 256, WS_BYTES = 32 << 20 };

typedef struct {
    cudaDataType d_type;
    const char *d_name;
    int d_scale, amax;
} mode;

/* scales: A's, B's and D's scale 64 bytes apart (cuBLASLt wants scale pointers aligned; three
 * neighbouring floats made even the plain mode NOT_SUPPORTED at cublasLtMatmul). C is its own
 * buffer (beta = 0): an in-place C = D of another type is refused. */
static int run_mode(cublasLtHandle_t h, const mode *md, void *A, void *B, void *C, void *D,
                    void *ws, float *scales, float *amax)
{
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL, ld = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    float *sa = scales, *sb = scales + 16, *sd = scales + 32;
    size_t ws_bytes = WS_BYTES;
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
    if (md->d_scale)
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd);
    if (md->amax)
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amax,
                                       sizeof amax);
    /* fp8 D takes a C of bf16 (cuBLASLt's fp8 table: C is never fp8) */
    cudaDataType c_type = md->d_type == CUDA_R_8F_E4M3 ? CUDA_R_16BF : md->d_type;
    cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, DIM, DIM, DIM);
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, DIM, DIM, DIM);
    cublasLtMatrixLayoutCreate(&lc, c_type, DIM, DIM, DIM);
    cublasLtMatrixLayoutCreate(&ld, md->d_type, DIM, DIM, DIM);
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                         sizeof ws_bytes);
    cublasLtMatmulHeuristicResult_t r[4];
    int n = 0;
    cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, ld, pref, 4, r, &n);
    cublasStatus_t ms = CUBLAS_STATUS_NOT_SUPPORTED;
    cudaMemset(amax, 0, sizeof *amax);
    cudaMemset(D, 0, (size_t)DIM * DIM * 4);
    float one = 1.0f, zero = 0.0f;
    if (hs == CUBLAS_STATUS_SUCCESS && n > 0)
        ms = cublasLtMatmul(h, op, &one, A, la, B, lb, &zero, C, lc, D, ld, &r[0].algo, ws,
                            ws_bytes, 0);
    cudaError_t ce = cudaDeviceSynchronize();
    float got = -1;
    cudaMemcpy(&got, amax, sizeof got, cudaMemcpyDeviceToHost);
    char ran[64] = "-";
    if (ms == CUBLAS_STATUS_SUCCESS && ce == cudaSuccess && md->amax)
        snprintf(ran, sizeof ran, "%g", got);
    printf("| %-5s | %-7s | %-4s | %-28s | %5d | %-28s | %s |\n", md->d_name,
           md->d_scale ? "yes" : "no", md->amax ? "yes" : "no", cublasLtGetStatusName(hs), n,
           n > 0 ? cublasLtGetStatusName(ms) : "(not called)", ran);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
    return ms == CUBLAS_STATUS_SUCCESS && ce == cudaSuccess;
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (prop.major < 9) {
        printf("SKIP: %s (sm_%d%d) has no fp8 tensor cores\n", prop.name, prop.major, prop.minor);
        return 77;
    }
    void *A = NULL, *B = NULL, *C = NULL, *D = NULL, *ws = NULL;
    float *scales = NULL, *amax = NULL;
    if (cudaMalloc(&A, DIM * DIM) || cudaMalloc(&B, DIM * DIM) ||
        cudaMalloc(&C, (size_t)DIM * DIM * 4) || cudaMalloc(&D, (size_t)DIM * DIM * 4) ||
        cudaMalloc(&ws, WS_BYTES) || cudaMalloc((void **)&scales, 48 * sizeof(float)) ||
        cudaMalloc((void **)&amax, sizeof(float))) {
        printf("FAIL: cudaMalloc\n");
        return 1;
    }
    cudaMemset(A, 0x38, DIM * DIM); /* e4m3 0x38 = 1.0 */
    cudaMemset(B, 0x38, DIM * DIM);
    float host_scales[48] = {0};
    host_scales[0] = host_scales[16] = 1.0f; /* A, B */
    host_scales[32] = 0.5f;                  /* D */
    cudaMemset(C, 0, (size_t)DIM * DIM * 4);
    cudaMemcpy(scales, host_scales, sizeof host_scales, cudaMemcpyHostToDevice);
    cublasLtHandle_t h;
    if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("FAIL: cublasLtCreate\n");
        return 1;
    }
    printf("%s, cuBLASLt %zu; e4m3 x e4m3 TN, M = N = K = %d, fp32 compute, A and B scales 1, "
           "D scale 0.5 where set; exact amax of D = %d\n\n",
           prop.name, cublasLtGetVersion(), DIM, DIM);
    printf("| D | D scale | amax | heuristic | algos | matmul | amax written |\n");
    printf("|---|---|---|---|--:|---|---|\n");
    static const mode modes[] = {
        {CUDA_R_16BF, "bf16", 0, 0}, {CUDA_R_16BF, "bf16", 0, 1}, {CUDA_R_16BF, "bf16", 1, 0},
        {CUDA_R_16F, "fp16", 0, 1},  {CUDA_R_16F, "fp16", 1, 0},  {CUDA_R_32F, "fp32", 0, 1},
        {CUDA_R_32F, "fp32", 1, 0},  {CUDA_R_8F_E4M3, "e4m3", 1, 0}, {CUDA_R_8F_E4M3, "e4m3", 1, 1},
    };
    int plain_ok = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int ok = run_mode(h, &modes[i], A, B, C, D, ws, scales, amax);
        if (i == 0)
            plain_ok = ok;
    }
    cublasLtDestroy(h);
    if (!plain_ok) {
        printf("FAIL: the plain bf16-output mode did not run\n");
        return 1;
    }
    printf("\nPASS (the table is the record)\n");
    return 0;
}
