/* Medians and order-statistic confidence intervals (see order_stats.h). */
#include "order_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NULL;
    memcpy(c, x, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    return c;
}

static double median_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double pg_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = sorted_copy(x, n);
    if (!s)
        return NAN;
    double m = median_sorted(s, n);
    free(s);
    return m;
}

double pg_binom_half_cdf(long k, long n)
{
    if (k < 0)
        return 0.0;
    if (k >= n)
        return 1.0;
    /* Sum C(n,i)·2^-n in log space: lgamma keeps it exact enough for n in the thousands. */
    double sum = 0.0;
    for (long i = 0; i <= k; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                   (double)n * log(2.0));
    return sum > 1.0 ? 1.0 : sum;
}

void pg_median_ci_ranks(size_t n, double confidence, int *j, int *k, double *coverage)
{
    double alpha = 1.0 - confidence;
    long best = 0; /* 0 = no rank satisfies: use the full range */
    for (long cand = 1; cand <= (long)(n + 1) / 2; cand++) {
        if (2.0 * pg_binom_half_cdf(cand - 1, (long)n) <= alpha)
            best = cand;
        else
            break;
    }
    if (best == 0)
        best = 1;
    *j = (int)best;
    *k = (int)((long)n + 1 - best);
    *coverage = 1.0 - 2.0 * pg_binom_half_cdf(best - 1, (long)n);
}

void pg_summarize(const double *x, size_t n, double confidence, pg_sample_summary *s)
{
    memset(s, 0, sizeof *s);
    s->median = s->min = s->max = s->ci_low = s->ci_high = NAN;
    if (n == 0)
        return;
    double *sorted = sorted_copy(x, n);
    if (!sorted)
        return;
    s->n = n;
    s->median = median_sorted(sorted, n);
    s->min = sorted[0];
    s->max = sorted[n - 1];
    pg_median_ci_ranks(n, confidence, &s->ci_low_rank, &s->ci_high_rank, &s->ci_coverage);
    s->ci_low = sorted[s->ci_low_rank - 1];
    s->ci_high = sorted[s->ci_high_rank - 1];
    free(sorted);
}

double pg_ratio_component_confidence(double confidence)
{
    return 1.0 - (1.0 - confidence) / 2.0;
}

void pg_ratio_interval(const pg_sample_summary *baseline, const pg_sample_summary *candidate,
                       double *estimate, double *lo, double *hi)
{
    *estimate = baseline->median / candidate->median;
    *lo = baseline->ci_low / candidate->ci_high;
    *hi = baseline->ci_high / candidate->ci_low;
}
