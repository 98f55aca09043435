/* Unit tests of the stage ledger (gate/pipeline/ledger.h) and the workload state
 * (wl_state.h): finishing a stage sets the typed entry and its JSON record alike (rounding, the
 * UTF-8 repair, key order), lookups by kind, the ledger's growth limit, kind and status names
 * both ways, and a worker's workload record decoded back into the typed state (worker_json.h).
 * Links the pipeline library (no GPU is touched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/ledger.h"
#include "pipeline/wl_state.h"
#include "pipeline/worker_json.h"

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
    assert_non_null(s);
    return s;
}

static void test_finish_sets_typed_and_json(void **state)
{
    (void)state;
    pg_stage_entry *e = pg_stage_entry_new(PG_STAGE_LOAD);
    assert_non_null(e);
    char *fresh = dump(e->record);
    assert_string_equal(fresh, "{\"stage\":\"load\",\"status\":\"skipped\",\"message\":\"\","
                               "\"duration_s\":0.0,\"details\":{}}");
    free(fresh);
    json_object_set_new(pg_stage_details(e), "log", json_string("ok"));
    pg_stage_finish(e, "fail", 1.23456789, "module %s: %d", "x\xff", 3);
    assert_int_equal(e->kind, PG_STAGE_LOAD);
    assert_int_equal(e->status, PG_RES_FAIL);
    assert_string_equal(pg_stage_status(e), "fail");
    /* the invalid byte repaired in both, the duration rounded to the microsecond in both */
    assert_string_equal(e->message, "module x\xEF\xBF\xBD: 3");
    assert_true(e->duration_s == round(1.23456789 * 1e6) / 1e6);
    assert_string_equal(json_string_value(json_object_get(e->record, "message")), e->message);
    assert_true(json_real_value(json_object_get(e->record, "duration_s")) == e->duration_s);
    char *done = dump(e->record);
    assert_string_equal(done, "{\"stage\":\"load\",\"status\":\"fail\",\"message\":\"module "
                              "x\xEF\xBF\xBD: 3\",\"duration_s\":1.234568,\"details\":"
                              "{\"log\":\"ok\"}}");
    free(done);
    /* finishing again replaces both; an unknown status is recorded as an error */
    pg_stage_finish(e, "maybe", 0.0, "%s", "again");
    assert_int_equal(e->status, PG_RES_ERROR);
    assert_string_equal(json_string_value(json_object_get(e->record, "status")), "error");
    assert_string_equal(pg_stage_message(e), "again");
    pg_stage_entry_free(e);
    /* a NULL entry (out of memory, a full ledger) is a no-op everywhere */
    pg_stage_finish(NULL, "pass", 1.0, "x");
    assert_null(pg_stage_details(NULL));
    assert_string_equal(pg_stage_status(NULL), "");
    assert_string_equal(pg_stage_message(NULL), "");
    assert_false(pg_stage_is(NULL, PG_STAGE_LOAD, PG_RES_PASS));
}

static void test_names(void **state)
{
    (void)state;
    for (int k = 0; k < PG_STAGE_KIND_COUNT; k++) {
        pg_stage_kind back = PG_STAGE_KIND_COUNT;
        assert_true(pg_stage_kind_from_name(pg_stage_kind_name((pg_stage_kind)k), &back));
        assert_int_equal(back, k);
    }
    assert_string_equal(pg_stage_kind_name(PG_STAGE_PERFORMANCE), "performance");
    assert_string_equal(pg_stage_kind_name(PG_STAGE_KIND_COUNT), "?");
    pg_stage_kind k = PG_STAGE_LOAD;
    assert_false(pg_stage_kind_from_name("baseline drift", &k));
    assert_false(pg_stage_kind_from_name(NULL, &k));
    assert_int_equal(k, PG_STAGE_LOAD);
    pg_res_status st = PG_RES_PASS;
    assert_true(pg_stage_status_from_name("skipped", &st));
    assert_int_equal(st, PG_RES_SKIPPED);
    assert_false(pg_stage_status_from_name("PASS", &st));
    assert_int_equal(st, PG_RES_SKIPPED);
}

static void test_ledger_find(void **state)
{
    (void)state;
    json_t *array = json_array();
    pg_ledger l = {0};
    pg_ledger_init(&l, array);
    assert_null(pg_ledger_last(&l));
    assert_null(pg_ledger_find(&l, PG_STAGE_ASSEMBLE));
    pg_stage_finish(pg_ledger_begin(&l, PG_STAGE_CORRECTNESS), "pass", 0.5, "ok");
    pg_stage_finish(pg_ledger_begin(&l, PG_STAGE_PERFORMANCE), "fail", 2.0, "slow");
    pg_stage_finish(pg_ledger_begin(&l, PG_STAGE_PERFORMANCE), "pass", 3.0, "fast");
    pg_stage_entry *last = pg_ledger_last(&l);
    assert_int_equal(l.n, 3);
    assert_int_equal(json_array_size(array), 3);
    /* each entry's record is the array's element, in order */
    for (size_t i = 0; i < l.n; i++)
        assert_ptr_equal(pg_ledger_at(&l, i)->record, json_array_get(array, i));
    assert_null(pg_ledger_at(&l, 3));
    assert_string_equal(pg_ledger_find(&l, PG_STAGE_PERFORMANCE)->message, "slow");
    assert_ptr_equal(pg_ledger_find_last(&l, PG_STAGE_PERFORMANCE), last);
    assert_true(pg_stage_is(last, PG_STAGE_PERFORMANCE, PG_RES_PASS));
    assert_null(pg_ledger_find(&l, PG_STAGE_VERIFY));
    /* the records outlive the ledger in the results */
    pg_ledger_release(&l);
    assert_int_equal(l.n, 0);
    assert_int_equal(json_array_size(array), 3);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(array, 2), "message")), "fast");
    json_decref(array);
}

static void test_ledger_limit(void **state)
{
    (void)state;
    json_t *array = json_array();
    pg_ledger l = {0};
    pg_ledger_init(&l, array);
    for (int i = 0; i < PG_LEDGER_MAX; i++)
        assert_non_null(pg_ledger_begin(&l, PG_STAGE_VERIFY));
    /* full: refused, nothing added to either side */
    assert_null(pg_ledger_begin(&l, PG_STAGE_VERIFY));
    assert_null(pg_ledger_push(&l, pg_stage_entry_new(PG_STAGE_LOAD)));
    assert_null(pg_ledger_push(&l, NULL));
    assert_int_equal(l.n, PG_LEDGER_MAX);
    assert_int_equal(json_array_size(array), PG_LEDGER_MAX);
    pg_ledger_release(&l);
    /* typed only: no array */
    pg_ledger_init(&l, NULL);
    assert_non_null(pg_ledger_begin(&l, PG_STAGE_LOAD));
    assert_int_equal(l.n, 1);
    pg_ledger_release(&l);
    json_decref(array);
}

static void test_workload_state(void **state)
{
    (void)state;
    json_t *stages = json_array();
    json_t *wj = json_pack("{s:s, s:O, s:s}", "name", "w1", "stages", stages, "status", "SKIPPED");
    pg_wl_state w = {0};
    pg_wl_state_init(&w, 4, "w1", wj, stages, "SKIPPED");
    pg_wl_set_ptxbench(&w, "TIMEOUT");
    assert_string_equal(w.ptxbench, "TIMEOUT");
    assert_string_equal(json_string_value(json_object_get(wj, "status")), "TIMEOUT");
    assert_false(pg_wl_timing_completed(&w));
    pg_stage_finish(pg_ledger_begin(&w.stages, PG_STAGE_PERFORMANCE), "fail", 1.0,
                    "kernel failed at run time: x");
    assert_false(pg_wl_timing_completed(&w));
    pg_stage_finish(pg_ledger_last(&w.stages), "fail", 1.0, "slower than cuBLASLt");
    assert_true(pg_wl_timing_completed(&w));
    pg_stage_entry *perf = pg_ledger_last(&w.stages);
    json_object_set_new(perf->details, "comparisons",
                        json_pack("[{s:s}, {s:s}]", "name", "candidate_vs_cublaslt", "name",
                                  "aa_canary"));
    pg_stage_finish(pg_ledger_begin(&w.stages, PG_STAGE_VERIFY), "pass", 0.25, "ok");
    assert_false(pg_wl_timing_completed(&w)); /* the last stage is verify now */

    /* the record as a worker sends it, decoded into a fresh state */
    char *text = dump(wj);
    json_t *back = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(back);
    pg_wl_state got = {0};
    assert_true(pg_wl_state_from_json(back, 4, "w1", &got));
    assert_int_equal(got.task_index, 4);
    assert_string_equal(got.ptxbench, "TIMEOUT");
    assert_int_equal(got.stages.n, 2);
    assert_int_equal(pg_ledger_at(&got.stages, 0)->kind, PG_STAGE_PERFORMANCE);
    assert_int_equal(pg_ledger_at(&got.stages, 0)->status, PG_RES_FAIL);
    assert_string_equal(pg_ledger_at(&got.stages, 0)->message, "slower than cuBLASLt");
    assert_true(pg_ledger_at(&got.stages, 1)->duration_s == 0.25);
    assert_int_equal(got.perf.n_cmps, 2);
    assert_string_equal(got.perf.cmps[1].name, "aa_canary");
    /* the decoded handles write into the decoded record, nothing was copied */
    json_object_set_new(got.perf.cmps[0].record, "holm_changed", json_true());
    json_t *det = json_object_get(json_array_get(json_object_get(back, "stages"), 0), "details");
    assert_true(json_is_true(
        json_object_get(json_array_get(json_object_get(det, "comparisons"), 0), "holm_changed")));
    /* a further stage goes into the record's own array */
    pg_ledger_begin(&got.stages, PG_STAGE_WORKER);
    assert_int_equal(json_array_size(json_object_get(back, "stages")), 3);
    pg_wl_state_release(&got);

    /* an unknown stage or status is no worker record */
    json_array_append_new(json_object_get(back, "stages"),
                          json_pack("{s:s, s:s}", "stage", "tea", "status", "pass"));
    got.task_index = 77;
    assert_false(pg_wl_state_from_json(back, 4, "w1", &got));
    assert_int_equal(got.task_index, 77);
    assert_false(pg_wl_state_from_json(json_array_get(json_object_get(back, "stages"), 0), 4,
                                       "w1", &got));
    json_decref(back);
    pg_wl_state_release(&w);
    json_decref(wj);
    json_decref(stages);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_sets_typed_and_json),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_ledger_find),
        cmocka_unit_test(test_ledger_limit),
        cmocka_unit_test(test_workload_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
