// Shared pieces of the adversarial kernels (tests/adversarial/README.md): the honest result of one
// element of C = A · Bᵀ, and a launch counter kept in module memory, so a kernel can behave
// differently on its first calls -- the cheats the gate must catch. Every kernel launches as
// grid (ceil_div(N, 16), ceil_div(M, 16), 1), block (16, 16, 1), one thread per element of C.
#pragma once
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

// fp32 fused multiply-add over k = 0 .. K-1 in order (ptxgate's reference order).
__device__ __forceinline__ float adv_dot(const bf16 *A, const bf16 *B, unsigned m, unsigned n,
                                         unsigned K)
{
    const bf16 *a = A + (size_t)m * K, *b = B + (size_t)n * K;
    float acc = 0.0f;
    for (unsigned k = 0; k < K; ++k)
        acc = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), acc);
    return acc;
}

#define ADV_ELEMENT                                                                             \
    const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;                                  \
    const unsigned m = blockIdx.y * blockDim.y + threadIdx.y;                                  \
    const bool inside = m < M && n < N

// CTAs of this module's launches that have finished. Within one launch every CTA reads
// floor(done / CTAs per launch) = the number of earlier launches, because only this launch's
// CTAs can finish while it runs.
__device__ unsigned long long adv_ctas_done;

__device__ __forceinline__ bool adv_first_thread()
{
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}

// The index of the running launch (0 for the module's first), the same for every thread of it.
__device__ __forceinline__ unsigned adv_launch_index()
{
    __shared__ unsigned index;
    if (adv_first_thread()) {
        unsigned long long ctas = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
        index = (unsigned)(*(volatile unsigned long long *)&adv_ctas_done / ctas);
    }
    __syncthreads();
    return index;
}

// Call once per CTA at its very end (all threads); true in the launch's last CTA to finish.
__device__ __forceinline__ bool adv_cta_done()
{
    __shared__ bool last;
    __syncthreads();
    if (adv_first_thread()) {
        __threadfence();
        unsigned long long ctas = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
        last = atomicAdd(&adv_ctas_done, 1ull) % ctas == ctas - 1;
    }
    __syncthreads();
    return last;
}
