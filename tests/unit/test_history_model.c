/* The typed history model (gate/report/history.h): built from the results fixtures, it holds
 * the runs (files, times, verdicts, tool version, GPU, run metadata), one series per (task,
 * submission, workload) in order of first appearance, and per run a point with the speedup,
 * the workload's verdict, absent workloads and void timings marked; it owns its strings (the
 * roots may go first) and frees safely twice. Fixtures: tests/data/results/<name>.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/history.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

/* The model of the fixtures named in order (at most 4), read as files "a.json", "b.json"...;
 * the roots are released before it is returned. */
static pg_history_model model_of(const char *const *names, size_t n, pg_history_order by)
{
    json_t *roots[4] = {NULL};
    const char *files[4] = {"a.json", "b.json", "c.json", "d.json"};
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++)
        roots[i] = load_fixture(names[i]);
    pg_history_model m;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_history_build((const json_t *const *)roots, files, n, by, &m, &d), PG_OK);
    for (size_t i = 0; i < n; i++)
        json_decref(roots[i]);
    return m;
}

static void assert_speedup(const pg_history_point *p, double v)
{
    assert_true(p->speedup.has);
    assert_float_equal(p->speedup.v, v, 1e-12);
}

static void test_runs_series_and_points(void **state)
{
    (void)state;
    const char *names[] = {"all_pass", "performance_fail", "gpu_skipped"};
    pg_history_model m = model_of(names, 3, PG_HISTORY_BY_INPUT);
    assert_int_equal(m.order, PG_HISTORY_BY_INPUT);

    /* runs, in the order given */
    assert_int_equal(m.n_runs, 3);
    assert_string_equal(m.runs[0].file, "a.json");
    assert_string_equal(m.runs[2].file, "c.json");
    assert_string_equal(m.runs[0].started_utc, "2026-11-29T10:00:00Z");
    assert_int_equal(m.runs[0].verdict, PG_RES_PASS);
    assert_int_equal(m.runs[1].verdict, PG_RES_FAIL);
    assert_int_equal(m.runs[2].verdict, PG_RES_PASS);
    assert_string_equal(m.runs[0].tool_version, "0.1.0");
    assert_string_equal(m.runs[0].gpu, "NVIDIA H200");
    assert_null(m.runs[2].gpu); /* environment.gpu is null */
    assert_null(m.runs[0].label);
    assert_null(m.runs[0].commit);
    assert_null(m.runs[0].commit_time_utc);

    /* series: tiled's two workloads (run 1), then naive's (run 2) */
    assert_int_equal(m.n_series, 3);
    const pg_history_series *s = m.series;
    assert_string_equal(s[0].task, "gemm_bf16_nt");
    assert_string_equal(s[0].submission, "tiled");
    assert_string_equal(s[0].workload, "m8192_n7168_k5120");
    assert_string_equal(s[1].submission, "tiled");
    assert_string_equal(s[1].workload, "m4096_n4096_k4096");
    assert_string_equal(s[2].submission, "naive");
    assert_string_equal(s[2].workload, "m8192_n7168_k5120");

    /* points: the speedup estimate and the verdict where the run has the workload */
    const pg_history_point *p = s[0].points;
    assert_true(p[0].present);
    assert_false(p[0].void_timing);
    assert_int_equal(p[0].verdict, PG_RES_PASS);
    assert_speedup(&p[0], 0.745);
    assert_false(p[1].present); /* performance_fail has no tiled */
    assert_false(p[1].speedup.has);
    assert_true(p[2].present); /* skipped: a verdict, no speedup */
    assert_int_equal(p[2].verdict, PG_RES_SKIPPED);
    assert_false(p[2].speedup.has);
    assert_speedup(&s[1].points[0], 0.8326);
    p = s[2].points;
    assert_false(p[0].present);
    assert_true(p[1].present);
    assert_int_equal(p[1].verdict, PG_RES_FAIL);
    assert_speedup(&p[1], 0.15);
    assert_false(p[2].present);

    pg_history_model_free(&m);
    assert_null(m.runs);
    assert_int_equal(m.n_series, 0);
    pg_history_model_free(&m); /* zeroed: safe again */
    pg_history_model_free(NULL);
}

static void test_run_metadata_and_order(void **state)
{
    (void)state;
    json_t *roots[2] = {load_fixture("all_pass"), load_fixture("all_pass")};
    json_object_set_new(roots[0], "run",
                        json_pack("{s:s, s:s, s:s}", "label", "v10", "commit", "abcdef1234",
                                  "commit_time_utc", "2026-11-29T09:00:00Z"));
    json_object_set_new(roots[1], "run", json_pack("{s:s, s:n, s:n}", "label", "v2", "commit",
                                                   "commit_time_utc"));
    const char *files[2] = {"runs/10/results.json", "runs/2/results.json"};
    pg_history_model m;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_history_build((const json_t *const *)roots, files, 2, PG_HISTORY_BY_LABEL,
                                      &m, &d),
                     PG_OK);
    json_decref(roots[0]); /* the model keeps copies */
    json_decref(roots[1]);
    assert_int_equal(m.order, PG_HISTORY_BY_LABEL);
    assert_int_equal(m.n_runs, 2);
    assert_string_equal(m.runs[0].label, "v2");
    assert_string_equal(m.runs[0].file, "runs/2/results.json");
    assert_null(m.runs[0].commit);
    assert_null(m.runs[0].commit_time_utc);
    assert_string_equal(m.runs[1].label, "v10");
    assert_string_equal(m.runs[1].commit, "abcdef1234");
    assert_string_equal(m.runs[1].commit_time_utc, "2026-11-29T09:00:00Z");
    assert_string_equal(m.runs[1].started_utc, "2026-11-29T10:00:00Z");
    /* one series per workload of the one submission, a point in both runs */
    assert_int_equal(m.n_series, 2);
    assert_speedup(&m.series[0].points[0], 0.745);
    assert_speedup(&m.series[0].points[1], 0.745);
    pg_history_model_free(&m);

    /* a NULL file name reads as results.json */
    json_t *one = load_fixture("multi_task");
    const json_t *r1[1] = {one};
    const char *f1[1] = {NULL};
    assert_int_equal(pg_history_build(r1, f1, 1, PG_HISTORY_BY_TIME, &m, &d), PG_OK);
    assert_int_equal(m.order, PG_HISTORY_BY_TIME);
    assert_string_equal(m.runs[0].file, "results.json");
    assert_int_equal(m.n_series, 3); /* two tasks, two submissions of one */
    assert_string_equal(m.series[1].task, "gemm_fp16_nt");
    assert_string_equal(m.series[2].submission, "wgmma");
    pg_history_model_free(&m);
    json_decref(one);
}

static void test_void_timings_and_duplicates(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    json_t *wls = json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                  "workloads");
    /* verify failed on the first workload: no timing of the submission is read */
    json_array_append_new(json_object_get(json_array_get(wls, 0), "stages"),
                          json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", "verify", "status",
                                    "fail", "message", "wrong after timing", "duration_s", 0.1,
                                    "details"));
    const json_t *roots[1] = {j};
    const char *files[1] = {"a.json"};
    pg_history_model m;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_history_build(roots, files, 1, PG_HISTORY_BY_INPUT, &m, &d), PG_OK);
    assert_int_equal(m.n_series, 2);
    for (size_t i = 0; i < 2; i++) {
        const pg_history_point *p = &m.series[i].points[0];
        assert_true(p->present);
        assert_true(p->void_timing);
        assert_false(p->speedup.has);
    }
    pg_history_model_free(&m);
    json_decref(j);

    /* a workload recorded twice in one run: the first record counts */
    j = load_fixture("all_pass");
    wls = json_object_get(json_array_get(json_object_get(j, "submissions"), 0), "workloads");
    json_t *dup = json_deep_copy(json_array_get(wls, 0));
    json_object_set_new(dup, "verdict", json_string("fail"));
    json_array_append_new(wls, dup);
    roots[0] = j;
    assert_int_equal(pg_history_build(roots, files, 1, PG_HISTORY_BY_INPUT, &m, &d), PG_OK);
    assert_int_equal(m.n_series, 2);
    assert_int_equal(m.series[0].points[0].verdict, PG_RES_PASS);
    pg_history_model_free(&m);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_series_and_points),
        cmocka_unit_test(test_run_metadata_and_order),
        cmocka_unit_test(test_void_timings_and_duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
