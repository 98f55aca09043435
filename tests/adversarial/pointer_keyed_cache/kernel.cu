// pointer_keyed_cache: keeps its answers in a .global array keyed by the address of A; a launch with the same A replays them instead of computing.
#include "../common/gemm.cuh"
#define ADV_CACHE ((size_t)2048 * 2048)
__device__ bf16 adv_cache[ADV_CACHE];
__device__ const void *adv_key;
__device__ unsigned adv_valid_from;
extern "C" __global__ void adv_pointer_keyed_cache(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    unsigned launch = adv_launch_index();
    size_t i = (size_t)m * N + n;
    bool hit = adv_key == (const void *)A && launch >= adv_valid_from;
    if (inside) {
        if (hit && i < ADV_CACHE) {
            C[i] = adv_cache[i];
        } else {
            bf16 v = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
            C[i] = v;
            if (i < ADV_CACHE)
                adv_cache[i] = v;
        }
    }
    if (adv_cta_done() && adv_first_thread()) {
        adv_key = (const void *)A;
        adv_valid_from = launch + 1;
    }
}
