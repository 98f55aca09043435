/* Holm's step-down against the textbook example and against the closed testing principle with
 * Bonferroni local tests, enumerated subset by subset (tests/data/stats/gen_fixtures.py). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/holm.h"

/* Holm (1979) as taught (e.g. Wikipedia's "Holm–Bonferroni method" example): p = 0.01, 0.04,
 * 0.03, 0.005 at alpha 0.05. Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop.
 * R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02. */
static void test_textbook(void **state)
{
    double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    bool reject[4];
    assert_int_equal(pg_holm(p, 4, 0.05, reject), 2);
    assert_true(reject[0]);
    assert_false(reject[1]);
    assert_false(reject[2]);
    assert_true(reject[3]);
    pg_holm_adjust(p, 4, adj);
    assert_float_equal(adj[0], 0.03, 1e-15);
    assert_float_equal(adj[1], 0.06, 1e-15);
    assert_float_equal(adj[2], 0.06, 1e-15);
    assert_float_equal(adj[3], 0.02, 1e-15);
    assert_float_equal(p[0], 0.01, 0); /* input untouched */
}

static void test_closed_testing_fixture(void **state)
{
    FILE *f = fopen(PG_TEST_DATA "/stats/holm_closed.txt", "r");
    assert_non_null(f);
    char line[4096];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *s = line;
        size_t m = (size_t)strtoul(s, &s, 10);
        double alpha = strtod(s, &s), p[16], adj_expected[16], adj[16];
        int expect[16];
        for (size_t i = 0; i < m; i++)
            p[i] = strtod(s, &s);
        s = strchr(s, '|') + 1;
        for (size_t i = 0; i < m; i++)
            expect[i] = (int)strtol(s, &s, 10);
        s = strchr(s, '|') + 1;
        for (size_t i = 0; i < m; i++)
            adj_expected[i] = strtod(s, &s);
        bool reject[16];
        pg_holm(p, m, alpha, reject);
        pg_holm_adjust(p, m, adj);
        for (size_t i = 0; i < m; i++) {
            assert_int_equal(reject[i], expect[i]);
            assert_float_equal(adj[i], adj_expected[i], 1e-12);
            assert_int_equal(adj[i] <= alpha, reject[i]); /* the two functions agree */
        }
        cases++;
    }
    fclose(f);
    assert_true(cases >= 10);
}

static void test_edges(void **state)
{
    bool reject[4] = {true, true, true, true};
    assert_int_equal(pg_holm(NULL, 0, 0.05, reject), 0);
    double p[] = {NAN, 0.001, 0.02};
    assert_int_equal(pg_holm(p, 3, 0.05, reject), 2); /* NaN counts as 1 and is last */
    assert_false(reject[0]);
    assert_true(reject[1]);
    assert_true(reject[2]);
    double adj[3];
    pg_holm_adjust(p, 3, adj);
    assert_true(isnan(adj[0]));
    assert_float_equal(adj[1], 0.003, 1e-15);
    assert_float_equal(adj[2], 0.04, 1e-15);
    /* A p-value exactly at its threshold is rejected (<=). */
    double q[] = {0.0125, 0.5, 0.5, 0.5};
    assert_int_equal(pg_holm(q, 4, 0.05, reject), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_textbook),
        cmocka_unit_test(test_closed_testing_fixture),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
