// A do-nothing kernel with the gemm_bf16_nt signature that compiles only with the manifest's
// compile options: include folder "include", -DBM=..., --expt-relaxed-constexpr, C++17.
#include "tile.cuh"

extern "C" __global__ void gemm_noop(const void *A, const void *B, void *C, unsigned M,
                                     unsigned N, unsigned K)
{
    if constexpr (BM > 0) {
        if (threadIdx.x == 0 && M == 0)
            static_cast<int *>(C)[0] = tile_rows(2);
    }
}
