/* The attention of one workload of an mha_fwd or mha_bwd task, in the form the reference kernels
 * and the cuDNN baseline take (docs/attention.md, docs/formats.md "Task"):
 *
 *   S = scale · Q·Kᵀ,  P = softmax(S) over the visible keys,  O = P·V
 *   LSE_i = ln Σ_j exp(S_ij)                        (natural log, scaled scores)
 *
 * per batch b and query head h, with K and V of KV head h / (H / H_kv) (GQA; MQA when H_kv = 1;
 * the backward's dK and dV of a KV head are summed over its H / H_kv query heads, as cuDNN's
 * frontend reduces them). Q, O, dO, dQ are [S_q, D] (O, dO [S_q, D_v]) per head, K, dK [S_kv, D],
 * V, dV [S_kv, D_v]. Causal: query i sees keys j <= i + (S_kv − S_q), the diagonal aligned to
 * the bottom right of the S_q × S_kv score matrix (FlashAttention 2.1+, cuDNN's
 * DiagonalAlignment_t::BOTTOM_RIGHT); with S_q = S_kv that is j <= i. The contract requires
 * S_q <= S_kv for causal tasks, so that every query sees at least one key.
 *
 * Layouts: every tensor is dense in the order of its task dims, [B, H, S, D] ("BHSD") or
 * [B, S, H, D] ("BSHD"); element (b, h, s, d) is at b·x.b + h·x.h + s·x.s + d·x.d elements
 * from the tensor's start (pg_mha_strides; x.d = 1). LSE is always [B, H, S_q] (dense).
 *
 * LSE convention of the task (parameters lse_base, lse_scores): the stored value is
 * f · LSE with f = (base 2 ? log2 e : 1) / (unscaled ? scale : 1) (pg_mha_lse_factor): base 2
 * is log2 Σ_j 2^(log2e · S_ij) = log2e · LSE; "unscaled" expresses it in units of the raw
 * scores q·k (LSE / scale), so that P_ij = exp(scale · (q_i·k_j − LSE_i)) with the stored
 * value. Both are linear, so one factor converts either way. */
#ifndef PG_MODEL_MHA_PROBLEM_H
#define PG_MODEL_MHA_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "task.h"

/* Element strides of (batch, head, position, dim) of one [B,H,S,D] or [B,S,H,D] tensor; all 0
 * for a tensor the problem lacks. */
typedef struct {
    int64_t b, h, s, d;
} pg_mha_strides;

typedef struct {
    int64_t B, H, H_kv, S_q, S_kv, D, D_v; /* all >= 1; H % H_kv == 0 */
    bool causal;                            /* bottom-right aligned (above) */
    float scale;                            /* softmax scale: the task's, or 1/√D */
    bool has_lse;                           /* the task has an LSE tensor */
    bool lse_log2, lse_unscaled;            /* the task's LSE convention (above) */
    pg_mha_strides q, k, v, o, d_o, dq, dk, dv;
} pg_mha_problem;

/* The softmax scales a task may give (parameters.softmax_scale): from 1e-9 to 1e9, so that with
 * N(0,1) inputs the scores scale·q·k, their exponentials and an LSE of unscaled scores (LSE /
 * scale, at most ~1e10 · (ln S_kv + max score)) stay finite and normal in fp32 (FLT_MIN ~1.2e-38,
 * FLT_MAX ~3.4e38, IEEE 754 binary32). */
#define PG_MHA_MIN_SCALE 1e-9
#define PG_MHA_MAX_SCALE 1e9

/* The reference's limits per workload (reference_mha.c): S_q and S_kv at most 2^23, D and D_v at
 * most 65536, B·H·max(S_q, S_kv) below 2^31 (its grid and index ranges), and one head's fp32
 * score matrix, S_q·S_kv·4 bytes, at most 1 GiB (its chunk budget: PG_MHA_MAX_SCORES). */
#define PG_MHA_MAX_SEQ ((int64_t)1 << 23)
#define PG_MHA_MAX_HEAD_DIM 65536
#define PG_MHA_MAX_SCORES ((int64_t)1 << 28)

/* (float)(1 / sqrt(D)), computed in double and rounded once; 0 for D <= 0. The default softmax
 * scale (Vaswani et al. 2017, "Attention Is All You Need", eq. 1). */
float pg_mha_default_scale(int64_t D);

/* Strides of a dense tensor of dims [B, H, S, D] (bshd false) or [B, S, H, D] (bshd true). */
pg_mha_strides pg_mha_dense_strides(int64_t H, int64_t S, int64_t D, bool bshd);

/* The historic problem: B, H, S, D with H_kv = H, S_q = S_kv = S, D_v = D, every tensor BHSD,
 * scale 1/√D, LSE present in the natural, scaled convention. For tests and device programs. */
void pg_mha_problem_bhsd(int64_t B, int64_t H, int64_t S, int64_t D, bool causal,
                         pg_mha_problem *out);

/* The problem of workload w of a loaded attention task t (the contract of task_ops.h holds):
 * sizes from the symbols (S or S_q/S_kv, H_kv and D_v defaulting to H and D), strides from each
 * tensor's dims order, t's causal flag, softmax scale and LSE convention. *out is zeroed first.
 * Errors: PG_ERR_INPUT (file = t->file, field "operation") when t is not an attention task. */
pg_status pg_mha_problem_of(const pg_task *t, const pg_workload *w, pg_mha_problem *out,
                            pg_diag *d);

/* f of the header comment: stored LSE = f · natural scaled LSE; 1 for the default convention. */
double pg_mha_lse_factor(const pg_mha_problem *p);

/* Keys query i (0 <= i < S_q) sees: S_kv, or causal min(S_kv, i + 1 + S_kv − S_q) (>= 1 when
 * S_q <= S_kv). */
int64_t pg_mha_visible_keys(const pg_mha_problem *p, int64_t i);

/* Bytes of one of the problem's tensors: B · heads · positions · dim elements of `elem_size`
 * bytes (every tensor is dense). */
uint64_t pg_mha_tensor_bytes(const pg_mha_problem *p, int64_t heads, int64_t positions,
                             int64_t dim, size_t elem_size);

/* ---- The contract of attention tasks (mha_contract.c, called from task_ops.c) ----
 * Symbols B, H, D, and S or both S_q and S_kv (not S with them), optionally H_kv (KV heads)
 * and D_v (head dim of V and O). Each tensor [B,H,S,D] or [B,S,H,D] with its own head, sequence
 * and head-dim symbols:
 *   mha_fwd: Q [B,H,S_q,D], K [B,H_kv,S_kv,D], V [B,H_kv,S_kv,D_v] (inputs), O [B,H,S_q,D_v]
 *            (output), optionally LSE [B,H,S_q] (output, fp32);
 *   mha_bwd: those and dO [like O] and LSE [B,H,S_q] (fp32) as inputs, dQ [like Q], dK [like K],
 *            dV [like V] as outputs;
 * every tensor but LSE of one dtype, bf16 or fp16; nothing else, and no other free symbol (a
 * misspelt "h_kv" would otherwise leave H_kv = H silently). A task without the LSE output may
 * not declare an LSE convention. Errors: PG_ERR_INPUT with file = t->file and field
 * "symbols", "tensors", "tensors[i]" or "tensors[i].dims"; the message states the contract and
 * what differs. */
pg_status pg_mha_check_contract(const pg_task *t, pg_diag *d);

/* The rules of workload index wi (field "workloads[wi].symbols.<X>"): D and D_v multiples of 8
 * (rows of 16 bytes: TMA global strides and cuDNN's attention need them), H a multiple of H_kv,
 * S_q <= S_kv for a causal task (bottom-right alignment leaves no key for the first
 * S_q − S_kv queries otherwise; cuDNN refuses it too), and the reference's limits above.
 * Errors: PG_ERR_INPUT naming the workload and the values. */
pg_status pg_mha_check_workload(const pg_task *t, int wi, pg_diag *d);

#endif
