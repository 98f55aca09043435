// kernels_selftest.cu — standalone GPU self-test of the gemm_*_nt example kernels.
//
// Builds with:  nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -o kernels_selftest kernels_selftest.cu \
//                    -lcublas
// The driver API (for the PTX kernel) is reached through cudaGetDriverEntryPointByVersion, so the
// binary does not link libcuda and can print "SKIP: no GPU" on a machine without a driver.
// (tests/gpu/kernels_selftest.sh does this in a temp dir and runs it.)
//
// For each workload it fills A and B with N(0,1) values (the same values rounded to bf16 and to
// fp16), computes an fp32 reference with a simple shared-memory-tiled CUDA kernel, runs every
// kernel on a poisoned output buffer (0xFFFF = NaN in bf16 and fp16, so unwritten elements show
// up as non-finite) framed by canary guard zones (writes outside C show up as "canary"), and
// prints max |err|, relative L2 error, the number of bad elements (|err| > atol + rtol·|ref|, the
// tolerances of task.json: bf16 0.01 + 0.01·|ref|, fp16 0.01 + 0.005·|ref|) and
// non-finite elements, and the time of one run. Kernels:
//   naive        tasks/gemm_bf16_nt/examples/naive.cu          (#included)     expect pass
//   tiled_mma    tasks/gemm_bf16_nt/examples/tiled_mma.cu      (#included)     expect pass
//   handwritten  tasks/gemm_bf16_nt/examples/handwritten.ptx   (driver JIT)    expect pass
//   off_by_one   tests/fixtures/gemm_bf16_nt/off_by_one.cu     (#included)     expect FAIL
//   wgmma_tma    tasks/gemm_bf16_nt/examples/wgmma_tma.cu      (#included)     expect pass
//   ghost_branch tests/fixtures/gemm_bf16_nt/ghost_branch.cu   (#included)     expect pass (FFMA)
//   token_wgmma  tests/fixtures/gemm_bf16_nt/token_wgmma.cu    (#included)     expect pass (FFMA)
//   cublas       cublasGemmEx, the vendor baseline             (cross-check)   expect pass
//   tiled_mma    tasks/gemm_fp16_nt/examples/tiled_mma.cu      (#included)     expect pass (fp16)
// Then it times tiled_mma, wgmma_tma and cuBLAS at 4096^3 (CUDA events, median of 20 after 5
// warm-ups). The TMA tensor maps of wgmma_tma and the fixtures are encoded with
// cuTensorMapEncodeTiled exactly as their manifests declare them.
// The launch geometry below copies the manifests (*.json next to each kernel): keep them in sync.
//
// Exit status: 0 every kernel met its expectation, 1 one did not (or a CUDA error), 77 no GPU.
// Options: --root DIR (repository root; default from __FILE__), --only SUBSTR (workloads whose
//          name contains SUBSTR), --no-timing, --skip-slow (skip naive/handwritten/off_by_one on
//          the 8192x7168x5120 workload).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../tasks/gemm_bf16_nt/examples/naive.cu"
#include "../../tasks/gemm_bf16_nt/examples/tiled_mma.cu"
#include "../../tasks/gemm_fp16_nt/examples/tiled_mma.cu"
#include "../fixtures/gemm_bf16_nt/off_by_one.cu"
#include "../../tasks/gemm_bf16_nt/examples/wgmma_tma.cu"
#include "../fixtures/gemm_bf16_nt/ghost_branch.cu"
#include "../fixtures/gemm_bf16_nt/token_wgmma.cu"

// ------------------------------------------------------------------------------------------------
#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "FATAL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #call,                 \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Driver API entry points, fetched at run time (no link dependency on libcuda).
static decltype(&cuGetErrorString) p_cuGetErrorString;
static decltype(&cuModuleLoadDataEx) p_cuModuleLoadDataEx;
static decltype(&cuModuleGetFunction) p_cuModuleGetFunction;
static decltype(&cuFuncGetAttribute) p_cuFuncGetAttribute;
static decltype(&cuLaunchKernel) p_cuLaunchKernel;
static decltype(&cuModuleUnload) p_cuModuleUnload;
static decltype(&cuTensorMapEncodeTiled) p_cuTensorMapEncodeTiled;

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
            fprintf(stderr, "FATAL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #call,                 \
                    s_ ? s_ : "?");                                                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Tolerances copied from tasks/gemm_{bf16,fp16}_nt/task.json.
struct Tol {
    float atol, rtol;
    double max_rel_l2;
};
static const Tol kTolBf16 = {0.01f, 0.01f, 0.01};
static const Tol kTolFp16 = {0.01f, 0.005f, 0.005};
template <typename T> static Tol tol_for();
template <> Tol tol_for<__nv_bfloat16>() { return kTolBf16; }
template <> Tol tol_for<__half>() { return kTolFp16; }
static const size_t kGuard = 4096;   // canary elements before and after C

// ---- device helpers ----------------------------------------------------------------------------
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// N(0,1) by Box–Muller from a counter-based hash; the same value rounded to bf16 and to fp16.
__global__ void fill_normal(__nv_bfloat16 *ob, __half *oh, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long u = splitmix64(seed * 0x100000001B3ull + i);
        const float u1 = (float)((u >> 40) + 1) * 5.9604644775390625e-8f;   // (0, 1]
        const float u2 = (float)(u & 0xFFFFFFull) * 5.9604644775390625e-8f;   // [0, 1)
        const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        ob[i] = __float2bfloat16_rn(z);
        oh[i] = __float2half_rn(z);
    }
}

// Reference: R[m,n] = sum_k A[m,k]*B[n,k] in fp32, k in order, 16x16 shared-memory tiles.
template <typename T>
__global__ void ref_gemm_nt(const T *A, const T *B, float *R, int M, int N, int K)
{
    __shared__ float As[16][17], Bs[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
    const int am = blockIdx.y * 16 + ty, bn = blockIdx.x * 16 + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        const int k = k0 + tx;
        As[ty][tx] = (am < M && k < K) ? to_f(A[(size_t)am * K + k]) : 0.0f;
        Bs[ty][tx] = (bn < N && k < K) ? to_f(B[(size_t)bn * K + k]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk) acc = fmaf(As[ty][kk], Bs[tx][kk], acc);
        __syncthreads();
    }
    if (m < M && n < N) R[(size_t)m * N + n] = acc;
}

struct Stats {
    unsigned long long bad, nonfinite, first_bad;
    double err2, ref2;
    unsigned int max_err_bits;   // float bits of a non-negative value: uint order == float order
};

template <typename T>
__global__ void compare_kernel(const T *out, const float *ref, size_t n, float atol, float rtol,
                               Stats *st)
{
    unsigned long long bad = 0, nonfin = 0, first = ~0ull;
    double e2 = 0.0, r2 = 0.0;
    float mx = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float o = to_f(out[i]);
        const float r = ref[i];
        r2 += (double)r * r;
        if (!isfinite(o)) {
            ++nonfin;
            ++bad;
            first = min(first, (unsigned long long)i);
            continue;
        }
        const float e = fabsf(o - r);
        if (e > atol + rtol * fabsf(r)) {
            ++bad;
            first = min(first, (unsigned long long)i);
        }
        mx = fmaxf(mx, e);
        e2 += (double)e * e;
    }
    for (int off = 16; off > 0; off >>= 1) {
        bad += __shfl_down_sync(0xffffffffu, bad, off);
        nonfin += __shfl_down_sync(0xffffffffu, nonfin, off);
        first = min(first, __shfl_down_sync(0xffffffffu, first, off));
        e2 += __shfl_down_sync(0xffffffffu, e2, off);
        r2 += __shfl_down_sync(0xffffffffu, r2, off);
        mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, off));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&st->bad, bad);
        atomicAdd(&st->nonfinite, nonfin);
        atomicMin(&st->first_bad, first);
        atomicAdd(&st->err2, e2);
        atomicAdd(&st->ref2, r2);
        atomicMax(&st->max_err_bits, __float_as_uint(mx));
    }
}

// ---- host side ---------------------------------------------------------------------------------
struct Workload {
    const char *name;
    unsigned M, N, K;
};
static const Workload kWorkloads[] = {
    {"m8192_n7168_k5120", 8192, 7168, 5120}, {"m4096_n4096_k4096", 4096, 4096, 4096},
    {"m2048_n2048_k2048", 2048, 2048, 2048}, {"m4000_n3000_k4000", 4000, 3000, 4000},
    {"m257_n513_k1000", 257, 513, 1000},
};

static unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

// The tensor map of a row-major [rows][K] bf16 tensor as the manifests declare it: dims (K, rows)
// innermost first, box (64, box_rows), swizzle 128B, zero fill; L2 promotion 256B for wgmma_tma,
// none for the fixtures.
static sm90::TensorMap tmap_bf16(const void *base, unsigned rows, unsigned K, unsigned box_rows,
                                 bool l2_256)
{
    CUtensorMap m;
    cuuint64_t dims[2] = {K, rows}, strides[1] = {(cuuint64_t)K * 2};
    cuuint32_t box[2] = {64, box_rows}, es[2] = {1, 1};
    CKD(p_cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)base, dims,
                                 strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 CU_TENSOR_MAP_SWIZZLE_128B,
                                 l2_256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                        : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    sm90::TensorMap t;
    static_assert(sizeof t == sizeof m, "128-byte tensor maps");
    memcpy(&t, &m, sizeof t);
    return t;
}

struct Bufs {
    __nv_bfloat16 *Ab, *Bb;
    __half *Ah, *Bh;
    unsigned short *Cbase;   // kGuard + M*N + kGuard elements of 2 bytes
    float *R;
    Stats *st;
    void *C() const { return Cbase + kGuard; }
};

static int g_unexpected = 0;

static void sync_or_die(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("FATAL: %s: %s (a fault here means an out-of-bounds access or a bad launch; "
               "rerun under compute-sanitizer)\n",
               what, cudaGetErrorString(e));
        fflush(stdout);
        exit(1);
    }
}

// Runs `launch` once on the poisoned C, checks it against R; prints one row.
template <typename T>
static void check(const char *kernel, const char *dtype, bool expect_pass, const Workload &w,
                  Bufs &b, const std::function<void()> &launch)
{
    const size_t mn = (size_t)w.M * w.N;
    const size_t total = mn + 2 * kGuard;
    CK(cudaMemset(b.Cbase, 0xFF, total * 2));
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    std::string what = std::string(kernel) + " (" + dtype + ", " + w.name + ")";
    sync_or_die(what.c_str());
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));

    // canaries
    std::vector<unsigned short> guard(kGuard);
    size_t canary_bad = 0;
    CK(cudaMemcpy(guard.data(), b.Cbase, kGuard * 2, cudaMemcpyDeviceToHost));
    for (unsigned short v : guard) canary_bad += (v != 0xFFFF);
    CK(cudaMemcpy(guard.data(), b.Cbase + kGuard + mn, kGuard * 2, cudaMemcpyDeviceToHost));
    for (unsigned short v : guard) canary_bad += (v != 0xFFFF);

    Stats h;
    memset(&h, 0, sizeof h);
    h.first_bad = ~0ull;
    CK(cudaMemcpy(b.st, &h, sizeof h, cudaMemcpyHostToDevice));
    const Tol tol = tol_for<T>();
    compare_kernel<T><<<132 * 8, 256>>>((const T *)b.C(), b.R, mn, tol.atol, tol.rtol, b.st);
    sync_or_die("compare_kernel");
    CK(cudaMemcpy(&h, b.st, sizeof h, cudaMemcpyDeviceToHost));
    float max_err;
    memcpy(&max_err, &h.max_err_bits, 4);
    const double rel_l2 = h.ref2 > 0 ? sqrt(h.err2 / h.ref2) : sqrt(h.err2);
    const bool pass = h.bad == 0 && h.nonfinite == 0 && rel_l2 <= tol.max_rel_l2 && canary_bad == 0;
    const bool ok = pass == expect_pass;
    if (!ok) ++g_unexpected;
    const double tflops = 2.0 * w.M * w.N * (double)w.K / (ms * 1e-3) / 1e12;
    char first[64] = "-";
    if (h.first_bad != ~0ull)
        snprintf(first, sizeof first, "(%llu,%llu)", h.first_bad / w.N, h.first_bad % w.N);
    printf("  %-12s %-5s %-6s %11.3e %10.3e %10llu %9llu %8zu %-13s %10.3f %8.2f  %s%s\n", kernel,
           dtype, expect_pass ? "pass" : "FAIL", max_err, rel_l2, h.bad, h.nonfinite, canary_bad,
           first, ms, tflops, pass ? "pass" : "FAIL", ok ? "  ok" : "  <== UNEXPECTED");
    fflush(stdout);
}

static float median_ms(const std::function<void()> &launch, int warm, int reps)
{
    for (int i = 0; i < warm; ++i) launch();
    sync_or_die("timing warm-up");
    std::vector<cudaEvent_t> ev(reps + 1);
    for (auto &e : ev) CK(cudaEventCreate(&e));
    CK(cudaEventRecord(ev[0]));
    for (int i = 0; i < reps; ++i) {
        launch();
        CK(cudaEventRecord(ev[i + 1]));
    }
    sync_or_die("timing");
    std::vector<float> t(reps);
    for (int i = 0; i < reps; ++i) CK(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]));
    for (auto &e : ev) CK(cudaEventDestroy(e));
    std::sort(t.begin(), t.end());
    return reps % 2 ? t[reps / 2] : 0.5f * (t[reps / 2 - 1] + t[reps / 2]);
}

static std::string read_file(const std::string &path)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return std::string();
    std::string s;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    std::string root, only;
    bool timing = true, skip_slow = false;
    {
        std::string f = __FILE__;   // .../tests/gpu/kernels_selftest.cu
        size_t p = f.rfind("tests/gpu/");
        root = p == std::string::npos ? std::string("../..") : (p == 0 ? std::string(".") : f.substr(0, p - 1));
    }
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) root = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--no-timing")) timing = false;
        else if (!strcmp(argv[i], "--skip-slow")) skip_slow = true;
        else {
            fprintf(stderr, "usage: %s [--root DIR] [--only SUBSTR] [--no-timing] [--skip-slow]\n", argv[0]);
            return 2;
        }
    }

    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));   // create the primary context (the driver-API module loads into it)
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB; driver %d, runtime %d\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, drv, rt);
    printf("root: %s\n", root.c_str());

    // ---- kernel set-up and resource usage
    CK(cudaFuncSetAttribute(gemm_bf16_nt_tiled_mma, cudaFuncAttributeMaxDynamicSharedMemorySize, GTM_SMEM_BYTES));
    CK(cudaFuncSetAttribute(gemm_fp16_nt_tiled_mma, cudaFuncAttributeMaxDynamicSharedMemorySize, GTM_SMEM_BYTES));
    CK(cudaFuncSetAttribute(gemm_bf16_nt_wgmma_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, GWT_SMEM_BYTES(256)));
    {
        struct { const char *n; const void *f; int smem; int threads; } ks[] = {
            {"gemm_bf16_nt_naive", (const void *)gemm_bf16_nt_naive, 0, 256},
            {"gemm_bf16_nt_tiled_mma", (const void *)gemm_bf16_nt_tiled_mma, GTM_SMEM_BYTES, GTM_THREADS},
            {"gemm_fp16_nt_tiled_mma", (const void *)gemm_fp16_nt_tiled_mma, GTM_SMEM_BYTES, GTM_THREADS},
            {"gemm_bf16_nt_naive_off_by_one", (const void *)gemm_bf16_nt_naive_off_by_one, 0, 256},
            {"gemm_bf16_nt_wgmma_tma", (const void *)gemm_bf16_nt_wgmma_tma, GWT_SMEM_BYTES(256), GWT_THREADS},
            {"gemm_bf16_nt_ghost_branch", (const void *)gemm_bf16_nt_ghost_branch, 0, FT_THREADS},
            {"gemm_bf16_nt_token_wgmma", (const void *)gemm_bf16_nt_token_wgmma, 0, FT_THREADS},
        };
        for (auto &k : ks) {
            cudaFuncAttributes a;
            CK(cudaFuncGetAttributes(&a, k.f));
            int occ = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k.f, k.threads, k.smem));
            printf("kernel %-30s regs %3d  local %zu B  static smem %zu B  dyn smem %d B  CTAs/SM %d\n",
                   k.n, a.numRegs, a.localSizeBytes, a.sharedSizeBytes, k.smem, occ);
        }
    }
    get_driver_fn(p_cuGetErrorString, "cuGetErrorString");
    get_driver_fn(p_cuModuleLoadDataEx, "cuModuleLoadDataEx");
    get_driver_fn(p_cuModuleGetFunction, "cuModuleGetFunction");
    get_driver_fn(p_cuFuncGetAttribute, "cuFuncGetAttribute");
    get_driver_fn(p_cuLaunchKernel, "cuLaunchKernel");
    get_driver_fn(p_cuModuleUnload, "cuModuleUnload");
    get_driver_fn(p_cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    const std::string ptx_path = root + "/tasks/gemm_bf16_nt/examples/handwritten.ptx";
    std::string ptx = read_file(ptx_path);
    if (ptx.empty()) {
        printf("FATAL: cannot read %s (use --root)\n", ptx_path.c_str());
        return 1;
    }
    CUmodule mod;
    CUfunction hw;
    {
        static char errlog[16384], infolog[16384];
        CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
        void *val[] = {errlog, (void *)(size_t)sizeof errlog, infolog, (void *)(size_t)sizeof infolog,
                       (void *)(size_t)1};
        CUresult r = p_cuModuleLoadDataEx(&mod, ptx.c_str(), 5, opt, val);
        if (r != CUDA_SUCCESS) {
            printf("FATAL: driver JIT of %s failed (%d):\n%s\n", ptx_path.c_str(), (int)r, errlog);
            return 1;
        }
        CKD(p_cuModuleGetFunction(&hw, mod, "gemm_bf16_nt_handwritten"));
        int regs = 0, lmem = 0;
        CKD(p_cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, hw));
        CKD(p_cuFuncGetAttribute(&lmem, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, hw));
        printf("kernel %-30s regs %3d  local %d B  (driver JIT of %s)\n", "gemm_bf16_nt_handwritten",
               regs, lmem, ptx_path.c_str());
    }
    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        printf("FATAL: cublasCreate failed\n");
        return 1;
    }

    // ---- buffers sized for the largest workload
    size_t maxMK = 0, maxNK = 0, maxMN = 0;
    for (const Workload &w : kWorkloads) {
        maxMK = std::max(maxMK, (size_t)w.M * w.K);
        maxNK = std::max(maxNK, (size_t)w.N * w.K);
        maxMN = std::max(maxMN, (size_t)w.M * w.N);
    }
    Bufs b;
    CK(cudaMalloc(&b.Ab, maxMK * 2));
    CK(cudaMalloc(&b.Ah, maxMK * 2));
    CK(cudaMalloc(&b.Bb, maxNK * 2));
    CK(cudaMalloc(&b.Bh, maxNK * 2));
    CK(cudaMalloc(&b.Cbase, (maxMN + 2 * kGuard) * 2));
    CK(cudaMalloc(&b.R, maxMN * 4));
    CK(cudaMalloc(&b.st, sizeof(Stats)));

    printf("\nbad = |out-ref| > atol + rtol*|ref|; pass = no bad, no non-finite, rel_l2 <= max_rel_l2, "
           "canaries intact\n  (bf16: atol %.3g rtol %.3g max_rel_l2 %.3g; fp16: atol %.3g rtol %.3g max_rel_l2 %.3g, "
           "as in task.json).\nref = fp32 CUDA reference on the same rounded inputs; time = one launch "
           "(CUDA events, includes launch overhead; cuBLAS's first call per shape includes its set-up).\n",
           kTolBf16.atol, kTolBf16.rtol, kTolBf16.max_rel_l2, kTolFp16.atol, kTolFp16.rtol, kTolFp16.max_rel_l2);
    const float one = 1.0f, zero = 0.0f;
    int ran = 0;
    for (const Workload &w : kWorkloads) {
        if (!only.empty() && std::string(w.name).find(only) == std::string::npos) continue;
        ++ran;
        const unsigned M = w.M, N = w.N, K = w.K;
        printf("\n== %s  M=%u N=%u K=%u ==\n", w.name, M, N, K);
        printf("  %-12s %-5s %-6s %11s %10s %10s %9s %8s %-13s %10s %8s  %s\n", "kernel", "dtype",
               "expect", "max_abs_err", "rel_l2", "bad", "nonfinite", "canary", "first_bad", "time_ms",
               "TFLOP/s", "result");
        fill_normal<<<132 * 16, 256>>>(b.Ab, b.Ah, (size_t)M * K, 0x1234ull + M * 31ull + K);
        fill_normal<<<132 * 16, 256>>>(b.Bb, b.Bh, (size_t)N * K, 0xABCDull + N * 37ull + K);
        sync_or_die("fill_normal");
        const bool slow_ok = !(skip_slow && (size_t)M * N * K > (size_t)4096 * 4096 * 4096);

        // bf16 ------------------------------------------------------------------------------
        ref_gemm_nt<__nv_bfloat16><<<dim3(cdiv(N, 16), cdiv(M, 16)), dim3(16, 16)>>>(b.Ab, b.Bb, b.R, M, N, K);
        sync_or_die("ref_gemm_nt<bf16>");
        auto cublas_bf16 = [&] {
            cublasStatus_t s = cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b.Bb,
                                            CUDA_R_16BF, K, b.Ab, CUDA_R_16BF, K, &zero, b.C(),
                                            CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (s != CUBLAS_STATUS_SUCCESS) printf("  cublasGemmEx(bf16) failed: %d\n", (int)s);
        };
        auto tiled_bf16 = [&] {
            gemm_bf16_nt_tiled_mma<<<dim3(cdiv(N, 128), cdiv(M, 128), 1), dim3(GTM_THREADS, 1, 1), GTM_SMEM_BYTES>>>(
                b.Ab, b.Bb, (__nv_bfloat16 *)b.C(), M, N, K);
        };
        check<__nv_bfloat16>("cublas", "bf16", true, w, b, cublas_bf16);
        if (slow_ok)
            check<__nv_bfloat16>("naive", "bf16", true, w, b, [&] {
                gemm_bf16_nt_naive<<<dim3(cdiv(N, 16), cdiv(M, 16), 1), dim3(16, 16, 1)>>>(
                    b.Ab, b.Bb, (__nv_bfloat16 *)b.C(), M, N, K);
            });
        check<__nv_bfloat16>("tiled_mma", "bf16", true, w, b, tiled_bf16);
        const sm90::TensorMap ta128 = tmap_bf16(b.Ab, M, K, 128, true),
                              tb256 = tmap_bf16(b.Bb, N, K, 256, true),
                              ta64 = tmap_bf16(b.Ab, M, K, 64, false),
                              tb8 = tmap_bf16(b.Bb, N, K, 8, false);
        auto wgmma_bf16 = [&] {
            gemm_bf16_nt_wgmma_tma<<<dim3(cdiv(N, 256), cdiv(M, 128), 1), dim3(GWT_THREADS, 1, 1),
                                     GWT_SMEM_BYTES(256)>>>(ta128, tb256, (__nv_bfloat16 *)b.C(), M, N, K);
        };
        check<__nv_bfloat16>("wgmma_tma", "bf16", true, w, b, wgmma_bf16);
        check<__nv_bfloat16>("ghost_branch", "bf16", true, w, b, [&] {
            gemm_bf16_nt_ghost_branch<<<dim3(cdiv(N, 128), cdiv(M, 128), 1), dim3(FT_THREADS, 1, 1)>>>(
                ta64, tb8, b.Ab, b.Bb, (__nv_bfloat16 *)b.C(), M, N, K);
        });
        check<__nv_bfloat16>("token_wgmma", "bf16", true, w, b, [&] {
            gemm_bf16_nt_token_wgmma<<<dim3(cdiv(N, 128), cdiv(M, 128), 1), dim3(FT_THREADS, 1, 1)>>>(
                ta64, tb8, b.Ab, b.Bb, (__nv_bfloat16 *)b.C(), M, N, K);
        });
        if (slow_ok)
            check<__nv_bfloat16>("handwritten", "bf16", true, w, b, [&] {
                CUdeviceptr pa = (CUdeviceptr)b.Ab, pb = (CUdeviceptr)b.Bb, pc = (CUdeviceptr)b.C();
                unsigned m = M, n = N, k = K;
                void *args[] = {&pa, &pb, &pc, &m, &n, &k};
                CKD(p_cuLaunchKernel(hw, cdiv(N, 32), cdiv(M, 32), 1, 16, 16, 1, 0, 0, args, nullptr));
            });
        if (slow_ok)
            check<__nv_bfloat16>("off_by_one", "bf16", false, w, b, [&] {
                gemm_bf16_nt_naive_off_by_one<<<dim3(cdiv(N, 16), cdiv(M, 16), 1), dim3(16, 16, 1)>>>(
                    b.Ab, b.Bb, (__nv_bfloat16 *)b.C(), M, N, K);
            });

        // fp16 ------------------------------------------------------------------------------
        ref_gemm_nt<__half><<<dim3(cdiv(N, 16), cdiv(M, 16)), dim3(16, 16)>>>(b.Ah, b.Bh, b.R, M, N, K);
        sync_or_die("ref_gemm_nt<fp16>");
        auto cublas_fp16 = [&] {
            cublasStatus_t s = cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b.Bh,
                                            CUDA_R_16F, K, b.Ah, CUDA_R_16F, K, &zero, b.C(),
                                            CUDA_R_16F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (s != CUBLAS_STATUS_SUCCESS) printf("  cublasGemmEx(fp16) failed: %d\n", (int)s);
        };
        auto tiled_fp16 = [&] {
            gemm_fp16_nt_tiled_mma<<<dim3(cdiv(N, 128), cdiv(M, 128), 1), dim3(GTM_THREADS, 1, 1), GTM_SMEM_BYTES>>>(
                b.Ah, b.Bh, (__half *)b.C(), M, N, K);
        };
        check<__half>("cublas", "fp16", true, w, b, cublas_fp16);
        check<__half>("tiled_mma", "fp16", true, w, b, tiled_fp16);

        // timing ----------------------------------------------------------------------------
        if (timing) {
            const bool big = M == 4096 && N == 4096 && K == 4096;
            const int warm = big ? 5 : 2, reps = big ? 20 : 5;
            const double fl = 2.0 * M * N * (double)K;
            const float t_tb = median_ms(tiled_bf16, warm, reps), t_cb = median_ms(cublas_bf16, warm, reps);
            const float t_wb = median_ms(wgmma_bf16, warm, reps);
            const float t_th = median_ms(tiled_fp16, warm, reps), t_ch = median_ms(cublas_fp16, warm, reps);
            printf("  timing (median of %d after %d warm-up, back-to-back, no L2 flush):\n", reps, warm);
            printf("    bf16 tiled_mma %8.3f ms %7.1f TFLOP/s | cublas %8.3f ms %7.1f TFLOP/s | speedup (cublas/tiled) %.3f\n",
                   t_tb, fl / (t_tb * 1e-3) / 1e12, t_cb, fl / (t_cb * 1e-3) / 1e12, t_cb / t_tb);
            printf("    bf16 wgmma_tma %8.3f ms %7.1f TFLOP/s | cublas %8.3f ms %7.1f TFLOP/s | speedup (cublas/wgmma) %.3f\n",
                   t_wb, fl / (t_wb * 1e-3) / 1e12, t_cb, fl / (t_cb * 1e-3) / 1e12, t_cb / t_wb);
            printf("    fp16 tiled_mma %8.3f ms %7.1f TFLOP/s | cublas %8.3f ms %7.1f TFLOP/s | speedup (cublas/tiled) %.3f\n",
                   t_th, fl / (t_th * 1e-3) / 1e12, t_ch, fl / (t_ch * 1e-3) / 1e12, t_ch / t_th);
        }
    }
    if (ran == 0) {
        printf("no workload matches --only %s\n", only.c_str());
        return 2;
    }
    cublasDestroy(cublas);
    p_cuModuleUnload(mod);
    printf("\nRESULT: %s (%d unexpected)\n", g_unexpected ? "FAILED" : "ALL EXPECTATIONS MET", g_unexpected);
    return g_unexpected ? 1 : 0;
}
