/* Descriptive statistics of timing samples and distribution-free confidence intervals for the
 * median from order statistics (no normality assumption: kernel times are skewed and
 * multi-modal on power-capped GPUs, see ../docs/performance.md). Pure functions over arrays. */
#ifndef PG_STATS_ORDER_STATS_H
#define PG_STATS_ORDER_STATS_H

#include <stddef.h>

/* Summary of n samples (any unit; the caller's). */
typedef struct {
    size_t n;
    double median;
    double min, max;
    double ci_low, ci_high; /* interval for the population median */
    double ci_coverage;     /* exact coverage of [ci_low, ci_high], e.g. 0.9536; 0 when n == 0 */
    int ci_low_rank, ci_high_rank; /* 1-based order statistics used */
} pg_sample_summary;

/* Median of x[0..n) (mean of the two middle values for even n). x is not modified.
 * Returns NaN for n == 0. */
double pg_median(const double *x, size_t n);

/* P(X <= k) for X ~ Binomial(n, 1/2), exact in double precision for n <= 1000 (summed in log
 * space). k < 0 gives 0, k >= n gives 1. */
double pg_binom_half_cdf(long k, long n);

/* Ranks (1-based) j <= k of the order-statistic interval [x_(j), x_(k)] for the median with
 * coverage at least `confidence`: the largest j with 2·P(Bin(n,½) <= j−1) <= 1 − confidence, and
 * k = n + 1 − j (symmetric). Coverage = 1 − 2·P(Bin(n,½) <= j−1).
 * Source: Conover, Practical Nonparametric Statistics (3rd ed.), §3.2, the confidence interval
 * for a quantile. When n is too small for the requested confidence (n < 6 for 95 %) the whole
 * range [x_(1), x_(n)] is returned with its true, lower coverage. n must be >= 1. */
void pg_median_ci_ranks(size_t n, double confidence, int *j, int *k, double *coverage);

/* Fill s for x[0..n) with a median interval of at least `confidence` (0 < confidence < 1).
 * x is not modified. n == 0 gives a zeroed summary with NaN median. */
void pg_summarize(const double *x, size_t n, double confidence, pg_sample_summary *s);

/* Interval for the ratio of two medians, baseline/candidate (= speedup), from two independent
 * median intervals each of coverage >= 1 − (1 − confidence)/2 (Bonferroni), so that
 * the joint coverage is >= confidence: [b.lo / c.hi, b.hi / c.lo]. The caller summarizes both
 * samples with pg_summarize(.., pg_ratio_component_confidence(confidence), ..). */
double pg_ratio_component_confidence(double confidence);
void pg_ratio_interval(const pg_sample_summary *baseline, const pg_sample_summary *candidate,
                       double *estimate, double *lo, double *hi);

#endif
