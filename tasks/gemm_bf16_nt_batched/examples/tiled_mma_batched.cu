// tiled_mma_batched.cu — gemm_bf16_nt_batched: C[b] = A[b] · B[b]^T for b < batch, with
// A [batch, M, K], B [batch, N, K], C [batch, M, N] bf16 row-major (dense: batch b of A starts
// at element b·M·K, of B at b·N·K, of C at b·M·N), fp32 accumulation, C rounded to nearest even.
//
// Launch (tiled_mma_batched.json): grid (ceil_div(N,128), ceil_div(M,128), batch), block
// (256,1,1), dynamic shared memory BT_SMEM_BYTES = 98304 bytes (opt-in above 48 KiB).
// blockIdx.z is the batch. Requires K % 8 == 0 (the manifest's "supports": rows of A and B are
// whole 16-byte chunks, and so is every batch's start, b·M·K and b·N·K elements); M, N, K need
// not be multiples of the tile.
//
// The per-batch GEMM is gemm_bf16_nt's tiled_mma (tasks/common/gemm_tiled_mma.cuh, measured
// correct on the H200), written with the shared pieces of tasks/common/gemm_mma_tiles.cuh:
//   CTA tile 128 × 128 × 64, 8 warps as 2 (M) × 4 (N), warp tile 64 × 32 = 4 × 4
//   mma.sync.m16n8k16 bf16, 64 fp32 accumulators per thread; A and B tiles [row][k] of 128 bytes
//   per row, XOR-swizzled, loaded by 16-byte cp.async.cg with zero fill outside M, N, K; a
//   3-stage ring; fragments by ldmatrix.x4 (A: row l % 16, chunk 2kk + l / 16; B: row
//   8·(l / 16) + l % 8, chunk 2kk + (l / 8) % 2).
//   Epilogue: rows < M and columns < N only; bf16x2 stores when N is even (then b·M·N + row·N +
//   col is even for every even col), element-wise otherwise. Grouped CTA rasterisation inside
//   each batch.
#include <cuda_bf16.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/gemm_mma_tiles.cuh"

#define BT_STAGES 3
#define BT_STAGE_BYTES (2 * 16384)                     /* A tile, then B tile */
#define BT_SMEM_BYTES (BT_STAGES * BT_STAGE_BYTES)     /* 98304 */

extern "C" __global__ void __launch_bounds__(256, 2)
gemm_bf16_nt_batched_mma(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                         __nv_bfloat16 *__restrict__ C, uint32_t M, uint32_t N, uint32_t K)
{
    extern __shared__ __align__(128) unsigned char gemm_smem[];
    const uint32_t smem_base = msp::smem_u32(gemm_smem);

    // This CTA's batch.
    const size_t b = blockIdx.z;
    A += b * M * K;
    B += b * N * K;
    C += b * M * N;

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid & 31u;
    const uint32_t warp = tid >> 5;       // 0..7
    const uint32_t warp_m = warp >> 2;    // rows warp_m·64 .. +63 of the CTA tile
    const uint32_t warp_n = warp & 3u;    // columns warp_n·32 .. +31

    uint32_t tile_m, tile_n;
    gmt::raster(gridDim.x, gridDim.y, blockIdx.x, blockIdx.y, tile_m, tile_n);
    const uint32_t m0 = tile_m * 128u, n0 = tile_n * 128u;

    gmt::KMajorLoader<__nv_bfloat16> la, lb;
    la.init(A, M, K, m0, tid);
    lb.init(B, N, K, n0, tid);
    const uint32_t k_tiles = (K + 63u) / 64u;

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    // Prologue: K tiles 0 .. STAGES-2, one commit group each (empty when K is short).
#pragma unroll
    for (uint32_t s = 0; s < BT_STAGES - 1; ++s) {
        if (s < k_tiles) {
            la.issue(smem_base + s * BT_STAGE_BYTES, A, K, s);
            lb.issue(smem_base + s * BT_STAGE_BYTES + gmt::kTileBytes, B, K, s);
        }
        msp::cp_async_commit();
    }

    const uint32_t a_row = warp_m * 64u + (lane & 15u);                  // + 16·i
    const uint32_t a_chk = lane >> 4;                                    // + 2·kk
    const uint32_t b_row = warp_n * 32u + ((lane >> 4) << 3) + (lane & 7u);   // + 16·p
    const uint32_t b_chk = (lane >> 3) & 1u;                             // + 2·kk

    uint32_t stage = 0;                     // ring slot of K tile kt
    uint32_t load_stage = BT_STAGES - 1;    // ring slot of K tile kt + STAGES-1
    for (uint32_t kt = 0; kt < k_tiles; ++kt) {
        // Committed so far: (STAGES-1) + kt groups, tile kt in group kt: leaving STAGES-2
        // pending completes it; the barrier publishes all threads' copies and guarantees every
        // warp finished reading slot load_stage (tile kt-1) before it is refilled.
        msp::cp_async_wait<BT_STAGES - 2>();
        __syncthreads();

        const uint32_t next = kt + BT_STAGES - 1;
        if (next < k_tiles) {
            la.issue(smem_base + load_stage * BT_STAGE_BYTES, A, K, next);
            lb.issue(smem_base + load_stage * BT_STAGE_BYTES + gmt::kTileBytes, B, K, next);
        }
        msp::cp_async_commit();

        const uint32_t sa = smem_base + stage * BT_STAGE_BYTES;
        const uint32_t sb = sa + gmt::kTileBytes;
#pragma unroll
        for (uint32_t kk = 0; kk < 4; ++kk) {
            uint32_t af[4][4], bfr[2][4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                msp::ldmatrix_x4(af[i], sa + gmt::swz(a_row + 16u * i, a_chk + 2u * kk));
#pragma unroll
            for (int p = 0; p < 2; ++p)
                msp::ldmatrix_x4(bfr[p], sb + gmt::swz(b_row + 16u * p, b_chk + 2u * kk));
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    msp::mma_bf16_16816(acc[i][j], af[i], bfr[j >> 1][(j & 1) * 2],
                                        bfr[j >> 1][(j & 1) * 2 + 1]);
        }

        stage = (stage + 1 == BT_STAGES) ? 0u : stage + 1;
        load_stage = (load_stage + 1 == BT_STAGES) ? 0u : load_stage + 1;
    }
    msp::cp_async_wait<0>();   // only empty groups can be pending here

    // Epilogue: fragment element e of acc[i][j] is row m0 + warp_m·64 + 16i + g + 8·(e / 2),
    // column n0 + warp_n·32 + 8j + 2t + e % 2.
    const uint32_t g = lane >> 2, t4 = lane & 3u;
    const bool n_even = (N & 1u) == 0u;   // bf16x2 stores need 4-byte aligned addresses
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t row = m0 + warp_m * 64u + 16u * i + g + 8u * h;
            if (row >= M) continue;
            __nv_bfloat16 *crow = C + (size_t)row * N;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const uint32_t col = n0 + warp_n * 32u + 8u * j + 2u * t4;   // even
                const float v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
                if (n_even && col + 1u < N) {
                    *reinterpret_cast<__nv_bfloat162 *>(crow + col) = __floats2bfloat162_rn(v0, v1);
                } else {
                    if (col < N) crow[col] = __float2bfloat16_rn(v0);
                    if (col + 1u < N) crow[col + 1] = __float2bfloat16_rn(v1);
                }
            }
        }
    }
}
