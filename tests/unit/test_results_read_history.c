/* The results reader's view for history, check's summary and the GitHub check run
 * (gate/report/results_read_history.c): status words, the run record's types with file:field
 * errors, and declined workloads. Fixtures: tests/data/results/<name>.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/results_read.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

static void test_status_parse(void **state)
{
    (void)state;
    pg_res_status s = PG_RES_ERROR;
    assert_true(pg_res_status_parse("pass", &s));
    assert_int_equal(s, PG_RES_PASS);
    assert_true(pg_res_status_parse("skipped", &s));
    assert_int_equal(s, PG_RES_SKIPPED);
    s = PG_RES_FAIL;
    assert_false(pg_res_status_parse("PASS", &s)); /* the results spelling only */
    assert_false(pg_res_status_parse("", &s));
    assert_false(pg_res_status_parse(NULL, &s));
    assert_int_equal(s, PG_RES_FAIL); /* left as it was */
}

/* pg_results_read_run on all_pass with "run" set to run (NULL: removed). */
static pg_status read_run_of(json_t *run, pg_res_run *out, pg_diag *d)
{
    json_t *j = load_fixture("all_pass");
    if (run)
        json_object_set_new(j, "run", run);
    pg_results r;
    assert_int_equal(pg_results_read(j, "runs/x/results.json", &r, d), PG_OK);
    pg_status st = pg_results_read_run(&r, out, d);
    pg_results_free(&r);
    json_decref(j); /* out's strings are not looked at after this */
    return st;
}

static void test_run_record(void **state)
{
    (void)state;
    pg_res_run run;
    pg_diag d;
    assert_int_equal(read_run_of(NULL, &run, &d), PG_OK);
    assert_false(run.has);
    assert_int_equal(read_run_of(json_null(), &run, &d), PG_OK);
    assert_false(run.has);

    json_t *j = load_fixture("all_pass");
    json_object_set_new(j, "run", json_pack("{s:s, s:n, s:s}", "label", "model-v2", "commit",
                                            "commit_time_utc", "2026-11-29T10:30:00Z"));
    pg_results r;
    assert_int_equal(pg_results_read(j, NULL, &r, &d), PG_OK);
    assert_int_equal(pg_results_read_run(&r, &run, &d), PG_OK);
    assert_true(run.has);
    assert_string_equal(run.label, "model-v2");
    assert_null(run.commit);
    assert_string_equal(run.commit_time_utc, "2026-11-29T10:30:00Z");
    pg_results_free(&r);
    json_decref(j);

    assert_int_equal(read_run_of(json_pack("[i]", 1), &run, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "runs/x/results.json");
    assert_string_equal(d.field, "run");
    assert_non_null(strstr(d.message, "expected an object"));
    assert_false(run.has);
    assert_int_equal(read_run_of(json_pack("{s:i}", "commit", 7), &run, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "run.commit");
    assert_non_null(strstr(d.message, "expected a string or null"));
    assert_false(run.has);
    assert_null(run.label);
}

static void test_declined_workload(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    json_t *wls = json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                  "workloads");
    assert_true(json_array_size(wls) >= 2);
    json_object_set_new(json_array_get(wls, 0), "not_applicable",
                        json_pack("{s:s}", "constraint", "M % 128 == 0"));
    json_object_set_new(json_array_get(wls, 1), "not_applicable", json_string("odd"));
    pg_results r;
    pg_diag d;
    assert_int_equal(pg_results_read(j, NULL, &r, &d), PG_OK);
    const char *c = "unset";
    assert_true(pg_res_workload_declined(&r.subs[0].workloads[0], &c));
    assert_string_equal(c, "M % 128 == 0");
    assert_false(pg_res_workload_declined(&r.subs[0].workloads[1], &c)); /* not an object */
    assert_null(c);
    assert_false(pg_res_workload_declined(&r.subs[0].workloads[1], NULL));
    pg_results_free(&r);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_parse),
        cmocka_unit_test(test_run_record),
        cmocka_unit_test(test_declined_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
