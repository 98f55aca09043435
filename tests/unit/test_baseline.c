/* Unit tests of stored baselines (gate/model/baseline.h): loading the fixture
 * tests/data/baselines/h200-sxm/gemm_bf16_nt.json, the deterministic writer (load → dump gives
 * the file's bytes), atomic writes, the schema, workload bookkeeping, and one defect per field
 * refused with the file and the JSON path named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "model/baseline.h"
#include "model/task.h"

#include "schema_subset.h"

#define FIXTURE_DIR PG_TEST_DATA "/baselines"
#define FIXTURE FIXTURE_DIR "/h200-sxm/gemm_bf16_nt.json"
#define SCHEMA PG_SOURCE_DIR "/schemas/baseline.schema.json"
#define WL "m4096_n4096_k4096"

static pg_baseline *load_ok(const char *path)
{
    pg_baseline *b = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_baseline_load_file(path, "gemm_bf16_nt", "h200-sxm", &b, &d);
    if (st != PG_OK) {
        char m[4096];
        fail_msg("%s", pg_diag_format(&d, m, sizeof m));
    }
    return b;
}

static void test_load_fixture(void **state)
{
    pg_baseline *b = load_ok(FIXTURE);
    assert_string_equal(b->task, "gemm_bf16_nt");
    assert_string_equal(b->gpu_key, "h200-sxm");
    assert_string_equal(b->file, FIXTURE);
    assert_string_equal(b->env.gpu_name, "NVIDIA H200");
    assert_int_equal(b->env.cublaslt_version, 130100);
    assert_int_equal(b->env.ecc, 1);
    assert_true(b->has_accepted);
    assert_string_equal(b->accepted_manifest, "examples/tiled_mma.json");
    assert_int_equal(b->n_workloads, 2);
    /* Sorted by name. */
    assert_string_equal(b->workloads[0].name, WL);
    assert_string_equal(b->workloads[1].name, "m8192_n7168_k5120");
    const pg_baseline_workload *w = pg_baseline_find(b, WL);
    assert_non_null(w);
    assert_true(fabs(w->median_ms - 0.1771) < 1e-12);
    assert_true(w->ci_low_ms <= w->median_ms && w->median_ms <= w->ci_high_ms);
    assert_int_equal(w->algorithm.algo_id, 66);
    assert_int_equal(w->algorithm.cluster_shape, 2);
    assert_int_equal(w->workspace_bytes, 67108864);
    assert_string_equal(w->mode, "cold");
    assert_int_equal(w->blocks, 16);
    assert_true(w->has_accepted);
    assert_true(fabs(w->speedup - 0.497472) < 1e-12);
    /* Symbols sorted by name. */
    assert_string_equal(w->symbol_names[0], "K");
    assert_string_equal(w->symbol_names[2], "N");
    assert_null(pg_baseline_find(b, "m1_n1_k1"));
    pg_baseline_free(b);
}

/* Deterministic: the writer gives the fixture's bytes back, twice the same. */
static void test_dump_reproduces_the_file(void **state)
{
    char *file = NULL, *a = NULL, *b2 = NULL;
    size_t flen = 0, alen = 0, blen = 0;
    pg_diag d;
    assert_int_equal(pg_file_read(FIXTURE, 1 << 20, &file, &flen, &d), PG_OK);
    pg_baseline *b = load_ok(FIXTURE);
    assert_int_equal(pg_baseline_dumps(b, &a, &alen, &d), PG_OK);
    assert_int_equal(pg_baseline_dumps(b, &b2, &blen, &d), PG_OK);
    assert_int_equal(alen, flen);
    assert_string_equal(a, file);
    assert_string_equal(a, b2);
    assert_int_equal(a[alen - 1], '\n');
    free(file);
    free(a);
    free(b2);
    pg_baseline_free(b);
}

/* Numbers are rounded on the way out, so a write of measured doubles loads back and dumps to
 * the same bytes (the second write of a refresh that changed nothing changes nothing). */
static void test_rounding_is_stable(void **state)
{
    pg_baseline *b = load_ok(FIXTURE);
    pg_baseline_workload w = b->workloads[0];
    w.median_ms = 0.17710000000000004441;
    w.ci_low_ms = 0.1769512345678;
    w.ci_high_ms = 0.17731299999;
    w.speedup = 2.0 / 3.0;
    w.speedup_ci_low = 0.6;
    w.speedup_ci_high = 0.7;
    b->env.power_limit_w = 699.96;
    pg_diag d;
    assert_int_equal(pg_baseline_put(b, &w, &d), PG_OK);
    char path[512], *first = NULL, *second = NULL;
    snprintf(path, sizeof path, "%s/rounding/gemm_bf16_nt.json", PG_TEST_TMP);
    assert_int_equal(pg_baseline_write(b, path, false, &d), PG_OK);
    assert_int_equal(pg_file_read(path, 1 << 20, &first, NULL, &d), PG_OK);
    assert_non_null(strstr(first, "\"ci_low_ms\": 0.176951,"));
    assert_non_null(strstr(first, "\"estimate\": 0.666667"));
    assert_non_null(strstr(first, "\"power_limit_w\": 700.0"));
    pg_baseline *again = NULL;
    assert_int_equal(pg_baseline_load_file(path, NULL, NULL, &again, &d), PG_OK);
    assert_int_equal(pg_baseline_dumps(again, &second, NULL, &d), PG_OK);
    assert_string_equal(first, second);
    free(first);
    free(second);
    pg_baseline_free(again);
    pg_baseline_free(b);
}

/* The atomic write leaves no temporary file and replaces the old file whole. */
static void test_write_is_atomic_and_replaces(void **state)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/atomic/h200-sxm", PG_TEST_TMP);
    mkdir(PG_TEST_TMP "/atomic", 0755);
    pg_baseline_path(path, sizeof path, PG_TEST_TMP "/atomic/", "h200-sxm", "gemm_bf16_nt");
    assert_string_equal(path, PG_TEST_TMP "/atomic/h200-sxm/gemm_bf16_nt.json");
    pg_diag d;
    assert_int_equal(pg_file_write_atomic(PG_TEST_TMP "/atomic/stale", "x", 1, &d), PG_OK);
    pg_baseline *b = load_ok(FIXTURE);
    unlink(path);
    assert_int_equal(pg_baseline_write(b, path, false, &d), PG_OK);
    pg_baseline_remove(b, "m8192_n7168_k5120");
    assert_int_equal(b->n_workloads, 1);
    assert_int_equal(pg_baseline_write(b, path, false, &d), PG_OK);
    pg_baseline *c = load_ok(path);
    assert_int_equal(c->n_workloads, 1);
    pg_baseline_free(c);
    /* Nothing but the file in its folder. */
    char tmpname[700];
    snprintf(tmpname, sizeof tmpname, "%s.tmp.%d", path, (int)getpid());
    assert_int_not_equal(access(tmpname, F_OK), 0);
    /* A folder that cannot be created is an input error naming it. */
    assert_int_equal(pg_baseline_write(b, PG_TEST_TMP "/atomic/stale/x/t.json", false, &d),
                     PG_ERR_INPUT);
    pg_baseline_free(b);
}

static void test_schema_accepts_what_is_written(void **state)
{
    json_t *schema = NULL, *doc = NULL;
    pg_diag d;
    assert_int_equal(pg_json_load(SCHEMA, &schema, &d), PG_OK);
    g_schema_root = schema;
    check_schema(schema, "");
    assert_int_equal(pg_json_load(FIXTURE, &doc, &d), PG_OK);
    char why[512] = "";
    if (schema_errors(schema, doc, "", why, sizeof why))
        fail_msg("fixture: %s", why);
    json_decref(doc);
    /* A baseline without an accepted kernel, as written. */
    pg_baseline *b = load_ok(FIXTURE);
    b->has_accepted = false;
    for (int i = 0; i < b->n_workloads; i++)
        b->workloads[i].has_accepted = false;
    b->env.ecc = -1;
    doc = pg_baseline_to_json(b);
    why[0] = '\0';
    if (schema_errors(schema, doc, "", why, sizeof why))
        fail_msg("written: %s", why);
    /* ... and the schema refuses an unknown key. */
    json_object_set_new(json_object_get(doc, "environment"), "uuid", json_string("GPU-1"));
    why[0] = '\0';
    assert_true(schema_errors(schema, doc, "", why, sizeof why) > 0);
    json_decref(doc);
    pg_baseline_free(b);
    json_decref(schema);
}

/* A fixture's workload turned into a cuDNN entry (an attention task's baseline). */
static void make_cudnn(pg_baseline_workload *w)
{
    snprintf(w->library, sizeof w->library, "cudnn");
    w->cudnn = (pg_cudnn_config){.graph = PG_DNN_GRAPH_FWD_FUSED, .engine_id = 8, .n_knobs = 2};
    w->cudnn.knob_type[0] = 14, w->cudnn.knob_value[0] = 2;
    w->cudnn.knob_type[1] = 40, w->cudnn.knob_value[1] = 128;
    w->candidates_timed = 1;
}

static void test_cudnn_entry(void **state)
{
    json_t *schema = NULL;
    pg_diag d;
    assert_int_equal(pg_json_load(SCHEMA, &schema, &d), PG_OK);
    g_schema_root = schema;
    pg_baseline *b = load_ok(FIXTURE);
    pg_baseline_workload gemm = b->workloads[1];
    for (int i = 0; i < b->n_workloads; i++) /* one library per file */
        make_cudnn(&b->workloads[i]);
    assert_true(pg_baseline_workload_is_cudnn(&b->workloads[0]));
    assert_string_equal(pg_baseline_library_label(&b->workloads[0]), "cuDNN");
    char text[700];
    assert_string_equal(pg_baseline_vendor_config_text(&b->workloads[0], text, sizeof text),
                        "graph fused_sdpa_fwd, engine 8; STAGES=2 TILE_M=128");
    assert_false(pg_baseline_vendor_config_equal(&b->workloads[0], &gemm));
    /* Written, it matches the schema and reads back the same, byte for byte. */
    json_t *doc = pg_baseline_to_json(b);
    const json_t *vendor = json_object_get(json_object_get(json_object_get(doc, "workloads"), WL),
                                           "vendor");
    assert_non_null(json_object_get(vendor, "configuration"));
    assert_null(json_object_get(vendor, "algorithm"));
    char why[512] = "";
    if (schema_errors(schema, doc, "", why, sizeof why))
        fail_msg("written: %s", why);
    pg_baseline *again = NULL;
    if (pg_baseline_from_json(doc, "b.json", NULL, NULL, &again, &d) != PG_OK)
        fail_msg("%s", d.message);
    assert_true(pg_baseline_vendor_config_equal(&b->workloads[0], &again->workloads[0]));
    char *t1 = NULL, *t2 = NULL;
    assert_int_equal(pg_baseline_dumps(b, &t1, NULL, &d), PG_OK);
    assert_int_equal(pg_baseline_dumps(again, &t2, NULL, &d), PG_OK);
    assert_string_equal(t1, t2);
    /* A cuDNN entry carrying cuBLASLt's algorithm is refused, by ptxgate and by the schema. */
    json_t *v = json_object_get(json_object_get(json_object_get(doc, "workloads"), WL), "vendor");
    json_object_set_new(v, "algorithm", json_object());
    pg_baseline_free(again);
    again = NULL;
    pg_diag_clear(&d);
    assert_int_equal(pg_baseline_from_json(doc, "b.json", NULL, NULL, &again, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "workloads." WL ".vendor.algorithm");
    why[0] = '\0';
    assert_true(schema_errors(schema, doc, "", why, sizeof why) > 0);
    /* A file mixing libraries is refused at the entry that differs from the first. */
    pg_baseline_workload cudnn1 = b->workloads[1];
    b->workloads[1] = gemm;
    json_t *mixed = pg_baseline_to_json(b);
    b->workloads[1] = cudnn1;
    pg_diag_clear(&d);
    assert_int_equal(pg_baseline_from_json(mixed, "b.json", NULL, NULL, &again, &d), PG_ERR_INPUT);
    char want_field[200];
    snprintf(want_field, sizeof want_field, "workloads.%s.vendor.library", gemm.name);
    assert_string_equal(d.field, want_field);
    assert_non_null(strstr(d.message, "expected \"cudnn\" like workloads."));
    assert_non_null(strstr(d.message, "got \"cublaslt\""));
    json_decref(mixed);
    /* An unknown library names both that exist. */
    json_object_del(v, "algorithm");
    json_object_set_new(v, "library", json_string("cutlass"));
    pg_diag_clear(&d);
    assert_int_equal(pg_baseline_from_json(doc, "b.json", NULL, NULL, &again, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "\"cublaslt\" or \"cudnn\""));
    free(t1);
    free(t2);
    json_decref(doc);
    pg_baseline_free(b);
    json_decref(schema);
}

static void test_new_put_remove(void **state)
{
    pg_baseline *b = NULL;
    pg_diag d;
    assert_int_equal(pg_baseline_new("gemm_bf16_nt", "H200", &b, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "gpu_key");
    assert_int_equal(pg_baseline_new("../x", "h200-sxm", &b, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "task");
    assert_int_equal(pg_baseline_new("gemm_bf16_nt", "h200-sxm", &b, &d), PG_OK);
    assert_int_equal(b->env.ecc, -1);
    pg_baseline_workload w;
    memset(&w, 0, sizeof w);
    const char *names[] = {"m2", "m1", "m3", "m1"};
    for (int i = 0; i < 4; i++) {
        snprintf(w.name, sizeof w.name, "%s", names[i]);
        w.median_ms = i;
        assert_int_equal(pg_baseline_put(b, &w, &d), PG_OK);
    }
    assert_int_equal(b->n_workloads, 3);
    assert_string_equal(b->workloads[0].name, "m1");
    assert_true(b->workloads[0].median_ms == 3); /* replaced by the second m1 */
    assert_string_equal(b->workloads[2].name, "m3");
    pg_baseline_remove(b, "m2");
    pg_baseline_remove(b, "absent");
    assert_int_equal(b->n_workloads, 2);
    assert_string_equal(b->workloads[1].name, "m3");
    pg_baseline_free(b);
}

/* Workload entries match the shipped task's sizes; a changed size is no match. */
static void test_workload_matches_task(void **state)
{
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(PG_SOURCE_DIR "/tasks", "gemm_bf16_nt", &t, &d), PG_OK);
    int i = pg_task_find_workload(t, WL);
    assert_true(i >= 0);
    pg_baseline *b = load_ok(FIXTURE);
    pg_baseline_workload w = *pg_baseline_find(b, WL);
    assert_true(pg_baseline_workload_matches(&w, t, &t->workloads[i]));
    w.symbol_values[0] = 4097;
    assert_false(pg_baseline_workload_matches(&w, t, &t->workloads[i]));
    pg_baseline_workload fresh;
    memset(&fresh, 0, sizeof fresh);
    pg_baseline_workload_set_problem(&fresh, t, &t->workloads[i]);
    assert_string_equal(fresh.name, WL);
    assert_string_equal(fresh.symbol_names[0], "K");
    assert_string_equal(fresh.symbol_names[1], "M");
    assert_true(pg_baseline_workload_matches(&fresh, t, &t->workloads[i]));
    assert_false(pg_baseline_workload_matches(&fresh, t, &t->workloads[0]));
    pg_baseline_free(b);
    pg_task_free(t);
}

/* ---- defects: each refused with the file and the JSON path ---- */

/* Set (or delete, value NULL) the member at dotted path in the fixture, write it to a temporary
 * file and load it: must fail naming that file, field and message. */
static void expect_bad(const char *dotted, json_t *value, const char *field, const char *msg)
{
    json_t *root = NULL;
    pg_diag d;
    assert_int_equal(pg_json_load(FIXTURE, &root, &d), PG_OK);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", dotted);
    json_t *parent = root;
    char *key = buf, *dot;
    while ((dot = strchr(key, '.'))) {
        *dot = '\0';
        parent = json_object_get(parent, key);
        assert_non_null(parent);
        key = dot + 1;
    }
    if (value)
        json_object_set_new(parent, key, value);
    else
        json_object_del(parent, key);
    char path[512];
    snprintf(path, sizeof path, "%s/bad_baseline.json", PG_TEST_TMP);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
    pg_baseline *b = (pg_baseline *)1;
    pg_diag_clear(&d);
    pg_status st = pg_baseline_load_file(path, "gemm_bf16_nt", "h200-sxm", &b, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("%s: expected an input error, got %d", dotted, (int)st);
    assert_null(b);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (%s)", dotted, d.field, field, d.message);
    if (!strstr(d.message, msg))
        fail_msg("%s: message '%s' lacks '%s'", dotted, d.message, msg);
}

static void test_defects_are_located(void **state)
{
    expect_bad("schema_version", json_integer(2), "schema_version", "expected 1");
    expect_bad("surprise", json_true(), "surprise", "unknown field");
    expect_bad("task", json_string("gemm_fp16_nt"), "task", "expected 'gemm_bf16_nt'");
    expect_bad("gpu_key", json_string("h100-sxm"), "gpu_key", "expected 'h200-sxm'");
    expect_bad("gpu_key", json_string("H200 SXM"), "gpu_key", "not a GPU key");
    expect_bad("measured_utc", json_string("yesterday"), "measured_utc", "YYYY-MM-DD");
    expect_bad("measured_utc", json_string("2026-13-99T99:99:99Z"), "measured_utc", "YYYY-MM-DD");
    expect_bad("measured_utc", json_string("2026-00-10T10:00:00Z"), "measured_utc", "YYYY-MM-DD");
    expect_bad("tool.name", json_string("other"), "tool.name", "expected \"ptxgate\"");
    expect_bad("environment.driver_version", NULL, "environment.driver_version",
               "required field is missing");
    expect_bad("accepted_kernel.source_sha256", json_string("abc"),
               "accepted_kernel.source_sha256", "64 lowercase hex digits");
    expect_bad("accepted_kernel.manifest", json_string("/abs/m.json"), "accepted_kernel.manifest",
               "relative to the task's folder");
    expect_bad("accepted_kernel.manifest", json_string("examples//m.json"),
               "accepted_kernel.manifest", "relative to the task's folder");
    expect_bad("accepted_kernel", NULL, "accepted_kernel", "required field is missing");
    expect_bad("workloads", json_object(), "workloads", "expected 1 to 256 workloads");
    expect_bad("workloads." WL ".time.median_ms", json_real(0.5), "workloads." WL ".time.median_ms",
               "ci_low_ms <= median_ms <= ci_high_ms");
    expect_bad("workloads." WL ".time.median_ms", json_string("fast"),
               "workloads." WL ".time.median_ms", "number");
    expect_bad("workloads." WL ".time.ci_low_ms", json_real(-1), "workloads." WL ".time.ci_low_ms",
               "positive number");
    expect_bad("workloads." WL ".time.ci_high_ms", json_real(1e308),
               "workloads." WL ".time.ci_high_ms", "below 1e12");
    expect_bad("workloads." WL ".time.confidence", json_real(1.5),
               "workloads." WL ".time.confidence", "(0, 1)");
    expect_bad("workloads." WL ".time.mode", json_string("warm"), "workloads." WL ".time.mode",
               "\"cold\" or \"sustained\"");
    expect_bad("workloads." WL ".time.blocks", json_integer(0), "workloads." WL ".time.blocks",
               ">= 1");
    expect_bad("workloads." WL ".time.method", json_string(""), "workloads." WL ".time.method",
               "empty");
    expect_bad("workloads." WL ".vendor.library", json_string("cublas"),
               "workloads." WL ".vendor.library", "expected \"cublaslt\"");
    expect_bad("workloads." WL ".vendor.algorithm.splitk", json_integer(0),
               "workloads." WL ".vendor.algorithm.splitk", "from 1 to");
    expect_bad("workloads." WL ".vendor.heuristic_rank", json_integer(-1),
               "workloads." WL ".vendor.heuristic_rank", ">= 0");
    expect_bad("workloads." WL ".symbols.M", json_integer(0), "workloads." WL ".symbols.M", ">= 1");
    expect_bad("workloads." WL ".accepted", json_null(), "workloads." WL ".accepted",
               "names an accepted_kernel");
    expect_bad("workloads." WL ".accepted.speedup.ci_low", json_real(0.9),
               "workloads." WL ".accepted.speedup.estimate", "ci_low <= estimate <= ci_high");
    expect_bad("workloads.bad name", json_object(), "workloads.bad name", "not a workload name");
}

static void test_accepted_numbers_need_an_accepted_kernel(void **state)
{
    json_t *root = NULL;
    pg_diag d;
    assert_int_equal(pg_json_load(FIXTURE, &root, &d), PG_OK);
    json_object_set_new(root, "accepted_kernel", json_null());
    char path[512];
    snprintf(path, sizeof path, "%s/no_accepted.json", PG_TEST_TMP);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    pg_baseline *b = NULL;
    assert_int_equal(pg_baseline_load_file(path, NULL, NULL, &b, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.field, ".accepted"));
    assert_non_null(strstr(d.message, "expected null"));
    /* With every workload's accepted numbers null too, it loads. */
    const char *k;
    json_t *w;
    json_object_foreach(json_object_get(root, "workloads"), k, w)
        json_object_set_new(w, "accepted", json_null());
    assert_int_equal(json_dump_file(root, path, 0), 0);
    assert_int_equal(pg_baseline_load_file(path, NULL, NULL, &b, &d), PG_OK);
    assert_false(b->has_accepted);
    assert_false(b->workloads[0].has_accepted);
    pg_baseline_free(b);
    json_decref(root);
}

static void test_missing_and_malformed_files(void **state)
{
    pg_baseline *b = NULL;
    pg_diag d;
    assert_int_equal(pg_baseline_load_file(PG_TEST_TMP "/none/x.json", NULL, NULL, &b, &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.file, "none/x.json"));
    char path[512];
    snprintf(path, sizeof path, "%s/malformed.json", PG_TEST_TMP);
    assert_int_equal(pg_file_write_atomic(path, "{\n  \"task\": \n}", 14, &d), PG_OK);
    assert_int_equal(pg_baseline_load_file(path, NULL, NULL, &b, &d), PG_ERR_INPUT);
    assert_int_equal(d.line, 3);
    assert_null(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_fixture),
        cmocka_unit_test(test_dump_reproduces_the_file),
        cmocka_unit_test(test_rounding_is_stable),
        cmocka_unit_test(test_write_is_atomic_and_replaces),
        cmocka_unit_test(test_schema_accepts_what_is_written),
        cmocka_unit_test(test_cudnn_entry),
        cmocka_unit_test(test_new_put_remove),
        cmocka_unit_test(test_workload_matches_task),
        cmocka_unit_test(test_defects_are_located),
        cmocka_unit_test(test_accepted_numbers_need_an_accepted_kernel),
        cmocka_unit_test(test_missing_and_malformed_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
