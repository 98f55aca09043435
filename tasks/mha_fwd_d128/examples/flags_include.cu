// flags_include.cu — mha_fwd_d128 (O = softmax(Q·Kᵀ/√D)·V and LSE, bf16 BHSD, fp32 LSE) as a
// Hopper flash-attention forward (TMA loads, mbarriers, wgmma.mma_async), built with compile
// options: its configuration header include/attn_config.cuh needs
//   "std": "c++20"                      a concept constrains the head-dimension dispatcher;
//   "--expt-relaxed-constexpr"           device code calls a host-only constexpr function;
//   "-DATTN_BLOCK_M=128"                 the CTA's query rows, a configuration macro;
//   "include_dirs": ["include"]          the header is found only through -I include;
//   "ptxas_flags": ["-maxrregcount=168"] the entry's register count at launch, the pool that
//                                        setmaxnreg redistributes (the entry has no
//                                        __launch_bounds__; see "Registers" below).
// Compiled without them, nvcc stops with a located error (attn_config.cuh's #error lines, the
// missing header, or "calling a constexpr __host__ function ... from a __global__ function").
//
// PTX signature: .entry mha_fwd_flags_include(.param .align 64 .b8 tmap_q[128], tmap_k[128],
//   tmap_v[128], .param .u64 O, LSE, .param .u32 B, H, S, D)
// Launch (flags_include.json): grid (ceil_div(S, 128), H, B), block (384, 1, 1), dynamic shared
// memory 164928 bytes (HeadTile<128>::smem_bytes), supports D == 64 || D == 128 (every workload
// of the task). The three maps are rank 4 over the [B, H, S, D] tensors, dims (D, S, H, B)
// innermost first, box (64, 128, 1, 1), swizzle 128B, oob_fill none (zeros).
//
// ---- Math (per (b, h) and query row i; scale = 1/√D) ------------------------------------------
//   s_ij = q_i·k_j (raw, fp32 accumulation); m_i = max_j s_ij; l_i = Σ_j exp(scale·(s_ij − m_i))
//   O_i = Σ_j exp(scale·(s_ij − m_i)) v_j / l_i (bf16);  LSE_i = scale·m_i + ln l_i (fp32, the
//   natural log of Σ_j exp(scale·s_ij), the task's definition).
// One pass over key blocks with the online softmax: per block m_new = max(m, rowmax s), the
// running l and O are multiplied by α = exp(scale·(m − m_new)), p = exp(scale·(s − m_new)) is
// added to l and p·V to O. exp(scale·x) = 2^(x·scale·log2 e): one FFMA and one ex2.approx.
// Keys ≥ S score −inf (p = 0). Every row sees key 0 in its first block, so m is finite from
// then on and l ≥ 1; the −inf base guard (base 0 while m = −inf) and l = 0 guard are kept anyway.
//
// ---- Structure ------------------------------------------------------------------------------------
// One CTA per (128 query rows, h, b), 3 warpgroups:
//   warpgroup 0: producer. After setmaxnreg.dec 40, one thread issues the TMA loads: the Q tile
//     once (onto q_full), then per key block j into stage s = j % 2 the K tile (onto k_full[s])
//     and the V tile (onto v_full[s]), from block 2 on after waiting on kv_empty[s] for the
//     consumers to release block j − 2 (parity ((j / 2) − 1) & 1).
//   warpgroups 1, 2: consumers (setmaxnreg.inc 232). Consumer c owns query rows 64c .. 64c+63 of
//     the CTA tile. Per key block j (stage s, parity (j / 2) & 1):
//       wait k_full[s]; S = Q_c·K_jᵀ: HD/16 × wgmma m64n128k16 (A = Q, B = K, both K-major from
//       shared memory; the first with scale-d 0); commit; wait_group 0;
//       mask keys ≥ S; online softmax on the accumulators; P = bf16(p) packed in registers;
//       wait v_full[s]; O += P·V_j: 8 × wgmma m64n{HD}k16 with A = P from registers and B = V
//       MN-major (imm-trans-b 1); commit; wait_group 0; lane 0 of each of the 8 consumer warps
//       arrives on kv_empty[s] (8 arrivals release the stage).
//   Epilogue: O = acc / l stored from the registers as bf16 pairs (rows < S), LSE by the lane
//   t = 0 of each quad.
// Registers: 168 per thread at launch (-maxrregcount=168: 384 × 168 = 64512 ≤ 65536), producer
// 40 and consumers 232 after setmaxnreg (128 × 40 + 256 × 232 = 64512: the same pool). Without
// the cap (and without __launch_bounds__) ptxas cannot tell the register count at entry and
// ignores setmaxnreg ("(C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to
// determine register count at entry"; 166 registers for every warpgroup).
//
// ---- Shared memory (offsets from the 1024-aligned base; HD = 128, HD = 64 halves every tile) --
//   0        Q tile: column block cb (d = 64cb .. 64cb+63) at cb·16384, 128 rows × 128 bytes
//   32768 + s·65536   stage s: K tile (2 column blocks × 16384), then V tile (likewise)
//   163840   q_full, k_full[2], v_full[2], kv_empty[2] (8 bytes each)
// Every column block starts on a 1024-byte boundary (16384 is a multiple of 1024).
//
// ---- Why the layouts are right -------------------------------------------------------------------
// TMA with swizzle 128B and a box whose inner extent is exactly 128 bytes (64 bf16) writes box
// row r (an S index) at byte r·128 of the column block and moves its 16-byte chunk c (d = 64cb +
// 8c .. +7) to chunk position c ^ (r % 8): the swizzle XORs shared-address bits 4-6 with bits
// 7-9, which equal r % 8 because each column block is 1024-byte aligned. Rows past S (a ragged
// last block) are filled with zeros, and the mbarrier still counts the whole box's bytes.
// (1) S = Q·Kᵀ is the NT GEMM of gemm_bf16_nt/wgmma_tma.cu: A = Q [64 q, D] and B = K [128 keys,
//   D] are both K-major (D contiguous) and a column block of either is exactly that example's
//   128B-swizzled K-major tile: descriptor start = tile address, leading byte offset unused (1),
//   stride byte offset 1024 (8 rows × 128 bytes to the next 8-row core-matrix group), base
//   offset 0, swizzle mode 1. The k16 step kk reads d = 16kk .. 16kk+15, i.e. column block kk / 4
//   at byte 32·(kk % 4) of every row: start + (kk / 4)·16384 + 32·(kk % 4). Consumer c's A rows
//   start at + c·8192 (64 rows × 128 bytes, 1024-aligned).
// (2) O += P·V: the MMA's K dimension is the key, N is d. V [128 keys, D] in shared memory has N
//   contiguous, i.e. MN-major, which wgmma reads for bf16 B with imm-trans-b = 1. PTX ISA
//   ("Shared Memory Matrix Layout", canonical layouts): MN-major 128B swizzle is
//   Swizzle<3,4,3> ∘ ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)) with T = 8 bf16 — 64 N-contiguous
//   elements per 128-byte row, the 8 K rows of an atom 128 bytes apart, LBO from one 64-wide N
//   block to the next, SBO from one group of 8 K rows to the next. TMA's V column block is
//   exactly that atom sequence: key r at r·128 (8 keys per 1024-byte atom), the same address
//   swizzle; so SBO = 1024 and LBO = 16384 (the next column block, d + 64; unused at HD 64). The
//   k16 step kk covers keys 16kk .. 16kk+15: start + kk·2048, still 1024-aligned (base offset 0).
// (3) P from registers. The f32 accumulator of m64nNk16 gives thread t of the warpgroup (warp w,
//   lane l, g = l / 4, q = l % 4) d[4j + 2h + e] = D[16w + g + 8h][8j + 2q + e]. The bf16 A
//   fragment of m64nNk16 (PTX ISA, "Register Fragments") gives the same thread
//   a0,a1 = A[16w+g][2q, 2q+1], a2,a3 = A[16w+g+8][2q, 2q+1], a4,a5 = A[16w+g][2q+8, 2q+9],
//   a6,a7 = A[16w+g+8][2q+8, 2q+9] (register i holds a(2i) in its low half). So for the k16 step
//   kk (keys 16kk .. 16kk+15 = S columns of j = 2kk and 2kk+1) register i of the A operand is
//   bf16x2(p[8kk + 2i], p[8kk + 2i + 1]): no data moves between threads. This is the same
//   C-to-A identity the mma.sync m16n8k16 kernels use (flash_fwd.cu), per warp of 16 rows.
// (4) Row statistics: a row's 128 scores of a block are held by the 4 lanes of one quad (q = 0..3,
//   32 each), so the row max is reduced with shfl.xor 1 and 2; the row sum is kept per lane and
//   quad-reduced once at the end.
// (5) Ordering: the accumulators and P are register-fenced before wgmma.fence (the rescale of O
//   and the packing of P are complete before the asynchronous reads), and after wait_group 0
//   (nothing reads S or O before the wgmma that writes them has finished). The K/V stage is
//   released only after wait_group 0 of O += P·V_j, i.e. after both wgmma groups that read it.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/sm90_ptx.cuh"

#include "attn_config.cuh"

namespace attn {

constexpr float kLog2e = 1.4426950408889634f;

// Rank-4 TMA load of the box at (c0 innermost, c1, c2, c3) into shared memory at dst, completion
// on the mbarrier bar (complete_tx::bytes, as sm90::tma_load_2d). Elements outside the tensor are
// zeros (oob_fill none); the byte count signalled is always the whole box.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const sm90::TensorMap *map, int32_t c0,
                                            int32_t c1, int32_t c2, int32_t c3, uint32_t bar)
{
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
        ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
          "r"(bar)
        : "memory");
}

// Descriptor of an MN-major operand stored as TMA writes a 128B-swizzled box of 64 N-columns
// (why: point (2) above): start address, LBO = the next 64-column block, SBO = 1024 (8 K rows),
// base offset 0 (start 1024-aligned), swizzle mode 1 (128B).
__device__ __forceinline__ uint64_t wgmma_desc_mn128(uint32_t addr, uint32_t lbo_bytes)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
           ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

__device__ __forceinline__ void reg_fence_u32(uint32_t &r) { asm volatile("" : "+r"(r)::"memory"); }

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); // .x = lo (low 16 bits), .y = hi
    return *reinterpret_cast<uint32_t *>(&v);
}

__device__ __forceinline__ float exp2_approx(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// d[0..63] += A(64 x 16 bf16 from registers: a[0..3], the m64nNk16 A fragment) ·
// B(16 x 128, MN-major: imm-trans-b 1, descriptor b).
__device__ __forceinline__ void wgmma_rs_m64n128k16_tb(float (&d)[64], const uint32_t (&a)[4], uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1)
        : "memory");
}

// d[0..31] += A(64 x 16 bf16 from registers: a[0..3], the m64nNk16 A fragment) ·
// B(16 x 64, MN-major: imm-trans-b 1, descriptor b).
__device__ __forceinline__ void wgmma_rs_m64n64k16_tb(float (&d)[32], const uint32_t (&a)[4], uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1)
        : "memory");
}

// The PV wgmma of a head-dimension width (N = HD).
template <uint32_t HD> struct PvMma;
template <> struct PvMma<128> {
    static __device__ __forceinline__ void mma(float (&o)[64], const uint32_t (&a)[4], uint64_t b)
    {
        wgmma_rs_m64n128k16_tb(o, a, b);
    }
};
template <> struct PvMma<64> {
    static __device__ __forceinline__ void mma(float (&o)[32], const uint32_t (&a)[4], uint64_t b)
    {
        wgmma_rs_m64n64k16_tb(o, a, b);
    }
};

// One CTA: query rows m0 .. m0+127 of head (b, h). Tile describes HD and the shared-memory plan.
template <attn_cfg::AttnTiling Tile>
__device__ __forceinline__ void attn_tile(const sm90::TensorMap *tmap_q,
                                          const sm90::TensorMap *tmap_k,
                                          const sm90::TensorMap *tmap_v,
                                          __nv_bfloat16 *__restrict__ O, float *__restrict__ LSE,
                                          uint32_t H, uint32_t S, uint32_t D)
{
    constexpr uint32_t HD = Tile::head_dim;
    constexpr uint32_t kBM = attn_cfg::block_m, kBN = attn_cfg::block_n;
    constexpr uint32_t kStages = attn_cfg::stages;
    constexpr uint32_t kColBlockQ = kBM * 128u;  // bytes of one 64-column block of the Q tile
    constexpr uint32_t kColBlockKV = kBN * 128u; // ... of a K or V tile
    constexpr uint32_t kOAcc = HD / 2u;          // fp32 O accumulators per consumer thread
    static_assert(Tile::q_bytes == Tile::column_blocks * kColBlockQ, "Q tile = its column blocks");
    static_assert(Tile::kv_bytes == Tile::column_blocks * kColBlockKV, "K/V tile likewise");
    static_assert(kColBlockQ % 1024u == 0 && kColBlockKV % 1024u == 0 && Tile::q_bytes % 1024u == 0,
                  "every column block 1024-byte aligned (the 128B swizzle atom)");

    extern __shared__ __align__(1024) unsigned char attn_smem[];
    const uint32_t base = (sm90::smem_addr(attn_smem) + 1023u) & ~1023u;
    const uint32_t sQ = base;
    const uint32_t q_full = base + Tile::barrier_offset;
    const uint32_t k_full0 = q_full + 8u;                // k_full[s] = k_full0 + 8s
    const uint32_t v_full0 = k_full0 + 8u * kStages;     // v_full[s]
    const uint32_t kv_empty0 = v_full0 + 8u * kStages;   // kv_empty[s]

    const uint32_t warpgroup = threadIdx.x / 128u;
    const uint32_t tid = threadIdx.x % 128u;
    const uint32_t m0 = blockIdx.x * kBM;
    const uint32_t h = blockIdx.y, b = blockIdx.z;
    const uint32_t n_blocks = (S + kBN - 1u) / kBN; // >= 1 (S >= 1)

    if (threadIdx.x == 0) {
        sm90::mbar_init(q_full, 1);
        for (uint32_t s = 0; s < kStages; ++s) {
            sm90::mbar_init(k_full0 + 8u * s, 1);    // the producer's arrive.expect_tx (+ bytes)
            sm90::mbar_init(v_full0 + 8u * s, 1);
            sm90::mbar_init(kv_empty0 + 8u * s, 8);  // lane 0 of each of the 8 consumer warps
        }
        sm90::mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        // ---- producer ----
        sm90::setmaxnreg_dec<40>();
        if (tid == 0) {
            sm90::tma_prefetch_map(tmap_q);
            sm90::tma_prefetch_map(tmap_k);
            sm90::tma_prefetch_map(tmap_v);
            sm90::mbar_arrive_expect_tx(q_full, Tile::q_bytes);
#pragma unroll
            for (uint32_t cb = 0; cb < Tile::column_blocks; ++cb)
                tma_load_4d(sQ + cb * kColBlockQ, tmap_q, (int32_t)(64u * cb), (int32_t)m0,
                            (int32_t)h, (int32_t)b, q_full);
            for (uint32_t j = 0; j < n_blocks; ++j) {
                const uint32_t s = j % kStages;
                if (j >= kStages)
                    sm90::mbar_wait(kv_empty0 + 8u * s, ((j / kStages) - 1u) & 1u);
                const uint32_t sK = base + Tile::q_bytes + s * Tile::stage_bytes;
                const uint32_t sV = sK + Tile::kv_bytes;
                const int32_t n0 = (int32_t)(j * kBN);
                sm90::mbar_arrive_expect_tx(k_full0 + 8u * s, Tile::kv_bytes);
#pragma unroll
                for (uint32_t cb = 0; cb < Tile::column_blocks; ++cb)
                    tma_load_4d(sK + cb * kColBlockKV, tmap_k, (int32_t)(64u * cb), n0, (int32_t)h,
                                (int32_t)b, k_full0 + 8u * s);
                sm90::mbar_arrive_expect_tx(v_full0 + 8u * s, Tile::kv_bytes);
#pragma unroll
                for (uint32_t cb = 0; cb < Tile::column_blocks; ++cb)
                    tma_load_4d(sV + cb * kColBlockKV, tmap_v, (int32_t)(64u * cb), n0, (int32_t)h,
                                (int32_t)b, v_full0 + 8u * s);
            }
        }
        return;
    }

    // ---- consumers ----
    sm90::setmaxnreg_inc<232>();
    const uint32_t c = warpgroup - 1u; // query rows 64c .. 64c+63 of the CTA tile
    const uint32_t lane = tid % 32u, warp = tid / 32u;
    const uint32_t g = lane / 4u, q = lane % 4u;

    const float scale = 1.0f / sqrtf((float)D);
    const float scale_log2 = scale * kLog2e;

    float o[kOAcc];
#pragma unroll
    for (uint32_t i = 0; i < kOAcc; ++i)
        o[i] = 0.0f;
    float sacc[64];
#pragma unroll
    for (uint32_t i = 0; i < 64; ++i)
        sacc[i] = 0.0f;
    float row_max[2] = {-INFINITY, -INFINITY}; // rows g and g + 8 of the warp's 16 (raw scores)
    float row_sum[2] = {0.0f, 0.0f};           // this lane's partial sums

    const uint32_t sQc = sQ + c * (64u * 128u); // this consumer's 64 rows in every column block
    sm90::mbar_wait(q_full, 0);

    for (uint32_t j = 0; j < n_blocks; ++j) {
        const uint32_t s = j % kStages;
        const uint32_t parity = (j / kStages) & 1u;
        const uint32_t sK = base + Tile::q_bytes + s * Tile::stage_bytes;
        const uint32_t sV = sK + Tile::kv_bytes;
        const uint32_t n0 = j * kBN;

        // ---- S = Q_c · K_jᵀ (raw scores, 64 x 128 per warpgroup)
        sm90::mbar_wait(k_full0 + 8u * s, parity);
#pragma unroll
        for (uint32_t i = 0; i < 64; ++i)
            sm90::reg_fence(sacc[i]);
        sm90::wgmma_fence();
#pragma unroll
        for (uint32_t kk = 0; kk < HD / 16u; ++kk) {
            const uint64_t da = sm90::wgmma_desc_k128(sQc + (kk / 4u) * kColBlockQ + 32u * (kk % 4u));
            const uint64_t db = sm90::wgmma_desc_k128(sK + (kk / 4u) * kColBlockKV + 32u * (kk % 4u));
            if (kk == 0)
                sm90::wgmma_m64n128k16<0>(sacc, da, db);
            else
                sm90::wgmma_m64n128k16<1>(sacc, da, db);
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
#pragma unroll
        for (uint32_t i = 0; i < 64; ++i)
            sm90::reg_fence(sacc[i]);

        // ---- keys >= S (the ragged last block only): -inf
        if (n0 + kBN > S) {
#pragma unroll
            for (uint32_t i = 0; i < 64; ++i) {
                const uint32_t col = n0 + 8u * (i / 4u) + 2u * q + (i & 1u);
                if (col >= S)
                    sacc[i] = -INFINITY;
            }
        }

        // ---- online softmax: p = exp(scale·(s − m_new)) packed as bf16 pairs
        uint32_t p[32];
#pragma unroll
        for (uint32_t hh = 0; hh < 2; ++hh) {
            float mx = row_max[hh];
#pragma unroll
            for (uint32_t jj = 0; jj < 16; ++jj)
                mx = fmaxf(mx, fmaxf(sacc[4 * jj + 2 * hh], sacc[4 * jj + 2 * hh + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float base_l2 = (mx == -INFINITY) ? 0.0f : mx * scale_log2;
            const float alpha = exp2_approx(fmaf(row_max[hh], scale_log2, -base_l2)); // 0 at m = -inf
            row_max[hh] = mx;
            float sum = 0.0f;
#pragma unroll
            for (uint32_t jj = 0; jj < 16; ++jj) {
                const float p0 = exp2_approx(fmaf(sacc[4 * jj + 2 * hh], scale_log2, -base_l2));
                const float p1 = exp2_approx(fmaf(sacc[4 * jj + 2 * hh + 1], scale_log2, -base_l2));
                sum += p0 + p1;
                p[2 * jj + hh] = pack_bf16(p0, p1); // = register (4jj + 2hh) / 2 of the fragment
            }
            row_sum[hh] = fmaf(row_sum[hh], alpha, sum);
#pragma unroll
            for (uint32_t jj = 0; jj < HD / 8u; ++jj) {
                o[4 * jj + 2 * hh] *= alpha;
                o[4 * jj + 2 * hh + 1] *= alpha;
            }
        }

        // ---- O += P · V_j
        sm90::mbar_wait(v_full0 + 8u * s, parity);
#pragma unroll
        for (uint32_t i = 0; i < kOAcc; ++i)
            sm90::reg_fence(o[i]);
#pragma unroll
        for (uint32_t i = 0; i < 32; ++i)
            reg_fence_u32(p[i]);
        sm90::wgmma_fence();
#pragma unroll
        for (uint32_t kk = 0; kk < kBN / 16u; ++kk) {
            const uint32_t a[4] = {p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]};
            PvMma<HD>::mma(o, a, wgmma_desc_mn128(sV + kk * 2048u, kColBlockKV));
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
#pragma unroll
        for (uint32_t i = 0; i < kOAcc; ++i)
            sm90::reg_fence(o[i]);
        // Both wgmma groups that read stage s have completed: release it to the producer.
        if (lane == 0)
            sm90::mbar_arrive(kv_empty0 + 8u * s);
    }

    // ---- epilogue: o[4jj + 2hh + e] = O[16 warp + g + 8hh][8jj + 2q + e]
    const size_t bh = (size_t)b * H + h;
    __nv_bfloat16 *ob = O + bh * S * D;
    float *lse = LSE + bh * S;
#pragma unroll
    for (uint32_t hh = 0; hh < 2; ++hh) {
        float l = row_sum[hh];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const uint32_t row = m0 + 64u * c + 16u * warp + g + 8u * hh;
        if (row >= S)
            continue;
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        __nv_bfloat16 *orow = ob + (size_t)row * D;
#pragma unroll
        for (uint32_t jj = 0; jj < HD / 8u; ++jj)
            *reinterpret_cast<uint32_t *>(orow + 8u * jj + 2u * q) =
                pack_bf16(o[4 * jj + 2 * hh] * inv, o[4 * jj + 2 * hh + 1] * inv);
        if (q == 0u)
            lse[row] = l > 0.0f ? fmaf(row_max[hh], scale, logf(l)) : -INFINITY;
    }
}

} // namespace attn

static_assert(attn_cfg::HeadTile<128>::smem_bytes == attn_cfg::manifest_smem_bytes,
              "the manifest's dynamic_shared_bytes (164928) is the 128-wide tiling's need");

// No __launch_bounds__: with one, ptxas derives the register limit from it and overrides
// -maxrregcount ("Overriding global maxrregcount ... with entry-specific value"), so the cap
// would not be the manifest's.
extern "C" __global__ void
mha_fwd_flags_include(const __grid_constant__ sm90::TensorMap tmap_q,
                      const __grid_constant__ sm90::TensorMap tmap_k,
                      const __grid_constant__ sm90::TensorMap tmap_v, __nv_bfloat16 *__restrict__ O,
                      float *__restrict__ LSE, unsigned int B, unsigned int H, unsigned int S,
                      unsigned int D)
{
    // A host-only constexpr function evaluated at run time on the device: needs
    // --expt-relaxed-constexpr. Uniform over the CTA, so every thread returns or none does.
    if (!attn_cfg::head_dim_supported(D) || blockIdx.z >= B || blockIdx.y >= H || S == 0u)
        return;
    if (D == 64u)
        attn::attn_tile<attn_cfg::HeadTile<64>>(&tmap_q, &tmap_k, &tmap_v, O, LSE, H, S, D);
    else
        attn::attn_tile<attn_cfg::HeadTile<128>>(&tmap_q, &tmap_k, &tmap_v, O, LSE, H, S, D);
}
