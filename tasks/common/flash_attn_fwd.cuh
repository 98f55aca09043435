// flash_attn_fwd.cuh — flash-attention-2 style forward pass on tensor cores (mma.sync m16n8k16
// bf16, ldmatrix, cp.async), shared by the mha_fwd examples: tasks/mha_fwd_d128 (BHSD, LSE),
// mha_fwd_d128_causal (causal), mha_fwd_bshd_d128_o (BSHD, no LSE), mha_fwd_gqa_d128 (K and V
// with H_kv heads) and mha_fwd_d256 (head dim 256).
//
// Math, per (b, h) and query row i, scale = 1/√D, allowed keys j < S (causal: also j ≤ i):
//   s_ij = q_i · k_j                        (raw score; the scale is applied inside the exponent)
//   m_i  = max_j s_ij,   l_i = Σ_j exp(scale·(s_ij − m_i))
//   O_i  = Σ_j exp(scale·(s_ij − m_i)) v_j / l_i                      (bf16 output)
//   LSE_i = scale·m_i + ln l_i = ln Σ_j exp(scale·s_ij)                (fp32 output)
// computed in one pass over key blocks with the online softmax: for each block, m_new =
// max(m, rowmax(s)), the running l and O are multiplied by α = exp(scale·(m − m_new)), and
// p = exp(scale·(s − m_new)) is added (l += Σ p, O += p·V). Exponentials are base 2:
// exp(scale·x) = 2^(x·scale·log2 e), one FFMA + one MUFU.EX2 per element. Masked scores are −inf
// (p = 0). While a row has seen only masked scores its m is −inf; the exponent base then uses 0
// instead of m_new so that −inf − (−inf) never produces NaN (α = 0, p = 0). Every row of a CTA
// has at least one allowed key in its first key block (key 0 ≤ i; padded rows i ≥ S still see
// keys < S), so l ≥ 1 at the end; l = 0 is nevertheless guarded (O = 0, LSE = −inf).
//
// Tiling: one CTA of 4 warps per (64 query rows, h, b); warp w owns query rows 16w..16w+15.
//   Shared: Q tile 64 × HD, K tile 64 × HD, V tile 64 × HD (bf16, rows padded by 16 bytes;
//   51 KiB at HD 128, 99 KiB at HD 256).
//   Per key block of 64 keys:
//     S (16 × 64 per warp, 8 n8 tiles, 32 fp32/thread) = Q·Kᵀ: per k16 step one ldmatrix.x4 of Q
//       (A, [m][k]) and four ldmatrix.x4 of K (B: K is [n = key][k = d]), 8 mma.
//     online softmax on the fragments (row max/sum over the 4 lanes of a quad: shfl.xor 1, 2).
//     O (16 × HD per warp, HD/8 n8 tiles, 64 fp32/thread for HD 128, 128 for HD 256) += P·V: P's
//       C fragments become A fragments in registers (fa::c_to_a); V is [k = key][n = d], i.e.
//       already k-major, so its B fragments come from ldmatrix.x4.trans.
//   Pipeline (single K and V buffers, as in flash-attention 2): the load of V_j overlaps Q·K_jᵀ;
//   the load of K_{j+1} overlaps the softmax and P·V_j. Barriers: (1) K_j landed and every warp is
//   done with V_{j−1} → load V_j; (2) V_j landed and every warp is done with K_j → load K_{j+1}.
//   Causal: key blocks past the diagonal are skipped; only the diagonal block is masked
//   (BlockM == BlockN and both start at multiples of 64); CTAs take query blocks in reverse order so
//   the longest ones start first.
//   Ragged S: rows/keys ≥ S are zero-filled by cp.async; keys ≥ S are masked; rows ≥ S are not
//   stored.
//   Epilogue: O = acc / l as bf16 pairs (4-byte stores, columns < D), LSE from lane t = 0 of each
//   quad.
//
// Variants (template parameters of flash_fwd_run): the layout of Q, K, V, O (fa::Layout: BHSD or
// BSHD; only the slice offsets and the row strides differ), GQA (query head h reads K/V head
// h / group, group = H / H_kv; 1 for plain multi-head attention), whether LSE is written (LSE is
// [B, H, S] whatever the layout), and the largest head dim (128: D = 64 runs a 64-wide
// instantiation, every other D the 128-wide one; 256: one 256-wide instantiation whose O
// accumulator is 128 fp32 per thread, 16 rows × 256 per warp).
//
// Launch: grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared memory
// FA_FWD_SMEM_BYTES = 52224 bytes (max head dim 128, whatever D is) or FA_FWD_SMEM_BYTES_D256 =
// 101376 bytes (max head dim 256).
// Requirements: 8 ≤ D ≤ max head dim, D % 8 == 0 (else the kernel returns without writing);
// GQA: H % H_kv == 0.
#ifndef PTXGATE_FLASH_ATTN_FWD_CUH
#define PTXGATE_FLASH_ATTN_FWD_CUH

#include "flash_attn.cuh"

#define FA_FWD_SMEM_BYTES (3u * 64u * (128u * 2u + 16u)) /* Q, K, V tiles at HD 128: 52224 */
#define FA_FWD_SMEM_BYTES_D256 (3u * 64u * (256u * 2u + 16u)) /* at HD 256: 101376 */

namespace fa {

// One CTA's (b, h) problem: row 0 of the S × D slices of Q, K, V, O (D contiguous; row strides
// in elements) and of LSE (S floats, unused unless the body writes LSE).
struct FwdSlices {
    const __nv_bfloat16 *q, *k, *v;
    __nv_bfloat16 *o;
    float *lse;
    uint32_t ld_q, ld_kv, ld_o;
};

// A forward launch: whole tensors and sizes. H_kv heads of K and V, group = H / H_kv query
// heads per KV head (H_kv = H and group = 1 without GQA).
struct FwdArgs {
    const __nv_bfloat16 *Q, *K, *V;
    __nv_bfloat16 *O;
    float *LSE;
    uint32_t B, H, H_kv, group, S, D;
};

template <uint32_t HD, bool CAUSAL, bool LSE_OUT>
__device__ __forceinline__ void flash_fwd_body(const FwdSlices &p, uint32_t S, uint32_t D,
                                               uint32_t smem_base)
{
    constexpr uint32_t kTileBytes = kBlockM * tile_pitch<HD>();
    constexpr uint32_t kNT = kBlockN / 8u;   // n8 tiles of S per warp (8)
    constexpr uint32_t kDT = HD / 8u;        // n8 tiles of O per warp (16 or 8)
    static_assert(kBlockM == kBlockN, "the causal diagonal logic assumes square blocks");

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid & 31u, warp = tid >> 5;
    const uint32_t g = lane >> 2, t = lane & 3u;

    const uint32_t mb = CAUSAL ? gridDim.x - 1u - blockIdx.x : blockIdx.x;
    const uint32_t m0 = mb * kBlockM;
    const __nv_bfloat16 *__restrict__ q = p.q;
    const __nv_bfloat16 *__restrict__ k = p.k;
    const __nv_bfloat16 *__restrict__ v = p.v;
    const uint32_t ld_q = p.ld_q, ld_kv = p.ld_kv;

    const uint32_t sQ = smem_base, sK = smem_base + kTileBytes, sV = smem_base + 2u * kTileBytes;

    // Keys this CTA needs: all of [0, S), or causal [0, min(S, m0 + 64)).
    const uint32_t kv_end = CAUSAL ? min(S, m0 + kBlockM) : S;
    const uint32_t n_blocks = (kv_end + kBlockN - 1u) / kBlockN;

    const float scale = 1.0f / sqrtf((float)D);
    const float scale_log2 = scale * kLog2e;

    load_tile<HD, kBlockM>(sQ, q, m0, S, D, ld_q, tid);
    load_tile<HD, kBlockN>(sK, k, 0u, S, D, ld_kv, tid);
    gtm::cp_async_commit();

    float o_acc[kDT][4];   // 16 × HD per warp: 32, 64 or 128 fp32 per thread
#pragma unroll
    for (uint32_t i = 0; i < kDT; ++i)
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) o_acc[i][e] = 0.0f;
    float row_max[2] = {-INFINITY, -INFINITY};   // rows g and g+8 of the warp's 16, raw scores
    float row_sum[2] = {0.0f, 0.0f};             // this lane's partial sums (quad-reduced at the end)

    // ldmatrix lane addresses (flash_attn.cuh): Q as A (lane_a), K as B (lane_b), V as B via .trans
    // (lane_a).
    const uint32_t la_row = lane & 15u, la_chk = lane >> 4;
    const uint32_t lb_row = ((lane >> 4) << 3) + (lane & 7u), lb_chk = (lane >> 3) & 1u;
    const uint32_t q_row = warp * 16u + la_row;

    for (uint32_t j = 0; j < n_blocks; ++j) {
        const uint32_t n0 = j * kBlockN;
        gtm::cp_async_wait<0>();   // K_j (and, at j = 0, Q) landed for this thread's copies
        __syncthreads();           // … for all threads; every warp is done reading V_{j-1}
        load_tile<HD, kBlockN>(sV, v, n0, S, D, ld_kv, tid);
        gtm::cp_async_commit();

        // ---- S = Q·K_jᵀ (raw scores)
        float s[kNT][4];
#pragma unroll
        for (uint32_t i = 0; i < kNT; ++i)
#pragma unroll
            for (uint32_t e = 0; e < 4; ++e) s[i][e] = 0.0f;
#pragma unroll
        for (uint32_t kk = 0; kk < HD / 16u; ++kk) {
            uint32_t qa[4];
            ldsm_x4(qa, sQ + tile_off<HD>(q_row, la_chk + 2u * kk));
#pragma unroll
            for (uint32_t p = 0; p < kBlockN / 16u; ++p) {
                uint32_t kb[4];
                ldsm_x4(kb, sK + tile_off<HD>(16u * p + lb_row, lb_chk + 2u * kk));
                mma(s[2 * p], qa, kb[0], kb[1]);
                mma(s[2 * p + 1], qa, kb[2], kb[3]);
            }
        }

        // ---- masks: keys ≥ S (ragged last block), keys > query (causal diagonal block)
        const bool need_mask = (n0 + kBlockN > S) || (CAUSAL && n0 + kBlockN - 1u > m0);
        if (need_mask) {
#pragma unroll
            for (uint32_t i = 0; i < kNT; ++i)
#pragma unroll
                for (uint32_t e = 0; e < 4; ++e) {
                    const uint32_t col = n0 + 8u * i + 2u * t + (e & 1u);
                    const uint32_t row = m0 + warp * 16u + g + 8u * (e >> 1);
                    if (col >= S || (CAUSAL && col > row)) s[i][e] = -INFINITY;
                }
        }

        // ---- online softmax; s becomes p = exp(scale·(s − m_new))
#pragma unroll
        for (uint32_t hh = 0; hh < 2; ++hh) {
            float mx = row_max[hh];
#pragma unroll
            for (uint32_t i = 0; i < kNT; ++i) mx = fmaxf(mx, fmaxf(s[i][2 * hh], s[i][2 * hh + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float base = (mx == -INFINITY) ? 0.0f : mx * scale_log2;
            const float alpha = exp2_approx(fmaf(row_max[hh], scale_log2, -base));   // 0 if m = −inf
            row_max[hh] = mx;
            float sum = 0.0f;
#pragma unroll
            for (uint32_t i = 0; i < kNT; ++i) {
                s[i][2 * hh] = exp2_approx(fmaf(s[i][2 * hh], scale_log2, -base));
                s[i][2 * hh + 1] = exp2_approx(fmaf(s[i][2 * hh + 1], scale_log2, -base));
                sum += s[i][2 * hh] + s[i][2 * hh + 1];
            }
            row_sum[hh] = fmaf(row_sum[hh], alpha, sum);
#pragma unroll
            for (uint32_t i = 0; i < kDT; ++i) {
                o_acc[i][2 * hh] *= alpha;
                o_acc[i][2 * hh + 1] *= alpha;
            }
        }

        gtm::cp_async_wait<0>();   // V_j landed
        __syncthreads();           // … for all threads; every warp is done reading K_j
        if (j + 1u < n_blocks) load_tile<HD, kBlockN>(sK, k, n0 + kBlockN, S, D, ld_kv, tid);
        gtm::cp_async_commit();

        // ---- O += P·V_j
#pragma unroll
        for (uint32_t kk = 0; kk < kBlockN / 16u; ++kk) {
            uint32_t pa[4];
            c_to_a(pa, s[2 * kk], s[2 * kk + 1]);
#pragma unroll
            for (uint32_t dp = 0; dp < HD / 16u; ++dp) {
                uint32_t vb[4];
                ldsm_x4_trans(vb, sV + tile_off<HD>(16u * kk + la_row, la_chk + 2u * dp));
                mma(o_acc[2 * dp], pa, vb[0], vb[1]);
                mma(o_acc[2 * dp + 1], pa, vb[2], vb[3]);
            }
        }
    }
    gtm::cp_async_wait<0>();   // only an empty group can be pending

    // ---- epilogue
    __nv_bfloat16 *__restrict__ o = p.o;
    float *__restrict__ lse = p.lse;
#pragma unroll
    for (uint32_t hh = 0; hh < 2; ++hh) {
        float l = row_sum[hh];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const uint32_t row = m0 + warp * 16u + g + 8u * hh;
        if (row >= S) continue;
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        __nv_bfloat16 *orow = o + (size_t)row * p.ld_o;
#pragma unroll
        for (uint32_t i = 0; i < kDT; ++i) {
            const uint32_t col = 8u * i + 2u * t;   // even; D % 8 == 0 → col + 1 < D too
            if (col < D)
                *reinterpret_cast<uint32_t *>(orow + col) =
                    pack_bf16(o_acc[i][2 * hh] * inv, o_acc[i][2 * hh + 1] * inv);
        }
        if (LSE_OUT && t == 0u) lse[row] = l > 0.0f ? fmaf(row_max[hh], scale, logf(l)) : -INFINITY;
    }
}

// The entry body of one launch: the CTA's (b = blockIdx.z, h = blockIdx.y) slices in layout L,
// K and V of head h / a.group, then the body of the narrowest width that holds D: MAX_HD 128
// runs D = 64 at width 64 and every other D at 128; MAX_HD 256 runs every D at 256. An
// unsupported D (or a CTA outside B × H) returns without writing.
template <Layout L, bool CAUSAL, bool LSE_OUT, uint32_t MAX_HD>
__device__ __forceinline__ void flash_fwd_run(const FwdArgs &a)
{
    static_assert(MAX_HD == 128u || MAX_HD == 256u, "head-dim widths 64/128 or 256");
    extern __shared__ __align__(128) unsigned char fa_fwd_smem[];
    const uint32_t smem_base = (uint32_t)__cvta_generic_to_shared(fa_fwd_smem);
    if (!head_dim_ok<MAX_HD>(a.D) || blockIdx.z >= a.B || blockIdx.y >= a.H) return;
    const uint32_t b = blockIdx.z, h = blockIdx.y, hk = h / a.group;
    const size_t q_off = slice_offset<L>(b, h, a.H, a.S, a.D);
    const size_t kv_off = slice_offset<L>(b, hk, a.H_kv, a.S, a.D);
    FwdSlices p;
    p.q = a.Q + q_off;
    p.k = a.K + kv_off;
    p.v = a.V + kv_off;
    p.o = a.O + q_off;
    p.lse = LSE_OUT ? a.LSE + ((size_t)b * a.H + h) * a.S : nullptr;   // [B, H, S] always
    p.ld_q = p.ld_o = row_stride<L>(a.H, a.D);
    p.ld_kv = row_stride<L>(a.H_kv, a.D);
    if (MAX_HD == 256u) {   // a template constant: the other widths are not emitted
        flash_fwd_body<256, CAUSAL, LSE_OUT>(p, a.S, a.D, smem_base);
    } else {
        if (a.D == 64u)
            flash_fwd_body<64, CAUSAL, LSE_OUT>(p, a.S, a.D, smem_base);
        else
            flash_fwd_body<128, CAUSAL, LSE_OUT>(p, a.S, a.D, smem_base);
    }
}

// The mha_fwd_d128 / mha_fwd_d128_causal entry body: BHSD, no GQA, LSE written, D ≤ 128.
template <bool CAUSAL>
__device__ __forceinline__ void flash_fwd(const __nv_bfloat16 *Q, const __nv_bfloat16 *K,
                                          const __nv_bfloat16 *V, __nv_bfloat16 *O, float *LSE,
                                          uint32_t B, uint32_t H, uint32_t S, uint32_t D)
{
    const FwdArgs a = {Q, K, V, O, LSE, B, H, H, 1u, S, D};
    flash_fwd_run<Layout::BHSD, CAUSAL, true, 128>(a);
}

}  // namespace fa

#endif  // PTXGATE_FLASH_ATTN_FWD_CUH
