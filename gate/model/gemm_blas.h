/* A pg_gemm_problem (gemm_problem.h) in the column-major form BLAS libraries take (cuBLASLt's
 * cublasLtMatmul: D = alpha·op(A)·op(B) + beta·C with column-major matrix layouts of rows,
 * columns and leading dimension), plus the helpers the reference and the baseline share: the
 * historic gemm_nt problem and the element span of an operand. CUDA-free, so the mapping is
 * tested offline (tests/unit/test_gemm_blas.c).
 *
 * The mapping. A matrix stored row-major with leading dimension ld is, read column-major, its
 * transpose with the same ld. When ptxgate's D is row-major the library computes
 * Dᵀ = Bᵀ·Aᵀ instead (swapped: the library's "A" is our B buffer, its "B" our A buffer, m = N,
 * n = M); when D is column-major it computes D = A·B directly (m = M, n = N). Each library
 * operand is then either stored column-major as the matrix the product needs (op N) or as its
 * transpose (op T). The historic gemm_nt problem (A [M,K], B [N,K], C [M,N], all row-major)
 * becomes m = N, n = M, k = K, library A = our B (K x N, ld K, op T), library B = our A (K x M,
 * ld K, op N), C = D = N x M, ld N: exactly the descriptors ptxgate created before the
 * generalized GEMM, so stored algorithm configurations keep pinning. */
#ifndef PG_MODEL_GEMM_BLAS_H
#define PG_MODEL_GEMM_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "dtype.h"
#include "gemm_problem.h"

/* One column-major matrix as the library reads it: rows x cols with leading dimension ld (>=
 * rows, >= 1), batch_stride elements between batches (0 when batch == 1), element type. */
typedef struct {
    int64_t rows, cols, ld, batch_stride;
    pg_dtype dtype;
} pg_gemm_blas_matrix;

typedef struct {
    bool swapped;          /* the library computes Dᵀ = Bᵀ·Aᵀ: its "A" is our B buffer */
    int64_t m, n, k, batch;
    bool trans_a, trans_b; /* op of the library's A and B: true = T, false = N */
    pg_gemm_blas_matrix a, b; /* the library's A and B (our B and A when swapped) */
    pg_gemm_blas_matrix c;    /* C when has_c, else a copy of d */
    pg_gemm_blas_matrix d;
    bool has_c;
} pg_gemm_blas;

/* The column-major form of p. An operand whose strides make it neither row- nor column-major
 * with a leading dimension at least its contiguous extent, or a C stored in another order than
 * D (the library's C and D layouts describe one orientation), is PG_ERR_INPUT naming the
 * operand and its strides. Orientation ties (a matrix of one row or one column) are broken as
 * the historic gemm_nt mapping does: A and D row-major, B column-major ([N,K]). fp8 A or B
 * not both stored with K contiguous (the library's op pair not T, N) is PG_ERR_INPUT too:
 * cuBLASLt's fp8 GEMMs take only that layout. */
pg_status pg_gemm_blas_of(const pg_gemm_problem *p, pg_gemm_blas *out, pg_diag *d);

/* The historic gemm_nt problem: D[M,N] (out, row-major) = A[M,K] · B[N,K]ᵀ, A and B row-major
 * of dtype in, batch 1, alpha 1, beta 0, no C, fp32 compute; every operand's tensor is -1 (no
 * task tensor). The peaks, warm-ups, device tests and pg_reference_gemm_nt build it. */
void pg_gemm_problem_nt(pg_gemm_problem *p, pg_dtype in, pg_dtype out, int64_t M, int64_t N,
                        int64_t K);

/* True when p is exactly such a gemm_nt problem (dense strides, in == out dtype of bf16 or
 * fp16, batch 1, alpha 1, beta 0, no C, fp32 compute): the problems of the gemm_nt tasks, whose
 * baselines and reports must stay as they were (no new report fields for them). */
bool pg_gemm_problem_is_plain_nt(const pg_gemm_problem *p);

/* The number of elements from the start of operand x's buffer to one past its last element,
 * for a logical rows x cols matrix per batch (A: M x K, B: K x N, C and D: M x N):
 * (batch-1)·batch_stride + (rows-1)·row_stride + (cols-1)·col_stride + 1; 0 when batch, rows
 * or cols is 0. False (with *elements = 0) on a negative stride or size or an int64 overflow. */
bool pg_gemm_operand_span(const pg_gemm_operand *x, int64_t batch, int64_t rows, int64_t cols,
                          int64_t *elements);

#endif
