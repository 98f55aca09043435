// all_zeros: writes zeros to every element of C.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_all_zeros(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    (void)A; (void)B; (void)K;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(0.0f);
}
