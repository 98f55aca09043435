// params_struct.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), taking
// ONE by-value parameter struct in the style of template-library kernels: device pointers, sizes
// and the two 128-byte TMA descriptors at fixed, 64-byte aligned offsets. The GEMM itself is the
// proven wgmma + TMA pipeline of wgmma_tma.cu (tasks/common/gemm_wgmma_tile.cuh); only the
// interface differs.
//
// PTX signature: .entry gemm_bf16_nt_params_struct(.param .align 64 .b8 params[320])
//
// Layout of GemmParams (natural C layout, what offsetof gives; checked by the static_asserts
// below and bound field by field in params_struct.json):
//   offset   0  C       8 bytes  __nv_bfloat16 *   the output [M, ldc]
//   offset   8  A       8 bytes  const bf16 *      A's address (informational: the kernel reads A
//                                                  through tmap_a only)
//   offset  16  B       8 bytes  const bf16 *      B's address (likewise)
//   offset  24  M       4 bytes  uint32
//   offset  28  N       4 bytes  uint32
//   offset  32  K       4 bytes  uint32
//   offset  36  ldc     4 bytes  uint32            C's row stride in elements (= N)
//   offset  40  reserved 24 bytes, zero            (padding up to the first map's alignment)
//   offset  64  tmap_a  128 bytes                  A [M, K]: dims (K, M), box (64, 128), 128B swizzle
//   offset 192  tmap_b  128 bytes                  B [N, K]: dims (K, N), box (64, 256), 128B swizzle
//   size 320, alignment 64 (the maps' alignas(64)).
//
// Launch: grid (ceil_div(N, 256), ceil_div(M, 128), 1), block (384, 1, 1), dynamic shared
// memory 230464 bytes (GWT2_SMEM_BYTES). Every workload of the task (ragged M, N, K tails are
// zero-filled by TMA and clipped by the epilogue); K % 8 == 0 (the maps' 16-byte stride rule).
//
// The struct is a __grid_constant__ parameter, so &p.tmap_a is an address in the kernel's
// parameter space that cp.async.bulk.tensor and prefetch.tensormap accept, exactly like a
// by-value `const __grid_constant__ CUtensorMap` parameter.
#include <cuda_bf16.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/gemm_wgmma_tile.cuh"

struct GemmParams {
    __nv_bfloat16 *C;
    const __nv_bfloat16 *A;
    const __nv_bfloat16 *B;
    uint32_t M, N, K;
    uint32_t ldc;
    uint32_t reserved[6];
    sm90::TensorMap tmap_a;
    sm90::TensorMap tmap_b;
};

static_assert(offsetof(GemmParams, C) == 0, "C at 0");
static_assert(offsetof(GemmParams, A) == 8, "A at 8");
static_assert(offsetof(GemmParams, B) == 16, "B at 16");
static_assert(offsetof(GemmParams, M) == 24, "M at 24");
static_assert(offsetof(GemmParams, N) == 28, "N at 28");
static_assert(offsetof(GemmParams, K) == 32, "K at 32");
static_assert(offsetof(GemmParams, ldc) == 36, "ldc at 36");
static_assert(offsetof(GemmParams, reserved) == 40, "reserved at 40");
static_assert(offsetof(GemmParams, tmap_a) == 64, "tmap_a at 64");
static_assert(offsetof(GemmParams, tmap_b) == 192, "tmap_b at 192");
static_assert(sizeof(GemmParams) == 320, "320 bytes");
static_assert(alignof(GemmParams) == 64, "64-byte aligned");

extern "C" __global__ void __launch_bounds__(GWT2_THREADS, 1)
gemm_bf16_nt_params_struct(const __grid_constant__ GemmParams params)
{
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    uint32_t m_tile, n_tile;
    gwt2::grouped_tile(blockIdx.y * tiles_n + blockIdx.x, tiles_m, tiles_n, m_tile, n_tile);
    gwt2::gemm_tile_128x256(&params.tmap_a, &params.tmap_b, params.C, params.ldc, params.M,
                            params.N, params.K, m_tile * GWT2_BM, n_tile * GWT2_BN);
}
