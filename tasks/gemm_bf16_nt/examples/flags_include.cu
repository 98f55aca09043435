// flags_include.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), the
// wgmma_tma GEMM (tasks/common/gemm_wgmma_tile.cuh: 128 x 256 x 64 tiles, 4-stage TMA + mbarrier
// ring, one producer and two consumer warpgroups, wgmma m64n256k16) compiled the way a
// repository's kernel often is: its configuration in a header of the repository's include
// folder (include/gemm_config.cuh) that needs -std=c++20, --expt-relaxed-constexpr and a -D
// macro, and a -maxrregcount cap for ptxas. Without the manifest's "compile" options it does
// not compile (the header's #error lines say which is missing).
//
// PTX signature: .entry gemm_bf16_nt_flags_include(.param .align 64 .b8 tmap_a[128],
//   .param .align 64 .b8 tmap_b[128], .param .u64 C, .param .u32 M, .param .u32 N,
//   .param .u32 K) — as wgmma_tma.
// Launch: grid (ceil_div(N, 256), ceil_div(M, 128), 1), block (384, 1, 1), dynamic shared
// memory 230464 bytes (GWT2_SMEM_BYTES). Every workload of the task.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/gemm_wgmma_tile.cuh"
#include "gemm_config.cuh"

static_assert(gemm_cfg::group_m == 8, "the shared body's grouped tile order walks 8 tile rows");

template <gemm_cfg::SharedBodyTile T>
__device__ __forceinline__ void run_tile(const sm90::TensorMap *tmap_a,
                                         const sm90::TensorMap *tmap_b, __nv_bfloat16 *C,
                                         uint32_t M, uint32_t N, uint32_t K)
{
    // Host-only constexpr functions at run time in device code: --expt-relaxed-constexpr.
    const uint32_t tiles_m = gemm_cfg::ceil_div(M, T::bm), tiles_n = gemm_cfg::ceil_div(N, T::bn);
    uint32_t m_tile, n_tile;
    gwt2::grouped_tile(blockIdx.y * tiles_n + blockIdx.x, tiles_m, tiles_n, m_tile, n_tile);
    gwt2::gemm_tile_128x256(tmap_a, tmap_b, C, N, M, N, K, m_tile * T::bm, n_tile * T::bn);
}

extern "C" __global__ void __launch_bounds__(GWT2_THREADS, 1)
gemm_bf16_nt_flags_include(const __grid_constant__ sm90::TensorMap tmap_a,
                           const __grid_constant__ sm90::TensorMap tmap_b,
                           __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N,
                           unsigned int K)
{
    run_tile<gemm_cfg::Tile<128, 256>>(&tmap_a, &tmap_b, C, M, N, K);
}
