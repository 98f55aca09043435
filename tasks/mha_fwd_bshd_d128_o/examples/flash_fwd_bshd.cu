// flash_fwd_bshd.cu — mha_fwd_bshd_d128_o: O = softmax(Q·Kᵀ/√D)·V for Q, K, V, O in BSHD layout
// ([B, S, H, D] row-major: D contiguous, then heads, then sequence), bf16, no LSE output;
// flash-attention-2 style on tensor cores (mma.sync m16n8k16 bf16, ldmatrix, cp.async, online
// softmax, fp32 accumulation). Non-causal.
// The kernel body is the one of tasks/mha_fwd_d128/examples/flash_fwd.cu
// (tasks/common/flash_attn_fwd.cuh); only the slice addressing differs: the (b, h) slice starts
// at element (b·S·H + h)·D and its rows are H·D elements apart, and the LSE store is compiled out.
// Ragged S; 8 ≤ D ≤ 128, D % 8 == 0.
//
// Launch (flash_fwd_bshd.json): grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared
// memory 52224 bytes (FA_FWD_SMEM_BYTES).
#include "../../common/flash_attn_fwd.cuh"

extern "C" __global__ void __launch_bounds__(128, 2)
mha_fwd_flash_bshd(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                   const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
                   unsigned int B, unsigned int H, unsigned int S, unsigned int D)
{
    const fa::FwdArgs a = {Q, K, V, O, nullptr, B, H, H, 1u, S, D};
    fa::flash_fwd_run<fa::Layout::BSHD, false, false, 128>(a);
}
