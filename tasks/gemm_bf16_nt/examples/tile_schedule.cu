// tile_schedule.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), whose
// tile order comes from a table in device memory that a setup launch builds from the sizes, in
// the style of kernels whose host code computes a space-filling-curve schedule once per shape.
// Two entries:
//
//   gemm_bf16_nt_tile_schedule_setup(.param .u64 table, .param .u32 M, .param .u32 N)
//     grid (1, 1, 1), block (1, 1, 1); run as a setup launch (sizes and the workspace only, no
//     task tensor). Writes table[i] = (m_tile << 16) | n_tile for i = 0 .. T-1,
//     T = ceil_div(M, 128) · ceil_div(N, 256), in Hilbert-curve order over the tile grid: the
//     curve of the smallest power-of-two square (side P) covering the grid is walked d = 0 ..
//     P²-1 and its cells inside the grid are appended. The curve visits every cell of the square
//     exactly once, so the table is a permutation of the T tiles for every shape (no size
//     assumption; the workspace holds exactly T entries). Serial on purpose: T <= 64 x 28 = 1792
//     entries on this task's workloads (P² <= 4096 curve cells), outside every timed region.
//
//   gemm_bf16_nt_tile_schedule(.param .align 64 .b8 tmap_a[128], .param .align 64 .b8
//     tmap_b[128], .param .u64 C, .param .u64 table, .param .u32 M, N, K)
//     grid (T, 1, 1), block (384, 1, 1), dynamic shared memory 197696 bytes: CTA i computes tile
//     table[i] with the proven wgmma + TMA tile of wgmma_tma.cu
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

// Cell d of the Hilbert curve on a P x P grid (P a power of two) as (x, y): each level s (1, 2,
// 4, ...) reads two bits of d, picks the quadrant and rotates / reflects the sub-curve already
// placed so that consecutive cells stay adjacent.
__device__ __forceinline__ void hilbert_cell(uint32_t P, uint32_t d, uint32_t &x, uint32_t &y)
{
    x = 0;
    y = 0;
    for (uint32_t s = 1; s < P; s <<= 1) {
        const uint32_t qx = 1u & (d >> 1);
        const uint32_t qy = 1u & (d ^ qx);
        if (qy == 0) {
            if (qx == 1) {
                x = s - 1u - x;
                y = s - 1u - y;
            }
            const uint32_t tmp = x;
            x = y;
            y = tmp;
        }
        x += s * qx;
        y += s * qy;
        d >>= 2;
    }
}

extern "C" __global__ void gemm_bf16_nt_tile_schedule_setup(uint32_t *__restrict__ table,
                                                            unsigned int M, unsigned int N)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    const uint32_t tiles_m = (M + GWT2_BM - 1) / GWT2_BM;
    const uint32_t tiles_n = (N + GWT2_BN - 1) / GWT2_BN;
    uint32_t P = 1;
    while (P < tiles_m || P < tiles_n)
        P <<= 1;
    uint32_t i = 0;
    for (uint32_t d = 0; d < P * P; ++d) {
        uint32_t x, y; // x along N (columns of tiles), y along M
        hilbert_cell(P, d, x, y);
        if (x < tiles_n && y < tiles_m)
            table[i++] = (y << 16) | x;
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
    gwt2::gemm_tile_128x256(&tmap_a, &tmap_b, C, N, M, N, K, m0, n0, false);
}
