// flash_attn_bwd.cuh — flash-attention-2 style backward pass in three launches (preprocess, main,
// dQ conversion), shared by tasks/mha_bwd_d128/examples/flash_bwd.cu,
// tasks/mha_bwd_d128_causal/examples/flash_bwd.cu, the failure fixture
// tests/fixtures/mha_bwd_d128/wrong_dv/wrong_dv.cu, and (with GQA, four launches)
// tasks/mha_bwd_gqa_d128/examples/flash_bwd_gqa.cu.
//
// Math, per (b, h), scale = 1/√D, with the forward's LSE (natural log) as input:
//   P_ij  = exp(scale·q_i·k_j − LSE_i)   for allowed (i, j): i, j < S and (causal) j ≤ i; else 0
//   Δ_i   = Σ_d dO_id·O_id                                       (= Σ_j P_ij·dP_ij)
//   dP_ij = dO_i · v_j
//   dS_ij = P_ij·(dP_ij − Δ_i)                                   (gradient w.r.t. scale·q_i·k_j)
//   dV_j  = Σ_i P_ij·dO_i      dK_j = scale·Σ_i dS_ij·q_i      dQ_i = scale·Σ_j dS_ij·k_j
//
// Launch 1, preprocess (flash_bwd_preprocess): Δ into the fp32 workspace `delta` [B·H·S], and
// zeros into the fp32 workspace `dq_accum` [B·H·S·D] (done here on every run, so the main
// kernel's atomic adds never see a previous run's sums and the workspaces' initial contents do
// not matter). A half-warp per row, one 16-byte chunk (8 elements) per lane, shuffle reduction.
//   grid (ceil_div(B·H·S, 16), 1, 1), block (256, 1, 1).
// Launch 2, main (flash_bwd_main): one CTA of 4 warps per (64 keys, h, b); warp w owns keys
// 16w..16w+15 of the block, whose dK and dV (16 × HD each, 128 fp32/thread at HD 128) stay in
// registers while the CTA walks the query blocks (causal: from the diagonal block on). Per query
// block of 64 rows (K and V tiles resident in shared memory; Q, dO, LSE, Δ double-buffered, the
// next block's cp.async copies overlapping the whole current block):
//   Sᵀ  = K_w·Qᵀ       (16 keys × 64 queries per warp; A = K [m][k] ldmatrix, B = Q [n][k] ldmatrix)
//   Pᵀ  = exp2(Sᵀ·scale·log2 e − LSE·log2 e), masked entries 0
//   dPᵀ = V_w·dOᵀ      (A = V ldmatrix, B = dO [n][k] ldmatrix)
//   dV += Pᵀ·dO        (A = Pᵀ from registers, B = dO [k][n] ldmatrix.trans)
//   dSᵀ = Pᵀ∘(dPᵀ − Δ) (fp32 in registers; Δ per column)
//   dK += dSᵀ·Q        (A = dSᵀ from registers, B = Q [k][n] ldmatrix.trans); dSᵀ is also
//                      stored to shared memory as bf16 [key][query]
//   barrier, then dQ_i += dS·K for the warp's 16 queries (A = dS read transposed from the stored
//   dSᵀ with ldmatrix.trans, B = K [k][n] ldmatrix.trans), added to dq_accum with 8-byte
//   atomic adds (red.global.add.v2.f32, sm_90); the scale is applied by launch 3.
//   At the end dK (times scale) and dV are stored as bf16 (keys < S, columns < D).
//   grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared memory FA_BWD_SMEM_BYTES.
// Launch 3, convert (flash_bwd_convert_dq): dQ = bf16(scale·dq_accum), 8 elements per thread.
//   grid (ceil_div(B·H·S·D, 2048), 1, 1), block (256, 1, 1).
//
// GQA (H_kv KV heads, group = H / H_kv query heads each; query head h reads KV head h / group):
// the same main kernel per (64 keys, query head h, b), reading K and V of head h / group; since
// dK_j and dV_j of a KV head are sums over its group, each CTA adds its dK (times scale) and dV
// to fp32 workspaces `dk_accum`, `dv_accum` [B·H_kv·S·D] (zeroed by launch 1) with
// red.global.add.v2.f32 instead of storing bf16, and a fourth launch (flash_bwd_convert_dkv)
// rounds them to bf16. The adds happen once per CTA (64 keys × D × 2), against the 64 × D
// dQ adds per query block, so they cost little; the order of the adds varies from run to run,
// so dK and dV (as dQ already) are not bitwise deterministic.
//
// Masking: keys ≥ S, queries ≥ S and (causal) key > query give P = 0 and therefore dS = 0; their
// Q/K/V/dO rows and LSE/Δ values are zero-filled by cp.async, so no NaN can enter. BlockM == BlockN
// and both start at multiples of 64, so only the diagonal block needs the causal test.
// Requirements: 8 ≤ D ≤ 128, D % 8 == 0 (else every kernel returns without writing).
#ifndef PTXGATE_FLASH_ATTN_BWD_CUH
#define PTXGATE_FLASH_ATTN_BWD_CUH

#include "flash_attn.cuh"

// Shared memory of the main kernel at HD 128: K, V (64 × 128 bf16 each), Q and dO (two buffers
// each), dSᵀ (64 × 64 bf16), LSE and Δ (two buffers of 64 fp32 each) = 114688 bytes (tile rows
// padded to 272 bytes, dSᵀ rows to 144 bytes).
#define FA_BWD_SMEM_BYTES (6u * 64u * (128u * 2u + 16u) + 64u * (64u * 2u + 16u) + 4u * 256u)

namespace fa {

// ---- launch 1 --------------------------------------------------------------------------------
// Δ and the zeroed dq_accum for rows [0, rows) = B·H·S; with ZERO_KV also zeroes rows
// [0, kv_rows) (kv_rows = B·H_kv·S ≤ rows) of the GQA accumulators dk_accum and dv_accum.
template <bool ZERO_KV>
__device__ __forceinline__ void flash_bwd_preprocess_rows(const __nv_bfloat16 *__restrict__ O,
                                                          const __nv_bfloat16 *__restrict__ dO,
                                                          float *__restrict__ delta,
                                                          float *__restrict__ dq_accum,
                                                          float *__restrict__ dk_accum,
                                                          float *__restrict__ dv_accum,
                                                          size_t rows, size_t kv_rows, uint32_t D)
{
    if (!head_dim_supported(D)) return;
    const size_t row = (size_t)blockIdx.x * 16u + (threadIdx.x >> 4);   // 16 rows per 256 threads
    const uint32_t c = threadIdx.x & 15u;                                // chunk: columns 8c..8c+7
    if (ZERO_KV && row < kv_rows && c * 8u < D) {
        const size_t off = row * D + c * 8u;
        float4 *zk = reinterpret_cast<float4 *>(dk_accum + off);   // 32-byte aligned
        float4 *zv = reinterpret_cast<float4 *>(dv_accum + off);
        zk[0] = zk[1] = zv[0] = zv[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float acc = 0.0f;
    if (row < rows && c * 8u < D) {
        const size_t off = row * D + c * 8u;   // 16-byte aligned (D % 8 == 0)
        const uint4 o4 = *reinterpret_cast<const uint4 *>(O + off);
        const uint4 d4 = *reinterpret_cast<const uint4 *>(dO + off);
        const __nv_bfloat162 *o2 = reinterpret_cast<const __nv_bfloat162 *>(&o4);
        const __nv_bfloat162 *d2 = reinterpret_cast<const __nv_bfloat162 *>(&d4);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 of = __bfloat1622float2(o2[i]);
            const float2 df = __bfloat1622float2(d2[i]);
            acc = fmaf(of.x, df.x, acc);
            acc = fmaf(of.y, df.y, acc);
        }
        float4 *z = reinterpret_cast<float4 *>(dq_accum + off);   // 32-byte aligned
        z[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        z[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    // Sum over the 16 lanes of the half-warp (xor offsets < 16 stay inside it).
#pragma unroll
    for (uint32_t off = 8; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (c == 0u && row < rows) delta[row] = acc;
}

__device__ __forceinline__ void flash_bwd_preprocess(const __nv_bfloat16 *__restrict__ O,
                                                     const __nv_bfloat16 *__restrict__ dO,
                                                     float *__restrict__ delta,
                                                     float *__restrict__ dq_accum, uint32_t B,
                                                     uint32_t H, uint32_t S, uint32_t D)
{
    flash_bwd_preprocess_rows<false>(O, dO, delta, dq_accum, nullptr, nullptr, (size_t)B * H * S,
                                     0u, D);
}

// GQA: also zeroes dk_accum and dv_accum [B·H_kv·S·D].
__device__ __forceinline__ void flash_bwd_preprocess_gqa(const __nv_bfloat16 *__restrict__ O,
                                                         const __nv_bfloat16 *__restrict__ dO,
                                                         float *__restrict__ delta,
                                                         float *__restrict__ dq_accum,
                                                         float *__restrict__ dk_accum,
                                                         float *__restrict__ dv_accum, uint32_t B,
                                                         uint32_t H, uint32_t H_kv, uint32_t S,
                                                         uint32_t D)
{
    if (H_kv == 0u || H % H_kv != 0u) return;
    flash_bwd_preprocess_rows<true>(O, dO, delta, dq_accum, dk_accum, dv_accum, (size_t)B * H * S,
                                    (size_t)B * H_kv * S, D);
}

// ---- launch 3 (and 4) -------------------------------------------------------------------------
// dst[8i .. 8i+7] = bf16(scale·src[8i .. 8i+7]) (16-byte store).
__device__ __forceinline__ void convert8_bf16(const float *__restrict__ src,
                                              __nv_bfloat16 *__restrict__ dst, size_t i, float scale)
{
    const float4 a = reinterpret_cast<const float4 *>(src)[2 * i];
    const float4 b = reinterpret_cast<const float4 *>(src)[2 * i + 1];
    uint4 out;
    out.x = pack_bf16(a.x * scale, a.y * scale);
    out.y = pack_bf16(a.z * scale, a.w * scale);
    out.z = pack_bf16(b.x * scale, b.y * scale);
    out.w = pack_bf16(b.z * scale, b.w * scale);
    reinterpret_cast<uint4 *>(dst)[i] = out;
}

__device__ __forceinline__ void flash_bwd_convert_dq(const float *__restrict__ dq_accum,
                                                     __nv_bfloat16 *__restrict__ dQ, uint32_t B,
                                                     uint32_t H, uint32_t S, uint32_t D)
{
    if (!head_dim_supported(D)) return;
    const size_t n8 = (size_t)B * H * S * D / 8u;   // D % 8 == 0: whole groups of 8
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8) return;
    convert8_bf16(dq_accum, dQ, i, 1.0f / sqrtf((float)D));
}

// GQA launch 4: dK = bf16(dk_accum), dV = bf16(dv_accum) over [B·H_kv·S·D] (the main kernel
// already applied the scale to dK), 8 elements of each per thread.
__device__ __forceinline__ void flash_bwd_convert_dkv(const float *__restrict__ dk_accum,
                                                      const float *__restrict__ dv_accum,
                                                      __nv_bfloat16 *__restrict__ dK,
                                                      __nv_bfloat16 *__restrict__ dV, uint32_t B,
                                                      uint32_t H_kv, uint32_t S, uint32_t D)
{
    if (!head_dim_supported(D)) return;
    const size_t n8 = (size_t)B * H_kv * S * D / 8u;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8) return;
    convert8_bf16(dk_accum, dK, i, 1.0f);
    convert8_bf16(dv_accum, dV, i, 1.0f);
}

// ---- launch 2 --------------------------------------------------------------------------------
// One CTA's (b, h) problem (BHSD slices, row stride D): q, dout, lse, dlt, dqa of query head h;
// k, v of KV head h / group; and either the bf16 dK, dV rows of that KV head (!DKV_ACCUM; then
// group is 1) or its fp32 accumulators dk_acc, dv_acc (DKV_ACCUM: GQA).
struct BwdSlices {
    const __nv_bfloat16 *q, *k, *v, *dout;
    const float *lse, *dlt;
    float *dqa;
    __nv_bfloat16 *dk, *dv;
    float *dk_acc, *dv_acc;
};

// kWrongDvRow is for the failure fixture only (tests/fixtures/mha_bwd_d128/wrong_dv): when set,
// dV += Pᵀ·dO reads dO row i^1 (the neighbouring query) instead of row i. That is invisible when
// every dO row is the same (e.g. all ones) and wrong for random dO.
template <uint32_t HD, bool CAUSAL, bool kWrongDvRow, bool DKV_ACCUM>
__device__ __forceinline__ void flash_bwd_main_body(const BwdSlices &sl, uint32_t S, uint32_t D,
                                                    uint32_t smem_base)
{
    constexpr uint32_t kSlot = kBlockM * tile_pitch<128>();   // one tile slot (sized for HD 128)
    constexpr uint32_t kDsPitch = kBlockM * 2u + 16u;          // dSᵀ row: 64 bf16 + 16-byte pad
    constexpr uint32_t kNT = kBlockM / 8u;               // n8 tiles of Sᵀ per warp (queries): 8
    constexpr uint32_t kDT = HD / 8u;                    // n8 tiles of dK/dV per warp: 16 or 8
    static_assert(kBlockM == kBlockN, "the causal diagonal logic assumes square blocks");
    static_assert(kBlockM == 64u && kThreads == 128u, "4 warps × 16 rows; LSE/Δ copies use 2 × 64 threads");

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid & 31u, warp = tid >> 5;
    const uint32_t g = lane >> 2, t = lane & 3u;

    const uint32_t nb = blockIdx.x;
    const uint32_t n0 = nb * kBlockN;
    const __nv_bfloat16 *__restrict__ q = sl.q, *__restrict__ k = sl.k, *__restrict__ v = sl.v,
                        *__restrict__ dout = sl.dout;
    const float *__restrict__ lse = sl.lse, *__restrict__ dlt = sl.dlt;
    float *__restrict__ dqa = sl.dqa;

    // Shared memory map (byte offsets; HD 64 uses the first half of each tile slot).
    const uint32_t sK = smem_base;
    const uint32_t sV = sK + kSlot;
    const uint32_t sQ0 = sV + kSlot;            // sQ[buf] = sQ0 + buf·kSlot
    const uint32_t sdO0 = sQ0 + 2u * kSlot;     // sdO[buf] = sdO0 + buf·kSlot
    const uint32_t sdS = sdO0 + 2u * kSlot;     // 64 keys × 64 queries bf16, kDsPitch-byte rows
    const uint32_t sLSE0 = sdS + kBlockN * kDsPitch;   // sLSE[buf] = sLSE0 + buf·256
    const uint32_t sDel0 = sLSE0 + 512u;       // sDel[buf] = sDel0 + buf·256

    const float scale = 1.0f / sqrtf((float)D);
    const float scale_log2 = scale * kLog2e;

    const uint32_t m_begin = CAUSAL ? nb : 0u;   // first query block with a query ≥ n0
    const uint32_t m_end = (S + kBlockM - 1u) / kBlockM;

    // Copies of query block mb into buffer buf: Q, dO tiles, and LSE/Δ (4 bytes per thread:
    // threads 0..63 LSE, 64..127 Δ; zero for queries ≥ S).
    auto load_qblock = [&](uint32_t mb, uint32_t buf) {
        const uint32_t m0 = mb * kBlockM;
        load_tile<HD, kBlockM>(sQ0 + buf * kSlot, q, m0, S, D, D, tid);
        load_tile<HD, kBlockM>(sdO0 + buf * kSlot, dout, m0, S, D, D, tid);
        const uint32_t r = tid & 63u;
        const bool ok = m0 + r < S;
        const float *src = tid < 64u ? lse : dlt;
        const uint32_t dst = (tid < 64u ? sLSE0 : sDel0) + buf * 256u + r * 4u;
        cp_async_4(dst, ok ? src + m0 + r : src, ok);
    };

    load_tile<HD, kBlockN>(sK, k, n0, S, D, D, tid);
    load_tile<HD, kBlockN>(sV, v, n0, S, D, D, tid);
    if (m_begin < m_end) load_qblock(m_begin, 0u);
    gtm::cp_async_commit();

    float dv_acc[kDT][4], dk_acc[kDT][4];
#pragma unroll
    for (uint32_t i = 0; i < kDT; ++i)
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            dv_acc[i][e] = 0.0f;
            dk_acc[i][e] = 0.0f;
        }

    // ldmatrix lane addresses (flash_attn.cuh): lane_a and lane_b / lane_at patterns.
    const uint32_t la_row = lane & 15u, la_chk = lane >> 4;
    const uint32_t lb_row = ((lane >> 4) << 3) + (lane & 7u), lb_chk = (lane >> 3) & 1u;
    const uint32_t kv_row = warp * 16u + la_row;   // the warp's keys as an A operand
    // dO row for dV: the fixture swaps neighbouring queries (i ^ 1).
    const uint32_t dv_do_row = kWrongDvRow ? (la_row ^ 1u) : la_row;
    // Keys of this lane's accumulator rows (g and g + 8 of the warp's 16).
    const uint32_t key0 = n0 + warp * 16u + g;

    for (uint32_t mb = m_begin, it = 0; mb < m_end; ++mb, ++it) {
        const uint32_t buf = it & 1u;
        const uint32_t m0 = mb * kBlockM;
        const uint32_t sQ = sQ0 + buf * kSlot, sdOb = sdO0 + buf * kSlot;
        const uint32_t sLSE = sLSE0 + buf * 256u, sDel = sDel0 + buf * 256u;

        gtm::cp_async_wait<0>();   // block mb landed (K, V too at the first iteration)
        __syncthreads();           // … for all threads; every warp is done with block mb−1
                                   // (buffer buf^1 and sdS are free)
        if (mb + 1u < m_end) load_qblock(mb + 1u, buf ^ 1u);
        gtm::cp_async_commit();

        // ---- Sᵀ = K_w·Qᵀ (raw scores, keys × queries)
        float p[kNT][4];
#pragma unroll
        for (uint32_t i = 0; i < kNT; ++i)
#pragma unroll
            for (uint32_t e = 0; e < 4; ++e) p[i][e] = 0.0f;
#pragma unroll
        for (uint32_t kk = 0; kk < HD / 16u; ++kk) {
            uint32_t ka[4];
            ldsm_x4(ka, sK + tile_off<HD>(kv_row, la_chk + 2u * kk));
#pragma unroll
            for (uint32_t pp = 0; pp < kBlockM / 16u; ++pp) {
                uint32_t qb[4];
                ldsm_x4(qb, sQ + tile_off<HD>(16u * pp + lb_row, lb_chk + 2u * kk));
                mma(p[2 * pp], ka, qb[0], qb[1]);
                mma(p[2 * pp + 1], ka, qb[2], qb[3]);
            }
        }

        // ---- Pᵀ = exp(scale·s − LSE), masked entries 0. Element e of n8 tile i: key
        //      key0 + 8·(e/2), query m0 + 8i + 2t + e%2.
        const bool need_mask =
            (n0 + kBlockN > S) || (m0 + kBlockM > S) || (CAUSAL && n0 + kBlockN - 1u > m0);
#pragma unroll
        for (uint32_t i = 0; i < kNT; ++i) {
            const float2 l2 = lds_f32x2(sLSE + (8u * i + 2u * t) * 4u);
            const float lse_log2[2] = {l2.x * kLog2e, l2.y * kLog2e};
#pragma unroll
            for (uint32_t e = 0; e < 4; ++e) {
                float x = exp2_approx(fmaf(p[i][e], scale_log2, -lse_log2[e & 1u]));
                if (need_mask) {
                    const uint32_t key = key0 + 8u * (e >> 1);
                    const uint32_t qi = m0 + 8u * i + 2u * t + (e & 1u);
                    if (key >= S || qi >= S || (CAUSAL && key > qi)) x = 0.0f;
                }
                p[i][e] = x;
            }
        }

        // ---- Pᵀ as bf16 A fragments (k = queries), then dV += Pᵀ·dO. Only the packed Pᵀ stays
        //      live (16 registers instead of 32): dS below uses these bf16 values of P.
        uint32_t pa[kNT / 2u][4];
#pragma unroll
        for (uint32_t kk = 0; kk < kNT / 2u; ++kk) c_to_a(pa[kk], p[2 * kk], p[2 * kk + 1]);
#pragma unroll
        for (uint32_t kk = 0; kk < kBlockM / 16u; ++kk) {
#pragma unroll
            for (uint32_t dp = 0; dp < HD / 16u; ++dp) {
                uint32_t ob[4];
                ldsm_x4_trans(ob, sdOb + tile_off<HD>(16u * kk + dv_do_row, la_chk + 2u * dp));
                mma(dv_acc[2 * dp], pa[kk], ob[0], ob[1]);
                mma(dv_acc[2 * dp + 1], pa[kk], ob[2], ob[3]);
            }
        }

        // ---- dPᵀ = V_w·dOᵀ
        float ds[kNT][4];
#pragma unroll
        for (uint32_t i = 0; i < kNT; ++i)
#pragma unroll
            for (uint32_t e = 0; e < 4; ++e) ds[i][e] = 0.0f;
#pragma unroll
        for (uint32_t kk = 0; kk < HD / 16u; ++kk) {
            uint32_t va[4];
            ldsm_x4(va, sV + tile_off<HD>(kv_row, la_chk + 2u * kk));
#pragma unroll
            for (uint32_t pp = 0; pp < kBlockM / 16u; ++pp) {
                uint32_t ob[4];
                ldsm_x4(ob, sdOb + tile_off<HD>(16u * pp + lb_row, lb_chk + 2u * kk));
                mma(ds[2 * pp], va, ob[0], ob[1]);
                mma(ds[2 * pp + 1], va, ob[2], ob[3]);
            }
        }

        // ---- dSᵀ = Pᵀ∘(dPᵀ − Δ); store it (bf16, [key][query], padded 144-byte rows)
#pragma unroll
        for (uint32_t i = 0; i < kNT; ++i) {
            const float2 d2 = lds_f32x2(sDel + (8u * i + 2u * t) * 4u);
            // C element e of n8 tile i sits in pa[i/2][2·(i%2) + e/2], half e%2 (fa::c_to_a).
            const float2 p01 = unpack_bf16(pa[i / 2u][2u * (i & 1u)]);
            const float2 p23 = unpack_bf16(pa[i / 2u][2u * (i & 1u) + 1u]);
            ds[i][0] = p01.x * (ds[i][0] - d2.x);
            ds[i][1] = p01.y * (ds[i][1] - d2.y);
            ds[i][2] = p23.x * (ds[i][2] - d2.x);
            ds[i][3] = p23.y * (ds[i][3] - d2.y);
#pragma unroll
            for (uint32_t hh = 0; hh < 2; ++hh) {
                const uint32_t r = warp * 16u + g + 8u * hh;   // key row inside the block
                const uint32_t addr = sdS + r * kDsPitch + 16u * i + 4u * t;
                const uint32_t val = pack_bf16(ds[i][2 * hh], ds[i][2 * hh + 1]);
                sts_b32(addr, val);
            }
        }

        // ---- dK += dSᵀ·Q (k = queries)
#pragma unroll
        for (uint32_t kk = 0; kk < kBlockM / 16u; ++kk) {
            uint32_t da[4];
            c_to_a(da, ds[2 * kk], ds[2 * kk + 1]);
#pragma unroll
            for (uint32_t dp = 0; dp < HD / 16u; ++dp) {
                uint32_t qb[4];
                ldsm_x4_trans(qb, sQ + tile_off<HD>(16u * kk + la_row, la_chk + 2u * dp));
                mma(dk_acc[2 * dp], da, qb[0], qb[1]);
                mma(dk_acc[2 * dp + 1], da, qb[2], qb[3]);
            }
        }

        __syncthreads();   // dSᵀ of all four warps stored

        // ---- dQ_i += dS·K for queries m0 + 16w .. +15 (k = keys); A = dS via .trans of dSᵀ
        uint32_t dsa[kBlockN / 16u][4];
#pragma unroll
        for (uint32_t kk = 0; kk < kBlockN / 16u; ++kk) {
            const uint32_t r = 16u * kk + lb_row;      // key row of dSᵀ
            const uint32_t c = 2u * warp + lb_chk;     // query chunk of dSᵀ
            ldsm_x4_trans(dsa[kk], sdS + r * kDsPitch + 16u * c);
        }
#pragma unroll
        for (uint32_t dp = 0; dp < HD / 16u; ++dp) {
            float acc[2][4];
#pragma unroll
            for (uint32_t nt = 0; nt < 2; ++nt)
#pragma unroll
                for (uint32_t e = 0; e < 4; ++e) acc[nt][e] = 0.0f;
#pragma unroll
            for (uint32_t kk = 0; kk < kBlockN / 16u; ++kk) {
                uint32_t kb[4];
                ldsm_x4_trans(kb, sK + tile_off<HD>(16u * kk + la_row, la_chk + 2u * dp));
                mma(acc[0], dsa[kk], kb[0], kb[1]);
                mma(acc[1], dsa[kk], kb[2], kb[3]);
            }
#pragma unroll
            for (uint32_t nt = 0; nt < 2; ++nt)
#pragma unroll
                for (uint32_t hh = 0; hh < 2; ++hh) {
                    const uint32_t qi = m0 + warp * 16u + g + 8u * hh;
                    const uint32_t col = 16u * dp + 8u * nt + 2u * t;   // even; col < D ⇒ col+1 < D
                    if (qi < S && col < D)
                        red_add_f32x2(dqa + (size_t)qi * D + col, acc[nt][2 * hh], acc[nt][2 * hh + 1]);
                }
        }
    }
    gtm::cp_async_wait<0>();   // only an empty group can be pending

    // ---- dK = scale·Σ dSᵀ·Q, dV = Σ Pᵀ·dO, as bf16 pairs (GQA: added to the fp32 group sums)
#pragma unroll
    for (uint32_t hh = 0; hh < 2; ++hh) {
        const uint32_t key = key0 + 8u * hh;
        if (key >= S) continue;
        if (DKV_ACCUM) {
            float *dkrow = sl.dk_acc + (size_t)key * D;
            float *dvrow = sl.dv_acc + (size_t)key * D;
#pragma unroll
            for (uint32_t i = 0; i < kDT; ++i) {
                const uint32_t col = 8u * i + 2u * t;
                if (col < D) {
                    red_add_f32x2(dkrow + col, dk_acc[i][2 * hh] * scale, dk_acc[i][2 * hh + 1] * scale);
                    red_add_f32x2(dvrow + col, dv_acc[i][2 * hh], dv_acc[i][2 * hh + 1]);
                }
            }
            continue;
        }
        __nv_bfloat16 *dkrow = sl.dk + (size_t)key * D;
        __nv_bfloat16 *dvrow = sl.dv + (size_t)key * D;
#pragma unroll
        for (uint32_t i = 0; i < kDT; ++i) {
            const uint32_t col = 8u * i + 2u * t;
            if (col < D) {
                *reinterpret_cast<uint32_t *>(dkrow + col) =
                    pack_bf16(dk_acc[i][2 * hh] * scale, dk_acc[i][2 * hh + 1] * scale);
                *reinterpret_cast<uint32_t *>(dvrow + col) =
                    pack_bf16(dv_acc[i][2 * hh], dv_acc[i][2 * hh + 1]);
            }
        }
    }
}

// A main launch: whole tensors and sizes. H_kv heads of K and V (and of dK, dV), group = H / H_kv;
// without DKV_ACCUM, H_kv = H, group = 1 and dK, dV are the bf16 outputs; with it dK_acc, dV_acc
// are the fp32 accumulators.
struct BwdArgs {
    const __nv_bfloat16 *Q, *K, *V, *dO;
    const float *LSE, *delta;
    float *dq_accum;
    __nv_bfloat16 *dK, *dV;
    float *dk_accum, *dv_accum;
    uint32_t B, H, H_kv, group, S, D;
};

template <bool CAUSAL, bool kWrongDvRow, bool DKV_ACCUM>
__device__ __forceinline__ void flash_bwd_main_run(const BwdArgs &a)
{
    extern __shared__ __align__(128) unsigned char fa_bwd_smem[];
    const uint32_t smem_base = (uint32_t)__cvta_generic_to_shared(fa_bwd_smem);
    if (!head_dim_supported(a.D) || blockIdx.z >= a.B || blockIdx.y >= a.H) return;
    const uint32_t b = blockIdx.z, h = blockIdx.y;
    const size_t bh = (size_t)b * a.H + h;
    const size_t slice = bh * a.S * a.D;
    const size_t kv_slice = ((size_t)b * a.H_kv + h / a.group) * a.S * a.D;
    BwdSlices sl;
    sl.q = a.Q + slice;
    sl.dout = a.dO + slice;
    sl.k = a.K + kv_slice;
    sl.v = a.V + kv_slice;
    sl.lse = a.LSE + bh * a.S;
    sl.dlt = a.delta + bh * a.S;
    sl.dqa = a.dq_accum + slice;
    sl.dk = DKV_ACCUM ? nullptr : a.dK + kv_slice;
    sl.dv = DKV_ACCUM ? nullptr : a.dV + kv_slice;
    sl.dk_acc = DKV_ACCUM ? a.dk_accum + kv_slice : nullptr;
    sl.dv_acc = DKV_ACCUM ? a.dv_accum + kv_slice : nullptr;
    if (a.D == 64u)
        flash_bwd_main_body<64, CAUSAL, kWrongDvRow, DKV_ACCUM>(sl, a.S, a.D, smem_base);
    else
        flash_bwd_main_body<128, CAUSAL, kWrongDvRow, DKV_ACCUM>(sl, a.S, a.D, smem_base);
}

// The mha_bwd_d128 / mha_bwd_d128_causal (and fixture) main entry body: no GQA, bf16 dK, dV.
template <bool CAUSAL, bool kWrongDvRow>
__device__ __forceinline__ void flash_bwd_main(const __nv_bfloat16 *Q, const __nv_bfloat16 *K,
                                               const __nv_bfloat16 *V, const __nv_bfloat16 *dO,
                                               const float *LSE, const float *delta,
                                               float *dq_accum, __nv_bfloat16 *dK,
                                               __nv_bfloat16 *dV, uint32_t B, uint32_t H,
                                               uint32_t S, uint32_t D)
{
    const BwdArgs a = {Q, K, V, dO, LSE, delta, dq_accum, dK, dV, nullptr, nullptr, B, H, H, 1u, S, D};
    flash_bwd_main_run<CAUSAL, kWrongDvRow, false>(a);
}

// The GQA main entry body (non-causal): dK, dV summed over each group into dk_accum, dv_accum.
// H % H_kv == 0 is required (else the kernel returns without writing).
__device__ __forceinline__ void flash_bwd_main_gqa(const __nv_bfloat16 *Q, const __nv_bfloat16 *K,
                                                   const __nv_bfloat16 *V, const __nv_bfloat16 *dO,
                                                   const float *LSE, const float *delta,
                                                   float *dq_accum, float *dk_accum,
                                                   float *dv_accum, uint32_t B, uint32_t H,
                                                   uint32_t H_kv, uint32_t S, uint32_t D)
{
    if (H_kv == 0u || H % H_kv != 0u) return;
    const BwdArgs a = {Q, K, V, dO, LSE, delta, dq_accum, nullptr, nullptr, dk_accum, dv_accum,
                       B, H, H_kv, H / H_kv, S, D};
    flash_bwd_main_run<false, false, true>(a);
}

}  // namespace fa

#endif  // PTXGATE_FLASH_ATTN_BWD_CUH
