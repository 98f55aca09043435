// attn_selftest.cu — standalone GPU self-test of the attention example kernels, independent of
// ptxgate's attention tasks, reference and baseline (tests/gpu/attn_selftest.sh builds and runs it).
//
// The kernels are the PTX files nvcc -ptx makes of (the way ptxgate compiles a .cu submission)
//   fwd.ptx        tasks/mha_fwd_d128/examples/flash_fwd.cu          mha_fwd_flash
//   fwd_causal.ptx tasks/mha_fwd_d128_causal/examples/flash_fwd.cu   mha_fwd_flash_causal
//   bwd.ptx        tasks/mha_bwd_d128/examples/flash_bwd.cu          mha_bwd_{preprocess,main,convert_dq}
//   bwd_causal.ptx tasks/mha_bwd_d128_causal/examples/flash_bwd.cu   … mha_bwd_main_causal …
//   wrong_dv.ptx   tests/fixtures/mha_bwd_d128/wrong_dv/wrong_dv.cu  … mha_bwd_main_wrong_dv …
// loaded with the driver JIT and launched with the geometry of their manifests (copied below:
// keep in sync with the *.json next to each kernel).
//
// Per workload and mask (non-causal, causal): Q, K, V, dO ~ N(0,1) rounded to bf16 (Q also ×4 in
// the "peaky" case, so that row maxima move between key blocks). An fp32 reference (one CTA per
// row, plain loops) computes O and LSE; O rounded to bf16 and the reference LSE are the backward's
// inputs. Every output buffer is filled with 0xFF bytes (NaN in bf16 and fp32) and framed by
// guard zones, so unwritten elements show up as non-finite and stray writes as "guard"; the
// workspaces are NaN-filled too (the kernels must not rely on their contents). The backward runs
// twice and the second result is checked (its dQ accumulator must be re-zeroed). The fixture
// must FAIL on dV with random dO, and pass with an all-ones dO. The inputs of every kernel (Q, K,
// V, dO; the backward's O and LSE too) must be unchanged after it ran: each is fingerprinted
// (a hash of its 32-bit words) when set and again after the kernel; a change is reported as
// "input modified" (a kernel, or a launch with swapped arguments, writing into an input).
//
// Pass criteria (this test's own): relative L2 error ≤ 0.01 (O), ≤ 0.02 (dQ, dK, dV), ≤ 1e-4
// (LSE); no element with |out − ref| > atol + rtol·|ref| + κ·mag, where atol = 0.05·rms(ref)
// (0.002 absolute for LSE), rtol = 0.03 (1e-5 for LSE), κ = 2⁻⁷ (0 for LSE) and mag is the
// reference's sum of the absolute values of the element's terms: O_id: Σ_j p_ij·|v_jd| / l_i;
// dV_jd: Σ_i P_ij·|dO_id|; dK_jd: scale·Σ_i W_ij·|q_id|; dQ_id: scale·Σ_j W_ij·|k_jd|, with
// W_ij = P_ij·(|dP_ij| + |Δ_i|) ≥ |dS_ij|. No non-finite element in the output or in the
// reference; guard zones intact. The κ·mag term is the rounding a correct kernel must do: P and
// dS enter the tensor-core products as bf16 (a relative error of at most 2⁻⁹ per term, 2⁻⁸ for
// dS, rounded from a rounded P), and dP and Δ are fp32 sums in another order than the
// reference's, an error relative to |dP| + |Δ| where they cancel (S = 1: dS is exactly 0 in the
// reference, a few ulps in a kernel). atol alone does not cover it: with causal masks and random
// dO the first rows and keys have few, large terms that cancel while rms(ref) is set by the many
// small elements, and at S = 1 rms(dQ) = rms(dK) = 0. An emulation of the kernels' roundings
// (numpy, bf16 rounding of P and dS) puts such elements at up to 1.2× atol + rtol·|ref| at
// S = 4096 (and S = 1 at ∞), and every element at ≤ 0.35× the tolerance above.
//
// Exit status: 0 all expectations met, 1 one was not (or a CUDA error), 77 no GPU.
// Options: --ptx-dir DIR (required), --only SUBSTR (workload names), --full (adds the PTXBench
//          workload B=4 H=48 S=4096 D=128 to the correctness runs; its reference is slow),
//          --no-timing (skip the timing of the four kernels on that workload).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FATAL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static decltype(&cuGetErrorString) p_cuGetErrorString;
static decltype(&cuModuleLoadDataEx) p_cuModuleLoadDataEx;
static decltype(&cuModuleGetFunction) p_cuModuleGetFunction;
static decltype(&cuFuncGetAttribute) p_cuFuncGetAttribute;
static decltype(&cuFuncSetAttribute) p_cuFuncSetAttribute;
static decltype(&cuLaunchKernel) p_cuLaunchKernel;

template <typename F> static void get_driver_fn(F &fn, const char *name)
{
    void *p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || p == nullptr) {
        printf("FATAL: driver entry point %s not found\n", name);
        exit(1);
    }
    fn = (F)p;
}

#define CKD(call)                                                                                  \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *s_ = nullptr;                                                              \
            p_cuGetErrorString(r_, &s_);                                                           \
            printf("FATAL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?");          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

// ---- device: inputs, reference, comparison --------------------------------------------------
__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// sigma·N(0,1) rounded to bf16 (Box–Muller on a counter hash); sigma = 0 writes ones.
__global__ void fill_normal(__nv_bfloat16 *o, size_t n, unsigned long long seed, float sigma)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long u = splitmix64(seed * 0x100000001B3ull + i);
        const float u1 = (float)((u >> 40) + 1) * 5.9604644775390625e-8f;
        const float u2 = (float)(u & 0xFFFFFFull) * 5.9604644775390625e-8f;
        const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        o[i] = __float2bfloat16_rn(sigma == 0.0f ? 1.0f : sigma * z);
    }
}

__global__ void to_bf16(const float *in, __nv_bfloat16 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = __float2bfloat16_rn(in[i]);
}

__device__ float block_reduce(float v, bool is_max, float *red)
{
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = red[0];
    for (int i = 1; i < (int)(blockDim.x >> 5); ++i) v = is_max ? fmaxf(v, red[i]) : v + red[i];
    return v;
}

__device__ float dot_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, int D)
{
    float s = 0.0f;
    for (int d = 0; d < D; ++d) s = fmaf(__bfloat162float(a[d]), __bfloat162float(b[d]), s);
    return s;
}

// Forward reference: one CTA (128 threads) per (query row i, h, b); scores in shared memory.
// Omag_id = Σ_j p_ij·|v_jd| / l_i (the tolerance's magnitude term).
__global__ void ref_fwd(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V,
                        float *O, float *Omag, float *LSE, int H, int S, int D, int causal)
{
    extern __shared__ float sc[];   // S floats
    __shared__ float red[32];
    const int i = blockIdx.x;
    const size_t bh = (size_t)blockIdx.z * H + blockIdx.y;
    const __nv_bfloat16 *q = Q + (bh * S + i) * D, *k = K + bh * S * D, *v = V + bh * S * D;
    const float scale = 1.0f / sqrtf((float)D);
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < S; j += blockDim.x) {
        const float s = (causal && j > i) ? -INFINITY : scale * dot_bf16(q, k + (size_t)j * D, D);
        sc[j] = s;
        mx = fmaxf(mx, s);
    }
    mx = block_reduce(mx, true, red);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < S; j += blockDim.x) {
        const float p = expf(sc[j] - mx);
        sc[j] = p;
        sum += p;
    }
    sum = block_reduce(sum, false, red);   // ends with barriers: sc[] complete
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
        float acc = 0.0f, mag = 0.0f;
        for (int j = 0; j < S; ++j) {
            const float vj = __bfloat162float(v[(size_t)j * D + d]);
            acc = fmaf(sc[j], vj, acc);
            mag = fmaf(sc[j], fabsf(vj), mag);
        }
        O[(bh * S + i) * D + d] = acc / sum;
        Omag[(bh * S + i) * D + d] = mag / sum;
    }
    if (threadIdx.x == 0) LSE[bh * S + i] = mx + logf(sum);
}

// Δ_i = Σ_d dO_id·O_id (O as the bf16 the backward reads).
__global__ void ref_delta(const __nv_bfloat16 *O, const __nv_bfloat16 *dO, float *delta, size_t rows, int D)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows; r += (size_t)gridDim.x * blockDim.x)
        delta[r] = dot_bf16(O + r * D, dO + r * D, D);
}

// P_ij, dS_ij and W_ij = P_ij·(|dP_ij| + |Δ_i|) of the backward (0 where masked).
__device__ void ref_p_ds(const __nv_bfloat16 *q_i, const __nv_bfloat16 *k_j, const __nv_bfloat16 *v_j,
                         const __nv_bfloat16 *do_i, float lse_i, float delta_i, int D, float scale,
                         bool allowed, float *p, float *ds, float *w)
{
    if (!allowed) {
        *p = 0.0f;
        *ds = 0.0f;
        *w = 0.0f;
        return;
    }
    const float pp = expf(scale * dot_bf16(q_i, k_j, D) - lse_i);
    const float dp = dot_bf16(do_i, v_j, D);
    *p = pp;
    *ds = pp * (dp - delta_i);
    *w = pp * (fabsf(dp) + fabsf(delta_i));
}

// dQ reference: one CTA per (query row i, h, b); dQmag_id = scale·Σ_j W_ij·|k_jd|.
__global__ void ref_bwd_dq(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V,
                           const __nv_bfloat16 *dO, const float *LSE, const float *delta, float *dQ,
                           float *dQmag, int H, int S, int D, int causal)
{
    extern __shared__ float dsr[];   // dS row, then W row: 2·S floats
    float *wr = dsr + S;
    const int i = blockIdx.x;
    const size_t bh = (size_t)blockIdx.z * H + blockIdx.y, row = bh * S + i;
    const float scale = 1.0f / sqrtf((float)D);
    for (int j = threadIdx.x; j < S; j += blockDim.x) {
        float p;
        ref_p_ds(Q + row * D, K + (bh * S + j) * D, V + (bh * S + j) * D, dO + row * D, LSE[row],
                 delta[row], D, scale, !(causal && j > i), &p, &dsr[j], &wr[j]);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
        float acc = 0.0f, mag = 0.0f;
        for (int j = 0; j < S; ++j) {
            const float kj = __bfloat162float(K[(bh * S + j) * D + d]);
            acc = fmaf(dsr[j], kj, acc);
            mag = fmaf(wr[j], fabsf(kj), mag);
        }
        dQ[row * D + d] = scale * acc;
        dQmag[row * D + d] = scale * mag;
    }
}

// dK, dV reference: one CTA per (key row j, h, b); dKmag_jd = scale·Σ_i W_ij·|q_id|,
// dVmag_jd = Σ_i P_ij·|dO_id|.
__global__ void ref_bwd_dkdv(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V,
                             const __nv_bfloat16 *dO, const float *LSE, const float *delta, float *dK,
                             float *dV, float *dKmag, float *dVmag, int H, int S, int D, int causal)
{
    extern __shared__ float sh[];   // P column, dS column, W column: 3·S floats
    float *pc = sh, *dsc = sh + S, *wc = sh + 2 * S;
    const int j = blockIdx.x;
    const size_t bh = (size_t)blockIdx.z * H + blockIdx.y, col = bh * S + j;
    const float scale = 1.0f / sqrtf((float)D);
    for (int i = threadIdx.x; i < S; i += blockDim.x) {
        const size_t row = bh * S + i;
        ref_p_ds(Q + row * D, K + col * D, V + col * D, dO + row * D, LSE[row], delta[row], D, scale,
                 !(causal && j > i), &pc[i], &dsc[i], &wc[i]);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
        float av = 0.0f, ak = 0.0f, mv = 0.0f, mk = 0.0f;
        for (int i = 0; i < S; ++i) {
            const float doi = __bfloat162float(dO[(bh * S + i) * D + d]);
            const float qi = __bfloat162float(Q[(bh * S + i) * D + d]);
            av = fmaf(pc[i], doi, av);
            ak = fmaf(dsc[i], qi, ak);
            mv = fmaf(pc[i], fabsf(doi), mv);
            mk = fmaf(wc[i], fabsf(qi), mk);
        }
        dV[col * D + d] = av;
        dK[col * D + d] = scale * ak;
        dVmag[col * D + d] = mv;
        dKmag[col * D + d] = scale * mk;
    }
}

struct Stats {
    unsigned long long bad, nonfinite, ref_nonfinite, first_bad;
    double err2, ref2;
    unsigned int max_err_bits;     // max |out − ref| (fp32 bits; ≥ 0 so ordered as unsigned)
    unsigned int max_ratio_bits;   // max |out − ref| / (atol + rtol·|ref| + κ·mag): > 1 is bad
};

__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f(float x) { return x; }

// mag (may be null: 0) and kappa: the magnitude term of the tolerance (see the top).
template <typename T>
__global__ void compare_kernel(const T *out, const float *ref, const float *mag, size_t n, float atol,
                               float rtol, float kappa, Stats *st)
{
    unsigned long long bad = 0, nonfin = 0, ref_nonfin = 0, first = ~0ull;
    double e2 = 0.0, r2 = 0.0;
    float mx = 0.0f, mratio = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float o = to_f(out[i]), r = ref[i], m = mag ? mag[i] : 0.0f;
        if (!isfinite(r) || !isfinite(m)) {   // a broken reference or input, not a kernel error
            ++ref_nonfin;
            ++bad;
            first = min(first, (unsigned long long)i);
            continue;
        }
        r2 += (double)r * r;
        if (!isfinite(o)) {
            ++nonfin;
            ++bad;
            first = min(first, (unsigned long long)i);
            continue;
        }
        const float e = fabsf(o - r), tol = atol + rtol * fabsf(r) + kappa * m;
        mratio = fmaxf(mratio, tol > 0.0f ? e / tol : (e > 0.0f ? INFINITY : 0.0f));
        if (e > tol) {
            ++bad;
            first = min(first, (unsigned long long)i);
        }
        mx = fmaxf(mx, e);
        e2 += (double)e * e;
    }
    for (int off = 16; off > 0; off >>= 1) {
        bad += __shfl_down_sync(0xffffffffu, bad, off);
        nonfin += __shfl_down_sync(0xffffffffu, nonfin, off);
        ref_nonfin += __shfl_down_sync(0xffffffffu, ref_nonfin, off);
        first = min(first, __shfl_down_sync(0xffffffffu, first, off));
        e2 += __shfl_down_sync(0xffffffffu, e2, off);
        r2 += __shfl_down_sync(0xffffffffu, r2, off);
        mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, off));
        mratio = fmaxf(mratio, __shfl_down_sync(0xffffffffu, mratio, off));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&st->bad, bad);
        atomicAdd(&st->nonfinite, nonfin);
        atomicAdd(&st->ref_nonfinite, ref_nonfin);
        atomicMin(&st->first_bad, first);
        atomicAdd(&st->err2, e2);
        atomicAdd(&st->ref2, r2);
        atomicMax(&st->max_err_bits, __float_as_uint(mx));
        atomicMax(&st->max_ratio_bits, __float_as_uint(mratio));
    }
}

// Bytes of [p, p + n) that are not 0xFF.
__global__ void count_not_ff(const unsigned char *p, size_t n, unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c += p[i] != 0xFF;
    if (c) atomicAdd(count, c);
}

// Order-independent 64-bit hash of n 32-bit words (word i hashed with its index, summed).
__global__ void fingerprint_kernel(const unsigned int *p, size_t n, unsigned long long *acc)
{
    unsigned long long h = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        h += splitmix64(((unsigned long long)i << 32) ^ p[i]);
    if (h) atomicAdd(acc, h);
}

// ---- host ----------------------------------------------------------------------------------
struct Wl {
    const char *name;
    unsigned B, H, S, D;
    float q_sigma;   // Q ~ q_sigma·N(0,1)
    bool full_only;
};
static const Wl kWl[] = {
    {"b2_h3_s1024_d128", 2, 3, 1024, 128, 1.0f, false},
    {"b2_h3_s2048_d128", 2, 3, 2048, 128, 1.0f, false},
    {"b2_h3_s4096_d128", 2, 3, 4096, 128, 1.0f, false},
    {"b2_h3_s4096_d64", 2, 3, 4096, 64, 1.0f, false},
    {"b2_h3_s1000_d128", 2, 3, 1000, 128, 1.0f, false},
    {"b2_h3_s1000_d64", 2, 3, 1000, 64, 1.0f, false},
    {"b1_h2_s1000_d128_peaky", 1, 2, 1000, 128, 4.0f, false},
    {"b1_h2_s77_d128", 1, 2, 77, 128, 1.0f, false},
    {"b1_h1_s1_d64", 1, 1, 1, 64, 1.0f, false},
    {"b4_h48_s4096_d128", 4, 48, 4096, 128, 1.0f, true},
};
static const size_t kGuardBytes = 4096;
static const float kKappa = 1.0f / 128.0f;   // κ = 2⁻⁷ of the magnitude term (see the top)

// A device buffer of n elements of `esize` bytes framed by kGuardBytes of guard on each side.
struct GBuf {
    unsigned char *base = nullptr;
    size_t bytes = 0;
    void alloc(size_t n, size_t esize)
    {
        bytes = n * esize;
        CK(cudaMalloc(&base, bytes + 2 * kGuardBytes));
    }
    void *p() const { return base + kGuardBytes; }
    void poison() const { CK(cudaMemset(base, 0xFF, bytes + 2 * kGuardBytes)); }
    void release() { CK(cudaFree(base)); base = nullptr; }
};

static int g_unexpected = 0;
static Stats *g_st;
static unsigned long long *g_cnt;

static void sync_or_die(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("FATAL: %s: %s (rerun under compute-sanitizer: SANITIZE=1)\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static unsigned long long guard_damage(const GBuf &b)
{
    CK(cudaMemset(g_cnt, 0, sizeof *g_cnt));
    count_not_ff<<<64, 256>>>(b.base, kGuardBytes, g_cnt);
    count_not_ff<<<64, 256>>>(b.base + kGuardBytes + b.bytes, kGuardBytes, g_cnt);
    sync_or_die("count_not_ff");
    unsigned long long c;
    CK(cudaMemcpy(&c, g_cnt, sizeof c, cudaMemcpyDeviceToHost));
    return c;
}

// rms of a device fp32 array (for the absolute tolerance).
static double rms(const float *ref, size_t n)
{
    std::vector<float> h(n);
    CK(cudaMemcpy(h.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (float v : h) s += (double)v * v;
    return n ? sqrt(s / n) : 0.0;
}

// Fingerprint of a buffer's contents (guard zones excluded; bytes % 4 == 0 for every buffer here).
static unsigned long long fingerprint(const GBuf &b)
{
    CK(cudaMemset(g_cnt, 0, sizeof *g_cnt));
    fingerprint_kernel<<<132 * 4, 256>>>((const unsigned int *)b.p(), b.bytes / 4, g_cnt);
    sync_or_die("fingerprint_kernel");
    unsigned long long c;
    CK(cudaMemcpy(&c, g_cnt, sizeof c, cudaMemcpyDeviceToHost));
    return c;
}

// Reports (as unexpected) every input among io[idx…] whose fingerprint differs from fp[idx].
static void check_inputs(const char *what, const GBuf *io, const unsigned long long *fp,
                         std::initializer_list<int> idx)
{
    static const char *names[] = {"Q", "K", "V", "O", "dO", "LSE"};
    for (int i : idx) {
        if (fingerprint(io[i]) == fp[i]) continue;
        ++g_unexpected;
        printf("  %-22s %-4s input modified by the kernel (or an argument bound to the wrong buffer)  <== UNEXPECTED\n",
               what, names[i]);
    }
}

// Compares one output with its reference (mag, kappa: the magnitude term of the tolerance; mag
// may be null) and prints a row; returns whether it passed. A non-finite reference element is a
// broken test, never an expected failure.
template <typename T>
static bool check(const char *what, const char *out_name, const GBuf &out, const float *ref, const float *mag,
                  size_t n, double max_rel_l2, float atol, float rtol, float kappa, bool expect_pass)
{
    Stats h;
    memset(&h, 0, sizeof h);
    h.first_bad = ~0ull;
    CK(cudaMemcpy(g_st, &h, sizeof h, cudaMemcpyHostToDevice));
    compare_kernel<T><<<132 * 8, 256>>>((const T *)out.p(), ref, mag, n, atol, rtol, kappa, g_st);
    sync_or_die("compare_kernel");
    CK(cudaMemcpy(&h, g_st, sizeof h, cudaMemcpyDeviceToHost));
    float max_err, max_ratio;
    memcpy(&max_err, &h.max_err_bits, 4);
    memcpy(&max_ratio, &h.max_ratio_bits, 4);
    const double rel_l2 = h.ref2 > 0 ? sqrt(h.err2 / h.ref2) : sqrt(h.err2);
    const unsigned long long guard = guard_damage(out);
    const bool pass = h.bad == 0 && h.nonfinite == 0 && h.ref_nonfinite == 0 && rel_l2 <= max_rel_l2 && guard == 0;
    const bool ok = pass == expect_pass && h.ref_nonfinite == 0;
    if (!ok) ++g_unexpected;
    char first[32] = "-";
    if (h.first_bad != ~0ull) snprintf(first, sizeof first, "%llu", h.first_bad);
    printf("  %-22s %-4s %-6s %11.3e %10.3e %10.3e %9.3f %10llu %9llu %6llu %6llu %-12s %s%s%s\n", what,
           out_name, expect_pass ? "pass" : "FAIL", max_err, atol, rel_l2, max_ratio, h.bad, h.nonfinite,
           h.ref_nonfinite, guard, first, pass ? "pass" : "FAIL", ok ? "  ok" : "  <== UNEXPECTED",
           h.ref_nonfinite ? " (reference non-finite: inputs or reference broken)" : "");
    fflush(stdout);
    return pass;
}

struct Kern {
    CUfunction f;
    unsigned smem;
};

static CUmodule load_module(const std::string &path)
{
    FILE *fp = fopen(path.c_str(), "rb");
    if (!fp) {
        printf("FATAL: cannot read %s\n", path.c_str());
        exit(1);
    }
    std::string s;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) s.append(buf, n);
    fclose(fp);
    static char errlog[16384];
    CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[] = {errlog, (void *)(size_t)sizeof errlog};
    CUmodule m;
    if (p_cuModuleLoadDataEx(&m, s.c_str(), 2, opt, val) != CUDA_SUCCESS) {
        printf("FATAL: driver JIT of %s failed:\n%s\n", path.c_str(), errlog);
        exit(1);
    }
    return m;
}

static Kern get_kernel(CUmodule m, const char *name, unsigned smem)
{
    Kern k{nullptr, smem};
    CKD(p_cuModuleGetFunction(&k.f, m, name));
    if (smem > 48 * 1024)
        CKD(p_cuFuncSetAttribute(k.f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem));
    int regs = 0, lmem = 0;
    CKD(p_cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k.f));
    CKD(p_cuFuncGetAttribute(&lmem, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k.f));
    printf("kernel %-24s regs %3d  local %d B  dynamic smem %u B\n", name, regs, lmem, smem);
    return k;
}

// Launch geometry copied from the manifests.
static void launch(const Kern &k, unsigned gx, unsigned gy, unsigned gz, unsigned bx, void **args)
{
    CKD(p_cuLaunchKernel(k.f, gx, gy, gz, bx, 1, 1, k.smem, 0, args, nullptr));
}

struct Bwd {
    Kern pre, main, conv;
};

// io: Q K V O dO (bf16, nt), LSE (fp32, nr), dQ dK dV (bf16, nt), delta (fp32, nr), dq_accum (fp32, nt).
static void alloc_io(GBuf *io, size_t nt, size_t nr)
{
    for (int i = 0; i < 11; ++i) {
        if (i == 5 || i == 9) io[i].alloc(nr, 4);
        else if (i == 10) io[i].alloc(nt, 4);
        else io[i].alloc(nt, 2);
    }
}

int main(int argc, char **argv)
{
    std::string ptx_dir, only;
    bool timing = true, full = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--ptx-dir") && i + 1 < argc) ptx_dir = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--no-timing")) timing = false;
        else if (!strcmp(argv[i], "--full")) full = true;
        else {
            printf("usage: %s --ptx-dir DIR [--only SUBSTR] [--full] [--no-timing]\n", argv[0]);
            return 2;
        }
    }
    if (ptx_dir.empty()) {
        printf("usage: %s --ptx-dir DIR [--only SUBSTR] [--full] [--no-timing]\n", argv[0]);
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    get_driver_fn(p_cuGetErrorString, "cuGetErrorString");
    get_driver_fn(p_cuModuleLoadDataEx, "cuModuleLoadDataEx");
    get_driver_fn(p_cuModuleGetFunction, "cuModuleGetFunction");
    get_driver_fn(p_cuFuncGetAttribute, "cuFuncGetAttribute");
    get_driver_fn(p_cuFuncSetAttribute, "cuFuncSetAttribute");
    get_driver_fn(p_cuLaunchKernel, "cuLaunchKernel");

    const unsigned kFwdSmem = 52224, kBwdSmem = 114688;   // the manifests' dynamic_shared_bytes
    Kern fwd[2] = {get_kernel(load_module(ptx_dir + "/fwd.ptx"), "mha_fwd_flash", kFwdSmem),
                   get_kernel(load_module(ptx_dir + "/fwd_causal.ptx"), "mha_fwd_flash_causal", kFwdSmem)};
    Bwd bwd[3];
    const char *bwd_files[3] = {"bwd.ptx", "bwd_causal.ptx", "wrong_dv.ptx"};
    const char *bwd_main[3] = {"mha_bwd_main", "mha_bwd_main_causal", "mha_bwd_main_wrong_dv"};
    for (int v = 0; v < 3; ++v) {
        CUmodule m = load_module(ptx_dir + "/" + bwd_files[v]);
        bwd[v] = {get_kernel(m, "mha_bwd_preprocess", 0), get_kernel(m, bwd_main[v], kBwdSmem),
                  get_kernel(m, "mha_bwd_convert_dq", 0)};
    }
    // The references keep 1 (ref_fwd), 2 (ref_bwd_dq) or 3 (ref_bwd_dkdv) rows of S floats in
    // dynamic shared memory: 48 KiB at S = 4096 for the last one; allow more.
    CK(cudaFuncSetAttribute(ref_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    CK(cudaFuncSetAttribute(ref_bwd_dq, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    CK(cudaFuncSetAttribute(ref_bwd_dkdv, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
    CK(cudaMalloc(&g_st, sizeof(Stats)));
    CK(cudaMalloc(&g_cnt, sizeof(unsigned long long)));

    auto run_fwd = [&](const Kern &k, const GBuf *io, unsigned B, unsigned H, unsigned S, unsigned D) {
        CUdeviceptr q = (CUdeviceptr)io[0].p(), kk = (CUdeviceptr)io[1].p(), v = (CUdeviceptr)io[2].p(),
                    o = (CUdeviceptr)io[3].p(), l = (CUdeviceptr)io[5].p();   // io[4] is dO
        void *args[] = {&q, &kk, &v, &o, &l, &B, &H, &S, &D};
        launch(k, cdiv(S, 64), H, B, 128, args);
    };
    // io: Q K V O dO LSE dQ dK dV delta dq_accum
    auto run_bwd = [&](const Bwd &k, const GBuf *io, unsigned B, unsigned H, unsigned S, unsigned D) {
        CUdeviceptr p[11];
        for (int i = 0; i < 11; ++i) p[i] = (CUdeviceptr)io[i].p();
        void *a1[] = {&p[3], &p[4], &p[9], &p[10], &B, &H, &S, &D};
        launch(k.pre, (unsigned)cdiv(B * H * S, 16), 1, 1, 256, a1);
        void *a2[] = {&p[0], &p[1], &p[2], &p[4], &p[5], &p[9], &p[10], &p[7], &p[8], &B, &H, &S, &D};
        launch(k.main, cdiv(S, 64), H, B, 128, a2);
        void *a3[] = {&p[10], &p[6], &B, &H, &S, &D};
        launch(k.conv, (unsigned)(((size_t)B * H * S * D + 2047) / 2048), 1, 1, 256, a3);
    };

    int ran = 0;
    for (const Wl &w : kWl) {
        if (w.full_only && !full) continue;
        if (!only.empty() && std::string(w.name).find(only) == std::string::npos) continue;
        ++ran;
        const unsigned B = w.B, H = w.H, S = w.S, D = w.D;
        const size_t nt = (size_t)B * H * S * D, nr = (size_t)B * H * S;
        printf("\n== %s  B=%u H=%u S=%u D=%u  (Q sigma %.0f)\n", w.name, B, H, S, D, w.q_sigma);
        printf("  %-22s %-4s %-6s %11s %10s %10s %9s %10s %9s %6s %6s %-12s %s\n", "kernel", "out", "expect",
               "max_abs_err", "atol", "rel_l2", "err/tol", "bad", "nonfinite", "ref_nf", "guard", "first_bad",
               "result");
        GBuf io[11];   // Q K V O dO LSE dQ dK dV delta dq_accum
        alloc_io(io, nt, nr);
        float *refO, *refL, *refdQ, *refdK, *refdV, *refDelta;
        float *magQ, *magK, *magV;   // tolerance magnitudes: O's (forward) then dQ's; dK's; dV's
        CK(cudaMalloc(&magQ, nt * 4));
        CK(cudaMalloc(&magK, nt * 4));
        CK(cudaMalloc(&magV, nt * 4));
        CK(cudaMalloc(&refO, nt * 4));
        CK(cudaMalloc(&refL, nr * 4));
        CK(cudaMalloc(&refdQ, nt * 4));
        CK(cudaMalloc(&refdK, nt * 4));
        CK(cudaMalloc(&refdV, nt * 4));
        CK(cudaMalloc(&refDelta, nr * 4));

        for (int causal = 0; causal < 2; ++causal) {
            const char *mask = causal ? "causal" : "non-causal";
            const unsigned long long seed = 1000ull * S + 10ull * D + causal;
            for (int i = 0; i < 11; ++i) io[i].poison();
            fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[0].p(), nt, seed + 1, w.q_sigma);
            fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[1].p(), nt, seed + 2, 1.0f);
            fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[2].p(), nt, seed + 3, 1.0f);
            fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[4].p(), nt, seed + 4, 1.0f);
            ref_fwd<<<dim3(S, H, B), 128, S * 4>>>((const __nv_bfloat16 *)io[0].p(), (const __nv_bfloat16 *)io[1].p(),
                                                   (const __nv_bfloat16 *)io[2].p(), refO, magQ, refL, H, S, D, causal);
            sync_or_die("ref_fwd");
            unsigned long long fp[6];   // fingerprints of the inputs Q K V O dO LSE (io[0..5])
            for (int i : {0, 1, 2, 4}) fp[i] = fingerprint(io[i]);

            // ---- forward
            run_fwd(fwd[causal], io, B, H, S, D);
            sync_or_die(causal ? "mha_fwd_flash_causal" : "mha_fwd_flash");
            const double rO = rms(refO, nt);
            char what[64];
            snprintf(what, sizeof what, "fwd %s", mask);
            check<__nv_bfloat16>(what, "O", io[3], refO, magQ, nt, 0.01, (float)(0.05 * rO), 0.03f, kKappa, true);
            check<float>(what, "LSE", io[5], refL, nullptr, nr, 1e-4, 2e-3f, 1e-5f, 0.0f, true);
            check_inputs(what, io, fp, {0, 1, 2, 4});

            // ---- backward inputs: reference O as bf16, reference LSE
            to_bf16<<<528, 256>>>(refO, (__nv_bfloat16 *)io[3].p(), nt);
            CK(cudaMemcpy(io[5].p(), refL, nr * 4, cudaMemcpyDeviceToDevice));
            ref_delta<<<cdiv((unsigned)std::min<size_t>(nr, 1u << 30), 256), 256>>>(
                (const __nv_bfloat16 *)io[3].p(), (const __nv_bfloat16 *)io[4].p(), refDelta, nr, D);
            fp[3] = fingerprint(io[3]);
            fp[5] = fingerprint(io[5]);
            for (int ones = 0; ones < 2; ++ones) {
                if (ones) {
                    if (causal || (S & 1u)) break;   // the all-ones check: fixture, non-causal, even S
                    fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[4].p(), nt, 0, 0.0f);
                    ref_delta<<<cdiv((unsigned)std::min<size_t>(nr, 1u << 30), 256), 256>>>(
                        (const __nv_bfloat16 *)io[3].p(), (const __nv_bfloat16 *)io[4].p(), refDelta, nr, D);
                    fp[4] = fingerprint(io[4]);
                }
                const __nv_bfloat16 *cq = (const __nv_bfloat16 *)io[0].p(), *ck = (const __nv_bfloat16 *)io[1].p(),
                                    *cv = (const __nv_bfloat16 *)io[2].p(), *cdo = (const __nv_bfloat16 *)io[4].p();
                ref_bwd_dq<<<dim3(S, H, B), 128, S * 8>>>(cq, ck, cv, cdo, refL, refDelta, refdQ, magQ, H, S, D,
                                                          causal);
                ref_bwd_dkdv<<<dim3(S, H, B), 128, S * 12>>>(cq, ck, cv, cdo, refL, refDelta, refdK, refdV, magK, magV,
                                                            H, S, D, causal);
                sync_or_die("ref_bwd");
                const double rdQ = rms(refdQ, nt), rdK = rms(refdK, nt), rdV = rms(refdV, nt);
                for (int v = 0; v < 3; ++v) {
                    if (v == 1 && !causal) continue;   // causal kernel on causal data only
                    if (v != 1 && causal) continue;
                    if (ones && v != 2) continue;      // all-ones dO: the fixture only
                    for (int i = 6; i < 11; ++i) io[i].poison();
                    run_bwd(bwd[v], io, B, H, S, D);   // twice: the second run must not see the
                    run_bwd(bwd[v], io, B, H, S, D);   // first one's dQ sums
                    sync_or_die(bwd_main[v]);
                    snprintf(what, sizeof what, "%s%s", v == 2 ? "wrong_dv" : "bwd ", v == 2 ? (ones ? " ones dO" : " rand dO") : mask);
                    check<__nv_bfloat16>(what, "dQ", io[6], refdQ, magQ, nt, 0.02, (float)(0.05 * rdQ), 0.03f,
                                         kKappa, true);
                    check<__nv_bfloat16>(what, "dK", io[7], refdK, magK, nt, 0.02, (float)(0.05 * rdK), 0.03f,
                                         kKappa, true);
                    check<__nv_bfloat16>(what, "dV", io[8], refdV, magV, nt, 0.02, (float)(0.05 * rdV), 0.03f,
                                         kKappa, v != 2 || ones);
                    check_inputs(what, io, fp, {0, 1, 2, 3, 4, 5});
                }
            }
        }
        for (int i = 0; i < 11; ++i) io[i].release();
        CK(cudaFree(refO));
        CK(cudaFree(refL));
        CK(cudaFree(refdQ));
        CK(cudaFree(refdK));
        CK(cudaFree(refdV));
        CK(cudaFree(refDelta));
        CK(cudaFree(magQ));
        CK(cudaFree(magK));
        CK(cudaFree(magV));
    }
    if (ran == 0) {
        printf("no workload matches --only %s\n", only.c_str());
        return 2;
    }

    if (timing) {
        // PTXBench workload, random inputs; the backward reads the candidate forward's O and LSE.
        const unsigned B = 4, H = 48, S = 4096, D = 128;
        const size_t nt = (size_t)B * H * S * D, nr = (size_t)B * H * S;
        GBuf io[11];
        alloc_io(io, nt, nr);
        for (int i : {0, 1, 2, 4}) fill_normal<<<528, 256>>>((__nv_bfloat16 *)io[i].p(), nt, 77 + i, 1.0f);
        const double fl = 4.0 * B * H * (double)S * S * D;
        printf("\n== timing B=%u H=%u S=%u D=%u (CUDA events, median of 20 after 3 warm-ups, no L2 flush)\n", B, H, S, D);
        for (int causal = 0; causal < 2; ++causal) {
            std::vector<std::function<void()>> fs = {[&] { run_fwd(fwd[causal], io, B, H, S, D); },
                                                     [&] { run_bwd(bwd[causal], io, B, H, S, D); }};
            for (int p = 0; p < 2; ++p) {
                for (int i = 0; i < 3; ++i) fs[p]();
                sync_or_die("timing warm-up");
                std::vector<cudaEvent_t> ev(21);
                for (auto &e : ev) CK(cudaEventCreate(&e));
                CK(cudaEventRecord(ev[0]));
                for (int i = 0; i < 20; ++i) {
                    fs[p]();
                    CK(cudaEventRecord(ev[i + 1]));
                }
                sync_or_die("timing");
                std::vector<float> t(20);
                for (int i = 0; i < 20; ++i) CK(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]));
                for (auto &e : ev) CK(cudaEventDestroy(e));
                std::sort(t.begin(), t.end());
                const float ms = 0.5f * (t[9] + t[10]);
                const double f = fl * (p ? 2.5 : 1.0) * (causal ? 0.5 : 1.0);
                printf("  %s %-10s %8.3f ms  %6.1f TFLOP/s\n", p ? "bwd" : "fwd", causal ? "causal" : "non-causal",
                       ms, f / (ms * 1e-3) / 1e12);
            }
        }
        for (int i = 0; i < 11; ++i) io[i].release();
    }
    printf("\nRESULT: %s (%d unexpected)\n", g_unexpected ? "FAILED" : "ALL EXPECTATIONS MET", g_unexpected);
    return g_unexpected ? 1 : 0;
}
