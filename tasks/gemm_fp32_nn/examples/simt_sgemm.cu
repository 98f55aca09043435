// simt_sgemm.cu — gemm_fp32_nn: C[M,N] = A[M,K] · B[K,N], fp32 in and out, row-major, computed
// with plain fp32 FMA (FFMA, no tensor cores): a shared-memory tiled SIMT SGEMM.
//
// Launch (simt_sgemm.json): grid (ceil_div(N,128), ceil_div(M,128), 1), block (256,1,1),
// dynamic shared memory SG_SMEM_BYTES = 33792 bytes. Any M, N, K >= 1.
//
// Structure
//   CTA tile 128 (M) × 128 (N), K in slices of SG_BK = 8, a 4-stage cp.async ring.
//   Shared, per stage: As[k][m] and Bs[k][n], 8 rows of SG_PITCH = 132 floats each (the A tile
//   stored transposed, so that a thread reads 4 consecutive rows of A with one 16-byte load).
//   Loads: 4-byte cp.async.ca, one element each, 4 of A and 4 of B per thread and slice.
//     A: element e = tid + 256·i (i < 4) is row e / 8, k e % 8 of the slice → As[e % 8][e / 8];
//        a warp reads 4 rows × 32 bytes, and writes banks (k·132 + row) % 32 = (4k + row) % 32,
//        32 distinct.
//     B: element e is k e / 128, column e % 128 → Bs[e / 128][e % 128]; a warp reads 128
//        contiguous bytes.
//     Out-of-range elements (row >= M, column >= N or k >= K) are zero-filled (src-size 0,
//     nothing read), so the FMAs over them add exact zeros. 4-byte copies need no alignment
//     beyond the element's: any N and K work, odd ones included.
//   Math: thread (ty, tx) = (tid / 16, tid % 16) owns rows ty·4 + {0..3} and 64 + ty·4 + {0..3}
//     and columns tx·4 + {0..3} and 64 + tx·4 + {0..3} of the tile: 64 accumulators, per k two
//     16-byte loads of As, two of Bs and 64 FFMA. Each output is summed over k in increasing
//     order, one fmaf per k.
//   Epilogue: rows < M and columns < N only; 16-byte stores when N % 4 == 0 (then every row
//     start and every 4-column group is 16-byte aligned), element-wise otherwise.
//   CTAs are rasterised in groups of 8 tile rows (as in gemm_bf16_nt's tiled_mma).
#include <stddef.h>
#include <stdint.h>

#include "../../common/mma_sync_ptx.cuh"

#define SG_BM 128
#define SG_BN 128
#define SG_BK 8
#define SG_STAGES 4
#define SG_THREADS 256
#define SG_GROUP_M 8
#define SG_PITCH 132                                       /* floats per k row of a tile */
#define SG_TILE_FLOATS (SG_BK * SG_PITCH)                  /* 1056 */
#define SG_STAGE_FLOATS (2 * SG_TILE_FLOATS)               /* A tile, then B tile */
#define SG_SMEM_BYTES (SG_STAGES * SG_STAGE_FLOATS * 4)    /* 33792 */

namespace sgemm {

// Issue the copies of the K slice starting at k0 into the stage whose A tile starts at shared
// address sa (its B tile follows at sa + SG_TILE_FLOATS·4). No commit.
__device__ __forceinline__ void load_slice(uint32_t sa, const float *__restrict__ A,
                                           const float *__restrict__ B, uint32_t M, uint32_t N,
                                           uint32_t K, uint32_t m0, uint32_t n0, uint32_t k0,
                                           uint32_t tid)
{
    const uint32_t sb = sa + SG_TILE_FLOATS * 4u;
#pragma unroll
    for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t e = tid + SG_THREADS * i;   // 0..1023
        // A: row e / 8 (0..127), k e % 8.
        const uint32_t ar = e >> 3, ak = e & 7u;
        const bool a_ok = m0 + ar < M && k0 + ak < K;
        const float *a_src = a_ok ? A + (size_t)(m0 + ar) * K + (k0 + ak) : A;
        msp::cp_async_4(sa + (ak * SG_PITCH + ar) * 4u, a_src, a_ok ? 4u : 0u);
        // B: k e / 128 (0..7), column e % 128.
        const uint32_t bk = e >> 7, bc = e & 127u;
        const bool b_ok = k0 + bk < K && n0 + bc < N;
        const float *b_src = b_ok ? B + (size_t)(k0 + bk) * N + (n0 + bc) : B;
        msp::cp_async_4(sb + (bk * SG_PITCH + bc) * 4u, b_src, b_ok ? 4u : 0u);
    }
}

}  // namespace sgemm

extern "C" __global__ void __launch_bounds__(SG_THREADS, 2)
gemm_fp32_nn_simt(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                  uint32_t M, uint32_t N, uint32_t K)
{
    extern __shared__ __align__(128) unsigned char gemm_smem[];
    float *const smem = reinterpret_cast<float *>(gemm_smem);
    const uint32_t smem_base = msp::smem_u32(gemm_smem);

    const uint32_t tid = threadIdx.x;
    const uint32_t tx = tid & 15u, ty = tid >> 4;

    // Grouped rasterisation (a bijection of the grid onto the tiles for any grid size).
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    const uint32_t pid = blockIdx.y * tiles_n + blockIdx.x;
    const uint32_t per_group = SG_GROUP_M * tiles_n;
    const uint32_t first_m = (pid / per_group) * SG_GROUP_M;
    const uint32_t group_m = min(tiles_m - first_m, (uint32_t)SG_GROUP_M);
    const uint32_t m0 = (first_m + (pid % per_group) % group_m) * SG_BM;
    const uint32_t n0 = ((pid % per_group) / group_m) * SG_BN;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const uint32_t k_slices = (K + SG_BK - 1) / SG_BK;

    // Prologue: slices 0 .. STAGES-2, one commit group each (empty when K is short).
#pragma unroll
    for (uint32_t s = 0; s < SG_STAGES - 1; ++s) {
        if (s < k_slices)
            sgemm::load_slice(smem_base + s * SG_STAGE_FLOATS * 4u, A, B, M, N, K, m0, n0,
                              s * SG_BK, tid);
        msp::cp_async_commit();
    }

    for (uint32_t kt = 0; kt < k_slices; ++kt) {
        // Committed so far: (STAGES-1) + kt groups, slice kt in group kt. Leaving STAGES-2
        // pending completes groups 0..kt; the barrier then publishes every thread's copies and
        // guarantees that every thread finished reading stage (kt-1) % STAGES, refilled next.
        msp::cp_async_wait<SG_STAGES - 2>();
        __syncthreads();

        const uint32_t next = kt + SG_STAGES - 1;   // its stage is (kt - 1) % STAGES
        if (next < k_slices)
            sgemm::load_slice(smem_base + (next % SG_STAGES) * SG_STAGE_FLOATS * 4u, A, B, M, N,
                              K, m0, n0, next * SG_BK, tid);
        msp::cp_async_commit();   // always (possibly empty): keeps the group count regular

        const float *As = smem + (kt % SG_STAGES) * SG_STAGE_FLOATS;
        const float *Bs = As + SG_TILE_FLOATS;
#pragma unroll
        for (uint32_t k = 0; k < SG_BK; ++k) {
            const float4 a_lo = *reinterpret_cast<const float4 *>(As + k * SG_PITCH + ty * 4u);
            const float4 a_hi = *reinterpret_cast<const float4 *>(As + k * SG_PITCH + 64u + ty * 4u);
            const float4 b_lo = *reinterpret_cast<const float4 *>(Bs + k * SG_PITCH + tx * 4u);
            const float4 b_hi = *reinterpret_cast<const float4 *>(Bs + k * SG_PITCH + 64u + tx * 4u);
            const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
    msp::cp_async_wait<0>();   // only empty groups can be pending here

    // Epilogue: acc[i][j] is row m0 + (i < 4 ? ty·4 + i : 64 + ty·4 + i - 4), column
    // n0 + (j < 4 ? tx·4 + j : 64 + tx·4 + j - 4).
    const bool n4 = (N & 3u) == 0u;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const uint32_t row = m0 + (i < 4 ? ty * 4u + i : 64u + ty * 4u + (i - 4));
        if (row >= M) continue;
        float *crow = C + (size_t)row * N;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t col = n0 + 64u * h + tx * 4u;   // multiple of 4
            if (n4 && col < N) {
                // N % 4 == 0 and col % 4 == 0: col + 3 < N, and row·N + col is a multiple of 4.
                *reinterpret_cast<float4 *>(crow + col) =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (col + e < N) crow[col + e] = acc[i][4 * h + e];
            }
        }
    }
}
