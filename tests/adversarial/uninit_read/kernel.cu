// uninit_read: adds a workspace it never wrote to every element (as if fresh memory were zero); the workspace is poisoned (init "poison"), so the reads surface as NaN.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_uninit_read(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K, const float *__restrict__ scratch)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K) + scratch[(size_t)m * N + n]);
}
