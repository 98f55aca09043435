/* Folding stage statuses into verdicts and the exit code (docs/exit-codes.md): the worst stage
 * decides (fail > error > pass > skipped), an error anywhere makes the run an infrastructure
 * error, a run that checked nothing is one too, except an empty shard. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "report/verdicts.h"

static json_t *st(const char *status)
{
    return json_pack("{s:s, s:s}", "stage", "x", "status", status);
}

/* One submission (stage sub) with two workloads (stages w1, w2). */
static json_t *run(const char *sub, const char *w1, const char *w2)
{
    return json_pack("{s:[{s:[o], s:[{s:[o]}, {s:[o]}]}]}", "submissions", "stages", st(sub),
                     "workloads", "stages", st(w1), "stages", st(w2));
}

static void expect(json_t *r, bool empty_passes, const char *verdict, int code)
{
    pg_diag d = {0};
    assert_int_equal(pg_results_fold(r, empty_passes, &d), PG_OK);
    assert_string_equal(json_string_value(json_object_get(r, "verdict")), verdict);
    assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), code);
}

static void test_worst_stage_decides(void **state)
{
    json_t *r = run("pass", "fail", "pass");
    expect(r, false, "fail", 1);
    const json_t *sub = json_array_get(json_object_get(r, "submissions"), 0);
    assert_string_equal(json_string_value(json_object_get(sub, "verdict")), "fail");
    const json_t *w2 = json_array_get(json_object_get(sub, "workloads"), 1);
    assert_string_equal(json_string_value(json_object_get(w2, "verdict")), "pass");
    const json_t *c = json_object_get(r, "counts");
    assert_int_equal(json_integer_value(json_object_get(c, "pass")), 2);
    assert_int_equal(json_integer_value(json_object_get(c, "fail")), 1);
    json_decref(r);
    r = run("pass", "fail", "error"); /* the error surfaces although a stage failed */
    expect(r, false, "error", 3);
    json_decref(r);
    r = run("pass", "skipped", "pass");
    expect(r, false, "pass", 0);
    json_decref(r);
}

static void test_nothing_checked_and_empty_shard(void **state)
{
    json_t *r = run("skipped", "skipped", "skipped");
    expect(r, true, "error", 3); /* items that all skipped are still nothing checked */
    json_decref(r);
    r = json_pack("{s:[]}", "submissions");
    expect(r, false, "error", 3);
    expect(r, true, "pass", 0);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worst_stage_decides),
        cmocka_unit_test(test_nothing_checked_and_empty_shard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
