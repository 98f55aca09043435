/* Operation contracts of tasks (docs/formats.md "Task", docs/attention.md): for each operation,
 * the symbols and tensors a task must declare, the vendor library it is timed against, and the
 * rules every workload of it must meet. */
#ifndef PG_MODEL_TASK_OPS_H
#define PG_MODEL_TASK_OPS_H

#include <stdbool.h>

#include "../base/diag.h"
#include "task.h"

/* Parse an operation name ("gemm", "gemm_nt", "mha_fwd", "mha_bwd"); false for any other.
 * "gemm_nt" is the older name of "gemm": both give PG_OP_GEMM (pg_task.operation keeps the name
 * as written). */
bool pg_operation_parse(const char *name, pg_operation *out);
/* The operation's name ("gemm" for PG_OP_GEMM). Static storage. */
const char *pg_operation_name(pg_operation op);
/* "gemm, gemm_nt (the same operation), mha_fwd, mha_bwd", for messages. */
const char *pg_operation_accepted(void);
/* The vendor library the operation is timed against: "cublaslt" (gemm) or "cudnn"
 * (attention). Static storage. */
const char *pg_operation_baseline(pg_operation op);
/* True for mha_fwd and mha_bwd. */
bool pg_operation_is_attention(pg_operation op);
/* The element types a gemm task accepts for A and B (both fp32, both bf16, both fp16, or fp8:
 * e4m3 or e5m2 each, not both e5m2), for messages; C and the output are fp32, bf16 or fp16.
 * Static storage. */
const char *pg_gemm_dtypes_accepted(void);

/* Check t's symbols, tensors and (gemm) parameters against the contract of t->op:
 *  gemm (and gemm_nt): symbols M, N, K and optionally batch; tensors A [M,K] or [K,M]
 *           (input), B [K,N] or [N,K] (input, A's dtype), and either the output C or D
 *           [M,N] or [N,M] (t->beta == 0) or C [M,N] or [N,M] (input) and the output D
 *           [M,N] or [N,M] of C's dtype (t->beta != 0: then C is required, and an input C
 *           without it is an error); with the symbol batch every tensor has batch as its
 *           outermost dim ([batch, ...]), and batch nowhere else. Dims are compared in
 *           storage order (pg_tensor_spec; col_major was swapped when loading). A and B fp32,
 *           bf16 or fp16; C and the output fp32, bf16 or fp16. Fields: "symbols", "tensors",
 *           "tensors[i].name", "tensors[i].role", "tensors[i].dims", "tensors[i].dims[j]"
 *           (batch not outermost; j as written), "tensors[i].dtype", "parameters.beta" (beta
 *           != 0 without a C input). fp8 A and B (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3, the
 *           pairs cuBLASLt multiplies) may differ in dtype and must both have K as their
 *           contiguous dim (A [M,K], B [N,K]: the only fp8 layout of wgmma and cuBLASLt);
 *           optional scalar inputs scale_A and scale_B (fp32, dims [], both or neither; for
 *           fp8 A and B only) scale them (gemm_problem.h PG_GEMM_SCALE_TENSOR).
 *  mha_fwd, mha_bwd: model/mha_problem.h pg_mha_check_contract (BHSD or BSHD tensors, GQA
 *           heads H_kv, S_q/S_kv, D_v, optional LSE of the forward).
 * Tensors may appear in any order. Errors: PG_ERR_INPUT with file = t->file and the field
 * above ("symbols", "tensors" or "tensors[i]" for attention); the message states the whole
 * contract and what differs. */
pg_status pg_task_check_operation(const pg_task *t, pg_diag *d);

/* The operation's rules for workload index wi (field "workloads[wi].symbols.<X>"):
 * attention: pg_mha_check_workload (D and D_v multiples of 8, H of H_kv, causal S_q <= S_kv).
 * gemm with fp8 A and B: K a multiple
 * of 16 and the output's (and C's) contiguous extent a multiple of 16 bytes (cuBLASLt's fp8
 * kernels need 16-byte aligned leading dimensions). Every gemm task: batch at most INT32_MAX
 * (cuBLASLt's batch count is an int32). Errors:
 * PG_ERR_INPUT naming the workload and the value. */
pg_status pg_task_check_workload_op(const pg_task *t, int wi, pg_diag *d);

/* Tensor indices of a gemm task, by name and role: a and b the inputs A and B; out the output
 * (D when the task has an output D, else C); c the input C read with beta (-1 when the task has
 * none). -1 for any the task lacks (never, for a loaded gemm task's a, b and out). */
typedef struct {
    int a, b, c, out;
    int scale_a, scale_b; /* the fp8 per-tensor scales scale_A and scale_B; -1 when absent */
} pg_gemm_tensors;
void pg_task_gemm_tensors(const pg_task *t, pg_gemm_tensors *out);

/* Tensor indices of an attention task, by name; -1 for a tensor the task lacks (O and LSE are
 * outputs of mha_fwd and inputs of mha_bwd; dO, dQ, dK, dV exist in mha_bwd only). */
typedef struct {
    int q, k, v, o, lse, d_o, dq, dk, dv;
} pg_mha_tensors;
void pg_task_mha_tensors(const pg_task *t, pg_mha_tensors *out);

#endif
