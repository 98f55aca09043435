/* The results reader (report/results_read.h): a good file read into the typed view (run,
 * environment, submissions, workloads, typed stage details, baselines), every fixture read
 * without error, then each kind of bad field refused with PG_ERR_INPUT naming the file and the
 * JSON path: a wrong type, a number out of range, a word outside an enum, a malformed time, a
 * bad baselines note; and the on-demand records: the shard and holm records of a shard, the
 * members of Holm's family, and the stage statuses verdicts are folded from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/results_read.h"

#define RESULTS_DIR PG_TEST_DATA "/results"
#include "results_fixtures.h"

static void test_good_file(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    pg_results r;
    pg_diag d;
    assert_int_equal(pg_results_read(j, "all_pass.json", &r, &d), PG_OK);
    assert_string_equal(r.file, "all_pass.json");
    assert_int_equal(r.verdict, PG_RES_PASS);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.tool_name, "ptxgate");
    assert_true(r.env.has_gpu);
    assert_true(r.env.sm_count.has);
    assert_true(r.n_subs > 0);
    const pg_res_submission *s = &r.subs[0];
    assert_ptr_equal(s->json, json_array_get(json_object_get(j, "submissions"), 0));
    const pg_res_stage *as = pg_res_find_stage(s->stages, s->n_stages, "assemble");
    assert_non_null(as);
    assert_int_equal(as->detail.kind, PG_RES_STAGE_ASSEMBLE);
    assert_true(s->n_workloads > 0);
    const pg_res_workload *w = &s->workloads[0];
    const pg_res_stage *perf = pg_res_find_stage(w->stages, w->n_stages, "performance");
    assert_non_null(perf);
    assert_int_equal(perf->detail.kind, PG_RES_STAGE_PERFORMANCE);
    const pg_res_performance *p = &perf->detail.u.performance;
    assert_true(p->candidate.median_ms.has);
    assert_true(p->candidate.median_ms.v > 0.0);
    assert_true(p->baseline.tflops.has);
    assert_true(p->speedup_estimate.has);
    const pg_res_stage *cor = pg_res_find_stage(w->stages, w->n_stages, "correctness");
    assert_non_null(cor);
    assert_int_equal(cor->detail.kind, PG_RES_STAGE_CORRECTNESS);
    assert_null(r.baselines.dir); /* this run used no baselines folder */
    assert_true(r.counts[PG_RES_PASS].has);
    assert_true(r.counts[PG_RES_PASS].v > 0);
    assert_false(r.holm_m.has); /* no holm record */
    pg_results_free(&r);
    pg_results_free(&r); /* freeing twice is harmless */
    json_decref(j);
}

static void test_every_fixture_reads(void **state)
{
    (void)state;
    for (const char *const *f = k_fixtures; *f; f++) {
        json_t *j = load_fixture(*f);
        pg_results r;
        pg_diag d;
        pg_status st = pg_results_read(j, *f, &r, &d);
        if (st != PG_OK)
            print_error("%s: %s: %s\n", *f, d.field, d.message);
        assert_int_equal(st, PG_OK);
        pg_results_free(&r);
        json_decref(j);
    }
}

/* The fixture all_pass with json edited at a path ("submissions.0.workloads.0.stages.1.
 * details.speedup.ci_low" style: numbers index arrays) to v (stolen; NULL deletes). */
static json_t *edited(const char *path, json_t *v)
{
    json_t *j = load_fixture("all_pass");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = j;
    char *save = NULL, *tok = strtok_r(buf, ".", &save);
    while (tok) {
        char *next = strtok_r(NULL, ".", &save);
        bool index = tok[0] >= '0' && tok[0] <= '9';
        if (!next) {
            if (index)
                json_array_set_new(cur, (size_t)atoi(tok), v);
            else if (v)
                json_object_set_new(cur, tok, v);
            else
                json_object_del(cur, tok);
            break;
        }
        cur = index ? json_array_get(cur, (size_t)atoi(tok)) : json_object_get(cur, tok);
        assert_non_null(cur);
        tok = next;
    }
    return j;
}

/* The index of the performance stage of the first workload of all_pass. */
static int perf_index(void)
{
    json_t *j = load_fixture("all_pass");
    json_t *st = json_object_get(
        json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                       "workloads"),
                       0),
        "stages");
    int k = -1;
    for (size_t i = 0; i < json_array_size(st); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(st, i), "stage")),
                   "performance") == 0)
            k = (int)i;
    json_decref(j);
    assert_true(k >= 0);
    return k;
}

static void refused(json_t *j, const char *field, const char *message)
{
    pg_results r;
    pg_diag d;
    memset(&d, 0, sizeof d);
    pg_status st = pg_results_read(j, "bad.json", &r, &d);
    if (st != PG_ERR_INPUT || strcmp(d.field, field) != 0 || !strstr(d.message, message))
        print_error("got %d %s: %s\nwant %s: %s\n", st, d.field, d.message, field, message);
    assert_int_equal(st, PG_ERR_INPUT);
    assert_string_equal(d.file, "bad.json");
    assert_string_equal(d.field, field);
    assert_non_null(strstr(d.message, message));
    assert_null(r.subs); /* nothing to free after an error */
    json_decref(j);
}

/* details.reference "accepted" marks a speedup over the accepted kernel; anything else, or none,
 * one over the library. */
static void test_reference_of_the_speedup(void **state)
{
    (void)state;
    char path[256];
    int k = perf_index();
    snprintf(path, sizeof path, "submissions.0.workloads.0.stages.%d.details.reference", k);
    const char *words[] = {"accepted", "baseline", NULL};
    for (int i = 0; i < 3; i++) {
        json_t *j = i < 2 ? edited(path, json_string(words[i])) : load_fixture("all_pass");
        pg_results r;
        pg_diag d;
        assert_int_equal(pg_results_read(j, "r.json", &r, &d), PG_OK);
        const pg_res_workload *w = &r.subs[0].workloads[0];
        const pg_res_stage *perf = pg_res_find_stage(w->stages, w->n_stages, "performance");
        assert_non_null(perf);
        assert_int_equal(perf->detail.u.performance.over_accepted, i == 0);
        pg_results_free(&r);
        json_decref(j);
    }
}

static void test_bad_fields_name_file_and_path(void **state)
{
    (void)state;
    char path[256], field[256];
    int k = perf_index();
    snprintf(path, sizeof path, "submissions.0.workloads.0.stages.%d.details.speedup.ci_low", k);
    snprintf(field, sizeof field, "submissions[0].workloads[0].stages[%d].details.speedup.ci_low",
             k);
    /* a wrong type */
    refused(edited(path, json_string("0.7")), field, "expected a number, found a string");
    /* a number out of range */
    refused(edited(path, json_real(-1e308)), field, "expected a number >= 0 and below 1e12");
    snprintf(path, sizeof path,
             "submissions.0.workloads.0.stages.%d.details.candidate.median_ms", k);
    snprintf(field, sizeof field,
             "submissions[0].workloads[0].stages[%d].details.candidate.median_ms", k);
    refused(edited(path, json_real(0.0)), field, "expected a number > 0 and below 1e12");
    /* details.reference, a word */
    snprintf(path, sizeof path, "submissions.0.workloads.0.stages.%d.details.reference", k);
    snprintf(field, sizeof field, "submissions[0].workloads[0].stages[%d].details.reference",
             k);
    refused(edited(path, json_integer(1)), field, "expected a string");
    /* a word outside an enum */
    refused(edited("submissions.0.workloads.0.verdict", json_string("maybe")),
            "submissions[0].workloads[0].verdict",
            "expected one of pass, fail, error, skipped; found \"maybe\"");
    refused(edited("verdict", json_string("skipped")), "verdict",
            "expected one of pass, fail, error; found \"skipped\"");
    /* a missing required field, a malformed time, a bad stage name */
    refused(edited("submissions.0.name", NULL), "submissions[0].name", "");
    refused(edited("started_utc", json_string("yesterday")), "started_utc",
            "expected a UTC time");
    refused(edited("submissions.0.stages.0.stage", json_string("Assemble!")),
            "submissions[0].stages[0].stage", "expected a stage name");
    refused(edited("submissions.0.stages.0.duration_s", json_real(-1.0)),
            "submissions[0].stages[0].duration_s", "expected a duration in seconds >= 0");
    refused(edited("environment.gpu.memory_bytes", json_string("80 GB")),
            "environment.gpu.memory_bytes", "");
    refused(edited("exit_code", json_integer(7)), "exit_code", "expected 0, 1, 2 or 3");
    /* counts and holm are read leniently: verdicts fold them again, merge checks holm */
    json_t *j = edited("counts", json_string("many"));
    pg_results r;
    pg_diag d;
    assert_int_equal(pg_results_read(j, "c.json", &r, &d), PG_OK);
    assert_false(r.counts[PG_RES_FAIL].has);
    pg_results_free(&r);
    json_decref(j);
    /* the baselines record */
    refused(edited("baselines", json_pack("{s:s, s:[s, i]}", "dir", "baselines", "notes", "ok",
                                          3)),
            "baselines.notes[1]", "expected a string");
    refused(edited("baselines", json_pack("{s:i}", "dir", 3)), "baselines.dir",
            "expected a string, found an integer");
}

static void test_baselines_read(void **state)
{
    (void)state;
    json_t *j = edited("baselines", json_pack("{s:s, s:s, s:f, s:[s, s]}", "dir", "baselines",
                                              "gpu_key", "h200", "drift_tolerance", 0.1, "notes",
                                              "first", "second"));
    pg_results r;
    pg_diag d;
    assert_int_equal(pg_results_read(j, NULL, &r, &d), PG_OK);
    assert_string_equal(r.file, "results.json");
    assert_string_equal(r.baselines.dir, "baselines");
    assert_string_equal(r.baselines.gpu_key, "h200");
    assert_null(r.baselines.on_drift);
    assert_true(r.baselines.drift_tolerance.has);
    assert_int_equal(r.baselines.n_notes, 2);
    assert_string_equal(r.baselines.notes[1], "second");
    pg_results_free(&r);
    json_decref(j);
}

/* The shard and holm records, read on demand. */
static void test_shard_records(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    pg_results r;
    pg_res_shard sh;
    pg_diag d;
    assert_int_equal(pg_results_read(j, "s.json", &r, &d), PG_OK);
    assert_int_equal(pg_results_read_shard(&r, &sh, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "s.json");
    assert_string_equal(d.field, "shard");
    assert_non_null(strstr(d.message, "not the results of a shard"));
    json_object_set_new(j, "shard",
                        json_pack("{s:i, s:i, s:i, s:[{s:i, s:i, s:s, s:s, s:s, s:n}, {s:i}]}",
                                  "index", 2, "count", 3, "items_total", 5, "items",
                                  "submission_index", 1, "workload_index", 4, "task", "t",
                                  "submission", "s", "workload", "w", "manifest", "task",
                                  3));
    assert_int_equal(pg_results_read_shard(&r, &sh, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "holm");
    json_object_set_new(j, "holm", json_pack("{s:f, s:i, s:i}", "run_alpha", 1.5, "m_planned",
                                             4, "m", 2));
    assert_int_equal(pg_results_read_shard(&r, &sh, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "holm.run_alpha");
    json_object_set_new(j, "holm", json_pack("{s:f, s:i, s:i}", "run_alpha", 0.05, "m_planned",
                                             4, "m", 2));
    assert_int_equal(pg_results_read_shard(&r, &sh, &d), PG_OK);
    assert_int_equal(sh.index, 2);
    assert_int_equal(sh.count, 3);
    assert_int_equal(sh.items_total, 5);
    assert_int_equal(sh.m, 2);
    assert_int_equal(sh.n_items, 2);
    assert_int_equal(sh.items[0].workload_index, 4);
    assert_string_equal(sh.items[0].workload, "w");
    assert_null(sh.items[0].manifest);
    assert_int_equal(sh.items[1].submission_index, -1); /* not an integer */
    assert_null(sh.items[1].task);                      /* not a string */
    const char *which = NULL;
    assert_false(pg_res_shard_items_same(&sh.items[0], &sh.items[1], &which));
    assert_string_equal(which, "task");
    assert_true(pg_res_shard_items_same(&sh.items[0], &sh.items[0], NULL));
    pg_res_shard_free(&sh);
    json_object_set_new(json_object_get(j, "shard"), "index", json_integer(4));
    assert_int_equal(pg_results_read_shard(&r, &sh, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "shard");
    pg_results_free(&r);
    json_decref(j);
}

static void test_holm_family_and_fold(void **state)
{
    (void)state;
    int k = perf_index();
    char path[256], field[256];
    snprintf(path, sizeof path, "submissions.0.workloads.0.stages.%d.details.comparisons", k);
    json_t *j = edited(path, json_pack("[{s:s, s:s, s:f, s:b}, {s:s, s:s, s:f}, {s:s, s:s}]",
                                       "name", "candidate_vs_cublaslt", "verdict", "FAIL",
                                       "p_fail_seq", 0.01, "holm_changed", 1, "name",
                                       "aa_canary", "verdict", "PASS", "p_fail_seq", 1.0,
                                       "name", "no_p", "verdict", "PASS"));
    pg_res_holm_family f;
    pg_diag d;
    assert_int_equal(pg_results_read_holm_family(j, "r.json", &f, &d), PG_OK);
    assert_int_equal(f.n, 1); /* neither the canary nor an entry without p_fail_seq */
    assert_string_equal(f.members[0].name, "candidate_vs_cublaslt");
    assert_int_equal(f.members[0].verdict, PG_CMP_FAIL);
    assert_true(f.members[0].holm_changed);
    assert_false(f.stages[f.members[0].stage].is_error);
    pg_res_holm_family_free(&f);
    json_t *cmp = json_array_get(json_object_get(json_object_get(json_array_get(
                      json_object_get(json_array_get(json_object_get(json_array_get(
                          json_object_get(j, "submissions"), 0), "workloads"), 0), "stages"),
                      (size_t)k), "details"), "comparisons"), 0);
    json_object_set_new(cmp, "p_fail_seq", json_real(-0.5));
    assert_int_equal(pg_results_read_holm_family(j, "r.json", &f, &d), PG_ERR_INPUT);
    snprintf(field, sizeof field,
             "submissions[0].workloads[0].stages[%d].details.comparisons[0].p_fail_seq", k);
    assert_string_equal(d.file, "r.json");
    assert_string_equal(d.field, field);
    json_object_set_new(cmp, "p_fail_seq", json_real(0.5));
    json_object_set_new(cmp, "verdict", json_string("MAYBE"));
    assert_int_equal(pg_results_read_holm_family(j, "r.json", &f, &d), PG_ERR_INPUT);
    snprintf(field, sizeof field,
             "submissions[0].workloads[0].stages[%d].details.comparisons[0].verdict", k);
    assert_string_equal(d.field, field);

    /* The statuses folded into verdicts: unknown words are left out. */
    json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(j,
                            "submissions"), 0), "stages"), 0), "status", json_string("odd"));
    pg_res_fold_view v;
    assert_int_equal(pg_results_read_fold(j, &v, &d), PG_OK);
    assert_true(v.n_subs > 0);
    size_t n_sub_stages =
        json_array_size(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                        "stages"));
    assert_int_equal(v.subs[0].sub.n_stages, n_sub_stages - 1);
    assert_true(v.subs[0].n_workloads > 0);
    assert_int_equal(v.subs[0].workloads[0].stages[0], PG_RES_PASS);
    pg_res_fold_view_free(&v);
    json_decref(j);
}

/* The getters `baseline refresh` reads a performance stage and the environment with: an
 * object and a boolean member read when present, absent or null reads as none, and a member of
 * another type is PG_ERR_INPUT naming the file and the full JSON path. */
static void test_object_and_bool_getters(void **state)
{
    (void)state;
    json_t *det = json_pack("{s:{s:{s:i},s:b,s:n,s:s,s:i}}", "stored_baseline",
                            "algorithm_config", "id", 7, "algorithm_reproducible", 1,
                            "configuration", "word", "x", "flag", 1);
    assert_non_null(det);
    pg_res_stage s;
    memset(&s, 0, sizeof s);
    s.details = det;
    s.details_ctx.file = "r.json";
    snprintf(s.details_ctx.path, sizeof s.details_ctx.path, "submissions[0].stages[1].details");
    pg_diag d;
    const json_t *o = NULL;
    assert_int_equal(pg_res_detail_object(&s, "stored_baseline.algorithm_config", &o, &d), PG_OK);
    assert_int_equal(json_integer_value(json_object_get(o, "id")), 7);
    assert_int_equal(pg_res_detail_object(&s, "stored_baseline.configuration", &o, &d), PG_OK);
    assert_null(o); /* null reads as none */
    assert_int_equal(pg_res_detail_object(&s, "stored_baseline.missing", &o, &d), PG_OK);
    assert_null(o);
    assert_int_equal(pg_res_detail_object(&s, "stored_baseline.word", &o, &d), PG_ERR_INPUT);
    assert_null(o);
    assert_string_equal(d.file, "r.json");
    assert_non_null(strstr(d.message, "expected an object, found a string"));
    assert_non_null(strstr(d.field, "stored_baseline.word"));

    int b = 5;
    assert_int_equal(pg_res_detail_bool(&s, "stored_baseline.algorithm_reproducible", &b, &d),
                     PG_OK);
    assert_int_equal(b, 1);
    assert_int_equal(pg_res_detail_bool(&s, "stored_baseline.configuration", &b, &d), PG_OK);
    assert_int_equal(b, -1);
    assert_int_equal(pg_res_detail_bool(&s, "stored_baseline.flag", &b, &d), PG_ERR_INPUT);
    assert_int_equal(b, -1);
    assert_non_null(strstr(d.message, "expected true or false, found"));
    assert_non_null(strstr(d.field, "stored_baseline.flag"));

    json_t *env = json_pack("{s:{s:b,s:s}}", "gpu", "ecc", 0, "name", "H200");
    pg_jctx ctx = {.file = "r.json", .path = "environment"};
    assert_int_equal(pg_res_get_bool(env, &ctx, "gpu.ecc", &b, &d), PG_OK);
    assert_int_equal(b, 0);
    assert_int_equal(pg_res_get_bool(env, &ctx, "gpu.name", &b, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.field, "environment.gpu.name"));
    json_decref(env);
    json_decref(det);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_every_fixture_reads),
        cmocka_unit_test(test_reference_of_the_speedup),
        cmocka_unit_test(test_bad_fields_name_file_and_path),
        cmocka_unit_test(test_baselines_read),
        cmocka_unit_test(test_shard_records),
        cmocka_unit_test(test_holm_family_and_fold),
        cmocka_unit_test(test_object_and_bool_getters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
