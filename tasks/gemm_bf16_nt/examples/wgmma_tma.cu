// wgmma_tma.cu — gemm_bf16_nt on Hopper's asynchronous tensor cores:
//
//   C[M,N] = A[M,K] · B[N,K]^T     A, B, C bf16 row-major (K contiguous in A and B),
//                                  fp32 accumulation, C rounded to nearest even.
//
// TMA (cp.async.bulk.tensor) brings 128B-swizzled tiles into shared memory, mbarriers hand them
// from a producer warpgroup to two consumer warpgroups, and wgmma.mma_async.m64n256k16 reads
// them straight from shared memory through matrix descriptors. The PTX wrappers and the facts
// behind them are in tasks/common/sm90_ptx.cuh.
//
// Launch (wgmma_tma.json):
//   grid  = (ceil_div(N, 256), ceil_div(M, 128), 1), block = (384, 1, 1),
//   dynamic shared memory = GWT_SMEM_BYTES = 197696 bytes (opt-in above 48 KiB),
//   params = (tensor map of A, tensor map of B, C, M, N, K):
//     A's map: dims (K, M) innermost first, box (64, 128), swizzle 128B, oob_fill none;
//     B's map: dims (K, N), box (64, 256), swizzle 128B, oob_fill none.
//   Requirement: K % 8 == 0 (the tensor map's row stride K·2 bytes must be a multiple of 16;
//   ptxgate rejects the manifest otherwise, before any GPU work).
//
// ---- Structure -------------------------------------------------------------------------------
// CTA tile 128 (M) x 256 (N), K in slices of 64, a ring of 4 stages in shared memory.
//   warpgroup 0 (threads 0-127): producer. One thread issues, per K slice, two TMA loads (A box
//     64 x 128, B box 64 x 256) onto the stage's "full" mbarrier, after waiting on the stage's
//     "empty" mbarrier for the consumers to have released it. It then gives up registers
//     (setmaxnreg.dec 40).
//   warpgroups 1, 2 (threads 128-383): consumers. Consumer c owns rows 64c .. 64c+63 of the CTA
//     tile and all 256 columns: per K slice, 4 x wgmma m64n256k16 (k = 0, 16, 32, 48) into 128
//     fp32 accumulators per thread (setmaxnreg.inc 232 makes room for them).
// Pipeline per consumer, K slice kt in stage s = kt % 4:
//   wait full[s] (parity (kt / 4) & 1) → wgmma.fence → 4 wgmma → commit →
//   wgmma.wait_group 1 (slice kt-1's group has finished reading its stage) →
//   lane 0 of each warp arrives on empty[(kt-1) % 4] (8 arrivals release a stage).
// Producer, slice kt ≥ 4: wait empty[s] with parity ((kt / 4) - 1) & 1, i.e. for the release of
// slice kt-4, the previous occupant of the stage; then arrive.expect_tx(49152 bytes) and load.
//
// ---- Shared memory (offsets from a 1024-byte aligned base; the 1024 spare bytes of the
//      allocation absorb the alignment of the dynamic shared window) --------------------------
//   stage s at s·49152:  A tile 128 rows x 128 bytes (16384 B), then B tile 256 x 128 (32768 B)
//   196608: full[0..3], then empty[0..3] (8 bytes each)
// Every tile starts on a 1024-byte boundary (49152 and 16384 are multiples of 1024).
//
// ---- Why TMA's layout is wgmma's layout ------------------------------------------------------
// TMA with swizzle 128B and a box whose inner extent is exactly 128 bytes (64 bf16) writes box
// row r (an M or N index) at byte r·128 of the tile, and inside it moves the 16-byte chunk c
// (k = 8c .. 8c+7) to chunk position c ^ (r % 8): the swizzle XORs shared-address bits 4-6 with
// bits 7-9, which equal r % 8 only when the tile is 1024-byte aligned — hence the alignment.
// This is the canonical K-major "128-byte swizzle" layout of wgmma: core matrices of 8 rows x
// 16 bytes, the 8 rows 128 bytes apart inside a 1024-byte swizzle atom, consecutive 8-row
// groups 1024 bytes apart (the descriptor's stride byte offset), the XOR applied by the tensor
// core on the same address bits. A k16 step of wgmma covers 32 bytes of a row, so steps
// k = 0, 16, 32, 48 start at tile + 0, 32, 64, 96 bytes (descriptor start field + 0, 2, 4, 6).
// Consumer c's 64 rows of A start at tile + c·64·128 = c·8192 bytes (1024-aligned as well).
//
// ---- Ragged shapes ------------------------------------------------------------------------------
// Boxes that reach past M, N or K are zero-filled by TMA (oob_fill none), and the mbarrier
// still receives the full box's bytes, so the last K slice adds zeros and rows/columns past M
// and N compute values that are never stored: the epilogue stores only rows < M and columns
// < N. Grid dimensions cover M and N with ceil_div, so every CTA has at least one valid row and
// column, and ceil_div(K, 64) ≥ 1 slices are always run.
//
// ---- Epilogue ------------------------------------------------------------------------------------
// Straight from the accumulators (layout in sm90_ptx.cuh): each thread stores pairs of adjacent
// columns as one bf16x2 (4 bytes) when N is even (4-byte aligned), element by element otherwise.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/sm90_ptx.cuh"

#define GWT_BM 128
#define GWT_BK 64
#define GWT_STAGES 4
#define GWT_THREADS 384
#define GWT_GROUP_M 8
#define GWT_TILE_A_BYTES (GWT_BM * GWT_BK * 2) /* 16384 */
#define GWT_BAR_BYTES (2 * GWT_STAGES * 8)
/* Per BN (the CTA tile's N extent, 256 or 128): bytes of one stage, offset of the barriers and
 * the dynamic shared memory to request (+1024 for the alignment of the base). */
#define GWT_TILE_B_BYTES(BN) ((BN) * GWT_BK * 2)
#define GWT_STAGE_BYTES(BN) (GWT_TILE_A_BYTES + GWT_TILE_B_BYTES(BN))
#define GWT_SMEM_BYTES(BN) (GWT_STAGES * GWT_STAGE_BYTES(BN) + GWT_BAR_BYTES + 1024)
/* GWT_SMEM_BYTES(256) = 4 · 49152 + 64 + 1024 = 197696; GWT_SMEM_BYTES(128) = 132160. */

namespace gwt {

template <int BN> struct Wgmma;
template <> struct Wgmma<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], uint64_t a, uint64_t b)
    {
        sm90::wgmma_m64n256k16(d, a, b);
    }
};
template <> struct Wgmma<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b)
    {
        sm90::wgmma_m64n128k16(d, a, b);
    }
};

// One CTA tile of C. BN = 256 (m64n256k16, 128 accumulators, register rebalancing) or 128
// (m64n128k16, 64 accumulators; the simpler variant, no setmaxnreg).
template <int BN>
__device__ __forceinline__ void gemm_tile(const sm90::TensorMap *tmap_a,
                                          const sm90::TensorMap *tmap_b,
                                          __nv_bfloat16 *__restrict__ C, uint32_t M, uint32_t N,
                                          uint32_t K)
{
    constexpr uint32_t kStageBytes = GWT_STAGE_BYTES(BN);
    constexpr int kAcc = BN / 2; // fp32 accumulators per consumer thread (64 x BN / 128)

    extern __shared__ __align__(1024) unsigned char gwt_smem[];
    const uint32_t base = (sm90::smem_addr(gwt_smem) + 1023u) & ~1023u;
    const uint32_t full0 = base + GWT_STAGES * kStageBytes; // full[s] = full0 + 8 s
    const uint32_t empty0 = full0 + 8u * GWT_STAGES;         // empty[s] = empty0 + 8 s

    const uint32_t warpgroup = threadIdx.x / 128u;
    const uint32_t t = threadIdx.x % 128u; // thread in its warpgroup

    // Grouped rasterisation (a bijection of the grid onto the tiles, for any grid size): groups
    // of GWT_GROUP_M tile rows walk N together, so A tiles and B tiles are reused from L2.
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    const uint32_t pid = blockIdx.y * tiles_n + blockIdx.x;
    const uint32_t per_group = GWT_GROUP_M * tiles_n;
    const uint32_t first_m = (pid / per_group) * GWT_GROUP_M;
    const uint32_t group_m = min(tiles_m - first_m, (uint32_t)GWT_GROUP_M);
    const uint32_t m0 = (first_m + (pid % per_group) % group_m) * GWT_BM;
    const uint32_t n0 = ((pid % per_group) / group_m) * BN;

    const uint32_t k_slices = (K + GWT_BK - 1) / GWT_BK;

    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < GWT_STAGES; ++s) {
            sm90::mbar_init(full0 + 8u * s, 1);  // the producer's arrive.expect_tx (+ TMA bytes)
            sm90::mbar_init(empty0 + 8u * s, 8); // lane 0 of each of the 8 consumer warps
        }
        sm90::mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        // ---- producer ----
        if (BN == 256)
            sm90::setmaxnreg_dec<40>();
        if (t == 0) {
            sm90::tma_prefetch_map(tmap_a);
            sm90::tma_prefetch_map(tmap_b);
            for (uint32_t kt = 0; kt < k_slices; ++kt) {
                const uint32_t s = kt % GWT_STAGES;
                if (kt >= GWT_STAGES)
                    sm90::mbar_wait(empty0 + 8u * s, ((kt / GWT_STAGES) - 1u) & 1u);
                const uint32_t full = full0 + 8u * s;
                const uint32_t tile = base + s * kStageBytes;
                sm90::mbar_arrive_expect_tx(full, kStageBytes);
                sm90::tma_load_2d(tile, tmap_a, (int32_t)(kt * GWT_BK), (int32_t)m0, full);
                sm90::tma_load_2d(tile + GWT_TILE_A_BYTES, tmap_b, (int32_t)(kt * GWT_BK),
                                  (int32_t)n0, full);
            }
        }
        return;
    }

    // ---- consumers ----
    if (BN == 256)
        sm90::setmaxnreg_inc<232>();
    const uint32_t c = warpgroup - 1u; // rows 64c .. 64c+63 of the CTA tile
    const uint32_t lane = t % 32u, warp = t / 32u;

    float d[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i)
        d[i] = 0.0f;

    for (uint32_t kt = 0; kt < k_slices; ++kt) {
        const uint32_t s = kt % GWT_STAGES;
        sm90::mbar_wait(full0 + 8u * s, (kt / GWT_STAGES) & 1u);
        const uint32_t tile = base + s * kStageBytes;
        const uint64_t da = sm90::wgmma_desc_k128(tile + c * (64u * 128u));
        const uint64_t db = sm90::wgmma_desc_k128(tile + GWT_TILE_A_BYTES);
#pragma unroll
        for (int i = 0; i < kAcc; ++i)
            sm90::reg_fence(d[i]);
        sm90::wgmma_fence();
#pragma unroll
        for (uint32_t k16 = 0; k16 < GWT_BK / 16; ++k16)
            Wgmma<BN>::mma(d, da + 2u * k16, db + 2u * k16); // +32 bytes per k16 step
        sm90::wgmma_commit();
#pragma unroll
        for (int i = 0; i < kAcc; ++i)
            sm90::reg_fence(d[i]);
        // Slice kt-1's group has finished (only the one just committed may still run): its
        // stage can be refilled.
        sm90::wgmma_wait<1>();
        if (kt > 0 && lane == 0)
            sm90::mbar_arrive(empty0 + 8u * ((kt - 1u) % GWT_STAGES));
    }
    sm90::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < kAcc; ++i)
        sm90::reg_fence(d[i]);

    // ---- epilogue: d[4j + 2h + e] = D[16 warp + lane/4 + 8h][8j + 2(lane%4) + e] ----
    const bool n_even = (N & 1u) == 0u;
#pragma unroll
    for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t row = m0 + 64u * c + 16u * warp + lane / 4u + 8u * h;
        if (row >= M)
            continue;
        __nv_bfloat16 *crow = C + (size_t)row * N;
#pragma unroll
        for (uint32_t j = 0; j < (uint32_t)BN / 8u; ++j) {
            const uint32_t col = n0 + 8u * j + 2u * (lane % 4u); // even
            const float lo = d[4 * j + 2 * h], hi = d[4 * j + 2 * h + 1];
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

} // namespace gwt

// The example: 128 x 256 CTA tiles (wgmma_tma.json).
extern "C" __global__ void __launch_bounds__(GWT_THREADS, 1)
gemm_bf16_nt_wgmma_tma(const __grid_constant__ sm90::TensorMap tmap_a,
                       const __grid_constant__ sm90::TensorMap tmap_b,
                       __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N,
                       unsigned int K)
{
    gwt::gemm_tile<256>(&tmap_a, &tmap_b, C, M, N, K);
}

// The same pipeline with 128 x 128 CTA tiles and m64n128k16 (64 accumulators, no setmaxnreg):
// grid (ceil_div(N, 128), ceil_div(M, 128), 1), B's box (64, 128), GWT_SMEM_BYTES(128) = 132160
// bytes of dynamic shared memory. A smaller-footprint variant kept next to the main entry.
extern "C" __global__ void __launch_bounds__(GWT_THREADS, 1)
gemm_bf16_nt_wgmma_tma_n128(const __grid_constant__ sm90::TensorMap tmap_a,
                            const __grid_constant__ sm90::TensorMap tmap_b,
                            __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N,
                            unsigned int K)
{
    gwt::gemm_tile<128>(&tmap_a, &tmap_b, C, M, N, K);
}
