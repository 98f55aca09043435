/* The three-zone verdict: tolerances, spending, t quantiles against mpmath, the minimum
 * detectable effect, verdicts on constructed blocks, the sequential p-value, Holm's run-level
 * step; then seeded simulations whose error rates must fall within binomial bounds (A/A, the
 * least favourable null, a 3 % regression, t(2) tails, level shifts; docs/statistics.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/comparison.h"
#include "stats/signflip.h"

#define LAMBDA_1PCT 0.009950330853168083 /* ln(1.01) */

static void test_names_and_default_delta(void **state)
{
    assert_string_equal(pg_cmp_verdict_name(PG_CMP_PASS), "PASS");
    assert_string_equal(pg_cmp_verdict_name(PG_CMP_FAIL), "FAIL");
    assert_string_equal(pg_cmp_verdict_name(PG_CMP_INCONCLUSIVE), "INCONCLUSIVE");
    assert_string_equal(pg_cmp_verdict_name(PG_CMP_FAST), "FAST");
    assert_string_equal(pg_cmp_verdict_name((pg_cmp_verdict)42), "?");
    assert_float_equal(pg_cmp_default_delta(0.752), 0.01, 0);
    assert_float_equal(pg_cmp_default_delta(0.1), 0.01, 0);
    assert_float_equal(pg_cmp_default_delta(0.0999), 0.02, 0);
    assert_float_equal(pg_cmp_default_delta(0.02), 0.02, 0);
    assert_float_equal(pg_cmp_default_delta(0.0199), 0.05, 0);
    assert_true(isnan(pg_cmp_default_delta(0.0)));
    assert_true(isnan(pg_cmp_default_delta(NAN)));
}

static void test_config_and_spending(void **state)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    assert_float_equal(c.lambda, LAMBDA_1PCT, 1e-15);
    assert_float_equal(c.fast_lambda, -LAMBDA_1PCT, 1e-15);
    assert_float_equal(c.alpha, 0.01, 0);
    assert_int_equal(c.n_looks, 3);
    assert_int_equal(c.looks[0], 16);
    assert_int_equal(c.looks[1], 32);
    assert_int_equal(c.looks[2], 64);
    assert_int_equal(c.mc_draws, 20000);
    assert_float_equal(c.confidence, 0.95, 0);
    double total = 0;
    for (int k = 0; k < c.n_looks; k++) {
        assert_float_equal(pg_cmp_alpha_at_look(&c, k), 0.01 / 3, 1e-18);
        total += pg_cmp_alpha_at_look(&c, k);
    }
    assert_true(total <= c.alpha * (1 + 1e-12));
    assert_true(isnan(pg_cmp_alpha_at_look(&c, 3)));
    assert_true(isnan(pg_cmp_alpha_at_look(&c, -1)));
    /* Draws are raised so that alpha_look is reachable: 10 / (0.001/3) = 30000 > 20000. */
    c.alpha = pg_cmp_comparison_alpha(0.01, 10);
    assert_float_equal(c.alpha, 0.001, 1e-18);
    assert_int_equal(pg_cmp_mc_draws(&c, 1), 30000);
    /* Explicit spending: fractions 0.2, 0.3, 0.5; fractions over 1 are scaled down. */
    c.alpha = 0.01;
    c.spend[0] = 0.2, c.spend[1] = 0.3, c.spend[2] = 0.5;
    assert_float_equal(pg_cmp_alpha_at_look(&c, 0), 0.002, 1e-18);
    assert_float_equal(pg_cmp_alpha_at_look(&c, 2), 0.005, 1e-18);
    c.spend[0] = 2, c.spend[1] = 1, c.spend[2] = 1;
    assert_float_equal(pg_cmp_alpha_at_look(&c, 0), 0.005, 1e-18);
    c.spend[1] = -1; /* invalid */
    assert_true(isnan(pg_cmp_alpha_at_look(&c, 0)));
    /* The vendor check: lambda = ln(1/min_speedup), FAST beyond it by delta. */
    pg_cmp_config_min_speedup(&c, 1.2, 0.01);
    assert_float_equal(c.lambda, -log(1.2), 1e-15);
    assert_float_equal(c.fast_lambda, -log(1.2) - LAMBDA_1PCT, 1e-15);
}

static void test_t_quantiles(void **state)
{
    FILE *f = fopen(PG_TEST_DATA "/stats/t_quantiles.txt", "r");
    assert_non_null(f);
    char line[256];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        double df, p, q;
        assert_int_equal(sscanf(line, "%lf %lf %lf", &df, &p, &q), 3);
        assert_float_equal(pg_cmp_t_quantile(p, df), q, 1e-9 * q);
        assert_float_equal(pg_cmp_t_quantile(1 - p, df), -q, 1e-8 * q);
        cases++;
    }
    fclose(f);
    assert_int_equal(cases, 42);
    /* Printed tables (e.g. Student t table in any statistics text), 3 decimals. */
    assert_float_equal(pg_cmp_t_quantile(0.975, 15), 2.131, 5e-4);
    assert_float_equal(pg_cmp_t_quantile(0.99, 15), 2.602, 5e-4);
    assert_float_equal(pg_cmp_t_quantile(0.999, 15), 3.733, 5e-4);
    assert_float_equal(pg_cmp_t_quantile(0.975, 1), 12.706, 5e-4);
    assert_float_equal(pg_cmp_t_quantile(0.5, 7), 0.0, 0);
    assert_true(isnan(pg_cmp_t_quantile(1.0, 7)));
    assert_true(isnan(pg_cmp_t_quantile(0.9, 0)));
}

static void test_mde(void **state)
{
    /* n = 16, sd 0.0013, alpha 0.01, power 0.8: (t_.99,15 + t_.8,15)·sd/4 with mpmath's quantiles. */
    double want = exp(LAMBDA_1PCT + (2.6024802950111233 + 0.86624497319495158) * 0.0013 / 4);
    assert_float_equal(pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, 16, 0.01, 0.8), want, 1e-12);
    /* Monotone: decreasing in n (towards 1 + δ), increasing in sd and in power. */
    double prev = INFINITY;
    for (size_t n = 2; n <= 256; n++) {
        double m = pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, n, 0.01 / 3, 0.8);
        assert_true(m < prev);
        assert_true(m > 1.01);
        prev = m;
    }
    assert_true(pg_cmp_mde_ratio(LAMBDA_1PCT, 0.008, 16, 0.01, 0.8) >
                pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, 16, 0.01, 0.8));
    assert_true(pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, 16, 0.01, 0.9) >
                pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, 16, 0.01, 0.8));
    assert_float_equal(pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0, 16, 0.01, 0.8), 1.01, 1e-12);
    assert_true(isinf(pg_cmp_mde_ratio(LAMBDA_1PCT, 0.0013, 1, 0.01, 0.8)));
    assert_true(isinf(pg_cmp_mde_ratio(LAMBDA_1PCT, NAN, 16, 0.01, 0.8)));
}

/* n blocks evenly spread around `center`: center + sd·√3·(2(q + ½)/n − 1), q a permutation. */
static void spread(double *d, size_t n, double center, double sd)
{
    for (size_t b = 0; b < n; b++) {
        size_t q = (b * 37 + 5) % n;
        d[b] = center + sd * sqrt(3.0) * (2.0 * ((double)q + 0.5) / (double)n - 1.0);
    }
}

static void test_verdicts_on_constructed_blocks(void **state)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    double d[64];

    spread(d, 16, log(1.03), 0.0013); /* every block above lambda */
    pg_cmp_result r = pg_cmp_evaluate(d, 16, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_FAIL);
    assert_true(pg_cmp_decisive(&r));
    assert_true(r.exact);
    assert_int_equal(r.assignments, 65536);
    assert_float_equal(r.p_fail, 1.0 / 65536, 0);
    assert_float_equal(r.p_fail_seq, 3.0 / 65536, 1e-18);
    assert_float_equal(r.ratio_estimate, 1.03, 1e-12);
    assert_true(r.ratio_ci_low < 1.03 && 1.03 < r.ratio_ci_high);
    assert_true(r.ratio_ci_low > 1.03 * exp(-0.0013 * sqrt(3.0)));
    assert_true(r.mde_ratio > 1.01 && r.mde_ratio < 1.0115);
    assert_float_equal(r.alpha_look, 0.01 / 3, 1e-18);
    assert_int_equal(r.blocks, 16);

    spread(d, 16, 0.0, 0.0013); /* identical arms */
    r = pg_cmp_evaluate(d, 16, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_PASS);
    assert_float_equal(r.p_pass, 1.0 / 65536, 0);
    assert_true(r.p_fast > 0.5 && r.p_fail > 0.5);
    assert_false(pg_cmp_canary_rejects(&r));

    spread(d, 16, log(0.97), 0.0013); /* 3 % faster */
    r = pg_cmp_evaluate(d, 16, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_FAST);
    assert_true(pg_cmp_canary_rejects(&r)); /* identical arms must never look this different */

    spread(d, 16, LAMBDA_1PCT, 0.02); /* on the boundary, noisy */
    r = pg_cmp_evaluate(d, 16, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    assert_false(pg_cmp_decisive(&r));
    assert_true(r.mde_ratio > 1.03);

    /* The vendor check with min_speedup 1.2 (lambda = ln(1/1.2), FAST beyond by 1 %). */
    pg_cmp_config v;
    pg_cmp_config_min_speedup(&v, 1.2, 0.01);
    spread(d, 16, log(1 / 1.10), 0.0013);
    assert_int_equal(pg_cmp_evaluate(d, 16, &v, 0).verdict, PG_CMP_FAIL);
    spread(d, 16, log(1 / 1.205), 0.0013);
    assert_int_equal(pg_cmp_evaluate(d, 16, &v, 0).verdict, PG_CMP_PASS);
    spread(d, 16, log(1 / 1.25), 0.0013);
    assert_int_equal(pg_cmp_evaluate(d, 16, &v, 0).verdict, PG_CMP_FAST);

    /* Monte Carlo look: 32 blocks, draws raised to 10/alpha_look when that exceeds mc_draws. */
    spread(d, 32, log(1.03), 0.0013);
    c.mc_draws = 100;
    r = pg_cmp_evaluate(d, 32, &c, 1);
    assert_false(r.exact);
    assert_int_equal(r.assignments, 3000);
    assert_int_equal(r.verdict, PG_CMP_FAIL);
    assert_float_equal(r.p_fail, 1.0 / 3001, 1e-18); /* no draw flips nothing here */
}

static void test_invalid_input(void **state)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    double d[16];
    spread(d, 16, log(1.03), 0.0013);
    pg_cmp_result r = pg_cmp_evaluate(d, 0, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    assert_float_equal(r.p_fail, 1.0, 0);
    r = pg_cmp_evaluate(d, 16, &c, 3);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    c.looks[1] = 8; /* not increasing */
    assert_int_equal(pg_cmp_evaluate(d, 16, &c, 0).verdict, PG_CMP_INCONCLUSIVE);
    pg_cmp_config_default(&c, 0.01);
    d[3] = NAN;
    r = pg_cmp_evaluate(d, 16, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    assert_true(isnan(r.p_fail));
    /* Too few blocks for the level: 2^-4 > alpha_look, so nothing is detectable. */
    int small[] = {4, 8, 16};
    memcpy(c.looks, small, sizeof small);
    spread(d, 4, log(1.5), 0.0013);
    r = pg_cmp_evaluate(d, 4, &c, 0);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    assert_true(isinf(r.mde_ratio));
}

/* Assumption diagnostics, by hand: d = 1..5 (×1e-3): deviations −2..2, Σe² = 10, lag-1 Σ = 4,
 * r1 = 0.4, symmetric so g1 = 0; d = {0, 0, 0, 1}: Bernoulli(¼) skewness (1 − 2p)/√(p(1 − p)). */
static void test_diagnostics(void **state)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    double d[] = {0.001, 0.002, 0.003, 0.004, 0.005};
    pg_cmp_result r = pg_cmp_evaluate(d, 5, &c, 0);
    assert_float_equal(r.acf1_log_ratio, 0.4, 1e-12);
    assert_float_equal(r.skew_log_ratio, 0.0, 1e-12);
    assert_float_equal(r.sd_log_ratio, sqrt(10e-6 / 4), 1e-15);
    double e[] = {0, 0, 0, 0.01};
    r = pg_cmp_evaluate(e, 4, &c, 0);
    assert_float_equal(r.skew_log_ratio, 0.5 / sqrt(0.25 * 0.75), 1e-12);
    r = pg_cmp_evaluate(e, 2, &c, 0);
    assert_true(isnan(r.acf1_log_ratio) && isnan(r.skew_log_ratio));
}

/* p_fail_seq = min over looks so far of p_fail,j / w_j, each p recomputed on its prefix. */
static void test_sequential_p_and_stop(void **state)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    c.mc_draws = 2000;
    double d[64];
    spread(d, 64, LAMBDA_1PCT + 0.0004, 0.0013);
    double p0 = pg_signflip_greater(d, 16, c.lambda, c.seed, 1).p_value;
    pg_signflip_ref *ref = pg_signflip_ref_new(d, 32, PG_SIGNFLIP_EXACT_MAX, c.seed,
                                               pg_cmp_mc_draws(&c, 1));
    double p1 = pg_signflip_ref_greater(ref, c.lambda).p_value;
    pg_signflip_ref_free(ref);
    pg_cmp_result r = pg_cmp_evaluate(d, 32, &c, 1);
    assert_float_equal(r.p_fail, p1, 0);
    assert_float_equal(r.p_fail_seq, fmin(1.0, 3 * fmin(p0, p1)), 1e-15);

    /* pg_cmp_sequential stops at the first decisive look. */
    spread(d, 64, log(1.03), 0.0013);
    r = pg_cmp_sequential(d, 64, &c);
    assert_int_equal(r.look, 0);
    assert_int_equal(r.blocks, 16);
    assert_int_equal(r.verdict, PG_CMP_FAIL);
    spread(d, 64, LAMBDA_1PCT, 0.05);
    r = pg_cmp_sequential(d, 64, &c);
    assert_int_equal(r.look, 2);
    assert_int_equal(r.blocks, 64);
    assert_int_equal(r.verdict, PG_CMP_INCONCLUSIVE);
    r = pg_cmp_sequential(d, 40, &c); /* fewer blocks than the last look */
    assert_int_equal(r.look, 2);
    assert_int_equal(r.blocks, 40);
}

static pg_cmp_result fake(pg_cmp_verdict v, double p_seq)
{
    pg_cmp_result r;
    memset(&r, 0, sizeof r);
    r.verdict = v;
    r.p_fail_seq = p_seq;
    return r;
}

static void test_holm_finalize(void **state)
{
    /* Comparisons run at alpha = run alpha (0.01): Holm demotes. Sorted 0.001 <= 0.01/4,
     * 0.004 > 0.01/3: only the first FAIL stands. */
    pg_cmp_result a[] = {fake(PG_CMP_FAIL, 0.004), fake(PG_CMP_FAIL, 0.001),
                         fake(PG_CMP_FAIL, 0.009), fake(PG_CMP_PASS, 0.9)};
    assert_int_equal(pg_cmp_holm_finalize(a, 4, 0.01), 1);
    assert_int_equal(a[0].verdict, PG_CMP_INCONCLUSIVE);
    assert_true(a[0].holm_changed);
    assert_int_equal(a[1].verdict, PG_CMP_FAIL);
    assert_false(a[1].holm_changed);
    assert_int_equal(a[2].verdict, PG_CMP_INCONCLUSIVE);
    assert_int_equal(a[3].verdict, PG_CMP_PASS);
    /* Comparisons run at run alpha / m = 0.01/3: Holm promotes. 0.001 <= 0.01/3, then
     * 0.004 <= 0.01/2 (an INCONCLUSIVE at 0.01/3 becomes FAIL), then 0.5 > 0.01. PASS and FAST
     * are never changed. */
    pg_cmp_result b[] = {fake(PG_CMP_FAIL, 0.001), fake(PG_CMP_INCONCLUSIVE, 0.004),
                         fake(PG_CMP_FAST, 0.5)};
    assert_int_equal(pg_cmp_holm_finalize(b, 3, 0.01), 2);
    assert_int_equal(b[1].verdict, PG_CMP_FAIL);
    assert_true(b[1].holm_changed);
    assert_int_equal(b[2].verdict, PG_CMP_FAST);
    pg_cmp_result p[] = {fake(PG_CMP_PASS, 0.0001)};
    pg_cmp_holm_finalize(p, 1, 0.01);
    assert_int_equal(p[0].verdict, PG_CMP_PASS);
    assert_int_equal(pg_cmp_holm_finalize(NULL, 0, 0.01), 0);
}

/* --- simulations: seeded synthetic blocks, error rates within binomial bounds. */
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
/* Student t with 2 degrees of freedom: Z / sqrt(χ²₂ / 2), χ²₂ = −2 ln U. */
static double rng_t2(void) { return rng_normal() / sqrt(-log(rng_uniform())); }

/* Smallest k with P(Bin(N, p) <= k) >= 0.999: the 99.9 % upper bound on a count. */
static long binom_upper(long N, double p)
{
    double s = 0;
    for (long k = 0; k <= N; k++) {
        s += exp(lgamma(N + 1.0) - lgamma(k + 1.0) - lgamma(N - k + 1.0) + k * log(p) +
                 (N - k) * log1p(-p));
        if (s >= 0.999)
            return k;
    }
    return N;
}

typedef struct {
    long n[4]; /* by verdict */
    long at_look[PG_CMP_MAX_LOOKS];
} tally;

enum noise { NORMAL, T2 };

/* N comparisons of 64 blocks d_b = mean + sd·noise (+ step from block `step_at`), sequential. */
static tally simulate(long N, uint64_t seed, double delta, double mean, double sd,
                      enum noise noise, long step_at, double step)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, delta);
    c.mc_draws = 1000; /* raised to 10/alpha_look = 3000 per look; any count is a valid p */
    tally t;
    memset(&t, 0, sizeof t);
    rng_state = seed;
    for (long i = 0; i < N; i++) {
        double d[64];
        for (long b = 0; b < 64; b++)
            d[b] = mean + sd * (noise == T2 ? rng_t2() : rng_normal()) + (b >= step_at ? step : 0);
        c.seed = rng_next();
        pg_cmp_result r = pg_cmp_sequential(d, 64, &c);
        t.n[r.verdict]++;
        t.at_look[r.look]++;
    }
    return t;
}

static void report(const char *what, long N, const tally *t)
{
    print_message("%-34s N=%ld PASS %ld FAIL %ld INCONCLUSIVE %ld FAST %ld; stopped at looks "
                  "16/32/64: %ld/%ld/%ld\n",
                  what, N, t->n[PG_CMP_PASS], t->n[PG_CMP_FAIL], t->n[PG_CMP_INCONCLUSIVE],
                  t->n[PG_CMP_FAST], t->at_look[0], t->at_look[1], t->at_look[2]);
}

/* A/A at the H200's block noise (0.13 %): false FAILs (and FASTs) within the binomial bound of
 * alpha = 1 %; in fact none, since E[d] = 0 is far inside H0: E[d] <= ln(1.01). */
static void test_sim_aa(void **state)
{
    const long N = 1000;
    tally t = simulate(N, 1, 0.01, 0.0, 0.0013, NORMAL, 64, 0);
    report("A/A, N(0, 0.13%)", N, &t);
    assert_true(t.n[PG_CMP_FAIL] <= binom_upper(N, 0.01));
    assert_true(t.n[PG_CMP_FAST] <= binom_upper(N, 0.01));
    assert_true(t.n[PG_CMP_PASS] >= N - binom_upper(N, 0.01)); /* and decided at 16 blocks */
    assert_true(t.at_look[0] >= N - binom_upper(N, 0.01));
}

/* The least favourable null: E[d] exactly ln(1 + δ). Over all three looks the false-FAIL rate
 * must stay within the bound for alpha = 1 % (Bonferroni spending makes it smaller). */
static void test_sim_boundary(void **state)
{
    const long N = 600;
    tally t = simulate(N, 2, 0.01, LAMBDA_1PCT, 0.0013, NORMAL, 64, 0);
    report("E[d] = ln(1.01), N(., 0.13%)", N, &t);
    assert_true(t.n[PG_CMP_FAIL] <= binom_upper(N, 0.01));
    assert_true(t.n[PG_CMP_PASS] <= binom_upper(N, 0.01)); /* false non-inferiority too */
}

/* A 3 % slowdown at 0.13 % noise is found at the first look (16 blocks) at least 99 % of the
 * time, also with the alpha of a run of 10 comparisons. */
static void test_sim_detects_3pct(void **state)
{
    const long N = 300;
    tally t = simulate(N, 3, 0.01, log(1.03), 0.0013, NORMAL, 64, 0);
    report("3 % slowdown, N(., 0.13%)", N, &t);
    assert_true(t.n[PG_CMP_FAIL] >= (long)(0.99 * N));
    assert_true(t.at_look[0] >= (long)(0.99 * N));
    /* 2 % on a ~40 µs kernel (δ = 2 %, noise 0.8 %) is on its boundary; 3 % is found. */
    t = simulate(N, 4, 0.02, log(1.03), 0.008, NORMAL, 64, 0);
    report("3 % slowdown, δ 2 %, N(., 0.8%)", N, &t);
    assert_true(t.n[PG_CMP_FAIL] >= (long)(0.99 * N));
}

/* Heavy tails: t with 2 degrees of freedom (infinite variance) scaled to 0.13 %. Symmetric, so
 * the sign-flip test stays exact: the false-FAIL rate at the boundary is within the bound, and
 * A/A never FAILs. */
static void test_sim_heavy_tails(void **state)
{
    const long N = 400;
    tally t = simulate(N, 5, 0.01, LAMBDA_1PCT, 0.0013, T2, 64, 0);
    report("E[d] = ln(1.01), t(2) tails", N, &t);
    assert_true(t.n[PG_CMP_FAIL] <= binom_upper(N, 0.01));
    t = simulate(N, 6, 0.01, 0.0, 0.0013, T2, 64, 0);
    report("A/A, t(2) tails", N, &t);
    assert_true(t.n[PG_CMP_FAIL] + t.n[PG_CMP_FAST] <= binom_upper(N, 0.01));
}

/* Level shifts between blocks (docs/statistics.md, "Level shifts"):
 * (a) a shift of both arms (clocks, another process's residue) cancels in d = ln(T_c/T_b);
 *     modelled as a ±0.2 % jump in block 8 only (the block in which it happened) — A/A as before;
 * (b) the candidate alone gets 3 % slower from block 8 on: at 16 blocks the mean is 1.5 % with a
 *     wide spread (INCONCLUSIVE), at 32 blocks 2.25 % → FAIL at the second look;
 * (c) the same change after block 32 is never seen: the first look (16 blocks) already PASSes. */
static void test_sim_level_shifts(void **state)
{
    const long N = 200;
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    c.mc_draws = 1000;
    rng_state = 7;
    long pass = 0;
    for (long i = 0; i < N; i++) {
        double d[64];
        for (long b = 0; b < 64; b++)
            d[b] = 0.0013 * rng_normal() + (b == 8 ? (rng_next() & 1 ? 0.002 : -0.002) : 0);
        pass += pg_cmp_sequential(d, 64, &c).verdict == PG_CMP_PASS;
    }
    print_message("%-34s N=%ld PASS %ld\n", "A/A, ±0.2 % jump in block 8", N, pass);
    assert_true(pass >= N - binom_upper(N, 0.01));

    tally t = simulate(N, 8, 0.01, 0.0, 0.0013, NORMAL, 8, log(1.03));
    report("0 -> 3 % from block 8", N, &t);
    assert_true(t.n[PG_CMP_FAIL] >= (long)(0.99 * N));
    assert_true(t.at_look[1] >= (long)(0.99 * N));
    assert_int_equal(t.n[PG_CMP_PASS], 0);

    t = simulate(N, 9, 0.01, 0.0, 0.0013, NORMAL, 32, log(1.03));
    report("0 -> 3 % from block 32", N, &t);
    assert_true(t.n[PG_CMP_PASS] >= (long)(0.99 * N));
    assert_true(t.at_look[0] >= (long)(0.99 * N));
}

/* A run of 10 comparisons, each at alpha 0.01/10 and one look of 16 blocks, then Holm at 1 %:
 * with every comparison on its boundary the run-level false-FAIL rate is within the bound; with
 * 3 real 3 % regressions among them, those FAIL and the 7 nulls still rarely do. */
static void test_sim_run_level_holm(void **state)
{
    const long runs = 200, m = 10;
    pg_cmp_config c;
    pg_cmp_config_default(&c, 0.01);
    c.n_looks = 1;
    c.alpha = pg_cmp_comparison_alpha(0.01, (size_t)m);
    rng_state = 10;
    long runs_with_false_fail = 0, true_fails = 0;
    for (long run = 0; run < runs; run++) {
        bool mixed = run % 2 == 1; /* odd runs: comparisons 0..2 are real regressions */
        pg_cmp_result res[10];
        for (long i = 0; i < m; i++) {
            double d[16], mean = mixed && i < 3 ? log(1.03) : LAMBDA_1PCT;
            for (int b = 0; b < 16; b++)
                d[b] = mean + 0.0013 * rng_normal();
            res[i] = pg_cmp_evaluate(d, 16, &c, 0);
        }
        pg_cmp_holm_finalize(res, (size_t)m, 0.01);
        bool false_fail = false;
        for (long i = 0; i < m; i++) {
            if (mixed && i < 3)
                true_fails += res[i].verdict == PG_CMP_FAIL;
            else
                false_fail |= res[i].verdict == PG_CMP_FAIL;
        }
        runs_with_false_fail += false_fail;
    }
    print_message("%-34s runs=%ld with a false FAIL %ld; real regressions found %ld of %ld\n",
                  "runs of 10, Holm at 1 %", runs, runs_with_false_fail, true_fails,
                  3 * runs / 2);
    assert_true(runs_with_false_fail <= binom_upper(runs, 0.01));
    assert_true(true_fails >= (long)(0.99 * 3 * runs / 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_default_delta),
        cmocka_unit_test(test_config_and_spending),
        cmocka_unit_test(test_t_quantiles),
        cmocka_unit_test(test_mde),
        cmocka_unit_test(test_verdicts_on_constructed_blocks),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_diagnostics),
        cmocka_unit_test(test_sequential_p_and_stop),
        cmocka_unit_test(test_holm_finalize),
        cmocka_unit_test(test_sim_aa),
        cmocka_unit_test(test_sim_boundary),
        cmocka_unit_test(test_sim_detects_3pct),
        cmocka_unit_test(test_sim_heavy_tails),
        cmocka_unit_test(test_sim_level_shifts),
        cmocka_unit_test(test_sim_run_level_holm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
