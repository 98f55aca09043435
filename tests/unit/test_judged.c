/* Judged on a GPU or not (gate/report/judged.h): a run without a GPU, a passing submission whose
 * GPU stages all skipped, one that failed offline (judged by its failure), one measured on a GPU,
 * one without workloads. Fixtures: tests/data/results/<name>.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/judged.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

static void read_results(json_t *j, pg_results *r)
{
    pg_diag d;
    assert_int_equal(pg_results_read(j, "results.json", r, &d), PG_OK);
}

static void test_no_gpu_run_is_not_judged(void **state)
{
    (void)state;
    json_t *j = load_fixture("gpu_skipped");
    pg_results r;
    read_results(j, &r);
    const char *why = NULL;
    assert_true(pg_res_not_judged_on_gpu(&r, &r.subs[0], &why));
    /* the run's own reason, not the stage message that quotes it */
    assert_string_equal(why, "no CUDA device: cuInit returned CUDA_ERROR_NO_DEVICE (100)");
    assert_int_equal(pg_res_count_not_judged_on_gpu(&r, &why), 1);
    pg_results_free(&r);
    json_decref(j);
}

static void test_measured_and_failed_are_judged(void **state)
{
    (void)state;
    static const char *const k_judged[] = {"all_pass", "assemble_fail", "correctness_fail",
                                           "performance_fail", "infra_error", "instructions_fail"};
    for (size_t i = 0; i < sizeof k_judged / sizeof k_judged[0]; i++) {
        json_t *j = load_fixture(k_judged[i]);
        pg_results r;
        read_results(j, &r);
        const char *why = "x";
        assert_int_equal(pg_res_count_not_judged_on_gpu(&r, &why), 0);
        assert_null(why);
        pg_results_free(&r);
        json_decref(j);
    }
}

/* A GPU was there, but this submission's GPU stages all skipped (e.g. the device vanished):
 * not judged, with the first skipped GPU stage's message. */
static void test_passing_submission_with_skipped_gpu_stages(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    size_t w, k;
    json_t *wl, *st;
    json_array_foreach(json_object_get(sub, "workloads"), w, wl)
        json_array_foreach(json_object_get(wl, "stages"), k, st) {
            json_object_set_new(st, "status", json_string("skipped"));
            json_object_set_new(st, "message", json_string("GPU lost: device fell off the bus"));
            json_object_set_new(st, "details", json_object());
        }
    pg_results r;
    read_results(j, &r);
    const char *why = NULL;
    assert_true(pg_res_not_judged_on_gpu(&r, &r.subs[0], &why));
    assert_string_equal(why, "GPU lost: device fell off the bus");
    pg_results_free(&r);
    /* without workloads there is nothing to run on a GPU */
    json_object_set_new(sub, "workloads", json_array());
    read_results(j, &r);
    assert_false(pg_res_not_judged_on_gpu(&r, &r.subs[0], NULL));
    pg_results_free(&r);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_gpu_run_is_not_judged),
        cmocka_unit_test(test_measured_and_failed_are_judged),
        cmocka_unit_test(test_passing_submission_with_skipped_gpu_stages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
