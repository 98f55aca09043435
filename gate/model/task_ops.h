/* Operation contracts of tasks (docs/formats.md "Task", docs/attention.md): for each operation,
 * the symbols and tensors a task must declare, the vendor library it is timed against, and the
 * rules every workload of it must meet. */
#ifndef PG_MODEL_TASK_OPS_H
#define PG_MODEL_TASK_OPS_H

#include <stdbool.h>

#include "../base/diag.h"
#include "task.h"

/* Parse an operation name ("gemm_nt", "mha_fwd", "mha_bwd"); false for any other. */
bool pg_operation_parse(const char *name, pg_operation *out);
/* The operation's name. Static storage. */
const char *pg_operation_name(pg_operation op);
/* "gemm_nt, mha_fwd, mha_bwd", for messages. */
const char *pg_operation_accepted(void);
/* The vendor library the operation is timed against: "cublaslt" (gemm_nt) or "cudnn"
 * (attention). Static storage. */
const char *pg_operation_baseline(pg_operation op);
/* True for mha_fwd and mha_bwd. */
bool pg_operation_is_attention(pg_operation op);

/* Check t's symbols and tensors against the contract of t->op:
 *  gemm_nt: symbols M, N, K; exactly A [M,K], B [N,K] (inputs of one dtype) and C [M,N]
 *           (output).
 *  mha_fwd: symbols B, H, S, D; exactly Q, K, V [B,H,S,D] (inputs) and O [B,H,S,D] (output),
 *           all of one dtype, bf16 or fp16, and LSE [B,H,S] (output, fp32).
 *  mha_bwd: symbols B, H, S, D; exactly Q, K, V, O, dO [B,H,S,D] and LSE [B,H,S] fp32 (inputs),
 *           dQ, dK, dV [B,H,S,D] (outputs); the [B,H,S,D] tensors of one dtype, bf16 or fp16.
 * Tensors may appear in any order. Errors: PG_ERR_INPUT with file = t->file and field
 * "symbols", "tensors" or "tensors[i]"; the message states the whole contract and what
 * differs. */
pg_status pg_task_check_operation(const pg_task *t, pg_diag *d);

/* The operation's rules for workload index wi (field "workloads[wi].symbols.<X>"):
 * attention: D a multiple of 8, so that rows of Q, K, V, O are a multiple of 16 bytes (TMA
 * global strides and cuDNN's attention both require it). gemm_nt: no rule. Errors:
 * PG_ERR_INPUT naming the workload and the value. */
pg_status pg_task_check_workload_op(const pg_task *t, int wi, pg_diag *d);

/* Tensor indices of an attention task, by name; -1 for a tensor the task lacks (O and LSE are
 * outputs of mha_fwd and inputs of mha_bwd; dO, dQ, dK, dV exist in mha_bwd only). */
typedef struct {
    int q, k, v, o, lse, d_o, dq, dk, dv;
} pg_mha_tensors;
void pg_task_mha_tensors(const pg_task *t, pg_mha_tensors *out);

#endif
