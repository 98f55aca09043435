/* Unit tests of the runner drift decision (gate/stats/drift.h) with synthetic intervals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats/drift.h"

static void test_same_time_is_no_drift(void **state)
{
    pg_drift r = pg_drift_decide(0.1770, 0.1768, 0.1772, 0.1771, 0.1769, 0.1773, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_NONE);
    assert_true(fabs(r.ratio - 0.1771 / 0.1770) < 1e-12);
    assert_true(fabs(r.ratio_low - 0.1769 / 0.1772) < 1e-12);
    assert_true(fabs(r.ratio_high - 0.1773 / 0.1768) < 1e-12);
}

/* The GPU test's scenario: the stored time edited to claim 10 % faster than the runner. */
static void test_stored_ten_percent_faster_is_slower_drift(void **state)
{
    double live = 0.1770, stored = live * 0.9;
    pg_drift r = pg_drift_decide(stored, stored * 0.998, stored * 1.002, live, live * 0.998,
                                 live * 1.002, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_SLOWER);
    assert_true(r.ratio > 1.11 && r.ratio < 1.112);
    assert_string_equal(pg_drift_kind_name(r.kind), "slower");
}

static void test_faster_runner(void **state)
{
    pg_drift r = pg_drift_decide(1.0, 0.99, 1.01, 0.9, 0.89, 0.91, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_FASTER);
    assert_string_equal(pg_drift_kind_name(r.kind), "faster");
}

/* Both intervals count: a 10 % change of the medians with wide intervals is not shown. */
static void test_wide_intervals_hide_a_change(void **state)
{
    pg_drift r = pg_drift_decide(1.0, 0.95, 1.05, 1.10, 1.04, 1.16, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_NONE); /* 1.04 / 1.05 < 1.05 */
    /* ... and just beyond the tolerance at both ends is shown. */
    r = pg_drift_decide(1.0, 0.99, 1.0, 1.06, 1.0501, 1.07, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_SLOWER);
    r = pg_drift_decide(1.0, 0.99, 1.0, 1.06, 1.0499, 1.07, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_NONE);
}

/* The faster side is symmetric in log time: 1/(1+δ), not 1-δ. */
static void test_faster_threshold_is_symmetric_in_log(void **state)
{
    double edge = 1.0 / 1.05; /* 0.95238 */
    pg_drift r = pg_drift_decide(1.0, 1.0, 1.0, 0.951, 0.95, 0.951, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_FASTER); /* 0.951 < 0.95238 */
    r = pg_drift_decide(1.0, 1.0, 1.0, 0.9525, 0.952, edge + 0.0005, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_NONE); /* 0.95288 > 0.95238 */
}

static void test_bad_inputs_are_unknown(void **state)
{
    assert_int_equal(pg_drift_decide(NAN, 1, 1, 1, 1, 1, 0.05).kind, PG_DRIFT_UNKNOWN);
    assert_int_equal(pg_drift_decide(1, 1, 1, 1, 1, INFINITY, 0.05).kind, PG_DRIFT_UNKNOWN);
    assert_int_equal(pg_drift_decide(1, 0, 1, 1, 1, 1, 0.05).kind, PG_DRIFT_UNKNOWN);
    assert_int_equal(pg_drift_decide(1, 1.1, 1.2, 1, 1, 1, 0.05).kind, PG_DRIFT_UNKNOWN);
    assert_int_equal(pg_drift_decide(1, 1, 1, 1, 1, 1, 0).kind, PG_DRIFT_UNKNOWN);
    assert_int_equal(pg_drift_decide(1, 1, 1, 1, 1, 1, 1.5).kind, PG_DRIFT_UNKNOWN);
    pg_drift r = pg_drift_decide(1, 1, 1, -1, -1, -1, 0.05);
    assert_int_equal(r.kind, PG_DRIFT_UNKNOWN);
    assert_true(isnan(r.ratio));
    assert_string_equal(pg_drift_kind_name(r.kind), "unknown");
    assert_string_equal(pg_drift_kind_name(PG_DRIFT_NONE), "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_time_is_no_drift),
        cmocka_unit_test(test_stored_ten_percent_faster_is_slower_drift),
        cmocka_unit_test(test_faster_runner),
        cmocka_unit_test(test_wide_intervals_hide_a_change),
        cmocka_unit_test(test_faster_threshold_is_symmetric_in_log),
        cmocka_unit_test(test_bad_inputs_are_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
