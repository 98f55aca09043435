/* Settings differences of two compared runs: the run's settings, its baselines and its
 * environment (scope "run"); a pair's arch, instructions policy, min_speedup and mode; the stages
 * each can change; folding the pairs' differences into one entry per setting with a count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "report/compare_settings.h"

static const json_t *entry(const json_t *list, const char *setting)
{
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) if (strcmp(json_string_value(json_object_get(e, "setting")), setting) == 0) return e;
    return NULL;
}

static void test_run_settings(void **state)
{
    (void)state;
    json_t *a = json_pack("{s:{s:i, s:I, s:n, s:s}, s:{s:s, s:s, s:[]}}", "settings",
                          "correctness_sets", 3, "seed", (json_int_t)1, "min_speedup_override",
                          "timing_mode_override", "cold", "baselines", "dir", "baselines",
                          "on_drift", "warn", "tasks");
    json_t *b = json_pack("{s:{s:i, s:I, s:f, s:s}, s:{s:s, s:s, s:[{}]}}", "settings",
                          "correctness_sets", 5, "seed", (json_int_t)1, "min_speedup_override",
                          0.5, "timing_mode_override", "cold", "baselines", "dir", "baselines",
                          "on_drift", "warn", "tasks");
    json_t *ea = json_pack("{s:s, s:s, s:n}", "gpu", "NVIDIA H200", "cublaslt_version", "13.1.0",
                           "cudnn_version");
    json_t *eb = json_pack("{s:s, s:s, s:n}", "gpu", "NVIDIA H200", "cublaslt_version", "13.2.0",
                           "cudnn_version");
    json_t *d = pg_compare_run_settings(a, b, ea, eb);
    assert_non_null(d);
    /* sets, min_speedup, cuBLASLt differ; seed, mode, GPU, cuDNN, baselines (tasks are
     * findings, not settings) do not. */
    assert_int_equal(json_array_size(d), 3);
    const json_t *sets = entry(d, "sets"), *ms = entry(d, "min_speedup"), *lt = entry(d, "cuBLASLt");
    assert_non_null(sets);
    assert_non_null(ms);
    assert_non_null(lt);
    assert_int_equal(json_integer_value(json_object_get(sets, "old")), 3);
    assert_int_equal(json_integer_value(json_object_get(sets, "new")), 5);
    assert_true(json_is_null(json_object_get(ms, "old")));
    assert_string_equal(json_string_value(json_object_get(lt, "scope")), "run");
    assert_true(pg_compare_setting_affects(sets, "correctness"));
    assert_false(pg_compare_setting_affects(sets, "performance"));
    assert_true(pg_compare_setting_affects(ms, "performance"));
    assert_true(pg_compare_setting_affects(lt, "performance"));
    assert_false(pg_compare_setting_affects(lt, "assemble"));
    json_decref(d);
    json_decref(a);
    json_decref(b);
    json_decref(ea);
    json_decref(eb);
}

/* A workload with an instructions stage (policy) and a performance stage (min_speedup, mode). */
static json_t *wl(const char *policy, double min_speedup, const char *mode)
{
    return json_pack("{s:[{s:s, s:{s:s}}, {s:s, s:{s:f, s:s}}]}", "stages", "stage",
                     "instructions", "details", "policy", policy, "stage", "performance",
                     "details", "min_speedup", min_speedup, "mode", mode);
}

static void test_pair_settings_and_folding(void **state)
{
    (void)state;
    json_t *sa = json_pack("{s:s}", "arch", "sm_90a"), *sb = json_pack("{s:s}", "arch", "sm_90a");
    json_t *wa = wl("require", 0.2, "cold"), *wb = wl("warn", 0.2, "cold");
    json_t *d1 = pg_compare_pair_settings(sa, wa, sb, wb);
    assert_int_equal(json_array_size(d1), 1);
    const json_t *p = entry(d1, "instructions policy");
    assert_string_equal(json_string_value(json_object_get(p, "old")), "require");
    assert_string_equal(json_string_value(json_object_get(p, "new")), "warn");
    assert_true(pg_compare_setting_affects(p, "instructions"));
    assert_false(pg_compare_setting_affects(p, "correctness"));

    json_t *sc = json_pack("{s:s}", "arch", "sm_100a"), *wc = wl("warn", 0.5, "sustained");
    json_t *d2 = pg_compare_pair_settings(sa, wa, sc, wc);
    assert_int_equal(json_array_size(d2), 4); /* arch, policy, min_speedup, mode */
    assert_true(pg_compare_setting_affects(entry(d2, "arch"), "assemble"));
    assert_true(pg_compare_setting_affects(entry(d2, "mode"), "performance"));

    json_t *run = json_array();
    assert_true(pg_compare_settings_add_pair(run, d1));
    assert_true(pg_compare_settings_add_pair(run, d2));
    assert_int_equal(json_array_size(run), 4);
    const json_t *pol = entry(run, "instructions policy");
    assert_int_equal(json_integer_value(json_object_get(pol, "pairs")), 2);
    assert_string_equal(json_string_value(json_object_get(pol, "scope")), "pairs");
    assert_int_equal(json_integer_value(json_object_get(entry(run, "arch"), "pairs")), 1);

    json_t *same = pg_compare_pair_settings(sa, wa, sb, wa);
    assert_int_equal(json_array_size(same), 0);
    json_decref(same);
    json_decref(run);
    json_decref(d1);
    json_decref(d2);
    json_decref(sa);
    json_decref(sb);
    json_decref(sc);
    json_decref(wa);
    json_decref(wb);
    json_decref(wc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_settings),
        cmocka_unit_test(test_pair_settings_and_folding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
