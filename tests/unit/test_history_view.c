/* The typed view of the history model (gate/report/history_view.c): a model built from the
 * results fixtures reads back with its runs, speedups and statuses (the verdicts as enums, a
 * void timing marked), and models of the wrong shape are refused naming "runs" or "series".
 * Fixtures: tests/data/results/<name>.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/history.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

static json_t *model_of(const char *a, const char *b)
{
    json_t *roots[2] = {load_fixture(a), load_fixture(b)};
    const char *files[2] = {"a.json", "b.json"};
    json_t *m = NULL;
    pg_diag d;
    assert_int_equal(pg_history_build((const json_t *const *)roots, files, 2,
                                      PG_HISTORY_BY_INPUT, &m, &d),
                     PG_OK);
    json_decref(roots[0]);
    json_decref(roots[1]);
    return m;
}

static void test_reads_a_built_model(void **state)
{
    (void)state;
    json_t *m = model_of("all_pass", "performance_fail");
    pg_history_view v;
    pg_diag d;
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_OK);
    assert_int_equal(v.order, PG_HISTORY_BY_INPUT);
    assert_int_equal(v.n_runs, 2);
    assert_string_equal(v.runs[0].file, "a.json");
    assert_true(v.runs[0].has_verdict);
    assert_int_equal(v.runs[0].verdict, PG_RES_PASS);
    assert_int_equal(v.runs[1].verdict, PG_RES_FAIL);
    assert_null(v.runs[0].label);
    assert_true(v.n_series >= 1);
    const pg_history_point *p = v.series[0].points;
    assert_true(p[0].present);
    assert_false(p[0].void_timing);
    assert_int_equal(p[0].verdict, PG_RES_PASS);
    assert_true(p[0].speedup.has);
    assert_true(p[0].speedup.v > 0.0);
    pg_history_view_free(&v);
    pg_history_view_free(&v); /* zeroed: safe again */
    json_decref(m);
}

static void test_void_and_absent_points(void **state)
{
    (void)state;
    json_t *m = json_pack("{s:s, s:[{s:s, s:n, s:n, s:n, s:s, s:s, s:n, s:n}, "
                          "{s:s, s:n, s:n, s:n, s:s, s:n, s:n, s:n}], "
                          "s:[{s:s, s:s, s:s, s:[f, n], s:[s, n]}, "
                          "{s:s, s:s, s:s, s:[n, n], s:[s, s]}]}",
                          "order", "label", "runs", "file", "a", "label", "commit",
                          "commit_time_utc", "started_utc", "2026-11-29T10:00:00Z", "verdict",
                          "fail", "tool_version", "gpu", "file", "b", "label", "commit",
                          "commit_time_utc", "started_utc", "2026-11-30T10:00:00Z", "verdict",
                          "tool_version", "gpu", "series", "task", "t", "submission", "s",
                          "workload", "w1", "speedup", 0.5, "status", "FAIL", "task", "t",
                          "submission", "s", "workload", "w2", "speedup", "status", "VOID",
                          "SKIPPED");
    assert_non_null(m);
    pg_history_view v;
    pg_diag d;
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_OK);
    assert_int_equal(v.order, PG_HISTORY_BY_LABEL);
    assert_false(v.runs[1].has_verdict);
    assert_int_equal(v.series[0].points[0].verdict, PG_RES_FAIL);
    assert_false(v.series[0].points[1].present);
    assert_false(v.series[0].points[1].speedup.has);
    assert_true(v.series[1].points[0].void_timing);
    assert_int_equal(v.series[1].points[1].verdict, PG_RES_SKIPPED);
    pg_history_view_free(&v);

    /* every shape error names its part of the model */
    json_t *s1 = json_array_get(json_object_get(m, "series"), 1);
    json_array_set_new(json_object_get(s1, "status"), 1, json_string("passed"));
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "series");
    assert_null(v.series);
    json_array_set_new(json_object_get(s1, "status"), 1, json_null());
    json_array_append_new(json_object_get(s1, "speedup"), json_real(1.0));
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "series");
    json_array_remove(json_object_get(s1, "speedup"), 2);
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_OK);
    pg_history_view_free(&v);
    json_object_set_new(json_array_get(json_object_get(m, "runs"), 0), "verdict",
                        json_string("PASS"));
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "runs");
    json_object_set_new(m, "runs", json_object());
    assert_int_equal(pg_history_view_read(m, &v, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "runs");
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_a_built_model),
        cmocka_unit_test(test_void_and_absent_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
