// wgmma_fp8_block.cu — gemm_e4m3_tn_block on Hopper's asynchronous tensor cores, DeepSeek-V3's
// fine-grained fp8 scaling:
//
//   C[m][n] = Σ_kb scale_A[kb][m] · scale_B[n / 128][kb] · Σ_{k in block kb} A[m][k] · B[n][k]
//
//   A [M,K], B [N,K] e4m3 (K contiguous); scale_A [ceil(K/128), M] fp32 (one per row and 128 of
//   K, M contiguous); scale_B [ceil(N/128), ceil(K/128)] fp32 (one per 128 x 128 block of B);
//   fp32 accumulation; C [M,N] bf16.
//
// The pipeline of ../../gemm_e4m3_tn/examples/wgmma_fp8.cu (tasks/common/gemm_fp8_wgmma.cuh):
// 128 x 128 CTA tiles, K slices of 128 through a 4-stage TMA + mbarrier ring, two consumer
// warpgroups issuing 4 x wgmma m64n128k32 e4m3 per slice into fresh registers. A K slice is
// exactly one scale block and a CTA's 128 columns exactly one block of B, so promoting a slice's
// partial sums to the fp32 accumulators multiplies each by its row's scale_A[kb][m] times the
// CTA's scale_B[n0 / 128][kb] (acc = fma(part, scale, acc)); the three scales a thread needs
// per slice are loaded before it waits for the slice's tiles. Rows past M take scale 0 and are
// never stored.
//
// Launch (wgmma_fp8_block.json): as wgmma_fp8.json (grid (ceil_div(N, 128), ceil_div(M, 128), 1),
// block 384, 132160 bytes of dynamic shared memory, tensor maps (K, M) and (K, N) with boxes
// (128, 128) and 128-byte swizzle), with the scale tensors' pointers in place of the scalars.
#include "../../common/gemm_fp8_wgmma.cuh"

extern "C" __global__ void __launch_bounds__(GF8_THREADS, 1)
gemm_e4m3_tn_block_wgmma(const __grid_constant__ sm90::TensorMap tmap_a,
                         const __grid_constant__ sm90::TensorMap tmap_b,
                         __nv_bfloat16 *__restrict__ C, const float *__restrict__ scale_a,
                         const float *__restrict__ scale_b, unsigned int M, unsigned int N,
                         unsigned int K)
{
    gf8::gemm_tile<true>(&tmap_a, &tmap_b, C, scale_a, scale_b, M, N, K);
}
