/* Exact binomial proportion intervals, for reporting observed error rates (false-FAIL rate,
 * detection power) with their uncertainty. */
#ifndef PG_STATS_BINOM_H
#define PG_STATS_BINOM_H

#include <stddef.h>

/* P(X <= k) for X ~ Binomial(n, p), summed in log space (exact to ~1e-12 for n <= 10^4). */
double pg_binom_cdf(long k, long n, double p);

/* Clopper–Pearson interval for a proportion k/n at `confidence` (two-sided, equal tails):
 * lo solves P(X >= k | lo) = (1 − c)/2 (lo = 0 when k = 0), hi solves P(X <= k | hi) = (1 − c)/2
 * (hi = 1 when k = n); found by bisection. Source: Clopper & Pearson, Biometrika 26 (1934).
 * Requires 0 <= k <= n, n >= 1. */
void pg_binom_ci(size_t k, size_t n, double confidence, double *lo, double *hi);

#endif
