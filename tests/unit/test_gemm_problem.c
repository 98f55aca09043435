/* Unit tests of the generalized gemm operation: loading gemm tasks (gate/model/task.h, the
 * contract of gate/model/task_ops.h) and the GEMM of a workload (gate/model/gemm_problem.h).
 * Fixtures: tests/data/model/gemm_tasks (valid tasks). Variants are made in memory from a
 * fixture (one change each) and written under PG_TEST_TMP/gemm_tasks/<variant>/task.json, the
 * variant's name as its id. Storage orders are named in row-major terms: N = the operand as
 * its logical shape (A [M,K], B [K,N]), T = transposed (A [K,M], B [N,K]). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gemm_blas.h"
#include "model/gemm_problem.h"
#include "model/task.h"
#include "model/task_ops.h"

#define GEMM PG_TEST_DATA "/model/gemm_tasks"
#define MHA PG_TEST_DATA "/model/mha_tasks"
#define SHIPPED PG_SOURCE_DIR "/tasks"
#define TMP PG_TEST_TMP "/gemm_tasks"

/* ---- building variants ------------------------------------------------------------------- */

static json_t *load_json(const char *dir, const char *id)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/task.json", dir, id);
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root)
        fail_msg("%s: %s", path, e.text);
    return root;
}

static json_t *tensor(json_t *root, const char *name)
{
    size_t i;
    json_t *ts;
    json_array_foreach(json_object_get(root, "tensors"), i, ts)
        if (strcmp(json_string_value(json_object_get(ts, "name")), name) == 0)
            return ts;
    fail_msg("no tensor %s", name);
    return NULL;
}

static void set_str(json_t *obj, const char *key, const char *value)
{
    json_object_set_new(obj, key, json_string(value));
}

/* dims of tensor `name` := the n strings that follow. */
static void set_dims(json_t *root, const char *name, int n, ...)
{
    json_t *arr = json_array();
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        json_array_append_new(arr, json_string(va_arg(ap, const char *)));
    va_end(ap);
    json_object_set_new(tensor(root, name), "dims", arr);
}

static void set_params(json_t *root, const char *json)
{
    json_error_t e;
    json_t *p = json_loads(json, 0, &e);
    if (!p)
        fail_msg("%s: %s", json, e.text);
    json_object_set_new(root, "parameters", p);
}

static void set_compute(json_t *root, const char *compute)
{
    set_str(json_object_get(root, "baseline"), "compute", compute);
}

/* Write root (consumed) as TMP/<variant>/task.json with id <variant>; the path into path. */
static void write_variant(json_t *root, const char *variant, char *path, size_t n)
{
    char dir[1024];
    mkdir(TMP, 0755);
    snprintf(dir, sizeof dir, "%s/%s", TMP, variant);
    mkdir(dir, 0755);
    snprintf(path, n, "%s/task.json", dir);
    set_str(root, "id", variant);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
}

/* Load root (consumed) as variant: must load. Free with pg_task_free. */
static pg_task *load_ok(json_t *root, const char *variant)
{
    char path[1024], buf[4096];
    write_variant(root, variant, path, sizeof path);
    pg_task *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_task_load_file(path, &t, &d) != PG_OK)
        fail_msg("%s: %s", variant, pg_diag_format(&d, buf, sizeof buf));
    return t;
}

/* Load root (consumed) as variant: must fail naming its file, field and message parts. */
static void load_bad(json_t *root, const char *variant, const char *field, const char *msg1,
                     const char *msg2)
{
    char path[1024];
    write_variant(root, variant, path, sizeof path);
    pg_task *t = (pg_task *)1;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_task_load_file(path, &t, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("%s: expected PG_ERR_INPUT, got %d", variant, (int)st);
    assert_null(t);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", variant, d.field, field,
                 d.message);
    if (msg1 && !strstr(d.message, msg1))
        fail_msg("%s: message '%s' lacks '%s'", variant, d.message, msg1);
    if (msg2 && !strstr(d.message, msg2))
        fail_msg("%s: message '%s' lacks '%s'", variant, d.message, msg2);
}

static pg_task *load_fixture(const char *dir, const char *id)
{
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_task_load(dir, id, &t, &d) != PG_OK)
        fail_msg("%s: %s", id, pg_diag_format(&d, buf, sizeof buf));
    return t;
}

/* The problem of workload `name` of t. */
static pg_gemm_problem problem(const pg_task *t, const char *name)
{
    pg_gemm_problem p;
    pg_diag d;
    char buf[4096];
    int w = pg_task_find_workload(t, name);
    assert_true(w >= 0);
    if (pg_gemm_problem_of(t, &t->workloads[w], &p, &d) != PG_OK)
        fail_msg("%s: %s", name, pg_diag_format(&d, buf, sizeof buf));
    return p;
}

static void expect_operand(const pg_gemm_operand *x, int64_t row, int64_t col, int64_t batch,
                           bool col_major, int64_t ld)
{
    if (x->row_stride != row || x->col_stride != col || x->batch_stride != batch ||
        x->col_major != col_major || pg_gemm_operand_ld(x) != ld)
        fail_msg("operand %d: strides row %lld col %lld batch %lld col_major %d ld %lld, "
                 "expected %lld %lld %lld %d %lld",
                 x->tensor, (long long)x->row_stride, (long long)x->col_stride,
                 (long long)x->batch_stride, x->col_major, (long long)pg_gemm_operand_ld(x),
                 (long long)row, (long long)col, (long long)batch, col_major, (long long)ld);
    assert_true(pg_gemm_operand_col_major(x) == col_major);
}

/* ---- valid tasks: the problem ------------------------------------------------------------- */

/* NN, NT, TN, TT with M 3, N 5, K 7 (workload "ragged" of gemm_nn_fp32). */
static void test_storage_orders(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        bool a_t, b_t;
    } orders[] = {{"nn", false, false}, {"nt", false, true}, {"tn", true, false},
                  {"tt", true, true}};
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
        json_t *root = load_json(GEMM, "gemm_nn_fp32");
        if (orders[i].a_t)
            set_dims(root, "A", 2, "K", "M");
        if (orders[i].b_t)
            set_dims(root, "B", 2, "N", "K");
        char variant[64];
        snprintf(variant, sizeof variant, "order_%s", orders[i].name);
        pg_task *t = load_ok(root, variant);
        pg_gemm_problem p = problem(t, "ragged");
        assert_int_equal(p.batch, 1);
        assert_int_equal(p.M, 3);
        assert_int_equal(p.N, 5);
        assert_int_equal(p.K, 7);
        /* A [M,K]: row stride K; A [K,M]: column stride M */
        if (orders[i].a_t)
            expect_operand(&p.a, 1, 3, 0, true, 3);
        else
            expect_operand(&p.a, 7, 1, 0, false, 7);
        /* B [K,N]: row stride N; B [N,K]: column stride K */
        if (orders[i].b_t)
            expect_operand(&p.b, 1, 7, 0, true, 7);
        else
            expect_operand(&p.b, 5, 1, 0, false, 5);
        expect_operand(&p.d, 5, 1, 0, false, 5);
        assert_int_equal(p.a.tensor, pg_task_find_tensor(t, "A"));
        assert_int_equal(p.b.tensor, pg_task_find_tensor(t, "B"));
        assert_int_equal(p.d.tensor, pg_task_find_tensor(t, "C"));
        assert_int_equal(p.a.dtype, PG_DTYPE_FP32);
        assert_int_equal(p.d.dtype, PG_DTYPE_FP32);
        assert_false(p.has_c);
        assert_int_equal(p.c.tensor, -1);
        assert_int_equal(p.c.dtype, PG_DTYPE_INVALID);
        assert_true(p.alpha == 1.0f && p.beta == 0.0f);
        assert_int_equal(p.compute, PG_GEMM_COMPUTE_FP32);
        pg_task_free(t);
    }
    /* the output stored [N,M] */
    json_t *root = load_json(GEMM, "gemm_nn_fp32");
    set_dims(root, "C", 2, "N", "M");
    pg_task *t = load_ok(root, "order_out_t");
    pg_gemm_problem p = problem(t, "ragged");
    expect_operand(&p.d, 1, 3, 0, true, 3);
    pg_task_free(t);
}

static void test_fixture_nn(void **state)
{
    (void)state;
    pg_task *t = load_fixture(GEMM, "gemm_nn_fp32");
    assert_string_equal(t->operation, "gemm");
    assert_int_equal(t->op, PG_OP_GEMM);
    assert_string_equal(pg_operation_name(t->op), "gemm");
    assert_true(t->alpha == 1.0 && t->beta == 0.0); /* no "parameters": the defaults */
    assert_string_equal(t->baseline_compute, "fp32");
    for (int i = 0; i < t->n_tensors; i++)
        assert_false(t->tensors[i].col_major_declared);
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    assert_int_equal(g.a, 0);
    assert_int_equal(g.b, 1);
    assert_int_equal(g.c, -1);
    assert_int_equal(g.out, 2);
    /* M = N = K = 1: both strides of every operand are 1; the storage order still decides */
    pg_gemm_problem p = problem(t, "ones");
    expect_operand(&p.a, 1, 1, 0, false, 1);
    expect_operand(&p.b, 1, 1, 0, false, 1);
    pg_task_free(t);
}

/* layout col_major: dims declared in logical order are stored swapped. */
static void test_col_major(void **state)
{
    (void)state;
    pg_task *t = load_fixture(GEMM, "gemm_col_major");
    int a = pg_task_find_tensor(t, "A"), b = pg_task_find_tensor(t, "B"),
        c = pg_task_find_tensor(t, "C");
    assert_true(t->tensors[a].col_major_declared);
    assert_true(t->tensors[c].col_major_declared);
    assert_string_equal(t->tensors[a].dims[0], "K");
    assert_string_equal(t->tensors[a].dims[1], "M");
    assert_string_equal(t->tensors[b].dims[0], "N");
    assert_string_equal(t->tensors[b].dims[1], "K");
    assert_string_equal(t->tensors[c].dims[0], "N");
    assert_string_equal(t->tensors[c].dims[1], "M");
    /* the element count does not depend on the order */
    uint64_t n;
    pg_diag d;
    assert_int_equal(pg_task_tensor_elements(t, a, &t->workloads[0], &n, &d), PG_OK);
    assert_int_equal(n, 21);
    /* the same strides as TT with the output stored [N,M] */
    pg_gemm_problem p = problem(t, "ragged");
    expect_operand(&p.a, 1, 3, 0, true, 3);
    expect_operand(&p.b, 1, 7, 0, true, 7);
    expect_operand(&p.d, 1, 3, 0, true, 3);
    assert_int_equal(p.a.dtype, PG_DTYPE_BF16);
    assert_int_equal(p.d.dtype, PG_DTYPE_FP32);
    /* M = N = K = 1: column-major by storage order, although both strides are 1 */
    p = problem(t, "ones");
    expect_operand(&p.a, 1, 1, 0, true, 1);
    pg_task_free(t);

    /* col_major with a batch dim: only the last two are swapped */
    json_t *root = load_json(GEMM, "gemm_batched_beta");
    set_dims(root, "A", 3, "batch", "M", "K");
    set_str(tensor(root, "A"), "layout", "col_major");
    t = load_ok(root, "col_major_batched");
    a = pg_task_find_tensor(t, "A");
    assert_string_equal(t->tensors[a].dims[0], "batch");
    assert_string_equal(t->tensors[a].dims[1], "K");
    assert_string_equal(t->tensors[a].dims[2], "M");
    p = problem(t, "b2_ragged");
    expect_operand(&p.a, 1, 3, 21, true, 3);
    pg_task_free(t);

    /* row_major given explicitly is the default storage order */
    root = load_json(GEMM, "gemm_col_major");
    set_str(tensor(root, "A"), "layout", "row_major");
    set_dims(root, "A", 2, "K", "M");
    t = load_ok(root, "col_major_row_equivalent");
    p = problem(t, "ragged");
    expect_operand(&p.a, 1, 3, 0, true, 3);
    assert_false(t->tensors[pg_task_find_tensor(t, "A")].col_major_declared);
    pg_task_free(t);
}

/* Strided batch, alpha and beta, a C input and the output D. */
static void test_batched_beta(void **state)
{
    (void)state;
    pg_task *t = load_fixture(GEMM, "gemm_batched_beta");
    assert_true(t->alpha == 1.5);
    assert_true(t->beta == -0.5);
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    assert_int_equal(g.c, pg_task_find_tensor(t, "C"));
    assert_int_equal(g.out, pg_task_find_tensor(t, "D"));
    pg_gemm_problem p = problem(t, "b2_ragged");
    assert_int_equal(p.batch, 2);
    assert_true(p.has_c);
    assert_true(p.alpha == 1.5f && p.beta == -0.5f);
    expect_operand(&p.a, 7, 1, 21, false, 7);  /* [batch,M,K] */
    expect_operand(&p.b, 1, 7, 35, true, 7);   /* [batch,N,K] */
    expect_operand(&p.c, 5, 1, 15, false, 5);  /* [batch,M,N] */
    expect_operand(&p.d, 5, 1, 15, false, 5);
    assert_int_equal(p.c.tensor, g.c);
    assert_int_equal(p.d.tensor, g.out);
    assert_int_equal(p.c.dtype, PG_DTYPE_BF16);
    /* batch 1: batch strides 0 */
    p = problem(t, "b1");
    assert_int_equal(p.batch, 1);
    expect_operand(&p.a, 16, 1, 0, false, 16);
    expect_operand(&p.c, 8, 1, 0, false, 8);
    pg_task_free(t);

    /* an integer alpha, beta alone */
    json_t *root = load_json(GEMM, "gemm_batched_beta");
    set_params(root, "{\"beta\": 2}");
    t = load_ok(root, "beta_only");
    assert_true(t->alpha == 1.0 && t->beta == 2.0);
    pg_task_free(t);
    /* alpha 0 would leave A and B untested (D = beta C, or all zeros) */
    root = load_json(GEMM, "gemm_nn_fp32");
    set_params(root, "{\"alpha\": 0, \"beta\": 0}");
    load_bad(root, "alpha_zero", "parameters.alpha", "alpha 0 makes D = beta·C",
             "A and B would never be tested");
    /* an output D without a C input (beta 0) */
    root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "C"), "name", "D");
    t = load_ok(root, "output_d");
    assert_int_equal(problem(t, "ragged").d.tensor, pg_task_find_tensor(t, "D"));
    pg_task_free(t);
}

static void test_compute_tf32(void **state)
{
    (void)state;
    pg_task *t = load_fixture(GEMM, "gemm_tf32_tn");
    assert_string_equal(t->baseline_compute, "tf32");
    pg_gemm_problem p = problem(t, "ragged");
    assert_int_equal(p.compute, PG_GEMM_COMPUTE_TF32);
    assert_int_equal(p.d.tensor, 0); /* D first in the list */
    expect_operand(&p.a, 7, 1, 0, false, 7);
    expect_operand(&p.b, 1, 7, 0, true, 7);
    assert_true(pg_task_output_tolerance(t, 0) != NULL);
    pg_task_free(t);
}

/* The shipped gemm_nt tasks: the alias loads as before and is the same operation. */
static void test_gemm_nt_alias(void **state)
{
    (void)state;
    static const char *const ids[] = {"gemm_bf16_nt", "gemm_fp16_nt"};
    for (int k = 0; k < 2; k++) {
        pg_task *t = load_fixture(SHIPPED, ids[k]);
        assert_string_equal(t->operation, "gemm_nt"); /* as written */
        assert_int_equal(t->op, PG_OP_GEMM);
        assert_int_equal(PG_OP_GEMM_NT, PG_OP_GEMM);
        for (int i = 0; i < t->n_tensors; i++)
            assert_false(t->tensors[i].col_major_declared);
        pg_gemm_problem p = problem(t, "m257_n513_k1000");
        expect_operand(&p.a, 1000, 1, 0, false, 1000);
        expect_operand(&p.b, 1, 1000, 0, true, 1000);
        expect_operand(&p.d, 513, 1, 0, false, 513);
        assert_false(p.has_c);
        assert_true(p.alpha == 1.0f && p.beta == 0.0f);
        assert_int_equal(p.compute, PG_GEMM_COMPUTE_FP32);
        pg_task_free(t);
    }
    pg_operation op;
    assert_true(pg_operation_parse("gemm", &op));
    assert_int_equal(op, PG_OP_GEMM);
    assert_true(pg_operation_parse("gemm_nt", &op));
    assert_int_equal(op, PG_OP_GEMM);
    assert_false(pg_operation_parse("gemm_tn", &op));
    assert_string_equal(pg_operation_baseline(PG_OP_GEMM), "cublaslt");
}

static void test_not_a_gemm(void **state)
{
    (void)state;
    pg_task *t = load_fixture(MHA, "mha_small");
    pg_gemm_problem p;
    pg_diag d;
    pg_diag_clear(&d);
    p.a.tensor = 7;
    assert_int_equal(pg_gemm_problem_of(t, &t->workloads[0], &p, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, t->file);
    assert_string_equal(d.field, "operation");
    assert_non_null(strstr(d.message, "operation mha_fwd is not a GEMM"));
    assert_int_equal(p.a.tensor, -1);
    pg_task_free(t);
}

/* ---- invalid tasks: one rule each --------------------------------------------------------- */

static void test_layout_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "A"), "layout", "column_major");
    load_bad(root, "bad_layout", "tensors[0].layout", "unsupported layout 'column_major'",
             "accepted: row_major (dims in storage order, the last contiguous) or col_major");
    root = load_json(MHA, "mha_small");
    set_str(tensor(root, "Q"), "layout", "col_major");
    load_bad(root, "col_major_attention", "tensors[0].layout", "unsupported layout 'col_major'",
             "col_major is for gemm tasks only");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_dims(root, "A", 1, "M");
    set_str(tensor(root, "A"), "layout", "col_major");
    load_bad(root, "col_major_1d", "tensors[0].layout", "swaps the last two dims",
             "tensor 'A' has 1");
}

static void test_dims_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_nn_fp32");
    set_dims(root, "A", 2, "M", "N");
    load_bad(root, "a_dims", "tensors[0].dims", "operation gemm expects symbols M, N, K",
             "tensor 'A' has dims [M, N], expected [M,K] or [K,M]");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_dims(root, "B", 2, "K", "K");
    load_bad(root, "b_dims", "tensors[1].dims", "tensor 'B' has dims [K, K]", NULL);
    root = load_json(GEMM, "gemm_nn_fp32");
    set_dims(root, "C", 3, "M", "N", "K");
    load_bad(root, "c_three_dims", "tensors[2].dims", "tensor 'C' has dims [M, N, K]", NULL);
    /* the message shows a col_major tensor as written and as stored */
    root = load_json(GEMM, "gemm_col_major");
    set_dims(root, "B", 2, "M", "N");
    load_bad(root, "col_major_dims", "tensors[1].dims",
             "tensor 'B' has dims [M, N] (col_major; stored [N, M])", "[K,N] or [N,K]");
    /* symbols M, N, K are required */
    root = load_json(GEMM, "gemm_nn_fp32");
    json_array_set_new(json_object_get(root, "symbols"), 2, json_string("L"));
    set_dims(root, "A", 2, "M", "L");
    set_dims(root, "B", 2, "L", "N");
    set_str(root, "flops", "2*M*N*L");
    json_t *w;
    size_t i;
    json_array_foreach(json_object_get(root, "workloads"), i, w) {
        json_t *s = json_object_get(w, "symbols");
        json_object_set(s, "L", json_object_get(s, "K"));
        json_object_del(s, "K");
    }
    load_bad(root, "no_symbol_k", "symbols", "operation gemm expects", "no symbol 'K'");
}

static void test_batch_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_batched_beta");
    set_dims(root, "A", 3, "M", "batch", "K");
    load_bad(root, "batch_inner", "tensors[0].dims[1]", "optionally batch, then the outermost",
             "tensor 'A' has dims [M, batch, K]: batch must be its outermost dim");
    root = load_json(GEMM, "gemm_batched_beta");
    set_dims(root, "D", 3, "M", "N", "batch");
    load_bad(root, "batch_last", "tensors[3].dims[2]", "batch must be its outermost dim", NULL);
    /* col_major: the index is the one written */
    root = load_json(GEMM, "gemm_batched_beta");
    set_dims(root, "A", 3, "M", "K", "batch");
    set_str(tensor(root, "A"), "layout", "col_major");
    load_bad(root, "batch_col_major", "tensors[0].dims[2]", "batch must be its outermost dim",
             "(col_major; stored [M, batch, K])");
    root = load_json(GEMM, "gemm_batched_beta");
    set_dims(root, "B", 2, "N", "K");
    load_bad(root, "batch_missing", "tensors[1].dims", "tensor 'B' has dims [N, K]",
             "without the batch dim first");
}

/* Remove tensor `name` from root's tensors. */
static void drop_tensor(json_t *root, const char *name)
{
    json_t *arr = json_object_get(root, "tensors");
    size_t i;
    json_t *ts;
    json_array_foreach(arr, i, ts)
        if (strcmp(json_string_value(json_object_get(ts, "name")), name) == 0) {
            json_array_remove(arr, i);
            return;
        }
    fail_msg("no tensor %s", name);
}

/* Workload 0 of root := M, N, K. */
static void set_workload0(json_t *root, json_int_t M, json_int_t N, json_int_t K)
{
    json_t *w = json_array_get(json_object_get(root, "workloads"), 0);
    json_object_set_new(w, "symbols", json_pack("{s:I, s:I, s:I}", "M", M, "N", N, "K", K));
}

/* The shipped fp8 task: the scales are found, the problem is TN with per-tensor scaling, and
 * cuBLASLt's form has its A = our B with op T and its B = our A with op N (the fp8 layout). */
static void test_fp8_problem(void **state)
{
    (void)state;
    pg_task *t = load_ok(load_json(SHIPPED, "gemm_e4m3_tn"), "fp8_shipped");
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    assert_int_equal(g.scale_a, pg_task_find_tensor(t, "scale_A"));
    assert_int_equal(g.scale_b, pg_task_find_tensor(t, "scale_B"));
    assert_true(g.scale_a >= 0 && g.scale_b >= 0);
    uint64_t n = 0;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_task_tensor_elements(t, g.scale_a, &t->workloads[0], &n, &d), PG_OK);
    assert_int_equal(n, 1); /* dims []: one element */
    pg_gemm_problem p;
    assert_int_equal(pg_gemm_problem_of(t, &t->workloads[0], &p, &d), PG_OK);
    assert_int_equal(p.scale.mode, PG_GEMM_SCALE_TENSOR);
    assert_int_equal(p.scale.a, g.scale_a);
    assert_int_equal(p.scale.b, g.scale_b);
    assert_int_equal(p.a.dtype, PG_DTYPE_E4M3);
    assert_int_equal(p.d.dtype, PG_DTYPE_BF16);
    pg_gemm_blas bl;
    assert_int_equal(pg_gemm_blas_of(&p, &bl, &d), PG_OK);
    assert_true(bl.swapped && bl.trans_a && !bl.trans_b);
    assert_int_equal(bl.a.dtype, PG_DTYPE_E4M3);
    pg_task_free(t);
    /* without scales: no scaling */
    json_t *root = load_json(SHIPPED, "gemm_e4m3_tn");
    drop_tensor(root, "scale_A");
    drop_tensor(root, "scale_B");
    t = load_ok(root, "fp8_unscaled");
    assert_int_equal(pg_gemm_problem_of(t, &t->workloads[0], &p, &d), PG_OK);
    assert_int_equal(p.scale.mode, PG_GEMM_SCALE_NONE);
    assert_int_equal(p.scale.a, -1);
    pg_task_free(t);
    /* e4m3 x e5m2 is accepted */
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_str(tensor(root, "B"), "dtype", "e5m2");
    pg_task_free(load_ok(root, "fp8_mixed"));
}

static void test_fp8_errors(void **state)
{
    (void)state;
    json_t *root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_str(tensor(root, "A"), "dtype", "e5m2");
    set_str(tensor(root, "B"), "dtype", "e5m2");
    load_bad(root, "fp8_e5m2_e5m2", "tensors[1].dtype", "both e5m2", "cuBLASLt");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_dims(root, "B", 2, "K", "N");
    load_bad(root, "fp8_b_n_contiguous", "tensors[1].dims", "tensor 'B' is e4m3 with dims [K, N]",
             "K contiguous");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_str(tensor(root, "B"), "dtype", "bf16");
    load_bad(root, "fp8_with_bf16", "tensors[1].dtype", "tensor 'B' is bf16, tensor 'A' e4m3",
             "unless both are fp8");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    drop_tensor(root, "scale_B");
    load_bad(root, "fp8_one_scale", "tensors", "tensor 'scale_A' without 'scale_B'",
             "both per-tensor scales or neither");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_dims(root, "scale_A", 1, "M");
    load_bad(root, "fp8_scale_dims", "tensors[2]", "tensor 'scale_A' is an input fp32 with dims [M]",
             "per-tensor scales (both dims [])");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_str(tensor(root, "scale_B"), "dtype", "bf16");
    load_bad(root, "fp8_scale_dtype", "tensors[3]", "tensor 'scale_B' is an input bf16", NULL);
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_str(tensor(root, "C"), "dtype", "e4m3");
    json_object_set_new(json_object_get(root, "tolerances"), "e4m3",
                        json_pack("{s:f, s:f, s:f}", "atol", 0.1, "rtol", 0.1, "max_rel_l2", 0.1));
    load_bad(root, "fp8_output", "tensors[4].dtype", "tensor 'C' is e4m3",
             "C and the output: fp32, bf16 or fp16");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    json_object_set_new(json_object_get(root, "tolerances"), "e4m3",
                        json_pack("{s:f, s:f, s:f}", "atol", 0.1, "rtol", 0.1, "max_rel_l2", 0.1));
    load_bad(root, "tolerance_unused", "tolerances.e4m3", "no output tensor is e4m3",
             "would judge nothing");
    root = load_json(GEMM, "gemm_nn_fp32");
    json_array_append_new(json_object_get(root, "tensors"),
                          json_pack("{s:s, s:[], s:s, s:s, s:s}", "name", "scale_A", "dims",
                                    "dtype", "fp32", "layout", "row_major", "role", "input"));
    load_bad(root, "scale_without_fp8", "tensors[3].name", "tensor 'scale_A' scales an fp8",
             "fp32 and fp32");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_workload0(root, 256, 256, 1000);
    load_bad(root, "fp8_k_unaligned", "workloads[0].symbols.K", "K = 1000 is not a multiple of 16",
             "16-byte chunks");
    root = load_json(SHIPPED, "gemm_e4m3_tn");
    set_workload0(root, 256, 260, 1024);
    load_bad(root, "fp8_ld_unaligned", "workloads[0].symbols.N",
             "N = 260 makes a row of C (bf16, N contiguous) 520 bytes", "16-byte aligned");
}

/* derived_symbols: computed per workload, usable in dims and expressions, never bound. */
static void test_derived_symbols(void **state)
{
    (void)state;
    json_t *root = load_json(SHIPPED, "gemm_e4m3_tn");
    json_object_set_new(root, "derived_symbols",
                        json_pack("{s:s, s:s}", "KB", "ceil_div(K, 128)", "NB", "ceil_div(N, 128)"));
    pg_task *t = load_ok(json_deep_copy(root), "derived_ok");
    assert_int_equal(t->n_free_symbols, 3);
    assert_int_equal(t->n_symbols, 5);
    int w = pg_task_find_workload(t, "m257_n520_k1024");
    assert_true(w >= 0);
    assert_int_equal(t->workloads[w].values[pg_task_find_symbol(t, "KB")], 8);
    assert_int_equal(t->workloads[w].values[pg_task_find_symbol(t, "NB")], 5);
    assert_string_equal(t->derived[pg_task_find_symbol(t, "KB")], "ceil_div(K, 128)");
    assert_string_equal(t->derived[0], "");
    pg_task_free(t);

    json_t *v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "M", json_string("K"));
    load_bad(v, "derived_clash", "derived_symbols.M", "'M' is already a symbol", NULL);
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "X", json_string("KB * 2"));
    load_bad(v, "derived_of_derived", "derived_symbols.X", "unknown symbol",
             "not other derived symbols");
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "X", json_string("K - 2000"));
    load_bad(v, "derived_below_one", "workloads[3].symbols",
             "workload 'm257_n520_k1024': derived symbol X = K - 2000 is -976", "at least 1");
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(json_array_get(json_object_get(v, "workloads"), 0),
                                        "symbols"),
                        "KB", json_integer(40));
    load_bad(v, "derived_bound", "workloads[0].symbols.KB", "'KB' is a derived symbol",
             "bind only M, N, K");
    /* names a task may not give a symbol: the GPU's, dtypes, tensors' */
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "num_sms", json_string("K"));
    load_bad(v, "derived_device_symbol", "derived_symbols.num_sms",
             "'num_sms' is a device symbol, whose value comes from the GPU in use", NULL);
    v = json_deep_copy(root);
    json_array_append_new(json_object_get(v, "symbols"), json_string("l2_bytes"));
    load_bad(v, "symbol_device_symbol", "symbols[3]", "'l2_bytes' is a device symbol", NULL);
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "e4m3", json_string("K"));
    load_bad(v, "derived_dtype", "derived_symbols.e4m3", "'e4m3' is a dtype name", NULL);
    v = json_deep_copy(root);
    json_object_set_new(json_object_get(v, "derived_symbols"), "scale_A", json_string("K"));
    load_bad(v, "derived_tensor_name", "tensors[2].name",
             "tensor name 'scale_A' is also a symbol of the task", NULL);
    json_decref(root);
}

/* Block scales (tasks/gemm_e4m3_tn_block): the mode, and what the contract refuses. */
static void test_fp8_block(void **state)
{
    (void)state;
    pg_task *t = load_ok(load_json(SHIPPED, "gemm_e4m3_tn_block"), "block_shipped");
    pg_gemm_problem p;
    pg_diag d;
    pg_diag_clear(&d);
    int w = pg_task_find_workload(t, "m4096_n2112_k7168");
    assert_int_equal(pg_gemm_problem_of(t, &t->workloads[w], &p, &d), PG_OK);
    assert_int_equal(p.scale.mode, PG_GEMM_SCALE_BLOCK);
    assert_int_equal(pg_gemm_scale_blocks(p.K), 56);
    uint64_t n = 0;
    assert_int_equal(pg_task_tensor_elements(t, p.scale.a, &t->workloads[w], &n, &d), PG_OK);
    assert_int_equal(n, 56 * 4096); /* ceil(7168/128) x M */
    assert_int_equal(pg_task_tensor_elements(t, p.scale.b, &t->workloads[w], &n, &d), PG_OK);
    assert_int_equal(n, 17 * 56); /* ceil(2112/128) x ceil(7168/128) */
    pg_task_free(t);

    json_t *root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "scale_A", 2, "M", "KB");
    load_bad(root, "block_a_transposed", "tensors[2].dims", "tensor 'scale_A' has dims [M, KB]",
             "scale_A's contiguous dim must be M ([KB, M])");
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "scale_B", 2, "KB", "NB");
    load_bad(root, "block_b_transposed", "tensors[3].dims", "tensor 'scale_B' has dims [KB, NB]",
             "scale_B must be [NB, KB]");
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "scale_B", 2, "KB", "KB");
    load_bad(root, "block_b_kb_kb", "tensors[3].dims", "scale_B must be [NB, KB]", NULL);
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    json_object_set_new(root, "derived_symbols",
                        json_pack("{s:s, s:s}", "KB", "ceil_div(N, 128)", "NB", "ceil_div(K, 128)"));
    load_bad(root, "block_kb_nb_swapped", "derived_symbols.KB",
             "KB = ceil_div(N, 128) is the block count", "must equal ceil_div(K, 128)");
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "scale_A", 0);
    load_bad(root, "block_a_scalar", "tensors[3].dims",
             "scale_A is a per-tensor scale (dims []), so scale_B must be one too", NULL);
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    json_object_set_new(json_object_get(root, "derived_symbols"), "KB",
                        json_string("ceil_div(K, 64)"));
    load_bad(root, "block_wrong_kb", "derived_symbols.KB",
             "KB = ceil_div(K, 64) is the block count", "it is 21, not 11");
    /* free block-count symbols: their values are checked per workload */
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    json_object_del(root, "derived_symbols");
    json_array_append_new(json_object_get(root, "symbols"), json_string("KB"));
    json_array_append_new(json_object_get(root, "symbols"), json_string("NB"));
    size_t i;
    json_t *wl;
    json_array_foreach(json_object_get(root, "workloads"), i, wl) {
        json_t *sy = json_object_get(wl, "symbols");
        json_int_t N = json_integer_value(json_object_get(sy, "N"));
        json_int_t K = json_integer_value(json_object_get(sy, "K"));
        json_object_set_new(sy, "KB", json_integer(i == 1 ? 32 : (K + 127) / 128));
        json_object_set_new(sy, "NB", json_integer((N + 127) / 128));
    }
    load_bad(root, "block_free_kb", "tensors[2].dims[0]",
             "workload 'm4096_n2112_k7168': dim KB of scale_A is 32, expected ceil_div(K, 128) = 56",
             NULL);
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_workload0(root, 4098, 7168, 2048);
    load_bad(root, "block_m_unaligned", "workloads[0].symbols.M", "M = 4098",
             "multiples of 4 with block scales");
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "C", 2, "N", "M");
    load_bad(root, "block_col_major_out", "tensors[4].dims", "output is row-major [M, N]", NULL);
    root = load_json(SHIPPED, "gemm_e4m3_tn_block");
    set_dims(root, "scale_B", 0);
    load_bad(root, "block_mixed_ranks", "tensors[3].dims",
             "scale_A is a block scale, so scale_B must be one too", NULL);
}

static void test_dtype_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_col_major");
    set_str(tensor(root, "A"), "dtype", "e4m3");
    set_str(tensor(root, "B"), "dtype", "e4m3");
    load_bad(root, "fp8_inputs_col_major", "tensors[0].dims", "tensor 'A' is e4m3",
             "K is not its contiguous dim");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "C"), "dtype", "e5m2");
    json_object_set_new(json_object_get(root, "tolerances"), "e5m2",
                        json_deep_copy(json_object_get(json_object_get(root, "tolerances"),
                                                       "fp32")));
    load_bad(root, "fp8_output", "tensors[2].dtype", "tensor 'C' is e5m2", "fp32, bf16 or fp16");
    root = load_json(GEMM, "gemm_col_major");
    set_str(tensor(root, "B"), "dtype", "fp16");
    load_bad(root, "mixed_inputs", "tensors[1].dtype", "tensor 'B' is fp16, tensor 'A' bf16",
             "A and B share one dtype, unless both are fp8");
    root = load_json(GEMM, "gemm_batched_beta");
    set_str(tensor(root, "C"), "dtype", "fp32");
    load_bad(root, "c_dtype", "tensors[2].dtype", "tensor 'C' is fp32, the output D bf16",
             "C has the output's dtype");
}

static void test_role_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "C"), "name", "E");
    load_bad(root, "name_e", "tensors[2].name", "tensor 'E' is none of A, B, C, D", NULL);
    root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "A"), "role", "output");
    load_bad(root, "a_output", "tensors[0].role", "tensor 'A' must be an input", NULL);
    /* C and D both outputs */
    root = load_json(GEMM, "gemm_batched_beta");
    set_str(tensor(root, "C"), "role", "output");
    load_bad(root, "c_and_d_outputs", "tensors[2].role",
             "tensor 'C' must be an input when D is the output", NULL);
    /* an input C and no output */
    root = load_json(GEMM, "gemm_nn_fp32");
    set_str(tensor(root, "C"), "role", "input");
    load_bad(root, "no_output", "tensors", "expected at least one tensor with role \"output\"",
             NULL);
    root = load_json(GEMM, "gemm_nn_fp32");
    json_array_remove(json_object_get(root, "tensors"), 0);
    load_bad(root, "no_a", "tensors", "operation gemm expects", "no tensor 'A'");
}

static void test_beta_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_nn_fp32");
    set_params(root, "{\"beta\": 0.5}");
    load_bad(root, "beta_without_c", "parameters.beta", "parameters.beta is 0.5",
             "needs a tensor C with role input and the output D");
    root = load_json(GEMM, "gemm_batched_beta");
    json_object_del(root, "parameters");
    load_bad(root, "c_without_beta", "tensors[2].role", "tensor 'C' is an input",
             "parameters.beta is 0 (the default when absent)");
    root = load_json(GEMM, "gemm_batched_beta");
    set_params(root, "{\"alpha\": 2, \"beta\": 0}");
    load_bad(root, "c_with_beta_zero", "tensors[2].role", "C would never be read", NULL);
}

static void test_parameter_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_batched_beta");
    set_params(root, "{\"alpha\": 1, \"beta\": 1, \"gamma\": 2}");
    load_bad(root, "unknown_parameter", "parameters.gamma", "unknown field",
             "allowed here: alpha, beta");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_params(root, "{\"alpha\": \"two\"}");
    load_bad(root, "alpha_string", "parameters.alpha", "expected a number", "found a string");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_params(root, "{\"alpha\": 1e39}");
    load_bad(root, "alpha_huge", "parameters.alpha", "within the fp32 range", "1e+39");
    root = load_json(GEMM, "gemm_batched_beta");
    set_params(root, "{\"beta\": 1e-50}");
    load_bad(root, "beta_rounds_to_zero", "parameters.beta", "1e-50 rounds to 0 in fp32",
             "use 0, or a magnitude of at least 1.4013e-45");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_params(root, "[1, 0]");
    load_bad(root, "parameters_array", "parameters", "expected an object", "found an array");
    root = load_json(MHA, "mha_small");
    set_params(root, "{\"alpha\": 1}");
    load_bad(root, "parameters_attention", "parameters.alpha", "unknown field",
             "allowed here: softmax_scale, lse_base, lse_scores");
}

static void test_compute_errors(void **state)
{
    (void)state;
    json_t *root = load_json(GEMM, "gemm_col_major");
    set_compute(root, "tf32");
    load_bad(root, "tf32_bf16", "baseline.compute", "needs fp32 A and B",
             "A and B are bf16");
    root = load_json(GEMM, "gemm_nn_fp32");
    set_compute(root, "fp16");
    load_bad(root, "compute_fp16", "baseline.compute", "unsupported compute type 'fp16'",
             "accepted: fp32, or tf32 when A and B are fp32");
    root = load_json(MHA, "mha_small");
    set_compute(root, "tf32");
    load_bad(root, "tf32_attention", "baseline.compute", "unsupported compute type 'tf32'",
             "accepted: fp32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_storage_orders),  cmocka_unit_test(test_fixture_nn),
        cmocka_unit_test(test_col_major),       cmocka_unit_test(test_batched_beta),
        cmocka_unit_test(test_compute_tf32),    cmocka_unit_test(test_gemm_nt_alias),
        cmocka_unit_test(test_not_a_gemm),      cmocka_unit_test(test_layout_errors),
        cmocka_unit_test(test_dims_errors),     cmocka_unit_test(test_batch_errors),
        cmocka_unit_test(test_dtype_errors),    cmocka_unit_test(test_role_errors),
        cmocka_unit_test(test_beta_errors),     cmocka_unit_test(test_parameter_errors),
        cmocka_unit_test(test_compute_errors),  cmocka_unit_test(test_fp8_problem),
        cmocka_unit_test(test_fp8_errors),      cmocka_unit_test(test_derived_symbols),
        cmocka_unit_test(test_fp8_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
