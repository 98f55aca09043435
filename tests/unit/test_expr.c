/* Unit tests of the integer expression evaluator (gate/model/expr.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/expr.h"

static const char *const k_names[] = {"M", "N", "K"};
static const int64_t k_values[] = {257, 513, 1000};
static const pg_symtab k_syms = {k_names, k_values, 3, NULL, NULL};

static int64_t eval_ok(const char *text)
{
    int64_t v = -12345;
    char err[512] = "untouched";
    pg_status st = pg_expr_eval(text, &k_syms, &v, err, sizeof err);
    if (st != PG_OK)
        fail_msg("'%s' failed: %s", text, err);
    assert_string_equal(err, "");
    return v;
}

/* Evaluates to an error; the message must contain want. */
static void eval_err(const char *text, const char *want)
{
    int64_t v = 777;
    char err[512] = "";
    pg_status st = pg_expr_eval(text, &k_syms, &v, err, sizeof err);
    assert_int_equal(st, PG_ERR_INPUT);
    assert_int_equal(v, 777); /* untouched on error */
    if (!strstr(err, want))
        fail_msg("'%s': message '%s' lacks '%s'", text, err, want);
}

static void test_literals_and_symbols(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("0"), 0);
    assert_int_equal(eval_ok("42"), 42);
    assert_int_equal(eval_ok("9223372036854775807"), INT64_MAX);
    assert_int_equal(eval_ok("M"), 257);
    assert_int_equal(eval_ok("  K "), 1000);
    assert_int_equal(eval_ok("\tN\n"), 513);
}

static void test_precedence(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("2+3*4"), 14);
    assert_int_equal(eval_ok("(2+3)*4"), 20);
    assert_int_equal(eval_ok("2*M*N*K"), 2LL * 257 * 513 * 1000);
    assert_int_equal(eval_ok("10-4-3"), 3);         /* left associative */
    assert_int_equal(eval_ok("100/10/5"), 2);       /* left associative */
    assert_int_equal(eval_ok("7/2"), 3);
    assert_int_equal(eval_ok("-7/2"), -3);          /* truncates toward zero */
    assert_int_equal(eval_ok("M*N/K"), 257 * 513 / 1000);
    assert_int_equal(eval_ok("1+2*3-8/4"), 5);
    assert_int_equal(eval_ok("((((M))))"), 257);
}

static void test_unary_minus(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("-5"), -5);
    assert_int_equal(eval_ok("--5"), 5);
    assert_int_equal(eval_ok("-M+1"), -256);
    assert_int_equal(eval_ok("2*-3"), -6);
    assert_int_equal(eval_ok("-(M-N)"), 256);
    assert_int_equal(eval_ok("3 - -3"), 6);
}

static void test_ceil_div(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("ceil_div(M, 128)"), 3);
    assert_int_equal(eval_ok("ceil_div(256, 128)"), 2);
    assert_int_equal(eval_ok("ceil_div(0, 128)"), 0);
    assert_int_equal(eval_ok("ceil_div(1, 128)"), 1);
    assert_int_equal(eval_ok("ceil_div(-7, 2)"), -3);
    assert_int_equal(eval_ok("ceil_div(7, -2)"), -3);
    assert_int_equal(eval_ok("ceil_div(-7, -2)"), 4);
    assert_int_equal(eval_ok("ceil_div(M, 128) * ceil_div(N, 128)"), 3 * 5);
    assert_int_equal(eval_ok("ceil_div(ceil_div(K, 7), 2 + 1)"), 48);
    eval_err("ceil_div(M)", "ceil_div takes 2 arguments, found 1");
    eval_err("ceil_div(M, N, K)", "ceil_div takes 2 arguments, found 3");
}

static void test_min_max(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("min(M, N, K)"), 257);
    assert_int_equal(eval_ok("max(M, N, K)"), 1000);
    assert_int_equal(eval_ok("max(M)"), 257);
    assert_int_equal(eval_ok("min(-1, 2)"), -1);
    assert_int_equal(eval_ok("max(K * 2, 1024) + 128"), 2128);
    assert_int_equal(eval_ok("min(max(1, 2), max(3, 4))"), 2);
}

static void test_overflow(void **state)
{
    (void)state;
    eval_err("4294967296 * 4294967296", "overflow in '4294967296 * 4294967296'");
    eval_err("4294967296 * 4294967296", "does not fit 64-bit signed");
    eval_err("9223372036854775807 + 1", "overflow");
    eval_err("-9223372036854775807 - 2", "overflow");
    eval_err("M*N*K*M*N*K*K", "overflow");
    eval_err("-(-9223372036854775807 - 1)", "overflow");
    eval_err("(-9223372036854775807 - 1) / -1", "overflow");
    eval_err("9223372036854775808", "does not fit 64-bit signed");
    assert_int_equal(eval_ok("-9223372036854775807 - 1"), INT64_MIN);
}

static void test_division_by_zero(void **state)
{
    (void)state;
    eval_err("M/(N-N)", "division by zero in 'M/(N-N)'");
    eval_err("1/0", "division by zero");
    eval_err("ceil_div(M, 0)", "ceil_div by zero in 'ceil_div(M, 0)'");
    eval_err("ceil_div(M, K-1000)", "ceil_div by zero");
}

static void test_unknown_symbol(void **state)
{
    (void)state;
    eval_err("M*Q", "unknown symbol 'Q' (known: M, N, K)");
    eval_err("MN", "unknown symbol 'MN'");
    eval_err("foo(M)", "unknown function 'foo'");
    eval_err("min + 1", "'(' after a function name");
    /* no symbol table at all */
    char err[256];
    int64_t v;
    assert_int_equal(pg_expr_eval("M", NULL, &v, err, sizeof err), PG_ERR_INPUT);
    assert_non_null(strstr(err, "unknown symbol 'M'"));
    assert_int_equal(pg_expr_eval("6*7", NULL, &v, err, sizeof err), PG_OK);
    assert_int_equal(v, 42);
}

/* Remainder, comparisons and logic (the "supports" constraints of manifests). */
static void test_comparisons_and_logic(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("7 % 3"), 1);
    assert_int_equal(eval_ok("-7 % 3"), -1); /* C: the sign of the dividend */
    assert_int_equal(eval_ok("7 % -3"), 1);
    assert_int_equal(eval_ok("(-9223372036854775807 - 1) % -1"), 0);
    assert_int_equal(eval_ok("2 + 7 % 4 * 2"), 8); /* % binds like * */
    assert_int_equal(eval_ok("1 < 2"), 1);
    assert_int_equal(eval_ok("2 <= 2"), 1);
    assert_int_equal(eval_ok("3 > 4"), 0);
    assert_int_equal(eval_ok("4 >= 5"), 0);
    assert_int_equal(eval_ok("5 == 5"), 1);
    assert_int_equal(eval_ok("5 != 5"), 0);
    assert_int_equal(eval_ok("1 + 1 == 2"), 1); /* arithmetic binds tighter */
    assert_int_equal(eval_ok("!0"), 1);
    assert_int_equal(eval_ok("!7"), 0);
    assert_int_equal(eval_ok("!!7"), 1);
    assert_int_equal(eval_ok("!(1 == 2)"), 1);
    assert_int_equal(eval_ok("1 && 0"), 0);
    assert_int_equal(eval_ok("2 && 3"), 1);
    assert_int_equal(eval_ok("0 || 0"), 0);
    assert_int_equal(eval_ok("0 || 5"), 1);
    assert_int_equal(eval_ok("1 || 0 && 0"), 1); /* && binds tighter than || */
    assert_int_equal(eval_ok("(1 || 0) && 0"), 0);
    /* Short-circuit: the side not evaluated cannot divide by zero, but is still checked. */
    assert_int_equal(eval_ok("0 && 1 / 0"), 0);
    assert_int_equal(eval_ok("1 || 1 % 0"), 1);
    eval_err("1 && 1 / 0", "division by zero");
    eval_err("0 && Q", "unknown symbol 'Q'");
    eval_err("0 && (", "column 7");
    eval_err("5 % 0", "division by zero in '5 % 0'");
    int64_t v;
    assert_int_equal(pg_expr_check("M % 128 == 0 && !(N < 1) || K >= 2", NULL, 0, NULL, 0),
                     PG_OK);
    assert_int_equal(pg_expr_eval("3 != 4", NULL, &v, NULL, 0), PG_OK);
    assert_int_equal(v, 1);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    eval_err("M+*2", "syntax error at column 3 of 'M+*2': expected a number, symbol or '('");
    eval_err("", "syntax error at column 1 of '': expected a number, symbol or '(', found the end");
    eval_err("M+", "column 3");
    eval_err("(M+1", "syntax error at column 5 of '(M+1': expected an operator or ')'");
    eval_err("M 2", "syntax error at column 3 of 'M 2': expected an operator or the end");
    eval_err("2M", "column 2");
    /* A character that is not ASCII is quoted whole (never one byte of it), and columns count
     * characters. */
    eval_err("M + \xc3\xa9", "syntax error at column 5 of 'M + \xc3\xa9': expected a number, "
                            "symbol or '(', found '\xc3\xa9'");
    eval_err("\xe2\x82\xac + 1", "column 1 of '\xe2\x82\xac + 1'");
    eval_err("(M) \xc3\xa9\xc3\xa9", "expected an operator or the end, found '\xc3\xa9'");
    eval_err("\xc3\xa9\xc3\xa9 + Q", "found '\xc3\xa9'");
    /* A message cut by a small buffer ends with whole characters. */
    char small[40];
    int64_t out;
    assert_int_equal(pg_expr_eval("M + \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", NULL, &out, small,
                                  sizeof small),
                     PG_ERR_INPUT);
    for (const unsigned char *q = (const unsigned char *)small; *q; q++)
        if (*q >= 0xC0) /* every lead byte is followed by its continuation byte */
            assert_int_equal(q[1] & 0xC0, 0x80);
    eval_err("M # 2", "column 3");
    eval_err("M = 2", "column 3");       /* '==' compares; a lone '=' is no operator */
    eval_err("M & 1", "column 3");       /* logical '&&' only */
    eval_err("M <", "column 4");
    eval_err("min(M N)", "expected an operator, ',' or ')'");
    eval_err("min()", "column 5");
    eval_err("M)", "column 2");
    eval_err("1.5", "column 2");
}

static void test_length_limit(void **state)
{
    (void)state;
    char text[PG_EXPR_MAX_LEN + 8];
    memset(text, '1', PG_EXPR_MAX_LEN + 1);
    text[PG_EXPR_MAX_LEN + 1] = '\0';
    eval_err(text, "longer than 512 characters");
    /* exactly 512 characters is accepted: "1+1+...+1" */
    for (size_t i = 0; i < PG_EXPR_MAX_LEN; i++)
        text[i] = i % 2 ? '+' : '1';
    text[PG_EXPR_MAX_LEN - 1] = ' ';
    text[PG_EXPR_MAX_LEN] = '\0';
    assert_int_equal(eval_ok(text), PG_EXPR_MAX_LEN / 2);
}

static void test_check(void **state)
{
    (void)state;
    char err[256];
    /* value-dependent errors are not errors without values */
    assert_int_equal(pg_expr_check("M/(N-N)", k_names, 3, err, sizeof err), PG_OK);
    assert_int_equal(pg_expr_check("M*N*K*M*N*K*M*N*K", k_names, 3, err, sizeof err), PG_OK);
    assert_int_equal(pg_expr_check("ceil_div(M, 0)", k_names, 3, err, sizeof err), PG_OK);
    assert_int_equal(pg_expr_check("M*Q", k_names, 3, err, sizeof err), PG_ERR_INPUT);
    assert_string_equal(err, "unknown symbol 'Q' (known: M, N, K)");
    assert_int_equal(pg_expr_check("M+*2", k_names, 3, err, sizeof err), PG_ERR_INPUT);
    assert_non_null(strstr(err, "column 3"));
    /* names == NULL: any symbol name passes, syntax still checked */
    assert_int_equal(pg_expr_check("ceil_div(Anything, x_1)", NULL, 0, err, sizeof err), PG_OK);
    assert_int_equal(pg_expr_check("ceil_div(A)", NULL, 0, err, sizeof err), PG_ERR_INPUT);
    assert_int_equal(pg_expr_check("99999999999999999999", NULL, 0, err, sizeof err),
                     PG_ERR_INPUT);
}

static void test_from_json(void **state)
{
    (void)state;
    json_t *obj = json_pack("{s:i, s:s, s:f, s:s, s:s, s:[i,s]}", "int", -12, "str",
                            "ceil_div(M, 2)", "real", 1.5, "empty", "", "bad", "M+*2", "arr", 3,
                            "N*2");
    pg_jctx root = {.file = "m.json", .path = "launches[0]"};
    pg_diag d;
    char out[64] = "unchanged";

    assert_int_equal(pg_expr_from_json(obj, &root, "int", true, out, sizeof out, &d), PG_OK);
    assert_string_equal(out, "-12");
    assert_int_equal(pg_expr_from_json(obj, &root, "str", true, out, sizeof out, &d), PG_OK);
    assert_string_equal(out, "ceil_div(M, 2)");
    assert_int_equal(pg_expr_from_json(obj, &root, "absent", false, out, sizeof out, &d), PG_OK);
    assert_string_equal(out, "ceil_div(M, 2)");

    pg_diag_clear(&d);
    assert_int_equal(pg_expr_from_json(obj, &root, "absent", true, out, sizeof out, &d),
                     PG_ERR_INPUT);
    assert_string_equal(d.file, "m.json");
    assert_string_equal(d.field, "launches[0].absent");
    assert_non_null(strstr(d.message, "required field is missing"));

    assert_int_equal(pg_expr_from_json(obj, &root, "real", true, out, sizeof out, &d),
                     PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].real");
    assert_non_null(strstr(d.message, "a JSON integer or a string"));
    assert_non_null(strstr(d.message, "found a real number"));

    assert_int_equal(pg_expr_from_json(obj, &root, "empty", true, out, sizeof out, &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "empty string"));

    assert_int_equal(pg_expr_from_json(obj, &root, "bad", true, out, sizeof out, &d),
                     PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].bad");
    assert_non_null(strstr(d.message, "syntax error at column 3"));

    /* too long for the destination */
    char small[4];
    assert_int_equal(pg_expr_from_json(obj, &root, "str", true, small, sizeof small, &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "too long"));

    /* array elements */
    json_t *arr = json_object_get(obj, "arr");
    pg_jctx ac = pg_jctx_member(&root, "grid");
    pg_jctx e0 = pg_jctx_index(&ac, 0), e1 = pg_jctx_index(&ac, 1);
    assert_int_equal(pg_expr_from_json_value(json_array_get(arr, 0), &e0, out, sizeof out, &d),
                     PG_OK);
    assert_string_equal(out, "3");
    assert_int_equal(pg_expr_from_json_value(json_array_get(arr, 1), &e1, out, sizeof out, &d),
                     PG_OK);
    assert_string_equal(out, "N*2");
    json_t *t = json_true();
    assert_int_equal(pg_expr_from_json_value(t, &e1, out, sizeof out, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid[1]");
    assert_non_null(strstr(d.message, "found a boolean"));
    json_decref(obj);
}

/* A max_active_clusters provider: 100 * cluster size + dynamic bytes / 1024, the arguments
 * kept; cluster size 7 is refused. */
static int64_t g_cluster_args[2];
static int g_cluster_calls;
static pg_status fake_clusters(void *ctx, int64_t cluster_size, int64_t dynamic_shared_bytes,
                               int64_t *out, char *err, size_t errlen)
{
    assert_ptr_equal(ctx, &g_cluster_calls);
    g_cluster_calls++;
    g_cluster_args[0] = cluster_size;
    g_cluster_args[1] = dynamic_shared_bytes;
    if (cluster_size == 7) {
        snprintf(err, errlen, "the driver refused it");
        return PG_ERR_INPUT;
    }
    *out = 100 * cluster_size + dynamic_shared_bytes / 1024;
    return PG_OK;
}

static void test_max_active_clusters(void **state)
{
    (void)state;
    pg_symtab syms = {k_names, k_values, 3, fake_clusters, &g_cluster_calls};
    int64_t v = 0;
    char err[512];
    g_cluster_calls = 0;
    /* Arguments are whole expressions over the symbols; the value takes part in arithmetic. */
    assert_int_equal(pg_expr_eval("2 * min(132 / 2, max_active_clusters(2, 214064))", &syms, &v,
                                  err, sizeof err), PG_OK);
    assert_int_equal(v, 2 * 66); /* 100 * 2 + 209 = 409 > 66 */
    assert_int_equal(g_cluster_args[0], 2);
    assert_int_equal(g_cluster_args[1], 214064);
    assert_int_equal(pg_expr_eval("max_active_clusters(M - 255, K * 2)", &syms, &v, err,
                                  sizeof err), PG_OK);
    assert_int_equal(v, 200 + 1);
    assert_int_equal(g_cluster_calls, 2);
    /* Argument checks before the provider is asked. */
    assert_int_equal(pg_expr_eval("max_active_clusters(0, 0)", &syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_non_null(strstr(err, "the cluster size must be at least 1, found 0"));
    assert_int_equal(pg_expr_eval("max_active_clusters(2, 0 - 1)", &syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_non_null(strstr(err, "the dynamic shared bytes must not be negative, found -1"));
    assert_int_equal(g_cluster_calls, 2);
    assert_int_equal(pg_expr_eval("max_active_clusters(2)", &syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_non_null(strstr(err, "max_active_clusters takes 2 arguments (cluster size, dynamic "
                                "shared bytes), found 1, at column 1"));
    assert_int_equal(pg_expr_eval("1 + max_active_clusters(2, 0, 3)", &syms, &v, err,
                                  sizeof err), PG_ERR_INPUT);
    assert_non_null(strstr(err, "found 3, at column 5"));
    /* The provider's refusal, with the call named. */
    assert_int_equal(pg_expr_eval("max_active_clusters(7, 0)", &syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_string_equal(err, "max_active_clusters(7, 0) in 'max_active_clusters(7, 0)': the "
                             "driver refused it");
    /* Short-circuited: not asked. */
    g_cluster_calls = 0;
    assert_int_equal(pg_expr_eval("0 && max_active_clusters(2, 0)", &syms, &v, err, sizeof err),
                     PG_OK);
    assert_int_equal(v, 0);
    assert_int_equal(g_cluster_calls, 0);
    /* Without a provider (every field but a launch grid). */
    assert_int_equal(pg_expr_eval("max_active_clusters(2, 0)", &k_syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_string_equal(err, "max_active_clusters at column 1 of 'max_active_clusters(2, 0)' is "
                             "only available in launch grid expressions");
    /* The name alone is not a symbol. */
    assert_int_equal(pg_expr_eval("max_active_clusters + 1", &syms, &v, err, sizeof err),
                     PG_ERR_INPUT);
    assert_non_null(strstr(err, "expected '(' after a function name"));
    /* Check mode: syntax and argument count only. */
    assert_int_equal(pg_expr_check("max_active_clusters(2, 214064)", k_names, 3, err, sizeof err),
                     PG_OK);
    assert_int_equal(pg_expr_check("max_active_clusters(0 - 5, Q)", NULL, 0, err, sizeof err),
                     PG_OK);
    assert_int_equal(pg_expr_check("max_active_clusters(1, 2, 3)", NULL, 0, err, sizeof err),
                     PG_ERR_INPUT);
    assert_non_null(strstr(err, "takes 2 arguments"));
    /* pg_expr_names_function */
    assert_true(pg_expr_names_function("2 * max_active_clusters (2, 0)", "max_active_clusters"));
    assert_false(pg_expr_names_function("max_active_clusters", "max_active_clusters"));
    assert_false(pg_expr_names_function("xmax_active_clusters(2, 0)", "max_active_clusters"));
    assert_false(pg_expr_names_symbol("max_active_clusters(2, 0)", "max_active_clusters"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_and_symbols),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_unary_minus),
        cmocka_unit_test(test_ceil_div),
        cmocka_unit_test(test_min_max),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_division_by_zero),
        cmocka_unit_test(test_unknown_symbol),
        cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_comparisons_and_logic),
        cmocka_unit_test(test_length_limit),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_from_json),
        cmocka_unit_test(test_max_active_clusters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
