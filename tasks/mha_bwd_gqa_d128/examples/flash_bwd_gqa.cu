// flash_bwd_gqa.cu — mha_bwd_gqa_d128: dQ [B, H, S, D], dK, dV [B, H_kv, S, D] of grouped-query
// attention O = softmax(Q·Kᵀ/√D)·V (query head h reads KV head h / (H / H_kv)) from Q, O, dO
// [B, H, S, D], K, V [B, H_kv, S, D] (bf16, BHSD) and the forward's LSE [B, H, S] (fp32);
// dK and dV of a KV head are sums over the H / H_kv query heads of its group. Non-causal. Four
// launches (flash_bwd_gqa.json):
//   1. mha_bwd_preprocess_gqa  Δ_i = Σ_d dO_id·O_id into workspace `delta`; zeroes `dq_accum`,
//                              `dk_accum` and `dv_accum` (fp32)
//   2. mha_bwd_main_gqa        per (64-key block, query head h, b): dK, dV of that head's share
//                              in registers over all query blocks (mma.sync m16n8k16 bf16,
//                              ldmatrix(.trans), cp.async), reading K and V of KV head
//                              h / group; dQ partial sums added to `dq_accum` per query block,
//                              dK·scale and dV added to `dk_accum`, `dv_accum` at the end
//                              (red.global.add.v2.f32)
//   3. mha_bwd_convert_dq      dQ = bf16(dq_accum / √D)
//   4. mha_bwd_convert_dkv     dK = bf16(dk_accum), dV = bf16(dv_accum)
// The bodies are those of tasks/mha_bwd_d128/examples/flash_bwd.cu (tasks/common/
// flash_attn_bwd.cuh, which describes the math, the tiling and the masks). Ragged S;
// 8 ≤ D ≤ 128, D % 8 == 0; H % H_kv == 0 (else the kernels return without writing).
#include "../../common/flash_attn_bwd.cuh"

extern "C" __global__ void __launch_bounds__(256)
mha_bwd_preprocess_gqa(const __nv_bfloat16 *__restrict__ O, const __nv_bfloat16 *__restrict__ dO,
                       float *__restrict__ delta, float *__restrict__ dq_accum,
                       float *__restrict__ dk_accum, float *__restrict__ dv_accum,
                       unsigned int B, unsigned int H, unsigned int H_kv, unsigned int S,
                       unsigned int D)
{
    fa::flash_bwd_preprocess_gqa(O, dO, delta, dq_accum, dk_accum, dv_accum, B, H, H_kv, S, D);
}

extern "C" __global__ void __launch_bounds__(128, 2)
mha_bwd_main_gqa(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
                 const __nv_bfloat16 *__restrict__ V, const __nv_bfloat16 *__restrict__ dO,
                 const float *__restrict__ LSE, const float *__restrict__ delta,
                 float *__restrict__ dq_accum, float *__restrict__ dk_accum,
                 float *__restrict__ dv_accum, unsigned int B, unsigned int H, unsigned int H_kv,
                 unsigned int S, unsigned int D)
{
    fa::flash_bwd_main_gqa(Q, K, V, dO, LSE, delta, dq_accum, dk_accum, dv_accum, B, H, H_kv, S, D);
}

extern "C" __global__ void __launch_bounds__(256)
mha_bwd_convert_dq(const float *__restrict__ dq_accum, __nv_bfloat16 *__restrict__ dQ,
                   unsigned int B, unsigned int H, unsigned int S, unsigned int D)
{
    fa::flash_bwd_convert_dq(dq_accum, dQ, B, H, S, D);
}

extern "C" __global__ void __launch_bounds__(256)
mha_bwd_convert_dkv(const float *__restrict__ dk_accum, const float *__restrict__ dv_accum,
                    __nv_bfloat16 *__restrict__ dK, __nv_bfloat16 *__restrict__ dV,
                    unsigned int B, unsigned int H_kv, unsigned int S, unsigned int D)
{
    fa::flash_bwd_convert_dkv(dk_accum, dv_accum, dK, dV, B, H_kv, S, D);
}
