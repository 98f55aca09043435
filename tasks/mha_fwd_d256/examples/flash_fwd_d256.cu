// flash_fwd_d256.cu — mha_fwd_d256: O = softmax(Q·Kᵀ/√D)·V and LSE = ln Σ_j exp(q_i·k_j/√D) per
// row, head dim 256, BHSD bf16 in, O bf16 and LSE fp32 out, flash-attention-2 style on tensor
// cores (mma.sync m16n8k16 bf16, ldmatrix, cp.async, online softmax, fp32 accumulation).
// Non-causal. The kernel body is the one of tasks/mha_fwd_d128/examples/flash_fwd.cu
// (tasks/common/flash_attn_fwd.cuh) instantiated 256 columns wide: per warp 16 query rows × 256
// of O in registers (128 fp32 per thread) next to the 16 × 64 score block (32 fp32), which fits
// ptxas's 255 registers without spilling. Ragged S; 8 ≤ D ≤ 256, D % 8 == 0 (every D runs the
// 256-wide body, columns ≥ D zero-filled).
//
// Launch (flash_fwd_d256.json): grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared
// memory 101376 bytes (FA_FWD_SMEM_BYTES_D256: Q, K, V tiles of 64 × 256 bf16, rows padded to
// 528 bytes); two CTAs per SM (2 × 99 KiB of shared memory, 2 × 128 × 255 registers).
#include "../../common/flash_attn_fwd.cuh"

extern "C" __global__ void __launch_bounds__(128, 2)
mha_fwd_flash_d256(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                   const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
                   float *__restrict__ LSE, unsigned int B, unsigned int H, unsigned int S,
                   unsigned int D)
{
    const fa::FwdArgs a = {Q, K, V, O, LSE, B, H, H, 1u, S, D};
    fa::flash_fwd_run<fa::Layout::BHSD, false, true, 256>(a);
}
