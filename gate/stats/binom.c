/* Clopper–Pearson intervals (see binom.h). */
#include "binom.h"

#include <math.h>

double pg_binom_cdf(long k, long n, double p)
{
    if (k < 0)
        return 0.0;
    if (k >= n)
        return 1.0;
    if (p <= 0.0)
        return 1.0;
    if (p >= 1.0)
        return 0.0;
    double sum = 0.0, lp = log(p), lq = log1p(-p);
    for (long i = 0; i <= k; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
                   (double)i * lp + (double)(n - i) * lq);
    return sum > 1.0 ? 1.0 : sum;
}

/* Smallest p in [0, 1] where pred(p) holds, for a predicate false below and true above. */
static double bisect(int (*pred)(double, long, long, double), long k, long n, double a)
{
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (pred(mid, k, n, a))
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

static int upper_tail_reaches(double p, long k, long n, double a)
{
    return 1.0 - pg_binom_cdf(k - 1, n, p) >= a;
}

static int lower_tail_below(double p, long k, long n, double a)
{
    return pg_binom_cdf(k, n, p) <= a;
}

void pg_binom_ci(size_t k, size_t n, double confidence, double *lo, double *hi)
{
    double a = (1.0 - confidence) / 2.0;
    *lo = k == 0 ? 0.0 : bisect(upper_tail_reaches, (long)k, (long)n, a);
    *hi = k == n ? 1.0 : bisect(lower_tail_below, (long)k, (long)n, a);
}
