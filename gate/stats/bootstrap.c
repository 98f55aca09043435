/* Percentile bootstrap of a mean (see bootstrap.h). */
#include "bootstrap.h"

#include <math.h>
#include <stdlib.h>

static uint64_t splitmix64_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

pg_bootstrap_result pg_bootstrap_mean(const double *x, size_t n, size_t resamples,
                                      double confidence, uint64_t seed)
{
    size_t b_count = resamples < 1 ? 1
                     : resamples > PG_BOOTSTRAP_MAX_RESAMPLES ? PG_BOOTSTRAP_MAX_RESAMPLES
                                                              : resamples;
    pg_bootstrap_result r = {.mean = NAN, .ci_low = NAN, .ci_high = NAN, .n = n,
                             .resamples = b_count, .confidence = confidence, .seed = seed};
    if (n == 0 || !(confidence > 0.0 && confidence < 1.0))
        return r;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    r.mean = sum / (double)n;
    if (!isfinite(r.mean))
        return r;
    if (n == 1) {
        r.ci_low = r.ci_high = r.mean;
        return r;
    }
    double *means = malloc(b_count * sizeof *means);
    if (!means)
        return r;
    for (size_t b = 0; b < b_count; b++) {
        double s = 0.0;
        for (size_t j = 0; j < n; j++)
            s += x[splitmix64_at(seed, (uint64_t)(b * n + j)) % n];
        means[b] = s / (double)n;
    }
    qsort(means, b_count, sizeof *means, cmp_double);
    double tail = (1.0 - confidence) / 2.0;
    size_t lo = (size_t)floor((double)b_count * tail);
    size_t hi = (size_t)ceil((double)b_count * (1.0 - tail));
    hi = hi == 0 ? 0 : hi - 1;
    r.ci_low = means[lo < b_count ? lo : b_count - 1];
    r.ci_high = means[hi < b_count ? hi : b_count - 1];
    free(means);
    return r;
}
