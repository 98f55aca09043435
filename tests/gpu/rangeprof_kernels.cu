// Calibration kernels of known instruction counts for the CUPTI range profiler
// (tests/gpu/rangeprof_calibration.c). Compiled by nvcc for sm_90a into a cubin and embedded.
// Every count below is per launch of grid g; the expected relations are in the C test.
//
//   cal_wgmma  (block 128*wg threads): every warpgroup issues n wgmma.mma_async m64n16k16
//              bf16 -> fp32, one at a time (fence, mma, commit, wait 0).
//   cal_tma    (block 128 threads): thread 0 issues k cp.async.bulk.tensor.2d loads of a 64x32
//              bf16 box (4096 bytes), each waited for on an mbarrier.
//   cal_mma    (block 128 threads): every warp issues n x (ldmatrix.x4 + mma.sync m16n8k16
//              bf16 -> fp32).
//   cal_bump   one thread adds 1 to *counter: work that updates a buffer in place, for the
//              replay contract (restore between passes).
// Operand values are zeros: only the counts matter. Every kernel writes one float per thread so
// that nothing is optimised away.
#include <cuda.h>
#include <stdint.h>

static __device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// wgmma matrix descriptor, no swizzle: start address, leading and stride byte offsets, each
// encoded >> 4 (PTX ISA, "Matrix Descriptor Format").
static __device__ __forceinline__ uint64_t wgmma_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr >> 4) & 0x3FFF) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}

extern "C" __global__ void __launch_bounds__(256) cal_wgmma(float *out, int n)
{
    // Per warpgroup: A (64x16 bf16, 2 KiB) and B (16x16 bf16, 512 B), with room to spare.
    __shared__ __align__(128) uint32_t smem[2][2048];
    for (int i = threadIdx.x; i < 2 * 2048; i += blockDim.x)
        (&smem[0][0])[i] = 0;
    __syncthreads();
    const int wg = threadIdx.x / 128;
    const uint32_t base = smem_addr(&smem[wg][0]);
    const uint64_t da = wgmma_desc(base, 128, 256);
    const uint64_t db = wgmma_desc(base + 4096, 128, 256);
    float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "setp.ne.b32 p, %10, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
                     "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n"
                     "}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                       "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db), "r"(1)
                     : "memory");
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        d[0] + d[1] + d[2] + d[3] + d[4] + d[5] + d[6] + d[7];
}

extern "C" __global__ void __launch_bounds__(128) cal_tma(const __grid_constant__ CUtensorMap tmap,
                                                          float *out, int k)
{
    __shared__ __align__(128) unsigned short tile[32 * 64];
    __shared__ __align__(8) uint64_t bar;
    const uint32_t sbar = smem_addr(&bar);
    const uint32_t stile = smem_addr(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sbar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll 1
        for (int i = 0; i < k; i++) {
            const int x = (i % 4) * 64, y = ((i / 4) % 8) * 32;
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(sbar),
                         "r"(4096)
                         : "memory");
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                         ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(stile),
                         "l"((uint64_t)&tmap), "r"(x), "r"(y), "r"(sbar)
                         : "memory");
            uint32_t done = 0;
            while (!done)
                asm volatile("{\n"
                             ".reg .pred p;\n"
                             "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                             "selp.u32 %0, 1, 0, p;\n"
                             "}\n"
                             : "=r"(done)
                             : "r"(sbar), "r"((uint32_t)(i & 1))
                             : "memory");
        }
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)tile[threadIdx.x];
}

extern "C" __global__ void __launch_bounds__(128) cal_mma(float *out, int n)
{
    // Per warp: four 8x8 b16 matrices for ldmatrix.x4 (512 B).
    __shared__ __align__(128) uint32_t smem[4 * 128];
    for (int i = threadIdx.x; i < 4 * 128; i += blockDim.x)
        smem[i] = 0;
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t row = smem_addr(&smem[warp * 128]) + lane * 16;
    float c[4] = {0, 0, 0, 0};
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        uint32_t a[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(row)
                     : "memory");
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[0]), "r"(a[1]));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = c[0] + c[1] + c[2] + c[3];
}

extern "C" __global__ void cal_bump(unsigned *counter)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(counter, 1u);
}
