// mma_sync_ptx.cuh — one-instruction wrappers around the Ampere-style (sm_80 and later, so
// sm_90a and sm_100a too) PTX that the mma.sync and SIMT GEMM examples of gemm_fp32_nn,
// gemm_tf32_tn, gemm_bf16_nn_beta and gemm_bf16_nt_batched use: cp.async with zero fill,
// ldmatrix (plain and .trans), mma.sync m16n8k16 bf16 and m16n8k8 tf32, cvt.rna.tf32.f32.
// Every wrapper is exactly one PTX instruction. All PTX of those examples is here and nowhere
// else, so that the CPU model of the examples (tests/cases/gemm_examples_model) can stand in
// for this one file.
//
// Facts relied on (PTX ISA 8.x, sections "cp.async", "ldmatrix", "Matrix Fragments for
// mma.m16n8k16 / mma.m16n8k8", "cvt"):
//   - cp.async.{ca,cg}.shared.global [dst], [src], cp-size, src-size copies src-size bytes and
//     writes zeros to the remaining cp-size - src-size bytes of dst; src-size 0 reads nothing.
//     dst and src must be aligned to cp-size. .cg allows only cp-size 16; .ca allows 4, 8, 16.
//   - ldmatrix.sync.aligned.m8n8.x4.shared.b16: lanes 8i..8i+7 give the 16-byte-aligned row
//     addresses of 8×8 b16 matrix i; register i of lane l receives row l/4, b16 columns
//     2(l%4), 2(l%4)+1 of matrix i (lower column in the lower half). With .trans lane l receives
//     rows 2(l%4), 2(l%4)+1 of column l/4 instead (lower row in the lower half).
//     Read as 32-bit data, one 8×8 b16 matrix is 8 rows × 4 words: without .trans register i of
//     lane l is word l%4 of row l/4 — exactly an fp32/tf32 fragment element.
//   - mma fragments, g = lane/4, t = lane%4 (row, column of the logical operand):
//       m16n8k16 bf16:  A a0 (g, 2t..2t+1)  a1 (g+8, 2t..2t+1)  a2 (g, 2t+8..+9)  a3 (g+8, 2t+8..+9)
//                       B b0 (k 2t..2t+1, n g)  b1 (k 2t+8..2t+9, n g)
//       m16n8k8 tf32:   A a0 (g, t)  a1 (g+8, t)  a2 (g, t+4)  a3 (g+8, t+4)
//                       B b0 (k t, n g)  b1 (k t+4, n g)
//       C/D (both):     c0 (g, 2t)  c1 (g, 2t+1)  c2 (g+8, 2t)  c3 (g+8, 2t+1), fp32
//     The tf32 fragments are the bf16 ones with every 32-bit register holding one element
//     instead of two: the same byte offsets, so the same ldmatrix addresses serve both.
//   - mma .tf32 operands are 32-bit registers in fp32 layout of which the hardware reads the
//     sign, the exponent and the upper 10 mantissa bits; cvt.rna.tf32.f32 rounds an fp32 value
//     to that precision, to nearest with ties away from zero (ptxas 13.0, sm_90a: one integer
//     add of 0x1000 to the bits of a finite value; the low 13 bits, which mma ignores, are not
//     cleared).
#ifndef PTXGATE_MMA_SYNC_PTX_CUH
#define PTXGATE_MMA_SYNC_PTX_CUH

#include <stdint.h>

namespace msp {

// The shared-window address of a pointer into shared memory (what the PTX below takes).
__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// 4-byte global → shared copy (L1-allocating .ca: the only variant with cp-size 4);
// src_bytes is 4 (copy) or 0 (write 4 zero bytes, read nothing).
__device__ __forceinline__ void cp_async_4(uint32_t dst, const void *src, uint32_t src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :
                 : "r"(dst), "l"(src), "r"(src_bytes)
                 : "memory");
}

// 16-byte global → shared copy bypassing L1 (.cg); src_bytes is 16 (copy) or 0 (16 zero bytes).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :
                 : "r"(dst), "l"(src), "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Wait until at most N of this thread's committed groups are still pending.
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// d += a·b on a 16 × 8 × 16 block: bf16 A (row) and B (col) fragments, fp32 accumulators.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                               uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += a·b on a 16 × 8 × 8 block: tf32 A (row) and B (col) fragments, fp32 accumulators.
__device__ __forceinline__ void mma_tf32_1688(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                              uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The fp32 value whose bits are x, rounded to tf32 (nearest, ties away from zero).
__device__ __forceinline__ uint32_t cvt_tf32(uint32_t x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
    return r;
}

}  // namespace msp

#endif  // PTXGATE_MMA_SYNC_PTX_CUH
