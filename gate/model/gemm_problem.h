/* The GEMM of one workload of a gemm task (operation "gemm", or its alias "gemm_nt"), in the
 * form the reference kernel and the cuBLASLt baseline take: sizes, element types, and where
 * each element of each operand lives. docs/formats.md "Task" ("operation": "gemm") describes the
 * task side.
 *
 *   D[b] = alpha · A[b] · B[b] + beta · C[b]     for b in 0 .. batch-1
 *
 * with the logical shapes A [M,K], B [K,N], C and D [M,N]. Element (i, j) of operand X's
 * logical matrix in batch b is at element offset b·X.batch_stride + i·X.row_stride +
 * j·X.col_stride from the start of X's buffer. Every tensor is dense in its storage order
 * (pg_tensor_spec.dims, the last dim contiguous), so for a row-major operand (storage [.., rows,
 * cols]) col_stride is 1 and row_stride the number of columns, and for a column-major one
 * (storage [.., cols, rows]) row_stride is 1 and col_stride the number of rows; batch_stride is
 * rows·cols, or 0 when batch == 1. Which of the two an operand is comes from its storage order
 * (col_major below), not from the strides: when the contiguous extent is 1 both strides are 1.
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
 * the task's tensors (-1 for C when the GEMM reads none; then dtype is PG_DTYPE_INVALID and the
 * strides 0). col_major: the operand's logical rows are its contiguous dim (storage [.., cols,
 * rows]; e.g. A stored [K,M], or declared [M,K] with "layout": "col_major"). */
typedef struct {
    int tensor;
    pg_dtype dtype;
    int64_t row_stride, col_stride, batch_stride;
    bool col_major;
} pg_gemm_operand;

/* How A and B are scaled (fp8 A and B only), from the task's input tensors scale_A and
 * scale_B (fp32):
 *  TENSOR: one scale each ("dims": []): D = alpha·(scale_A·A)·(scale_B·B) + beta·C, cuBLASLt's
 *          CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F with the A/B scale pointers;
 *  BLOCK:  DeepSeek-V3's fine-grained scaling: A(m, k) times scale_A[k / 128][m] (one per row
 *          and 128 of K; stored [ceil(K/128), M], M contiguous) and B(k, n) times
 *          scale_B[n / 128][k / 128] (one per 128 x 128 block; stored [ceil(N/128),
 *          ceil(K/128)]); cuBLASLt's CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F (for our A) and
 *          BLK128x128_32F (for our B). A and B are then K-contiguous, unbatched. */
typedef enum {
    PG_GEMM_SCALE_NONE = 0,
    PG_GEMM_SCALE_TENSOR,
    PG_GEMM_SCALE_BLOCK
} pg_gemm_scale_mode;

typedef struct {
    pg_gemm_scale_mode mode;
    int a, b; /* tensor indices of scale_A and scale_B; -1 with PG_GEMM_SCALE_NONE */
} pg_gemm_scaling;

typedef struct {
    int64_t batch, M, N, K;      /* batch >= 1; M, N, K >= 1 */
    pg_gemm_operand a, b, c, d;  /* c.tensor == -1 when !has_c */
    bool has_c;                  /* beta != 0: C is read */
    float alpha, beta;           /* the task's parameters (default 1 and 0) */
    pg_gemm_compute compute;
    pg_gemm_scaling scale;       /* PG_GEMM_SCALE_NONE unless A and B are fp8 with scales */
} pg_gemm_problem;

/* The GEMM of workload w (one of t's) of a loaded gemm task t (pg_task_load; the contract of
 * task_ops.h holds). Strides follow from each tensor's dims in storage order (the last
 * contiguous) and which of them are M, N, K and batch; a, b, d are the tensors A, B and the
 * output (C or D), c the input C when has_c (t->beta != 0), else c.tensor -1; alpha and beta
 * are t's, rounded to fp32; compute is TF32 when baseline.compute is "tf32"; scale is
 * PG_GEMM_SCALE_TENSOR (scalar scales) or PG_GEMM_SCALE_BLOCK (2-dim ones) with the indices
 * of scale_A and scale_B when t has them. *out is zeroed
 * first (tensor indices -1) and filled on success.
 * Errors: PG_ERR_INPUT (file = t->file) with field "operation" when t is not a gemm task, or
 * "tensors" when it lacks A, B or an output (a task that skipped validation). */
pg_status pg_gemm_problem_of(const pg_task *t, const pg_workload *w, pg_gemm_problem *out,
                             pg_diag *d);

/* The edge of a scale block of PG_GEMM_SCALE_BLOCK (DeepSeek-V3 technical report, §3.3.1:
 * 1 x 128 tiles of activations, 128 x 128 blocks of weights), in elements. */
#define PG_GEMM_SCALE_BLOCK_EDGE 128

/* The number of scale blocks along a dim of n elements: ceil(n / 128); n >= 0. */
int64_t pg_gemm_scale_blocks(int64_t n);

/* x->col_major: operand x is stored column-major (its logical rows contiguous). */
bool pg_gemm_operand_col_major(const pg_gemm_operand *x);

/* The leading dimension of operand x in elements: col_stride when column-major (the number of
 * rows), else row_stride (the number of columns); >= 1. */
int64_t pg_gemm_operand_ld(const pg_gemm_operand *x);

#endif
