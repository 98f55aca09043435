/* Unit tests of the performance stage's decision (gate/stats/perf_verdict.h) without a GPU:
 * the comparisons' configurations, the stop rule at a look, and every branch of the verdict
 * from hand-made measurements. The numbers are chosen so that the messages can be written out
 * by hand: 1e11 FLOP in 1 ms is 100 TFLOP/s; a 1000 TFLOP/s peak and 1e8 bytes at 1000 GB/s
 * both give a 0.1 ms floor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/perf_verdict.h"

#define N 16

static pg_perf_settings settings(void)
{
    return (pg_perf_settings){.min_speedup = 0.9,
                              .regression_tolerance = 0,
                              .confidence = 0.95,
                              .seed = 42,
                              .workload = 3,
                              .n_comparisons = 1,
                              .run_alpha = 0.01};
}

/* --- configurations */

static void test_configure_from_probe(void **state)
{
    pg_perf_settings s = settings();
    s.n_comparisons = 4;
    pg_perf_configs k;
    /* Baseline probe 0.5 ms: δ = 1 %; accepted probe 0.05 ms: δ_regression = 2 %. */
    pg_perf_configure(&s, 0.5, 0.05, &k);
    assert_true(k.delta == 0.01);
    assert_true(k.delta_regression == 0.02);
    assert_true(fabs(k.main.lambda - log(1 / 0.9)) < 1e-15);
    assert_true(fabs(k.main.fast_lambda - (log(1 / 0.9) - log1p(0.01))) < 1e-15);
    assert_true(fabs(k.canary.lambda - log1p(0.01)) < 1e-15);
    assert_true(fabs(k.regression.lambda - log1p(0.02)) < 1e-15);
    assert_true(k.main.alpha == 0.01 / 4);
    assert_true(k.regression.alpha == 0.01 / 4);
    assert_true(k.canary.alpha == 0.01 / 8); /* its own family, both directions */
    uint64_t seed = 42 ^ (0x9E3779B97F4A7C15ull * 4u);
    assert_true(k.main.seed == seed && k.canary.seed == seed && k.regression.seed == seed);
    assert_true(k.main.confidence == 0.95 && k.canary.confidence == 0.95 &&
                k.regression.confidence == 0.95);
    assert_int_equal(k.main.n_looks, 3);
    assert_int_equal(k.main.looks[0], 16);
}

static void test_configure_without_probe_and_with_task_tolerance(void **state)
{
    pg_perf_settings s = settings();
    s.n_comparisons = 0; /* counts as one */
    s.regression_tolerance = 0.03;
    pg_perf_configs k;
    pg_perf_configure(&s, NAN, NAN, &k);
    assert_true(k.delta == 0.05);
    assert_true(k.delta_regression == 0.03);
    assert_true(k.main.alpha == 0.01);
    assert_true(k.canary.alpha == 0.005);
    /* No task tolerance and no probe of the accepted kernel: 5 %. */
    s.regression_tolerance = 0;
    pg_perf_configure(&s, 0.5, NAN, &k);
    assert_true(k.delta == 0.01);
    assert_true(k.delta_regression == 0.05);
}

/* Without a vendor arm the baseline arm is the accepted kernel: main is the regression
 * comparison (λ = ln(1+δ_regression)), δ_regression from the baseline arm's probe. */
static void test_configure_with_the_accepted_kernel_as_reference(void **state)
{
    pg_perf_settings s = settings();
    s.n_comparisons = 2;
    s.reference_is_accepted = true;
    pg_perf_configs k;
    /* The baseline arm's probe 0.05 ms (the accepted kernel): δ = δ_regression = 2 %. */
    pg_perf_configure(&s, 0.05, NAN, &k);
    assert_true(k.delta == 0.02);
    assert_true(k.delta_regression == 0.02);
    assert_true(fabs(k.main.lambda - log1p(0.02)) < 1e-15);
    assert_true(fabs(k.main.lambda - k.regression.lambda) < 1e-15);
    assert_true(k.main.alpha == 0.01 / 2);
    assert_true(fabs(k.canary.lambda - log1p(0.02)) < 1e-15);
    /* The task's tolerance still wins over the probe. */
    s.regression_tolerance = 0.03;
    pg_perf_configure(&s, 0.05, NAN, &k);
    assert_true(fabs(k.main.lambda - log1p(0.03)) < 1e-15);
}

/* --- the stop rule */

static void fill(double *d, double v)
{
    for (int i = 0; i < N; i++)
        d[i] = v;
}

static void test_look_stops_when_all_decided(void **state)
{
    pg_perf_settings s = settings();
    pg_perf_configs k;
    pg_perf_configure(&s, 0.5, 0.5, &k);
    double d_main[N], d_canary[N], d_reg[N];
    fill(d_main, log(0.5));    /* twice as fast as the library */
    fill(d_canary, 0.0);       /* the baseline equals itself */
    fill(d_reg, log(0.9));     /* 10 % faster than the accepted kernel */
    pg_perf_comparisons c;
    memset(&c, 0, sizeof c);
    assert_true(pg_perf_look(&k, d_main, d_canary, d_reg, N, 0, &c));
    assert_int_equal(c.main.verdict, PG_CMP_FAST);
    assert_int_equal(c.canary.verdict, PG_CMP_PASS);
    assert_int_equal(c.regression.verdict, PG_CMP_FAST);
    assert_int_equal((int)c.main.blocks, N);
    /* Without the accepted kernel its comparison is left alone. */
    memset(&c, 0, sizeof c);
    assert_true(pg_perf_look(&k, d_main, d_canary, NULL, N, 0, &c));
    assert_int_equal((int)c.regression.blocks, 0);
    assert_int_equal(c.regression.verdict, PG_CMP_PASS); /* zeroed */
}

static void test_look_goes_on_while_canary_rejects_or_regression_undecided(void **state)
{
    pg_perf_settings s = settings();
    pg_perf_configs k;
    pg_perf_configure(&s, 0.5, 0.5, &k);
    double d_main[N], d_canary[N], d_reg[N];
    fill(d_main, log(0.5));
    fill(d_canary, 0.05); /* the canary 5 % slower than the baseline: rejects */
    fill(d_reg, log(0.9));
    pg_perf_comparisons c;
    memset(&c, 0, sizeof c);
    assert_false(pg_perf_look(&k, d_main, d_canary, d_reg, N, 0, &c));
    assert_int_equal(c.canary.verdict, PG_CMP_FAIL);
    assert_true(pg_cmp_canary_rejects(&c.canary));
    /* Canary quiet, regression undecided: ±50 % noise around equal times. */
    fill(d_canary, 0.0);
    for (int i = 0; i < N; i++)
        d_reg[i] = i % 2 ? 0.5 : -0.5;
    assert_false(pg_perf_look(&k, d_main, d_canary, d_reg, N, 0, &c));
    assert_int_equal(c.regression.verdict, PG_CMP_INCONCLUSIVE);
    /* Main undecided stops nothing either. */
    memcpy(d_main, d_reg, sizeof d_main);
    assert_false(pg_perf_look(&k, d_main, d_canary, NULL, N, 0, &c));
    assert_int_equal(c.main.verdict, PG_CMP_INCONCLUSIVE);
}

/* --- the verdict */

typedef struct {
    double cand[N], base[N], acc[N], d_main[N];
    pg_perf_measurement m;
    pg_perf_settings s;
    pg_perf_configs k;
    pg_perf_verdict v;
} fixture;

static pg_cmp_result cmp(pg_cmp_verdict verdict, double ratio, double lo, double hi)
{
    pg_cmp_result r;
    memset(&r, 0, sizeof r);
    r.verdict = verdict;
    r.blocks = N;
    r.ratio_estimate = ratio;
    r.ratio_ci_low = lo;
    r.ratio_ci_high = hi;
    r.p_fail = r.p_pass = r.p_fast = 1;
    r.mde_ratio = INFINITY;
    return r;
}

/* A completed cold measurement: candidate 1 ms, cuBLASLt 1.25 ms (speedup 1.25 [1.220, 1.282]),
 * blocks that do not show the candidate faster (faster_p = 0.5), canary PASS, no accepted
 * kernel. */
static void setup_fixture(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->s = settings();
    pg_perf_configure(&f->s, 1.25, NAN, &f->k);
    fill(f->cand, 1.0);
    fill(f->base, 1.25);
    fill(f->acc, 1.0);
    for (int i = 0; i < N; i++)
        f->d_main[i] = i % 2 ? 0.1 : -0.1;
    f->m = (pg_perf_measurement){.completed = true,
                                 .mode = "cold",
                                 .vendor_label = "cuBLASLt",
                                 .blocks = N,
                                 .candidate_ms = f->cand,
                                 .baseline_ms = f->base,
                                 .n_samples = N,
                                 .d_main = f->d_main,
                                 .other_processes = 0,
                                 .flop = 1e11,
                                 .bytes = 1e8,
                                 .peak_tflops = 1000,
                                 .peak_write_gbps = 1000};
    f->m.cmp.main = cmp(PG_CMP_PASS, 0.8, 0.78, 0.82);
    f->m.cmp.canary = cmp(PG_CMP_PASS, 1.0, 0.999, 1.001);
}

static void decide(fixture *f)
{
    pg_perf_decide(&f->s, &f->k, &f->m, &f->v);
}

#define NUMBERS                                                                                  \
    "speedup 1.250x [1.220, 1.282] vs min_speedup 0.9 after 16 blocks (cold); candidate 1.0000 " \
    "ms (100.0 TFLOP/s, 10 % of speed of light), cuBLASLt 1.2500 ms (80.0 TFLOP/s)"

static void test_pass(void **state)
{
    fixture f;
    setup_fixture(&f);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
    assert_string_equal(f.v.status, "pass");
    assert_string_equal(f.v.message, "PASS: " NUMBERS);
    assert_true(f.v.candidate.median == 1.0 && f.v.baseline.median == 1.25);
    assert_true(f.v.baseline.min == 1.25);
    assert_true(fabs(f.v.speedup - 1.25) < 1e-12);
    assert_true(fabs(f.v.speedup_ci_low - 1 / 0.82) < 1e-12);
    assert_true(fabs(f.v.speedup_ci_high - 1 / 0.78) < 1e-12);
    assert_true(fabs(f.v.floor_ms - 0.1) < 1e-12);
    assert_true(f.v.peak_tflops == 1000);
    assert_false(f.v.implausible);
    assert_true(f.v.faster_p > 0.4);
    assert_int_equal(f.v.main_shown, PG_CMP_PASS);
    assert_true(f.v.record_main);
    assert_false(f.v.record_regression);
    assert_false(f.v.main_fail || f.v.regression_fail);
}

static void test_fast_needs_the_faster_test(void **state)
{
    fixture f;
    setup_fixture(&f);
    /* FAST against the requirement is shown as PASS; the stage says FAST only when the blocks
     * show the candidate faster than the library itself. */
    f.m.cmp.main.verdict = PG_CMP_FAST;
    decide(&f);
    assert_int_equal(f.v.main_shown, PG_CMP_PASS);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
    fill(f.d_main, log(0.8));
    decide(&f);
    assert_true(fabs(f.v.faster_p - 1.0 / 65536) < 1e-15); /* exact: 2^-16 */
    assert_int_equal(f.v.outcome, PG_PERF_FAST);
    assert_string_equal(f.v.status, "pass");
    assert_string_equal(f.v.message, "FAST (faster than the library): " NUMBERS);
}

static void test_fail_vs_vendor(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.m.cmp.main.verdict = PG_CMP_FAIL;
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_FAIL);
    assert_string_equal(f.v.status, "fail");
    assert_string_equal(f.v.message, "FAIL: " NUMBERS);
    assert_int_equal(f.v.main_shown, PG_CMP_FAIL);
    assert_true(f.v.main_fail && f.v.record_main);
}

static void time_accepted(fixture *f, pg_cmp_verdict verdict)
{
    f->m.has_accepted = true;
    f->m.accepted_timed = true;
    f->m.accepted_ms = f->acc;
    f->m.cmp.regression = cmp(verdict, 1.05, 1.03, 1.07);
}

static void test_fail_vs_accepted_kernel(void **state)
{
    fixture f;
    setup_fixture(&f);
    time_accepted(&f, PG_CMP_FAIL);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_FAIL);
    assert_string_equal(f.v.status, "fail");
    assert_string_equal(f.v.message,
                        "FAIL: (vs cuBLASLt PASS) " NUMBERS
                        "; vs accepted kernel: FAIL, time ratio 1.0500 [1.0300, 1.0700], "
                        "tolerance 5.0%");
    assert_false(f.v.main_fail);
    assert_true(f.v.regression_fail && f.v.record_main && f.v.record_regression);
    assert_true(f.v.accepted.median == 1.0);
    /* Both failing: the message starts with the main comparison's numbers. */
    f.m.cmp.main.verdict = PG_CMP_FAIL;
    decide(&f);
    assert_string_equal(f.v.message, "FAIL: " NUMBERS
                                     "; vs accepted kernel: FAIL, time ratio 1.0500 [1.0300, "
                                     "1.0700], tolerance 5.0%");
}

/* Without a vendor arm: the message says what the speedup is over and the tolerance. */
static void test_verdict_with_the_accepted_kernel_as_reference(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.s.reference_is_accepted = true;
    f.s.regression_tolerance = 0.02;
    pg_perf_configure(&f.s, 1.25, NAN, &f.k);
    f.m.vendor_label = "the accepted kernel";
    f.m.cmp.main.verdict = PG_CMP_FAIL;
    decide(&f);
    assert_string_equal(f.v.status, "fail");
    assert_string_equal(f.v.message,
                        "FAIL: speedup 1.250x [1.220, 1.282] over the accepted kernel, "
                        "regression tolerance 2.0% after 16 blocks (cold); candidate 1.0000 ms "
                        "(100.0 TFLOP/s, 10 % of speed of light), the accepted kernel 1.2500 ms "
                        "(80.0 TFLOP/s)");
    assert_true(f.v.main_fail && f.v.record_main && !f.v.record_regression);
    fill(f.d_main, log(0.8));
    f.m.cmp.main.verdict = PG_CMP_PASS;
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_FAST);
    assert_true(strncmp(f.v.message, "FAST (faster than the accepted kernel): speedup", 47) == 0);
}

static void test_regression_inconclusive_is_a_warning(void **state)
{
    fixture f;
    setup_fixture(&f);
    time_accepted(&f, PG_CMP_INCONCLUSIVE);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
    assert_string_equal(f.v.message, "PASS: " NUMBERS
                                     "; vs accepted kernel: INCONCLUSIVE, time ratio 1.0500 "
                                     "[1.0300, 1.0700], tolerance 5.0% (warning, not failing)");
    assert_true(f.v.record_regression);
}

static void test_accepted_identical_or_not_compared(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.m.has_accepted = true;
    f.m.accepted_identical = true;
    f.m.accepted_identical_text = "byte-identical cubin";
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
    assert_string_equal(f.v.message,
                        "PASS: " NUMBERS "; vs accepted kernel: PASS (SASS-identical: "
                        "byte-identical cubin)");
    assert_false(f.v.record_regression);
    f.m.accepted_identical = false;
    f.m.accepted_note = "the accepted kernel did not assemble";
    decide(&f);
    assert_string_equal(f.v.message, "PASS: " NUMBERS "; vs accepted kernel: not compared (the "
                                     "accepted kernel did not assemble)");
    assert_false(f.v.record_regression);
}

static void test_main_inconclusive_is_a_warning(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.m.cmp.main.verdict = PG_CMP_INCONCLUSIVE;
    f.m.cmp.main.mde_ratio = 1.03;
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_INCONCLUSIVE);
    assert_string_equal(f.v.status, "pass");
    assert_string_equal(f.v.message, "INCONCLUSIVE (warning, not failing): " NUMBERS
                                     "; smallest detectable slowdown 3.00%");
    assert_true(f.v.record_main);
}

static void test_canary_rejected_voids_the_timing(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.m.cmp.main.verdict = PG_CMP_FAIL; /* a FAIL on a noisy machine is no FAIL */
    f.m.cmp.canary = cmp(PG_CMP_FAIL, 1.03, 1.02, 1.04);
    f.m.cmp.canary.p_fail = 0.001;
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_CANARY_REJECTED);
    assert_string_equal(f.v.status, "error");
    assert_string_equal(f.v.message, "INFRASTRUCTURE: the A/A canary (cuBLASLt against itself) "
                                     "differed by 3.00% (p = 0.001): this machine is too noisy "
                                     "to judge; " NUMBERS);
    /* A canary shown faster than itself rejects too. */
    f.m.cmp.canary = cmp(PG_CMP_FAST, 0.97, 0.96, 0.98);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_CANARY_REJECTED);
    /* The comparisons still go to the Holm step (as they always did). */
    assert_true(f.v.record_main);
}

static void test_other_processes_void_the_timing(void **state)
{
    fixture f;
    setup_fixture(&f);
    f.m.other_processes = 2;
    f.m.cmp.canary = cmp(PG_CMP_FAIL, 1.03, 1.02, 1.04); /* takes precedence over the canary */
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_OTHER_PROCESSES);
    assert_string_equal(f.v.status, "error");
    assert_string_equal(f.v.message, "INFRASTRUCTURE: 2 other compute process(es) ran on the "
                                     "GPU while timing; " NUMBERS);
    /* Unknown (-1) is not a finding. */
    f.m.other_processes = -1;
    f.m.cmp.canary = cmp(PG_CMP_PASS, 1.0, 0.999, 1.001);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
}

static void test_implausible_below_the_floor(void **state)
{
    fixture f;
    setup_fixture(&f);
    /* 0.05 ms is below 0.8 × the 0.1 ms floor; it comes first, even before other processes. */
    fill(f.cand, 0.05);
    f.m.other_processes = 1;
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_IMPLAUSIBLE);
    assert_string_equal(f.v.status, "fail");
    assert_true(f.v.implausible);
    const char *want = "IMPLAUSIBLE: the candidate's 0.0500 ms is below the speed-of-light "
                       "floor 0.1000 ms (peak 1000 TFLOP/s, 1000 GB/s, less 20 % slack): a "
                       "broken measurement or skipped work; speedup 1.250x";
    assert_memory_equal(f.v.message, want, strlen(want));
    assert_non_null(strstr(f.v.message, "candidate 0.0500 ms (2000.0 TFLOP/s, 200 % of speed "
                                        "of light)"));
    /* 0.081 ms is within the slack. */
    fill(f.cand, 0.081);
    f.m.other_processes = 0;
    decide(&f);
    assert_false(f.v.implausible);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
}

static void test_floor_from_the_baseline_without_peaks(void **state)
{
    fixture f;
    setup_fixture(&f);
    /* No peaks measured: cuBLASLt's fastest launch (1.25 ms, 80 TFLOP/s) is the reachable rate,
     * and the floor is 1.25 ms. */
    f.m.peak_tflops = NAN;
    f.m.peak_write_gbps = NAN;
    decide(&f);
    assert_true(fabs(f.v.peak_tflops - 80) < 1e-9);
    assert_true(fabs(f.v.floor_ms - 1.25) < 1e-12);
    assert_false(f.v.implausible);
    assert_int_equal(f.v.outcome, PG_PERF_PASS);
    /* 0.99 ms is below 0.8 × 1.25 ms: implausible; 1.01 ms is not. */
    fill(f.cand, 0.99);
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_IMPLAUSIBLE);
    fill(f.cand, 1.01);
    decide(&f);
    assert_false(f.v.implausible);
    /* A measured peak slower than the library is raised to it; the bandwidth floor stays. */
    f.m.peak_tflops = 50;
    f.m.peak_write_gbps = 1000;
    decide(&f);
    assert_true(fabs(f.v.peak_tflops - 80) < 1e-9);
    assert_true(fabs(f.v.floor_ms - 1.25) < 1e-12);
    /* Nothing known at all (no work): no floor, no finding. */
    f.m.flop = 0;
    f.m.bytes = 0;
    f.m.peak_tflops = NAN;
    f.m.peak_write_gbps = NAN;
    decide(&f);
    assert_false(f.v.implausible);
}

static void test_kernel_failed_while_timed(void **state)
{
    fixture f;
    setup_fixture(&f);
    pg_diag d;
    pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL,
                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access (cuStreamSynchronize)");
    f.m = (pg_perf_measurement){.completed = false, .kernel_failed = true, .failure = &d};
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_KERNEL_FAILED);
    assert_string_equal(f.v.status, "fail");
    assert_string_equal(f.v.message, "kernel failed while timed: CUDA_ERROR_ILLEGAL_ADDRESS: an "
                                     "illegal memory access (cuStreamSynchronize)");
    assert_false(f.v.record_main || f.v.record_regression);
}

static void test_device_error_is_infrastructure(void **state)
{
    fixture f;
    setup_fixture(&f);
    pg_diag d;
    pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "cuBLASLt: no algorithm for this GEMM");
    f.m = (pg_perf_measurement){.completed = false, .failure = &d};
    decide(&f);
    assert_int_equal(f.v.outcome, PG_PERF_DEVICE_ERROR);
    assert_string_equal(f.v.status, "error");
    assert_string_equal(f.v.message, "cuBLASLt: no algorithm for this GEMM");
    assert_false(f.v.record_main || f.v.record_regression);
    assert_true(f.v.speedup == 0 && f.v.candidate.n == 0);
    /* The diagnostic's location is part of the message. */
    pg_diag_set(&d, PG_ERR_INFRA, "kernel.json", 3, "launches[0]", "too many blocks");
    decide(&f);
    char want[256];
    pg_diag_format(&d, want, sizeof want);
    assert_string_equal(f.v.message, want);
    assert_non_null(strstr(f.v.message, "kernel.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_configure_from_probe),
        cmocka_unit_test(test_configure_without_probe_and_with_task_tolerance),
        cmocka_unit_test(test_configure_with_the_accepted_kernel_as_reference),
        cmocka_unit_test(test_look_stops_when_all_decided),
        cmocka_unit_test(test_look_goes_on_while_canary_rejects_or_regression_undecided),
        cmocka_unit_test(test_pass),
        cmocka_unit_test(test_fast_needs_the_faster_test),
        cmocka_unit_test(test_fail_vs_vendor),
        cmocka_unit_test(test_fail_vs_accepted_kernel),
        cmocka_unit_test(test_verdict_with_the_accepted_kernel_as_reference),
        cmocka_unit_test(test_regression_inconclusive_is_a_warning),
        cmocka_unit_test(test_accepted_identical_or_not_compared),
        cmocka_unit_test(test_main_inconclusive_is_a_warning),
        cmocka_unit_test(test_canary_rejected_voids_the_timing),
        cmocka_unit_test(test_other_processes_void_the_timing),
        cmocka_unit_test(test_implausible_below_the_floor),
        cmocka_unit_test(test_floor_from_the_baseline_without_peaks),
        cmocka_unit_test(test_kernel_failed_while_timed),
        cmocka_unit_test(test_device_error_is_infrastructure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
