// wgmma_fp8.cu — gemm_e4m3_tn on Hopper's asynchronous tensor cores:
//
//   C[M,N] = (scale_A · A[M,K]) · (scale_B · B[N,K])^T    A, B e4m3 row-major (K contiguous),
//                                                         scale_A, scale_B fp32 scalars in
//                                                         device memory, fp32 accumulation,
//                                                         C bf16 rounded to nearest even.
//
// The pipeline of tasks/gemm_bf16_nt/examples/wgmma_tma.cu in its 128 x 128 form, with fp8
// operands: TMA brings 128B-swizzled tiles of 128 rows x 128 bytes (= 128 e4m3 along K) into a
// 4-stage mbarrier ring, a producer warpgroup feeds two consumer warpgroups, and each consumer
// issues per K slice 4 x wgmma.mma_async.m64n128k32.f32.e4m3.e4m3 (k = 0, 32, 64, 96; 32 bytes
// of the row each, so the descriptors step exactly as the bf16 k16 steps do).
//
// Launch (wgmma_fp8.json):
//   grid  = (ceil_div(N, 128), ceil_div(M, 128), 1), block = (384, 1, 1),
//   dynamic shared memory = GF8_SMEM_BYTES = 132160 bytes,
//   params = (tensor map of A, tensor map of B, C, scale_A, scale_B, M, N, K):
//     A's map: dims (K, M) innermost first, box (128, 128), swizzle 128B, oob_fill none;
//     B's map: dims (K, N), box (128, 128), swizzle 128B, oob_fill none.
//   Requirement: K % 16 == 0 (the task's own rule: 16-byte rows).
//
// ---- Promotion ------------------------------------------------------------------------------
// Hopper's fp8 tensor-core accumulation keeps fewer bits than fp32 (DeepSeek-V3 technical
// report, section 3.3.2: about 14 bits), which over K = 5120 costs accuracy. Each consumer
// therefore accumulates one K slice (128 = 4 wgmma) into a fresh set of 64 registers (the first
// wgmma of the slice with scale-d 0), waits for it, and adds it to the fp32 accumulators: the
// "promotion to CUDA cores" of that report, every 128 elements of K. The wait per slice costs
// some overlap; the other stages of the ring keep TMA running meanwhile.
//
// ---- Ragged shapes ---------------------------------------------------------------------------
// As in wgmma_tma.cu: TMA zero-fills boxes past M, N or K (and still counts the whole box's
// bytes), and the epilogue stores only rows < M and columns < N.
//
// ---- Epilogue ---------------------------------------------------------------------------------
// The scales are read once per thread (two fp32 loads); C = bf16(acc · (scale_A · scale_B)),
// pairs of columns as one bf16x2 when N is even.
#include "../../common/gemm_fp8_wgmma.cuh"

extern "C" __global__ void __launch_bounds__(GF8_THREADS, 1)
gemm_e4m3_tn_wgmma(const __grid_constant__ sm90::TensorMap tmap_a,
                   const __grid_constant__ sm90::TensorMap tmap_b, __nv_bfloat16 *__restrict__ C,
                   const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                   unsigned int M, unsigned int N, unsigned int K)
{
    gf8::gemm_tile<false>(&tmap_a, &tmap_b, C, scale_a, scale_b, M, N, K);
}
