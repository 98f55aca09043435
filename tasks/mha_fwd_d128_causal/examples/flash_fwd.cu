// flash_fwd.cu — mha_fwd_d128_causal: O = softmax(mask(Q·Kᵀ/√D))·V and LSE per row, where query i
// attends keys j ≤ i; BHSD bf16 in, O bf16 and LSE fp32 (natural log) out, flash-attention-2
// style on tensor cores (mma.sync m16n8k16 bf16, ldmatrix, cp.async, online softmax, fp32
// accumulation). The kernel body is shared with the non-causal task: see
// tasks/common/flash_attn_fwd.cuh for the math, the tiling and the bounds handling (ragged S;
// 8 ≤ D ≤ 128, D % 8 == 0). Key blocks above the diagonal are skipped and query blocks are
// scheduled longest first.
//
// Launch (flash_fwd.json): grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared memory
// 52224 bytes (FA_FWD_SMEM_BYTES).
#include "../../common/flash_attn_fwd.cuh"

extern "C" __global__ void __launch_bounds__(128, 2)
mha_fwd_flash_causal(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                     const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
                     float *__restrict__ LSE, unsigned int B, unsigned int H, unsigned int S,
                     unsigned int D)
{
    fa::flash_fwd<true>(Q, K, V, O, LSE, B, H, S, D);
}
