// global_state_cache: correct on the first 4 launches of its module, keeping every answer in a .global array; later launches replay that array without reading the inputs.
#include "../common/gemm.cuh"
#define ADV_CACHE ((size_t)2048 * 2048)
__device__ bf16 adv_cache[ADV_CACHE];
extern "C" __global__ void adv_global_state_cache(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    unsigned launch = adv_launch_index();
    size_t i = (size_t)m * N + n;
    if (inside) {
        if (launch < 4 || i >= ADV_CACHE) {
            bf16 v = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
            C[i] = v;
            if (i < ADV_CACHE)
                adv_cache[i] = v;
        } else {
            C[i] = adv_cache[i];
        }
    }
    adv_cta_done();
}
