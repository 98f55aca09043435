/* Holm re-applied over the performance comparisons recorded in a results json: the expected
 * verdicts are worked out by hand from Holm's thresholds run_alpha / (m − i) (not by the code
 * under test); the output of a run that already applied Holm over the same family is left as it
 * is (the step is undone exactly, then redone); canaries and error stages are handled as
 * pg_perf_holm_finalize handles them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/holm_family.h"

static json_t *cmp(const char *name, const char *verdict, double p, int changed)
{
    json_t *c = json_pack("{s:s, s:s, s:o, s:f}", "name", name, "verdict", verdict, "p_fail_seq",
                          isnan(p) ? json_null() : json_real(p), "p_fail", 0.5);
    if (changed)
        json_object_set_new(c, "holm_changed", json_true());
    return c;
}

static json_t *perf(const char *status, const char *message, json_t *cmps)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:{s:o}}", "stage", "performance", "status", status,
                     "message", message, "duration_s", 1.0, "details", "comparisons", cmps);
}

/* One submission whose workload i has the performance stage stages[i]. */
static json_t *results(json_t **stages, int n)
{
    json_t *wls = json_array();
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        json_array_append_new(wls, json_pack("{s:s, s:[o]}", "name", name, "stages", stages[i]));
    }
    return json_pack("{s:[{s:s, s:[], s:o}]}", "submissions", "name", "k", "stages", "workloads",
                     wls);
}

static const json_t *stage_of(const json_t *r, int w)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
                                                             json_object_get(r, "submissions"), 0),
                                                                         "workloads"),
                                                         (size_t)w),
                                          "stages"),
                          0);
}

static const json_t *cmp_of(const json_t *r, int w, int k)
{
    return json_array_get(json_object_get(json_object_get(stage_of(r, w), "details"),
                                          "comparisons"),
                          (size_t)k);
}

static const char *sval(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Two shards' families merged. m = 4, run_alpha 0.01: sorted p 0.002 <= 0.01/4 = 0.0025 is
 * rejected, 0.004 > 0.01/3 = 0.00333 stops. Shard 1 alone (m = 2) had also rejected 0.004
 * (<= 0.01/1) and made it FAIL; shard 2 alone had rejected 0.0045 (<= 0.01/2). Over all four
 * both go back to INCONCLUSIVE: passing stages without the shard's Holm note. */
static void test_shard_promotions_are_undone(void **state)
{
    json_t *st[4] = {
        perf("fail", "FAIL: speedup 0.1x", json_pack("[o, o]", cmp("candidate_vs_cublaslt", "FAIL", 0.002, 0), cmp("aa_canary", "PASS", 1.0, 0))),
        perf("fail", "INCONCLUSIVE (warning, not failing): x (Holm over the run's 2 comparisons made candidate_vs_cublaslt FAIL)",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "FAIL", 0.004, 1))),
        perf("fail", "INCONCLUSIVE (warning, not failing): y (Holm over the run's 2 comparisons made candidate_vs_cublaslt FAIL)",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "FAIL", 0.0045, 1))),
        perf("pass", "INCONCLUSIVE (warning, not failing): z",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", 0.3, 0))),
    };
    json_t *r = results(st, 4);
    size_t m = 0;
    pg_diag d;
    assert_int_equal(pg_results_reapply_holm(r, "merged", 0.01, &m, &d), PG_OK);
    assert_int_equal(m, 4); /* the canary is not in the family */
    assert_string_equal(sval(cmp_of(r, 0, 0), "verdict"), "FAIL");
    assert_string_equal(sval(stage_of(r, 0), "status"), "fail");
    assert_null(json_object_get(cmp_of(r, 0, 0), "holm_changed"));
    for (int w = 1; w <= 2; w++) {
        assert_string_equal(sval(cmp_of(r, w, 0), "verdict"), "INCONCLUSIVE");
        assert_null(json_object_get(cmp_of(r, w, 0), "holm_changed"));
        assert_string_equal(sval(stage_of(r, w), "status"), "pass");
        assert_null(strstr(sval(stage_of(r, w), "message"), "Holm"));
    }
    assert_string_equal(sval(stage_of(r, 3), "status"), "pass");
    json_decref(r);
}

/* A run over p = 0.001 (FAIL), 0.003, 0.2, 0.3 (INCONCLUSIVE): 0.001 <= 0.0025 and 0.003 <=
 * 0.00333 are rejected, 0.2 > 0.005 stops: the second becomes FAIL with the note. Applying the
 * step again to that output changes nothing. */
static void test_promotion_and_idempotence(void **state)
{
    json_t *st[4] = {
        perf("fail", "FAIL: a", json_pack("[o]", cmp("candidate_vs_cublaslt", "FAIL", 0.001, 0))),
        perf("pass", "INCONCLUSIVE (warning, not failing): b",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", 0.003, 0))),
        perf("pass", "PASS: c", json_pack("[o]", cmp("candidate_vs_cublaslt", "PASS", 0.2, 0))),
        perf("pass", "INCONCLUSIVE (warning, not failing): d",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", 0.3, 0))),
    };
    json_t *r = results(st, 4);
    pg_diag d;
    assert_int_equal(pg_results_reapply_holm(r, "r", 0.01, NULL, &d), PG_OK);
    assert_string_equal(sval(cmp_of(r, 1, 0), "verdict"), "FAIL");
    assert_true(json_is_true(json_object_get(cmp_of(r, 1, 0), "holm_changed")));
    assert_string_equal(sval(stage_of(r, 1), "status"), "fail");
    assert_string_equal(sval(stage_of(r, 1), "message"),
                        "INCONCLUSIVE (warning, not failing): b (Holm over the run's 4 "
                        "comparisons made candidate_vs_cublaslt FAIL)");
    json_t *again = json_deep_copy(r);
    assert_int_equal(pg_results_reapply_holm(again, "r", 0.01, NULL, &d), PG_OK);
    assert_true(json_equal(again, r));
    json_decref(again);
    json_decref(r);
}

/* A FAIL that an earlier step had demoted (holm_changed INCONCLUSIVE) is a FAIL before Holm; in
 * a family where Holm keeps it, it is FAIL again, unmarked. A stage that is an infrastructure
 * error keeps its status, and a NaN p-value (null) is never rejected. An implausible candidate's
 * stage stays failed whatever Holm does to its comparison. */
static void test_demotion_error_null_and_implausible(void **state)
{
    json_t *st[4] = {
        perf("pass", "INCONCLUSIVE (warning, not failing): a (Holm over the run's 9 comparisons made candidate_vs_accepted INCONCLUSIVE)",
             json_pack("[o, o]", cmp("candidate_vs_cublaslt", "PASS", 0.9, 0),
                       cmp("candidate_vs_accepted", "INCONCLUSIVE", 0.0001, 1))),
        perf("error", "INFRASTRUCTURE: the A/A canary ...",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", 0.0002, 0))),
        perf("pass", "INCONCLUSIVE (warning, not failing): c",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", NAN, 0))),
        perf("fail", "IMPLAUSIBLE: the candidate's 0.1 ms is below ...",
             json_pack("[o]", cmp("candidate_vs_cublaslt", "INCONCLUSIVE", 0.5, 0))),
    };
    json_t *r = results(st, 4);
    pg_diag d;
    size_t m;
    assert_int_equal(pg_results_reapply_holm(r, "r", 0.01, &m, &d), PG_OK);
    assert_int_equal(m, 5);
    /* sorted: 0.0001 <= 0.002, 0.0002 <= 0.0025, 0.5 > 0.00333 stops (NaN counts as 1). */
    assert_string_equal(sval(cmp_of(r, 0, 1), "verdict"), "FAIL");
    assert_null(json_object_get(cmp_of(r, 0, 1), "holm_changed"));
    assert_string_equal(sval(stage_of(r, 0), "status"), "fail");
    assert_null(strstr(sval(stage_of(r, 0), "message"), "Holm"));
    /* The error stage: rejected, but left as it is. */
    assert_string_equal(sval(cmp_of(r, 1, 0), "verdict"), "INCONCLUSIVE");
    assert_string_equal(sval(stage_of(r, 1), "status"), "error");
    assert_string_equal(sval(cmp_of(r, 2, 0), "verdict"), "INCONCLUSIVE");
    assert_string_equal(sval(stage_of(r, 3), "status"), "fail");
    json_decref(r);
}

static void test_bad_entries_name_the_path(void **state)
{
    json_t *st[1] = {perf("pass", "x", json_pack("[o]", cmp("candidate_vs_cublaslt", "MAYBE", 0.1, 0)))};
    json_t *r = results(st, 1);
    pg_diag d;
    assert_int_equal(pg_results_reapply_holm(r, "shard2.json", 0.01, NULL, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "shard2.json");
    assert_string_equal(d.field, "submissions[0].workloads[0].stages[0].details.comparisons[0].verdict");
    json_decref(r);
    json_t *st2[1] = {perf("pass", "x", json_pack("[{s:s, s:s, s:s}]", "name", "candidate_vs_cublaslt", "verdict", "PASS", "p_fail_seq", "0.1"))};
    r = results(st2, 1);
    assert_int_equal(pg_results_reapply_holm(r, "s.json", 0.01, NULL, &d), PG_ERR_INPUT);
    assert_string_equal(d.field,
                        "submissions[0].workloads[0].stages[0].details.comparisons[0].p_fail_seq");
    assert_non_null(strstr(d.message, "expected a probability from 0 to 1 or null, found a string"));
    json_decref(r);
    /* Out of range: a p_fail_seq of -1e308 would sort first and turn verdicts into FAIL. */
    const double hostile[] = {-1e308, -0.001, 1.5, 1e308};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        json_t *st3[1] = {perf("pass", "x", json_pack("[o]", cmp("candidate_vs_cublaslt", "PASS",
                                                                hostile[i], 0)))};
        r = results(st3, 1);
        assert_int_equal(pg_results_check_holm(r, "s2.json", &d), PG_ERR_INPUT);
        assert_string_equal(d.file, "s2.json");
        assert_string_equal(
            d.field, "submissions[0].workloads[0].stages[0].details.comparisons[0].p_fail_seq");
        assert_non_null(strstr(d.message, "expected a probability from 0 to 1, found"));
        assert_int_equal(pg_results_reapply_holm(r, "s2.json", 0.01, NULL, &d), PG_ERR_INPUT);
        json_decref(r);
    }
    /* The bounds themselves are probabilities; checking changes nothing. */
    json_t *st4[1] = {perf("pass", "x", json_pack("[o, o]", cmp("candidate_vs_cublaslt", "PASS", 0.0, 0),
                                                  cmp("candidate_vs_accepted", "PASS", 1.0, 0)))};
    r = results(st4, 1);
    json_t *before = json_deep_copy(r);
    assert_int_equal(pg_results_check_holm(r, "s.json", &d), PG_OK);
    assert_true(json_equal(r, before));
    json_decref(before);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shard_promotions_are_undone),
        cmocka_unit_test(test_promotion_and_idempotence),
        cmocka_unit_test(test_demotion_error_null_and_implausible),
        cmocka_unit_test(test_bad_entries_name_the_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
