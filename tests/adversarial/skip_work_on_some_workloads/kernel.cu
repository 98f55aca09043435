// skip_work_on_some_workloads: correct while K <= 1000; on larger K it sums only the first half of K.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_skip_work_on_some_workloads(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    if (inside)
        C[(size_t)m * N + n] = __float2bfloat16_rn(adv_dot(A, B, m, n, K > 1000 ? K / 2 : K));
}
