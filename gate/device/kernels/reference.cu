// ptxgate's own GPU kernels: N(0,1) fills, the reference GEMM every submission is checked
// against, and the attention reference's building blocks (attention.cuh). Compiled at build time to a fatbin (sm_80, sm_90, sm_100 SASS + compute_90 PTX) and
// embedded in the binary (see gate/device/device.cmake); loaded by reference.c. Every entry is
// extern "C" so reference.c finds it by its plain name.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

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

// ---------------------------------------------------------------------------------------------
// Reference GEMM: C[M,N] (fp32, row-major) = A[M,K] · B[N,K]ᵀ, A and B row-major (both
// K-contiguous), fp32 accumulation in k order, one FMA per product. Plain FMA on CUDA cores, no
// tensor cores: independent of cuBLAS and of the hardware paths submissions use.
//
// A block computes a 128x128 tile of C with 256 threads, each an 8x8 sub-tile: rows
// ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx (the two halves keep the
// float4 reads of shared memory free of bank conflicts). K advances 16 at a time through
// shared memory, converted to fp32 on the way in; the next step's global loads are issued
// before the current step's FMAs so their latency hides behind them. Every global load is
// bounds-checked (out-of-range elements read as 0, which adds nothing), every store too, so any
// M, N, K works. Grid: x = ceil(N/128), y = ceil(M/128).
#define PG_BM 128
#define PG_BN 128
#define PG_BK 16
#define PG_THREADS 256

template <typename T> __device__ __forceinline__ float pg_to_float(T v);
template <> __device__ __forceinline__ float pg_to_float<__nv_bfloat16>(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}
template <> __device__ __forceinline__ float pg_to_float<__half>(__half v)
{
    return __half2float(v);
}

// Loader mapping: thread t reads k = t % 16 of rows t / 16 + 16 * p, p = 0..7, so a warp reads
// two rows of 16 consecutive elements (two 32-byte sectors) per load.
template <typename T>
__device__ __forceinline__ void pg_load_tile(const T *__restrict__ X, long long rows, long long K,
                                             long long row0, long long k0, float (&reg)[8])
{
    const int lk = threadIdx.x & 15, lr = threadIdx.x >> 4;
    const long long k = k0 + lk;
#pragma unroll
    for (int p = 0; p < 8; p++) {
        const long long row = row0 + lr + 16 * p;
        reg[p] = (row < rows && k < K) ? pg_to_float(X[row * K + k]) : 0.0f;
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
// m0 + .. < M and columns n0 + .. < N, each value written as value(acc[i][j]) (acc[i][j] itself,
// or alpha * acc[i][j]). Every argument is a plain name.
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
#define PG_TILE_AS_IS(x) (x)

template <typename T>
__device__ __forceinline__ void pg_gemm_nt(const T *__restrict__ A, const T *__restrict__ B,
                                           float *__restrict__ C, long long M, long long N,
                                           long long K)
{
    // +4 keeps rows 16-byte aligned for float4 reads.
    __shared__ __align__(16) float As[PG_BK][PG_BM + 4];
    __shared__ __align__(16) float Bs[PG_BK][PG_BN + 4];

    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    const int lk = threadIdx.x & 15, lr = threadIdx.x >> 4;
    const long long m0 = (long long)blockIdx.y * PG_BM;
    const long long n0 = (long long)blockIdx.x * PG_BN;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    float ra[8], rb[8];
    pg_load_tile(A, M, K, m0, 0, ra);
    pg_load_tile(B, N, K, n0, 0, rb);
    for (long long k0 = 0; k0 < K; k0 += PG_BK) {
#pragma unroll
        for (int p = 0; p < 8; p++) {
            As[lk][lr + 16 * p] = ra[p];
            Bs[lk][lr + 16 * p] = rb[p];
        }
        __syncthreads();
        if (k0 + PG_BK < K) {
            pg_load_tile(A, M, K, m0, k0 + PG_BK, ra);
            pg_load_tile(B, N, K, n0, k0 + PG_BK, rb);
        }
        PG_TILE_FMA(As, Bs, tx, ty, acc);
        __syncthreads();
    }

    PG_TILE_STORE(C, N, M, N, m0, n0, tx, ty, PG_TILE_AS_IS);
}

#define PG_GEMM_NT_ENTRY(name, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(PG_THREADS, 2)                                    \
        name(const T *A, const T *B, float *C, long long M, long long N, long long K)             \
    {                                                                                              \
        pg_gemm_nt(A, B, C, M, N, K);                                                              \
    }
PG_GEMM_NT_ENTRY(reference_gemm_nt_bf16, __nv_bfloat16)
PG_GEMM_NT_ENTRY(reference_gemm_nt_fp16, __half)

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
