// slow_kernel: correct, but its first CTA first waits 4 s of the GPU's global timer: each launch takes over 4 s, so the correctness stage (4 launches) outlives its watchdog.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_slow_kernel(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (blockIdx.x == 0 && blockIdx.y == 0) {
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        do
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        while (t - t0 < 4000000000ull);
    }
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
}
