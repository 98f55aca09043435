// gemm_fp8_wgmma.cuh — the fp8 (e4m3) wgmma GEMM tile of tasks/gemm_e4m3_tn/examples/
// wgmma_fp8.cu (per-tensor scales) and tasks/gemm_e4m3_tn_block/examples/wgmma_fp8_block.cu
// (DeepSeek-V3 block scales); their headers describe the pipeline, the launch and the scaling.
#include <cuda_bf16.h>
#include <stdint.h>

#include "sm90_ptx.cuh"

#define GF8_BM 128
#define GF8_BN 128
#define GF8_BK 128 /* e4m3 elements = bytes of one swizzled row */
#define GF8_STAGES 4
#define GF8_THREADS 384
#define GF8_GROUP_M 8
#define GF8_TILE_BYTES (128 * GF8_BK) /* A and B tiles alike: 16384 */
#define GF8_STAGE_BYTES (2 * GF8_TILE_BYTES)
#define GF8_SMEM_BYTES (GF8_STAGES * GF8_STAGE_BYTES + 2 * GF8_STAGES * 8 + 1024) /* 132160 */

namespace gf8 {

// One CTA tile. kBlock false: per-tensor scales (scale_a, scale_b point to one float each),
// applied in the epilogue. kBlock true: DeepSeek-V3 block scales, scale_a [ceil(K/128), M] (M
// contiguous: one per row and 128 of K) and scale_b [ceil(N/128), ceil(K/128)] (one per
// 128 x 128 block), applied to each K slice's partial sums as they are promoted (a K slice is
// exactly one scale block, and the CTA's 128 columns exactly one block of B).
template <bool kBlock>
__device__ __forceinline__ void gemm_tile(const sm90::TensorMap *tmap_a_p,
                                          const sm90::TensorMap *tmap_b_p,
                                          __nv_bfloat16 *__restrict__ C,
                                          const float *__restrict__ scale_a,
                                          const float *__restrict__ scale_b, uint32_t M,
                                          uint32_t N, uint32_t K)
{
    const sm90::TensorMap &tmap_a = *tmap_a_p, &tmap_b = *tmap_b_p;
    extern __shared__ __align__(1024) unsigned char gf8_smem[];
    const uint32_t base = (sm90::smem_addr(gf8_smem) + 1023u) & ~1023u;
    const uint32_t full0 = base + GF8_STAGES * GF8_STAGE_BYTES; // full[s] = full0 + 8 s
    const uint32_t empty0 = full0 + 8u * GF8_STAGES;            // empty[s] = empty0 + 8 s
    const uint32_t warpgroup = threadIdx.x / 128u;
    const uint32_t t = threadIdx.x % 128u;

    // Grouped rasterisation, as in wgmma_tma.cu.
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    const uint32_t pid = blockIdx.y * tiles_n + blockIdx.x;
    const uint32_t per_group = GF8_GROUP_M * tiles_n;
    const uint32_t first_m = (pid / per_group) * GF8_GROUP_M;
    const uint32_t group_m = min(tiles_m - first_m, (uint32_t)GF8_GROUP_M);
    const uint32_t m0 = (first_m + (pid % per_group) % group_m) * GF8_BM;
    const uint32_t n0 = ((pid % per_group) / group_m) * GF8_BN;
    const uint32_t k_slices = (K + GF8_BK - 1) / GF8_BK;

    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < GF8_STAGES; ++s) {
            sm90::mbar_init(full0 + 8u * s, 1);
            sm90::mbar_init(empty0 + 8u * s, 8); // lane 0 of each of the 8 consumer warps
        }
        sm90::mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) { // ---- producer: one thread issues the TMA loads ----
        if (t == 0) {
            sm90::tma_prefetch_map(&tmap_a);
            sm90::tma_prefetch_map(&tmap_b);
            for (uint32_t kt = 0; kt < k_slices; ++kt) {
                const uint32_t s = kt % GF8_STAGES;
                if (kt >= GF8_STAGES)
                    sm90::mbar_wait(empty0 + 8u * s, ((kt / GF8_STAGES) - 1u) & 1u);
                const uint32_t full = full0 + 8u * s, tile = base + s * GF8_STAGE_BYTES;
                sm90::mbar_arrive_expect_tx(full, GF8_STAGE_BYTES);
                sm90::tma_load_2d(tile, &tmap_a, (int32_t)(kt * GF8_BK), (int32_t)m0, full);
                sm90::tma_load_2d(tile + GF8_TILE_BYTES, &tmap_b, (int32_t)(kt * GF8_BK),
                                  (int32_t)n0, full);
            }
        }
        return;
    }

    // ---- consumers: rows 64c .. 64c+63 of the CTA tile, all 128 columns ----
    const uint32_t c = warpgroup - 1u;
    const uint32_t lane = t % 32u, warp = t / 32u;
    float acc[64], part[64];
#pragma unroll
    for (int i = 0; i < 64; ++i)
        acc[i] = 0.0f;

    // Block scales: this thread's two rows (acc[4j + 2h + e] is row r_h) and the CTA's N block.
    const uint32_t r0 = m0 + 64u * c + 16u * warp + lane / 4u, r1 = r0 + 8u;
    const float *sb_row = scale_b + (size_t)(n0 / GF8_BN) * k_slices;
    for (uint32_t kt = 0; kt < k_slices; ++kt) {
        const uint32_t s = kt % GF8_STAGES;
        float f0 = 1.0f, f1 = 1.0f;
        if (kBlock) { // loaded before the wait, so their latency hides behind it
            const float sb = sb_row[kt];
            f0 = (r0 < M ? scale_a[(size_t)kt * M + r0] : 0.0f) * sb;
            f1 = (r1 < M ? scale_a[(size_t)kt * M + r1] : 0.0f) * sb;
        }
        sm90::mbar_wait(full0 + 8u * s, (kt / GF8_STAGES) & 1u);
        const uint32_t tile = base + s * GF8_STAGE_BYTES;
        const uint64_t da = sm90::wgmma_desc_k128(tile + c * (64u * 128u));
        const uint64_t db = sm90::wgmma_desc_k128(tile + GF8_TILE_BYTES);
        sm90::wgmma_fence();
        sm90::wgmma_m64n128k32_e4m3<0>(part, da, db); // overwrites part: a fresh partial sum
#pragma unroll
        for (uint32_t k32 = 1; k32 < GF8_BK / 32; ++k32)
            sm90::wgmma_m64n128k32_e4m3<1>(part, da + 2u * k32, db + 2u * k32); // +32 bytes
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < 64; ++i) {
            sm90::reg_fence(part[i]);
            // promotion to fp32 every 128 elements of K (scaled per block: row h = (i / 2) % 2)
            acc[i] = kBlock ? fmaf(part[i], (i & 2) ? f1 : f0, acc[i]) : acc[i] + part[i];
        }
        if (lane == 0)
            sm90::mbar_arrive(empty0 + 8u * s); // this slice's stage may be refilled
    }

    // ---- epilogue: acc[4j + 2h + e] = D[16 warp + lane/4 + 8h][8j + 2(lane%4) + e] ----
    const float scale = kBlock ? 1.0f : *scale_a * *scale_b;
    const bool n_even = (N & 1u) == 0u;
#pragma unroll
    for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t row = m0 + 64u * c + 16u * warp + lane / 4u + 8u * h;
        if (row >= M)
            continue;
        __nv_bfloat16 *crow = C + (size_t)row * N;
#pragma unroll
        for (uint32_t j = 0; j < GF8_BN / 8u; ++j) {
            const uint32_t col = n0 + 8u * j + 2u * (lane % 4u); // even
            const float lo = acc[4 * j + 2 * h] * scale, hi = acc[4 * j + 2 * h + 1] * scale;
            if (n_even && col + 1u < N) {
                *reinterpret_cast<__nv_bfloat162 *>(crow + col) = __floats2bfloat162_rn(lo, hi);
            } else {
                if (col < N)
                    crow[col] = __float2bfloat16_rn(lo);
                if (col + 1u < N)
                    crow[col + 1u] = __float2bfloat16_rn(hi);
            }
        }
    }
}

} // namespace gf8
