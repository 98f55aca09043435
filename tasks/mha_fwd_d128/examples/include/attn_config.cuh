// attn_config.cuh — the compile-time configuration of flags_include.cu (mha_fwd_d128), kept in
// the examples' include folder so that the kernel compiles only with the manifest's
// "compile" options: -std=c++20 (a concept), --expt-relaxed-constexpr (a constexpr host
// function called from device code), -DATTN_BLOCK_M=64 (a configuration macro) and
// "include_dirs": ["include"] (this file is not next to the .cu, so only -I finds it).
#ifndef ATTN_CONFIG_CUH
#define ATTN_CONFIG_CUH

#include <stdint.h>

#if __cplusplus < 202002L
#error "attn_config.cuh needs C++20 (the manifest's compile.std = c++20)"
#endif

#ifndef ATTN_BLOCK_M
#error "define ATTN_BLOCK_M (the manifest's compile.flags pass -DATTN_BLOCK_M=64)"
#endif

namespace attn_cfg {

// Query rows per CTA; the kernel body (tasks/common/flash_attn_fwd.cuh) is written for 64.
constexpr uint32_t block_m = ATTN_BLOCK_M;
static_assert(block_m == 64, "the flash forward body tiles 64 query rows per CTA");

// Head dimensions the kernel accepts (D % 8 == 0, 8 <= D <= 128). Deliberately a plain
// constexpr function, i.e. host-only: device code may call it at run time only with
// --expt-relaxed-constexpr.
constexpr bool head_dim_supported(uint32_t d) { return d >= 8u && d <= 128u && d % 8u == 0u; }

// The shared-memory row pitch of a [64, hd] bf16 tile: hd · 2 bytes + 16 bytes of padding
// (conflict-free ldmatrix rows). Also host-only constexpr.
constexpr uint32_t tile_pitch_bytes(uint32_t hd) { return hd * 2u + 16u; }

// A head-dimension tiling: the width one instantiation of the body is compiled for.
template <uint32_t HD> struct HeadTile {
    static constexpr uint32_t head_dim = HD;
    static constexpr uint32_t smem_bytes = 3u * block_m * tile_pitch_bytes(HD); // Q, K, V tiles
};

// The C++20 concept the dispatcher in flags_include.cu is constrained by: a tiling whose width
// is a supported head dimension and a multiple of 16 (one mma k16 step), whose tiles fit the
// 52224 bytes the manifest requests.
template <class T>
concept AttnTiling = requires {
    T::head_dim;
    T::smem_bytes;
} && head_dim_supported(T::head_dim) && T::head_dim % 16u == 0u && T::smem_bytes <= 52224u;

} // namespace attn_cfg

#endif
