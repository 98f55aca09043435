/* Clopper–Pearson intervals against values computed independently by brute-force bisection on
 * exact binomial sums (Python's math.comb). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stats/binom.h"

static void check(size_t k, size_t n, double elo, double ehi)
{
    double lo, hi;
    pg_binom_ci(k, n, 0.95, &lo, &hi);
    assert_float_equal(lo, elo, 1e-9);
    assert_float_equal(hi, ehi, 1e-9);
}

static void test_clopper_pearson(void **state)
{
    check(0, 200, 0.0, 0.018275340355136283); /* = 1 − 0.025^(1/200) */
    check(2, 20, 0.012348527170294832, 0.3169827140190823);
    check(190, 200, 0.9099724622986487, 0.9757658345278915);
    check(1, 10, 0.0025285785444618125, 0.4450161170281953);
    check(10, 10, 0.6915028921812392, 1.0); /* = 0.025^(1/10) */
}

static void test_cdf(void **state)
{
    assert_float_equal(pg_binom_cdf(2, 10, 0.5), 0.0546875, 1e-12);
    assert_float_equal(pg_binom_cdf(-1, 10, 0.3), 0.0, 0);
    assert_float_equal(pg_binom_cdf(10, 10, 0.3), 1.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clopper_pearson),
        cmocka_unit_test(test_cdf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
