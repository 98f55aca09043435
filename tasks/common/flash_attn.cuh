// flash_attn.cuh — device helpers shared by the attention examples (flash_attn_fwd.cuh,
// flash_attn_bwd.cuh): the bf16 mma.sync / ldmatrix / cp.async / red wrappers, the padded
// shared-memory layout of a [rows × head dim] tile, and the tile loader with bounds checks.
//
// Tensors are row-major bf16 in one of two layouts (fa::Layout): BHSD [B, H, S, D], element
// (b, h, s, d) at ((b·H + h)·S + s)·D + d, or BSHD [B, S, H, D], at ((b·S + s)·H + h)·D + d.
// Either way the (b, h) slice is an S × D matrix with D contiguous and a row stride `ld` of D
// (BHSD) or H·D (BSHD) elements; D % 8 == 0 makes every row start 16-byte aligned and splits it
// into D/8 16-byte chunks that are entirely in or out of range. GQA: the slice of K and V that
// query head h reads is KV head h / (H / H_kv), with H_kv in place of H in the offset.
//
// mma.sync.m16n8k16 fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"), per lane with
// g = lane / 4 (group) and t = lane % 4 (thread in group); each 32-bit register holds two bf16,
// the lower column / k index in the lower 16 bits:
//   A (16 × 16, row-major "row"): a0 = (g, 2t..2t+1)  a1 = (g+8, 2t..2t+1)
//                                 a2 = (g, 2t+8..2t+9)  a3 = (g+8, 2t+8..2t+9)       (row, k)
//   B (16 × 8, "col"):            b0 = (k 2t..2t+1, n g)  b1 = (k 2t+8..2t+9, n g)
//   C/D (16 × 8, fp32):           c0, c1 = (g, 2t), (g, 2t+1)   c2, c3 = (g+8, 2t), (g+8, 2t+1)
// Hence the C fragments of two adjacent n8 tiles (columns 16k..16k+7 and 16k+8..16k+15) are,
// packed to bf16 pairs, exactly the A fragment of the k16 step k: a0 = C[2k].c0c1,
// a1 = C[2k].c2c3, a2 = C[2k+1].c0c1, a3 = C[2k+1].c2c3 (fa::c_to_a). This is how P (and dS)
// feed the next matmul from registers.
//
// ldmatrix.m8n8.x4: lanes 8i..8i+7 give the row addresses of 8×8 matrix i; register i of lane l
// receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i (with .trans: of its transpose, i.e.
// rows 2(l%4), 2(l%4)+1 of column l/4). Three address patterns cover every operand used here
// (r = row offset inside the tile, c = 16-byte chunk offset):
//   lane_a  (r = l % 16,                c = l / 16):      non-trans → the A fragment of a
//           16 × 16 block stored [m][k]; .trans → the B fragments (b0, b1 of n tile 0, then
//           b0, b1 of n tile 1) of a 16 (k) × 16 (n) block stored [k][n].
//   lane_b  (r = 8·(l / 16) + l % 8,    c = (l / 8) % 2): non-trans → the B fragments of two
//           n8 tiles of a 16 (n) × 16 (k) block stored [n][k].
//   lane_at (r = 8·(l / 16) + l % 8,    c = (l / 8) % 2): .trans → the A fragment of a 16 (m) ×
//           16 (k) block stored transposed, [k][m] (matrix 1 = m 8..15 of k 0..7 sits one chunk
//           to the right, matrix 2 = k 8..15 eight rows down) — the same addresses as lane_b.
#ifndef PTXGATE_FLASH_ATTN_CUH
#define PTXGATE_FLASH_ATTN_CUH

#include "gemm_tiled_mma.cuh"   // gtm::cp_async_16 / commit / wait, gtm::ldmatrix_x4, bf16 mma

namespace fa {

// Query rows and key rows per tile; 4 warps, each owning 16 rows of the 64-row tile.
constexpr uint32_t kBlockM = 64;
constexpr uint32_t kBlockN = 64;
constexpr uint32_t kThreads = 128;
constexpr uint32_t kMaxHeadDim = 128;
constexpr float kLog2e = 1.4426950408889634f;   // log2(e)

// D values a kernel of maximum head dim MAX_HD accepts: 8 ≤ D ≤ MAX_HD and D % 8 == 0 (an
// instantiation of width HD ≥ D runs it with the columns ≥ D zero-filled).
template <uint32_t MAX_HD> __device__ __forceinline__ bool head_dim_ok(uint32_t D)
{
    return D >= 8u && D <= MAX_HD && (D & 7u) == 0u;
}

// The D values of the 128-wide kernels (D = 64 has its own instantiation, every other accepted
// D runs the 128-wide one).
__device__ __forceinline__ bool head_dim_supported(uint32_t D) { return head_dim_ok<kMaxHeadDim>(D); }

// ---- tensor layouts --------------------------------------------------------------------------
enum class Layout { BHSD, BSHD };

// Element offset of row 0 of the (b, h) slice of a tensor with NH heads (H for Q and O, H_kv for
// K and V) in layout L.
template <Layout L>
__device__ __forceinline__ size_t slice_offset(uint32_t b, uint32_t h, uint32_t NH, uint32_t S,
                                               uint32_t D)
{
    if (L == Layout::BHSD) return ((size_t)b * NH + h) * S * D;
    return ((size_t)b * S * NH + h) * D;
}

// Elements between consecutive rows (s, s + 1) of a slice in layout L.
template <Layout L> __device__ __forceinline__ uint32_t row_stride(uint32_t NH, uint32_t D)
{
    return L == Layout::BHSD ? D : NH * D;
}

// d = a·b + d, m16n8k16, bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    gtm::Traits<__nv_bfloat16>::mma(d, a, b0, b1);
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t smem_addr)
{
    gtm::ldmatrix_x4(r, smem_addr);
}

__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr)
                 : "memory");
}

// Two floats → one register of two bf16 (round to nearest even); lo in the lower 16 bits.
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}

// Inverse of pack_bf16 (exact: bf16 → fp32 is a 16-bit shift).
__device__ __forceinline__ float2 unpack_bf16(uint32_t v)
{
    return make_float2(__uint_as_float(v << 16), __uint_as_float(v & 0xffff0000u));
}

// A fragment of k16 step k from the fp32 C fragments of n8 tiles 2k and 2k+1 (see the top).
__device__ __forceinline__ void c_to_a(uint32_t (&a)[4], const float (&c0)[4], const float (&c1)[4])
{
    a[0] = pack_bf16(c0[0], c0[1]);
    a[1] = pack_bf16(c0[2], c0[3]);
    a[2] = pack_bf16(c1[0], c1[1]);
    a[3] = pack_bf16(c1[2], c1[3]);
}

// 2^x (MUFU.EX2, about 2 ulp); 2^-inf = +0.
__device__ __forceinline__ float exp2_approx(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// ---- shared-memory tiles -------------------------------------------------------------------
// A tile of R rows × HD bf16 columns (HD = 64, 128 or 256: 8, 16 or 32 chunks of 16 bytes) with a
// row pitch of HD·2 + 16 bytes: one 16-byte pad per row. Consecutive rows start 16 bytes apart modulo
// the 128-byte bank window (pitch mod 128 = 16), so the 8 row addresses of every ldmatrix 8×8
// matrix (8 consecutive rows, one chunk) hit 8 different 16-byte bank groups — no bank
// conflicts — and cp.async destinations stay 16-byte aligned. Unlike an XOR swizzle, the offset
// is linear in row and chunk: every per-step offset folds into the ldmatrix immediate, which keeps
// address registers out of the (tight) register budget.
template <uint32_t HD> __host__ __device__ constexpr uint32_t tile_pitch() { return HD * 2u + 16u; }

template <uint32_t HD> __device__ __forceinline__ uint32_t tile_off(uint32_t row, uint32_t chunk)
{
    return row * tile_pitch<HD>() + (chunk << 4);
}

// Issue (no commit) the cp.async copies of rows [row0, row0 + ROWS) of the S × D matrix `src`
// (row stride `ld` elements, D contiguous) into the tile at shared address `dst`. Rows ≥ S and chunks at columns ≥ D are written as
// zeros (cp.async src-size 0, nothing read), so padded keys, values and queries are exact zeros:
// they can never inject NaN/Inf into an mma (0·x = 0 only for finite x). All kThreads threads of
// the CTA must call it.
template <uint32_t HD, uint32_t ROWS>
__device__ __forceinline__ void load_tile(uint32_t dst, const __nv_bfloat16 *src, uint32_t row0,
                                          uint32_t S, uint32_t D, uint32_t ld, uint32_t tid)
{
    constexpr uint32_t kChunks = HD / 8u;                    // 16-byte chunks per row
    constexpr uint32_t kRowsPerPass = kThreads / kChunks;     // 4 (HD 256), 8 (HD 128), 16 (HD 64)
    static_assert(ROWS % kRowsPerPass == 0, "tile rows must be a multiple of a pass");
    const uint32_t c = tid % kChunks;
    const uint32_t r_first = tid / kChunks;
    const bool c_ok = c * 8u < D;
    const __nv_bfloat16 *g = src + (size_t)(row0 + r_first) * ld + c * 8u;   // row r_first's chunk
    const size_t g_step = (size_t)kRowsPerPass * ld;
#pragma unroll
    for (uint32_t i = 0; i < ROWS / kRowsPerPass; ++i, g += g_step) {
        const uint32_t r = r_first + i * kRowsPerPass;
        const bool ok = c_ok && row0 + r < S;
        gtm::cp_async_16(dst + tile_off<HD>(r, c), ok ? (const void *)g : (const void *)src, ok ? 16u : 0u);
    }
}

// Shared-memory load of two consecutive floats (8-byte aligned) and store of one 32-bit word.
// volatile + "memory": ordered against the barriers and the other shared-memory asm.
__device__ __forceinline__ float2 lds_f32x2(uint32_t smem_addr)
{
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(smem_addr) : "memory");
    return v;
}

__device__ __forceinline__ void sts_b32(uint32_t smem_addr, uint32_t v)
{
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(smem_addr), "r"(v) : "memory");
}

// *addr += (x, y) as one 8-byte reduction (no return value), addr 8-byte aligned (sm_90+).
__device__ __forceinline__ void red_add_f32x2(float *addr, float x, float y)
{
    asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(addr), "f"(x), "f"(y) : "memory");
}

// 4-byte cp.async (zero-filled when !ok) for per-row fp32 vectors such as LSE.
__device__ __forceinline__ void cp_async_4(uint32_t dst, const float *src, bool ok)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :
                 : "r"(dst), "l"(src), "r"(ok ? 4u : 0u)
                 : "memory");
}

}  // namespace fa

#endif  // PTXGATE_FLASH_ATTN_CUH
