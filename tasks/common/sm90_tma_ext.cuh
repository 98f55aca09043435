// sm90_tma_ext.cuh — the sm_90a PTX wrappers that the interface examples of gemm_bf16_nt add to
// tasks/common/sm90_ptx.cuh: a rank-3 TMA load, the TMA store (shared -> global) with its bulk
// groups, the tensormap-proxy acquire fence for maps read from global memory, named barriers and
// the cluster special registers. One PTX instruction per wrapper; facts from the PTX ISA
// (sections "cp.async.bulk.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
// "membar/fence" (proxy fences), "bar", "Special Registers").
#ifndef PTXGATE_SM90_TMA_EXT_CUH
#define PTXGATE_SM90_TMA_EXT_CUH

#include <stdint.h>

#include "sm90_ptx.cuh"

namespace sm90 {

// Rank-3 TMA load of the box whose first element has coordinates (c0 innermost, c1, c2) into
// shared memory at dst, completion signalled on the mbarrier bar as in tma_load_2d. A box of
// extent 1 in the outermost dimension lands exactly like a rank-2 box of the two inner ones.
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const TensorMap *map, int32_t c0,
                                            int32_t c1, int32_t c2, uint32_t bar)
{
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];\n"
        ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
        : "memory");
}

// TMA store of the box at (c0 innermost, c1) from shared memory src into the tensor of map
// (cp.async.bulk.tensor shared::cta -> global, bulk-group completion). Elements of the box
// outside the tensor are not written. The shared-memory source must be written before the
// store through the generic proxy and then made visible to the async proxy
// (fence_proxy_async_shared by every writing thread, then a barrier, then the store).
__device__ __forceinline__ void tma_store_2d(const TensorMap *map, int32_t c0, int32_t c1,
                                             uint32_t src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}

// Close the bulk async group of the stores issued so far by this thread.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Wait until at most N of this thread's bulk groups have not finished READING shared memory
// (their sources may then be overwritten; the global writes may still be in flight).
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Wait until at most N of this thread's bulk groups are still pending, global writes included.
template <int N> __device__ __forceinline__ void bulk_wait()
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Generic-proxy writes to shared memory by this thread become visible to the async proxy (the
// TMA store that reads them after a barrier).
__device__ __forceinline__ void fence_proxy_async_shared()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Acquire side of the tensormap proxy for a 128-byte tensor map in global memory: orders the
// tensor map's earlier writes through the generic proxy before this thread's later uses of it
// by cp.async.bulk.tensor / prefetch.tensormap (the tensormap proxy). The CUDA C++ Programming
// Guide asks each thread block to do this before the first use of a map that the host copied
// into global memory (cudaMemcpy), at system scope (.sys) for that case; it also covers a map
// written by an earlier kernel with generic stores.
__device__ __forceinline__ void fence_tensormap_acquire(const TensorMap *map)
{
    asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;\n"
                 ::"l"(reinterpret_cast<uint64_t>(map))
                 : "memory");
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads (a multiple of 32).
__device__ __forceinline__ void named_barrier(uint32_t id, uint32_t threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// This CTA's rank in its cluster, the cluster's index in the grid (x) and the clusters in the
// grid (x): the special registers %cluster_ctarank, %clusterid.x, %nclusterid.x.
__device__ __forceinline__ uint32_t cluster_ctarank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint32_t cluster_id_x()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint32_t cluster_count_x()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
    return r;
}

} // namespace sm90

#endif
