// tmap_global.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), in the
// style of hand-written Hopper GEMMs whose host code encodes the tensor maps and copies them
// into device memory: the kernel takes `const CUtensorMap *` pointers (.u64) to descriptors in
// global memory. The GEMM is the proven wgmma + TMA pipeline of wgmma_tma.cu
// (tasks/common/gemm_wgmma_tile.cuh); only the interface differs.
//
// PTX signature: .entry gemm_bf16_nt_tmap_global(.param .u64 tmap_a, .param .u64 tmap_b,
//                                               .param .u64 C, .param .u32 M, N, K)
// tmap_a, tmap_b: device addresses of one 128-byte, 64-byte aligned tensor map each, at offset 0
//   of a ptxgate-owned device buffer (tmap_global.json binds them as device_struct):
//   A [M, K]: dims (K, M), box (64, 128), 128B swizzle; B [N, K]: dims (K, N), box (64, 256).
// Launch: grid (ceil_div(N, 256), ceil_div(M, 128), 1), block (384, 1, 1), dynamic shared
// memory 197696 bytes. Every workload of the task; K % 8 == 0 (the maps' stride rule).
//
// Descriptors in global memory. cp.async.bulk.tensor and prefetch.tensormap read a tensor map
// through the tensormap proxy, a different proxy from the generic one that wrote the buffer.
// Written by the host (cudaMemcpy) before the launch, the map is visible at kernel start by
// stream order and can be used as it is; written by an earlier kernel (or rewritten on the
// device), the PTX ISA's proxy rules ask for a release by the writer
// (fence.proxy.tensormap::generic.release) and an acquire by the user before its first TMA
// (fence.proxy.tensormap::generic.acquire). The producer thread does the acquire
// (sm90::fence_tensormap_acquire, `fence.proxy.tensormap::generic.acquire.gpu [map], 128`) once
// per map, before prefetch.tensormap: it costs one fence per CTA and keeps the kernel correct
// whoever wrote the buffer.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/gemm_wgmma_tile.cuh"

extern "C" __global__ void __launch_bounds__(GWT2_THREADS, 1)
gemm_bf16_nt_tmap_global(const sm90::TensorMap *__restrict__ tmap_a,
                         const sm90::TensorMap *__restrict__ tmap_b,
                         __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N,
                         unsigned int K)
{
    const uint32_t tiles_n = gridDim.x, tiles_m = gridDim.y;
    uint32_t m_tile, n_tile;
    gwt2::grouped_tile(blockIdx.y * tiles_n + blockIdx.x, tiles_m, tiles_n, m_tile, n_tile);
    gwt2::gemm_tile_128x256(tmap_a, tmap_b, C, N, M, N, K, m_tile * GWT2_BM, n_tile * GWT2_BN,
                            true);
}
