/* Unit tests of the column-major (cuBLASLt) form of a GEMM problem (gate/model/gemm_blas.h):
 * the historic gemm_nt descriptors for every gemm_nt problem (stored baselines keep pinning),
 * the other layouts, batch strides, C against D, refusals and operand spans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model/gemm_blas.h"
#include "model/gemm_problem.h"
#include "model/task.h"

static void expect_matrix(const pg_gemm_blas_matrix *m, int64_t rows, int64_t cols, int64_t ld,
                          int64_t batch_stride)
{
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    assert_int_equal(m->ld, ld);
    assert_int_equal(m->batch_stride, batch_stride);
}

/* The descriptors ptxgate created for gemm_nt before the generalized GEMM (blaslt.c of then):
 * m = N, n = M, k = K, TRANSA = T on the B buffer K x N ld K, TRANSB = N on the A buffer K x M
 * ld K, C = D = N x M ld N. */
static void expect_historic(int64_t M, int64_t N, int64_t K)
{
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_BF16, PG_DTYPE_BF16, M, N, K);
    assert_true(pg_gemm_problem_is_plain_nt(&p));
    pg_gemm_blas b;
    pg_diag d;
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_true(b.swapped);
    assert_int_equal(b.m, N);
    assert_int_equal(b.n, M);
    assert_int_equal(b.k, K);
    assert_int_equal(b.batch, 1);
    assert_true(b.trans_a);
    assert_false(b.trans_b);
    assert_false(b.has_c);
    expect_matrix(&b.a, K, N, K, 0);
    expect_matrix(&b.b, K, M, K, 0);
    expect_matrix(&b.d, N, M, N, 0);
    expect_matrix(&b.c, N, M, N, 0);
    assert_int_equal(b.d.dtype, PG_DTYPE_BF16);
}

static void test_historic_nt(void **state)
{
    (void)state;
    expect_historic(2048, 2048, 2048);
    expect_historic(257, 513, 1000);
    expect_historic(8192, 7168, 5120);
    /* One row, one column or depth one: the tie-breaks keep the historic form. */
    expect_historic(1, 513, 1000);
    expect_historic(257, 1, 1000);
    expect_historic(257, 513, 1);
    expect_historic(1, 1, 1);
}

/* A problem with each operand row-major (col_stride 1) or column-major (row_stride 1), dense. */
static pg_gemm_problem problem(int64_t M, int64_t N, int64_t K, bool a_col, bool b_col,
                               bool d_col)
{
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_FP32, PG_DTYPE_FP32, M, N, K);
    p.a.row_stride = a_col ? 1 : K;
    p.a.col_stride = a_col ? M : 1;
    p.b.row_stride = b_col ? 1 : N;
    p.b.col_stride = b_col ? K : 1;
    p.d.row_stride = d_col ? 1 : N;
    p.d.col_stride = d_col ? M : 1;
    return p;
}

static void test_layouts(void **state)
{
    (void)state;
    pg_gemm_blas b;
    pg_diag d;
    const int64_t M = 37, N = 53, K = 29;
    /* NN, row-major D: Dᵀ = Bᵀ·Aᵀ; the B buffer read column-major is Bᵀ (N x K, op N), the A
     * buffer is Aᵀ (K x M, op N). */
    pg_gemm_problem p = problem(M, N, K, false, false, false);
    assert_false(pg_gemm_problem_is_plain_nt(&p));
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_true(b.swapped);
    assert_false(b.trans_a);
    assert_false(b.trans_b);
    expect_matrix(&b.a, N, K, N, 0);
    expect_matrix(&b.b, K, M, K, 0);
    expect_matrix(&b.d, N, M, N, 0);
    /* TN (A stored [K,M], B stored [N,K]), row-major D: Bᵀ = the B buffer transposed (op T,
     * K x N), Aᵀ from the column-major A buffer (M x K, op T). */
    p = problem(M, N, K, true, true, false);
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_true(b.swapped);
    assert_true(b.trans_a);
    assert_true(b.trans_b);
    expect_matrix(&b.a, K, N, K, 0);
    expect_matrix(&b.b, M, K, M, 0);
    /* Column-major D: D = A·B directly. Row-major A is Aᵀ read column-major (op T, K x M);
     * column-major B is B (op N, K x N). */
    p = problem(M, N, K, false, true, true);
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_false(b.swapped);
    assert_int_equal(b.m, M);
    assert_int_equal(b.n, N);
    assert_true(b.trans_a);
    assert_false(b.trans_b);
    expect_matrix(&b.a, K, M, K, 0);
    expect_matrix(&b.b, K, N, K, 0);
    expect_matrix(&b.d, M, N, M, 0);
    /* Column-major A and row-major B with column-major D. */
    p = problem(M, N, K, true, false, true);
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_false(b.trans_a);
    assert_true(b.trans_b);
    expect_matrix(&b.a, M, K, M, 0);
    expect_matrix(&b.b, N, K, N, 0);
}

static void test_batch_and_c(void **state)
{
    (void)state;
    pg_gemm_blas b;
    pg_diag d;
    const int64_t M = 37, N = 53, K = 29;
    pg_gemm_problem p = problem(M, N, K, false, true, false);
    p.batch = 3;
    p.a.batch_stride = M * K;
    p.b.batch_stride = N * K;
    p.d.batch_stride = M * N;
    p.has_c = true;
    p.beta = -0.5f;
    p.c = (pg_gemm_operand){.tensor = 2, .dtype = PG_DTYPE_BF16, .row_stride = N + 3,
                            .col_stride = 1, .batch_stride = M * (N + 3)};
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_OK);
    assert_int_equal(b.batch, 3);
    assert_true(b.has_c);
    expect_matrix(&b.a, K, N, K, N * K); /* the B buffer */
    expect_matrix(&b.b, K, M, K, M * K); /* the A buffer */
    expect_matrix(&b.c, N, M, N + 3, M * (N + 3));
    assert_int_equal(b.c.dtype, PG_DTYPE_BF16);
    expect_matrix(&b.d, N, M, N, M * N);
    /* C in the other orientation than D: refused, naming C. */
    p.c.row_stride = 1;
    p.c.col_stride = M;
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "operand C"));
    assert_non_null(strstr(d.message, "row-major as the output"));
}

static void test_refusals(void **state)
{
    (void)state;
    pg_gemm_blas b;
    pg_diag d;
    pg_gemm_problem p = problem(37, 53, 29, false, false, false);
    p.a.row_stride = 3; /* rows overlap: below the 29 contiguous elements */
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "operand A"));
    p = problem(37, 53, 29, false, false, false);
    p.d.row_stride = 2;
    p.d.col_stride = 2;
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "operand D"));
    p = problem(0, 53, 29, false, false, false);
    assert_int_equal(pg_gemm_blas_of(&p, &b, &d), PG_ERR_INPUT);
}

static void test_plain_nt(void **state)
{
    (void)state;
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_FP16, PG_DTYPE_FP16, 64, 64, 64);
    assert_true(pg_gemm_problem_is_plain_nt(&p));
    assert_int_equal(p.a.tensor, -1);
    assert_int_equal(p.c.tensor, -1);
    p.alpha = 2.0f;
    assert_false(pg_gemm_problem_is_plain_nt(&p));
    pg_gemm_problem_nt(&p, PG_DTYPE_FP16, PG_DTYPE_FP32, 64, 64, 64);
    assert_false(pg_gemm_problem_is_plain_nt(&p));
    pg_gemm_problem_nt(&p, PG_DTYPE_FP32, PG_DTYPE_FP32, 64, 64, 64);
    assert_false(pg_gemm_problem_is_plain_nt(&p));
    pg_gemm_problem_nt(&p, PG_DTYPE_BF16, PG_DTYPE_BF16, 64, 64, 64);
    p.compute = PG_GEMM_COMPUTE_TF32;
    assert_false(pg_gemm_problem_is_plain_nt(&p));
}

/* The shipped gemm_nt tasks: their workloads' problems are plain gemm_nt ones, so their
 * baselines get the historic descriptors and their reports no new fields. */
static void test_shipped_tasks(void **state)
{
    (void)state;
    const char *ids[] = {"gemm_bf16_nt", "gemm_fp16_nt"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        pg_task *t = NULL;
        pg_diag d;
        assert_int_equal(pg_task_load(PG_SOURCE_DIR "/tasks", ids[i], &t, &d), PG_OK);
        for (int w = 0; w < t->n_workloads; w++) {
            pg_gemm_problem p;
            assert_int_equal(pg_gemm_problem_of(t, &t->workloads[w], &p, &d), PG_OK);
            assert_true(pg_gemm_problem_is_plain_nt(&p));
            assert_int_equal(p.d.tensor, pg_task_find_tensor(t, "C"));
        }
        pg_task_free(t);
    }
}

static void test_span(void **state)
{
    (void)state;
    pg_gemm_operand x = {.row_stride = 53, .col_stride = 1, .batch_stride = 37 * 53};
    int64_t n = -1;
    assert_true(pg_gemm_operand_span(&x, 3, 37, 53, &n));
    assert_int_equal(n, 3 * 37 * 53);
    x = (pg_gemm_operand){.row_stride = 1, .col_stride = 40};
    assert_true(pg_gemm_operand_span(&x, 1, 37, 53, &n));
    assert_int_equal(n, 52 * 40 + 36 + 1);
    assert_true(pg_gemm_operand_span(&x, 1, 0, 53, &n));
    assert_int_equal(n, 0);
    x.col_stride = INT64_MAX / 2;
    assert_false(pg_gemm_operand_span(&x, 1, 37, 53, &n));
    assert_int_equal(n, 0);
    x.col_stride = -1;
    assert_false(pg_gemm_operand_span(&x, 1, 37, 53, &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_historic_nt), cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_batch_and_c), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_plain_nt),    cmocka_unit_test(test_shipped_tasks),
        cmocka_unit_test(test_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
