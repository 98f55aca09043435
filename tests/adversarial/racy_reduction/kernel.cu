// racy_reduction: split-K over 32 slices summed with float atomicAdd into a zeroed workspace, then
// rounded to bf16 by a second launch. The slices of one output tile are neighbouring CTAs
// (the slice is blockIdx.x, the fastest-varying index), so they run at the same time on
// different SMs and their atomic additions land in an order that changes from run to run: the
// fp32 sums, and some of their bf16 roundings, differ between runs on identical inputs.
#include "../common/gemm.cuh"

#define SPLITS 32

extern "C" __global__ void adv_racy_partial(const bf16 *__restrict__ A, const bf16 *__restrict__ B,
                                            float *__restrict__ acc, unsigned M, unsigned N,
                                            unsigned K)
{
    const unsigned n = blockIdx.y * blockDim.x + threadIdx.x;
    const unsigned m = blockIdx.z * blockDim.y + threadIdx.y;
    if (m >= M || n >= N)
        return;
    unsigned k0 = (unsigned)((unsigned long long)K * blockIdx.x / SPLITS);
    unsigned k1 = (unsigned)((unsigned long long)K * (blockIdx.x + 1) / SPLITS);
    const bf16 *a = A + (size_t)m * K, *b = B + (size_t)n * K;
    float part = 0.0f;
    for (unsigned k = k0; k < k1; ++k)
        part = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), part);
    atomicAdd(&acc[(size_t)m * N + n], part);
}

extern "C" __global__ void adv_racy_round(const float *__restrict__ acc, bf16 *__restrict__ C,
                                          unsigned M, unsigned N)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(acc[(size_t)m * N + n]);
}
