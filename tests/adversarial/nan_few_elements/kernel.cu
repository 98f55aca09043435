// nan_few_elements: correct except three elements (linear indices 0, 1000 and 100000), which are NaN.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_nan_few_elements(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (inside) {
        size_t i = (size_t)m * N + n;
        float v = adv_dot(A, B, m, n, K);
        C[i] = __float2bfloat16_rn(i == 0 || i == 1000 || i == 100000 ? __int_as_float(0x7fc00000) : v);
    }
}
