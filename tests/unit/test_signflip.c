/* Sign-flip tests and their interval against independent values: brute-force enumeration of
 * every sign vector, the Monte Carlo generator re-implemented, and interval bounds found by
 * evaluating the brute-force p-value at every subset mean (tests/data/stats/gen_fixtures.py). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/signflip.h"

#define STATS PG_TEST_DATA "/stats/"
#define UNIT 1e-5 /* fixture data are integers in units of 1e-5 */

/* Next non-comment line of f into buf; false at the end. */
static bool next_line(FILE *f, char *buf, size_t len)
{
    while (fgets(buf, (int)len, f))
        if (buf[0] != '#' && buf[0] != '\n')
            return true;
    return false;
}

static FILE *open_fixture(const char *name)
{
    FILE *f = fopen(name, "r");
    assert_non_null(f);
    return f;
}

/* Parse `count` integers (scaled by UNIT) from *s onward. */
static void parse_data(char **s, double *d, size_t count)
{
    for (size_t i = 0; i < count; i++)
        d[i] = (double)strtol(*s, s, 10) * UNIT;
}

static void test_exact_against_brute_force(void **state)
{
    FILE *f = open_fixture(STATS "signflip_exact.txt");
    char line[4096];
    int cases = 0;
    while (next_line(f, line, sizeof line)) {
        char *s = line;
        size_t n = (size_t)strtoul(s, &s, 10);
        double mu0 = (double)strtol(s, &s, 10) * UNIT;
        double ge = strtod(s, &s), le = strtod(s, &s), total = strtod(s, &s);
        double d[64];
        parse_data(&s, d, n);
        pg_signflip_result g = pg_signflip_greater(d, n, mu0, 1, 100);
        pg_signflip_result l = pg_signflip_less(d, n, mu0, 1, 100);
        assert_true(g.exact && l.exact);
        assert_int_equal(g.assignments, (size_t)total);
        assert_float_equal(g.p_value, ge / total, 1e-15);
        assert_float_equal(l.p_value, le / total, 1e-15);
        assert_float_equal(g.statistic, l.statistic, 0);
        cases++;
    }
    fclose(f);
    assert_true(cases >= 20);
}

static void test_monte_carlo_against_reimplementation(void **state)
{
    FILE *f = open_fixture(STATS "signflip_mc.txt");
    char line[4096];
    int cases = 0;
    while (next_line(f, line, sizeof line)) {
        char *s = line;
        size_t n = (size_t)strtoul(s, &s, 10);
        uint64_t seed = strtoull(s, &s, 10);
        size_t draws = (size_t)strtoul(s, &s, 10);
        double mu0 = (double)strtol(s, &s, 10) * UNIT;
        double ge = strtod(s, &s), le = strtod(s, &s);
        double d[128];
        parse_data(&s, d, n);
        /* exact_max 0 forces Monte Carlo also for the n = 20 case. */
        pg_signflip_ref *r = pg_signflip_ref_new(d, n, 0, seed, draws);
        assert_non_null(r);
        pg_signflip_result g = pg_signflip_ref_greater(r, mu0), l = pg_signflip_ref_less(r, mu0);
        assert_false(g.exact);
        assert_int_equal(g.assignments, draws);
        assert_float_equal(g.p_value, (1 + ge) / (1 + (double)draws), 1e-15);
        assert_float_equal(l.p_value, (1 + le) / (1 + (double)draws), 1e-15);
        pg_signflip_ref_free(r);
        if (n > PG_SIGNFLIP_EXACT_MAX) { /* the convenience call picks Monte Carlo itself */
            pg_signflip_result g2 = pg_signflip_greater(d, n, mu0, seed, draws);
            assert_false(g2.exact);
            assert_float_equal(g2.p_value, g.p_value, 0);
        }
        cases++;
    }
    fclose(f);
    assert_true(cases >= 8);
}

/* Monte Carlo p-values at n = 20 agree with the exact ones within binomial bounds: the count of
 * T* >= T among D draws is Binomial(D, p_exact) (up to the observed draw), so
 * |count/D − p| <= 3.29·sqrt(p(1 − p)/D) + 1/D with probability 0.999 per check. */
static void test_monte_carlo_close_to_exact(void **state)
{
    FILE *f = open_fixture(STATS "signflip_exact.txt");
    char line[4096];
    int checked = 0;
    while (next_line(f, line, sizeof line)) {
        char *s = line;
        size_t n = (size_t)strtoul(s, &s, 10);
        if (n != 20)
            continue;
        double mu0 = (double)strtol(s, &s, 10) * UNIT;
        double ge = strtod(s, &s), le = strtod(s, &s), total = strtod(s, &s);
        double d[20];
        parse_data(&s, d, n);
        const size_t D = 20000;
        for (uint64_t seed = 1; seed <= 3; seed++) {
            pg_signflip_ref *r = pg_signflip_ref_new(d, n, 0, seed, D);
            assert_non_null(r);
            double pg = ge / total, pl = le / total;
            double cg = pg_signflip_ref_greater(r, mu0).p_value * (D + 1) - 1;
            double cl = pg_signflip_ref_less(r, mu0).p_value * (D + 1) - 1;
            assert_true(fabs(cg / D - pg) <= 3.29 * sqrt(pg * (1 - pg) / D) + 1.0 / D);
            assert_true(fabs(cl / D - pl) <= 3.29 * sqrt(pl * (1 - pl) / D) + 1.0 / D);
            pg_signflip_ref_free(r);
            checked++;
        }
    }
    fclose(f);
    assert_int_equal(checked, 9);
}

static void test_ci_against_brute_force(void **state)
{
    FILE *f = open_fixture(STATS "signflip_ci.txt");
    char line[4096];
    int cases = 0;
    while (next_line(f, line, sizeof line)) {
        char *s = line;
        size_t n = (size_t)strtoul(s, &s, 10);
        double conf = strtod(s, &s);
        double elo = strtod(s, &s) * UNIT, ehi = strtod(s, &s) * UNIT;
        double d[32];
        parse_data(&s, d, n);
        double lo, hi;
        pg_signflip_ci(d, n, conf, 1, 100, &lo, &hi);
        if (isinf(elo))
            assert_true(isinf(lo) && lo < 0);
        else
            assert_float_equal(lo, elo, 1e-12);
        if (isinf(ehi))
            assert_true(isinf(hi) && hi > 0);
        else
            assert_float_equal(hi, ehi, 1e-12);
        /* Inversion: just inside the bounds the tests do not reject, just outside they do. */
        double a = (1 - conf) / 2, eps = 1e-9;
        if (isfinite(lo)) {
            assert_true(pg_signflip_greater(d, n, lo, 1, 100).p_value > a);
            assert_true(pg_signflip_greater(d, n, lo - eps, 1, 100).p_value <= a);
        }
        if (isfinite(hi)) {
            assert_true(pg_signflip_less(d, n, hi, 1, 100).p_value > a);
            assert_true(pg_signflip_less(d, n, hi + eps, 1, 100).p_value <= a);
        }
        cases++;
    }
    fclose(f);
    assert_int_equal(cases, 4);
}

/* Evenly spread blocks (uniform quantiles, sd ≈ 0.0013 around 0.01): the interval holds the mean
 * and narrows as blocks are added, exact (n <= 20) and Monte Carlo (n > 20) alike. */
static void test_ci_brackets_mean_and_shrinks(void **state)
{
    const size_t ns[] = {6, 8, 12, 16, 20, 32, 64, 128};
    double prev_width = INFINITY;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        size_t n = ns[i];
        double d[128], mean = 0;
        for (size_t b = 0; b < n; b++) {
            size_t q = (b * 37 + 11) % n; /* a permutation (gcd(37, n) = 1): not sorted */
            d[b] = 0.01 + 0.0013 * sqrt(3.0) * (2.0 * ((double)q + 0.5) / (double)n - 1.0);
            mean += d[b] / (double)n;
        }
        double lo, hi;
        pg_signflip_ci(d, n, 0.95, 42, 20000, &lo, &hi);
        assert_true(isfinite(lo) && isfinite(hi));
        assert_true(lo <= mean && mean <= hi);
        assert_true(hi - lo < prev_width);
        prev_width = hi - lo;
    }
    /* n = 4 at 95 %: 1/16 > 0.025, no bound can be rejected. */
    double four[] = {0.01, 0.02, 0.03, 0.04}, lo, hi;
    pg_signflip_ci(four, 4, 0.95, 1, 100, &lo, &hi);
    assert_true(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
    /* ... but at 80 % (a = 0.1 > 1/16) the extreme subset means are the bounds. */
    pg_signflip_ci(four, 4, 0.80, 1, 100, &lo, &hi);
    assert_float_equal(lo, 0.01, 1e-15);
    assert_float_equal(hi, 0.04, 1e-15);
}

static void test_edges(void **state)
{
    double d[] = {0.01, NAN, 0.02};
    pg_signflip_result r = pg_signflip_greater(d, 0, 0.0, 1, 100);
    assert_float_equal(r.p_value, 1.0, 0);
    r = pg_signflip_greater(d, 3, 0.0, 1, 100);
    assert_true(isnan(r.p_value));
    double lo, hi;
    pg_signflip_ci(d, 3, 0.95, 1, 100, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
    pg_signflip_ci(d, 0, 0.95, 1, 100, &lo, &hi);
    assert_true(isinf(lo) && isinf(hi));
    /* Equal block medians give exact zeros: every assignment ties, p = 1 both ways. */
    double zeros[12] = {0};
    assert_float_equal(pg_signflip_greater(zeros, 12, 0.0, 1, 100).p_value, 1.0, 0);
    assert_float_equal(pg_signflip_less(zeros, 12, 0.0, 1, 100).p_value, 1.0, 0);
    /* All blocks above mu0: only the observed assignment is as extreme, p = 2^-n. */
    double up[16];
    for (int b = 0; b < 16; b++)
        up[b] = 0.03 + 1e-4 * b;
    assert_float_equal(pg_signflip_greater(up, 16, 0.01, 1, 100).p_value, 1.0 / 65536, 0);
    pg_signflip_ref *ref = pg_signflip_ref_new(up, 16, PG_SIGNFLIP_EXACT_MAX, 1, 100);
    assert_float_equal(pg_signflip_ref_min_p(ref), 1.0 / 65536, 0);
    pg_signflip_ref_free(ref);
    assert_float_equal(pg_signflip_ref_min_p(NULL), 1.0, 0);
    assert_float_equal(pg_signflip_ref_greater(NULL, 0.0).p_value, 1.0, 0);
    pg_signflip_ref_ci(NULL, 0.95, &lo, &hi);
    assert_true(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
    /* p_greater is nondecreasing in mu0 (the reference set is fixed; see signflip.h). */
    double prev = 0;
    for (double mu = 0.0; mu < 0.05; mu += 0.0007) {
        double p = pg_signflip_greater(up, 16, mu, 1, 100).p_value;
        assert_true(p >= prev);
        prev = p;
    }
}

/* --- calibration on symmetric data: the exact test's size is floor(a·2^n)/2^n. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double rng_uniform(void) { return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0; }
static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_uniform())) * cos(6.283185307179586 * rng_uniform());
}

/* P(Bin(N, p) <= k), summed in log space. */
static double binom_cdf(long k, long N, double p)
{
    double s = 0;
    for (long i = 0; i <= k && i <= N; i++)
        s += exp(lgamma(N + 1.0) - lgamma(i + 1.0) - lgamma(N - i + 1.0) + i * log(p) +
                 (N - i) * log1p(-p));
    return s;
}

static void test_exact_size_on_symmetric_data(void **state)
{
    rng_state = 7;
    const long N = 3000;
    const size_t n = 10;
    long rejections = 0;
    for (long t = 0; t < N; t++) {
        double d[10];
        for (size_t b = 0; b < n; b++)
            d[b] = 0.01 + 0.0013 * rng_normal();
        rejections += pg_signflip_greater(d, n, 0.01, 1, 100).p_value <= 0.05;
    }
    double size = 51.0 / 1024.0; /* floor(0.05·1024)/1024 */
    /* Two-sided 99.9 % binomial acceptance region for the count. */
    long lo = 0, hi = N;
    while (binom_cdf(lo, N, size) < 0.0005)
        lo++;
    while (hi > 0 && binom_cdf(hi - 1, N, size) > 0.9995)
        hi--;
    assert_in_range(rejections, lo, hi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_against_brute_force),
        cmocka_unit_test(test_monte_carlo_against_reimplementation),
        cmocka_unit_test(test_monte_carlo_close_to_exact),
        cmocka_unit_test(test_ci_against_brute_force),
        cmocka_unit_test(test_ci_brackets_mean_and_shrinks),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_exact_size_on_symmetric_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
