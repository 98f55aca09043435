// ptxgate's attention reference building blocks (included by reference.cu, driven by
// gate/device/reference_mha.c): a strided batched GEMM on CUDA cores with fp32 accumulation, the
// row-wise softmax of the forward pass, the softmax gradient of the backward pass, the row dot
// products rowsum(dO ⊙ O), and fp32 -> bf16/fp16 conversion. No tensor cores, no fast math:
// independent of cuDNN and of the hardware paths submissions use.
//
// Every kernel takes sizes as 64-bit integers and bounds-checks every access, so any B, H, S_q,
// S_kv, D works. Scores are fp32 [rows][S_kv] buffers holding a chunk of heads (reference_mha.c
// sizes the chunk so memory stays bounded); row r of a chunk is query i = r % S_q of the chunk's
// head r / S_q. Heads are numbered g = b·H + h over all batches; the chunk starting at head0
// holds heads head0 .. head0 + n − 1.

template <typename T> __device__ __forceinline__ float pg_ld(const T *p, long long i);
template <> __device__ __forceinline__ float pg_ld<__nv_bfloat16>(const __nv_bfloat16 *p, long long i)
{
    return __bfloat162float(p[i]);
}
template <> __device__ __forceinline__ float pg_ld<__half>(const __half *p, long long i)
{
    return __half2float(p[i]);
}
template <> __device__ __forceinline__ float pg_ld<float>(const float *p, long long i)
{
    return p[i];
}

// ---------------------------------------------------------------------------------------------
// Batched GEMM: for batch z = blockIdx.z (head head0 + z of a chunk),
//   C_z[m][n] = alpha · Σ_k A_z(m, k) · B_z(n, k),   m < M, n < N, k < K (k in order),
// with A_z(m, k) = A[off_A(z) + m·sAm + k·sAk], B_z(n, k) = B[off_B(z) + n·sBn + k·sBk] and
// C_z[off_C(z) + m·sCm + n] (n contiguous), strides in elements. Each operand's offset is
// chunk-local, off(z) = z·s_b (its group g = 0: a score buffer of the chunk), or that of head
// g = head0 + z of a [B, H or H/group, ...] tensor, off(z) = (g / H)·s_b + ((g % H) / group)·s_h
// (group > 1: the KV head of a query head under GQA). A_KF / B_KF say which index is contiguous
// in memory so that loads coalesce: k (K_FAST) or the row index m / n (row-fast); the result
// does not depend on them. The tiling follows reference_gemm_nt: a 128 x 128 tile of C per
// 256-thread CTA, 8 x 8 per thread, k in steps of 16 through shared memory. Grid: x = ceil(N/128),
// y = ceil(M/128), z = the chunk's head count.
#define PG_BG_TILE 128
#define PG_BG_BK 16
#define PG_BG_THREADS 256
// The FMA step and the store are reference.cu's PG_TILE_FMA and PG_TILE_STORE.
static_assert(PG_BG_TILE == PG_BM && PG_BG_TILE == PG_BN && PG_BG_BK == PG_BK,
              "the batched GEMM shares the reference GEMM's tiling");

// Where one operand of a chunk's batch z starts (see above).
struct pg_bg_heads {
    long long s_b, s_h, group;
};
__device__ __forceinline__ long long pg_bg_offset(pg_bg_heads x, long long z, long long head0,
                                                  long long H)
{
    if (x.group == 0)
        return z * x.s_b;
    const long long g = head0 + z;
    return (g / H) * x.s_b + ((g % H) / x.group) * x.s_h;
}

// Read the 128 x 16 tile X(r0 + 0..127, k0 + 0..15) into reg[8] as fp32, 0 outside the bounds.
// K_FAST: thread t reads k = t % 16 of rows t / 16 + 16p (a warp reads 16 consecutive k of two
// rows). Row-fast: thread t reads row t % 128 at k = t / 128 + 2p (a warp reads 32 consecutive
// rows of one k).
template <typename T, bool K_FAST>
__device__ __forceinline__ void pg_bg_load(const T *__restrict__ X, long long rows, long long K,
                                           long long sR, long long sK, long long r0, long long k0,
                                           float (&reg)[8])
{
    if (K_FAST) {
        const int lk = threadIdx.x & 15, lr = threadIdx.x >> 4;
        const long long k = k0 + lk;
#pragma unroll
        for (int p = 0; p < 8; p++) {
            const long long r = r0 + lr + 16 * p;
            reg[p] = (r < rows && k < K) ? pg_ld(X, r * sR + k * sK) : 0.0f;
        }
    } else {
        const int lr = threadIdx.x & 127, lk = threadIdx.x >> 7;
        const long long r = r0 + lr;
#pragma unroll
        for (int p = 0; p < 8; p++) {
            const long long k = k0 + lk + 2 * p;
            reg[p] = (r < rows && k < K) ? pg_ld(X, r * sR + k * sK) : 0.0f;
        }
    }
}

// Store a tile read by pg_bg_load into Xs[k][row] (the layout the FMA loop reads).
template <bool K_FAST>
__device__ __forceinline__ void pg_bg_store(float (*Xs)[PG_BG_TILE + 4], const float (&reg)[8])
{
    if (K_FAST) {
        const int lk = threadIdx.x & 15, lr = threadIdx.x >> 4;
#pragma unroll
        for (int p = 0; p < 8; p++)
            Xs[lk][lr + 16 * p] = reg[p];
    } else {
        const int lr = threadIdx.x & 127, lk = threadIdx.x >> 7;
#pragma unroll
        for (int p = 0; p < 8; p++)
            Xs[lk + 2 * p][lr] = reg[p];
    }
}

template <typename TA, typename TB, bool A_KF, bool B_KF>
__device__ __forceinline__ void pg_bgemm(const TA *__restrict__ A, const TB *__restrict__ B,
                                         float *__restrict__ C, long long M, long long N,
                                         long long K, pg_bg_heads hA, long long sAm, long long sAk,
                                         pg_bg_heads hB, long long sBn, long long sBk,
                                         pg_bg_heads hC, long long sCm, float alpha,
                                         long long head0, long long H)
{
    // +4 keeps rows 16-byte aligned for float4 reads.
    __shared__ __align__(16) float As[PG_BG_BK][PG_BG_TILE + 4];
    __shared__ __align__(16) float Bs[PG_BG_BK][PG_BG_TILE + 4];

    const long long z = blockIdx.z;
    A += pg_bg_offset(hA, z, head0, H);
    B += pg_bg_offset(hB, z, head0, H);
    C += pg_bg_offset(hC, z, head0, H);
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    const long long m0 = (long long)blockIdx.y * PG_BG_TILE;
    const long long n0 = (long long)blockIdx.x * PG_BG_TILE;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    float ra[8], rb[8];
    pg_bg_load<TA, A_KF>(A, M, K, sAm, sAk, m0, 0, ra);
    pg_bg_load<TB, B_KF>(B, N, K, sBn, sBk, n0, 0, rb);
    for (long long k0 = 0; k0 < K; k0 += PG_BG_BK) {
        pg_bg_store<A_KF>(As, ra);
        pg_bg_store<B_KF>(Bs, rb);
        __syncthreads();
        if (k0 + PG_BG_BK < K) {
            pg_bg_load<TA, A_KF>(A, M, K, sAm, sAk, m0, k0 + PG_BG_BK, ra);
            pg_bg_load<TB, B_KF>(B, N, K, sBn, sBk, n0, k0 + PG_BG_BK, rb);
        }
        PG_TILE_FMA(As, Bs, tx, ty, acc);
        __syncthreads();
    }

#define PG_BG_SCALED(x) (alpha * (x))
    PG_TILE_STORE(C, sCm, M, N, m0, n0, tx, ty, PG_BG_SCALED);
#undef PG_BG_SCALED
}

// Parameters per operand: the start, (s_b, s_h, group) of its head offset, its two strides.
#define PG_BGEMM_ENTRY(name, TA, TB, AKF, BKF)                                                    \
    extern "C" __global__ void __launch_bounds__(PG_BG_THREADS, 2)                                \
        name(const TA *A, const TB *B, float *C, long long M, long long N, long long K,           \
             long long sAb, long long sAh, long long gA, long long sAm, long long sAk,            \
             long long sBb, long long sBh, long long gB, long long sBn, long long sBk,            \
             long long sCb, long long sCh, long long gC, long long sCm, float alpha,              \
             long long head0, long long H)                                                        \
    {                                                                                              \
        pg_bgemm<TA, TB, AKF, BKF>(A, B, C, M, N, K, pg_bg_heads{sAb, sAh, gA}, sAm, sAk,          \
                                   pg_bg_heads{sBb, sBh, gB}, sBn, sBk, pg_bg_heads{sCb, sCh, gC}, \
                                   sCm, alpha, head0, H);                                          \
    }

// kk: both operands k-contiguous (Q·Kᵀ, dO·Vᵀ). kn: A (fp32 scores) k-contiguous, B row-fast
// (P·V, dS·K). mn: both row-fast (Pᵀ·dO, dSᵀ·Q).
PG_BGEMM_ENTRY(ref_bgemm_bf16_kk, __nv_bfloat16, __nv_bfloat16, true, true)
PG_BGEMM_ENTRY(ref_bgemm_fp16_kk, __half, __half, true, true)
PG_BGEMM_ENTRY(ref_bgemm_f32_bf16_kn, float, __nv_bfloat16, true, false)
PG_BGEMM_ENTRY(ref_bgemm_f32_fp16_kn, float, __half, true, false)
PG_BGEMM_ENTRY(ref_bgemm_f32_bf16_mn, float, __nv_bfloat16, false, false)
PG_BGEMM_ENTRY(ref_bgemm_f32_fp16_mn, float, __half, false, false)

// ---------------------------------------------------------------------------------------------
// Block reductions over 256 threads (8 warps): every thread gets the result.
#define PG_ROW_THREADS 256

__device__ __forceinline__ float pg_block_max(float v, float *red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads(); // red may still be read by a previous reduction
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = red[0];
#pragma unroll
    for (int w = 1; w < PG_ROW_THREADS / 32; w++)
        v = fmaxf(v, red[w]);
    return v;
}

__device__ __forceinline__ float pg_block_sum(float v, float *red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = 0.0f;
#pragma unroll
    for (int w = 0; w < PG_ROW_THREADS / 32; w++)
        v += red[w];
    return v;
}

// The keys query i sees: all S_kv, or causal j <= i + S_kv − S_q (the diagonal aligned to the
// bottom right of the S_q x S_kv scores; j <= i when S_q = S_kv), at most S_kv, at least 0.
__device__ __forceinline__ long long pg_visible_keys(long long i, long long S_q, long long S_kv,
                                                     int causal)
{
    if (!causal)
        return S_kv;
    const long long n = i + 1 + S_kv - S_q;
    return n < 0 ? 0 : n > S_kv ? S_kv : n;
}

// Forward softmax of one score row per CTA (256 threads, grid x = rows of the chunk). Sc holds
// the scaled scores s_ij = scale · q_i·k_j ([rows][S_kv]). Writes P_ij = exp(s_ij − m_i) / l_i
// over the visible keys and 0 over the others (in place), and lse[r] = f · (m_i + log(l_i))
// with m_i = max_j s_ij and l_i = Σ_j exp(s_ij − m_i): f times the natural log of the softmax
// denominator Σ_j exp(s_ij) (f converts to the task's LSE convention, model/mha_problem.h).
extern "C" __global__ void __launch_bounds__(PG_ROW_THREADS)
    ref_mha_softmax_fwd(float *Sc, float *lse, long long S_q, long long S_kv, int causal,
                        float lse_factor)
{
    __shared__ float red[PG_ROW_THREADS / 32];
    const long long r = blockIdx.x;
    const long long n = pg_visible_keys(r % S_q, S_q, S_kv, causal);
    float *row = Sc + r * S_kv;
    float m = -INFINITY;
    for (long long j = threadIdx.x; j < n; j += PG_ROW_THREADS)
        m = fmaxf(m, row[j]);
    m = pg_block_max(m, red);
    float l = 0.0f;
    for (long long j = threadIdx.x; j < n; j += PG_ROW_THREADS)
        l += expf(row[j] - m);
    l = pg_block_sum(l, red);
    for (long long j = threadIdx.x; j < S_kv; j += PG_ROW_THREADS)
        row[j] = j < n ? expf(row[j] - m) / l : 0.0f;
    if (threadIdx.x == 0)
        lse[r] = (m + logf(l)) * lse_factor;
}

// Backward softmax, elementwise over a chunk (grid-stride): with s_ij the scaled scores in Sc
// and dP_ij = dO_i·v_j in dPc ([rows][S_kv]), writes P_ij = exp(s_ij − LSE_i) into Sc and
// dS_ij = P_ij · (dP_ij − Δ_i) · scale into dPc, both 0 for keys query i does not see. lse holds
// the task's convention, lse_inverse · lse[r] the natural log (model/mha_problem.h). (dS carries
// the softmax scale so that dQ = dS·K and dK = dSᵀ·Q.)
extern "C" __global__ void ref_mha_softmax_bwd(float *Sc, float *dPc, const float *lse,
                                               const float *delta, long long rows, long long S_q,
                                               long long S_kv, int causal, float scale,
                                               float lse_inverse)
{
    const long long total = rows * S_kv;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += stride) {
        const long long r = idx / S_kv, j = idx % S_kv;
        if (j >= pg_visible_keys(r % S_q, S_q, S_kv, causal)) {
            Sc[idx] = 0.0f;
            dPc[idx] = 0.0f;
        } else {
            const float p = expf(Sc[idx] - lse[r] * lse_inverse);
            Sc[idx] = p;
            dPc[idx] = p * (dPc[idx] - delta[r]) * scale;
        }
    }
}

// Δ_r = Σ_d dO(r, d) · O(r, d) (fp32 products and sums) for the rows r = (b·H + h)·S_q + i of
// all heads, each of dO and O at its own strides (b, h, i of x at b·x_b + h·x_h + i·x_s, d
// contiguous): one warp per row, 8 rows per 256-thread CTA; delta is [B, H, S_q] dense.
template <typename T>
__device__ __forceinline__ void pg_rowdot(const T *dO, const T *O, float *delta, long long rows,
                                          long long D, long long H, long long S_q,
                                          long long do_b, long long do_h, long long do_s,
                                          long long o_b, long long o_h, long long o_s)
{
    const long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (r >= rows)
        return;
    const long long i = r % S_q, h = (r / S_q) % H, b = r / (S_q * H);
    const T *x = dO + b * do_b + h * do_h + i * do_s;
    const T *y = O + b * o_b + h * o_h + i * o_s;
    float s = 0.0f;
    for (long long d = lane; d < D; d += 32)
        s = fmaf(pg_ld(x, d), pg_ld(y, d), s);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0)
        delta[r] = s;
}

#define PG_ROWDOT_ENTRY(name, T)                                                                   \
    extern "C" __global__ void name(const T *dO, const T *O, float *delta, long long rows,         \
                                    long long D, long long H, long long S_q, long long do_b,       \
                                    long long do_h, long long do_s, long long o_b, long long o_h,  \
                                    long long o_s)                                                 \
    {                                                                                              \
        pg_rowdot(dO, O, delta, rows, D, H, S_q, do_b, do_h, do_s, o_b, o_h, o_s);                \
    }
PG_ROWDOT_ENTRY(ref_mha_rowdot_bf16, __nv_bfloat16)
PG_ROWDOT_ENTRY(ref_mha_rowdot_fp16, __half)

// GQA: adds the per-query-head gradients of a chunk, part [n][S][D] (fp32, head head0 + z in
// row block z), into the KV-head gradient out (fp32, [B, H / group, ...] at strides o_b, o_h,
// o_s, d contiguous): out(b, hk, s, d) += Σ part[z][s][d] over the chunk's heads z of KV head
// hk, in head order. One thread per element of the first head of each group in the chunk
// (grid-stride), so every element of out has one writer per launch and the sums are
// deterministic. Launched once per chunk, in chunk order, after out was zeroed.
extern "C" __global__ void ref_mha_group_sum(const float *part, float *out, long long n,
                                             long long head0, long long H, long long group,
                                             long long S, long long D, long long o_b,
                                             long long o_h, long long o_s)
{
    const long long total = n * S * D;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += stride) {
        const long long z = idx / (S * D), sd = idx % (S * D);
        const long long g = head0 + z, b = g / H, hk = (g % H) / group;
        if (z > 0 && (g % H) % group != 0)
            continue; // not the first head of its group in this chunk
        float acc = 0.0f;
        for (long long y = z; y < n; y++) {
            const long long gy = head0 + y;
            if (gy / H != b || (gy % H) / group != hk)
                break;
            acc += part[y * S * D + sd];
        }
        out[b * o_b + hk * o_h + (sd / D) * o_s + sd % D] += acc;
    }
}

// x[i] *= factor for i < n (fp32, grid-stride): an LSE from one convention into another.
extern "C" __global__ void ref_scale_f32(float *x, float factor, unsigned long long n)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] *= factor;
}

// out[i] = in[i] rounded to nearest (even) in the narrow type; grid-stride.
extern "C" __global__ void ref_convert_f32_bf16(const float *in, __nv_bfloat16 *out,
                                                unsigned long long n)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = __float2bfloat16_rn(in[i]);
}
extern "C" __global__ void ref_convert_f32_fp16(const float *in, __half *out, unsigned long long n)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = __float2half_rn(in[i]);
}
