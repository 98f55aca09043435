// stops_after_n_calls: correct on the first 4 launches of its module (exactly the correctness stage's 3 sets and the determinism rerun), then returns at once: only the timed launches skip the work.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_stops_after_n_calls(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    unsigned launch = adv_launch_index();
    if (launch < 4 && inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
    adv_cta_done();
}
