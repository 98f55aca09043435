// cuda_model.h — runs the GEMM examples' CUDA C++ on the CPU, one thread per CUDA thread, so
// that their index arithmetic, bounds checks and pipelines are checked without a GPU.
// Force-included (g++ -include) before an example's .cu. It
//   - turns the CUDA keywords into plain C++ (dynamic shared memory becomes one arena that the
//     CTAs, run one after another, share);
//   - defines the include guard of tasks/common/mma_sync_ptx.cuh and supplies the same functions,
//     so that every PTX instruction of the examples (they all live in that file) is modelled
//     here from the PTX ISA's definition (fragment layouts as in that file's header comment);
//   - checks as it goes: shared addresses in range and aligned, cp.async sources aligned,
//     tf32 operands, every thread reaching the same number of __syncthreads, no cp.async left
//     pending at exit.
// cp.async copies run either when issued ("immediate": catches a stage refilled while still
// read) or at the latest moment the PTX allows, the cp.async.wait_group that requires them
// ("deferred": catches a read before its wait). Global memory is the host buffers the harness
// guards with unmapped pages, so an out-of-bounds access faults.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __align__(n)
#define PTXGATE_MMA_SYNC_PTX_CUH 1   // the real wrappers are replaced by namespace msp below

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) float2 {
    float x, y;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline float __uint_as_float(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint32_t __float_as_uint(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 gridDim, blockDim;

namespace model {

struct Copy {
    uint32_t dst;
    const void *src;
    uint32_t bytes, src_bytes;
};

struct Warp {
    std::barrier<> bar{32};
    uint32_t addr[32];
    uint32_t a[32][4];
    uint32_t b[32][2];
};

inline uint8_t *smem;          // this CTA's dynamic shared memory
inline size_t smem_bytes;
inline std::barrier<> *cta;    // __syncthreads
inline Warp *warps;
inline bool deferred;
inline std::atomic<long> errors{0};
inline thread_local std::vector<std::vector<Copy>> groups;   // committed, oldest first
inline thread_local std::vector<Copy> open;                 // issued, not committed
inline thread_local long syncs;

inline void fail(const char *fmt, ...)
{
    if (errors.fetch_add(1) < 20) {
        va_list ap;
        va_start(ap, fmt);
        std::fprintf(stderr, "model error (block %u,%u,%u thread %u): ", blockIdx.x, blockIdx.y,
                     blockIdx.z, threadIdx.x);
        std::vfprintf(stderr, fmt, ap);
        std::fputc('\n', stderr);
        va_end(ap);
    }
}

inline bool smem_ok(uint32_t addr, uint32_t bytes, uint32_t align, const char *what)
{
    if (addr % align != 0 || (size_t)addr + bytes > smem_bytes) {
        fail("%s: shared address %u (%u bytes) misaligned or outside the %zu-byte window", what,
             addr, bytes, smem_bytes);
        return false;
    }
    return true;
}

inline void perform(const Copy &c)
{
    if (c.src_bytes)
        std::memcpy(smem + c.dst, c.src, c.src_bytes);
    std::memset(smem + c.dst + c.src_bytes, 0, c.bytes - c.src_bytes);
}

inline void cp_async(uint32_t dst, const void *src, uint32_t bytes, uint32_t src_bytes)
{
    if (!smem_ok(dst, bytes, bytes, "cp.async"))
        return;
    if (src_bytes != 0 && src_bytes != bytes)
        fail("cp.async: src-size %u (the examples use 0 or the full %u)", src_bytes, bytes);
    if (src_bytes && (uintptr_t)src % bytes)
        fail("cp.async: global source %p not %u-byte aligned", src, bytes);
    Copy c{dst, src, bytes, src_bytes};
    if (deferred)
        open.push_back(c);
    else
        perform(c);
}

inline Warp &warp() { return warps[threadIdx.x / 32]; }
inline unsigned lane() { return threadIdx.x % 32; }

inline uint32_t ld32(uint32_t addr)
{
    uint32_t v = 0;
    if (smem_ok(addr, 4, 4, "ldmatrix row"))
        std::memcpy(&v, smem + addr, 4);
    return v;
}
inline uint32_t ld16(uint32_t addr)
{
    uint16_t v = 0;
    if (smem_ok(addr, 2, 2, "ldmatrix row"))
        std::memcpy(&v, smem + addr, 2);
    return v;
}
inline float bf16_to_float(uint32_t h) { return __uint_as_float(h << 16); }

}  // namespace model

inline uint64_t __cvta_generic_to_shared(const void *p)
{
    const uint8_t *q = (const uint8_t *)p;
    if (q < model::smem || q > model::smem + model::smem_bytes)
        model::fail("__cvta_generic_to_shared of a pointer outside shared memory");
    return (uint64_t)(q - model::smem);
}

inline void __syncthreads()
{
    model::syncs++;
    model::cta->arrive_and_wait();
}

namespace msp {

inline uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
inline void cp_async_4(uint32_t dst, const void *src, uint32_t n) { model::cp_async(dst, src, 4, n); }
inline void cp_async_16(uint32_t dst, const void *src, uint32_t n) { model::cp_async(dst, src, 16, n); }
inline void cp_async_commit()
{
    model::groups.push_back(model::open);
    model::open.clear();
}
template <int N> inline void cp_async_wait()
{
    while (model::groups.size() > (size_t)N) {
        for (const model::Copy &c : model::groups.front())
            model::perform(c);
        model::groups.erase(model::groups.begin());
    }
}

// ldmatrix.x4: lanes 8i..8i+7 give the row addresses of matrix i; register i of lane l gets
// row l/4, b16 columns 2(l%4), 2(l%4)+1 (.trans: rows 2(l%4), 2(l%4)+1 of b16 column l/4).
inline void ldmatrix_any(uint32_t (&r)[4], uint32_t addr, bool trans)
{
    model::Warp &w = model::warp();
    const unsigned l = model::lane();
    model::smem_ok(addr, 16, 16, "ldmatrix address");
    w.addr[l] = addr;
    w.bar.arrive_and_wait();
    for (int j = 0; j < 4; ++j) {
        if (!trans) {
            r[j] = model::ld32(w.addr[8 * j + l / 4] + 4 * (l % 4));
        } else {
            const uint32_t lo = model::ld16(w.addr[8 * j + 2 * (l % 4)] + 2 * (l / 4));
            const uint32_t hi = model::ld16(w.addr[8 * j + 2 * (l % 4) + 1] + 2 * (l / 4));
            r[j] = lo | (hi << 16);
        }
    }
    w.bar.arrive_and_wait();
}
inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) { ldmatrix_any(r, addr, false); }
inline void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) { ldmatrix_any(r, addr, true); }

// D fragment element e of lane l: row l/4 + 8·(e/2), column 2(l%4) + e%2.
inline void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    model::Warp &w = model::warp();
    const unsigned l = model::lane();
    for (int i = 0; i < 4; ++i) w.a[l][i] = a[i];
    w.b[l][0] = b0;
    w.b[l][1] = b1;
    w.bar.arrive_and_wait();
    // A (16 × 16): (row, k) in lane (row%8)·4 + (k%8)/2, register (row>=8) + 2(k>=8), half k&1.
    // B (16 × 8): (k, n) in lane n·4 + (k%8)/2, register (k>=8), half k&1.
    auto A = [&](int row, int k) {
        const uint32_t v = w.a[(row % 8) * 4 + (k % 8) / 2][(row >= 8) + 2 * (k >= 8)];
        return model::bf16_to_float((k & 1) ? v >> 16 : v & 0xffffu);
    };
    auto B = [&](int k, int n) {
        const uint32_t v = w.b[n * 4 + (k % 8) / 2][k >= 8];
        return model::bf16_to_float((k & 1) ? v >> 16 : v & 0xffffu);
    };
    float out[4];
    for (int e = 0; e < 4; ++e) {
        const int row = (int)(l / 4) + 8 * (e / 2), col = 2 * (int)(l % 4) + e % 2;
        float s = d[e];
        for (int k = 0; k < 16; ++k) s += A(row, k) * B(k, col);
        out[e] = s;
    }
    w.bar.arrive_and_wait();
    for (int e = 0; e < 4; ++e) d[e] = out[e];
}

inline void mma_tf32_1688(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    model::Warp &w = model::warp();
    const unsigned l = model::lane();
    for (int i = 0; i < 4; ++i) w.a[l][i] = a[i];
    w.b[l][0] = b0;
    w.b[l][1] = b1;
    w.bar.arrive_and_wait();
    // The hardware reads sign, exponent and the upper 10 mantissa bits.
    auto tf = [](uint32_t v) { return __uint_as_float(v & 0xffffe000u); };
    // A (16 × 8): (row, k) in lane (row%8)·4 + k%4, register (row>=8) + 2(k>=4).
    // B (8 × 8): (k, n) in lane n·4 + k%4, register (k>=4).
    auto A = [&](int row, int k) { return tf(w.a[(row % 8) * 4 + k % 4][(row >= 8) + 2 * (k >= 4)]); };
    auto B = [&](int k, int n) { return tf(w.b[n * 4 + k % 4][k >= 4]); };
    float out[4];
    for (int e = 0; e < 4; ++e) {
        const int row = (int)(l / 4) + 8 * (e / 2), col = 2 * (int)(l % 4) + e % 2;
        float s = d[e];
        for (int k = 0; k < 8; ++k) s += A(row, k) * B(k, col);
        out[e] = s;
    }
    w.bar.arrive_and_wait();
    for (int e = 0; e < 4; ++e) d[e] = out[e];
}

// cvt.rna.tf32.f32: to nearest, ties away from zero (adding half a tf32 ulp to the magnitude
// bits and truncating); Inf and NaN unchanged.
inline uint32_t cvt_tf32(uint32_t x)
{
    if ((x & 0x7f800000u) == 0x7f800000u)
        return x;
    return (x + 0x1000u) & 0xffffe000u;
}

}  // namespace msp
