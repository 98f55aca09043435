/* The percentile bootstrap against the exact bootstrap distribution of small samples (all n^n
 * resamples enumerated, tests/data/stats/gen_paired_fixtures.py): with 10^6 resamples the
 * estimated quantiles must land on the exact ones, whose CDF margins in the fixture are several
 * standard errors wide (sd of an empirical CDF at 0.025 with 10^6 draws: 1.6e-4). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/bootstrap.h"

static void test_exact_bootstrap_quantiles(void **state)
{
    FILE *f = fopen(PG_TEST_DATA "/stats/bootstrap_exact.txt", "r");
    assert_non_null(f);
    char line[1024];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        double conf, qlo, mlo, qhi, mhi, x[16];
        int used = 0;
        assert_int_equal(sscanf(line, "%lf %lf %lf %lf %lf |%n", &conf, &qlo, &mlo, &qhi, &mhi,
                                &used),
                         5);
        size_t n = 0;
        char *s = line + used, *end;
        for (double v = strtod(s, &end); end != s && n < 16; v = strtod(s, &end)) {
            x[n++] = v;
            s = end;
        }
        /* 5 standard errors of the empirical CDF at the tail level. */
        double tail = (1.0 - conf) / 2.0, se = sqrt(tail * (1.0 - tail) / 1e6);
        assert_true(mlo > 5.0 * se && mhi > 5.0 * se);
        pg_bootstrap_result r = pg_bootstrap_mean(x, n, 1000000, conf, 42 + (uint64_t)cases);
        assert_float_equal(r.ci_low, qlo, 1e-9);
        assert_float_equal(r.ci_high, qhi, 1e-9);
        assert_true(r.ci_low <= r.mean && r.mean <= r.ci_high);
        cases++;
    }
    fclose(f);
    assert_int_equal(cases, 3);
}

static void test_seeded_and_reproducible(void **state)
{
    double x[] = {-0.2, 0.1, 0.05, 0.3, -0.1, 0.0, 0.22};
    pg_bootstrap_result a = pg_bootstrap_mean(x, 7, 5000, 0.95, 7);
    pg_bootstrap_result b = pg_bootstrap_mean(x, 7, 5000, 0.95, 7);
    pg_bootstrap_result c = pg_bootstrap_mean(x, 7, 5000, 0.95, 8);
    assert_memory_equal(&a.ci_low, &b.ci_low, sizeof a.ci_low);
    assert_memory_equal(&a.ci_high, &b.ci_high, sizeof a.ci_high);
    assert_true(a.ci_low != c.ci_low || a.ci_high != c.ci_high);
    assert_int_equal(a.seed, 7);
    assert_int_equal(a.resamples, 5000);
}

static void test_degenerate_inputs(void **state)
{
    pg_bootstrap_result r = pg_bootstrap_mean(NULL, 0, 100, 0.95, 1);
    assert_true(isnan(r.mean) && isnan(r.ci_low) && isnan(r.ci_high));
    double one = 0.7;
    r = pg_bootstrap_mean(&one, 1, 100, 0.95, 1);
    assert_float_equal(r.ci_low, 0.7, 0);
    assert_float_equal(r.ci_high, 0.7, 0);
    double same[] = {0.3, 0.3, 0.3, 0.3};
    r = pg_bootstrap_mean(same, 4, 100, 0.95, 1);
    assert_float_equal(r.ci_low, 0.3, 1e-15);
    assert_float_equal(r.ci_high, 0.3, 1e-15);
    double bad[] = {0.3, NAN};
    r = pg_bootstrap_mean(bad, 2, 100, 0.95, 1);
    assert_true(isnan(r.ci_low));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_bootstrap_quantiles),
        cmocka_unit_test(test_seeded_and_reproducible),
        cmocka_unit_test(test_degenerate_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
