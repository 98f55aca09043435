// persistent_cluster.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), as
// a persistent kernel launched in 2-CTA clusters: grid = the number of SMs (rounded down to the
// cluster size, and to the clusters that fit at once), each CTA looping over its tiles; A and B
// read through rank-3 TMA views; C written ONLY by TMA stores (cp.async.bulk.tensor shared ->
// global) from a swizzled shared-memory staging tile, so C has no pointer parameter at all.
// The per-tile math and the load/consume synchronisation are those of wgmma_tma.cu (4 x wgmma
// m64n256k16 per 64-wide K slice into 128 fp32 accumulators per consumer thread, TMA with 128B
// swizzle, full/empty mbarriers); what changes is the persistent loop, 3 stages instead of 4 (to
// make room for the staging tile) and the epilogue.
//
// PTX signature: .entry gemm_bf16_nt_persistent_cluster(.param .align 64 .b8 tmap_a[128],
//   .param .align 64 .b8 tmap_b[128], .param .align 64 .b8 tmap_c[128], .param .u32 M, N, K)
// Launch (persistent_cluster.json): cluster (2, 1, 1), grid (2 · (num_sms / 2), 1, 1) (the
//   tile walk strides by %nclusterid, so any cluster count is correct), block (384, 1, 1), dynamic shared memory 214064 B.
// Supported shapes: M % 128 == 0 && N % 256 == 0 && K % 64 == 0 (declared as "supports"):
//   no tile is ragged, so neither the loads nor the stores need edge handling, and the rank-3
//   views below cover A and B exactly.
//
// ---- Tensor maps (innermost dimension first) ---------------------------------------------------
//   tmap_a: A [M, K] viewed as rank 3, dims {64, M, K/64}, byte strides {2K, 128}: element
//     (i, r, s) is A[r][64 s + i], so one box {64, 128, 1} at (0, m0, kt) is the 64-wide K slab kt
//     of rows m0..m0+127 — the same 128 rows x 128 bytes a rank-2 box (64, 128) at (64 kt, m0)
//     would bring, in the same 128B-swizzled layout. The view's last element is A[M-1][K-1]
//     (offset 2KM - 2), so it stays inside A exactly when K % 64 == 0.
//   tmap_b: B [N, K], dims {64, N, K/64}, strides {2K, 128}, box {64, 256, 1}, at (0, n0, kt).
//   tmap_c: C [M, N], dims (N, M), box (64, 64), swizzle 128B: the store of one 64 x 64 sub-tile.
//
// ---- Schedule -----------------------------------------------------------------------------------
// Cluster tiles of 256 (M) x 256 (N): cluster rank r computes the 128-row half r of its cluster
// tile, so the two CTAs of a cluster read the same B tiles at the same time (from L2; the
// cluster is used for scheduling only: no multicast, no distributed shared memory, no cluster
// barrier, so the CTAs of a cluster never wait for each other). Cluster q of Q = %nclusterid.x
// takes cluster tiles q, q + Q, q + 2Q, ... of ceil_div(M/128, 2) x N/256, in the grouped raster
// order of wgmma_tma (8 cluster-tile rows walk N together); a half past M (M/128 odd) is skipped
// by that rank only. Producer and consumers walk the same sequence.
//
// ---- Pipeline (per CTA; `it` counts K slices over all of the CTA's tiles) -----------------------
// Producer (warpgroup 0, one thread): slice it uses stage s = it % 3; from it >= 3 on it waits
//   empty[s] with parity ((it / 3) - 1) & 1 (the release of slice it - 3), then arrive.expect_tx
//   49152 bytes on full[s] and two TMA loads.
// Consumers (warpgroups 1, 2; consumer c owns rows 64c..64c+63 of the CTA tile): slice it waits
//   full[s] with parity (it / 3) & 1, 4 wgmma, commit, wait_group 1, then releases slice it - 1
//   (8 arrivals on empty, lane 0 of each consumer warp) unless it is the tile's first slice; after
//   a tile's last slice, wait_group 0 and release that slice too, so every slice is released
//   exactly once, in order, and the parities above stay exact across tiles.
//
// ---- Epilogue (per consumer, per tile) ----------------------------------------------------------
// Staging: 4 sub-tiles (64 rows x 64 columns = 8 KiB each, 1024-byte aligned) per consumer, in
// TMA's 128B-swizzled layout: element (r, col) of sub-tile q = col / 64 at byte
// r·128 + (((col % 64) / 8) ^ (r % 8))·16 + (col % 8)·2. Accumulator pairs are stored as bf16x2
// (a warp's 32 stores hit 32 different banks). Order:
//   thread 0 waits for its previous stores to have read the staging (cp.async.bulk.wait_group.read
//   0) -> named barrier -> all write the staging -> fence.proxy.async.shared::cta (generic writes
//   visible to the async proxy) -> named barrier -> thread 0 issues 4 TMA stores and commits.
// Before the CTA exits, thread 0 waits for all its stores to complete (wait_group 0).
//
// ---- Shared memory (from a 1024-byte aligned base) -----------------------------------------------
//   stage s at s · 49152 (A 16384 B, then B 32768 B)            0 .. 147456
//   staging of consumer c at 147456 + c · 32768                  .. 212992
//   full[0..2], empty[0..2] (8 bytes each)                       .. 213040
//   requested: 213040 + 1024 (alignment) = 214064 bytes.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/sm90_ptx.cuh"
#include "../../common/sm90_tma_ext.cuh"

#define PC_BM 128
#define PC_BN 256
#define PC_BK 64
#define PC_STAGES 3
#define PC_THREADS 384
#define PC_TILE_A_BYTES (PC_BM * PC_BK * 2)                 /* 16384 */
#define PC_STAGE_BYTES (PC_TILE_A_BYTES + PC_BN * PC_BK * 2) /* 49152 */
#define PC_STAGING_OFF (PC_STAGES * PC_STAGE_BYTES)          /* 147456 */
#define PC_STAGING_BYTES (64 * PC_BN * 2)                    /* 32768 per consumer */
#define PC_BAR_OFF (PC_STAGING_OFF + 2 * PC_STAGING_BYTES)   /* 212992 */
#define PC_SMEM_BYTES (PC_BAR_OFF + 2 * PC_STAGES * 8 + 1024) /* 214064 */

static_assert(PC_SMEM_BYTES == 214064, "the manifest's dynamic_shared_bytes");
static_assert(PC_STAGING_OFF % 1024 == 0 && PC_STAGING_BYTES % 1024 == 0,
              "staging sub-tiles must be 1024-byte aligned for the 128B swizzle");

namespace pc {

// The i-th tile of this CTA, walking cluster tiles q = cluster, cluster + clusters, ...:
// returns false when the sequence is exhausted. `q` carries the position between calls.
struct TileWalk {
    uint32_t q, step, count, pairs_m, tiles_m, tiles_n, rank;
    __device__ __forceinline__ bool next(uint32_t &m0, uint32_t &n0)
    {
        while (q < count) {
            const uint32_t cur = q;
            q += step;
            // grouped raster over (pairs_m, tiles_n), as in wgmma_tma.cu
            const uint32_t group = 8;
            const uint32_t per_group = group * tiles_n;
            const uint32_t first = (cur / per_group) * group;
            const uint32_t gm = min(pairs_m - first, group);
            const uint32_t pm = first + (cur % per_group) % gm;
            const uint32_t n_tile = (cur % per_group) / gm;
            const uint32_t m_tile = 2u * pm + rank;
            if (m_tile >= tiles_m)
                continue; // the lower half of a last, half-filled cluster row
            m0 = m_tile * PC_BM;
            n0 = n_tile * PC_BN;
            return true;
        }
        return false;
    }
};

__device__ __forceinline__ TileWalk make_walk(uint32_t M, uint32_t N)
{
    TileWalk w;
    w.tiles_m = M / PC_BM;
    w.tiles_n = N / PC_BN;
    w.pairs_m = (w.tiles_m + 1u) / 2u;
    w.count = w.pairs_m * w.tiles_n;
    w.q = sm90::cluster_id_x();
    w.step = sm90::cluster_count_x();
    w.rank = sm90::cluster_ctarank();
    return w;
}

__device__ __forceinline__ void st_shared_u32(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi)
{
    const __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&p);
}

__device__ __forceinline__ void run(const sm90::TensorMap *tmap_a, const sm90::TensorMap *tmap_b,
                                    const sm90::TensorMap *tmap_c, uint32_t M, uint32_t N,
                                    uint32_t K)
{
    extern __shared__ __align__(1024) unsigned char pc_smem[];
    const uint32_t base = (sm90::smem_addr(pc_smem) + 1023u) & ~1023u;
    const uint32_t full0 = base + PC_BAR_OFF;           // full[s] = full0 + 8 s
    const uint32_t empty0 = full0 + 8u * PC_STAGES;     // empty[s] = empty0 + 8 s

    const uint32_t warpgroup = threadIdx.x / 128u;
    const uint32_t t = threadIdx.x % 128u;
    const uint32_t k_slices = K / PC_BK;

    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < PC_STAGES; ++s) {
            sm90::mbar_init(full0 + 8u * s, 1);
            sm90::mbar_init(empty0 + 8u * s, 8);
        }
        sm90::mbar_fence_init();
    }
    __syncthreads();

    TileWalk walk = make_walk(M, N);
    uint32_t m0, n0;

    if (warpgroup == 0) {
        // ---- producer ----
        sm90::setmaxnreg_dec<40>();
        if (t == 0) {
            sm90::tma_prefetch_map(tmap_a);
            sm90::tma_prefetch_map(tmap_b);
            uint32_t it = 0;
            while (walk.next(m0, n0)) {
                for (uint32_t kt = 0; kt < k_slices; ++kt, ++it) {
                    const uint32_t s = it % PC_STAGES;
                    if (it >= PC_STAGES)
                        sm90::mbar_wait(empty0 + 8u * s, ((it / PC_STAGES) - 1u) & 1u);
                    const uint32_t full = full0 + 8u * s;
                    const uint32_t tile = base + s * PC_STAGE_BYTES;
                    sm90::mbar_arrive_expect_tx(full, PC_STAGE_BYTES);
                    sm90::tma_load_3d(tile, tmap_a, 0, (int32_t)m0, (int32_t)kt, full);
                    sm90::tma_load_3d(tile + PC_TILE_A_BYTES, tmap_b, 0, (int32_t)n0, (int32_t)kt,
                                      full);
                }
            }
        }
        return;
    }

    // ---- consumers ----
    sm90::setmaxnreg_inc<232>();
    const uint32_t c = warpgroup - 1u;
    const uint32_t lane = t % 32u, warp = t / 32u;
    const uint32_t staging = base + PC_STAGING_OFF + c * PC_STAGING_BYTES;
    if (t == 0)
        sm90::tma_prefetch_map(tmap_c);

    float d[128];
    uint32_t it = 0;
    while (walk.next(m0, n0)) {
#pragma unroll
        for (int i = 0; i < 128; ++i)
            d[i] = 0.0f;
        for (uint32_t kt = 0; kt < k_slices; ++kt, ++it) {
            const uint32_t s = it % PC_STAGES;
            sm90::mbar_wait(full0 + 8u * s, (it / PC_STAGES) & 1u);
            const uint32_t tile = base + s * PC_STAGE_BYTES;
            const uint64_t da = sm90::wgmma_desc_k128(tile + c * (64u * 128u));
            const uint64_t db = sm90::wgmma_desc_k128(tile + PC_TILE_A_BYTES);
#pragma unroll
            for (int i = 0; i < 128; ++i)
                sm90::reg_fence(d[i]);
            sm90::wgmma_fence();
#pragma unroll
            for (uint32_t k16 = 0; k16 < PC_BK / 16; ++k16)
                sm90::wgmma_m64n256k16(d, da + 2u * k16, db + 2u * k16);
            sm90::wgmma_commit();
#pragma unroll
            for (int i = 0; i < 128; ++i)
                sm90::reg_fence(d[i]);
            sm90::wgmma_wait<1>();
            if (kt > 0 && lane == 0)
                sm90::mbar_arrive(empty0 + 8u * ((it - 1u) % PC_STAGES));
        }
        sm90::wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < 128; ++i)
            sm90::reg_fence(d[i]);
        if (lane == 0) // the tile's last slice (it - 1) has been read by both wgmma groups
            sm90::mbar_arrive(empty0 + 8u * ((it - 1u) % PC_STAGES));

        // ---- epilogue: d[4j + 2h + e] = D[16 warp + lane/4 + 8h][8j + 2(lane%4) + e] ----
        if (t == 0)
            sm90::bulk_wait_read<0>(); // the previous tile's stores have read the staging
        sm90::named_barrier(1u + c, 128u);
#pragma unroll
        for (uint32_t h = 0; h < 2; ++h) {
            const uint32_t r = 16u * warp + lane / 4u + 8u * h; // row in the consumer's 64
            const uint32_t row_addr = staging + r * 128u + 4u * (lane % 4u);
#pragma unroll
            for (uint32_t j = 0; j < PC_BN / 8u; ++j) {
                const uint32_t q = j / 8u, chunk = j % 8u;
                st_shared_u32(row_addr + q * 8192u + ((chunk ^ (r % 8u)) << 4),
                              pack_bf16x2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]));
            }
        }
        sm90::fence_proxy_async_shared();
        sm90::named_barrier(1u + c, 128u);
        if (t == 0) {
#pragma unroll
            for (uint32_t q = 0; q < 4u; ++q)
                sm90::tma_store_2d(tmap_c, (int32_t)(n0 + 64u * q), (int32_t)(m0 + 64u * c),
                                   staging + q * 8192u);
            sm90::bulk_commit();
        }
    }
    if (t == 0)
        sm90::bulk_wait<0>();
}

} // namespace pc

extern "C" __global__ void __launch_bounds__(PC_THREADS, 1)
gemm_bf16_nt_persistent_cluster(const __grid_constant__ sm90::TensorMap tmap_a,
                                const __grid_constant__ sm90::TensorMap tmap_b,
                                const __grid_constant__ sm90::TensorMap tmap_c, unsigned int M,
                                unsigned int N, unsigned int K)
{
    pc::run(&tmap_a, &tmap_b, &tmap_c, M, N, K);
}
