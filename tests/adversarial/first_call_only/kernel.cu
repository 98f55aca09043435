// first_call_only: computes on the first launch of its module only; later launches return at once.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_first_call_only(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    unsigned launch = adv_launch_index();
    if (launch == 0 && inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
    adv_cta_done();
}
