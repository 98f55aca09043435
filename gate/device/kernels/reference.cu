// ptxgate's own GPU kernels: N(0,1) fills, the reference GEMM every GEMM submission is
// checked against, and the attention reference's building blocks (attention.cuh). Compiled at build time to a fatbin (sm_80, sm_90, sm_100 SASS + compute_90 PTX) and
// embedded in the binary (see gate/device/device.cmake); loaded by reference.c. Every entry is
// extern "C" so reference.c finds it by its plain name.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "gemm_params.h"

// ---------------------------------------------------------------------------------------------
// Fills. Sample i is a pure function of (seed, i): pair p = i / 2 takes two splitmix64 outputs
// (the generator's values number 2p+1 and 2p+2 from state `seed`), turns them into two uniforms
// and Box–Muller gives cos (even i) and sin (odd i) of the same radius. Only IEEE-exact steps and
// the CUDA math library's logf / sqrtf / sincospif are used (no fast-math), so a seed gives the
// same bits on every GPU.

__device__ __forceinline__ uint64_t pg_splitmix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ float pg_normal(uint64_t seed, uint64_t i)
{
    const uint64_t gamma = 0x9E3779B97F4A7C15ull;
    uint64_t p = i >> 1;
    uint64_t h1 = pg_splitmix64(seed + (2 * p + 1) * gamma);
    uint64_t h2 = pg_splitmix64(seed + (2 * p + 2) * gamma);
    // 24-bit uniforms at odd multiples of 2^-25: u1 in (0, 1) so the log is finite and the radius
    // never 0; 2*u2 is never a multiple of 1/2, so neither sin nor cos is exactly 0.
    float u1 = ((float)(h1 >> 40) + 0.5f) * 0x1p-24f;
    float u2 = ((float)(h2 >> 40) + 0.5f) * 0x1p-24f;
    float r = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincospif(2.0f * u2, &s, &c);
    return (i & 1) ? r * s : r * c;
}

// A sample that rounds to zero in a narrow type becomes the smallest subnormal of its sign, so
// a fill never contains zeros (a zero would hide a kernel that ignores the element).
template <typename T> struct pg_store;
// bf16 and fp16 alike (16 bits, the sign in bit 15): x rounded to nearest even as Raw.
__device__ __forceinline__ __nv_bfloat16_raw pg_round(float x, const __nv_bfloat16_raw *)
{
    return __nv_bfloat16_raw(__float2bfloat16_rn(x));
}
__device__ __forceinline__ __half_raw pg_round(float x, const __half_raw *)
{
    return __half_raw(__float2half_rn(x));
}
template <typename Raw> struct pg_store16 {
    static __device__ __forceinline__ void put(void *out, uint64_t i, float x)
    {
        Raw v = pg_round(x, (const Raw *)nullptr);
        if ((v.x & 0x7fff) == 0)
            v.x = (unsigned short)((v.x & 0x8000) | 1);
        ((Raw *)out)[i] = v;
    }
};
template <> struct pg_store<__nv_bfloat16> : pg_store16<__nv_bfloat16_raw> {};
template <> struct pg_store<__half> : pg_store16<__half_raw> {};
template <> struct pg_store<float> {
    static __device__ __forceinline__ void put(void *out, uint64_t i, float x)
    {
        ((float *)out)[i] = x; // |x| >= ~4e-11 by construction of u1, u2
    }
};
template <__nv_fp8_interpretation_t F> struct pg_fp8 {
    static __device__ __forceinline__ void put(void *out, uint64_t i, float x)
    {
        __nv_fp8_storage_t v = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, F);
        if ((v & 0x7f) == 0)
            v = (__nv_fp8_storage_t)((v & 0x80) | 1);
        ((__nv_fp8_storage_t *)out)[i] = v;
    }
};

template <typename S>
__device__ __forceinline__ void pg_fill(void *out, unsigned long long count,
                                        unsigned long long seed)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        S::put(out, i, pg_normal(seed, i));
}

// One entry per element type, each pg_fill with its store.
#define PG_FILL_ENTRY(name, S)                                                                     \
    extern "C" __global__ void name(void *out, unsigned long long count, unsigned long long seed) \
    {                                                                                              \
        pg_fill<S>(out, count, seed);                                                             \
    }
PG_FILL_ENTRY(fill_normal_bf16, pg_store<__nv_bfloat16>)
PG_FILL_ENTRY(fill_normal_fp16, pg_store<__half>)
PG_FILL_ENTRY(fill_normal_fp32, pg_store<float>)
PG_FILL_ENTRY(fill_normal_e4m3, pg_fp8<__NV_E4M3>)
PG_FILL_ENTRY(fill_normal_e5m2, pg_fp8<__NV_E5M2>)

// Positive scales (an fp8 GEMM's scale_A and scale_B): 0.25 + |N(0,1)| / 2, in [0.25, ~2.7):
// the sample of pg_normal at i, so a seed gives the same bits on every GPU, never 0 or negative
// (a scale is a magnitude), and not a power of two (a kernel that ignores it is wrong by more
// than any rounding).
extern "C" __global__ void fill_scale_fp32(void *out, unsigned long long count,
                                           unsigned long long seed)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        ((float *)out)[i] = 0.25f + 0.5f * fabsf(pg_normal(seed, i));
}

// The fp8 operands of the reference GEMM as fp32: out[i] = fp32(in[i]) · scale(i) for the
// count elements of a buffer stored with `inner` contiguous elements per row (fp8 → fp32 is
// exact; one rounding of the product). Element i is at row r = i / inner, column c = i % inner
// of the storage; its scale is scale_ptr[(r / br) · s_r + (c / bc) · s_c] (a per-tensor scale:
// s_r = s_c = 0; DeepSeek-V3 block scales: 1 x 128 or 128 x 128 blocks), or 1 when scale_ptr is
// 0. e5m2: 1 for e5m2, 0 for e4m3.
extern "C" __global__ void ref_dequant_fp8(float *out, const unsigned char *in,
                                           unsigned long long count, int e5m2,
                                           unsigned long long scale_ptr, long long inner,
                                           long long br, long long bc, long long s_r,
                                           long long s_c)
{
    const float *scale = (const float *)scale_ptr;
    const __nv_fp8_interpretation_t kind = e5m2 ? __NV_E5M2 : __NV_E4M3;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const long long r = (long long)i / inner, c = (long long)i % inner;
        const float x = __half2float(__half(__nv_cvt_fp8_to_halfraw(in[i], kind)));
        out[i] = scale ? x * scale[(r / br) * s_r + (c / bc) * s_c] : x;
    }
}

// ---------------------------------------------------------------------------------------------
// Reference GEMM (gemm_params.h, gate/device/device.h pg_reference_gemm): for batch b =
// blockIdx.z, every row i < M and column j < N,
//   D(b, i, j) = fl(alpha · acc), or fmaf(beta, C(b, i, j), fl(alpha · acc)) with a C input,
//   acc = fp32 chain from 0 of acc = fmaf(A(b, i, k), B(b, k, j), acc) for k = 0, 1, ..., K-1,
// every element of A, B and C converted exactly to fp32 from fp32, bf16 or fp16 (a type code
// per operand, read at run time), X(b, r, c) at X[b·s[0] + r·s[1] + c·s[2]], D fp32 at its own
// strides. One FMA per product in k order on CUDA cores, no tensor cores and no tf32:
// independent of cuBLAS and of the hardware paths submissions use. With alpha = 1 and no C,
// fl(1 · acc) = acc: the bits of the historic gemm_nt reference, whose per-element arithmetic
// was exactly this chain (tiles of 16 k beyond K padded with zeros add +0, here as there).
//
// A block computes a 128x128 tile of D with 256 threads, each an 8x8 sub-tile: rows
// ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx (the two halves keep the
// float4 reads of shared memory free of bank conflicts). K advances 16 at a time through
// shared memory, converted to fp32 on the way in; the next step's global loads are issued
// before the current step's FMAs so their latency hides behind them. Every global load is
// bounds-checked (out-of-range elements read as 0, which adds nothing), every store too, so any
// M, N, K works. Which index of A and B is contiguous is a template parameter so that the loads
// coalesce (A_KF: A's k; B_KF: B's k; otherwise the row index m of A or column index n of B);
// the result does not depend on it. Grid: x = ceil(N/128), y = ceil(M/128), z = batch.
#define PG_BM 128
#define PG_BN 128
#define PG_BK 16
#define PG_THREADS 256

// A 16-bit element (bf16 when bf16, else fp16) or an fp32 element as fp32, exactly. The two
// 16-bit types share one load path (the type is a run-time flag; one select per element), so
// the GEMM keeps two load paths instead of three and stays within its registers.
struct pg_ref_16 {
    unsigned short bits;
};
__device__ __forceinline__ float pg_ref_cvt(pg_ref_16 v, bool bf16)
{
    const float from_bf16 = __uint_as_float((unsigned)v.bits << 16);
    const float from_fp16 = __half2float(__ushort_as_half(v.bits));
    return bf16 ? from_bf16 : from_fp16;
}
__device__ __forceinline__ float pg_ref_cvt(float v, bool)
{
    return v;
}

// One element of type code `type` at element index i of the buffer at base, as fp32.
__device__ __forceinline__ float pg_ref_elem(unsigned long long base, long long i, int type)
{
    if (type == PG_REF_ELEM_FP32)
        return ((const float *)base)[i];
    return pg_ref_cvt(((const pg_ref_16 *)base)[i], type == PG_REF_ELEM_BF16);
}

// Read the 128 x 16 tile X(r0 + 0..127, k0 + 0..15) (row r, depth k, of type T) into reg[8] as
// fp32, 0 outside rows x K. K_FAST: k is contiguous, the element at off + r·ld + k; thread t
// reads k = t % 16 of rows t / 16 + 16p (a warp reads 16 consecutive k of two rows). Row-fast:
// r is contiguous, the element at off + r + k·ld; thread t reads row t % 128 at k = t / 128 + 2p
// (a warp reads 32 consecutive rows of one k).
template <typename T, bool K_FAST>
__device__ __forceinline__ void pg_ref_load_t(const T *__restrict__ X, bool bf16, long long off,
                                              long long rows, long long K, long long ld,
                                              long long r0, long long k0, float (&reg)[8])
{
    if (K_FAST) {
        const int lk = threadIdx.x & 15, lr = threadIdx.x >> 4;
        const long long k = k0 + lk;
#pragma unroll
        for (int p = 0; p < 8; p++) {
            const long long r = r0 + lr + 16 * p;
            reg[p] = (r < rows && k < K) ? pg_ref_cvt(X[off + r * ld + k], bf16) : 0.0f;
        }
    } else {
        const int lr = threadIdx.x & 127, lk = threadIdx.x >> 7;
        const long long r = r0 + lr;
#pragma unroll
        for (int p = 0; p < 8; p++) {
            const long long k = k0 + lk + 2 * p;
            reg[p] = (r < rows && k < K) ? pg_ref_cvt(X[off + r + k * ld], bf16) : 0.0f;
        }
    }
}

// The tile load with the element type read at run time (one branch per tile between the
// 16-bit and the fp32 path).
template <bool K_FAST>
__device__ __forceinline__ void pg_ref_load(unsigned long long X, int type, long long off,
                                            long long rows, long long K, long long ld,
                                            long long r0, long long k0, float (&reg)[8])
{
    if (type == PG_REF_ELEM_FP32)
        pg_ref_load_t<float, K_FAST>((const float *)X, false, off, rows, K, ld, r0, k0, reg);
    else
        pg_ref_load_t<pg_ref_16, K_FAST>((const pg_ref_16 *)X, type == PG_REF_ELEM_BF16, off,
                                         rows, K, ld, r0, k0, reg);
}

// Store a tile read by pg_ref_load into Xs[k][row] (the layout PG_TILE_FMA reads).
template <bool K_FAST>
__device__ __forceinline__ void pg_ref_stage(float (*Xs)[PG_BM + 4], const float (&reg)[8])
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

// The two steps the reference GEMM shares with attention.cuh's batched GEMM (same tiling), as
// macros so both kernels compile to exactly the code they had with the steps written out (an
// inlined function changes the register allocation of the GEMMs).
//
// PG_TILE_FMA: the FMAs of one PG_BK-deep k step for thread (tx, ty)'s 8 x 8 sub-tile: rows
// ty*4 + {0..3} and 64 + ty*4 + {0..3} of As, columns likewise of Bs with tx; acc[i][j] +=
// a[i] * b[j], k in order, one fmaf per product. As, Bs: [PG_BK][128 + 4] fp32 tiles in shared
// memory, stored k major; acc: float[8][8]. Every argument is a plain name.
#define PG_TILE_FMA(As, Bs, tx, ty, acc)                                                          \
    _Pragma("unroll") for (int kk = 0; kk < PG_BK; kk++)                                          \
    {                                                                                             \
        const float4 a0 = *(const float4 *)&As[kk][ty * 4];                                      \
        const float4 a1 = *(const float4 *)&As[kk][64 + ty * 4];                                 \
        const float4 b0 = *(const float4 *)&Bs[kk][tx * 4];                                      \
        const float4 b1 = *(const float4 *)&Bs[kk][64 + tx * 4];                                 \
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};                     \
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};                     \
        _Pragma("unroll") for (int i = 0; i < 8; i++)                                             \
            _Pragma("unroll") for (int j = 0; j < 8; j++)                                         \
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);                                          \
    }

// PG_TILE_STORE: thread (tx, ty)'s sub-tile (the layout above) into C[m * ldc + n] for rows
// m0 + .. < M and columns n0 + .. < N, each value written as value(acc[i][j]) (e.g.
// alpha * acc[i][j]). Every argument is a plain name. (The attention reference's store; the
// GEMM reference below writes at arbitrary strides with the same element mapping.)
#define PG_TILE_STORE(C, ldc, M, N, m0, n0, tx, ty, value)                                        \
    _Pragma("unroll") for (int i = 0; i < 8; i++)                                                 \
    {                                                                                             \
        const long long m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));                   \
        if (m >= M)                                                                               \
            continue;                                                                             \
        _Pragma("unroll") for (int j = 0; j < 8; j++)                                             \
        {                                                                                         \
            const long long n = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));               \
            if (n < N)                                                                            \
                C[m * ldc + n] = value(acc[i][j]);                                                \
        }                                                                                         \
    }

template <bool A_KF, bool B_KF>
__device__ __forceinline__ void pg_gemm_ref(const pg_ref_gemm_params &p)
{
    // +4 keeps rows 16-byte aligned for float4 reads.
    __shared__ __align__(16) float As[PG_BK][PG_BM + 4];
    __shared__ __align__(16) float Bs[PG_BK][PG_BN + 4];

    const long long batch = blockIdx.z;
    const long long a_off = batch * p.sa[0], b_off = batch * p.sb[0];
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    const long long m0 = (long long)blockIdx.y * PG_BM;
    const long long n0 = (long long)blockIdx.x * PG_BN;
    const long long M = p.M, N = p.N, K = p.K;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    // A read as (row m, depth k), B as (row n, depth k): B(k, n) at k·sb[1] + n·sb[2]. The
    // launcher picks A_KF when A's k stride sa[2] is 1 (else its m stride sa[1] is 1) and B_KF
    // when B's k stride sb[1] is 1 (else its n stride sb[2] is 1): the other stride is the ld.
    const long long lda = A_KF ? p.sa[1] : p.sa[2], ldb = B_KF ? p.sb[2] : p.sb[1];
    float ra[8], rb[8];
    pg_ref_load<A_KF>(p.a, p.ta, a_off, M, K, lda, m0, 0, ra);
    pg_ref_load<B_KF>(p.b, p.tb, b_off, N, K, ldb, n0, 0, rb);
    for (long long k0 = 0; k0 < K; k0 += PG_BK) {
        pg_ref_stage<A_KF>(As, ra);
        pg_ref_stage<B_KF>(Bs, rb);
        __syncthreads();
        if (k0 + PG_BK < K) {
            pg_ref_load<A_KF>(p.a, p.ta, a_off, M, K, lda, m0, k0 + PG_BK, ra);
            pg_ref_load<B_KF>(p.b, p.tb, b_off, N, K, ldb, n0, k0 + PG_BK, rb);
        }
        PG_TILE_FMA(As, Bs, tx, ty, acc);
        __syncthreads();
    }

    float *D = (float *)p.d;
    const long long c_off = batch * p.sc[0], d_off = batch * p.sd[0];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const long long m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (m >= M)
            continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const long long n = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
            if (n >= N)
                continue;
            float v = p.alpha * acc[i][j];
            if (p.has_c)
                v = fmaf(p.beta, pg_ref_elem(p.c, c_off + m * p.sc[1] + n * p.sc[2], p.tc), v);
            D[d_off + m * p.sd[1] + n * p.sd[2]] = v;
        }
    }
}

// ak / am: A's k or m index contiguous; bk / bn: B's k or n index contiguous. The historic
// gemm_nt problem (A [M,K], B [N,K]) is ak_bk.
#define PG_GEMM_REF_ENTRY(name, AKF, BKF)                                                          \
    extern "C" __global__ void __launch_bounds__(PG_THREADS, 2) name(const pg_ref_gemm_params p) \
    {                                                                                              \
        pg_gemm_ref<AKF, BKF>(p);                                                                  \
    }
PG_GEMM_REF_ENTRY(reference_gemm_ak_bk, true, true)
PG_GEMM_REF_ENTRY(reference_gemm_ak_bn, true, false)
PG_GEMM_REF_ENTRY(reference_gemm_am_bk, false, true)
PG_GEMM_REF_ENTRY(reference_gemm_am_bn, false, false)

// A calibrated delay for the timing benchmark (bench/): one warp waits until `ns` nanoseconds
// of %globaltimer have passed. Used to inject a known slowdown, never in a check.
extern "C" __global__ void spin_ns(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// ---------------------------------------------------------------------------------------------
#include "attention.cuh"
#include "checks.cuh"
