// gemm_wgmma_tile.cuh — 128 x 256 tiles of C = A·Bᵀ (bf16 in, fp32 accumulation, bf16 out) on
// wgmma + TMA, for the gemm_bf16_nt interface examples (params_struct.cu, tmap_global.cu,
// tile_schedule.cu, flags_include.cu). Its main loop is the body of
// tasks/gemm_bf16_nt/examples/wgmma_tma.cu (gwt::gemm_tile<256>, measured correct on the H200 on
// every workload of the task) with its interface changed: the tiles' origins (m0, n0) and C's
// row stride (ldc, elements) are arguments instead of being derived from blockIdx and N, so that
// each example decides where its tiles come from (a grouped raster, a table in a workspace, a
// persistent loop) and where the maps live (a by-value struct, global memory). The math, the
// mbarrier pipeline and the stages' layout are the proven ones; read wgmma_tma.cu's header
// comment for why they hold. The epilogue differs: each consumer warp stages its rows in shared
// memory and writes whole rows (store_tile_bf16), where wgmma_tma.cu stores the accumulator
// fragments directly. On the H200 (2026-12-04) that made params_struct 0.82x wgmma_tma's time at
// 2048^3, 0.69x at 257x513x1000 and 0.91x at 4000x3000x4000.
//
// Contract: block (384, 1, 1), dynamic shared memory GWT2_SMEM_BYTES = 230464 bytes;
//   tmap_a: A [M, K] bf16, dims (K, M) innermost first, box (64, 128), swizzle 128B, oob zero;
//   tmap_b: B [N, K] bf16, dims (K, N), box (64, 256), swizzle 128B, oob zero;
//   every tile origin has m0 < M, n0 < N (at least one valid row and column),
//   m0 % 128 == n0 % 256 == 0;
//   C [M, ldc] bf16 row-major, 16-byte aligned, N <= ldc; ldc % 8 == 0 allows 16-byte stores.
//   Maps in global memory (maps_in_global): each producer thread first acquires its map
//   through the tensormap proxy (fence_tensormap_acquire), see sm90_tma_ext.cuh.
#ifndef PTXGATE_GEMM_WGMMA_TILE_CUH
#define PTXGATE_GEMM_WGMMA_TILE_CUH

#include <cuda_bf16.h>
#include <stdint.h>

#include "sm90_ptx.cuh"
#include "sm90_tma_ext.cuh"

#define GWT2_BM 128
#define GWT2_BN 256
#define GWT2_BK 64
#define GWT2_STAGES 4
#define GWT2_THREADS 384
#define GWT2_TILE_A_BYTES (GWT2_BM * GWT2_BK * 2)                 /* 16384 */
#define GWT2_TILE_B_BYTES (GWT2_BN * GWT2_BK * 2)                 /* 32768 */
#define GWT2_STAGE_BYTES (GWT2_TILE_A_BYTES + GWT2_TILE_B_BYTES) /* 49152 */
#define GWT2_BAR_BYTES (2 * GWT2_STAGES * 8)
/* The epilogue's staging: 16 rows x 128 columns of bf16 per consumer warp, 8 warps. */
#define GWT2_STAGING_BYTES (8 * 16 * 128 * 2) /* 32768 */
/* 4 · 49152 + 32768 + 64 + 1024 (alignment of the base to 1024 bytes) = 230464 */
#define GWT2_SMEM_BYTES \
    (GWT2_STAGES * GWT2_STAGE_BYTES + GWT2_STAGING_BYTES + GWT2_BAR_BYTES + 1024)

namespace gwt2 {

// Grouped rasterisation of wgmma_tma.cu: a bijection of pid in [0, tiles_m · tiles_n) onto the
// tiles; groups of 8 tile rows walk N together so that A and B tiles are reused from L2.
__device__ __forceinline__ void grouped_tile(uint32_t pid, uint32_t tiles_m, uint32_t tiles_n,
                                             uint32_t &m_tile, uint32_t &n_tile)
{
    const uint32_t group = 8;
    const uint32_t per_group = group * tiles_n;
    const uint32_t first_m = (pid / per_group) * group;
    const uint32_t group_m = min(tiles_m - first_m, group);
    m_tile = first_m + (pid % per_group) % group_m;
    n_tile = (pid % per_group) / group_m;
}

// The tiles a CTA computes: indices first, first + step, ... below end, each mapped to its
// origin (m0, n0) by the caller's map(i, m0, n0), which returns false for an index whose tile
// is to be skipped (every thread of the CTA gets the same answer, so the skip is uniform).
template <class TileMap> struct TileRange {
    uint32_t first, step, end;
    TileMap map;
};

// One tile at (m0, n0): the non-persistent examples.
struct OneTile {
    uint32_t m0, n0;
    __device__ __forceinline__ bool operator()(uint32_t, uint32_t &m, uint32_t &n) const
    {
        m = m0;
        n = n0;
        return true;
    }
};

// The epilogue of one consumer warp: its 16 rows x 256 columns of D (d[4j + 2h + e] =
// D[lane/4 + 8h][8j + 2(lane%4) + e]) rounded to bf16 and written to C rows row0 .. row0+15,
// columns n0 .. n0+255, clipped to M x N, in two halves of 128 columns through the warp's 4 KiB
// staging buffer `stage` (16 rows of 256 bytes). The fragment layout spreads a warp's
// accumulators over 8 rows; stored directly (wgmma_tma.cu's epilogue) each store instruction
// writes 8 pieces of 16 bytes. Staged, each instruction writes 2 whole rows of 256 bytes with
// 16-byte stores where ldc % 8 == 0 (the chunk at N's edge element by element), else 32
// consecutive columns of one row with bf16 stores. Staging word w of row r sits at word
// w ^ (4 (r % 8)), so that the fragment writes (8 rows x 4 words) and the 16-byte reads (8
// chunks of a row) each hit 32 different banks.
__device__ __forceinline__ void store_tile_bf16(const float (&d)[128], uint32_t stage,
                                                __nv_bfloat16 *__restrict__ C, uint32_t ldc,
                                                uint32_t M, uint32_t N, uint32_t row0,
                                                uint32_t n0, uint32_t lane)
{
    const bool vectors = ldc % 8u == 0u;
#pragma unroll
    for (uint32_t half = 0; half < 2; ++half) {
        __syncwarp(); // the previous half's reads are done
#pragma unroll
        for (uint32_t jj = 0; jj < 16; ++jj) {
            const uint32_t j = 16u * half + jj;
#pragma unroll
            for (uint32_t h = 0; h < 2; ++h) {
                const uint32_t r = lane / 4u + 8u * h, w = 4u * jj + lane % 4u;
                const __nv_bfloat162 v = __floats2bfloat162_rn(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(stage + r * 256u +
                                                              ((w ^ (4u * (r % 8u))) * 4u)),
                             "r"(*reinterpret_cast<const uint32_t *>(&v))
                             : "memory");
            }
        }
        __syncwarp();
        const uint32_t col0 = n0 + 128u * half;
        if (vectors) {
#pragma unroll
            for (uint32_t it = 0; it < 8; ++it) {
                const uint32_t r = 2u * it + lane / 16u, chunk = lane % 16u;
                const uint32_t row = row0 + r, col = col0 + 8u * chunk;
                uint4 v;
                asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                             : "r"(stage + r * 256u + ((chunk ^ (r % 8u)) * 16u))
                             : "memory");
                if (row >= M || col >= N)
                    continue;
                __nv_bfloat16 *dst = C + (size_t)row * ldc + col;
                if (col + 8u <= N) {
                    *reinterpret_cast<uint4 *>(dst) = v;
                } else {
                    const __nv_bfloat16 *e = reinterpret_cast<const __nv_bfloat16 *>(&v);
#pragma unroll
                    for (uint32_t k = 0; k < 8; ++k)
                        if (col + k < N)
                            dst[k] = e[k];
                }
            }
        } else {
            // Rows not 16-byte aligned: a store instruction writes 32 consecutive columns.
            for (uint32_t r = 0; r < 16u && row0 + r < M; ++r) {
                __nv_bfloat16 *crow = C + (size_t)(row0 + r) * ldc;
#pragma unroll
                for (uint32_t q = 0; q < 4; ++q) {
                    const uint32_t cc = 32u * q + lane, col = col0 + cc;
                    unsigned short e;
                    asm volatile("ld.shared.u16 %0, [%1];\n"
                                 : "=h"(e)
                                 : "r"(stage + r * 256u + (((cc / 2u) ^ (4u * (r % 8u))) * 4u) +
                                       (cc % 2u) * 2u)
                                 : "memory");
                    if (col < N)
                        crow[col] = __ushort_as_bfloat16(e);
                }
            }
        }
    }
}

// The tiles of `range` one after another on one CTA (a persistent CTA when the range holds
// several): the producer runs ahead into the next tile while the consumers write the epilogue
// of this one. The mbarrier ring continues across tiles: slice g of the CTA (counted over all
// its tiles) uses stage g % 4 at phase g / 4, and the consumers release a tile's last slice
// before its epilogue, so that every slice is released exactly once by each of the 8 consumer
// warps.
//
// maps_in_global: the maps are in global memory (tmap_global.cu). Each map is then acquired
// through the tensormap proxy by its own producer thread (thread 0 loads A, thread 32 loads B,
// each arriving on the full barrier with its own byte count), so that the two fences of a CTA
// overlap instead of following each other; with maps in the parameter space one thread loads
// both.
template <bool maps_in_global, class TileMap>
__device__ __forceinline__ void gemm_tiles_128x256(const sm90::TensorMap *tmap_a,
                                                   const sm90::TensorMap *tmap_b,
                                                   __nv_bfloat16 *__restrict__ C, uint32_t ldc,
                                                   uint32_t M, uint32_t N, uint32_t K,
                                                   const TileRange<TileMap> range)
{
    constexpr uint32_t kStageBytes = GWT2_STAGE_BYTES;
    constexpr uint32_t kProducers = maps_in_global ? 2u : 1u;

    extern __shared__ __align__(1024) unsigned char gwt2_smem[];
    const uint32_t base = (sm90::smem_addr(gwt2_smem) + 1023u) & ~1023u;
    const uint32_t staging0 = base + GWT2_STAGES * kStageBytes; // 4 KiB per consumer warp
    const uint32_t full0 = staging0 + GWT2_STAGING_BYTES;       // full[s] = full0 + 8 s
    const uint32_t empty0 = full0 + 8u * GWT2_STAGES;         // empty[s] = empty0 + 8 s

    const uint32_t warpgroup = threadIdx.x / 128u;
    const uint32_t t = threadIdx.x % 128u;
    const uint32_t k_slices = (K + GWT2_BK - 1) / GWT2_BK;

    // Maps in global memory: each producer thread acquires its map through the tensormap proxy
    // before anything else, so that the fence's latency (about 0.8 us at a CTA's start on the
    // H200) overlaps the barrier initialisation and __syncthreads below. Measured 2026-12-04
    // (with the direct epilogue of wgmma_tma.cu) against the fence after __syncthreads: 1.0327
    // instead of 1.0371 times wgmma_tma's time at 2048^3, 1.0283 instead of 1.0349 at
    // 257x513x1000.
    if (maps_in_global && (threadIdx.x == 0 || threadIdx.x == 32)) {
        const sm90::TensorMap *mine = threadIdx.x == 0 ? tmap_a : tmap_b;
        sm90::fence_tensormap_acquire(mine);
        sm90::tma_prefetch_map(mine);
    }
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < GWT2_STAGES; ++s) {
            sm90::mbar_init(full0 + 8u * s, kProducers);
            sm90::mbar_init(empty0 + 8u * s, 8);
        }
        sm90::mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        // ---- producer(s): thread 0 (A, and B unless maps_in_global), thread 32 (B) ----
        sm90::setmaxnreg_dec<40>();
        const bool loads_a = t == 0;
        const bool loads_b = maps_in_global ? t == 32 : t == 0;
        if (!loads_a && !loads_b)
            return;
        const uint32_t bytes = (loads_a ? GWT2_TILE_A_BYTES : 0u) +
                               (loads_b ? GWT2_TILE_B_BYTES : 0u);
        if (!maps_in_global) { // maps in global memory were acquired and prefetched above
            sm90::tma_prefetch_map(tmap_a);
            sm90::tma_prefetch_map(tmap_b);
        }
        uint32_t g = 0;
        for (uint32_t i = range.first; i < range.end; i += range.step) {
            uint32_t m0, n0;
            if (!range.map(i, m0, n0))
                continue;
            for (uint32_t kt = 0; kt < k_slices; ++kt, ++g) {
                const uint32_t s = g % GWT2_STAGES;
                if (g >= GWT2_STAGES)
                    sm90::mbar_wait(empty0 + 8u * s, ((g / GWT2_STAGES) - 1u) & 1u);
                const uint32_t full = full0 + 8u * s;
                const uint32_t tile = base + s * kStageBytes;
                sm90::mbar_arrive_expect_tx(full, bytes);
                if (loads_a)
                    sm90::tma_load_2d(tile, tmap_a, (int32_t)(kt * GWT2_BK), (int32_t)m0, full);
                if (loads_b)
                    sm90::tma_load_2d(tile + GWT2_TILE_A_BYTES, tmap_b, (int32_t)(kt * GWT2_BK),
                                      (int32_t)n0, full);
            }
        }
        return;
    }

    // ---- consumers ----
    sm90::setmaxnreg_inc<232>();
    const uint32_t c = warpgroup - 1u; // rows 64c .. 64c+63 of the CTA tile
    const uint32_t lane = t % 32u, warp = t / 32u;
    uint32_t g = 0;
    for (uint32_t i = range.first; i < range.end; i += range.step) {
        uint32_t m0, n0;
        if (!range.map(i, m0, n0))
            continue;
        float d[128];
#pragma unroll
        for (int j = 0; j < 128; ++j)
            d[j] = 0.0f;

        for (uint32_t kt = 0; kt < k_slices; ++kt, ++g) {
            const uint32_t s = g % GWT2_STAGES;
            sm90::mbar_wait(full0 + 8u * s, (g / GWT2_STAGES) & 1u);
            const uint32_t tile = base + s * kStageBytes;
            const uint64_t da = sm90::wgmma_desc_k128(tile + c * (64u * 128u));
            const uint64_t db = sm90::wgmma_desc_k128(tile + GWT2_TILE_A_BYTES);
#pragma unroll
            for (int j = 0; j < 128; ++j)
                sm90::reg_fence(d[j]);
            sm90::wgmma_fence();
#pragma unroll
            for (uint32_t k16 = 0; k16 < GWT2_BK / 16; ++k16)
                sm90::wgmma_m64n256k16(d, da + 2u * k16, db + 2u * k16);
            sm90::wgmma_commit();
#pragma unroll
            for (int j = 0; j < 128; ++j)
                sm90::reg_fence(d[j]);
            sm90::wgmma_wait<1>();
            if (kt > 0 && lane == 0)
                sm90::mbar_arrive(empty0 + 8u * ((g - 1u) % GWT2_STAGES));
        }
        sm90::wgmma_wait<0>();
#pragma unroll
        for (int j = 0; j < 128; ++j)
            sm90::reg_fence(d[j]);
        if (k_slices > 0 && lane == 0) // the tile's last slice, for the producer's next tile
            sm90::mbar_arrive(empty0 + 8u * ((g - 1u) % GWT2_STAGES));

        store_tile_bf16(d, staging0 + (4u * c + warp) * 4096u, C, ldc, M, N,
                        m0 + 64u * c + 16u * warp, n0, lane);
    }
}

// One tile at (m0, n0) with the maps in the parameter space.
__device__ __forceinline__ void gemm_tile_128x256(const sm90::TensorMap *tmap_a,
                                                  const sm90::TensorMap *tmap_b,
                                                  __nv_bfloat16 *__restrict__ C, uint32_t ldc,
                                                  uint32_t M, uint32_t N, uint32_t K, uint32_t m0,
                                                  uint32_t n0)
{
    gemm_tiles_128x256<false>(tmap_a, tmap_b, C, ldc, M, N, K,
                              TileRange<OneTile>{0, 1, 1, OneTile{m0, n0}});
}

} // namespace gwt2

#endif
