// flags_include.cu — mha_fwd_d128 (O = softmax(Q·Kᵀ/√D)·V and LSE, bf16 BHSD, fp32 LSE) built
// with compile options: its configuration header include/attn_config.cuh needs
//   "std": "c++20"                    a concept constrains the head-dimension dispatcher;
//   "--expt-relaxed-constexpr"         device code calls host-only constexpr functions;
//   "-DATTN_BLOCK_M=64"                the CTA's query rows, a configuration macro;
//   "include_dirs": ["include"]        the header is found only through -I include;
//   "ptxas_flags": ["-maxrregcount=200"] the register cap (ptxas 13.0: 184 registers, no spills,
//                                      2 CTAs per SM; 168 would spill 8 bytes).
// Compiled without them, nvcc stops with a located error (attn_config.cuh's #error lines, the
// missing header, or "calling a constexpr __host__ function ... from a __device__ function").
//
// The attention itself is the repository's flash-attention-2 style forward body
// (tasks/common/flash_attn_fwd.cuh: mma.sync m16n8k16 bf16, ldmatrix, cp.async, online softmax;
// correct on every workload of the task on the H200 as flash_fwd.cu), instantiated here through
// the concept-checked tilings of attn_config.cuh: D = 64 runs the 64-wide tiling, every other
// supported D (8 <= D <= 128, D % 8 == 0) the 128-wide one with the columns >= D zero-filled.
//
// PTX signature: .entry mha_fwd_flags_include(.param .u64 Q, K, V, O, LSE, .param .u32 B, H, S, D)
// Launch (flags_include.json): grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared
// memory 52224 bytes (HeadTile<128>::smem_bytes). Every workload of the task.
#include "../../common/flash_attn_fwd.cuh"

#include "attn_config.cuh"

namespace {

template <attn_cfg::AttnTiling Tile>
__device__ __forceinline__ void run_tiling(const __nv_bfloat16 *Q, const __nv_bfloat16 *K,
                                           const __nv_bfloat16 *V, __nv_bfloat16 *O, float *LSE,
                                           uint32_t H, uint32_t S, uint32_t D, uint32_t smem)
{
    fa::flash_fwd_body<Tile::head_dim, false>(Q, K, V, O, LSE, H, S, D, smem);
}

static_assert(attn_cfg::HeadTile<128>::smem_bytes == FA_FWD_SMEM_BYTES,
              "the manifest's dynamic_shared_bytes (52224) is the 128-wide tiling's need");
static_assert(attn_cfg::block_m == fa::kBlockM, "ATTN_BLOCK_M must match the body's tile");

} // namespace

// No __launch_bounds__: with one, ptxas overrides -maxrregcount with the entry's own limit
// ("Overriding global maxrregcount ... with entry-specific value"), so the cap would not apply.
extern "C" __global__ void
mha_fwd_flags_include(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                      const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
                      float *__restrict__ LSE, unsigned int B, unsigned int H, unsigned int S,
                      unsigned int D)
{
    extern __shared__ __align__(128) unsigned char attn_smem[];
    const uint32_t smem = (uint32_t)__cvta_generic_to_shared(attn_smem);
    // A host-only constexpr function evaluated at run time on the device: needs
    // --expt-relaxed-constexpr.
    if (!attn_cfg::head_dim_supported(D) || blockIdx.z >= B || blockIdx.y >= H)
        return;
    if (D == 64u)
        run_tiling<attn_cfg::HeadTile<64>>(Q, K, V, O, LSE, H, S, D, smem);
    else
        run_tiling<attn_cfg::HeadTile<128>>(Q, K, V, O, LSE, H, S, D, smem);
}
