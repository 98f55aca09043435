// gemm_config.cuh — the compile-time configuration of flags_include.cu (gemm_bf16_nt), kept in
// the examples' include folder so that the kernel compiles only with the manifest's "compile"
// options: -std=c++20 (a concept), --expt-relaxed-constexpr (a constexpr host function called
// from device code), -DGEMM_GROUP_M=8 (a configuration macro) and "include_dirs": ["include"]
// (this file is not next to the .cu, so only -I finds it).
#ifndef GEMM_CONFIG_CUH
#define GEMM_CONFIG_CUH

#include <stdint.h>

#if __cplusplus < 202002L
#error "gemm_config.cuh needs C++20 (the manifest's compile.std = c++20)"
#endif

#ifndef GEMM_GROUP_M
#error "define GEMM_GROUP_M (the manifest's compile.flags pass -DGEMM_GROUP_M=8)"
#endif

namespace gemm_cfg {

// Rows of tiles one group walks before moving to the next column block (the L2-friendly
// grouped order of tasks/common/gemm_wgmma_tile.cuh uses 8).
constexpr uint32_t group_m = GEMM_GROUP_M;
static_assert(group_m >= 1 && group_m <= 64, "a group of 1 to 64 tile rows");

// Deliberately a plain constexpr function, i.e. host-only: device code may call it at run time
// only with --expt-relaxed-constexpr.
constexpr uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1u) / b; }

// A CTA tiling the dispatcher accepts.
template <uint32_t BM, uint32_t BN> struct Tile {
    static constexpr uint32_t bm = BM;
    static constexpr uint32_t bn = BN;
};

// The C++20 concept the kernel is constrained by: the 128 x 256 tile of the shared body.
template <typename T>
concept SharedBodyTile = T::bm == 128u && T::bn == 256u;

} // namespace gemm_cfg

#endif
