// mma_bf16_nn.cu — gemm_bf16_nn_beta: D[M,N] = alpha · A[M,K] · B[K,N] + beta · C[M,N], all
// bf16 row-major (K contiguous in A, N contiguous in B, C and D), fp32 accumulation, D rounded
// to nearest even. alpha and beta are f32 kernel parameters (the manifest passes the task's
// parameters as scalars).
//
// Launch (mma_bf16_nn.json): grid (ceil_div(N,128), ceil_div(M,128), 1), block (256,1,1),
// dynamic shared memory NN_SMEM_BYTES = 98304 bytes (opt-in above 48 KiB). Requires
// K % 8 == 0 and N % 8 == 0 (rows of A and B are whole 16-byte chunks; the manifest's
// "supports"); M, N, K need not be multiples of the tile.
//
// Structure
//   CTA tile 128 (M) × 128 (N) × 64 (K), 8 warps as 2 (M) × 4 (N), warp tile 64 × 32 = 4 m16
//   tiles × 4 n8 tiles of mma.sync.m16n8k16 bf16, 64 fp32 accumulators per thread.
//   A tile [m][k]: 128 rows × 128 bytes, swizzle and cp.async loader of
//   tasks/common/gemm_mma_tiles.cuh; fragments by ldmatrix.x4 (lane address row l % 16,
//   chunk 2kk + l / 16), as in gemm_bf16_nt's tiled_mma.
//   B tile [k][n] as stored in global memory: 64 rows (k) × 256 bytes (128 n) = 16 chunks per
//   row; chunk c of row r lives at r·256 + ((c ^ (r & 7)) · 16) (the XOR keeps c in its half).
//   Loader: chunk (tid & 15) of rows (tid >> 4) + 16·i, i < 4, 16-byte cp.async.cg, zero-filled
//   (src-size 0) when the row's k >= K or the chunk's first n >= N (N % 8 == 0: a chunk is
//   entirely inside or outside).
//   B fragments by ldmatrix.x4.trans: the B operand of mma is B[k][n] "col" (b0 = k 2t..2t+1 of
//   column g), i.e. the transpose of an 8×8 block of rows k: lane address (row 16kk + l % 16,
//   chunk (warp_n·32 + 16p) / 8 + l / 16) gives b0, b1 of n tile 2p, then b0, b1 of n tile
//   2p + 1 (matrix 0 = k 0-7 n 0-7, 1 = k 8-15 n 0-7, 2 = k 0-7 n 8-15, 3 = k 8-15 n 8-15).
//   The 8 rows of each matrix are 8 consecutive k with r & 7 = 0..7: 8 distinct bank groups.
//   Pipeline: 3 stages of 32 KiB (A 16 KiB + B 16 KiB), cp.async groups as in tiled_mma.
//   Epilogue: rows < M and columns < N only; D = alpha·acc + beta·C in fp32 (C read only when
//   beta != 0), rounded once to bf16; bf16x2 loads and stores when N is even, element-wise
//   otherwise. Grouped CTA rasterisation.
#include <cuda_bf16.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/gemm_mma_tiles.cuh"

#define NN_STAGES 3
#define NN_B_ROW_BYTES 256                              /* 128 bf16 along N */
#define NN_STAGE_BYTES (2 * 16384)                      /* A tile, then B tile */
#define NN_SMEM_BYTES (NN_STAGES * NN_STAGE_BYTES)      /* 98304 */

namespace nn {

// Byte offset of chunk `chunk` (0..15) of row `row` (0..63) inside the 64 × 256-byte B tile.
__device__ __forceinline__ uint32_t swz_b(uint32_t row, uint32_t chunk)
{
    return row * NN_B_ROW_BYTES + ((chunk ^ (row & 7u)) << 4);
}

// The loader of the B tile [64 k][128 n] at columns n0.. from B [K,N] (row-major, N % 8 == 0).
struct BLoader {
    const __nv_bfloat16 *col_src;   // B + n0 + 8·chunk (B itself when the chunk is outside N)
    bool n_ok;
    uint32_t chunk;                 // 0..15
    uint32_t row;                   // 0..15: rows row + 16·i of the tile

    __device__ __forceinline__ void init(const __nv_bfloat16 *B, uint32_t N, uint32_t n0, uint32_t tid)
    {
        chunk = tid & 15u;
        row = tid >> 4;
        n_ok = n0 + chunk * 8u < N;
        col_src = n_ok ? B + n0 + chunk * 8u : B;
    }

    // Issue the copies of K tile kt (k = 64·kt ..) into the B tile at shared address `tile`.
    __device__ __forceinline__ void issue(uint32_t tile, const __nv_bfloat16 *B, uint32_t N,
                                          uint32_t K, uint32_t kt) const
    {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const uint32_t r = row + 16u * i;   // 0..63
            const uint32_t k = kt * 64u + r;
            const bool ok = n_ok && k < K;
            msp::cp_async_16(tile + swz_b(r, chunk),
                             ok ? (const void *)(col_src + (size_t)k * N) : (const void *)B,
                             ok ? 16u : 0u);
        }
    }
};

}  // namespace nn

extern "C" __global__ void __launch_bounds__(256, 2)
gemm_bf16_nn_beta_mma(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                      const __nv_bfloat16 *__restrict__ C, __nv_bfloat16 *__restrict__ D,
                      uint32_t M, uint32_t N, uint32_t K, float alpha, float beta)
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

    gmt::KMajorLoader<__nv_bfloat16> la;
    la.init(A, M, K, m0, tid);
    nn::BLoader lb;
    lb.init(B, N, n0, tid);
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
    for (uint32_t s = 0; s < NN_STAGES - 1; ++s) {
        if (s < k_tiles) {
            la.issue(smem_base + s * NN_STAGE_BYTES, A, K, s);
            lb.issue(smem_base + s * NN_STAGE_BYTES + gmt::kTileBytes, B, N, K, s);
        }
        msp::cp_async_commit();
    }

    const uint32_t a_row = warp_m * 64u + (lane & 15u);   // + 16·i
    const uint32_t a_chk = lane >> 4;                     // + 2·kk
    const uint32_t b_row = lane & 15u;                    // + 16·kk
    const uint32_t b_chk = warp_n * 4u + (lane >> 4);     // + 2·p

    uint32_t stage = 0;                     // ring slot of K tile kt
    uint32_t load_stage = NN_STAGES - 1;    // ring slot of K tile kt + STAGES-1
    for (uint32_t kt = 0; kt < k_tiles; ++kt) {
        // Committed so far: (STAGES-1) + kt groups, tile kt in group kt: leaving STAGES-2
        // pending completes it; the barrier publishes all threads' copies and guarantees every
        // warp finished reading slot load_stage (tile kt-1) before it is refilled.
        msp::cp_async_wait<NN_STAGES - 2>();
        __syncthreads();

        const uint32_t next = kt + NN_STAGES - 1;
        if (next < k_tiles) {
            la.issue(smem_base + load_stage * NN_STAGE_BYTES, A, K, next);
            lb.issue(smem_base + load_stage * NN_STAGE_BYTES + gmt::kTileBytes, B, N, K, next);
        }
        msp::cp_async_commit();

        const uint32_t sa = smem_base + stage * NN_STAGE_BYTES;
        const uint32_t sb = sa + gmt::kTileBytes;
#pragma unroll
        for (uint32_t kk = 0; kk < 4; ++kk) {
            uint32_t af[4][4], bfr[2][4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                msp::ldmatrix_x4(af[i], sa + gmt::swz(a_row + 16u * i, a_chk + 2u * kk));
#pragma unroll
            for (int p = 0; p < 2; ++p)
                msp::ldmatrix_x4_trans(bfr[p], sb + nn::swz_b(b_row + 16u * kk, b_chk + 2u * p));
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    msp::mma_bf16_16816(acc[i][j], af[i], bfr[j >> 1][(j & 1) * 2],
                                        bfr[j >> 1][(j & 1) * 2 + 1]);
        }

        stage = (stage + 1 == NN_STAGES) ? 0u : stage + 1;
        load_stage = (load_stage + 1 == NN_STAGES) ? 0u : load_stage + 1;
    }
    msp::cp_async_wait<0>();   // only empty groups can be pending here

    // Epilogue: fragment element e of acc[i][j] is row m0 + warp_m·64 + 16i + g + 8·(e / 2),
    // column n0 + warp_n·32 + 8j + 2t + e % 2.
    const uint32_t g = lane >> 2, t4 = lane & 3u;
    const bool n_even = (N & 1u) == 0u;   // bf16x2 accesses need 4-byte aligned addresses
    const bool read_c = beta != 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t row = m0 + warp_m * 64u + 16u * i + g + 8u * h;
            if (row >= M) continue;
            const __nv_bfloat16 *crow = C + (size_t)row * N;
            __nv_bfloat16 *drow = D + (size_t)row * N;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const uint32_t col = n0 + warp_n * 32u + 8u * j + 2u * t4;   // even
                const float v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
                if (n_even && col + 1u < N) {
                    // row·N + col is even: the pair is 4-byte aligned.
                    float c0 = 0.0f, c1 = 0.0f;
                    if (read_c) {
                        const __nv_bfloat162 c = *reinterpret_cast<const __nv_bfloat162 *>(crow + col);
                        c0 = __bfloat162float(c.x);
                        c1 = __bfloat162float(c.y);
                    }
                    *reinterpret_cast<__nv_bfloat162 *>(drow + col) =
                        __floats2bfloat162_rn(alpha * v0 + beta * c0, alpha * v1 + beta * c1);
                } else {
                    if (col < N) {
                        const float c0 = read_c ? __bfloat162float(crow[col]) : 0.0f;
                        drow[col] = __float2bfloat16_rn(alpha * v0 + beta * c0);
                    }
                    if (col + 1u < N) {
                        const float c1 = read_c ? __bfloat162float(crow[col + 1]) : 0.0f;
                        drow[col + 1] = __float2bfloat16_rn(alpha * v1 + beta * c1);
                    }
                }
            }
        }
    }
}
