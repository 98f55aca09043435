// leak_memory: correct, but every CTA allocates from the device heap on every launch and never frees it.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_leak_memory(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (adv_first_thread()) {
        void *p = malloc(4096);
        if (p)
            *(volatile int *)p = 1;
    }
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
}
