/* Unit tests of the instructions stage's results records (gate/pipeline/instr_stage.c): the
 * interface left for the runtime half, pg_instr_record_runtime, on stage records shaped as the
 * static half writes them (read into the typed value as a worker reads its job file), the
 * status and message derived under each policy, and the writer's exact output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/instr_stage.h"
#include "pipeline/results_json.h"
#include "pipeline/worker_json.h"
#include "pipeline/submission_stages.h"

/* The status and details of a stage record, read back as a reader would. */
static const char *rec_status(const json_t *st)
{
    return json_string_value(json_object_get(st, "status"));
}

static json_t *rec_details(json_t *st)
{
    return json_object_get(st, "details");
}

/* A target record as the static half writes it. */
static json_t *target(const char *name, const char *status, const char *reason, long ptx,
                      const char *sass_status, long sass)
{
    json_t *t = json_pack("{s:s, s:s, s:[s], s:s, s:o, s:s, s:{s:I, s:[i], s:[], s:[]}, "
                          "s:{s:s, s:o, s:[]}, s:{s:s, s:n, s:n, s:n, s:n}}",
                          "target", name, "family", name, "sass_families", "HGMMA", "status",
                          status, "reason", reason ? json_string(reason) : json_null(),
                          "summary", reason ? "absent" : "present", "ptx", "count",
                          (json_int_t)ptx, "lines", 12, "mnemonics", "nearest", "sass",
                          "status", sass_status, "count",
                          sass >= 0 ? json_integer(sass) : json_null(), "opcodes", "runtime",
                          "status", "not measured", "executed_count", "coverage",
                          "min_coverage", "reason");
    assert_non_null(t);
    return t;
}

static json_t *stage(const char *policy, json_t *t1, json_t *t2, const char *sass_status)
{
    pg_stage_entry *e = pg_stage_entry_new(PG_STAGE_INSTRUCTIONS);
    assert_non_null(e);
    json_t *st = json_incref(e->record), *det = e->details;
    pg_stage_entry_free(e);
    json_object_set_new(det, "policy", json_string(policy));
    json_object_set_new(det, "arch", json_string("sm_90a"));
    json_object_set_new(det, "sass", json_pack("{s:s, s:n}", "status", sass_status, "reason"));
    json_object_set_new(det, "targets", json_pack("[o, o]", t1, t2));
    return st;
}

/* The runtime half on record *st: read it typed, record, write it again in its place. */
static void record(json_t **st, const char *target, double executed, double coverage,
                   double min_coverage)
{
    pg_instr_stage *rec = pg_instr_stage_from_json(*st);
    assert_non_null(rec);
    pg_instr_record_runtime(rec, target, executed, coverage, min_coverage);
    json_t *j = pg_instr_stage_json(rec);
    assert_non_null(j);
    pg_instr_stage_free(rec);
    json_decref(*st);
    *st = j;
}

static const json_t *runtime_of(json_t *st, int i)
{
    return json_object_get(json_array_get(json_object_get(rec_details(st), "targets"), i),
                           "runtime");
}

static void test_runtime_pass(void **state)
{
    (void)state;
    json_t *st = stage("require", target("wgmma.mma_async", "pass", NULL, 8, "checked", 16),
                       target("cp.async.bulk.tensor", "pass", NULL, 2, "checked", 4), "checked");
    record(&st, "wgmma.mma_async", 524288, 1.0, 0.99);
    const json_t *rt = runtime_of(st, 0);
    assert_string_equal(json_string_value(json_object_get(rt, "status")), "measured");
    assert_true(json_real_value(json_object_get(rt, "executed_count")) == 524288);
    assert_true(json_is_null(json_object_get(rt, "reason")));
    /* one target still not measured: a pass of the static part, says so, and the message
     * carries the measured target's count and coverage */
    assert_string_equal(rec_status(st), "pass");
    assert_non_null(strstr(json_string_value(json_object_get(st, "message")),
                           "wgmma.mma_async (PTX ×8, SASS ×16, executed 524288, coverage 1.000)"));
    assert_non_null(strstr(json_string_value(json_object_get(st, "message")),
                           "executed counts measured for 1 of 2 targets"));
    record(&st, "cp.async.bulk.tensor", 4096, NAN, NAN);
    assert_true(json_is_null(json_object_get(runtime_of(st, 1), "coverage")));
    assert_string_equal(rec_status(st), "pass");
    assert_null(strstr(json_string_value(json_object_get(st, "message")), "not measured"));
    assert_non_null(strstr(json_string_value(json_object_get(st, "message")),
                           "cp.async.bulk.tensor (PTX ×2, SASS ×4, executed 4096)"));
    /* an unknown target changes nothing */
    record(&st, "mma.sync", 0, NAN, NAN);
    assert_string_equal(rec_status(st), "pass");
    json_decref(st);
}

static void test_never_executed(void **state)
{
    (void)state;
    json_t *st = stage("require", target("wgmma.mma_async", "pass", NULL, 8, "checked", 16),
                       target("cp.async.bulk.tensor", "pass", NULL, 2, "checked", 4), "checked");
    record(&st, "wgmma.mma_async", 0, 0.0, 0.99);
    const json_t *t0 = json_array_get(json_object_get(rec_details(st), "targets"), 0);
    assert_string_equal(json_string_value(json_object_get(t0, "status")), "fail");
    assert_string_equal(json_string_value(json_object_get(t0, "reason")), "never_executed");
    assert_string_equal(rec_status(st), "fail");
    const char *msg = json_string_value(json_object_get(st, "message"));
    assert_non_null(strstr(msg, "1 of 2 targets fails on sm_90a"));
    assert_non_null(strstr(msg, "present but never executed"));
    json_decref(st);
}

static void test_coverage_too_low_warn(void **state)
{
    (void)state;
    json_t *st = stage("warn", target("wgmma.mma_async", "pass", NULL, 8, "checked", 16),
                       target("cp.async.bulk.tensor", "pass", NULL, 2, "checked", 4), "checked");
    record(&st, "wgmma.mma_async", 128, 0.004, 0.99);
    const json_t *rt = runtime_of(st, 0);
    assert_string_equal(json_string_value(json_object_get(rt, "reason")), "coverage_too_low");
    /* policy warn: reported, the stage passes */
    assert_string_equal(rec_status(st), "pass");
    const char *msg = json_string_value(json_object_get(st, "message"));
    assert_non_null(strstr(msg, "warning (instructions policy warn"));
    assert_non_null(strstr(msg, "covering 0.004 of the required work (minimum 0.99)"));
    json_decref(st);
}

static void test_static_reason_kept(void **state)
{
    (void)state;
    /* a target absent in the PTX keeps that reason whatever the runtime says */
    json_t *st = stage("require",
                       target("wgmma.mma_async", "fail", "absent_in_ptx", 0, "checked", 0),
                       target("cp.async.bulk.tensor", "pass", NULL, 2, "checked", 4), "checked");
    record(&st, "wgmma.mma_async", 0, 0.0, 0.99);
    const json_t *t0 = json_array_get(json_object_get(rec_details(st), "targets"), 0);
    assert_string_equal(json_string_value(json_object_get(t0, "reason")), "absent_in_ptx");
    assert_string_equal(json_string_value(json_object_get(runtime_of(st, 0), "reason")),
                        "never_executed");
    assert_string_equal(rec_status(st), "fail");
    json_decref(st);
}

static void test_unchecked_sass(void **state)
{
    (void)state;
    /* SASS not checked: the stage is skipped, never a pass; a disassembler error is an error */
    json_t *st = stage("require", target("wgmma.mma_async", "unknown", NULL, 8, "skipped", -1),
                       target("cp.async.bulk.tensor", "unknown", NULL, 2, "skipped", -1),
                       "skipped");
    record(&st, "wgmma.mma_async", 64, 1.0, 0.99);
    assert_string_equal(rec_status(st), "skipped");
    assert_non_null(strstr(json_string_value(json_object_get(st, "message")),
                           "in the PTX: wgmma.mma_async ×8, cp.async.bulk.tensor ×2"));
    json_decref(st);
    st = stage("warn", target("wgmma.mma_async", "unknown", NULL, 8, "error", -1),
               target("cp.async.bulk.tensor", "unknown", NULL, 2, "error", -1), "error");
    record(&st, "wgmma.mma_async", 64, 1.0, 0.99);
    assert_string_equal(rec_status(st), "error");
    json_decref(st);
}

/* The writer's record for a typed value, key for key and in order. */
static void test_writer_exact(void **state)
{
    (void)state;
    pg_instr_stage *st = pg_instr_stage_new();
    assert_non_null(st);
    snprintf(st->policy, sizeof st->policy, "require");
    snprintf(st->arch, sizeof st->arch, "sm_90a");
    st->duration_s = 0.25;
    st->table = json_string("sm_90a.json");
    st->ptx = json_pack("{s:s}", "file", "k.ptx");
    st->sass = json_pack("{s:s, s:n}", "status", "checked", "reason");
    snprintf(st->sass_status, sizeof st->sass_status, "checked");
    st->has_targets = true;
    st->n_targets = 1;
    pg_instr_target *t = &st->targets[0];
    snprintf(t->target, sizeof t->target, "wgmma.mma_async");
    snprintf(t->family, sizeof t->family, "wgmma.mma_async");
    snprintf(t->sass_families[0], sizeof t->sass_families[0], "HGMMA");
    t->n_sass = 1;
    snprintf(t->status, sizeof t->status, "pass");
    snprintf(t->summary, sizeof t->summary, "present");
    t->ptx_count = 8;
    t->sass_counted = true;
    t->sass_count = 16;
    t->ptx = json_pack("{s:i}", "count", 8);
    t->sass = json_pack("{s:s, s:i, s:[]}", "status", "checked", "count", 16, "opcodes");
    pg_instr_target_runtime_clear(t);
    pg_instr_stage_finish(st);
    pg_instr_record_runtime(st, "wgmma.mma_async", 512, 1.0, 0.99);
    json_t *j = pg_instr_stage_json(st);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_string_equal(
        text,
        "{\"stage\":\"instructions\",\"status\":\"pass\",\"message\":\"1/1 target in the PTX "
        "and the SASS on sm_90a: wgmma.mma_async (PTX ×8, SASS ×16, executed 512, coverage "
        "1.000)\",\"duration_s\":0.25,\"details\":{\"policy\":\"require\",\"arch\":\"sm_90a\","
        "\"table\":\"sm_90a.json\",\"ptx\":{\"file\":\"k.ptx\"},\"sass\":{\"status\":\"checked\","
        "\"reason\":null},\"targets\":[{\"target\":\"wgmma.mma_async\",\"family\":"
        "\"wgmma.mma_async\",\"sass_families\":[\"HGMMA\"],\"status\":\"pass\",\"reason\":null,"
        "\"summary\":\"present\",\"ptx\":{\"count\":8},\"sass\":{\"status\":\"checked\","
        "\"count\":16,\"opcodes\":[]},\"runtime\":{\"status\":\"measured\",\"executed_count\":"
        "512.0,\"coverage\":1.0,\"min_coverage\":0.98999999999999999,\"reason\":null}}],"
        "\"rule\":\"each target must be in the PTX (opcode and modifier set, never a substring) "
        "and, as one of its SASS families, in the disassembled cubin; then executed and covering "
        "the required work\"}}");
    /* what a worker reads back from its job file writes the same record */
    pg_instr_stage *back = pg_instr_stage_from_json(j);
    assert_non_null(back);
    json_t *j2 = pg_instr_stage_json(back);
    char *text2 = json_dumps(j2, JSON_COMPACT);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    json_decref(j);
    json_decref(j2);
    pg_instr_stage_free(back);
    pg_instr_stage_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_pass),
        cmocka_unit_test(test_never_executed),
        cmocka_unit_test(test_coverage_too_low_warn),
        cmocka_unit_test(test_static_reason_kept),
        cmocka_unit_test(test_unchecked_sass),
        cmocka_unit_test(test_writer_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
