// content_keyed_cache: keeps its answers keyed by a hash of the first elements of A and B and replays them when the key matches. Correct whenever it replays identical inputs; since every timed launch gets new inputs, it can never replay while timed, so its time is that of the real work.
#include "../common/gemm.cuh"
#define ADV_CACHE ((size_t)2048 * 2048)
__device__ bf16 adv_cache[ADV_CACHE];
__device__ unsigned long long adv_key;
__device__ unsigned adv_valid_from;
extern "C" __global__ void adv_content_keyed_cache(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    ADV_ELEMENT;
    unsigned launch = adv_launch_index();
    unsigned long long key = 1469598103934665603ull ^ ((unsigned long long)M << 40) ^ ((unsigned long long)N << 20) ^ K;
    for (int j = 0; j < 8; ++j) {
        key = (key ^ __bfloat16_as_ushort(A[j])) * 1099511628211ull;
        key = (key ^ __bfloat16_as_ushort(B[j])) * 1099511628211ull;
    }
    size_t i = (size_t)m * N + n;
    bool hit = key == adv_key && launch >= adv_valid_from && (size_t)M * N <= ADV_CACHE;
    if (inside) {
        if (hit) {
            C[i] = adv_cache[i];
        } else {
            bf16 v = __float2bfloat16_rn(adv_dot(A, B, m, n, K));
            C[i] = v;
            if (i < ADV_CACHE)
                adv_cache[i] = v;
        }
    }
    if (adv_cta_done() && adv_first_thread()) {
        adv_key = key;
        adv_valid_from = launch + 1;
    }
}
