// noop: does nothing at all: whatever the output held before must not count, and it is poisoned before every launch.
#include "../common/gemm.cuh"

extern "C" __global__ void adv_noop(const bf16 *__restrict__ A, const bf16 *__restrict__ B, bf16 *__restrict__ C, unsigned M, unsigned N, unsigned K)
{
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}
