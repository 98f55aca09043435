// gemm_tiled_mma.cuh — Ampere-style multistage tensor-core GEMM, shared by the bf16 and fp16
// examples (tasks/gemm_bf16_nt/examples/tiled_mma.cu, tasks/gemm_fp16_nt/examples/tiled_mma.cu).
//
//   C[M,N] = A[M,K] · B[N,K]^T      A, B, C row-major; T = __nv_bfloat16 or __half;
//                                   fp32 accumulation; C rounded to nearest (even).
//
// Requirements: K % 8 == 0 (every row of A and B starts 16-byte aligned, and a 16-byte chunk of
// 8 elements along K is either entirely inside [0, K) or entirely outside). M, N, K need not be
// multiples of the tile: out-of-range rows and K chunks are zero-filled by cp.async (src-size 0),
// and the epilogue stores only rows < M and columns < N.
//
// Launch: grid = (ceil_div(N, 128), ceil_div(M, 128), 1), block = (256, 1, 1),
//         dynamic shared memory = GTM_SMEM_BYTES (98304 bytes: 3 stages × (A 16 KiB + B 16 KiB)).
//
// Structure
//   CTA tile 128 (M) × 128 (N) × 64 (K), 8 warps arranged 2 (M) × 4 (N), warp tile 64 × 32:
//   4 m16 tiles × 4 n8 tiles = 16 mma.sync.m16n8k16 per k16 step, 64 fp32 accumulators/thread.
//   Global → shared: cp.async.cg 16 B chunks, 3-stage ring (cp.async.commit_group/wait_group).
//   Shared layout: each tile row holds 64 elements = 128 B = 8 chunks of 16 B; chunk c of row r
//   lives at chunk slot (c ^ (r & 7)) (XOR swizzle), so the 8 row addresses of every ldmatrix
//   8×8 matrix (8 consecutive rows, same logical chunk) hit 8 distinct 16 B slots: no bank
//   conflicts, and cp.async writes stay 16 B aligned.
//   Shared → registers: ldmatrix.x4 (non-transposed for both operands: A is [m][k] row-major =
//   mma "row", B is [n][k] = mma "col").
//   CTA rasterisation: groups of GTM_GROUP_M tile rows walk N together (L2 reuse of B).
#ifndef PTXGATE_GEMM_TILED_MMA_CUH
#define PTXGATE_GEMM_TILED_MMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define GTM_BM 128
#define GTM_BN 128
#define GTM_BK 64
#define GTM_STAGES 3
#define GTM_THREADS 256
#define GTM_GROUP_M 8
#define GTM_TILE_A_BYTES (GTM_BM * GTM_BK * 2) /* 16384 */
#define GTM_TILE_B_BYTES (GTM_BN * GTM_BK * 2) /* 16384 */
#define GTM_STAGE_BYTES (GTM_TILE_A_BYTES + GTM_TILE_B_BYTES)
#define GTM_SMEM_BYTES (GTM_STAGES * GTM_STAGE_BYTES) /* 98304 */

namespace gtm {

// ---- element-type traits: the mma instruction and the output conversion --------------------

template <typename T> struct Traits;

template <> struct Traits<__nv_bfloat16> {
    // d = a·b + d, m16n8k16, A row-major fragment (4 regs), B col-major fragment (2 regs).
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],
                                               uint32_t b0, uint32_t b1)
    {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    static __device__ __forceinline__ __nv_bfloat16 cvt(float x) { return __float2bfloat16_rn(x); }
    // .x = lo (lower address), .y = hi; both rounded to nearest even.
    static __device__ __forceinline__ __nv_bfloat162 cvt2(float lo, float hi)
    {
        return __floats2bfloat162_rn(lo, hi);
    }
    typedef __nv_bfloat162 T2;
};

template <> struct Traits<__half> {
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],
                                               uint32_t b0, uint32_t b1)
    {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    static __device__ __forceinline__ __half cvt(float x) { return __float2half_rn(x); }
    static __device__ __forceinline__ __half2 cvt2(float lo, float hi)
    {
        return __floats2half2_rn(lo, hi);
    }
    typedef __half2 T2;
};

// ---- PTX wrappers --------------------------------------------------------------------------

// 16-byte global → shared copy; src_bytes is 16 (copy) or 0 (write 16 zero bytes, read nothing).
__device__ __forceinline__ void cp_async_16(uint32_t smem_addr, const void *gmem, uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :
                 : "r"(smem_addr), "l"(gmem), "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr)
                 : "memory");
}

// Byte offset of 16-byte chunk `chunk` (0..7) of tile row `row` inside one 128 × 64 tile.
__device__ __forceinline__ uint32_t swz(uint32_t row, uint32_t chunk)
{
    return row * (GTM_BK * 2) + ((chunk ^ (row & 7u)) << 4);
}

// ---- the kernel body -----------------------------------------------------------------------

template <typename T>
__device__ __forceinline__ void gemm_nt_tiled_mma(const T *__restrict__ A, const T *__restrict__ B,
                                                  T *__restrict__ C, uint32_t M, uint32_t N,
                                                  uint32_t K)
{
    extern __shared__ __align__(128) unsigned char gtm_smem[];
    const uint32_t smem_base = (uint32_t)__cvta_generic_to_shared(gtm_smem);

    const uint32_t tid = threadIdx.x;    // 0..255
    const uint32_t lane = tid & 31u;
    const uint32_t warp = tid >> 5;      // 0..7
    const uint32_t warp_m = warp >> 2;   // 0..1 → rows warp_m*64 .. +63 of the CTA tile
    const uint32_t warp_n = warp & 3u;   // 0..3 → cols warp_n*32 .. +31 of the CTA tile

    // Grouped rasterisation (a bijection of the grid onto the tiles, for any grid size).
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    const uint32_t pid = blockIdx.y * tiles_n + blockIdx.x;
    const uint32_t per_group = GTM_GROUP_M * tiles_n;
    const uint32_t first_m = (pid / per_group) * GTM_GROUP_M;
    const uint32_t group_m = min(tiles_m - first_m, (uint32_t)GTM_GROUP_M);
    const uint32_t tile_m = first_m + (pid % per_group) % group_m;
    const uint32_t tile_n = (pid % per_group) / group_m;
    const uint32_t m0 = tile_m * GTM_BM;
    const uint32_t n0 = tile_n * GTM_BN;

    // ---- producer mapping: thread copies chunk (tid & 7) of tile rows (tid >> 3) + 32*i, i<4,
    //      for A and for B. K offset of the chunk inside a k tile: ld_chunk * 8 elements.
    const uint32_t ld_chunk = tid & 7u;
    const uint32_t ld_row = tid >> 3;    // 0..31
    const T *a_src[4];
    const T *b_src[4];
    bool a_ok[4], b_ok[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t gm = m0 + ld_row + 32u * i;
        const uint32_t gn = n0 + ld_row + 32u * i;
        a_ok[i] = gm < M;
        b_ok[i] = gn < N;
        a_src[i] = A + (size_t)(a_ok[i] ? gm : 0u) * K + ld_chunk * 8u;
        b_src[i] = B + (size_t)(b_ok[i] ? gn : 0u) * K + ld_chunk * 8u;
    }

    const uint32_t k_tiles = (K + GTM_BK - 1) / GTM_BK;

    // Issue the copies of k tile `kt` into ring slot `stage` (no commit).
    auto load_tile = [&](uint32_t stage, uint32_t kt) {
        const uint32_t k_elem = kt * GTM_BK + ld_chunk * 8u;     // first K index of the chunk
        const bool k_ok = k_elem < K;                             // K % 8 == 0: all 8 in or out
        const size_t k_off = (size_t)kt * GTM_BK;
        const uint32_t sa = smem_base + stage * GTM_STAGE_BYTES;
        const uint32_t sb = sa + GTM_TILE_A_BYTES;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const uint32_t r = ld_row + 32u * i;
            const bool va = a_ok[i] && k_ok;
            const bool vb = b_ok[i] && k_ok;
            // Invalid chunks: src-size 0 → 16 zero bytes; the address stays a valid one (A/B).
            cp_async_16(sa + swz(r, ld_chunk), va ? (const void *)(a_src[i] + k_off) : (const void *)A,
                        va ? 16u : 0u);
            cp_async_16(sb + swz(r, ld_chunk), vb ? (const void *)(b_src[i] + k_off) : (const void *)B,
                        vb ? 16u : 0u);
        }
    };

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    // ---- prologue: tiles 0 .. STAGES-2, one commit group each (empty groups when k_tiles is small)
#pragma unroll
    for (uint32_t s = 0; s < GTM_STAGES - 1; ++s) {
        if (s < k_tiles) load_tile(s, s);
        cp_async_commit();
    }

    // ---- per-lane ldmatrix row/chunk (see the fragment layouts in the comments below)
    // A (x4 over a 16×16 block): lanes 0-7 → rows 0-7 k 0-7, 8-15 → rows 8-15 k 0-7,
    //   16-23 → rows 0-7 k 8-15, 24-31 → rows 8-15 k 8-15  ⇒ regs a0..a3 of mma's A fragment.
    const uint32_t a_lrow = warp_m * 64u + (lane & 15u);   // + 16*i for m tile i
    const uint32_t a_lchk = lane >> 4;                     // + 2*kk for k16 step kk
    // B (x4 over 16 n × 16 k): lanes 0-7 → n 0-7 k 0-7 (b0 of n tile 2p), 8-15 → n 0-7 k 8-15
    //   (b1 of n tile 2p), 16-23 → n 8-15 k 0-7 (b0 of 2p+1), 24-31 → n 8-15 k 8-15 (b1 of 2p+1).
    const uint32_t b_lrow = warp_n * 32u + ((lane >> 4) << 3) + (lane & 7u);   // + 16*p
    const uint32_t b_lchk = (lane >> 3) & 1u;                                   // + 2*kk

    uint32_t stage = 0;            // ring slot of tile kt
    uint32_t load_stage = GTM_STAGES - 1;   // ring slot of tile kt + STAGES-1
    for (uint32_t kt = 0; kt < k_tiles; ++kt) {
        // Groups committed so far: (STAGES-1) + kt. Leaving STAGES-2 pending means tile kt landed
        // (for this thread's copies); the barrier makes every thread's copies visible and also
        // guarantees all warps finished reading slot load_stage (= tile kt-1) before it is refilled.
        cp_async_wait<GTM_STAGES - 2>();
        __syncthreads();

        const uint32_t next = kt + GTM_STAGES - 1;
        if (next < k_tiles) load_tile(load_stage, next);
        cp_async_commit();   // always commit (possibly empty) to keep the group count regular

        const uint32_t sa = smem_base + stage * GTM_STAGE_BYTES;
        const uint32_t sb = sa + GTM_TILE_A_BYTES;
#pragma unroll
        for (uint32_t kk = 0; kk < GTM_BK / 16; ++kk) {
            uint32_t af[4][4];
            uint32_t bfr[2][4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                ldmatrix_x4(af[i], sa + swz(a_lrow + 16u * i, a_lchk + 2u * kk));
#pragma unroll
            for (int p = 0; p < 2; ++p)
                ldmatrix_x4(bfr[p], sb + swz(b_lrow + 16u * p, b_lchk + 2u * kk));
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    Traits<T>::mma(acc[i][j], af[i], bfr[j >> 1][(j & 1) * 2], bfr[j >> 1][(j & 1) * 2 + 1]);
        }

        stage = (stage + 1 == GTM_STAGES) ? 0u : stage + 1;
        load_stage = (load_stage + 1 == GTM_STAGES) ? 0u : load_stage + 1;
    }
    cp_async_wait<0>();   // drain (only empty groups can be pending here); no smem reuse follows

    // ---- epilogue: C fragment of m16n8: c0,c1 → (row g, cols 2t, 2t+1); c2,c3 → row g+8.
    const uint32_t g = lane >> 2, t4 = lane & 3u;
    const bool n_even = (N & 1u) == 0u;   // bf16x2/half2 stores need 4-byte aligned addresses
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t row = m0 + warp_m * 64u + 16u * i + g + 8u * h;
            if (row >= M) continue;
            T *crow = C + (size_t)row * N;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const uint32_t col = n0 + warp_n * 32u + 8u * j + 2u * t4;   // even
                const float v0 = acc[i][j][2 * h + 0];
                const float v1 = acc[i][j][2 * h + 1];
                if (n_even && col + 1u < N) {
                    // row*N + col is even → the pair is 4-byte aligned.
                    *reinterpret_cast<typename Traits<T>::T2 *>(crow + col) = Traits<T>::cvt2(v0, v1);
                } else {
                    if (col < N) crow[col] = Traits<T>::cvt(v0);
                    if (col + 1u < N) crow[col + 1] = Traits<T>::cvt(v1);
                }
            }
        }
    }
}

}  // namespace gtm

#endif  // PTXGATE_GEMM_TILED_MMA_CUH
