// naive.cu — gemm_bf16_nt reference-style kernel: C[M,N] = A[M,K] · B[N,K]^T.
//
// One thread per element of C: thread (x, y) of the grid computes C[m, n] with n = global x and
// m = global y, as a plain fp32 fused-multiply-add loop over k = 0 .. K-1 in order, then rounds
// once to bf16 (round to nearest even). Threads outside M × N return before touching memory.
// No shared memory, no tensor cores: correct on every shape, and far slower than cuBLAS.
//
// Launch (naive.json): grid (ceil_div(N,16), ceil_div(M,16), 1), block (16,16,1).
#include <cuda_bf16.h>

extern "C" __global__ void gemm_bf16_nt_naive(const __nv_bfloat16 *__restrict__ A,
                                              const __nv_bfloat16 *__restrict__ B,
                                              __nv_bfloat16 *__restrict__ C, unsigned int M,
                                              unsigned int N, unsigned int K)
{
    const unsigned int n = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N)
        return;
    const __nv_bfloat16 *a = A + (size_t)m * K;   // row m of A
    const __nv_bfloat16 *b = B + (size_t)n * K;   // row n of B = column n of B^T
    float acc = 0.0f;
    for (unsigned int k = 0; k < K; ++k)
        acc = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), acc);
    C[(size_t)m * N + n] = __float2bfloat16_rn(acc);
}
