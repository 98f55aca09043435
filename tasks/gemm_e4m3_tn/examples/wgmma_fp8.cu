// wgmma_fp8.cu — gemm_e4m3_tn on Hopper's asynchronous tensor cores:
//
//   C[M,N] = (scale_A · A[M,K]) · (scale_B · B[N,K])^T    A, B e4m3 row-major (K contiguous),
//                                                         scale_A, scale_B fp32 scalars in
//                                                         device memory, fp32 accumulation,
//                                                         C bf16 rounded to nearest even.
//
// The pipeline of tasks/gemm_bf16_nt/examples/wgmma_tma.cu in its 128 x 128 form, with fp8
// operands: TMA brings 128B-swizzled tiles of 128 rows x 128 bytes (= 128 e4m3 along K) into a
// 4-stage mbarrier ring, a producer warpgroup feeds two consumer warpgroups, and each consumer
// issues per K slice 4 x wgmma.mma_async.m64n128k32.f32.e4m3.e4m3 (k = 0, 32, 64, 96; 32 bytes
// of the row each, so the descriptors step exactly as the bf16 k16 steps do).
//
// Launch (wgmma_fp8.json):
//   grid  = (ceil_div(N, 128), ceil_div(M, 128), 1), block = (384, 1, 1),
//   dynamic shared memory = GF8_SMEM_BYTES = 132160 bytes,
//   params = (tensor map of A, tensor map of B, C, scale_A, scale_B, M, N, K):
//     A's map: dims (K, M) innermost first, box (128, 128), swizzle 128B, oob_fill none;
//     B's map: dims (K, N), box (128, 128), swizzle 128B, oob_fill none.
//   Requirement: K % 16 == 0 (the task's own rule: 16-byte rows).
//
// ---- Promotion ------------------------------------------------------------------------------
// Hopper's fp8 tensor-core accumulation keeps fewer bits than fp32 (DeepSeek-V3 technical
// report, section 3.3.2: about 14 bits), which over K = 5120 costs accuracy. Each consumer
// therefore accumulates one K slice (128 = 4 wgmma) into a fresh set of 64 registers (the first
// wgmma of the slice with scale-d 0), waits for it, and adds it to the fp32 accumulators: the
// "promotion to CUDA cores" of that report, every 128 elements of K. The wait per slice costs
// some overlap; the other stages of the ring keep TMA running meanwhile.
//
// ---- Ragged shapes ---------------------------------------------------------------------------
// As in wgmma_tma.cu: TMA zero-fills boxes past M, N or K (and still counts the whole box's
// bytes), and the epilogue stores only rows < M and columns < N.
//
// ---- Epilogue ---------------------------------------------------------------------------------
// The scales are read once per thread (two fp32 loads); C = bf16(acc · (scale_A · scale_B)),
// pairs of columns as one bf16x2 when N is even.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/sm90_ptx.cuh"

#define GF8_BM 128
#define GF8_BN 128
#define GF8_BK 128 /* e4m3 elements = bytes of one swizzled row */
#define GF8_STAGES 4
#define GF8_THREADS 384
#define GF8_GROUP_M 8
#define GF8_TILE_BYTES (128 * GF8_BK) /* A and B tiles alike: 16384 */
#define GF8_STAGE_BYTES (2 * GF8_TILE_BYTES)
#define GF8_SMEM_BYTES (GF8_STAGES * GF8_STAGE_BYTES + 2 * GF8_STAGES * 8 + 1024) /* 132160 */

extern "C" __global__ void __launch_bounds__(GF8_THREADS, 1)
gemm_e4m3_tn_wgmma(const __grid_constant__ sm90::TensorMap tmap_a,
                   const __grid_constant__ sm90::TensorMap tmap_b, __nv_bfloat16 *__restrict__ C,
                   const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                   unsigned int M, unsigned int N, unsigned int K)
{
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

    for (uint32_t kt = 0; kt < k_slices; ++kt) {
        const uint32_t s = kt % GF8_STAGES;
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
            acc[i] += part[i]; // promotion to fp32 every 128 elements of K
        }
        if (lane == 0)
            sm90::mbar_arrive(empty0 + 8u * s); // this slice's stage may be refilled
    }

    // ---- epilogue: acc[4j + 2h + e] = D[16 warp + lane/4 + 8h][8j + 2(lane%4) + e] ----
    const float scale = *scale_a * *scale_b;
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
