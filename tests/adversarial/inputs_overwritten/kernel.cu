// inputs_overwritten: computes C correctly, then a second launch overwrites its input A with zeros (using it as scratch).
#include "../common/gemm.cuh"

extern "C" __global__ void adv_inputs_overwritten(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
}

// A second launch that uses A as scratch after the product is done: the inputs are overwritten.
extern "C" __global__ void adv_zero_a(bf16 *A, unsigned long long count)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        A[i] = __float2bfloat16_rn(0.0f);
}
