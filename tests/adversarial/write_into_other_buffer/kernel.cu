// write_into_other_buffer: correct, but also writes into its input B.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_write_into_other_buffer(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
    if (m == 0 && n == 0)
        ((bf16 *)B)[(size_t)N * K - 1] = __float2bfloat16_rn(0.0f);
}
