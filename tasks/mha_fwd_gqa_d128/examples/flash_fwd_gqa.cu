// flash_fwd_gqa.cu — mha_fwd_gqa_d128: grouped-query attention forward, BHSD bf16: Q, O
// [B, H, S, D], K, V [B, H_kv, S, D]; query head h reads KV head h / (H / H_kv) (H_kv = 1: MQA).
// O bf16 and LSE [B, H, S] fp32 (natural log) out; flash-attention-2 style on tensor cores
// (mma.sync m16n8k16 bf16, ldmatrix, cp.async, online softmax, fp32 accumulation). Non-causal.
// The kernel body is the one of tasks/mha_fwd_d128/examples/flash_fwd.cu
// (tasks/common/flash_attn_fwd.cuh): one CTA per (64 query rows, query head, batch); only the K
// and V slices differ (head h / group of H_kv). The CTAs of one group read the same K and V,
// which L2 serves after the first of them. Ragged S; 8 ≤ D ≤ 128, D % 8 == 0; H % H_kv == 0
// (else the kernel returns without writing).
//
// Launch (flash_fwd_gqa.json): grid (ceil_div(S, 64), H, B), block (128, 1, 1), dynamic shared
// memory 52224 bytes (FA_FWD_SMEM_BYTES).
#include "../../common/flash_attn_fwd.cuh"

extern "C" __global__ void __launch_bounds__(128, 2)
mha_fwd_flash_gqa(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                  const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
                  float *__restrict__ LSE, unsigned int B, unsigned int H, unsigned int H_kv,
                  unsigned int S, unsigned int D)
{
    if (H_kv == 0u || H % H_kv != 0u) return;
    const fa::FwdArgs a = {Q, K, V, O, LSE, B, H, H_kv, H / H_kv, S, D};
    fa::flash_fwd_run<fa::Layout::BHSD, false, true, 128>(a);
}
