/* Unit tests of chip metric lists (gate/model/metric_table.h): the shipped data/metrics files,
 * lookups by the chip name CUPTI reports, the metrics requested for target families, and one
 * defect per bad file (each written to the test's scratch folder from a valid table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/metric_table.h"

#define METRICS PG_SOURCE_DIR "/data/metrics"
#define SCHEMA PG_SOURCE_DIR "/schemas/metrics.schema.json"

static pg_metric_table *load_ok(const char *path)
{
    pg_metric_table *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_metric_table_load(path, &t, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    return t;
}

static void test_shipped_gh100(void **state)
{
    pg_metric_table *t = load_ok(METRICS "/gh100.json");
    assert_string_equal(t->chip, "GH100");
    assert_true(t->flops_per_math_op == 1.0);
    const pg_metric_family *h = pg_metric_table_find(t, "HGMMA");
    assert_non_null(h);
    assert_int_equal(h->n_count_add, 1);
    assert_string_equal(h->count_add[0], "sm__sass_inst_executed_op_shared_gmma.sum");
    assert_int_equal(h->n_paths, 3);
    const pg_metric_path *bf16 = pg_metric_family_path(h, "bf16");
    assert_non_null(bf16);
    assert_int_equal(bf16->n_metrics, 1);
    assert_string_equal(bf16->metrics[0], "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum");
    assert_non_null(pg_metric_family_path(h, "fp16"));
    assert_non_null(pg_metric_family_path(h, "tf32"));
    assert_null(pg_metric_family_path(h, "fp8"));
    assert_null(pg_metric_family_path(h, NULL));
    assert_int_equal(h->n_shares, 3);
    const pg_metric_family *m = pg_metric_table_find(t, "HMMA");
    assert_non_null(m);
    assert_int_equal(m->n_count_subtract, 2);
    const pg_metric_family *u = pg_metric_table_find(t, "UTMALDG");
    assert_non_null(u);
    assert_string_equal(u->count_add[0], "smsp__sass_inst_executed_op_tma_ld.sum");
    assert_int_equal(u->n_paths, 0);
    /* Predicated-off warps: the hardware counters of these need the pred_on_any variants. */
    const char *pred[] = {"LDSM", "STSM", "LDGSTS"};
    for (size_t i = 0; i < 3; i++) {
        const pg_metric_family *f = pg_metric_table_find(t, pred[i]);
        assert_non_null(f);
        assert_non_null(strstr(f->count_add[0], "_pred_on_any.sum"));
    }
    assert_null(pg_metric_table_find(t, "UTCHMMA"));
    assert_null(pg_metric_table_find(t, "hgmma"));
    pg_metric_table_free(t);
}

static void test_shipped_gb100(void **state)
{
    pg_metric_table *t = load_ok(METRICS "/gb100.json");
    assert_string_equal(t->chip, "GB100");
    const char *need[] = {"UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA", "LDTM", "STTM",
                          "UTMALDG", "HMMA"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!pg_metric_table_find(t, need[i]))
            fail_msg("GB100 lacks %s", need[i]);
    assert_null(pg_metric_table_find(t, "HGMMA")); /* no wgmma on sm_100 */
    assert_string_equal(pg_metric_table_find(t, "UTCHMMA")->count_add[0],
                        "sm__sass_inst_executed_op_utcmma.sum");
    pg_metric_table_free(t);
}

static void test_load_chip(void **state)
{
    pg_metric_table *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_metric_table_load_chip(METRICS, "GH100", &t, &d), PG_OK);
    assert_string_equal(t->chip, "GH100");
    pg_metric_table_free(t);
    /* An unknown chip is infrastructure (the check cannot run), listing the known ones. */
    assert_int_equal(pg_metric_table_load_chip(METRICS, "GB202", &t, &d), PG_ERR_INFRA);
    assert_null(t);
    assert_string_equal(d.field, "chip");
    assert_non_null(strstr(d.message, "no metric list for chip 'GB202'"));
    assert_non_null(strstr(d.message, "known: gb100, gh100"));
    assert_int_equal(pg_metric_table_load_chip(METRICS, "../gh100", &t, &d), PG_ERR_INPUT);
    assert_int_equal(pg_metric_table_load_chip(METRICS, "", &t, &d), PG_ERR_INPUT);
}

static void test_load_chip_mismatch(void **state)
{
    /* tmp/metrics_mismatch/gh100.json says GB100. */
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/metrics_mismatch", PG_TEST_TMP);
    snprintf(path, sizeof path, "%s/gh100.json", dir);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", dir, METRICS "/gb100.json", path);
    assert_int_equal(system(cmd), 0);
    pg_metric_table *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_metric_table_load_chip(dir, "GH100", &t, &d), PG_ERR_INPUT);
    assert_null(t);
    assert_string_equal(d.file, path);
    assert_non_null(strstr(d.message, "says \"GB100\""));
}

static void test_request(void **state)
{
    pg_metric_table *t = load_ok(METRICS "/gh100.json");
    const char *metrics[PG_METRIC_MAX_REQUEST];
    size_t n = 0;
    pg_diag d;
    pg_diag_clear(&d);
    const size_t max = PG_METRIC_MAX_REQUEST;
    /* The sm_90a GEMM target set on a bf16 task: two counts and the bf16 path. */
    const char *fams[] = {"HGMMA", "UTMALDG"};
    assert_int_equal(pg_metric_table_request(t, fams, 2, "bf16", metrics, max, &n, &d), PG_OK);
    assert_int_equal(n, 3);
    assert_string_equal(metrics[0], "sm__sass_inst_executed_op_shared_gmma.sum");
    assert_string_equal(metrics[1], "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum");
    assert_string_equal(metrics[2], "smsp__sass_inst_executed_op_tma_ld.sum");
    /* Every path when none is named. */
    assert_int_equal(pg_metric_table_request(t, fams, 2, NULL, metrics, max, &n, &d), PG_OK);
    assert_int_equal(n, 5);
    /* A path the family lacks adds nothing. */
    assert_int_equal(pg_metric_table_request(t, fams, 2, "int8", metrics, max, &n, &d), PG_OK);
    assert_int_equal(n, 2);
    /* Families sharing a count request it once. */
    const char *gmma[] = {"HGMMA", "QGMMA", "IGMMA"};
    assert_int_equal(pg_metric_table_request(t, gmma, 3, NULL, metrics, max, &n, &d), PG_OK);
    assert_int_equal(n, 1 + 3 + 1 + 1);
    size_t shared = 0;
    for (size_t i = 0; i < n; i++)
        shared += strcmp(metrics[i], "sm__sass_inst_executed_op_shared_gmma.sum") == 0;
    assert_int_equal(shared, 1);
    /* HMMA on bf16: the pipe count, two subtractions, one math-op counter. */
    const char *hmma[] = {"HMMA"};
    assert_int_equal(pg_metric_table_request(t, hmma, 1, "bf16", metrics, max, &n, &d), PG_OK);
    assert_int_equal(n, 4);
    /* Too small an output array. */
    assert_int_equal(pg_metric_table_request(t, fams, 2, NULL, metrics, 3, &n, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "more than 3 metrics"));
    /* Unknown family: named, with the known ones. */
    const char *bad[] = {"HGMMA", "UTCHMMA"};
    assert_int_equal(pg_metric_table_request(t, bad, 2, NULL, metrics, max, &n, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "families[1]");
    assert_non_null(strstr(d.message, "'UTCHMMA' on chip GH100"));
    assert_non_null(strstr(d.message, "known: HGMMA, QGMMA"));
    assert_int_equal(pg_metric_table_request(t, bad, 0, NULL, metrics, max, &n, &d), PG_ERR_INPUT);
    pg_metric_table_free(t);
}

/* ---- one defect per file: gh100.json with `edit` applied, written to the scratch folder ---- */

typedef void (*edit_fn)(json_t *root);

static void expect_bad(const char *name, edit_fn edit, const char *field, const char *msg)
{
    json_error_t err;
    json_t *root = json_load_file(METRICS "/gh100.json", 0, &err);
    assert_non_null(root);
    edit(root);
    char path[1024];
    snprintf(path, sizeof path, "%s/metrics_bad_%s.json", PG_TEST_TMP, name);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    pg_metric_table *t = (pg_metric_table *)1;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_metric_table_load(path, &t, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("%s: expected PG_ERR_INPUT, got %d", name, (int)st);
    assert_null(t);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", name, d.field, field, d.message);
    if (!strstr(d.message, msg))
        fail_msg("%s: message '%s' lacks '%s'", name, d.message, msg);
}

static json_t *fam(json_t *root, const char *name)
{
    return json_object_get(json_object_get(root, "families"), name);
}

static void e_version(json_t *r) { json_object_set_new(r, "schema_version", json_integer(2)); }
static void e_unknown_key(json_t *r) { json_object_set_new(r, "chips", json_string("x")); }
static void e_chip(json_t *r) { json_object_set_new(r, "chip", json_string("GH-100")); }
static void e_flops(json_t *r) { json_object_set_new(r, "flops_per_math_op", json_integer(0)); }
static void e_no_families(json_t *r) { json_object_set_new(r, "families", json_object()); }
static void e_family_name(json_t *r)
{
    json_object_set(json_object_get(r, "families"), "hgmma", fam(r, "HGMMA"));
}
static void e_family_key(json_t *r)
{
    json_object_set_new(fam(r, "UTMALDG"), "count", json_array());
}
static void e_empty_add(json_t *r)
{
    json_object_set_new(fam(r, "UTMALDG"), "count_add", json_array());
}
static json_t *path_list(json_t *r, const char *family, const char *path)
{
    return json_object_get(json_object_get(fam(r, family), "math_ops"), path);
}
static void e_no_rollup(json_t *r)
{
    json_array_set_new(path_list(r, "HGMMA", "fp16"), 0,
                       json_string("sm__ops_path_tensor_op_hgmma_src_fp16"));
}
static void e_path_name(json_t *r)
{
    json_object_set_new(json_object_get(fam(r, "HGMMA"), "math_ops"), "BF-16", json_array());
}
static void e_empty_path(json_t *r)
{
    json_object_set_new(json_object_get(fam(r, "HGMMA"), "math_ops"), "int8", json_array());
}
static void e_math_list(json_t *r)
{
    json_object_set_new(fam(r, "HGMMA"), "math_ops", json_array());
}
static void e_metric_type(json_t *r)
{
    json_array_set_new(json_object_get(fam(r, "HMMA"), "count_subtract"), 0, json_integer(3));
}
static void e_duplicate(json_t *r)
{
    json_t *a = path_list(r, "HGMMA", "bf16");
    json_array_append_new(a, json_string(json_string_value(json_array_get(a, 0))));
}
static void e_too_many(json_t *r)
{
    json_t *a = json_array();
    for (int i = 0; i < PG_METRIC_MAX_TERMS + 1; i++) {
        char m[64];
        snprintf(m, sizeof m, "sm__counter_%d.sum", i);
        json_array_append_new(a, json_string(m));
    }
    json_object_set_new(fam(r, "LDSM"), "count_add", a);
}
static void e_shares(json_t *r)
{
    json_array_set_new(json_object_get(fam(r, "QGMMA"), "shares_count_with"), 0,
                       json_string("h gmma"));
}

static void test_path_for_dtype(void **state)
{
    assert_string_equal(pg_metric_path_for_dtype("bf16"), "bf16");
    assert_string_equal(pg_metric_path_for_dtype("fp16"), "fp16");
    assert_string_equal(pg_metric_path_for_dtype("fp32"), "tf32");
    assert_string_equal(pg_metric_path_for_dtype("e4m3"), "fp8");
    assert_string_equal(pg_metric_path_for_dtype("e5m2"), "fp8");
    assert_null(pg_metric_path_for_dtype("int4"));
    assert_null(pg_metric_path_for_dtype(NULL));
}

static void test_bad_tables(void **state)
{
    expect_bad("version", e_version, "schema_version", "unsupported schema_version 2");
    expect_bad("unknown_key", e_unknown_key, "chips", "unknown field");
    expect_bad("chip", e_chip, "chip", "chip name");
    expect_bad("flops", e_flops, "flops_per_math_op", "positive number");
    expect_bad("no_families", e_no_families, "families", "1 to 32 families");
    expect_bad("family_name", e_family_name, "families.hgmma", "SASS family name");
    expect_bad("family_key", e_family_key, "families.UTMALDG.count", "unknown field");
    expect_bad("empty_add", e_empty_add, "families.UTMALDG.count_add", "1 to 8 metric names");
    expect_bad("no_rollup", e_no_rollup, "families.HGMMA.math_ops.fp16[0]",
               "'sm__ops_path_tensor_op_hgmma_src_fp16'");
    expect_bad("path_name", e_path_name, "families.HGMMA.math_ops.BF-16", "tensor path name");
    expect_bad("empty_path", e_empty_path, "families.HGMMA.math_ops.int8", "1 to 8 metric names");
    expect_bad("math_list", e_math_list, "families.HGMMA.math_ops", "expected an object");
    expect_bad("metric_type", e_metric_type, "families.HMMA.count_subtract[0]", "integer");
    expect_bad("duplicate", e_duplicate, "families.HGMMA.math_ops.bf16[1]", "listed twice");
    expect_bad("too_many", e_too_many, "families.LDSM.count_add", "found 9");
    expect_bad("shares", e_shares, "families.QGMMA.shares_count_with[0]", "SASS family name");
}

/* The schema documents the loader: the same keys, top level and per family (docs and code
 * must not drift apart). */
static void same_keys(const json_t *props, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n]; n++)
        if (!json_object_get(props, keys[n]))
            fail_msg("the schema lacks '%s'", keys[n]);
    assert_int_equal(json_object_size(props), n);
}

static void test_schema_matches_loader(void **state)
{
    json_error_t err;
    json_t *s = json_load_file(SCHEMA, 0, &err);
    assert_non_null(s);
    static const char *const top[] = {"schema_version", "chip", "description",
                                      "flops_per_math_op", "families", NULL};
    static const char *const fam_keys[] = {"count_add", "count_subtract", "math_ops",
                                           "shares_count_with", "note", NULL};
    same_keys(json_object_get(s, "properties"), top);
    same_keys(json_object_get(json_object_get(json_object_get(s, "$defs"), "family"),
                              "properties"),
              fam_keys);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(s, "properties"), "families"),
                         "maxProperties")),
                     PG_METRIC_MAX_FAMILIES);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(s, "$defs"), "metrics"), "maxItems")),
                     PG_METRIC_MAX_TERMS);
    const json_t *fp = json_object_get(json_object_get(json_object_get(s, "$defs"), "family"),
                                       "properties");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(fp, "math_ops"),
                                                        "maxProperties")),
                     PG_METRIC_MAX_PATHS);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_gh100),     cmocka_unit_test(test_shipped_gb100),
        cmocka_unit_test(test_load_chip),         cmocka_unit_test(test_load_chip_mismatch),
        cmocka_unit_test(test_request),           cmocka_unit_test(test_path_for_dtype),
        cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_schema_matches_loader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
