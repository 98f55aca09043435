/* Unit tests of executed-instruction verdicts (gate/stats/instr_counts.h) on the shipped GH100
 * metric list with synthetic profiler values: a full wgmma+TMA GEMM, a ghost branch (wgmma never
 * runs), a token kernel (one wgmma per warpgroup, the rest on FFMA), mma.sync counted by
 * subtraction, and bad values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/metric_table.h"
#include "stats/instr_counts.h"

#define GH100 PG_SOURCE_DIR "/data/metrics/gh100.json"

#define GMMA "sm__sass_inst_executed_op_shared_gmma.sum"
#define HG_BF16 "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"
#define HG_FP16 "sm__ops_path_tensor_op_hgmma_src_fp16.sum"
#define HG_TF32 "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"
#define TMA_LD "smsp__sass_inst_executed_op_tma_ld.sum"
#define PIPE_HMMA "sm__inst_executed_pipe_tensor_op_hmma.sum"
#define PIPE_HFMA2 "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"
#define PIPE_GMMA "sm__inst_executed_pipe_tensor_op_gmma.sum"
#define HM_BF16 "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum"
#define HM_FP16 "sm__ops_path_tensor_op_hmma_src_fp16.sum"
#define HM_TF32 "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum"

static pg_metric_table *g_t;

static int setup(void **state)
{
    pg_diag d;
    return pg_metric_table_load(GH100, &g_t, &d) == PG_OK ? 0 : -1;
}

static int teardown(void **state)
{
    pg_metric_table_free(g_t);
    return 0;
}

static const char *const k_gemm_fams[] = {"HGMMA", "UTMALDG"};
static const char *const k_gemm_metrics[] = {GMMA, HG_BF16, HG_FP16, HG_TF32, TMA_LD};

/* Evaluate with the default minimum coverage; any error fails the test. */
static void eval_path(const char *const *fams, size_t nf, const char *path,
                      const char *const *metrics, const double *values, size_t nv,
                      double required, pg_instr_result *r)
{
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_instr_evaluate(g_t, fams, nf, path, metrics, values, nv, required,
                          PG_INSTR_DEFAULT_MIN_COVERAGE, r, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
}

/* Every path: the metric lists below hold all of a family's counters. */
static void eval(const char *const *fams, size_t nf, const char *const *metrics,
                 const double *values, size_t nv, double required, pg_instr_result *r)
{
    eval_path(fams, nf, NULL, metrics, values, nv, required, r);
}

static void test_full_gemm(void **state)
{
    const double M = 4096, N = 4096, K = 4096;
    /* One m64n128k16 wgmma per warpgroup = 64*128*16 multiply-adds, issued by 4 warps; the
     * math-op counter counts 2 per multiply-add (calibrated on the H200). */
    const double wgmmas = M * N * K / (64.0 * 128 * 16);
    double v[] = {wgmmas * 4, 2 * M * N * K, 0, 0, 8192};
    pg_instr_result r;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, 2 * M * N * K, &r);
    assert_int_equal(r.n_families, 2);
    assert_string_equal(r.families[0].family, "HGMMA");
    assert_true(r.families[0].count == wgmmas * 4);
    assert_true(r.families[0].has_math_ops);
    assert_true(r.families[0].flops == 2 * M * N * K);
    assert_int_equal(r.families[0].verdict, PG_INSTR_PASS);
    assert_string_equal(r.families[1].family, "UTMALDG");
    assert_true(r.families[1].count == 8192);
    assert_false(r.families[1].has_math_ops);
    assert_int_equal(r.families[1].verdict, PG_INSTR_PASS);
    assert_true(r.has_coverage);
    assert_true(r.coverage == 1.0);
    assert_true(r.tensor_flops == 2 * M * N * K);
    assert_int_equal(r.verdict, PG_INSTR_PASS);
    assert_string_equal(pg_instr_verdict_name(r.verdict), "pass");
}

static void test_padded_tiles_exceed_one(void **state)
{
    /* 257 x 513 x 1000 computed in 128x128 tiles: 384 x 640 x 1000 of work. */
    double v[] = {100, 2 * 384.0 * 640 * 1000, 0, 0, 10};
    pg_instr_result r;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, 2.0 * 257 * 513 * 1000, &r);
    assert_true(r.coverage > 1.8 && r.coverage < 1.9);
    assert_int_equal(r.verdict, PG_INSTR_PASS);
}

static void test_ghost_branch(void **state)
{
    /* wgmma present but guarded off; the work ran on FFMA. */
    double v[] = {0, 0, 0, 0, 8192};
    pg_instr_result r;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, 2.0 * 4096 * 4096 * 4096, &r);
    assert_int_equal(r.families[0].verdict, PG_INSTR_NEVER_EXECUTED);
    assert_int_equal(r.families[1].verdict, PG_INSTR_PASS);
    assert_true(r.coverage == 0);
    assert_int_equal(r.verdict, PG_INSTR_NEVER_EXECUTED);
    assert_string_equal(pg_instr_verdict_name(r.verdict), "never_executed");
}

static void test_token_kernel(void **state)
{
    /* One m64n16k16 wgmma per warpgroup of 2 CTAs, everything else on FFMA. */
    double v[] = {2 * 4, 2 * 2 * 64.0 * 16 * 16, 0, 0, 0};
    pg_instr_result r;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, 2.0 * 2048 * 2048 * 2048, &r);
    assert_int_equal(r.families[0].verdict, PG_INSTR_COVERAGE_TOO_LOW);
    assert_true(r.families[0].count == 8);
    assert_true(r.coverage < 1e-5);
    /* No TMA either: the first failing family decides the overall verdict. */
    assert_int_equal(r.families[1].verdict, PG_INSTR_NEVER_EXECUTED);
    assert_int_equal(r.verdict, PG_INSTR_COVERAGE_TOO_LOW);
    assert_string_equal(pg_instr_verdict_name(r.verdict), "coverage_too_low");
}

static void test_coverage_threshold(void **state)
{
    const double req = 1e9;
    double v[] = {4, 0.99 * req, 0, 0, 1};
    pg_instr_result r;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, req, &r);
    assert_int_equal(r.verdict, PG_INSTR_PASS); /* exactly 0.99 passes */
    v[1] = 0.9899 * req;
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, req, &r);
    assert_int_equal(r.verdict, PG_INSTR_COVERAGE_TOO_LOW);
    /* Without a path, fp16 and tf32 paths count too (one HGMMA family, three input types) ... */
    double w[] = {4, 0.5 * req, 0.25 * req, 0.25 * req, 1};
    eval(k_gemm_fams, 2, k_gemm_metrics, w, 5, req, &r);
    assert_true(fabs(r.coverage - 1.0) < 1e-12);
    /* ... with the task's path (bf16) only bf16 work covers the task. */
    eval_path(k_gemm_fams, 2, "bf16", k_gemm_metrics, w, 5, req, &r);
    assert_true(fabs(r.coverage - 0.5) < 1e-12);
    assert_int_equal(r.verdict, PG_INSTR_COVERAGE_TOO_LOW);
    /* The bf16 request alone carries no fp16/tf32 values: evaluation needs only its own. */
    const char *req_bf16[] = {GMMA, HG_BF16, TMA_LD};
    double x[] = {4, req, 1};
    eval_path(k_gemm_fams, 2, "bf16", req_bf16, x, 3, req, &r);
    assert_true(r.coverage == 1.0);
    assert_int_equal(r.verdict, PG_INSTR_PASS);
    /* A path the tensor family lacks reads 0 work: executed, but nothing covered. */
    eval_path(k_gemm_fams, 2, "int8", req_bf16, x, 3, req, &r);
    assert_true(r.families[0].math_ops == 0);
    assert_int_equal(r.families[0].verdict, PG_INSTR_COVERAGE_TOO_LOW);
    /* No required FLOPs: no coverage, executed families pass. */
    eval(k_gemm_fams, 2, k_gemm_metrics, v, 5, 0, &r);
    assert_false(r.has_coverage);
    assert_int_equal(r.verdict, PG_INSTR_PASS);
}

static void test_hmma_by_subtraction(void **state)
{
    const char *fams[] = {"HMMA", "LDSM"};
    const char *metrics[] = {PIPE_HMMA, PIPE_HFMA2, PIPE_GMMA, HM_BF16, HM_FP16, HM_TF32,
                             "smsp__inst_executed_op_ldsm_pred_on_any.sum"};
    /* 1000 HMMA + 24 HFMA2.MMA + 40 HGMMA (the pipe's hmma count holds all three). */
    double v[] = {1064, 24, 40, 2 * 1000 * 16 * 8 * 16.0, 0, 0, 500};
    pg_instr_result r;
    eval(fams, 2, metrics, v, 7, 2 * 1000 * 16 * 8 * 16.0, &r);
    assert_true(r.families[0].count == 1000);
    assert_true(r.coverage == 1.0);
    assert_true(r.families[1].count == 500);
    assert_int_equal(r.verdict, PG_INSTR_PASS);
    /* IGMMA in the range makes the difference negative: clamped at 0, and the math ops still
     * show that HMMA ran. */
    double w[] = {10, 0, 50, 2 * 10 * 2048.0, 0, 0, 1};
    eval(fams, 2, metrics, w, 7, 2 * 10 * 2048.0, &r);
    assert_true(r.families[0].count == 0);
    assert_int_equal(r.families[0].verdict, PG_INSTR_PASS);
}

static void test_shared_math_counted_once(void **state)
{
    /* HGMMA and QGMMA share the count metric; their math ops are distinct and add up. */
    const char *fams[] = {"HGMMA", "QGMMA"};
    const char *metrics[] = {GMMA, HG_BF16, HG_FP16, HG_TF32, "sm__ops_path_tensor_src_fp8.sum"};
    double v[] = {16, 300, 0, 0, 700};
    pg_instr_result r;
    eval(fams, 2, metrics, v, 5, 1000, &r);
    assert_true(r.families[0].count == 16 && r.families[1].count == 16);
    assert_true(r.families[0].flops == 300 && r.families[1].flops == 700);
    assert_true(r.tensor_flops == 1000);
    /* The same family twice counts its math ops once. */
    const char *twice[] = {"HGMMA", "HGMMA"};
    eval(twice, 2, metrics, v, 5, 300, &r);
    assert_true(r.tensor_flops == 300);
}

static void test_errors(void **state)
{
    pg_instr_result r;
    pg_diag d;
    pg_diag_clear(&d);
    double v[] = {4, NAN, 0, 0, 1};
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 2, NULL, k_gemm_metrics, v, 5, 1, 0.99, &r, &d),
                     PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "CUPTI returned nan for metric " HG_BF16));
    v[1] = -1;
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 2, NULL, k_gemm_metrics, v, 5, 1, 0.99, &r, &d),
                     PG_ERR_INFRA);
    v[1] = 0;
    /* A value the family needs is missing (TMA's metric left out). */
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 2, NULL, k_gemm_metrics, v, 4, 1, 0.99, &r, &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "no value for metric " TMA_LD));
    const char *unknown[] = {"HGMMA", "UTCHMMA"};
    assert_int_equal(pg_instr_evaluate(g_t, unknown, 2, NULL, k_gemm_metrics, v, 5, 1, 0.99, &r, &d),
                     PG_ERR_INPUT);
    assert_string_equal(d.field, "families[1]");
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 2, NULL, k_gemm_metrics, v, 5, 1, 0, &r, &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 2, NULL, k_gemm_metrics, v, 5, 1, 1.5, &r, &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_instr_evaluate(g_t, k_gemm_fams, 0, NULL, k_gemm_metrics, v, 5, 1, 0.99, &r, &d),
                     PG_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_gemm),           cmocka_unit_test(test_padded_tiles_exceed_one),
        cmocka_unit_test(test_ghost_branch),        cmocka_unit_test(test_token_kernel),
        cmocka_unit_test(test_coverage_threshold),  cmocka_unit_test(test_hmma_by_subtraction),
        cmocka_unit_test(test_shared_math_counted_once), cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
