// tile_schedule.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), whose
// tile order comes from a table in device memory that a setup launch builds from the sizes, in
// the style of kernels whose host code computes a tile schedule once per shape (a raster, a
// space-filling curve) and uploads it. Two entries:
//
//   gemm_bf16_nt_tile_schedule_setup(.param .u64 table, .param .u32 M, .param .u32 N)
//     grid (1, 1, 1), block (1, 1, 1); run as a setup launch (sizes and the workspace only, no
//     task tensor). Writes table[i] = (m_tile << 16) | n_tile for i = 0 .. T-1,
//     T = ceil_div(M, 128) · ceil_div(N, 256), in the grouped raster order of wgmma_tma.cu
//     (gwt2::grouped_tile: groups of 8 tile rows walk N together, so that concurrent CTAs share
//     their A and B tiles in L2), a permutation of the T tiles for every shape. A Hilbert-curve
//     order over the tile grid, tried first, was 2.3-2.7 % slower than this order at
//     4000x3000x4000 on the H200 (the same kernel, only the table differing; 2026-12-02).
//     Serial on purpose: T <= 64 x 28 = 1792 entries on this task's workloads, outside every
//     timed region.
//
//   gemm_bf16_nt_tile_schedule(.param .align 64 .b8 tmap_a[128], .param .align 64 .b8
//     tmap_b[128], .param .u64 C, .param .u64 table, .param .u32 M, N, K)
//     grid (T, 1, 1), block (384, 1, 1), dynamic shared memory 230464 bytes: CTA i computes tile
//     table[i] with the wgmma + TMA tile of wgmma_tma.cu
//     (tasks/common/gemm_wgmma_tile.cuh): 128 x 256 tiles, maps as in wgmma_tma.json.
//     A table entry outside the tile grid (a setup that did not run) leaves that CTA idle, so
//     the gate's unwritten-element count shows it instead of a fault.
//
// Every workload of the task (ragged edges as in wgmma_tma); K % 8 == 0 for the maps.
// Workspace "schedule" (tile_schedule.json): T · 4 bytes, written by the setup launch and kept
// for the GEMM launch.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/gemm_wgmma_tile.cuh"

extern "C" __global__ void gemm_bf16_nt_tile_schedule_setup(uint32_t *__restrict__ table,
                                                            unsigned int M, unsigned int N)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    const uint32_t tiles_m = (M + GWT2_BM - 1) / GWT2_BM;
    const uint32_t tiles_n = (N + GWT2_BN - 1) / GWT2_BN;
    for (uint32_t i = 0; i < tiles_m * tiles_n; ++i) {
        uint32_t m_tile, n_tile;
        gwt2::grouped_tile(i, tiles_m, tiles_n, m_tile, n_tile);
        table[i] = (m_tile << 16) | n_tile;
    }
}

extern "C" __global__ void __launch_bounds__(GWT2_THREADS, 1)
gemm_bf16_nt_tile_schedule(const __grid_constant__ sm90::TensorMap tmap_a,
                           const __grid_constant__ sm90::TensorMap tmap_b,
                           __nv_bfloat16 *__restrict__ C, const uint32_t *__restrict__ table,
                           unsigned int M, unsigned int N, unsigned int K)
{
    const uint32_t e = table[blockIdx.x];
    const uint32_t m0 = (e >> 16) * GWT2_BM, n0 = (e & 0xFFFFu) * GWT2_BN;
    if (m0 >= M || n0 >= N)
        return; // uniform for the CTA, before any barrier
    gwt2::gemm_tile_128x256(&tmap_a, &tmap_b, C, N, M, N, K, m0, n0);
}
