// mma_tf32.cu — gemm_tf32_tn: C[M,N] = A[M,K] · B[N,K]^T with fp32 A, B, C (row-major, K
// contiguous in A and B: cuBLAS's "TN"), on tensor cores in tf32: every input element is
// rounded with cvt.rna.tf32.f32 (to nearest, ties away) and multiplied with
// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, fp32 accumulation.
//
// Launch (mma_tf32.json): grid (ceil_div(N,128), ceil_div(M,128), 1), block (256,1,1), dynamic
// shared memory TF_SMEM_BYTES = 98304 bytes (opt-in above 48 KiB). Requires K % 4 == 0 (rows of
// 16-byte chunks; the manifest's "supports"); M, N, K need not be multiples of the tile.
//
// Structure (the byte layout of gemm_bf16_nt's tiled_mma with 4-byte elements):
//   CTA tile 128 (M) × 128 (N) × 32 (K), 8 warps as 2 (M) × 4 (N), warp tile 64 × 32 = 4 m16
//   tiles × 4 n8 tiles, 64 fp32 accumulators per thread.
//   Shared: 3 stages × (A 128 × 32 + B 128 × 32) fp32 = 3 × 32 KiB; rows of 128 bytes, XOR
//   swizzle and cp.async loader of tasks/common/gemm_mma_tiles.cuh (zero fill outside M, N, K).
//   Fragments: per k8 step kk (4 per K tile) a 16 × 8 tf32 A block is 16 rows × 32 bytes = two
//   16-byte chunks, i.e. four 8×8 b16 matrices, so ldmatrix.x4 with lane address (row l % 16,
//   chunk 2kk + l / 16) gives a0..a3 exactly (mma_sync_ptx.cuh: read as words, ldmatrix
//   register i of lane l is word l % 4 of row l / 4 of matrix i): matrix 0 = rows 0-7 k 0-3
//   (a0), 1 = rows 8-15 k 0-3 (a1), 2 = rows 0-7 k 4-7 (a2), 3 = rows 8-15 k 4-7 (a3). B [n][k]
//   likewise: lane address (row 8·(l / 16) + l % 8, chunk 2kk + (l / 8) % 2) gives b0, b1 of
//   n tile 2p and b0, b1 of n tile 2p + 1. Every fragment register is then rounded to tf32.
//   Epilogue: rows < M and columns < N only; 8-byte (float2) stores when N is even, element-wise
//   otherwise. Grouped CTA rasterisation (8 tile rows walk N together).
#include <stddef.h>
#include <stdint.h>

#include "../../common/gemm_mma_tiles.cuh"

#define TF_STAGES 3
#define TF_STAGE_BYTES (2 * 16384)                    /* A tile, then B tile */
#define TF_SMEM_BYTES (TF_STAGES * TF_STAGE_BYTES)    /* 98304 */

extern "C" __global__ void __launch_bounds__(256, 2)
gemm_tf32_tn_mma(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                 uint32_t M, uint32_t N, uint32_t K)
{
    extern __shared__ __align__(128) unsigned char gemm_smem[];
    const uint32_t smem_base = msp::smem_u32(gemm_smem);

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid & 31u;
    const uint32_t warp = tid >> 5;       // 0..7
    const uint32_t warp_m = warp >> 2;    // rows warp_m·64 .. +63 of the CTA tile
    const uint32_t warp_n = warp & 3u;    // columns warp_n·32 .. +31

    uint32_t tile_m, tile_n;
    gmt::raster(gridDim.x, gridDim.y, blockIdx.x, blockIdx.y, tile_m, tile_n);
    const uint32_t m0 = tile_m * 128u, n0 = tile_n * 128u;

    gmt::KMajorLoader<float> la, lb;
    la.init(A, M, K, m0, tid);
    lb.init(B, N, K, n0, tid);
    const uint32_t k_tiles = (K + 31u) / 32u;

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    // Prologue: K tiles 0 .. STAGES-2, one commit group each (empty when K is short).
#pragma unroll
    for (uint32_t s = 0; s < TF_STAGES - 1; ++s) {
        if (s < k_tiles) {
            la.issue(smem_base + s * TF_STAGE_BYTES, A, K, s);
            lb.issue(smem_base + s * TF_STAGE_BYTES + gmt::kTileBytes, B, K, s);
        }
        msp::cp_async_commit();
    }

    const uint32_t a_row = warp_m * 64u + (lane & 15u);                  // + 16·i
    const uint32_t a_chk = lane >> 4;                                    // + 2·kk
    const uint32_t b_row = warp_n * 32u + ((lane >> 4) << 3) + (lane & 7u);   // + 16·p
    const uint32_t b_chk = (lane >> 3) & 1u;                             // + 2·kk

    uint32_t stage = 0;                     // ring slot of K tile kt
    uint32_t load_stage = TF_STAGES - 1;    // ring slot of K tile kt + STAGES-1
    for (uint32_t kt = 0; kt < k_tiles; ++kt) {
        // Committed so far: (STAGES-1) + kt groups, tile kt in group kt: leaving STAGES-2
        // pending completes it; the barrier publishes all threads' copies and guarantees every
        // warp finished reading slot load_stage (tile kt-1) before it is refilled.
        msp::cp_async_wait<TF_STAGES - 2>();
        __syncthreads();

        const uint32_t next = kt + TF_STAGES - 1;
        if (next < k_tiles) {
            la.issue(smem_base + load_stage * TF_STAGE_BYTES, A, K, next);
            lb.issue(smem_base + load_stage * TF_STAGE_BYTES + gmt::kTileBytes, B, K, next);
        }
        msp::cp_async_commit();

        const uint32_t sa = smem_base + stage * TF_STAGE_BYTES;
        const uint32_t sb = sa + gmt::kTileBytes;
#pragma unroll
        for (uint32_t kk = 0; kk < 4; ++kk) {
            uint32_t af[4][4], bfr[2][4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                msp::ldmatrix_x4(af[i], sa + gmt::swz(a_row + 16u * i, a_chk + 2u * kk));
#pragma unroll
                for (int r = 0; r < 4; ++r) af[i][r] = msp::cvt_tf32(af[i][r]);
            }
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                msp::ldmatrix_x4(bfr[p], sb + gmt::swz(b_row + 16u * p, b_chk + 2u * kk));
#pragma unroll
                for (int r = 0; r < 4; ++r) bfr[p][r] = msp::cvt_tf32(bfr[p][r]);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    msp::mma_tf32_1688(acc[i][j], af[i], bfr[j >> 1][(j & 1) * 2],
                                       bfr[j >> 1][(j & 1) * 2 + 1]);
        }

        stage = (stage + 1 == TF_STAGES) ? 0u : stage + 1;
        load_stage = (load_stage + 1 == TF_STAGES) ? 0u : load_stage + 1;
    }
    msp::cp_async_wait<0>();   // only empty groups can be pending here

    // Epilogue: fragment element e of acc[i][j] is row m0 + warp_m·64 + 16i + g + 8·(e / 2),
    // column n0 + warp_n·32 + 8j + 2t + e % 2.
    const uint32_t g = lane >> 2, t4 = lane & 3u;
    const bool n_even = (N & 1u) == 0u;   // float2 stores need 8-byte aligned addresses
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t row = m0 + warp_m * 64u + 16u * i + g + 8u * h;
            if (row >= M) continue;
            float *crow = C + (size_t)row * N;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const uint32_t col = n0 + warp_n * 32u + 8u * j + 2u * t4;   // even
                const float v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
                if (n_even && col + 1u < N) {
                    // row·N + col is even: the pair is 8-byte aligned.
                    *reinterpret_cast<float2 *>(crow + col) = make_float2(v0, v1);
                } else {
                    if (col < N) crow[col] = v0;
                    if (col + 1u < N) crow[col + 1] = v1;
                }
            }
        }
    }
}
