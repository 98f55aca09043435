/* The --workloads filter: parsing (names, TASK:NAME, @SELECTION, malformed items), applying one
 * list to tasks of different workloads (each item to the tasks that have it, in list order,
 * each workload once), and the run-wide check naming the item that selected nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/workload_filter.h"

static pg_workload g_gemm_w[3], g_mha_w[2];
static pg_task g_gemm, g_mha;

static void make_tasks(void)
{
    memset(&g_gemm, 0, sizeof g_gemm);
    memset(&g_mha, 0, sizeof g_mha);
    memset(g_gemm_w, 0, sizeof g_gemm_w);
    memset(g_mha_w, 0, sizeof g_mha_w);
    snprintf(g_gemm.id, sizeof g_gemm.id, "gemm");
    snprintf(g_gemm_w[0].name, 128, "big");
    snprintf(g_gemm_w[0].aliases[0], 128, "headline");
    g_gemm_w[0].n_aliases = 1;
    snprintf(g_gemm_w[0].selections[0], 64, "ptxbench");
    g_gemm_w[0].n_selections = 1;
    snprintf(g_gemm_w[1].name, 128, "mid");
    snprintf(g_gemm_w[2].name, 128, "small");
    g_gemm.workloads = g_gemm_w;
    g_gemm.n_workloads = 3;
    snprintf(g_mha.id, sizeof g_mha.id, "mha");
    snprintf(g_mha_w[0].name, 128, "small"); /* the same name as a GEMM workload */
    snprintf(g_mha_w[1].name, 128, "s4096");
    snprintf(g_mha_w[1].selections[0], 64, "long");
    snprintf(g_mha_w[1].selections[1], 64, "ptxbench");
    g_mha_w[1].n_selections = 2;
    g_mha.workloads = g_mha_w;
    g_mha.n_workloads = 2;
}

static void test_parse_forms(void **state)
{
    (void)state;
    pg_workload_filter f;
    pg_diag d;
    assert_int_equal(pg_workload_filter_parse("a,gemm:b,@ptxbench", &f, &d), PG_OK);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.items[0].name, "a");
    assert_string_equal(f.items[0].task, "");
    assert_false(f.items[0].selection);
    assert_string_equal(f.items[1].task, "gemm");
    assert_string_equal(f.items[1].name, "b");
    assert_true(f.items[2].selection);
    assert_string_equal(f.items[2].name, "ptxbench");
    const char *bad[] = {"", ",", "a,", ",a", "a,,b", "t:", ":w", "t:w:x", "@", "a,@"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pg_diag_clear(&d);
        assert_int_equal(pg_workload_filter_parse(bad[i], &f, &d), PG_ERR_INPUT);
        assert_string_equal(d.field, "--workloads");
    }
    assert_int_equal(pg_workload_filter_parse("a,,b", &f, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "empty workload name in 'a,,b'"));
}

/* One list for two tasks: "small" applies to both, TASK:NAME to one, aliases count. */
static void test_apply_across_tasks(void **state)
{
    (void)state;
    make_tasks();
    pg_workload_filter f;
    pg_diag d;
    int out[4], n = -1;
    assert_int_equal(pg_workload_filter_parse("small,headline,mha:s4096,big", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    assert_int_equal(n, 2); /* small, then big (headline and big are the same workload) */
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 0);
    assert_false(f.items[2].used);
    pg_workload_filter_apply(&f, &g_mha, out, &n);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 1);
    for (int i = 0; i < f.n; i++)
        assert_true(f.items[i].used);
    const pg_task *tasks[] = {&g_gemm, &g_mha};
    assert_int_equal(pg_workload_filter_check_used(&f, tasks, 2, &d), PG_OK);
}

static void test_selection(void **state)
{
    (void)state;
    make_tasks();
    pg_workload_filter f;
    pg_diag d;
    int out[4], n = -1;
    assert_int_equal(pg_workload_filter_parse("@ptxbench", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 0);
    pg_workload_filter_apply(&f, &g_mha, out, &n);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 1);
    /* @long: only mha has it; applied to gemm alone it selects nothing there. */
    assert_int_equal(pg_workload_filter_parse("@long", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    assert_int_equal(n, 0);
    const pg_task *only_gemm[] = {&g_gemm};
    assert_int_equal(pg_workload_filter_check_used(&f, only_gemm, 1, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "selection '@long'"));
    assert_non_null(strstr(d.message, "their selections: @ptxbench"));
}

/* What the run-wide check says for each kind of item that selected nothing. */
static void test_unused_messages(void **state)
{
    (void)state;
    make_tasks();
    pg_workload_filter f;
    pg_diag d;
    int out[4], n;
    const pg_task *both[] = {&g_gemm, &g_mha, &g_gemm}, *one[] = {&g_gemm, &g_gemm};

    assert_int_equal(pg_workload_filter_parse("small,nothere", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    pg_workload_filter_apply(&f, &g_mha, out, &n);
    assert_int_equal(pg_workload_filter_check_used(&f, both, 3, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--workloads");
    assert_string_equal(d.message, "no task of this run (gemm, mha) has a workload 'nothere'; "
                                   "TASK:WORKLOAD names one task's");

    /* One task in the run: the known names, as before cross-task lists. */
    assert_int_equal(pg_workload_filter_parse("nothere", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    assert_int_equal(pg_workload_filter_check_used(&f, one, 2, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "task 'gemm' has no workload 'nothere' (known: big, mid, small)");

    /* TASK:NAME: the task is in the run but lacks the name, or is not in the run. */
    assert_int_equal(pg_workload_filter_parse("mha:mid", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    pg_workload_filter_apply(&f, &g_mha, out, &n);
    assert_int_equal(n, 0);
    assert_int_equal(pg_workload_filter_check_used(&f, both, 3, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "task 'mha' has no workload 'mid' (known: small, s4096)");
    assert_int_equal(pg_workload_filter_parse("attn:small", &f, &d), PG_OK);
    pg_workload_filter_apply(&f, &g_gemm, out, &n);
    assert_int_equal(n, 0); /* another task's name is not this task's */
    assert_int_equal(pg_workload_filter_check_used(&f, one, 2, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "no submission of this run is for task 'attn'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_forms),
        cmocka_unit_test(test_apply_across_tasks),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_unused_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
