/* Wilcoxon signed-rank test (see wilcoxon.h). */
#include "wilcoxon.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    double abs;
    int sign;
} signed_abs;

static int by_abs(const void *a, const void *b)
{
    double x = ((const signed_abs *)a)->abs, y = ((const signed_abs *)b)->abs;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Exact P(W+ <= w) and P(W+ >= w) from the doubled ranks r2[0..n) (integers): prob[s] is the
 * probability that the doubled W+ equals s, built one rank at a time (each sign 1/2). */
static void exact_tails(const int *r2, size_t n, int w2, double *p_le, double *p_ge)
{
    int total = 0;
    for (size_t i = 0; i < n; i++)
        total += r2[i];
    double *prob = calloc((size_t)total + 1, sizeof *prob);
    if (!prob) {
        *p_le = *p_ge = NAN;
        return;
    }
    prob[0] = 1.0;
    int reach = 0;
    for (size_t i = 0; i < n; i++) {
        reach += r2[i];
        for (int s = reach; s >= 0; s--)
            prob[s] = 0.5 * prob[s] + (s >= r2[i] ? 0.5 * prob[s - r2[i]] : 0.0);
    }
    double le = 0.0, ge = 0.0;
    for (int s = 0; s <= total; s++) {
        if (s <= w2)
            le += prob[s];
        if (s >= w2)
            ge += prob[s];
    }
    free(prob);
    *p_le = fmin(1.0, le);
    *p_ge = fmin(1.0, ge);
}

static double normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

pg_wilcoxon_result pg_wilcoxon_signed_rank(const double *d, size_t n)
{
    pg_wilcoxon_result r = {.z = NAN, .p_two_sided = 1.0, .p_less = 1.0, .p_greater = 1.0,
                            .exact = true};
    signed_abs *v = malloc((n ? n : 1) * sizeof *v);
    int *r2 = malloc((n ? n : 1) * sizeof *r2);
    if (!v || !r2) {
        r.p_two_sided = r.p_less = r.p_greater = NAN;
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(d[i]))
            r.non_finite++;
        else if (d[i] == 0.0)
            r.zeros++;
        else
            v[m++] = (signed_abs){fabs(d[i]), d[i] > 0 ? 1 : -1};
    }
    r.n = m;
    if (m == 0)
        goto done;
    qsort(v, m, sizeof *v, by_abs);
    double tie_term = 0.0; /* Σ (t³ − t) over tie groups */
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j + 1 < m && v[j + 1].abs == v[i].abs)
            j++;
        /* Ranks i+1 .. j+1 share the midrank (i + j + 2) / 2; doubled: i + j + 2. */
        int twice = (int)(i + j + 2);
        double t = (double)(j - i + 1);
        if (j > i) {
            r.ties = true;
            tie_term += t * t * t - t;
        }
        for (size_t k = i; k <= j; k++) {
            r2[k] = twice;
            if (v[k].sign > 0)
                r.w_plus += 0.5 * twice;
            else
                r.w_minus += 0.5 * twice;
        }
        i = j + 1;
    }
    if (m <= PG_WILCOXON_EXACT_MAX) {
        exact_tails(r2, m, (int)lround(2.0 * r.w_plus), &r.p_less, &r.p_greater);
    } else {
        r.exact = false;
        double nn = (double)m;
        double mean = nn * (nn + 1.0) / 4.0;
        double var = nn * (nn + 1.0) * (2.0 * nn + 1.0) / 24.0 - tie_term / 48.0;
        double sd = sqrt(var);
        double diff = r.w_plus - mean;
        r.z = diff / sd;
        /* Continuity correction: half a rank toward the mean, per direction. */
        r.p_less = normal_cdf((diff + 0.5) / sd);
        r.p_greater = normal_cdf(-(diff - 0.5) / sd);
    }
    if (isnan(r.p_less) || isnan(r.p_greater))
        r.p_two_sided = NAN;
    else
        r.p_two_sided = fmin(1.0, 2.0 * fmin(r.p_less, r.p_greater));
done:
    free(v);
    free(r2);
    return r;
}
