// tma_probe.cu — two small sm_90a kernels that check, on the GPU, the two hardware facts the
// wgmma + TMA example (tasks/gemm_bf16_nt/examples/wgmma_tma.cu) is built on, with the same
// wrappers (tasks/common/sm90_ptx.cuh). Compiled to a cubin at build time; driven by
// tma_smoke.c, which encodes the tensor maps with ptxgate's device layer and passes them by value.
//   pg_probe_tma:   one TMA box (64 x 64 two-byte elements, swizzle 128B) copied raw from shared
//                   memory to out: the byte layout TMA produces, zero fill included.
//   pg_probe_wgmma: TMA tiles A (64 rows x 64 k) and B (256 rows x 64 k), 4 x wgmma m64n256k16
//                   through the example's descriptors, the 128 accumulators of each thread
//                   written in register order: descriptor, k16 stepping and fragment layout.
// One CTA of 128 threads (one warpgroup) each.
#include <stdint.h>

#include "../../tasks/common/sm90_ptx.cuh"

extern "C" __global__ void __launch_bounds__(128)
pg_probe_tma(const __grid_constant__ sm90::TensorMap map, uint16_t *out, int c0, int c1)
{
    __shared__ __align__(1024) uint16_t tile[64 * 64];
    __shared__ __align__(8) unsigned long long bar;
    const uint32_t t = sm90::smem_addr(tile), b = sm90::smem_addr(&bar);
    if (threadIdx.x == 0) {
        sm90::mbar_init(b, 1);
        sm90::mbar_fence_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        sm90::mbar_arrive_expect_tx(b, 64u * 128u);
        sm90::tma_load_2d(t, &map, c0, c1, b);
    }
    sm90::mbar_wait(b, 0);
    for (uint32_t i = threadIdx.x; i < 64u * 64u; i += 128u)
        out[i] = tile[i];
}

extern "C" __global__ void __launch_bounds__(128)
pg_probe_wgmma(const __grid_constant__ sm90::TensorMap map_a,
               const __grid_constant__ sm90::TensorMap map_b, float *out)
{
    __shared__ __align__(1024) unsigned char tiles[64 * 128 + 256 * 128];
    __shared__ __align__(8) unsigned long long bar;
    const uint32_t a = sm90::smem_addr(tiles), b = a + 64u * 128u, mbar = sm90::smem_addr(&bar);
    if (threadIdx.x == 0) {
        sm90::mbar_init(mbar, 1);
        sm90::mbar_fence_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        sm90::mbar_arrive_expect_tx(mbar, (64u + 256u) * 128u);
        sm90::tma_load_2d(a, &map_a, 0, 0, mbar);
        sm90::tma_load_2d(b, &map_b, 0, 0, mbar);
    }
    sm90::mbar_wait(mbar, 0);
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        d[i] = 0.0f;
    const uint64_t da = sm90::wgmma_desc_k128(a), db = sm90::wgmma_desc_k128(b);
    sm90::wgmma_fence();
#pragma unroll
    for (uint32_t k16 = 0; k16 < 4; ++k16)
        sm90::wgmma_m64n256k16(d, da + 2u * k16, db + 2u * k16);
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < 128; ++i) {
        sm90::reg_fence(d[i]);
        out[threadIdx.x * 128u + i] = d[i];
    }
}
