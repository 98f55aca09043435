/* The percentile bootstrap interval of a mean (Efron & Tibshirani, An Introduction to the
 * Bootstrap, 1993, §13.3): resample x with replacement B times, take the mean of each resample,
 * and report the empirical α/2 and 1 − α/2 quantiles of those means. Used on log speedups, so
 * exp() of the result is an interval for a geometric-mean speedup. Seeded and reproducible:
 * resample b, draw j uses splitmix64(seed, b·n + j) (Steele, Lea & Flood, OOPSLA 2014), so the
 * same (x, B, seed) always gives the same interval. Pure functions. */
#ifndef PG_STATS_BOOTSTRAP_H
#define PG_STATS_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

/* Most resamples accepted. */
#define PG_BOOTSTRAP_MAX_RESAMPLES 1000000u

typedef struct {
    double mean;      /* mean of x (NaN for n == 0) */
    double ci_low;    /* sorted resample means at index floor(B·(1 − c)/2) */
    double ci_high;   /* ... and at index ceil(B·(1 + c)/2) − 1 */
    size_t n;
    size_t resamples; /* B */
    double confidence;
    uint64_t seed;
} pg_bootstrap_result;

/* Percentile interval at `confidence` (in (0, 1)) of the mean of x[0..n) from `resamples`
 * resamples (1..PG_BOOTSTRAP_MAX_RESAMPLES; values outside are clamped). n == 0 gives NaN
 * everywhere; n == 1 gives the point itself as both ends. Non-finite x or out of memory gives
 * NaN ends. Index draws are splitmix64 mod n (bias below n/2^64). */
pg_bootstrap_result pg_bootstrap_mean(const double *x, size_t n, size_t resamples,
                                      double confidence, uint64_t seed);

#endif
