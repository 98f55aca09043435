/* The GEMM of one workload of a gemm task (operation "gemm", or its alias "gemm_nt"), in the
 * form the reference kernel and the cuBLASLt baseline take: sizes, element types, and where
 * each element of each operand lives. docs/formats.md "Task" ("operation": "gemm") and
 * docs/tasks.md describe the task side.
 *
 *   D[b] = alpha · A[b] · B[b] + beta · C[b]     for b in 0 .. batch-1
 *
 * with the logical shapes A [M,K], B [K,N], C and D [M,N]. Element (i, j) of operand X's
 * logical matrix in batch b is at element offset b·X.batch_stride + i·X.row_stride +
 * j·X.col_stride from the start of X's buffer. Exactly one of row_stride and col_stride is 1
 * for every operand (row-major: col_stride 1; column-major: row_stride 1), the other is the
 * leading dimension (>= the contiguous extent); batch_stride is 0 when batch == 1.
 * Accumulation is in fp32 (compute tf32 rounds A and B to tf32 in the vendor baseline only; the
 * reference always multiplies the unrounded values, docs/correctness.md). */
#ifndef PG_MODEL_GEMM_PROBLEM_H
#define PG_MODEL_GEMM_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "dtype.h"
#include "task.h"

typedef enum {
    PG_GEMM_COMPUTE_FP32 = 0, /* fp32 products and sums */
    PG_GEMM_COMPUTE_TF32      /* declared tf32: the baseline rounds A and B to tf32 */
} pg_gemm_compute;

/* One operand: its element type and strides in elements (see above); tensor is its index in
 * the task's tensors (-1 for C when the GEMM reads none). */
typedef struct {
    int tensor;
    pg_dtype dtype;
    int64_t row_stride, col_stride, batch_stride;
} pg_gemm_operand;

typedef struct {
    int64_t batch, M, N, K;      /* batch >= 1; M, N, K >= 1 */
    pg_gemm_operand a, b, c, d;  /* c.tensor == -1 when !has_c */
    bool has_c;                  /* beta != 0: C is read */
    float alpha, beta;           /* the task's parameters (default 1 and 0) */
    pg_gemm_compute compute;
} pg_gemm_problem;

/* The GEMM of workload w of task t (t->op a GEMM operation). Strides follow from each tensor's
 * dims in storage order (the last contiguous) and which of them are M, N, K and batch.
 * Errors: PG_ERR_INPUT (file = t->file) when t is not a GEMM task. */
pg_status pg_gemm_problem_of(const pg_task *t, const pg_workload *w, pg_gemm_problem *out,
                             pg_diag *d);

/* True when operand x is stored column-major (row_stride == 1 and, for a matrix of more than
 * one column, col_stride > 1). */
bool pg_gemm_operand_col_major(const pg_gemm_operand *x);

/* The leading dimension of operand x in elements: col_stride when column-major, else
 * row_stride. */
int64_t pg_gemm_operand_ld(const pg_gemm_operand *x);

#endif
