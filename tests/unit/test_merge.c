/* Merging shard results: two synthetic shards of one run with performance comparisons, where
 * each shard's own Holm step (m = its comparisons) promoted an INCONCLUSIVE that Holm over the
 * merged family (m = 4) does not: the merged results equal the unsharded run's, worked out by
 * hand. Then every refusal: a missing, repeated or foreign shard, an item in two shards, a
 * different GPU, driver, ptxgate version or setting, a file that is not a shard, shards of runs
 * over other manifests or workloads with the same counts (they used to be merged into one
 * submission), and hostile shard records (positions, shard counts and Holm numbers no run has)
 * refused without allocating what they claim. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/merge.h"

static json_t *stage(const char *name, const char *status, const char *message)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", name, "status", status, "message",
                     message, "duration_s", 0.5, "details");
}

/* A workload whose candidate_vs_cublaslt comparison has verdict v and p_fail_seq p, as the
 * pipeline writes it (holm: the shard's Holm step changed it). */
static json_t *workload(const char *name, const char *v, double p, int holm, int m)
{
    json_t *perf = stage("performance", strcmp(v, "FAIL") == 0 ? "fail" : "pass", "numbers");
    if (holm) {
        char msg[200];
        snprintf(msg, sizeof msg, "numbers (Holm over the run's %d comparisons made "
                                  "candidate_vs_cublaslt %s)", m, v);
        json_object_set_new(perf, "message", json_string(msg));
    }
    json_t *c = json_pack("{s:s, s:s, s:f, s:f}", "name", "candidate_vs_cublaslt", "verdict", v,
                          "p_fail_seq", p, "p_fail", p);
    if (holm)
        json_object_set_new(c, "holm_changed", json_true());
    json_object_set_new(json_object_get(perf, "details"), "comparisons",
                        json_pack("[o, {s:s, s:s, s:f}]", c, "name", "aa_canary", "verdict",
                                  "PASS", "p_fail_seq", 1.0));
    return json_pack("{s:s, s:s, s:[o, o], s:f}", "name", name, "verdict", "pass", "stages",
                     stage("correctness", "pass", "ok"), perf, "speedup_factor", 0.5);
}

static json_t *submission(const char *name)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:[o, o], s:[]}", "name", name, "task", "t",
                     "manifest", name, "verdict", "pass", "stages",
                     stage("assemble", "pass", "ptxas ok"), stage("load", "pass", "loaded"),
                     "workloads");
}

static json_t *envelope(const char *gpu, const char *started)
{
    return json_pack(
        "{s:i, s:{s:s, s:s}, s:s, s:f, s:s, s:i, s:[], s:{s:s, s:{s:s, s:s, s:s, s:i, s:I}, "
        "s:n, s:s, s:i, s:s, s:i}, s:{s:i, s:i}, s:{s:i, s:i, s:i, s:i}}",
        "schema_version", 1, "tool", "name", "ptxgate", "version", "0.1.0", "started_utc", started,
        "duration_s", 10.0, "verdict", "pass", "exit_code", 0, "submissions", "environment",
        "hostname", "runner", "gpu", "name", gpu, "uuid", started, "compute_capability", "9.0",
        "sm_count", 132, "memory_bytes", (json_int_t)150109880320, "gpu_skip_reason",
        "driver_version", "580.159.04", "cuda_driver_api_version", 13000, "ptxas_version",
        "13.0.88", "cublaslt_version", 130100, "settings", "seed", 7, "correctness_sets", 3,
        "counts", "pass", 0, "fail", 0, "error", 0, "skipped", 0);
}

static void shard_record(json_t *r, int index, int count, json_t *items, int m)
{
    json_object_set_new(r, "shard", json_pack("{s:i, s:i, s:i, s:o}", "index", index, "count",
                                              count, "items_total", 4, "items", items));
    json_object_set_new(r, "holm", json_pack("{s:f, s:i, s:i}", "run_alpha", 0.01, "m_planned", 4,
                                             "m", m));
}

static json_t *item(const char *sub, const char *wl, int si, int wi)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i}", "task", "t", "submission", sub, "manifest",
                     sub, "workload", wl, "submission_index", si, "workload_index", wi);
}

/* The run: k1 (w0, w1, w2) and k2 (w0); p_fail_seq 0.002 (FAIL), 0.004, 0.0045, 0.3.
 * Shard 1 = k1/w0, k1/w2, k2/w0: Holm over m = 3 rejects 0.002 <= 0.00333 and 0.0045 <= 0.005,
 * so k1/w2 was made FAIL. Shard 2 = k1/w1: Holm over m = 1 rejects 0.004 <= 0.01, made FAIL. */
static json_t *shard1(void)
{
    json_t *r = envelope("NVIDIA H200", "2026-11-29T10:00:05Z");
    json_t *k1 = submission("k1"), *k2 = submission("k2");
    json_array_append_new(json_object_get(k1, "workloads"), workload("w0", "FAIL", 0.002, 0, 3));
    json_array_append_new(json_object_get(k1, "workloads"), workload("w2", "FAIL", 0.0045, 1, 3));
    json_array_append_new(json_object_get(k2, "workloads"), workload("w0", "INCONCLUSIVE", 0.3, 0, 3));
    json_array_append_new(json_object_get(r, "submissions"), k1);
    json_array_append_new(json_object_get(r, "submissions"), k2);
    shard_record(r, 1, 2,
                 json_pack("[o, o, o]", item("k1", "w0", 0, 0), item("k1", "w2", 0, 2),
                           item("k2", "w0", 1, 0)),
                 3);
    return r;
}

static json_t *shard2(void)
{
    json_t *r = envelope("NVIDIA H200", "2026-11-29T10:00:00Z");
    json_t *k1 = submission("k1");
    json_array_append_new(json_object_get(k1, "workloads"), workload("w1", "FAIL", 0.004, 1, 1));
    json_array_append_new(json_object_get(r, "submissions"), k1);
    shard_record(r, 2, 2, json_pack("[o]", item("k1", "w1", 0, 1)), 1);
    return r;
}

static const char *const k_files[] = {"s1.json", "s2.json", "s3.json"};

static const char *sval(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void test_merged_equals_unsharded(void **state)
{
    json_t *in[2] = {shard2(), shard1()}; /* any order */
    json_t *before = json_deep_copy(in[0]);
    json_t *out = NULL;
    pg_diag d;
    pg_status st = pg_results_merge(in, (const char *const[]){"s2.json", "s1.json"}, 2, &out, &d);
    if (st != PG_OK)
        fail_msg("%s: %s: %s", d.file, d.field, d.message);
    assert_true(json_equal(before, in[0])); /* inputs untouched */
    /* The unsharded run, by hand: m = 4, only 0.002 <= 0.0025 is rejected. */
    const char *want[4][4] = {{"k1", "w0", "FAIL", "fail"},
                              {"k1", "w1", "INCONCLUSIVE", "pass"},
                              {"k1", "w2", "INCONCLUSIVE", "pass"},
                              {"k2", "w0", "INCONCLUSIVE", "pass"}};
    const json_t *subs = json_object_get(out, "submissions");
    assert_int_equal(json_array_size(subs), 2);
    int row = 0;
    size_t i, j;
    const json_t *s, *w;
    json_array_foreach(subs, i, s) {
        assert_int_equal(json_array_size(json_object_get(s, "stages")), 2);
        json_array_foreach(json_object_get(s, "workloads"), j, w) {
            const json_t *perf = json_array_get(json_object_get(w, "stages"), 1);
            const json_t *c = json_array_get(
                json_object_get(json_object_get(perf, "details"), "comparisons"), 0);
            assert_string_equal(sval(s, "name"), want[row][0]);
            assert_string_equal(sval(w, "name"), want[row][1]);
            assert_string_equal(sval(c, "verdict"), want[row][2]);
            assert_string_equal(sval(perf, "status"), want[row][3]);
            assert_string_equal(sval(w, "verdict"), want[row][3]);
            assert_null(json_object_get(c, "holm_changed"));
            assert_string_equal(sval(perf, "message"), "numbers");
            row++;
        }
    }
    assert_int_equal(row, 4);
    assert_string_equal(sval(json_array_get(subs, 0), "verdict"), "fail");
    assert_string_equal(sval(json_array_get(subs, 1), "verdict"), "pass");
    assert_string_equal(sval(out, "verdict"), "fail");
    assert_int_equal(json_integer_value(json_object_get(out, "exit_code")), 1);
    const json_t *counts = json_object_get(out, "counts");
    assert_int_equal(json_integer_value(json_object_get(counts, "pass")), 4 + 4 + 3);
    assert_int_equal(json_integer_value(json_object_get(counts, "fail")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(out, "holm"), "m")), 4);
    assert_null(json_object_get(out, "shard"));
    assert_string_equal(sval(out, "started_utc"), "2026-11-29T10:00:00Z");
    assert_float_equal(json_real_value(json_object_get(out, "duration_s")), 20.0, 1e-12);
    const json_t *from = json_object_get(out, "merged_from");
    assert_int_equal(json_array_size(from), 2);
    assert_string_equal(sval(json_array_get(from, 0), "shard"), "1/2");
    assert_string_equal(sval(json_array_get(from, 0), "file"), "s1.json");
    json_decref(out);
    json_decref(before);
    json_decref(in[0]);
    json_decref(in[1]);
}

typedef void (*spoil_fn)(json_t *a, json_t *b);

/* Merge shard1 and shard2 after spoil(); expect PG_ERR_INPUT naming file and field. */
static void refused(spoil_fn spoil, const char *file, const char *field, const char *text)
{
    json_t *in[2] = {shard1(), shard2()};
    spoil(in[0], in[1]);
    json_t *out = NULL;
    pg_diag d;
    assert_int_equal(pg_results_merge(in, k_files, 2, &out, &d), PG_ERR_INPUT);
    assert_null(out);
    if (file)
        assert_string_equal(d.file, file);
    assert_string_equal(d.field, field);
    if (!strstr(d.message, text))
        fail_msg("message '%s' lacks '%s'", d.message, text);
    json_decref(in[0]);
    json_decref(in[1]);
}

static void other_gpu(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(json_object_get(b, "environment"), "gpu"), "name",
                        json_string("NVIDIA H100 80GB HBM3"));
}
static void other_driver(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(b, "environment"), "driver_version",
                        json_string("590.10"));
}
static void other_seed(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(b, "settings"), "seed", json_integer(8));
}
static void other_version(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(b, "tool"), "version", json_string("0.2.0"));
}
static void same_index(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(b, "shard"), "index", json_integer(1));
}
static void three_shards(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "shard"), "count", json_integer(3));
    json_object_set_new(json_object_get(b, "shard"), "count", json_integer(3));
}
static void overlap(json_t *a, json_t *b)
{
    json_t *items = json_object_get(json_object_get(b, "shard"), "items");
    json_object_set_new(json_array_get(items, 0), "workload_index", json_integer(0));
}
static void not_a_shard(json_t *a, json_t *b)
{
    json_object_del(b, "shard");
}
static void mismatched_record(json_t *a, json_t *b)
{
    json_t *items = json_object_get(json_object_get(b, "shard"), "items");
    json_object_set_new(json_array_get(items, 0), "workload", json_string("w9"));
}
static void malformed(json_t *a, json_t *b)
{
    json_object_set_new(b, "verdict", json_string("perhaps"));
}

/* Hostile shard records: positions, counts and Holm numbers far outside any run. */
static void huge_workload_index(json_t *a, json_t *b)
{
    /* (2^61 + 1) slots of 8 bytes wrap to 8 bytes: the position must be refused, not grown to. */
    json_t *items = json_object_get(json_object_get(a, "shard"), "items");
    json_object_set_new(json_array_get(items, 1), "workload_index",
                        json_integer((json_int_t)1 << 61));
}
static void large_workload_index(json_t *a, json_t *b)
{
    json_t *items = json_object_get(json_object_get(b, "shard"), "items");
    json_object_set_new(json_array_get(items, 0), "workload_index", json_integer(1000000000));
}
static void count_wraps_int(json_t *a, json_t *b)
{
    /* 2^32 + 2 would read as 2 shards in an int. */
    json_object_set_new(json_object_get(a, "shard"), "count", json_integer(((json_int_t)1 << 32) + 2));
    json_object_set_new(json_object_get(b, "shard"), "count", json_integer(((json_int_t)1 << 32) + 2));
}
static void holm_m_overflows(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "holm"), "m", json_integer((json_int_t)1 << 62));
    json_object_set_new(json_object_get(b, "holm"), "m", json_integer((json_int_t)1 << 62));
}
static void holm_m_above_planned(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(b, "holm"), "m", json_integer(5));
}
static void holm_alpha_negative(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "holm"), "run_alpha", json_real(-1.0));
    json_object_set_new(json_object_get(b, "holm"), "run_alpha", json_real(-1.0));
}
static void items_total_huge(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "shard"), "items_total", json_integer((json_int_t)1 << 62));
    json_object_set_new(json_object_get(b, "shard"), "items_total", json_integer((json_int_t)1 << 62));
}
static void other_confidence(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "settings"), "confidence", json_real(0.95));
    json_object_set_new(json_object_get(b, "settings"), "confidence", json_real(0.99));
}
static void other_watchdog(json_t *a, json_t *b)
{
    json_object_set_new(json_object_get(a, "settings"), "energy", json_true());
    json_object_set_new(json_object_get(b, "settings"), "energy", json_false());
}

/* Shards of two runs over different manifests or workloads, with the same counts. */
static void other_submission(json_t *a, json_t *b)
{
    json_t *item = json_array_get(json_object_get(json_object_get(b, "shard"), "items"), 0);
    json_object_set_new(item, "submission", json_string("k9"));
    json_object_set_new(item, "manifest", json_string("k9"));
    json_object_set_new(json_array_get(json_object_get(b, "submissions"), 0), "name",
                        json_string("k9"));
}
static void other_workloads(json_t *a, json_t *b)
{
    json_t *item = json_array_get(json_object_get(json_object_get(b, "shard"), "items"), 0);
    json_object_set_new(item, "workload", json_string("w0"));
    json_t *k1 = json_array_get(json_object_get(b, "submissions"), 0);
    json_object_set_new(json_array_get(json_object_get(k1, "workloads"), 0), "name",
                        json_string("w0"));
}

static void test_refusals(void **state)
{
    refused(other_gpu, "s2.json", "environment.gpu.name", "'NVIDIA H100 80GB HBM3' here, 'NVIDIA H200' in s1.json");
    refused(other_driver, "s2.json", "environment.driver_version", "'590.10' here");
    refused(other_seed, "s2.json", "settings.seed", "8 here, 7 in s1.json");
    refused(other_version, "s2.json", "tool.version", "'0.2.0'");
    refused(same_index, NULL, "shard.index", "given twice");
    refused(three_shards, NULL, "shard", "missing shard 3/3");
    refused(overlap, NULL, "shard.items[0]", "also in another shard");
    refused(not_a_shard, "s2.json", "shard", "not the results of a shard");
    refused(mismatched_record, "s2.json", "shard.items[0]", "does not match");
    refused(malformed, "s2.json", "verdict", "");
    refused(huge_workload_index, "s1.json", "shard.items[1]", "from 0 to 3");
    refused(large_workload_index, "s2.json", "shard.items[0]", "from 0 to 3");
    refused(count_wraps_int, "s1.json", "shard", "count (1..4096)");
    refused(holm_m_overflows, "s1.json", "holm.m", "m = 4611686018427387904");
    refused(holm_m_above_planned, "s2.json", "holm.m", "m = 5, m_planned = 4");
    refused(holm_alpha_negative, "s1.json", "holm.run_alpha", "between 0 and 1");
    refused(items_total_huge, "s1.json", "shard.items_total", "expected 4611686018427387904");
    refused(other_submission, "s2.json", "shard.items[0]",
            "submission 0 is t / k9 (k9) here, t / k1 (k1) in s1.json: the shards come from "
            "runs over different manifests");
    refused(other_workloads, "s2.json", "shard.items[0]",
            "the workload w0 of t / k1 (k1) is at another position in s1.json");
    /* Differences name both values, whatever their type. */
    refused(other_confidence, "s2.json", "settings.confidence", "0.99 here, 0.95 in s1.json");
    refused(other_watchdog, "s2.json", "settings.energy", "false here, true in s1.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_equals_unsharded),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
