// attn_config.cuh — the compile-time configuration of flags_include.cu (mha_fwd_d128), kept in
// the examples' include folder so that the kernel compiles only with the manifest's
// "compile" options: -std=c++20 (a concept), --expt-relaxed-constexpr (a constexpr host
// function called from device code), -DATTN_BLOCK_M=128 (a configuration macro) and
// "include_dirs": ["include"] (this file is not next to the .cu, so only -I finds it).
#ifndef ATTN_CONFIG_CUH
#define ATTN_CONFIG_CUH

#include <stdint.h>

#if __cplusplus < 202002L
#error "attn_config.cuh needs C++20 (the manifest's compile.std = c++20)"
#endif

#ifndef ATTN_BLOCK_M
#error "define ATTN_BLOCK_M (the manifest's compile.flags pass -DATTN_BLOCK_M=128)"
#endif

namespace attn_cfg {

// Query rows per CTA: two consumer warpgroups of 64 rows each (one wgmma M of 64 apiece).
constexpr uint32_t block_m = ATTN_BLOCK_M;
static_assert(block_m == 128, "the kernel tiles 128 query rows per CTA (2 warpgroups x 64)");

// Keys per block (the N of S = Q·Kᵀ, the K of O += P·V) and the K/V ring depth.
constexpr uint32_t block_n = 128;
constexpr uint32_t stages = 2;

// The dynamic shared memory the manifest requests (flags_include.json): the 128-wide tiling's
// need, HeadTile<128>::smem_bytes below.
constexpr uint32_t manifest_smem_bytes = 164928;

// Head dimensions the kernel accepts: whole 128-byte column blocks (64 bf16) of 1 or 2 (the TMA
// box is 64 columns wide, the 128-byte swizzle span). Deliberately a plain constexpr function,
// i.e. host-only: device code may call it at run time only with --expt-relaxed-constexpr.
constexpr bool head_dim_supported(uint32_t d) { return d == 64u || d == 128u; }

// Bytes of a [rows, hd] bf16 tile in shared memory (no padding: the 128-byte swizzle that TMA
// applies makes the wgmma reads conflict-free). Also host-only constexpr.
constexpr uint32_t tile_bytes(uint32_t rows, uint32_t hd) { return rows * hd * 2u; }

// A head-dimension tiling: the width one instantiation of the kernel body is compiled for, and
// its shared-memory plan (offsets from a 1024-byte aligned base).
template <uint32_t HD> struct HeadTile {
    static constexpr uint32_t head_dim = HD;
    static constexpr uint32_t column_blocks = HD / 64u; // 128-byte (64-column) swizzle blocks
    static constexpr uint32_t q_bytes = tile_bytes(block_m, HD);
    static constexpr uint32_t kv_bytes = tile_bytes(block_n, HD); // one K or one V tile
    static constexpr uint32_t stage_bytes = 2u * kv_bytes;        // K then V
    static constexpr uint32_t barrier_offset = q_bytes + stages * stage_bytes;
    static constexpr uint32_t barrier_bytes = 64u; // 7 mbarriers of 8 bytes, rounded up
    // + 1024: the kernel aligns the dynamic shared window's base up to 1024 bytes.
    static constexpr uint32_t smem_bytes = barrier_offset + barrier_bytes + 1024u;
};

// The C++20 concept the dispatcher in flags_include.cu is constrained by: a tiling whose width
// is a supported head dimension made of whole 64-column blocks, whose plan fits the shared
// memory the manifest requests.
template <class T>
concept AttnTiling = requires {
    T::head_dim;
    T::smem_bytes;
} && head_dim_supported(T::head_dim) && T::head_dim % 64u == 0u &&
                     T::smem_bytes <= manifest_smem_bytes;

} // namespace attn_cfg

#endif
