/* Compare's view of the results reader (report/results_read_compare.h): the pairing index
 * (lookups, and duplicates refused naming the file and both places), the settings and per-pair
 * values read as recorded, the name map, the shapes of recorded values, and the comparison
 * model read into typed records: outcomes, change kinds and source relations as enums, the
 * lenient defaults of a model before its aggregates, the gate and Wilcoxon's direction once
 * they are added, and words outside an enum refused naming the JSON path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "report/results_read_compare.h"

static json_t *stage(const char *name, const char *status)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", name, "status", status, "message", "",
                     "duration_s", 0.0, "details");
}

/* A results root with one submission per (task, name) pair and the given workload names. */
static json_t *results(const char *const *subs, size_t n_subs, const char *const *wls,
                       size_t n_wls)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n_subs; i += 2) {
        json_t *w = json_array();
        for (size_t j = 0; j < n_wls; j++)
            json_array_append_new(w, json_pack("{s:s, s:s, s:[o]}", "name", wls[j], "verdict",
                                               "pass", "stages", stage("correctness", "pass")));
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:[o], s:o}", "task", subs[i],
                                             "name", subs[i + 1], "verdict", "pass", "stages",
                                             stage("assemble", "pass"), "workloads", w));
    }
    return json_pack("{s:i, s:s, s:f, s:s, s:i, s:{s:s, s:n, s:s, s:n, s:n, s:n, s:n}, s:o}",
                     "schema_version", 1, "started_utc", "2026-12-01T00:00:00Z", "duration_s",
                     1.0, "verdict", "pass", "exit_code", 0, "environment", "hostname", "h",
                     "gpu", "gpu_skip_reason", "test", "driver_version",
                     "cuda_driver_api_version", "ptxas_version", "cublaslt_version",
                     "submissions", arr);
}

static void test_index(void **state)
{
    (void)state;
    static const char *const subs[] = {"gemm", "a", "gemm", "b", "softmax", "a"};
    static const char *const wls[] = {"small", "large"};
    json_t *j = results(subs, 6, wls, 2);
    pg_results r;
    pg_diag d;
    assert_int_equal(pg_results_read(j, "r.json", &r, &d), PG_OK);
    pg_res_cmp_index x;
    assert_int_equal(pg_res_cmp_index_build(&r, &x, &d), PG_OK);
    const pg_res_submission *s = pg_res_cmp_find_sub(&r, &x, "softmax", "a");
    assert_ptr_equal(s, &r.subs[2]);
    assert_null(pg_res_cmp_find_sub(&r, &x, "softmax", "b"));
    /* (task, name) is one key: "gemma" + "" is not "gemm" + "a". */
    assert_null(pg_res_cmp_find_sub(&r, &x, "gemma", ""));
    assert_ptr_equal(pg_res_cmp_find_wl(&r, &x, s, "large"), &s->workloads[1]);
    assert_null(pg_res_cmp_find_wl(&r, &x, s, "medium"));
    pg_res_cmp_index_free(&x);
    pg_results_free(&r);
    json_decref(j);

    static const char *const twice[] = {"gemm", "a", "gemm", "a"};
    j = results(twice, 4, wls, 1);
    assert_int_equal(pg_results_read(j, "r.json", &r, &d), PG_OK);
    assert_int_equal(pg_res_cmp_index_build(&r, &x, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "r.json");
    assert_string_equal(d.field, "submissions[1]");
    assert_non_null(strstr(d.message, "first at submissions[0]"));
    pg_res_cmp_index_free(&x);
    pg_results_free(&r);
    json_decref(j);

    static const char *const same_wl[] = {"small", "small"};
    j = results(subs, 2, same_wl, 2);
    assert_int_equal(pg_results_read(j, "r.json", &r, &d), PG_OK);
    assert_int_equal(pg_res_cmp_index_build(&r, &x, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "submissions[0].workloads[1]");
    assert_non_null(strstr(d.message, "workload 'small' appears twice"));
    pg_res_cmp_index_free(&x);
    pg_results_free(&r);
    json_decref(j);
}

static void test_settings_and_pair(void **state)
{
    (void)state;
    json_t *root = json_pack("{s:{s:i, s:n, s:s}, s:{s:s}}", "settings", "correctness_sets", 3,
                             "min_speedup_override", "timing_mode_override", "cold",
                             "baselines", "dir", "baselines");
    pg_res_cmp_run run;
    pg_res_cmp_run_read(root, &run);
    assert_int_equal(json_integer_value(run.correctness_sets), 3);
    assert_true(json_is_null(run.min_speedup_override)); /* null is kept as recorded */
    assert_string_equal(json_string_value(run.timing_mode_override), "cold");
    assert_null(run.seed);
    assert_true(json_is_object(run.baselines));
    pg_res_cmp_run_read(NULL, &run);
    assert_null(run.correctness_sets);
    assert_null(run.baselines);

    json_t *sub = json_pack("{s:s}", "arch", "sm_90a");
    json_t *wl = json_pack("{s:[{s:s, s:{s:s}}, {s:s, s:{s:i, s:s}}, {s:s, s:{s:s}}]}",
                           "stages", "stage", "instructions", "details", "policy", "require",
                           "stage", "performance", "details", "min_speedup", 1, "mode", "cold",
                           "stage", "performance", "details", "mode", "sustained");
    pg_res_cmp_pair p;
    pg_res_cmp_pair_read(sub, wl, &p);
    assert_string_equal(json_string_value(p.arch), "sm_90a");
    assert_string_equal(json_string_value(p.policy), "require");
    assert_true(json_is_integer(p.min_speedup)); /* copied as recorded: 1, not 1.0 */
    assert_string_equal(json_string_value(p.mode), "cold"); /* the first performance stage */
    pg_res_cmp_pair_read(NULL, NULL, &p);
    assert_null(p.arch);
    assert_null(p.mode);
    json_decref(root);
    json_decref(sub);
    json_decref(wl);
}

static void test_names_and_values(void **state)
{
    (void)state;
    pg_cmp_names n;
    assert_true(pg_cmp_names_init(&n));
    assert_int_equal(pg_cmp_names_get(&n, "gemm"), -1);
    assert_true(pg_cmp_names_set(&n, "gemm", 0));
    assert_true(pg_cmp_names_set(&n, "softmax", 7));
    assert_int_equal(pg_cmp_names_get(&n, "gemm"), 0);
    assert_int_equal(pg_cmp_names_get(&n, "softmax"), 7);
    pg_cmp_names_free(&n);

    json_t *s = json_string("cold"), *x = json_real(0.5), *o = json_pack("{s:i}", "load", 1);
    assert_int_equal(pg_cmp_value_of(NULL).kind, PG_CMP_VALUE_NONE);
    assert_int_equal(pg_cmp_value_of(json_null()).kind, PG_CMP_VALUE_NONE);
    assert_int_equal(pg_cmp_value_of(s).kind, PG_CMP_VALUE_TEXT);
    assert_string_equal(pg_cmp_value_of(s).text, "cold");
    assert_int_equal(pg_cmp_value_of(x).kind, PG_CMP_VALUE_NUMBER);
    assert_true(pg_cmp_value_of(x).number == 0.5);
    assert_int_equal(pg_cmp_value_of(o).kind, PG_CMP_VALUE_OTHER);
    assert_ptr_equal(pg_cmp_value_of(o).json, o);
    json_decref(s);
    json_decref(x);
    json_decref(o);
}

/* A model as report/compare.c builds it before the aggregates: one paired workload, whose
 * correctness went pass -> OUTCOME (a change of kind KIND), and sources SOURCE. */
static json_t *model(const char *outcome, const char *kind, const char *source)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"tool\": {\"version\": \"0.1\"},"
             " \"old\": {\"file\": \"old.json\", \"started_utc\": \"2026-12-01T00:00:00Z\","
             "  \"verdict\": \"pass\", \"hostname\": null, \"submissions\": 1, \"workloads\": 1,"
             "  \"gpu\": \"NVIDIA H200\"},"
             " \"new\": {\"file\": \"new.json\", \"gpu\": null},"
             " \"environment_differences\": [{\"field\": \"gpu\", \"old\": \"NVIDIA H200\"}],"
             " \"settings_differences\": [{\"setting\": \"arch\", \"scope\": \"pairs\","
             "  \"stages\": [\"assemble\"], \"old\": \"sm_90a\", \"pairs\": 2}],"
             " \"settings\": {\"alpha\": 0.05, \"confidence\": 0.95,"
             "  \"fail_on\": [\"correctness\"]},"
             " \"compared_stages\": [\"correctness\", \"performance\"],"
             " \"submissions\": [{\"source\": \"%s\"}],"
             " \"workloads\": [{\"task\": \"gemm\", \"submission\": \"a\", \"workload\": \"small\","
             "  \"old\": {\"verdict\": \"pass\", \"speedup\": 1.5,"
             "   \"outcomes\": {\"correctness\": \"pass\", \"performance\": \"pass\"}},"
             "  \"new\": {\"verdict\": \"fail\", \"speedup\": null,"
             "   \"outcomes\": {\"correctness\": \"%s\", \"performance\": \"skipped\"}},"
             "  \"log_speedup_ratio\": -0.25,"
             "  \"changes\": [{\"stage\": \"correctness\", \"old\": \"pass\", \"new\": \"%s\","
             "   \"kind\": \"%s\", \"explained_by\": [\"arch\"]}],"
             "  \"not_judged\": [], \"source\": \"%s\"}],"
             " \"unpaired\": [{\"side\": \"new\", \"task\": \"gemm\", \"submission\": \"b\","
             "  \"workload\": null}]}",
             source, outcome, outcome, kind, source);
    return json_loads(text, 0, NULL);
}

static void test_model_view(void **state)
{
    (void)state;
    json_t *m = model("fail", "regression", "differs");
    assert_non_null(m);
    pg_cmp_view v;
    pg_diag d;
    assert_int_equal(pg_cmp_view_read(m, &v, &d), PG_OK);
    assert_string_equal(v.tool_version, "0.1");
    assert_string_equal(v.old_side.file, "old.json");
    assert_string_equal(v.old_side.hostname, ""); /* null */
    assert_int_equal(v.old_side.workloads, 1);
    assert_string_equal(v.old_side.gpu, "NVIDIA H200");
    assert_null(v.new_side.gpu);
    assert_string_equal(json_string_value(v.old_side.env[PG_CMP_ENV_GPU]), "NVIDIA H200");
    assert_int_equal(v.n_env_diffs, 1);
    assert_null(v.env_diffs[0].new_value); /* absent */
    assert_int_equal(v.n_settings_diffs, 1);
    assert_string_equal(v.settings_diffs[0].scope, "pairs");
    assert_true(v.settings_diffs[0].per_pairs);
    assert_int_equal(v.settings_diffs[0].pairs, 2);
    assert_int_equal(v.settings_diffs[0].n_stages, 1);
    assert_true(v.alpha == 0.05);
    assert_int_equal(v.n_fail_on, 1);
    assert_int_equal(v.n_compared_stages, 2);
    assert_int_equal(v.n_submissions, 1);
    assert_int_equal(v.sources[0], PG_CMP_SOURCE_DIFFERS);
    assert_int_equal(v.n_records, 1);
    const pg_cmp_record *r = &v.records[0];
    assert_string_equal(r->workload, "small");
    assert_true(r->old_side.speedup == 1.5);
    assert_true(isnan(r->new_side.speedup));
    assert_true(r->log_speedup_ratio == -0.25);
    assert_int_equal(r->old_side.n_outcomes, 2);
    assert_string_equal(r->old_side.outcomes[1].stage, "performance"); /* the record's order */
    assert_int_equal(pg_cmp_outcome_of(&r->new_side, "correctness"), PG_RES_FAIL);
    assert_int_equal(pg_cmp_outcome_of(&r->new_side, "instructions"), PG_RES_SKIPPED);
    assert_int_equal(r->n_changes, 1);
    assert_int_equal(r->changes[0].kind, PG_CMP_REGRESSION);
    assert_int_equal(r->changes[0].old_outcome, PG_RES_PASS);
    assert_int_equal(r->changes[0].new_outcome, PG_RES_FAIL);
    assert_int_equal(r->changes[0].n_explained, 1);
    assert_string_equal(r->changes[0].explained_by[0], "arch");
    assert_int_equal(r->source, PG_CMP_SOURCE_DIFFERS);
    assert_int_equal(v.n_unpaired, 1);
    assert_null(v.unpaired[0].workload); /* the whole submission */
    assert_false(v.unpaired[0].only_old);
    /* Before the aggregates: empty. */
    assert_int_equal(v.n_stages, 0);
    assert_int_equal(v.n_tasks, 0);
    assert_string_equal(v.gate_verdict, "");
    assert_false(v.gate_fails);
    assert_int_equal(v.wilcoxon.direction, PG_CMP_DIRECTION_NONE);
    assert_true(isnan(v.speedup_ratio.geomean));
    assert_true(isnan(v.wilcoxon.p_value));
    pg_cmp_view_free(&v);
    pg_cmp_view_free(&v); /* zeroed: safe twice */

    /* With the aggregates: the gate and Wilcoxon's direction as enums. */
    json_object_set_new(m, "gate", json_pack("{s:s, s:i, s:[s]}", "verdict", "fail",
                                             "exit_code", 1, "reasons", "1 correctness "
                                             "regression (pass → fail)"));
    json_object_set_new(m, "speedup", json_pack("{s:{s:i, s:s, s:f}}", "wilcoxon", "n", 1,
                                                "direction", "worse", "p_value", 1.0));
    assert_int_equal(pg_cmp_view_read(m, &v, &d), PG_OK);
    assert_true(v.gate_fails);
    assert_int_equal(v.exit_code, 1);
    assert_int_equal(v.n_reasons, 1);
    assert_int_equal(v.wilcoxon.direction, PG_CMP_DIRECTION_WORSE);
    assert_true(v.wilcoxon.p_value == 1.0);
    pg_cmp_view_free(&v);
    json_decref(m);

    assert_string_equal(pg_cmp_change_kind_name(PG_CMP_NOT_COMPARABLE), "not_comparable");
    assert_string_equal(pg_cmp_source_name(PG_CMP_SOURCE_UNKNOWN), "unknown");
}

static void test_model_view_refuses_words(void **state)
{
    (void)state;
    static const struct {
        const char *outcome, *kind, *source, *field;
    } bad[] = {
        {"broken", "regression", "same", "workloads[0]"},
        {"fail", "worse", "same", "workloads[0]"},
        {"fail", "regression", "maybe", "submissions[0].source"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *m = model(bad[i].outcome, bad[i].kind, bad[i].source);
        pg_cmp_view v;
        pg_diag d;
        assert_int_equal(pg_cmp_view_read(m, &v, &d), PG_ERR_INPUT);
        assert_string_equal(d.file, "compare.json");
        assert_string_equal(d.field, bad[i].field);
        assert_null(v.records); /* nothing to free */
        json_decref(m);
    }
    json_t *m = model("fail", "regression", "same");
    json_object_set_new(m, "speedup", json_pack("{s:{s:s}}", "wilcoxon", "direction",
                                                "sideways"));
    pg_cmp_view v;
    pg_diag d;
    assert_int_equal(pg_cmp_view_read(m, &v, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "speedup.wilcoxon.direction");
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_settings_and_pair),
        cmocka_unit_test(test_names_and_values),
        cmocka_unit_test(test_model_view),
        cmocka_unit_test(test_model_view_refuses_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
