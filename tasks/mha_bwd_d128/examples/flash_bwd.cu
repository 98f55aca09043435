// flash_bwd.cu — mha_bwd_d128: dQ, dK, dV of O = softmax(Q·Kᵀ/√D)·V from Q, K, V, O, dO (bf16,
// BHSD) and the forward's LSE (fp32), non-causal, in three launches (flash_bwd.json):
//   1. mha_bwd_preprocess  Δ_i = Σ_d dO_id·O_id into workspace `delta`; zeroes `dq_accum`
//   2. mha_bwd_main        per 64-key block: dK, dV in registers over all query blocks
//                          (mma.sync m16n8k16 bf16, ldmatrix(.trans), cp.async); dQ partial sums
//                          added to `dq_accum` (fp32) with atomics
//   3. mha_bwd_convert_dq  dQ = bf16(dq_accum / √D)
// The bodies are shared with the causal task: see tasks/common/flash_attn_bwd.cuh for the math,
// the tiling, the masks and the launch geometry (ragged S; 8 ≤ D ≤ 128, D % 8 == 0).
#include "../../common/flash_attn_bwd.cuh"

extern "C" __global__ void __launch_bounds__(256)
mha_bwd_preprocess(const __nv_bfloat16 *__restrict__ O, const __nv_bfloat16 *__restrict__ dO,
                   float *__restrict__ delta, float *__restrict__ dq_accum, unsigned int B,
                   unsigned int H, unsigned int S, unsigned int D)
{
    fa::flash_bwd_preprocess(O, dO, delta, dq_accum, B, H, S, D);
}

extern "C" __global__ void __launch_bounds__(128, 2)
mha_bwd_main(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
             const __nv_bfloat16 *__restrict__ V, const __nv_bfloat16 *__restrict__ dO,
             const float *__restrict__ LSE, const float *__restrict__ delta,
             float *__restrict__ dq_accum, __nv_bfloat16 *__restrict__ dK,
             __nv_bfloat16 *__restrict__ dV, unsigned int B, unsigned int H, unsigned int S,
             unsigned int D)
{
    fa::flash_bwd_main<false, false>(Q, K, V, dO, LSE, delta, dq_accum, dK, dV, B, H, S, D);
}

extern "C" __global__ void __launch_bounds__(256)
mha_bwd_convert_dq(const float *__restrict__ dq_accum, __nv_bfloat16 *__restrict__ dQ,
                   unsigned int B, unsigned int H, unsigned int S, unsigned int D)
{
    fa::flash_bwd_convert_dq(dq_accum, dQ, B, H, S, D);
}
