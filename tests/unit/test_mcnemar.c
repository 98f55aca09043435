/* McNemar's exact test against exact binomial tails computed with Python's Fraction and
 * math.comb and cross-checked with scipy.stats.binomtest (tests/data/stats/gen_paired_fixtures.py). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "stats/mcnemar.h"

/* A hand-checkable case: 3 pass → fail, none back: P(X >= 3 | Bin(3, 1/2)) = 1/8, two-sided 1/4. */
static void test_three_to_none(void **state)
{
    pg_mcnemar_result r = pg_mcnemar_exact(3, 0);
    assert_int_equal(r.discordant, 3);
    assert_float_equal(r.p_worse, 0.125, 1e-15);
    assert_float_equal(r.p_two_sided, 0.25, 1e-15);
}

static void test_no_discordant_pairs(void **state)
{
    pg_mcnemar_result r = pg_mcnemar_exact(0, 0);
    assert_float_equal(r.p_two_sided, 1.0, 0);
    assert_float_equal(r.p_worse, 1.0, 0);
}

static void test_exact_fixture(void **state)
{
    FILE *f = fopen(PG_TEST_DATA "/stats/mcnemar_exact.txt", "r");
    assert_non_null(f);
    char line[512];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        unsigned long b, c;
        double p2, pw;
        assert_int_equal(sscanf(line, "%lu %lu %lf %lf", &b, &c, &p2, &pw), 4);
        pg_mcnemar_result r = pg_mcnemar_exact(b, c);
        assert_float_equal(r.p_two_sided, p2, 1e-12 * fmax(1.0, p2));
        assert_float_equal(r.p_worse, pw, 1e-12);
        /* Symmetry: swapping the sides keeps the two-sided p-value. */
        assert_float_equal(pg_mcnemar_exact(c, b).p_two_sided, p2, 1e-12);
        cases++;
    }
    fclose(f);
    assert_true(cases >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_to_none),
        cmocka_unit_test(test_no_discordant_pairs),
        cmocka_unit_test(test_exact_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
