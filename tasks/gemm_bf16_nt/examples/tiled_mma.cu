// tiled_mma.cu — gemm_bf16_nt: C[M,N] = A[M,K] · B[N,K]^T in bf16 with fp32 accumulation,
// on tensor cores with mma.sync.m16n8k16 (bf16), ldmatrix.x4 and a 3-stage cp.async pipeline.
// The kernel body is shared with the fp16 task: see tasks/common/gemm_tiled_mma.cuh for the
// tiling, the shared-memory swizzle and the bounds handling (ragged M, N, K; K % 8 == 0).
//
// Launch (tiled_mma.json): grid (ceil_div(N,128), ceil_div(M,128), 1), block (256,1,1),
// dynamic shared memory 98304 bytes.
#include "../../common/gemm_tiled_mma.cuh"

extern "C" __global__ void __launch_bounds__(GTM_THREADS, 2)
gemm_bf16_nt_tiled_mma(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                       __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N, unsigned int K)
{
    gtm::gemm_nt_tiled_mma<__nv_bfloat16>(A, B, C, M, N, K);
}
