// tmap_global.cu — gemm_bf16_nt, C[M,N] = A[M,K] · B[N,K]^T (bf16, fp32 accumulation), in the
// style of hand-written Hopper GEMMs whose host code encodes the tensor maps and copies them
// into device memory: the kernel takes `const CUtensorMap *` pointers (.u64) to descriptors in
// global memory. The GEMM is the proven wgmma + TMA pipeline of wgmma_tma.cu
// (tasks/common/gemm_wgmma_tile.cuh); the interface differs, and the grid is persistent so
// that each CTA acquires the maps once (see "Descriptors in global memory" below).
//
// PTX signature: .entry gemm_bf16_nt_tmap_global(.param .u64 tmap_a, .param .u64 tmap_b,
//                                               .param .u64 C, .param .u32 M, N, K)
// tmap_a, tmap_b: device addresses of one 128-byte, 64-byte aligned tensor map each, at offset 0
//   of a ptxgate-owned device buffer (tmap_global.json binds them as device_struct):
//   A [M, K]: dims (K, M), box (64, 128), 128B swizzle; B [N, K]: dims (K, N), box (64, 256).
// Launch: grid (min(num_sms, T), 1, 1) with T = ceil_div(M, 128) · ceil_div(N, 256), block
// (384, 1, 1), dynamic shared memory 230464 bytes: a persistent grid, CTA b computes tiles
// b, b + gridDim.x, ... in the grouped raster order of wgmma_tma.cu. Every workload of the
// task; K % 8 == 0 (the maps' stride rule).
//
// Descriptors in global memory. cp.async.bulk.tensor and prefetch.tensormap read a tensor map
// through the tensormap proxy, a different proxy from the generic one that wrote the buffer.
// The CUDA C++ Programming Guide (section on using TMA with a tensor map in global memory)
// asks every thread block to acquire a map copied there by the host (cudaMemcpy) with
// fence.proxy.tensormap::generic.acquire before its first use; after that no fence is needed
// until the map changes. This kernel follows that rule (sm90::fence_tensormap_acquire,
// `fence.proxy.tensormap::generic.acquire.sys [map], 128`, system scope as the guide asks for a
// host copy). The fence costs about 0.8 us at each CTA's start on the H200: with wgmma_tma's
// epilogue, one fence per tile (a CTA per tile) made this kernel 3.4-3.7 % slower than
// wgmma_tma at 4000x3000x4000 and 257x513x1000, against 0.0 % without the fence (measured
// 2026-12-02). Hence a persistent grid, which fences once per CTA instead of once per tile,
// and the two maps acquired by two producer threads side by side, first of all in the kernel
// (gemm_wgmma_tile.cuh). Where each CTA has a single tile anyway (2048^3, 257x513x1000) the
// fence remained 2.0-3.3 % of wgmma_tma's time; the staged epilogue of gemm_wgmma_tile.cuh
// saves more than that (2026-12-04: 0.83x wgmma_tma's time at 2048^3, 0.69x at 257x513x1000).
// Loading the first two K slices with cp.async while the maps are acquired, tried the same
// day, made it 10-11 % slower at those two sizes.
#include <cuda_bf16.h>
#include <stdint.h>

#include "../../common/gemm_wgmma_tile.cuh"

// Tile i of the grouped raster (wgmma_tma.cu's order).
struct GroupedTiles {
    uint32_t tiles_m, tiles_n;
    __device__ __forceinline__ bool operator()(uint32_t i, uint32_t &m0, uint32_t &n0) const
    {
        uint32_t m_tile, n_tile;
        gwt2::grouped_tile(i, tiles_m, tiles_n, m_tile, n_tile);
        m0 = m_tile * GWT2_BM;
        n0 = n_tile * GWT2_BN;
        return true;
    }
};

extern "C" __global__ void __launch_bounds__(GWT2_THREADS, 1)
gemm_bf16_nt_tmap_global(const sm90::TensorMap *__restrict__ tmap_a,
                         const sm90::TensorMap *__restrict__ tmap_b,
                         __nv_bfloat16 *__restrict__ C, unsigned int M, unsigned int N,
                         unsigned int K)
{
    const uint32_t tiles_m = (M + GWT2_BM - 1) / GWT2_BM, tiles_n = (N + GWT2_BN - 1) / GWT2_BN;
    gwt2::gemm_tiles_128x256<true>(
        tmap_a, tmap_b, C, N, M, N, K,
        gwt2::TileRange<GroupedTiles>{blockIdx.x, gridDim.x, tiles_m * tiles_n,
                                      GroupedTiles{tiles_m, tiles_n}});
}
