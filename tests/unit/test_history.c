/* The history model, its markdown and its SVG (gate/report/history.h): run metadata checks,
 * ordering by commit time, by label (natural order) and as given, speedups per series with
 * gaps and void timings, mermaid charts with sanitized labels, escaped names, an SVG that
 * libxml2 parses back with every hostile name as text, and determinism. Fixtures:
 * tests/data/results/<name>.json. */
#include <libxml/parser.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/history.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

/* all_pass with run metadata and its speedups scaled by f. */
static json_t *run_of(const char *label, const char *commit, const char *time, double f)
{
    json_t *j = load_fixture("all_pass");
    pg_diag d;
    json_t *meta = NULL;
    assert_int_equal(pg_history_run_meta(label, commit, time, &meta, &d), PG_OK);
    if (meta)
        json_object_set_new(j, "run", meta);
    size_t w, k;
    json_t *wl, *st;
    json_array_foreach(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                       "workloads"), w, wl)
        json_array_foreach(json_object_get(wl, "stages"), k, st) {
            json_t *sp = json_object_get(json_object_get(st, "details"), "speedup");
            if (json_is_number(json_object_get(sp, "estimate")))
                json_object_set_new(sp, "estimate",
                                    json_real(json_number_value(json_object_get(sp, "estimate")) *
                                              f));
        }
    return j;
}

static pg_history_model build(json_t **roots, size_t n, pg_history_order by)
{
    const char *files[8] = {"a.json", "b.json", "c.json", "d.json",
                            "e.json", "f.json", "g.json", "h.json"};
    pg_history_model m;
    pg_diag d;
    pg_status st = pg_history_build((const json_t *const *)roots, files, n, by, &m, &d);
    if (st != PG_OK) {
        char buf[4096];
        print_error("%s\n", pg_diag_format(&d, buf, sizeof buf));
    }
    assert_int_equal(st, PG_OK);
    return m;
}

static const char *run_label(const pg_history_model *m, size_t k)
{
    assert_true(k < m->n_runs);
    return m->runs[k].label;
}

static void test_run_meta(void **state)
{
    (void)state;
    pg_diag d;
    json_t *m = NULL;
    assert_int_equal(pg_history_run_meta(NULL, NULL, NULL, &m, &d), PG_OK);
    assert_null(m);
    assert_int_equal(pg_history_run_meta("model-v2", "ABCDEF1234", "2026-11-29T11:30:00+01:00",
                                         &m, &d),
                     PG_OK);
    assert_string_equal(json_string_value(json_object_get(m, "commit")), "abcdef1234");
    assert_string_equal(json_string_value(json_object_get(m, "commit_time_utc")),
                        "2026-11-29T10:30:00Z");
    json_decref(m);
    assert_int_equal(pg_history_run_meta(NULL, "xyz1234", NULL, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--commit");
    assert_int_equal(pg_history_run_meta(NULL, NULL, "yesterday", &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--commit-time");
    assert_int_equal(pg_history_run_meta("a\nb", NULL, NULL, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--label");
    assert_int_equal(pg_history_run_meta("", NULL, NULL, &m, &d), PG_ERR_INPUT);
}

static void test_order(void **state)
{
    (void)state;
    json_t *r[3] = {run_of("v10", "aaaaaaa", "2026-11-03T00:00:00Z", 1.0),
                    run_of("v2", "bbbbbbb", "2026-11-01T00:00:00Z", 1.1),
                    run_of("v1", NULL, "2026-11-02T00:00:00Z", 0.9)};
    pg_history_model m = build(r, 3, PG_HISTORY_BY_TIME);
    assert_string_equal(run_label(&m, 0), "v2");
    assert_string_equal(run_label(&m, 1), "v1");
    assert_string_equal(run_label(&m, 2), "v10");
    pg_history_model_free(&m);
    m = build(r, 3, PG_HISTORY_BY_LABEL);
    assert_string_equal(run_label(&m, 0), "v1");
    assert_string_equal(run_label(&m, 1), "v2");
    assert_string_equal(run_label(&m, 2), "v10");
    /* series: one per workload, a speedup per run in that order */
    const pg_history_series *s0 = &m.series[0];
    assert_string_equal(s0->workload, "m8192_n7168_k5120");
    const pg_history_point *sp = s0->points;
    assert_true(sp[0].speedup.has && sp[1].speedup.has && sp[2].speedup.has);
    assert_true(sp[0].speedup.v < sp[2].speedup.v);
    assert_true(sp[2].speedup.v < sp[1].speedup.v);
    pg_history_model_free(&m);
    m = build(r, 3, PG_HISTORY_BY_INPUT);
    assert_string_equal(run_label(&m, 0), "v10");
    pg_history_model_free(&m);
    for (int i = 0; i < 3; i++)
        json_decref(r[i]);
}

static void test_gaps_and_void_timings(void **state)
{
    (void)state;
    json_t *r[3] = {run_of("v1", NULL, NULL, 1.0), load_fixture("performance_fail"),
                    run_of("v3", NULL, NULL, 1.0)};
    /* run 3: verify failed on its first workload: no timing of it is read */
    json_t *w0 = json_array_get(
        json_object_get(json_array_get(json_object_get(r[2], "submissions"), 0), "workloads"), 0);
    json_array_append_new(json_object_get(w0, "stages"),
                          json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", "verify", "status",
                                    "fail", "message", "wrong after timing", "duration_s", 0.1,
                                    "details"));
    pg_history_model m = build(r, 3, PG_HISTORY_BY_INPUT);
    assert_true(m.n_series >= 2);
    const pg_history_series *s1 = &m.series[1]; /* m4096_n4096_k4096 of gemm_bf16_nt/tiled */
    assert_string_equal(s1->workload, "m4096_n4096_k4096");
    assert_true(s1->points[2].present);
    assert_true(s1->points[2].void_timing);
    assert_false(s1->points[2].speedup.has);
    char *md = NULL;
    size_t len = 0;
    pg_diag d;
    assert_int_equal(pg_history_markdown(&m, &md, &len, &d), PG_OK);
    assert_int_equal(strlen(md), len);
    assert_non_null(strstr(md, "## ptxgate history: 3 runs"));
    assert_non_null(strstr(md, "timing void: failed verify"));
    /* no workload has a speedup in all three runs: no line drawn, said so */
    assert_non_null(strstr(md, "No chart: no workload has a speedup in every run"));
    free(md);
    pg_history_model_free(&m);
    for (int i = 0; i < 3; i++)
        json_decref(r[i]);
}

/* A speedup over the accepted kernel (the library refused the configuration) is no point of
 * the series over the library: the run is present, its speedup is not. */
static void test_speedup_over_the_accepted_kernel_is_no_point(void **state)
{
    (void)state;
    json_t *r[2] = {run_of("v1", NULL, NULL, 1.0), run_of("v2", NULL, NULL, 1.0)};
    json_object_set_new(perf_details(r[1], 0, 0), "reference", json_string("accepted"));
    pg_history_model m = build(r, 2, PG_HISTORY_BY_INPUT);
    const pg_history_series *s0 = &m.series[0]; /* m8192_n7168_k5120 of gemm_bf16_nt/tiled */
    assert_string_equal(s0->workload, "m8192_n7168_k5120");
    assert_true(s0->points[0].speedup.has);
    assert_true(s0->points[1].present);
    assert_false(s0->points[1].void_timing);
    assert_false(s0->points[1].speedup.has);
    assert_true(m.series[1].points[1].speedup.has); /* the other workload keeps its point */
    pg_history_model_free(&m);
    for (int i = 0; i < 2; i++)
        json_decref(r[i]);
}

static void test_markdown_chart_and_escaping(void **state)
{
    (void)state;
    json_t *r[2] = {run_of("v1 \"<b>\" @x", NULL, NULL, 1.0), run_of("v2", NULL, NULL, 1.2)};
    for (int i = 0; i < 2; i++)
        json_object_set_new(json_array_get(json_object_get(r[i], "submissions"), 0), "name",
                            json_string("<script>|x http://evil.example"));
    pg_history_model m = build(r, 2, PG_HISTORY_BY_INPUT);
    char *md = NULL, *again = NULL;
    pg_diag d;
    assert_int_equal(pg_history_markdown(&m, &md, NULL, &d), PG_OK);
    assert_int_equal(pg_history_markdown(&m, &again, NULL, &d), PG_OK);
    assert_string_equal(md, again); /* deterministic */
    assert_non_null(strstr(md, "```mermaid\nxychart-beta\n    title \"gemm_bf16_nt / _script__x "
                               "http://evil.example: speedup vs vendor\"\n    x-axis [\"1 v1 __b__ _x\", \"2 v2\"]\n"));
    assert_non_null(strstr(md, "    line [0.7450, 0.8940]\n"));
    assert_non_null(strstr(md, "Lines, in drawing order: 1. m8192_n7168_k5120; 2. "
                               "m4096_n4096_k4096."));
    assert_null(strstr(md, "<script"));
    assert_null(strstr(md, "<b>"));
    assert_non_null(strstr(md, "&lt;script&gt;\\|x `http://evil.example`"));
    char *charts = NULL;
    assert_int_equal(pg_history_charts_markdown(&m, &charts, NULL, &d), PG_OK);
    assert_true(strncmp(charts, "```mermaid\n", 11) == 0);
    assert_null(strstr(charts, "## ptxgate history"));
    free(charts);
    free(md);
    free(again);

    /* The SVG parses, carries every name as text, and is deterministic. */
    char *svg = NULL, *svg2 = NULL;
    size_t n = 0;
    assert_int_equal(pg_history_svg(&m, &svg, &n, &d), PG_OK);
    assert_int_equal(pg_history_svg(&m, &svg2, NULL, &d), PG_OK);
    assert_string_equal(svg, svg2);
    assert_null(strstr(svg, "<script"));
    assert_non_null(strstr(svg, "&lt;script&gt;|x http://evil.example"));
    xmlDocPtr doc = xmlReadMemory(svg, (int)n, "history.svg", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "svg");
    size_t polylines = 0;
    for (xmlNodePtr c = root->children; c; c = c->next)
        polylines += c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "polyline") == 0;
    assert_int_equal(polylines, 2); /* one panel, two workloads */
    xmlFreeDoc(doc);
    free(svg);
    free(svg2);
    pg_history_model_free(&m);
    for (int i = 0; i < 2; i++)
        json_decref(r[i]);
}

static void test_bad_input(void **state)
{
    (void)state;
    pg_history_model m;
    pg_diag d;
    assert_int_equal(pg_history_build(NULL, NULL, 0, PG_HISTORY_BY_TIME, &m, &d), PG_ERR_INPUT);
    json_t *j = load_fixture("all_pass");
    json_object_set_new(j, "run", json_pack("{s:i}", "label", 3));
    const json_t *roots[1] = {j};
    const char *files[1] = {"runs/x/results.json"};
    assert_int_equal(pg_history_build(roots, files, 1, PG_HISTORY_BY_TIME, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "runs/x/results.json");
    assert_string_equal(d.field, "run.label");
    json_object_set_new(j, "run", json_pack("{s:s}", "commit_time_utc", "2026-11-29 10:00"));
    assert_int_equal(pg_history_build(roots, files, 1, PG_HISTORY_BY_TIME, &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "run.commit_time_utc");
    json_object_del(j, "run");
    json_object_set_new(j, "schema_version", json_integer(7));
    assert_int_equal(pg_history_build(roots, files, 1, PG_HISTORY_BY_TIME, &m, &d), PG_ERR_INPUT);
    assert_null(m.runs);
    assert_null(m.series);
    assert_int_equal(m.n_runs, 0);
    json_decref(j);
    pg_history_order o;
    assert_int_equal(pg_history_order_parse("commit", &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--by");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_meta),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_gaps_and_void_timings),
        cmocka_unit_test(test_speedup_over_the_accepted_kernel_is_no_point),
        cmocka_unit_test(test_markdown_chart_and_escaping),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
