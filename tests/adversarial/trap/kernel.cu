// trap: executes the trap instruction.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_trap(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
    if (m == 0 && n == 0)
        asm volatile("trap;");
}
