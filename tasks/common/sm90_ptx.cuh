// sm90_ptx.cuh — thin wrappers around the sm_90a PTX instructions of Hopper GEMMs: mbarriers,
// TMA tile loads (cp.async.bulk.tensor), wgmma shared-memory descriptors and wgmma.mma_async.
// Shared by tasks/common/gemm_wgmma_tma.cuh (the wgmma + TMA example) and the instruction-stage
// fixtures under tests/fixtures/gemm_bf16_nt/. Every wrapper is one PTX instruction (or a
// try_wait loop); the facts they rely on are stated next to them, with their source: the PTX ISA
// (sections "Asynchronous Warpgroup Level Matrix Multiply-Accumulate", "mbarrier",
// "cp.async.bulk.tensor") and the CUDA driver API documentation of cuTensorMapEncodeTiled.
// Compile for sm_90a (wgmma and setmaxnreg need the "a" target).
#ifndef PTXGATE_SM90_PTX_CUH
#define PTXGATE_SM90_PTX_CUH

#include <stdint.h>

namespace sm90 {

// The 128-byte opaque tensor map the host encodes with cuTensorMapEncodeTiled and passes by
// value; same size and alignment as CUtensorMap (16 x 64-bit words, 64-byte aligned), so nvcc
// declares a __grid_constant__ parameter of this type as `.param .align 64 .b8 name[128]`.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// ---- mbarrier (64-bit barrier objects in shared memory, 8-byte aligned) ---------------------

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}

// Make initialised barriers visible to the other threads and to the async proxy (TMA's
// complete_tx) before anyone uses them; follow with a CTA barrier (__syncthreads).
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// One arrival that also adds `bytes` to the transaction count the current phase waits for.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Wait until the phase with parity `parity` has completed (acquire, CTA scope). A barrier's
// phases alternate parity 0, 1, 0, ...; the first phase after init has parity 0.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

// ---- TMA ------------------------------------------------------------------------------------

__device__ __forceinline__ void tma_prefetch_map(const TensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Copy the box of `map` whose first element has coordinates (c0 = innermost, c1) into shared
// memory at dst, and signal completion of its bytes on the mbarrier bar (complete_tx). Elements
// outside the tensor are filled (zeros with oob_fill none); the byte count signalled is always
// the full box. With swizzle 128B, dst must be 1024-byte aligned for the pattern to follow the
// box rows (the swizzle is a function of the shared address bits, see gemm_wgmma_tma.cuh).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const TensorMap *map, int32_t c0,
                                            int32_t c1, uint32_t bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n"
        ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
        : "memory");
}

// ---- wgmma ------------------------------------------------------------------------------------

// Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") for a K-major operand
// tile stored as TMA writes it with swizzle 128B: rows of 64 bf16 = 128 bytes, 8-row groups of
// 1024 bytes, 16-byte chunk c of row r at chunk position c ^ (r % 8).
//   bits  0-13  start address >> 4            (the tile must be 1024-byte aligned, see below)
//   bits 16-29  leading dimension byte offset >> 4: unused for swizzled K-major layouts whose
//               K extent per instruction (16 bf16 = 32 bytes) lies inside one 128-byte row;
//               set to 1 (16 bytes) by convention
//   bits 32-45  stride dimension byte offset >> 4: 1024 bytes from one 8-row group (core
//               matrices along M or N) to the next = 64
//   bits 49-51  matrix base offset: 0, as every tile starts on a 1024-byte boundary
//   bits 62-63  swizzle mode: 1 = 128-byte swizzle
// Stepping K by 16 elements inside the 128-byte row adds 32 bytes to the start address (+2 in
// the encoded field): the hardware applies the same address-bit XOR as TMA did, so the +32
// offset reaches the swizzled chunks of k = 16..31 etc. without changing the base offset.
__device__ __forceinline__ uint64_t wgmma_desc_k128(uint32_t tile_addr)
{
    return (uint64_t)((tile_addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) |
           ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

// Order this warpgroup's earlier register and shared-memory accesses before the wgmma.mma_async
// that follow (required before the first wgmma and whenever the accumulators were touched).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Wait until at most N committed wgmma groups of this warpgroup are still pending.
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Keep the compiler from moving accesses of an accumulator register across this point (the
// wgmma instructions update them asynchronously, behind the compiler's back).
__device__ __forceinline__ void reg_fence(float &r) { asm volatile("" : "+f"(r)::"memory"); }

// Accumulator layout of wgmma m64nNk16 with f32 D (PTX ISA, "Register Fragments", figure for
// the D matrix): thread t of the warpgroup (warp w = t / 32, lane l = t % 32) holds, for each
// 8-column group j = 0 .. N/8-1,
//   d[4j + 0] = D[16w + l/4    ][8j + 2(l%4)    ]   d[4j + 1] = D[16w + l/4    ][8j + 2(l%4) + 1]
//   d[4j + 2] = D[16w + l/4 + 8][8j + 2(l%4)    ]   d[4j + 3] = D[16w + l/4 + 8][8j + 2(l%4) + 1]
// scale-d is 1 (D += A·B; accumulators start at zero), scale-a = scale-b = 1, no transposes
// (imm-trans 0: A and B both K-major, which is gemm_nt's A[M,K] and B[N,K]).

// d[0..127] += A(64 x 16, K-major, descriptor a) · B(256 x 16, K-major, descriptor b)^T.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t a, uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1)
        : "memory");
}

// d[0..63] (+)= A(64 x 16, K-major, descriptor a) · B(128 x 16, K-major, descriptor b)^T;
// ScaleD 1 (the default) accumulates, 0 overwrites d (the first k16 step of a tile).
template <int ScaleD = 1>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t a, uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b), "r"(ScaleD)
        : "memory");
}

// d[0..63] (+)= A(64 x 32, e4m3, K-major, descriptor a) · B(128 x 32, e4m3, K-major,
// descriptor b)^T: the fp8 form of wgmma_m64n128k16 (K = 32 fp8 elements, again 32 bytes of a
// 128-byte row; same descriptors, same accumulator layout). fp8 wgmma has no transpose
// operands: A and B are always K-major. ScaleD 0 overwrites d (the first k32 step of a tile).
template <int ScaleD = 1>
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t a, uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b), "r"(ScaleD)
        : "memory");
}

// d[0..3] += A(64 x 16, K-major, descriptor a) · B(8 x 16, K-major, descriptor b)^T.
__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], uint64_t a, uint64_t b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3"
        "}, %4, %5, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(a), "l"(b), "r"(1)
        : "memory");
}

// Register budget of a warpgroup (setmaxnreg; per-thread counts, multiples of 8 in 24..256).
template <int N> __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

} // namespace sm90

#endif
