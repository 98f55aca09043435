/* The comparison model of `ptxgate compare` on small synthetic results: outcomes along the
 * stage chain, transitions, pairing and unpaired entries, duplicate names, McNemar and the gate
 * policy, fast_p's definition, and both renderers (JUnit validated against schemas/junit.xsd,
 * hostile names escaped). The numbers of a real comparison are checked end to end in
 * tests/cases/compare_models. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/compare.h"
#include "report/junit.h"

#define OWN_XSD PG_SOURCE_DIR "/schemas/junit.xsd"

static json_t *stage(const char *name, const char *status)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", name, "status", status, "message", "",
                     "duration_s", 0.0, "details");
}

/* A workload: correctness and performance statuses, speedup (<= 0: null). */
static json_t *workload(const char *name, const char *corr, const char *perf, double speedup)
{
    return json_pack("{s:s, s:s, s:[o, o], s:o}", "name", name, "verdict", "pass", "stages",
                     stage("correctness", corr), stage("performance", perf), "speedup_factor",
                     speedup > 0 ? json_real(speedup) : json_null());
}

static json_t *submission(const char *task, const char *name, const char *assemble)
{
    return json_pack("{s:s, s:s, s:s, s:[o, o], s:[]}", "task", task, "name", name, "verdict",
                     "pass", "stages", stage("assemble", assemble),
                     stage("load", strcmp(assemble, "pass") == 0 ? "pass" : "skipped"),
                     "workloads");
}

static void add_wl(json_t *sub, json_t *wl)
{
    json_array_append_new(json_object_get(sub, "workloads"), wl);
}

static json_t *results(const char *started)
{
    return json_pack("{s:i, s:s, s:f, s:s, s:i, s:{s:s, s:n, s:s, s:n, s:n, s:n, s:n}, s:[]}",
                     "schema_version", 1, "started_utc", started, "duration_s", 1.0, "verdict",
                     "pass", "exit_code", 0, "environment", "hostname", "h", "gpu",
                     "gpu_skip_reason", "test", "driver_version", "cuda_driver_api_version",
                     "ptxas_version", "cublaslt_version", "submissions");
}

static void add_sub(json_t *r, json_t *sub)
{
    json_array_append_new(json_object_get(r, "submissions"), sub);
}

static json_t *build(json_t *a, json_t *b, unsigned fail_on)
{
    pg_compare_options o;
    pg_compare_options_init(&o);
    o.fail_on = fail_on;
    o.resamples = 2000;
    json_t *m = NULL;
    pg_diag d;
    pg_status st = pg_compare_build(a, "old.json", b, "new.json", &o, &m, &d);
    if (st != PG_OK)
        fail_msg("%s", d.message);
    return m;
}

static const json_t *stage_summary(const json_t *m, const char *name)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(m, "stages"), i, s) if (
        strcmp(json_string_value(json_object_get(s, "stage")), name) == 0) return s;
    fail_msg("no stage %s", name);
    return NULL;
}

static long long jint(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* A kernel that stops assembling: its correctness and performance, skipped in the file, count
 * as failed, so the change is a regression in all three stages. An infrastructure error is not
 * comparable. */
static void test_outcomes_along_the_chain(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "fail");
    add_wl(sa, workload("w1", "pass", "pass", 0.9));
    add_wl(sb, workload("w1", "skipped", "skipped", -1));
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *sa2 = submission("t", "infra", "pass"), *sb2 = submission("t", "infra", "pass");
    add_wl(sa2, workload("w1", "pass", "pass", 0.5));
    add_wl(sb2, workload("w1", "error", "skipped", -1));
    add_sub(a, sa2);
    add_sub(b, sb2);
    json_t *m = build(a, b, PG_FAIL_ON_CORRECTNESS);
    const json_t *rec = json_array_get(json_object_get(m, "workloads"), 0);
    const json_t *outs = json_object_get(json_object_get(rec, "new"), "outcomes");
    assert_string_equal(json_string_value(json_object_get(outs, "assemble")), "fail");
    assert_string_equal(json_string_value(json_object_get(outs, "correctness")), "fail");
    assert_string_equal(json_string_value(json_object_get(outs, "performance")), "fail");
    assert_int_equal(json_array_size(json_object_get(rec, "changes")), 3);
    assert_int_equal(jint(stage_summary(m, "assemble"), "regressions"), 1);
    assert_int_equal(jint(stage_summary(m, "correctness"), "regressions"), 1);
    assert_int_equal(jint(stage_summary(m, "correctness"), "not_comparable"), 1);
    const json_t *rec2 = json_array_get(json_object_get(m, "workloads"), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(rec2, "new"), "outcomes"),
                            "performance")),
                        "error");
    /* The instructions stage appears in neither file: not compared. */
    assert_int_equal(json_array_size(json_object_get(m, "compared_stages")), 3);
    const json_t *gate = json_object_get(m, "gate");
    assert_string_equal(json_string_value(json_object_get(gate, "verdict")), "fail");
    assert_int_equal(jint(gate, "exit_code"), 1);
    assert_int_equal(jint(gate, "correctness_regressions"), 1);
    json_decref(m);
    /* The same data with a policy that only looks at the tests: one regression is not
     * significant (McNemar p = 1). */
    m = build(a, b, PG_FAIL_ON_SIGNIFICANT);
    assert_int_equal(jint(json_object_get(m, "gate"), "exit_code"), 0);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

static void test_pairing_and_unpaired(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "pass");
    add_wl(sa, workload("w1", "pass", "pass", 0.9));
    add_wl(sa, workload("w2", "pass", "pass", 0.9));
    add_wl(sb, workload("w2", "pass", "pass", 0.9));
    add_wl(sb, workload("w3", "pass", "pass", 0.9));
    add_sub(a, sa);
    add_sub(b, sb);
    add_sub(a, submission("u", "k", "pass")); /* same name, other task: not paired */
    add_sub(b, submission("t", "only_new", "pass"));
    json_t *m = build(a, b, 0);
    assert_int_equal(jint(m, "paired_workloads"), 1);
    const json_t *u = json_object_get(m, "unpaired");
    assert_int_equal(json_array_size(u), 4);
    char seen[256] = "";
    size_t i;
    const json_t *e;
    json_array_foreach(u, i, e) {
        const json_t *w = json_object_get(e, "workload");
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s:%s/%s/%s ",
                 json_string_value(json_object_get(e, "side")),
                 json_string_value(json_object_get(e, "task")),
                 json_string_value(json_object_get(e, "submission")),
                 json_is_string(w) ? json_string_value(w) : "*");
    }
    assert_string_equal(seen, "old:t/k/w1 new:t/k/w3 old:u/k/* new:t/only_new/* ");
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "gate"), "verdict")),
                        "pass");
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

static void test_duplicates_are_input_errors(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *s = submission("t", "k", "pass");
    add_wl(s, workload("w1", "pass", "pass", 0.9));
    add_wl(s, workload("w1", "pass", "pass", 0.8));
    add_sub(b, s);
    pg_compare_options o;
    pg_compare_options_init(&o);
    json_t *m = NULL;
    pg_diag d;
    assert_int_equal(pg_compare_build(a, "old.json", b, "new.json", &o, &m, &d), PG_ERR_INPUT);
    assert_null(m);
    assert_string_equal(d.file, "new.json");
    assert_string_equal(d.field, "submissions[0].workloads[1]");
    json_array_remove(json_object_get(s, "workloads"), 1);
    add_sub(a, json_deep_copy(s));
    add_sub(a, json_deep_copy(s));
    assert_int_equal(pg_compare_build(a, "old.json", b, "new.json", &o, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "old.json");
    assert_string_equal(d.field, "submissions[1]");
    assert_non_null(strstr(d.message, "appears twice"));
    /* Malformed results: the reader's message, naming the path. */
    json_object_set_new(json_array_get(json_object_get(b, "submissions"), 0), "verdict",
                        json_string("great"));
    assert_int_equal(pg_compare_build(a, "old.json", b, "new.json", &o, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "submissions[0].verdict");
    json_decref(a);
    json_decref(b);
}

/* 6 correctness regressions, no fix: McNemar two-sided p = 2 / 2^6 = 0.03125 <= 0.05. */
static void test_significant_mcnemar(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "pass");
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        add_wl(sa, workload(name, "pass", "pass", 1.0));
        add_wl(sb, i < 6 ? workload(name, "fail", "skipped", -1) : workload(name, "pass", "pass", 1.0));
    }
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *m = build(a, b, PG_FAIL_ON_SIGNIFICANT);
    const json_t *mc = json_object_get(stage_summary(m, "correctness"), "mcnemar");
    assert_float_equal(json_real_value(json_object_get(mc, "p_value")), 0.03125, 1e-15);
    assert_true(json_is_true(json_object_get(mc, "significant_worse")));
    const json_t *gate = json_object_get(m, "gate");
    assert_int_equal(jint(gate, "exit_code"), 1);
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(gate, "reasons"), 0)),
                           "McNemar on correctness"));
    /* Two equal speedups are a zero difference: dropped by Wilcoxon. */
    const json_t *w = json_object_get(json_object_get(m, "speedup"), "wilcoxon");
    assert_int_equal(jint(w, "zeros"), 2);
    assert_int_equal(jint(w, "n"), 0);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

/* fast_p counts correct workloads whose speedup is strictly above p, over all paired ones. */
static void test_fast_p_definition(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "pass");
    double sp[] = {0.5, 0.81, 1.0, 1.3};
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        add_wl(sa, workload(name, "pass", "pass", sp[i]));
        /* NEW: w3 incorrect although a speedup is recorded (it must not count). */
        add_wl(sb, workload(name, i == 3 ? "fail" : "pass", "pass", sp[i]));
    }
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *m = build(a, b, 0);
    const json_t *f = json_object_get(m, "fast_p");
    double want_old[] = {3.0 / 4, 3.0 / 4, 1.0 / 4, 1.0 / 4}; /* 1.0 > 1.0 is false */
    double want_new[] = {2.0 / 4, 2.0 / 4, 0.0, 0.0};
    for (size_t i = 0; i < 4; i++) {
        const json_t *e = json_array_get(f, i);
        assert_float_equal(json_real_value(json_object_get(e, "p")), pg_compare_fast_p[i], 0);
        assert_float_equal(json_real_value(json_object_get(e, "old")), want_old[i], 1e-15);
        assert_float_equal(json_real_value(json_object_get(e, "new")), want_new[i], 1e-15);
    }
    /* Geometric mean of the OLD speedups, by its definition. */
    double g = exp((log(0.5) + log(0.81) + log(1.0) + log(1.3)) / 4);
    assert_float_equal(json_real_value(json_object_get(
                           json_object_get(json_object_get(m, "speedup"), "old"), "geomean")),
                       g, 1e-12);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

/* Speedups at the ends of the double range (a hostile or corrupt results file): their ratio
 * overflows, but the log ratio does not; geometric means that overflow are null, never an
 * "out of memory" exit 3. */
static void test_extreme_speedups(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "pass");
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        add_wl(sa, workload(name, "pass", "pass", 4.9e-324));
        add_wl(sb, workload(name, "pass", "pass", 1.7976931348623157e308));
    }
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *m = build(a, b, PG_FAIL_ON_SIGNIFICANT);
    const json_t *rec = json_array_get(json_object_get(m, "workloads"), 0);
    assert_float_equal(json_real_value(json_object_get(rec, "log_speedup_ratio")),
                       log(1.7976931348623157e308) - log(4.9e-324), 1e-9);
    const json_t *ratio = json_object_get(json_object_get(m, "speedup"), "ratio");
    assert_int_equal(json_integer_value(json_object_get(ratio, "n")), 3);
    assert_true(json_is_null(json_object_get(ratio, "geomean"))); /* e^1453: not a double */
    const json_t *task = json_array_get(json_object_get(m, "tasks"), 0);
    assert_true(json_is_number(json_object_get(task, "old_geomean")));
    assert_true(json_is_number(json_object_get(task, "new_geomean")) ||
                json_is_null(json_object_get(task, "new_geomean")));
    char *md = NULL, *xml = NULL;
    size_t md_len = 0, xml_len = 0;
    pg_diag d;
    assert_int_equal(pg_compare_markdown(m, &md, &md_len, &d), PG_OK);
    assert_int_equal(pg_compare_junit(m, &xml, &xml_len, &d), PG_OK);
    free(md);
    free(xml);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

/* A workload with an instructions stage between correctness and performance. */
static json_t *workload3(const char *name, const char *corr, const char *instr, const char *perf)
{
    return json_pack("{s:s, s:s, s:[o, o, o], s:o}", "name", name, "verdict", "pass", "stages",
                     stage("correctness", corr), stage("instructions", instr),
                     stage("performance", perf), "speedup_factor",
                     strcmp(perf, "pass") == 0 ? json_real(1.0) : json_null());
}

/* Pass rates are over the judged outcomes (pass + fail) only: a stage skipped on both sides
 * (instructions without a disassembler) has a null rate and shows "n/a (all skipped)", never
 * 0 %; skipped workloads do not dilute another stage's rate; transitions and McNemar are
 * counted exactly as before. */
static void test_pass_rate_over_judged(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    json_t *sa = submission("t", "k", "pass"), *sb = submission("t", "k", "pass");
    add_wl(sa, workload3("w0", "pass", "skipped", "pass"));
    add_wl(sa, workload3("w1", "pass", "skipped", "pass"));
    add_wl(sa, workload3("w2", "skipped", "skipped", "skipped"));
    add_wl(sa, workload3("w3", "pass", "skipped", "fail"));
    add_wl(sb, workload3("w0", "pass", "skipped", "pass"));
    add_wl(sb, workload3("w1", "pass", "skipped", "fail"));
    add_wl(sb, workload3("w2", "pass", "skipped", "pass"));
    add_wl(sb, workload3("w3", "pass", "skipped", "pass"));
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *m = build(a, b, PG_FAIL_ON_REGRESSION);
    assert_int_equal(json_array_size(json_object_get(m, "compared_stages")), 4);

    const json_t *ins = stage_summary(m, "instructions");
    for (int side = 0; side < 2; side++) {
        const json_t *c = json_object_get(ins, side ? "new" : "old");
        assert_true(json_is_null(json_object_get(c, "pass_rate")));
        assert_int_equal(jint(c, "judged"), 0);
        assert_int_equal(jint(c, "skipped"), 4);
    }
    assert_int_equal(jint(ins, "regressions"), 0);
    assert_int_equal(jint(ins, "fixes"), 0);
    assert_int_equal(jint(ins, "not_comparable"), 0);
    assert_float_equal(json_real_value(json_object_get(json_object_get(ins, "mcnemar"), "p_value")),
                       1.0, 0);

    const json_t *corr = stage_summary(m, "correctness");
    assert_float_equal(json_real_value(json_object_get(json_object_get(corr, "old"), "pass_rate")),
                       1.0, 0); /* 3 of 3 judged, not 3 of 4 */
    assert_int_equal(jint(json_object_get(corr, "old"), "judged"), 3);
    assert_float_equal(json_real_value(json_object_get(json_object_get(corr, "new"), "pass_rate")),
                       1.0, 0);
    /* w2: correctness skipped in OLD, pass in NEW: not judged, no transition */
    assert_int_equal(jint(corr, "not_comparable"), 0);
    assert_int_equal(jint(corr, "not_judged"), 1);
    assert_int_equal(jint(ins, "not_judged"), 4);

    const json_t *perf = stage_summary(m, "performance");
    assert_float_equal(json_real_value(json_object_get(json_object_get(perf, "old"), "pass_rate")),
                       2.0 / 3.0, 1e-15);
    assert_float_equal(json_real_value(json_object_get(json_object_get(perf, "new"), "pass_rate")),
                       3.0 / 4.0, 1e-15);
    assert_int_equal(jint(perf, "regressions"), 1);
    assert_int_equal(jint(perf, "fixes"), 1);
    assert_int_equal(jint(perf, "not_comparable"), 0);
    assert_int_equal(jint(perf, "not_judged"), 1);
    /* fast_p over the workloads whose performance was judged: OLD 2 of 3 (w2 did not run),
     * NEW 3 of 4. */
    const json_t *f05 = json_array_get(json_object_get(m, "fast_p"), 0);
    assert_int_equal(jint(f05, "old_judged"), 3);
    assert_int_equal(jint(f05, "new_judged"), 4);
    assert_float_equal(json_real_value(json_object_get(f05, "old")), 2.0 / 3.0, 1e-15);
    assert_float_equal(json_real_value(json_object_get(f05, "new")), 3.0 / 4.0, 1e-15);
    const json_t *mc = json_object_get(perf, "mcnemar");
    assert_int_equal(jint(mc, "worse"), 1);
    assert_int_equal(jint(mc, "better"), 1);
    const json_t *gate = json_object_get(m, "gate");
    assert_int_equal(jint(gate, "regressions"), 1);
    assert_int_equal(jint(gate, "exit_code"), 1);

    char *md = NULL;
    size_t len;
    pg_diag d;
    assert_int_equal(pg_compare_markdown(m, &md, &len, &d), PG_OK);
    assert_non_null(strstr(md, "| instructions | n/a (all skipped) | n/a (all skipped) | 0 | 0 | 0 | 4 |"));
    assert_non_null(strstr(md, "| performance | 66.7 % (2/3; 1 not judged) | 75.0 % (3/4) | 1 | 1 | 0 | 1 |"));
    assert_non_null(strstr(md, "| 0.5 | 0.667 (2/3) | 0.750 (3/4) |"));
    assert_non_null(strstr(md, "| correctness | 100.0 % (3/3; 1 not judged) | 100.0 % (4/4) |"));
    assert_null(strstr(md, "| 0.0 %"));
    free(md);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

static void test_fail_on_parsing(void **state)
{
    unsigned f;
    pg_diag d;
    assert_int_equal(pg_compare_parse_fail_on("never", &f, &d), PG_OK);
    assert_int_equal(f, 0);
    assert_int_equal(pg_compare_parse_fail_on("regression,significant", &f, &d), PG_OK);
    assert_int_equal(f, PG_FAIL_ON_REGRESSION | PG_FAIL_ON_SIGNIFICANT);
    assert_int_equal(pg_compare_parse_fail_on("any", &f, &d), PG_OK);
    assert_int_equal(f, PG_FAIL_ON_REGRESSION | PG_FAIL_ON_SIGNIFICANT | PG_FAIL_ON_CORRECTNESS);
    assert_int_equal(pg_compare_parse_fail_on("correctness,,", &f, &d), PG_ERR_INPUT);
    assert_int_equal(pg_compare_parse_fail_on("regresion", &f, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--fail-on");
    assert_non_null(strstr(d.message, "'regresion'"));
}

/* Both renderers on hostile names: JUnit stays valid and unique, markdown escapes. */
static void test_renderers(void **state)
{
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    const char *evil = "<b>@team|x\x01";
    json_t *sa = submission("t", evil, "pass"), *sb = submission("t", evil, "pass");
    add_wl(sa, workload("w\x02", "pass", "pass", 0.9));
    add_wl(sa, workload("w\x03", "pass", "pass", 0.8)); /* cleans to the same name */
    add_wl(sb, workload("w\x02", "fail", "skipped", -1));
    add_wl(sb, workload("w\x03", "pass", "pass", 0.7));
    add_sub(a, sa);
    add_sub(b, sb);
    json_t *m = build(a, b, PG_FAIL_ON_CORRECTNESS | PG_FAIL_ON_SIGNIFICANT);
    char *xml = NULL, *md = NULL;
    size_t xlen, mlen;
    pg_diag d;
    assert_int_equal(pg_compare_junit(m, &xml, &xlen, &d), PG_OK);
    assert_int_equal(pg_junit_validate(xml, xlen, OWN_XSD, &d), PG_OK);
    assert_non_null(strstr(xml, "tests=\"2\" failures=\"1\""));
    assert_non_null(strstr(xml, "<failure message=\"correctness pass → fail; performance pass → "
                                "fail\" type=\"regression\">"));
    assert_non_null(strstr(xml, "#2\""));
    assert_null(strstr(xml, "<b>"));
    assert_int_equal(pg_compare_markdown(m, &md, &mlen, &d), PG_OK);
    assert_int_equal(strlen(md), mlen);
    assert_non_null(strstr(md, "## ptxgate compare: FAIL"));
    assert_non_null(strstr(md, "```mermaid\nxychart-beta\n"));
    assert_non_null(strstr(md, "x-axis [\"t OLD\", \"t NEW\"]"));
    assert_null(strstr(md, "<b>"));
    assert_null(strstr(md, "@team"));
    free(xml);
    free(md);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

/* Many submissions, tasks and workloads (a hostile or just large file): pairing, the per-task
 * table and the JUnit plan look names up in hash maps, so this runs in well under a second.
 * Before, each was a linear search per entry, and numbering names that clean to the same text
 * rescanned every case per attempt (cubic): 3000 such names took 11 s, this size hours. The
 * numbering itself is unchanged: later equal names get #2, #3, ... skipping numbers a literal
 * name already took. */
static void test_many_entries_scale(void **state)
{
    enum { N_TASKS = 4000, N_CLASH = 6000 };
    json_t *a = results("2026-11-29T10:00:00Z"), *b = results("2026-11-30T10:00:00Z");
    for (int i = 0; i < N_TASKS; i++) {
        char task[32];
        snprintf(task, sizeof task, "t%d", i);
        json_t *sa = submission(task, "k", "pass"), *sb = submission(task, "k", "pass");
        add_wl(sa, workload("w", "pass", "pass", 1.0));
        add_wl(sb, workload("w", "pass", "pass", 1.1));
        add_sub(a, sa);
        add_sub(b, sb);
    }
    /* One submission whose workload names all clean to "w" and three U+FFFD (three control
     * characters each, the digits of i in base 28; tab, newline and carriage return are left
     * out, cleaning treats them as spaces), with the literal "w\uFFFD\uFFFD\uFFFD#2" second. */
    static const char ctl[28] = {1,  2,  3,  4,  5,  6,  7,  8,  11, 12, 14, 15, 16, 17,
                                 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
#define FFFD3 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
    json_t *ca = submission("clash", "k", "pass"), *cb = submission("clash", "k", "pass");
    for (int i = 0; i < N_CLASH; i++) {
        char name[8] = {'w', ctl[i % 28], ctl[i / 28 % 28], ctl[i / 784]};
        add_wl(ca, workload(name, "pass", "pass", 1.0));
        add_wl(cb, workload(name, "pass", "pass", 1.0));
        if (i == 0) {
            add_wl(ca, workload("w" FFFD3 "#2", "pass", "pass", 1.0));
            add_wl(cb, workload("w" FFFD3 "#2", "pass", "pass", 1.0));
        }
    }
    add_sub(a, ca);
    add_sub(b, cb);
    json_t *m = build(a, b, 0);
    assert_int_equal(json_integer_value(json_object_get(m, "paired_workloads")),
                     N_TASKS + N_CLASH + 1);
    assert_int_equal(json_array_size(json_object_get(m, "unpaired")), 0);
    assert_int_equal(json_array_size(json_object_get(m, "tasks")), N_TASKS + 1);
    char *xml = NULL;
    size_t xlen;
    pg_diag d;
    assert_int_equal(pg_compare_junit(m, &xml, &xlen, &d), PG_OK);
    assert_non_null(strstr(xml, "name=\"w" FFFD3 "\""));
    assert_non_null(strstr(xml, "name=\"w" FFFD3 "#2\"")); /* the literal one */
    assert_non_null(strstr(xml, "name=\"w" FFFD3 "#3\"")); /* the next clash skips #2 */
    char last[48];
    snprintf(last, sizeof last, "name=\"w" FFFD3 "#%d\"", N_CLASH + 1);
    assert_non_null(strstr(xml, last));
    snprintf(last, sizeof last, "name=\"w" FFFD3 "#%d\"", N_CLASH + 2);
    assert_null(strstr(xml, last));
#undef FFFD3
    free(xml);
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outcomes_along_the_chain),
        cmocka_unit_test(test_pairing_and_unpaired),
        cmocka_unit_test(test_duplicates_are_input_errors),
        cmocka_unit_test(test_significant_mcnemar),
        cmocka_unit_test(test_fast_p_definition),
        cmocka_unit_test(test_extreme_speedups),
        cmocka_unit_test(test_pass_rate_over_judged),
        cmocka_unit_test(test_fail_on_parsing),
        cmocka_unit_test(test_renderers),
        cmocka_unit_test(test_many_entries_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
