/* The column-major form of a GEMM problem, the historic gemm_nt problem and operand spans
 * (gemm_blas.h). */
#include "gemm_blas.h"

#include <string.h>

/* How operand x, a logical rows x cols matrix, is stored: row-major (col_stride 1, or a single
 * column) with ld = row_stride >= cols, or column-major (row_stride 1, or a single row) with
 * ld = col_stride >= rows. A single row or column makes its other stride meaningless: the ld
 * is then raised to the contiguous extent so that the library accepts it. prefer_col breaks a
 * tie (both readings valid). False when neither reading is valid. */
static bool orient(const pg_gemm_operand *x, int64_t rows, int64_t cols, bool prefer_col,
                   bool *col, int64_t *ld)
{
    bool row_ok = (x->col_stride == 1 || cols == 1) && (rows == 1 || x->row_stride >= cols);
    bool col_ok = (x->row_stride == 1 || rows == 1) && (cols == 1 || x->col_stride >= rows);
    if (!row_ok && !col_ok)
        return false;
    *col = col_ok && (prefer_col || !row_ok);
    if (*col)
        *ld = cols == 1 && x->col_stride < rows ? rows : x->col_stride;
    else
        *ld = rows == 1 && x->row_stride < cols ? cols : x->row_stride;
    if (*ld < 1)
        *ld = 1;
    return true;
}

static pg_status bad_operand(pg_diag *d, const char *name, const pg_gemm_operand *x,
                             int64_t rows, int64_t cols, const char *why)
{
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                       "GEMM operand %s (%lld x %lld, row stride %lld, column stride %lld): %s",
                       name, (long long)rows, (long long)cols, (long long)x->row_stride,
                       (long long)x->col_stride, why);
}

/* The library matrix of the product's left or right factor P (pr x pc) stored in operand x,
 * whose own column-major reading is col: P is stored column-major iff x's reading of the
 * buffer is P itself (not swapped: x is P; swapped: x is Pᵀ, so x row-major). */
static void factor(const pg_gemm_operand *x, bool x_col, int64_t ld, bool swapped, int64_t pr,
                   int64_t pc, int64_t batch, pg_gemm_blas_matrix *m, bool *trans)
{
    bool p_col_major = swapped ? !x_col : x_col;
    *trans = !p_col_major;
    m->rows = p_col_major ? pr : pc;
    m->cols = p_col_major ? pc : pr;
    m->ld = ld;
    m->batch_stride = batch > 1 ? x->batch_stride : 0;
    m->dtype = x->dtype;
}

pg_status pg_gemm_blas_of(const pg_gemm_problem *p, pg_gemm_blas *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    const int64_t M = p->M, N = p->N, K = p->K;
    if (M < 1 || N < 1 || K < 1 || p->batch < 1)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "GEMM batch=%lld M=%lld N=%lld K=%lld: every size must be positive",
                           (long long)p->batch, (long long)M, (long long)N, (long long)K);
    bool a_col, b_col, d_col, c_col = false;
    int64_t lda, ldb, ldd, ldc = 0;
    if (!orient(&p->a, M, K, false, &a_col, &lda))
        return bad_operand(d, "A", &p->a, M, K, "neither row- nor column-major");
    if (!orient(&p->b, K, N, true, &b_col, &ldb))
        return bad_operand(d, "B", &p->b, K, N, "neither row- nor column-major");
    if (!orient(&p->d, M, N, false, &d_col, &ldd))
        return bad_operand(d, "D", &p->d, M, N, "neither row- nor column-major");
    if (p->has_c) {
        if (!orient(&p->c, M, N, d_col, &c_col, &ldc))
            return bad_operand(d, "C", &p->c, M, N, "neither row- nor column-major");
        if (c_col != d_col)
            return bad_operand(d, "C", &p->c, M, N,
                               d_col ? "not column-major as the output is (a BLAS library's C "
                                       "and D share one orientation)"
                                     : "not row-major as the output is (a BLAS library's C "
                                       "and D share one orientation)");
    }
    out->swapped = !d_col;
    out->batch = p->batch;
    out->k = K;
    out->has_c = p->has_c;
    if (out->swapped) {
        /* Dᵀ (N x M) = Bᵀ (N x K) · Aᵀ (K x M). */
        out->m = N;
        out->n = M;
        factor(&p->b, b_col, ldb, true, N, K, p->batch, &out->a, &out->trans_a);
        factor(&p->a, a_col, lda, true, K, M, p->batch, &out->b, &out->trans_b);
    } else {
        out->m = M;
        out->n = N;
        factor(&p->a, a_col, lda, false, M, K, p->batch, &out->a, &out->trans_a);
        factor(&p->b, b_col, ldb, false, K, N, p->batch, &out->b, &out->trans_b);
    }
    /* cuBLASLt multiplies fp8 only as "TN": its A transposed, its B not (both K-major). */
    if ((pg_dtype_is_fp8(p->a.dtype) || pg_dtype_is_fp8(p->b.dtype)) &&
        (!out->trans_a || out->trans_b))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "fp8 GEMM: A and B must both be stored with K contiguous (A [M,K], B "
                           "[N,K]): cuBLASLt's fp8 kernels take only that layout (TN)");
    out->d.rows = out->m;
    out->d.cols = out->n;
    out->d.ld = ldd;
    out->d.batch_stride = p->batch > 1 ? p->d.batch_stride : 0;
    out->d.dtype = p->d.dtype;
    out->c = out->d;
    if (p->has_c) {
        out->c.ld = ldc;
        out->c.batch_stride = p->batch > 1 ? p->c.batch_stride : 0;
        out->c.dtype = p->c.dtype;
    }
    return PG_OK;
}

void pg_gemm_problem_nt(pg_gemm_problem *p, pg_dtype in, pg_dtype out, int64_t M, int64_t N,
                        int64_t K)
{
    memset(p, 0, sizeof *p);
    p->batch = 1;
    p->M = M;
    p->N = N;
    p->K = K;
    p->a = (pg_gemm_operand){.tensor = -1, .dtype = in, .row_stride = K, .col_stride = 1};
    p->b = (pg_gemm_operand){.tensor = -1, .dtype = in, .row_stride = 1, .col_stride = K};
    p->c = (pg_gemm_operand){.tensor = -1, .dtype = PG_DTYPE_INVALID};
    p->d = (pg_gemm_operand){.tensor = -1, .dtype = out, .row_stride = N, .col_stride = 1};
    p->has_c = false;
    p->alpha = 1.0f;
    p->beta = 0.0f;
    p->compute = PG_GEMM_COMPUTE_FP32;
}

bool pg_gemm_problem_is_plain_nt(const pg_gemm_problem *p)
{
    bool narrow = p->a.dtype == PG_DTYPE_BF16 || p->a.dtype == PG_DTYPE_FP16;
    return narrow && p->b.dtype == p->a.dtype && p->d.dtype == p->a.dtype && p->batch == 1 &&
           !p->has_c && p->alpha == 1.0f && p->beta == 0.0f &&
           p->compute == PG_GEMM_COMPUTE_FP32 && p->a.row_stride == p->K &&
           p->a.col_stride == 1 && p->b.row_stride == 1 && p->b.col_stride == p->K &&
           p->d.row_stride == p->N && p->d.col_stride == 1;
}

bool pg_gemm_operand_span(const pg_gemm_operand *x, int64_t batch, int64_t rows, int64_t cols,
                          int64_t *elements)
{
    *elements = 0;
    if (batch < 0 || rows < 0 || cols < 0 || x->row_stride < 0 || x->col_stride < 0 ||
        x->batch_stride < 0)
        return false;
    if (batch == 0 || rows == 0 || cols == 0)
        return true;
    int64_t a, b, c, s;
    if (__builtin_mul_overflow(batch - 1, x->batch_stride, &a) ||
        __builtin_mul_overflow(rows - 1, x->row_stride, &b) ||
        __builtin_mul_overflow(cols - 1, x->col_stride, &c) || __builtin_add_overflow(a, b, &s) ||
        __builtin_add_overflow(s, c, &s) || __builtin_add_overflow(s, 1, &s))
        return false;
    *elements = s;
    return true;
}
