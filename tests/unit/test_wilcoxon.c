/* Wilcoxon's signed-rank test against brute-force enumeration of all 2^n sign vectors (exact
 * Fractions, midranks), scipy.stats.wilcoxon's exact distribution for n = 30 and 50, and the
 * normal approximation written out independently and checked against scipy
 * (tests/data/stats/gen_paired_fixtures.py). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/wilcoxon.h"

/* By hand: d = 1..5 all positive: W+ = 15, the largest of 2^5 sums, P = 1/32 one-sided. */
static void test_all_positive(void **state)
{
    double d[] = {1, 2, 3, 4, 5};
    pg_wilcoxon_result r = pg_wilcoxon_signed_rank(d, 5);
    assert_true(r.exact);
    assert_float_equal(r.w_plus, 15.0, 0);
    assert_float_equal(r.w_minus, 0.0, 0);
    assert_float_equal(r.p_greater, 1.0 / 32.0, 1e-15);
    assert_float_equal(r.p_less, 1.0, 1e-15);
    assert_float_equal(r.p_two_sided, 1.0 / 16.0, 1e-15);
}

static void test_zeros_and_non_finite_are_dropped(void **state)
{
    double d[] = {0.0, NAN, 0.5, -0.25, INFINITY, 0.0};
    pg_wilcoxon_result r = pg_wilcoxon_signed_rank(d, 6);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.zeros, 2);
    assert_int_equal(r.non_finite, 2);
    assert_float_equal(r.w_plus, 2.0, 0);
    pg_wilcoxon_result e = pg_wilcoxon_signed_rank(NULL, 0);
    assert_int_equal(e.n, 0);
    assert_float_equal(e.p_two_sided, 1.0, 0);
}

static void test_reference_fixture(void **state)
{
    FILE *f = fopen(PG_TEST_DATA "/stats/wilcoxon.txt", "r");
    assert_non_null(f);
    static char line[8192];
    int exact_rows = 0, normal_rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char method[16];
        unsigned long n;
        double w, p2, pl, pg;
        int used = 0;
        assert_int_equal(sscanf(line, "%15s %lu %lf %lf %lf %lf |%n", method, &n, &w, &p2, &pl,
                                &pg, &used),
                         6);
        double d[256];
        size_t m = 0;
        char *s = line + used, *end;
        for (double x = strtod(s, &end); end != s && m < 256; x = strtod(s, &end)) {
            d[m++] = x;
            s = end;
        }
        pg_wilcoxon_result r = pg_wilcoxon_signed_rank(d, m);
        assert_int_equal(r.n, n);
        assert_int_equal(r.exact, strcmp(method, "exact") == 0);
        assert_float_equal(r.w_plus, w, 1e-9);
        assert_float_equal(r.w_plus + r.w_minus, 0.5 * (double)n * (double)(n + 1), 1e-9);
        assert_float_equal(r.p_two_sided, p2, 1e-10);
        assert_float_equal(r.p_less, pl, 1e-10);
        assert_float_equal(r.p_greater, pg, 1e-10);
        if (r.exact)
            exact_rows++;
        else
            normal_rows++;
    }
    fclose(f);
    assert_true(exact_rows >= 9);
    assert_true(normal_rows >= 3);
}

/* The exact branch ends where the header says. */
static void test_exact_threshold(void **state)
{
    double d[PG_WILCOXON_EXACT_MAX + 1];
    for (int i = 0; i <= PG_WILCOXON_EXACT_MAX; i++)
        d[i] = (i % 3 ? 1.0 : -1.0) * (i + 1);
    assert_true(pg_wilcoxon_signed_rank(d, PG_WILCOXON_EXACT_MAX).exact);
    pg_wilcoxon_result r = pg_wilcoxon_signed_rank(d, PG_WILCOXON_EXACT_MAX + 1);
    assert_false(r.exact);
    assert_true(isfinite(r.z));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_positive),
        cmocka_unit_test(test_zeros_and_non_finite_are_dropped),
        cmocka_unit_test(test_reference_fixture),
        cmocka_unit_test(test_exact_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
