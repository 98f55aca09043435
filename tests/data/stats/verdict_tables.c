/* The tables of docs/statistics.md: minimum detectable effects, simulated error rates and power
 * of the three-zone verdict on synthetic blocks. Not a test (tests/unit/test_comparison.c asserts
 * the rates that matter); rerun after changing gate/stats/ and paste the output into the doc:
 *     cc -O2 -std=c11 -I gate tests/data/stats/verdict_tables.c build/libptxgate.a -lm \
 *        -o /tmp/verdict_tables && /tmp/verdict_tables
 * Seeded: the output is the same on every machine. About a minute. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/comparison.h"

static unsigned long long rng_state;
static unsigned long long rng_next(void)
{
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double uniform(void) { return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0; }
static double normal(void) { return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform()); }

enum noise { NORMAL, T2, SKEW_RIGHT, SKEW_LEFT, AR1 };
static const char *noise_name[] = {"normal", "t(2)", "exp-1 (right skew)", "1-exp (left skew)",
                                   "normal AR(1) 0.5"};

static double draw(enum noise k)
{
    switch (k) {
    case T2: return normal() / sqrt(-log(uniform()));
    case SKEW_RIGHT: return -log(uniform()) - 1.0;
    case SKEW_LEFT: return 1.0 + log(uniform());
    default: return normal();
    }
}

/* Upper end of the exact (Clopper–Pearson) 95 % interval for k of N, by bisection. */
static double cp_upper(long k, long N)
{
    if (k >= N)
        return 1.0;
    double lo = (double)k / N, hi = 1.0;
    for (int it = 0; it < 60; it++) {
        double p = 0.5 * (lo + hi), s = 0;
        for (long i = 0; i <= k; i++)
            s += exp(lgamma(N + 1.0) - lgamma(i + 1.0) - lgamma(N - i + 1.0) + i * log(p) +
                     (N - i) * log1p(-p));
        if (s > 0.025)
            lo = p;
        else
            hi = p;
    }
    return hi;
}

static void row(const char *what, long N, double delta, double mean, double sd, enum noise k,
                double alpha)
{
    pg_cmp_config c;
    pg_cmp_config_default(&c, delta);
    c.alpha = alpha;
    long n[4] = {0}, blocks = 0;
    for (long i = 0; i < N; i++) {
        double d[64], prev = 0;
        for (int b = 0; b < 64; b++) {
            double e = draw(k);
            if (k == AR1)
                e = prev = 0.5 * prev + sqrt(0.75) * e;
            d[b] = mean + sd * e;
        }
        c.seed = rng_next();
        pg_cmp_result r = pg_cmp_sequential(d, 64, &c);
        n[r.verdict]++;
        blocks += (long)r.blocks;
    }
    printf("| %-40s | %5ld | %6.2f %% (≤ %5.2f %%) | %6.2f %% | %6.2f %% | %6.2f %% | %5.1f |\n",
           what, N, 100.0 * n[PG_CMP_FAIL] / N, 100.0 * cp_upper(n[PG_CMP_FAIL], N),
           100.0 * n[PG_CMP_PASS] / N, 100.0 * n[PG_CMP_INCONCLUSIVE] / N,
           100.0 * n[PG_CMP_FAST] / N, (double)blocks / N);
}

int main(void)
{
    const double l1 = log(1.01), l2 = log(1.02);
    printf("Minimum detectable slowdown (power 0.8) at each look, equal spending over 3 looks\n\n");
    printf("| block sd | δ | comparisons per run | 16 blocks | 32 blocks | 64 blocks |\n");
    printf("|---|---|---|---|---|---|\n");
    const double sds[] = {0.0013, 0.008, 0.02}, deltas[] = {0.01, 0.02, 0.05};
    for (int i = 0; i < 3; i++) {
        for (int m = 1; m <= 10; m += 9) {
            printf("| %.2f %% | %.0f %% | %d |", 100 * sds[i], 100 * deltas[i], m);
            for (int n = 16; n <= 64; n *= 2) {
                double a = 0.01 / m / 3;
                double min_p = n <= 20 ? ldexp(1.0, -n) : 1.0 / 20001;
                double r = min_p > a ? INFINITY
                                     : pg_cmp_mde_ratio(log1p(deltas[i]), sds[i], (size_t)n, a, 0.8);
                printf(" %+.2f %% |", 100 * (r - 1));
            }
            printf("\n");
        }
    }
    printf("\nSimulated verdicts (sequential looks 16/32/64, alpha 1 %% unless stated)\n\n");
    printf("| blocks d_b | N | FAIL (95 %% upper) | PASS | INCONCL. | FAST | mean blocks |\n");
    printf("|---|---|---|---|---|---|---|\n");
    rng_state = 2024;
    const long N = 2000;
    row("A/A, normal sd 0.13 %, δ 1 %", N, 0.01, 0, 0.0013, NORMAL, 0.01);
    row("A/A, normal sd 0.8 %, δ 2 %", N, 0.02, 0, 0.008, NORMAL, 0.01);
    row("A/A, t(2) scale 0.13 %, δ 1 %", N, 0.01, 0, 0.0013, T2, 0.01);
    for (int k = NORMAL; k <= AR1; k++) {
        char what[96];
        snprintf(what, sizeof what, "E[d] = ln 1.01, %s 0.13 %%", noise_name[k]);
        row(what, N, 0.01, l1, 0.0013, (enum noise)k, 0.01);
    }
    row("E[d] = ln 1.02, normal 0.8 %, δ 2 %", N, 0.02, l2, 0.008, NORMAL, 0.01);
    row("1.1 % slower, normal 0.13 %, δ 1 %", N, 0.01, log(1.011), 0.0013, NORMAL, 0.01);
    row("1.2 % slower, normal 0.13 %, δ 1 %", N, 0.01, log(1.012), 0.0013, NORMAL, 0.01);
    row("1.5 % slower, normal 0.13 %, δ 1 %", N, 0.01, log(1.015), 0.0013, NORMAL, 0.01);
    row("1.5 % slower, normal 0.13 %, δ 1 %, α/10", N, 0.01, log(1.015), 0.0013, NORMAL, 0.001);
    row("2 % slower, normal 0.13 %, δ 1 %", N, 0.01, log(1.02), 0.0013, NORMAL, 0.01);
    row("2.5 % slower, normal 0.8 %, δ 2 %", N, 0.02, log(1.025), 0.008, NORMAL, 0.01);
    row("3 % slower, normal 0.8 %, δ 2 %", N, 0.02, log(1.03), 0.008, NORMAL, 0.01);
    row("3 % slower, normal 0.8 %, δ 2 %, α/10", N, 0.02, log(1.03), 0.008, NORMAL, 0.001);
    row("3 % faster, normal 0.13 %, δ 1 %", N, 0.01, log(0.97), 0.0013, NORMAL, 0.01);
    return 0;
}
