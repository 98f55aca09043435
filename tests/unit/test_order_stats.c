/* Order-statistic median intervals against exact binomial values computed independently
 * (Python's math.comb; see the numbers in each test). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stats/order_stats.h"

static void test_median(void **state)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    assert_float_equal(pg_median(odd, 3), 3.0, 0);
    assert_float_equal(pg_median(even, 4), 2.5, 0);
    assert_true(isnan(pg_median(odd, 0)));
    assert_float_equal(odd[0], 5.0, 0); /* input untouched */
}

static void test_binom_cdf(void **state)
{
    /* P(Bin(50,½) <= 20) = 0.10131937553227033; P(Bin(10,½) <= 2) = 0.0546875 (exact). */
    assert_float_equal(pg_binom_half_cdf(20, 50), 0.10131937553227033, 1e-12);
    assert_float_equal(pg_binom_half_cdf(2, 10), 0.0546875, 1e-12);
    assert_float_equal(pg_binom_half_cdf(-1, 10), 0.0, 0);
    assert_float_equal(pg_binom_half_cdf(10, 10), 1.0, 0);
}

static void check_ranks(size_t n, double conf, int ej, int ek, double ecov)
{
    int j, k;
    double cov;
    pg_median_ci_ranks(n, conf, &j, &k, &cov);
    assert_int_equal(j, ej);
    assert_int_equal(k, ek);
    assert_float_equal(cov, ecov, 1e-9);
}

static void test_ci_ranks(void **state)
{
    /* Conover's table: n = 50 at 95 % uses x(18), x(33). */
    check_ranks(50, 0.95, 18, 33, 0.9671608624357315);
    check_ranks(50, 0.975, 17, 34, 0.9846533221673699);
    check_ranks(10, 0.95, 2, 9, 0.978515625);
    check_ranks(100, 0.99, 37, 64, 0.9933628794840739);
    /* Too few samples for 95 %: whole range with its true coverage 1 − 2/32. */
    check_ranks(5, 0.95, 1, 5, 0.9375);
}

static void test_summarize_and_ratio(void **state)
{
    double c[50], b[50];
    for (int i = 0; i < 50; i++) {
        c[i] = 2.0 + 0.01 * ((i * 7) % 50); /* a permutation of 2.00 .. 2.49 */
        b[i] = 1.0 + 0.01 * ((i * 11) % 50);
    }
    pg_sample_summary sc, sb;
    pg_summarize(c, 50, 0.975, &sc);
    pg_summarize(b, 50, 0.975, &sb);
    assert_int_equal(sc.n, 50);
    assert_float_equal(sc.median, 2.245, 1e-12);
    assert_float_equal(sc.min, 2.0, 1e-12);
    assert_float_equal(sc.max, 2.49, 1e-12);
    assert_float_equal(sc.ci_low, 2.16, 1e-12); /* x(17) */
    assert_float_equal(sc.ci_high, 2.33, 1e-12); /* x(34) */
    double est, lo, hi;
    pg_ratio_interval(&sb, &sc, &est, &lo, &hi);
    assert_float_equal(est, 1.245 / 2.245, 1e-12);
    assert_float_equal(lo, 1.16 / 2.33, 1e-12);
    assert_float_equal(hi, 1.33 / 2.16, 1e-12);
    assert_true(lo < est && est < hi);
    assert_float_equal(pg_ratio_component_confidence(0.95), 0.975, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_binom_cdf),
        cmocka_unit_test(test_ci_ranks),
        cmocka_unit_test(test_summarize_and_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
