// ptxgate's attention reference building blocks (included by reference.cu, driven by
// gate/device/reference_mha.c): a strided batched GEMM on CUDA cores with fp32 accumulation, the
// row-wise softmax of the forward pass, the softmax gradient of the backward pass, the row dot
// products rowsum(dO ⊙ O), and fp32 -> bf16/fp16 conversion. No tensor cores, no fast math:
// independent of cuDNN and of the hardware paths submissions use.
//
// Every kernel takes sizes as 64-bit integers and bounds-checks every access, so any B, H, S, D
// works. Scores are fp32 [rows][S] buffers holding a chunk of heads (reference_mha.c sizes the
// chunk so memory stays bounded); row r of a chunk is query i = r % S of head r / S.

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
// Batched GEMM: for batch b = blockIdx.z,
//   C[b][m][n] = alpha · Σ_k A(b, m, k) · B(b, n, k),   m < M, n < N, k < K (k in order),
// with A(b, m, k) = A[b·sAb + m·sAm + k·sAk], B(b, n, k) = B[b·sBb + n·sBn + k·sBk] (strides in
// elements, any sign-free layout) and C[b·sCb + m·sCm + n] (n contiguous). A_KF / B_KF say which
// index is contiguous in memory so that loads coalesce: k (K_FAST) or the row index m / n
// (row-fast); the result does not depend on them. The tiling follows reference_gemm_nt: a
// 128 x 128 tile of C per 256-thread CTA, 8 x 8 per thread, k in steps of 16 through shared
// memory. Grid: x = ceil(N/128), y = ceil(M/128), z = batch count.
#define PG_BG_TILE 128
#define PG_BG_BK 16
#define PG_BG_THREADS 256
// The FMA step and the store are reference.cu's PG_TILE_FMA and PG_TILE_STORE.
static_assert(PG_BG_TILE == PG_BM && PG_BG_TILE == PG_BN && PG_BG_BK == PG_BK,
              "the batched GEMM shares the reference GEMM's tiling");

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
                                         long long K, long long sAb, long long sAm, long long sAk,
                                         long long sBb, long long sBn, long long sBk,
                                         long long sCb, long long sCm, float alpha)
{
    // +4 keeps rows 16-byte aligned for float4 reads.
    __shared__ __align__(16) float As[PG_BG_BK][PG_BG_TILE + 4];
    __shared__ __align__(16) float Bs[PG_BG_BK][PG_BG_TILE + 4];

    const long long batch = blockIdx.z;
    A += batch * sAb;
    B += batch * sBb;
    C += batch * sCb;
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

#define PG_BGEMM_ENTRY(name, TA, TB, AKF, BKF)                                                    \
    extern "C" __global__ void __launch_bounds__(PG_BG_THREADS, 2)                                \
        name(const TA *A, const TB *B, float *C, long long M, long long N, long long K,           \
             long long sAb, long long sAm, long long sAk, long long sBb, long long sBn,            \
             long long sBk, long long sCb, long long sCm, float alpha)                             \
    {                                                                                              \
        pg_bgemm<TA, TB, AKF, BKF>(A, B, C, M, N, K, sAb, sAm, sAk, sBb, sBn, sBk, sCb, sCm,      \
                                   alpha);                                                         \
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

// Forward softmax of one score row per CTA (256 threads, grid x = rows of the chunk). Sc holds
// the scaled scores s_ij = scale · q_i·k_j; the keys a query sees are j < S, or j <= i when
// causal. Writes P_ij = exp(s_ij − m_i) / l_i over those keys and 0 over the others (in place),
// and LSE_i = m_i + log(l_i) with m_i = max_j s_ij and l_i = Σ_j exp(s_ij − m_i): the natural
// log of the softmax denominator Σ_j exp(s_ij).
extern "C" __global__ void __launch_bounds__(PG_ROW_THREADS)
    ref_mha_softmax_fwd(float *Sc, float *lse, long long S, int causal)
{
    __shared__ float red[PG_ROW_THREADS / 32];
    const long long r = blockIdx.x;
    const long long i = r % S;
    const long long n = causal ? i + 1 : S;
    float *row = Sc + r * S;
    float m = -INFINITY;
    for (long long j = threadIdx.x; j < n; j += PG_ROW_THREADS)
        m = fmaxf(m, row[j]);
    m = pg_block_max(m, red);
    float l = 0.0f;
    for (long long j = threadIdx.x; j < n; j += PG_ROW_THREADS)
        l += expf(row[j] - m);
    l = pg_block_sum(l, red);
    for (long long j = threadIdx.x; j < S; j += PG_ROW_THREADS)
        row[j] = j < n ? expf(row[j] - m) / l : 0.0f;
    if (threadIdx.x == 0)
        lse[r] = m + logf(l);
}

// Backward softmax, elementwise over a chunk (grid-stride): with s_ij the scaled scores in Sc
// and dP_ij = dO_i·v_j in dPc, writes P_ij = exp(s_ij − LSE_i) into Sc and
// dS_ij = P_ij · (dP_ij − Δ_i) · scale into dPc, both 0 for keys a causal query does not see.
// (dS carries the softmax scale so that dQ = dS·K and dK = dSᵀ·Q.)
extern "C" __global__ void ref_mha_softmax_bwd(float *Sc, float *dPc, const float *lse,
                                               const float *delta, long long rows, long long S,
                                               int causal, float scale)
{
    const long long total = rows * S;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += stride) {
        const long long r = idx / S, j = idx % S, i = r % S;
        if (causal && j > i) {
            Sc[idx] = 0.0f;
            dPc[idx] = 0.0f;
        } else {
            const float p = expf(Sc[idx] - lse[r]);
            Sc[idx] = p;
            dPc[idx] = p * (dPc[idx] - delta[r]) * scale;
        }
    }
}

// Δ_r = Σ_d dO[r][d] · O[r][d] (fp32 products and sums) for rows r < rows: one warp per row, 8
// rows per 256-thread CTA.
template <typename T>
__device__ __forceinline__ void pg_rowdot(const T *dO, const T *O, float *delta, long long rows,
                                          long long D)
{
    const long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (long long d = lane; d < D; d += 32)
        s = fmaf(pg_ld(dO, r * D + d), pg_ld(O, r * D + d), s);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0)
        delta[r] = s;
}

extern "C" __global__ void ref_mha_rowdot_bf16(const __nv_bfloat16 *dO, const __nv_bfloat16 *O,
                                               float *delta, long long rows, long long D)
{
    pg_rowdot(dO, O, delta, rows, D);
}
extern "C" __global__ void ref_mha_rowdot_fp16(const __half *dO, const __half *O, float *delta,
                                               long long rows, long long D)
{
    pg_rowdot(dO, O, delta, rows, D);
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
