/* Unit tests of task loading and validation (gate/model/task.h). Fixtures: tests/data/model/tasks
 * (valid tasks) and tests/data/model/bad_tasks/<case>/task.json (one defect each). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/task.h"
#include "model/task_ops.h"

#define TASKS PG_TEST_DATA "/model/tasks"
#define BAD PG_TEST_DATA "/model/bad_tasks"
#define SHIPPED PG_SOURCE_DIR "/tasks"
#define MHA PG_TEST_DATA "/model/mha_tasks"

/* Load bad_tasks/<name>/task.json: must fail naming that file, field and message parts. */
static void expect_bad(const char *name, const char *field, const char *msg1, const char *msg2)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/task.json", BAD, name);
    pg_task *t = (pg_task *)1;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_task_load_file(path, &t, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("%s: expected PG_ERR_INPUT, got %d", name, (int)st);
    assert_null(t);
    assert_int_equal(d.status, PG_ERR_INPUT);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", name, d.field, field, d.message);
    if (msg1 && !strstr(d.message, msg1))
        fail_msg("%s: message '%s' lacks '%s'", name, d.message, msg1);
    if (msg2 && !strstr(d.message, msg2))
        fail_msg("%s: message '%s' lacks '%s'", name, d.message, msg2);
}

static void check_shipped(const char *id, pg_dtype dt, double rtol)
{
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_task_load(SHIPPED, id, &t, &d) != PG_OK)
        fail_msg("%s: %s", id, pg_diag_format(&d, buf, sizeof buf));
    assert_string_equal(t->id, id);
    assert_string_equal(t->operation, "gemm_nt");
    assert_int_equal(t->n_symbols, 3);
    assert_string_equal(t->symbols[0], "M");
    assert_string_equal(t->symbols[1], "N");
    assert_string_equal(t->symbols[2], "K");
    assert_int_equal(t->n_tensors, 3);
    int a = pg_task_find_tensor(t, "A"), b = pg_task_find_tensor(t, "B"),
        c = pg_task_find_tensor(t, "C");
    assert_true(a >= 0 && b >= 0 && c >= 0);
    assert_false(t->tensors[a].is_output);
    assert_false(t->tensors[b].is_output);
    assert_true(t->tensors[c].is_output);
    assert_int_equal(t->tensors[a].dtype, dt);
    assert_int_equal(t->tensors[c].dtype, dt);
    assert_string_equal(t->tensors[b].dims[0], "N");
    assert_string_equal(t->tensors[b].dims[1], "K");
    assert_string_equal(t->flops, "2*M*N*K");
    assert_int_equal(t->n_workloads, 5);
    int w = pg_task_find_workload(t, "gemm_n7168_k5120");
    assert_int_equal(w, pg_task_find_workload(t, "m8192_n7168_k5120"));
    assert_true(w >= 0);
    assert_int_equal(t->workloads[w].values[0], 8192);
    assert_int_equal(t->workloads[w].values[1], 7168);
    assert_int_equal(t->workloads[w].values[2], 5120);
    int r = pg_task_find_workload(t, "m257_n513_k1000");
    assert_true(r >= 0);
    assert_int_equal(t->workloads[r].values[2] % 8, 0);
    assert_true(pg_task_find_workload(t, "m4000_n3000_k4000") >= 0);
    assert_true(pg_task_find_workload(t, "m4096_n4096_k4096") >= 0);
    assert_true(pg_task_find_workload(t, "m2048_n2048_k2048") >= 0);
    const pg_tolerance *tol = pg_task_tolerance(t, dt);
    assert_non_null(tol);
    assert_true(tol->atol == 0.01);
    assert_true(tol->rtol == rtol);
    assert_true(tol->max_rel_l2 == rtol);
    assert_non_null(json_object_get(json_object_get(t->targets, "sm_90a"), "ptx"));
    assert_non_null(json_object_get(t->targets, "sm_100a"));
    assert_string_equal(t->baseline_library, "cublaslt");
    assert_string_equal(t->baseline_compute, "fp32");
    assert_int_equal(t->baseline_max_candidates, 16);
    assert_true(t->min_speedup == 0.2);
    assert_false(t->nondeterminism_fails); /* default: warn */
    assert_true(t->sanitizer_fails);       /* default: fail */
    assert_string_equal(t->default_arch, "sm_90a");
    assert_true(strlen(t->description) > 0);
    uint64_t n;
    assert_int_equal(pg_task_tensor_elements(t, a, &t->workloads[w], &n, &d), PG_OK);
    assert_int_equal(n, 8192ull * 5120ull);
    pg_task_free(t);
}

static void test_shipped_tasks(void **state)
{
    (void)state;
    check_shipped("gemm_bf16_nt", PG_DTYPE_BF16, 0.01);
    check_shipped("gemm_fp16_nt", PG_DTYPE_FP16, 0.005);
}

static void test_fixture_task(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    assert_string_equal(t->file, TASKS "/gemm_small/task.json");
    assert_string_equal(t->description, "Small GEMM task for the unit tests");
    assert_int_equal(t->n_workloads, 3);
    assert_int_equal(pg_task_find_workload(t, "tiny"), 0);
    assert_int_equal(pg_task_find_workload(t, "t"), 0);
    assert_int_equal(pg_task_find_workload(t, "smallest"), 0);
    assert_int_equal(pg_task_find_workload(t, "ragged"), 1);
    assert_int_equal(pg_task_find_workload(t, "nope"), -1);
    assert_int_equal(pg_task_find_tensor(t, "D"), -1);
    assert_int_equal(pg_task_find_symbol(t, "K"), 2);
    assert_int_equal(t->workloads[0].n_aliases, 2);
    /* symbol values follow the order of "symbols", not of the JSON object */
    assert_int_equal(t->workloads[2].values[0], 65536);
    assert_int_equal(t->workloads[2].values[2], 8);
    assert_null(pg_task_tolerance(t, PG_DTYPE_FP16));
    assert_int_equal(t->n_tolerances, 1);
    assert_true(t->min_speedup == 0.5);
    assert_string_equal(t->instructions, "require"); /* the default */
    assert_true(t->nondeterminism_fails);
    assert_false(t->sanitizer_fails);

    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    pg_task_symtab(t, &t->workloads[1], names, &syms);
    assert_int_equal(syms.count, 3);
    int64_t v;
    char err[256];
    assert_int_equal(pg_expr_eval(t->flops, &syms, &v, err, sizeof err), PG_OK);
    assert_int_equal(v, 2LL * 257 * 513 * 1000);

    uint64_t n;
    assert_int_equal(pg_task_tensor_elements(t, 2, &t->workloads[1], &n, &d), PG_OK);
    assert_int_equal(n, 257ull * 513ull);
    assert_int_equal(pg_task_tensor_elements(t, 7, &t->workloads[1], &n, &d), PG_ERR_INPUT);

    /* overflow of the element count */
    pg_workload big = t->workloads[0];
    big.values[0] = INT64_MAX;
    big.values[1] = 4;
    assert_int_equal(pg_task_tensor_elements(t, 2, &big, &n, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, t->file);
    assert_string_equal(d.field, "tensors[2].dims");
    assert_non_null(strstr(d.message, "overflows 64 bits"));
    pg_task_free(t);

    /* the optional fields: no description, max_candidates and the instructions policy given */
    assert_int_equal(pg_task_load(TASKS, "gemm_other", &t, &d), PG_OK);
    assert_string_equal(t->description, "");
    assert_int_equal(t->baseline_max_candidates, 4);
    assert_string_equal(t->instructions, "warn");
    pg_task_free(t);
}

static void test_unknown_task(void **state)
{
    (void)state;
    pg_task *t = (pg_task *)1;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_big", &t, &d), PG_ERR_INPUT);
    assert_null(t);
    assert_string_equal(d.field, "task");
    assert_string_equal(d.file, "");
    /* sorted; not_a_task (no task.json) is not listed */
    assert_string_equal(d.message, "unknown task 'gemm_big' (known: gemm_other, gemm_small)");

    assert_int_equal(pg_task_load(TASKS, "../tasks/gemm_small", &t, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "unknown task '../tasks/gemm_small'"));
    assert_int_equal(pg_task_load(TASKS, "not_a_task", &t, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "(known: gemm_other, gemm_small)"));

    assert_int_equal(pg_task_load(SHIPPED, "gemm", &t, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "known: gemm_bf16_nn_beta, gemm_bf16_nt, gemm_bf16_nt_batched, gemm_e4m3_tn, gemm_e4m3_tn_block, "
                                          "gemm_fp16_nt, gemm_fp32_nn, gemm_tf32_tn, mha_bwd_d128"));

    assert_int_equal(pg_task_load(PG_TEST_DATA "/model/no_such_dir", "x", &t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "task");
    assert_non_null(strstr(d.message, "cannot be read"));
}

static void test_missing_file(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    const char *path = BAD "/absent/task.json";
    assert_int_equal(pg_task_load_file(path, &t, &d), PG_ERR_INPUT);
    assert_null(t);
    assert_string_equal(d.file, path);
    assert_true(strlen(d.message) > 0);
}

static void test_malformed(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    const char *path = BAD "/malformed/task.json";
    assert_int_equal(pg_task_load_file(path, &t, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path);
    assert_int_equal(d.line, 4);
    assert_non_null(strstr(d.message, "malformed JSON at line 4"));
}

static void test_shape_errors(void **state)
{
    (void)state;
    expect_bad("unknown_key", "workload", "unknown field", "workloads");
    expect_bad("bad_required", "workloads[0].required", "expected true or false", "string");
    expect_bad("unknown_tensor_key", "tensors[1].shape", "unknown field", "layout");
    expect_bad("wrong_type", "symbols", "expected an array", "found a string");
    expect_bad("unknown_dtype", "tensors[2].dtype", "unknown dtype 'bf17'",
               "bf16, fp16, fp32, e4m3, e5m2");
    expect_bad("bad_role", "tensors[2].role", "unknown role 'inout'", "input, output");
    expect_bad("bad_arch", "default_arch", "sm_90a", "found 'sm90a'");
    expect_bad("bad_operation", "operation", "unsupported operation 'gemm_tn'",
               "accepted: gemm, gemm_nt (the same operation), mha_fwd, mha_bwd");
    expect_bad("bad_min_speedup", "gate.min_speedup", "expected a positive number", NULL);
    expect_bad("bad_instructions_policy", "gate.instructions", "unknown policy 'skip'",
               "require, warn, off");
    expect_bad("bad_policy", "gate.nondeterminism", "expected \"fail\" or \"warn\"",
               "found \"sometimes\"");
    expect_bad("max_candidates", "baseline.max_candidates", "from 1 to 64", "found 65");
    expect_bad("target_shape", "targets.sm_90a.ptx", "required field is missing", NULL);
    expect_bad("id_mismatch", "id", "'something_else'", "folder ('id_mismatch')");
}

static void test_semantic_errors(void **state)
{
    (void)state;
    expect_bad("dim_unknown_symbol", "tensors[0].dims[1]", "unknown symbol 'Q'", "M, N, K");
    expect_bad("duplicate_symbol", "symbols[3]", "duplicate symbol 'N'", "symbols[1]");
    expect_bad("function_symbol", "symbols[3]",
               "'max_active_clusters' is a function of the expression language",
               "choose another symbol name");
    /* gemm_nt is the old name of gemm: the same contract, named as written */
    expect_bad("gemm_shape", "tensors[1].dims", "operation gemm_nt expects",
               "tensor 'B' has dims [M, K], expected [K,N] or [N,K]");
    expect_bad("workload_missing_symbol", "workloads[1].symbols.K", "symbol 'K' is not bound",
               "M, N, K");
    expect_bad("workload_extra_symbol", "workloads[0].symbols.L", "unknown symbol", "M, N, K");
    expect_bad("workload_nonpositive", "workloads[2].symbols.N", "expected a positive integer",
               "found 0");
    expect_bad("duplicate_workload", "workloads[2].name", "duplicate workload name 'tiny'",
               "workloads[0].name");
    expect_bad("duplicate_alias", "workloads[1].aliases[0]", "duplicate workload name 'smallest'",
               "workloads[0].aliases[1]");
    expect_bad("self_alias", "workloads[1].aliases[0]", "duplicate workload name 'ragged'",
               "workloads[1].name");
    expect_bad("no_tolerance", "tolerances", "no tolerance for dtype 'bf16'",
               "output tensor 'C'");
    expect_bad("bad_flops", "flops", "unknown symbol 'Q'", "known: M, N, K");
}


static int64_t eval(const pg_task *t, const char *expr, int wi)
{
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    int64_t v = -1;
    char err[256];
    pg_task_symtab(t, &t->workloads[wi], names, &syms);
    if (pg_expr_eval(expr, &syms, &v, err, sizeof err) != PG_OK)
        fail_msg("%s: %s", expr, err);
    return v;
}

/* The four attention tasks: contract, PTXBench workload and alias, FLOPs, tolerances. */
static void check_shipped_mha(const char *id, bool bwd, bool causal, const char *alias)
{
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_task_load(SHIPPED, id, &t, &d) != PG_OK)
        fail_msg("%s: %s", id, pg_diag_format(&d, buf, sizeof buf));
    assert_int_equal(t->op, bwd ? PG_OP_MHA_BWD : PG_OP_MHA_FWD);
    assert_true(t->causal == causal);
    assert_string_equal(t->baseline_library, "cudnn");
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    assert_true(m.q >= 0 && m.k >= 0 && m.v >= 0 && m.o >= 0 && m.lse >= 0);
    assert_int_equal(t->tensors[m.lse].dtype, PG_DTYPE_FP32);
    assert_int_equal(t->tensors[m.lse].ndims, 3);
    assert_int_equal(t->tensors[m.q].dtype, PG_DTYPE_BF16);
    assert_true(t->tensors[m.o].is_output == !bwd);
    assert_true(t->tensors[m.lse].is_output == !bwd);
    if (bwd)
        assert_true(m.d_o >= 0 && m.dq >= 0 && m.dk >= 0 && m.dv >= 0);
    else
        assert_true(m.d_o < 0 && m.dq < 0);
    int w = pg_task_find_workload(t, alias);
    assert_int_equal(w, pg_task_find_workload(t, "b4_h48_s4096_d128"));
    assert_true(w >= 0);
    /* 4·B·H·S²·D forward, half of it causal, 2.5 times that backward */
    int64_t fwd = 4LL * 4 * 48 * 4096 * 4096 * 128;
    int64_t want = bwd ? fwd * 5 / 2 : fwd;
    assert_int_equal(eval(t, t->flops, w), causal ? want / 2 : want);
    int64_t cov = eval(t, t->coverage_flops, w);
    assert_true(causal ? cov > want / 2 && cov < want / 2 + want / 4000 : cov == want);
    /* every workload: D a multiple of 8; one D = 64 workload and one ragged S */
    bool d64 = false, ragged = false;
    for (int i = 0; i < t->n_workloads; i++) {
        int64_t D = t->workloads[i].values[pg_task_find_symbol(t, "D")];
        int64_t S = t->workloads[i].values[pg_task_find_symbol(t, "S")];
        assert_int_equal(D % 8, 0);
        d64 |= D == 64;
        ragged |= S % 64 != 0;
    }
    assert_true(d64 && ragged);
    /* per-output tolerances: gradients looser than O */
    if (bwd) {
        const pg_tolerance *a = pg_task_output_tolerance(t, m.dq);
        assert_non_null(a);
        assert_true(a->rtol >= 0.02 - 1e-12);
        assert_non_null(pg_task_output_tolerance(t, m.dk));
        assert_non_null(pg_task_output_tolerance(t, m.dv));
    } else {
        const pg_tolerance *o = pg_task_output_tolerance(t, m.o);
        const pg_tolerance *l = pg_task_output_tolerance(t, m.lse);
        assert_non_null(o);
        assert_non_null(l);
        assert_true(o->rtol == 0.01);
        assert_true(l->max_rel_l2 < o->max_rel_l2);
    }
    assert_null(pg_task_output_tolerance(t, m.q)); /* inputs have none */
    pg_task_free(t);
}

static void test_shipped_attention(void **state)
{
    (void)state;
    check_shipped_mha("mha_fwd_d128", false, false, "mha_with_lse_d128");
    check_shipped_mha("mha_fwd_d128_causal", false, true, "mha_with_lse_d128_causal");
    check_shipped_mha("mha_bwd_d128", true, false, "mha_bwd_d128");
    check_shipped_mha("mha_bwd_d128_causal", true, true, "mha_bwd_d128_causal");
}

static void test_attention_fixtures(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(MHA, "mha_small", &t, &d), PG_OK);
    assert_true(t->causal);
    assert_string_equal(t->operation, "mha_fwd");
    assert_string_equal(pg_operation_name(t->op), "mha_fwd");
    pg_task_free(t);
    /* a dtype key covers dQ and dK; dV has its own, which wins */
    assert_int_equal(pg_task_load(MHA, "mha_bwd_small", &t, &d), PG_OK);
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    assert_true(pg_task_output_tolerance(t, m.dq)->atol == 0.01);
    assert_true(pg_task_output_tolerance(t, m.dk)->rtol == 0.02);
    assert_true(pg_task_output_tolerance(t, m.dv)->atol == 0.5);
    assert_true(pg_task_tolerance(t, PG_DTYPE_BF16)->atol == 0.01);
    assert_false(t->causal);
    assert_string_equal(t->coverage_flops, "10*B*H*S*S*D");
    pg_task_free(t);
    /* gemm tasks: no causal, no coverage_flops, output tolerance by dtype */
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    assert_false(t->causal);
    assert_string_equal(t->coverage_flops, "");
    assert_int_equal(t->op, PG_OP_GEMM_NT);
    assert_true(pg_task_output_tolerance(t, pg_task_find_tensor(t, "C")) ==
                pg_task_tolerance(t, PG_DTYPE_BF16));
    pg_task_free(t);
}

static void test_operation_names(void **state)
{
    (void)state;
    pg_operation op;
    assert_true(pg_operation_parse("mha_bwd", &op));
    assert_int_equal(op, PG_OP_MHA_BWD);
    assert_false(pg_operation_parse("mha", &op));
    assert_string_equal(pg_operation_baseline(PG_OP_GEMM_NT), "cublaslt");
    assert_string_equal(pg_operation_baseline(PG_OP_MHA_FWD), "cudnn");
    assert_true(pg_operation_is_attention(PG_OP_MHA_BWD));
    assert_false(pg_operation_is_attention(PG_OP_GEMM_NT));
}

static void test_attention_errors(void **state)
{
    (void)state;
    expect_bad("mha_no_lse", "parameters.lse_base", "an LSE convention needs an LSE tensor",
               NULL);
    expect_bad("mha_lse_dtype", "tensors[4]", "LSE [B,H,S]", "tensor 'LSE' is bf16");
    expect_bad("mha_gqa_not_divisible", "workloads[0].symbols.H_kv", "H = 8",
               "not a multiple of H_kv = 3");
    expect_bad("mha_causal_sq_gt_skv", "workloads[0].symbols.S_q", "S_q = 400 > S_kv = 300",
               "supported: S_q <= S_kv");
    expect_bad("mha_s_and_sq", "symbols", "symbol S (one length for queries and keys) and S_q",
               "cannot both be declared");
    expect_bad("mha_bad_layout", "tensors[0]", "tensor 'Q' has dims [B,D,S,H], expected "
               "[B,H,S,D] or [B,S,H,D]", "each also accepted in BSHD order");
    expect_bad("mha_bad_lse_base", "parameters.lse_base", "unsupported value '10'",
               "accepted: \"e\" (default), \"2\"");
    expect_bad("mha_bad_softmax_scale", "parameters.softmax_scale", "finite number > 0",
               "found -1");
    expect_bad("mha_unexpected_tensor", "tensors[5]", "unexpected tensor 'P'", NULL);
    expect_bad("mha_k_heads_wrong", "tensors[1]",
               "tensor 'K' has dims [B,H,S_kv,D], expected [B,H_kv,S_kv,D] or [B,S_kv,H_kv,D]",
               NULL);
    expect_bad("mha_misspelt_symbol", "symbols", "unknown symbol 'h_kv' for mha_fwd",
               "accepted B, H, H_kv, S, S_q, S_kv, D, D_v");
    expect_bad("mha_scale_denormal", "parameters.softmax_scale", "from 1e-09 to 1e+09",
               "found 1e-45");
    expect_bad("mha_scores_too_large", "workloads[0].symbols.S_q", "S_q = 262144",
               "S_q·S_kv <= 2^28");
    expect_bad("mha_output_as_input", "tensors[3]", "tensor 'O' has role \"input\"",
               "mha_fwd writes it (role \"output\")");
    expect_bad("mha_derived_dv_unaligned", "derived_symbols.D_v", "D_v = 68",
               "not a multiple of 8");
    expect_bad("mha_tensor_too_large", "tensors[0].dims", "more than 2^40 bytes", NULL);
    expect_bad("mha_optional_not_bool", "baseline.optional", "expected true or false", NULL);
    expect_bad("mha_mixed_dtype", "tensors[2]", "one dtype", "tensor 'V' is fp16");
    expect_bad("mha_d_not_multiple_of_8", "workloads[3].symbols.D", "D = 100",
               "not a multiple of 8");
    expect_bad("mha_wrong_library", "baseline.library", "'cublaslt' for operation mha_fwd",
               "accepted: cudnn");
    expect_bad("tolerance_input_key", "tolerances.Q", "tensor 'Q' is an input", NULL);
    expect_bad("tolerance_unknown_key", "tolerances.P", "unknown key 'P'", "(O, LSE)");
    expect_bad("tolerance_missing_output", "tolerances", "output tensor 'LSE'", "fp32");
    expect_bad("bad_coverage_flops", "coverage_flops", "unknown symbol 'E'", NULL);
    expect_bad("causal_not_bool", "causal", "expected true or false", "found a string");
    expect_bad("causal_on_gemm", "causal", "attention operations", "gemm_nt");
    expect_bad("tensor_named_dtype", "tensors[2].name", "'fp32' is a dtype name", NULL);
}

static void test_arch_names(void **state)
{
    (void)state;
    assert_true(pg_arch_name_valid("sm_90"));
    assert_true(pg_arch_name_valid("sm_90a"));
    assert_true(pg_arch_name_valid("sm_100a"));
    assert_false(pg_arch_name_valid("sm_9"));
    assert_false(pg_arch_name_valid("sm_90b"));
    assert_false(pg_arch_name_valid("sm_1000"));
    assert_false(pg_arch_name_valid("sm_09"));
    assert_false(pg_arch_name_valid("compute_90a"));
    assert_false(pg_arch_name_valid(""));
}

/* The PTXBench headline workloads of the shipped tasks are required; the others are not. */
static void test_required_workloads(void **state)
{
    (void)state;
    static const char *const ids[] = {"gemm_bf16_nt", "mha_fwd_d128", "mha_fwd_d128_causal",
                                      "mha_bwd_d128", "mha_bwd_d128_causal"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        pg_task *t = NULL;
        pg_diag d;
        assert_int_equal(pg_task_load(SHIPPED, ids[k], &t, &d), PG_OK);
        int n_required = 0;
        for (int i = 0; i < t->n_workloads; i++) {
            bool headline = false;
            for (int s = 0; s < t->workloads[i].n_selections; s++)
                headline |= strcmp(t->workloads[i].selections[s], "ptxbench") == 0;
            if (t->workloads[i].required != headline)
                fail_msg("%s: workload %s required %d, ptxbench %d", ids[k],
                         t->workloads[i].name, t->workloads[i].required, headline);
            n_required += t->workloads[i].required;
        }
        assert_int_equal(n_required, 1);
        pg_task_free(t);
    }
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    assert_false(t->workloads[0].required); /* absent: false */
    pg_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_tasks),   cmocka_unit_test(test_fixture_task),
        cmocka_unit_test(test_required_workloads),
        cmocka_unit_test(test_unknown_task),    cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_malformed),       cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_semantic_errors), cmocka_unit_test(test_arch_names),
        cmocka_unit_test(test_shipped_attention), cmocka_unit_test(test_attention_fixtures),
        cmocka_unit_test(test_operation_names), cmocka_unit_test(test_attention_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
