/* Sign-flip randomization tests and their inversion (see signflip.h). */
#include "signflip.h"

#include <math.h>
#include <stdlib.h>

struct pg_signflip_ref {
    size_t n;
    bool exact;
    bool finite;     /* every d_b finite; otherwise all answers are NaN */
    size_t total;    /* assignments in the set: 2^n or the draws */
    size_t empties;  /* assignments that flip nothing (the observed one) */
    double bias;     /* 0 exact, 1 Monte Carlo: p = (bias + count) / (bias + total) */
    double mean;     /* mean(d) */
    double abs_sum;  /* Σ|d_b|, the scale of the tie tolerance */
    double *sum;     /* [total] Σ_{b∈F} d_b of each flipped set F */
    uint32_t *size;  /* [total] |F| */
};

#define PG_GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL
#define PG_TIE_REL 1e-12

/* Word i of the sign-flip stream: SplitMix64's output number i from state seed ^ "SIGNFLIP"
 * (the constant keeps it apart from other SplitMix64 users of the same logged seed, such as the
 * block order). Counter-based, so draw j needs no state. */
#define PG_SIGNFLIP_DOMAIN 0x5349474E464C4950ULL /* "SIGNFLIP" */
static uint64_t splitmix64_at(uint64_t seed, uint64_t i)
{
    uint64_t z = (seed ^ PG_SIGNFLIP_DOMAIN) + (i + 1) * PG_GOLDEN_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void build_exact(pg_signflip_ref *r, const double *d)
{
    r->sum[0] = 0.0;
    r->size[0] = 0;
    for (size_t k = 0, have = 1; k < r->n; k++, have *= 2) {
        for (size_t i = 0; i < have; i++) {
            r->sum[have + i] = r->sum[i] + d[k];
            r->size[have + i] = r->size[i] + 1;
        }
    }
    r->empties = 1;
}

static void build_monte_carlo(pg_signflip_ref *r, const double *d, uint64_t seed)
{
    size_t words = (r->n + 63) / 64;
    r->empties = 0;
    for (size_t j = 0; j < r->total; j++) {
        double s = 0.0;
        uint32_t k = 0;
        for (size_t w = 0; w < words; w++) {
            uint64_t bits = splitmix64_at(seed, (uint64_t)(j * words + w));
            size_t base = 64 * w, lim = r->n - base < 64 ? r->n - base : 64;
            for (size_t b = 0; b < lim; b++) { /* branch-free: adding 0.0 changes nothing */
                uint32_t flip = (uint32_t)((bits >> b) & 1u);
                s += d[base + b] * (double)flip;
                k += flip;
            }
        }
        r->sum[j] = s;
        r->size[j] = k;
        r->empties += (k == 0);
    }
}

pg_signflip_ref *pg_signflip_ref_new(const double *d, size_t n, size_t exact_max, uint64_t seed,
                                     size_t draws)
{
    if (n == 0)
        return NULL;
    pg_signflip_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->n = n;
    r->finite = true;
    double s = 0.0;
    for (size_t b = 0; b < n; b++) {
        if (!isfinite(d[b]))
            r->finite = false;
        s += d[b];
        r->abs_sum += fabs(d[b]);
    }
    r->mean = s / (double)n;
    if (exact_max > PG_SIGNFLIP_EXACT_LIMIT)
        exact_max = PG_SIGNFLIP_EXACT_LIMIT;
    r->exact = n <= exact_max;
    if (!r->finite) /* answers are NaN; no set needed */
        return r;
    if (r->exact) {
        r->total = (size_t)1 << n;
        r->bias = 0.0;
    } else {
        r->total = draws < 1 ? 1 : draws > PG_SIGNFLIP_MAX_DRAWS ? PG_SIGNFLIP_MAX_DRAWS : draws;
        r->bias = 1.0;
    }
    r->sum = malloc(r->total * sizeof *r->sum);
    r->size = malloc(r->total * sizeof *r->size);
    if (!r->sum || !r->size) {
        pg_signflip_ref_free(r);
        return NULL;
    }
    if (r->exact)
        build_exact(r, d);
    else
        build_monte_carlo(r, d, seed);
    return r;
}

void pg_signflip_ref_free(pg_signflip_ref *r)
{
    if (!r)
        return;
    free(r->sum);
    free(r->size);
    free(r);
}

double pg_signflip_ref_min_p(const pg_signflip_ref *r)
{
    if (!r || !r->finite)
        return 1.0;
    return (r->bias + (double)r->empties) / (r->bias + (double)r->total);
}

static double tie_tolerance(const pg_signflip_ref *r, double mu0)
{
    return PG_TIE_REL * (r->abs_sum + (double)r->n * fabs(mu0));
}

/* upper: count sets with Σ_F(d − mu0) <= tol (T* >= T); else Σ_F(d − mu0) >= −tol (T* <= T). */
static pg_signflip_result query(const pg_signflip_ref *r, double mu0, bool upper)
{
    if (!r)
        return (pg_signflip_result){1.0, NAN, 0, false}; /* never a false rejection */
    pg_signflip_result out = {NAN, NAN, r->total, r->exact};
    if (!r->finite || !isfinite(mu0))
        return out;
    out.statistic = r->mean - mu0;
    double tol = tie_tolerance(r, mu0);
    size_t count = 0;
    if (upper) {
        for (size_t j = 0; j < r->total; j++)
            count += (r->sum[j] - mu0 * (double)r->size[j] <= tol);
    } else {
        for (size_t j = 0; j < r->total; j++)
            count += (r->sum[j] - mu0 * (double)r->size[j] >= -tol);
    }
    out.p_value = (r->bias + (double)count) / (r->bias + (double)r->total);
    return out;
}

pg_signflip_result pg_signflip_ref_greater(const pg_signflip_ref *r, double mu0)
{
    return query(r, mu0, true);
}

pg_signflip_result pg_signflip_ref_less(const pg_signflip_ref *r, double mu0)
{
    return query(r, mu0, false);
}

/* k-th smallest (0-based) of a[0..n), n >= 1; reorders a (Hoare's FIND). */
static double select_kth(double *a, long n, long k)
{
    long lo = 0, hi = n - 1;
    while (lo < hi) {
        double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        long i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k]; /* between the partitions every element equals the pivot */
    }
    return a[k];
}

static double subset_mean(const pg_signflip_ref *r, size_t j)
{
    return r->sum[j] / (double)r->size[j];
}

/* All subset means of non-empty sets into means[0..m) (m = total − empties). */
static void all_means(const pg_signflip_ref *r, double *means)
{
    size_t k = 0;
    for (size_t j = 0; j < r->total; j++)
        if (r->size[j] > 0)
            means[k++] = subset_mean(r, j);
}

/* The rank-th smallest (lo) and rank-th largest (hi) subset means, 1-based, m >= 1.
 * Large sets: a sample of the means brackets each target (Floyd & Rivest 1975, Comm. ACM
 * 18:165); one pass counts what lies below / above the brackets and gathers the brackets, which
 * are searched exactly. A missed bracket falls back to selecting in all the means. */
static void select_bounds(const pg_signflip_ref *r, long m, long rank, double *means,
                          double *lo, double *hi)
{
    enum { NS = 512 };
    if (m >= 16 * NS) {
        double sample[NS];
        for (long i = 0; i < NS; i++) {
            size_t j = (size_t)(splitmix64_at(0x5EED, (uint64_t)i) % r->total);
            while (r->size[j] == 0)
                j = (j + 1) % r->total;
            sample[i] = subset_mean(r, j);
        }
        double q = (double)rank / (double)m;
        long at = (long)(q * NS), gap = (long)(4.0 * sqrt(NS * q * (1.0 - q))) + 2;
        /* lower target inside [t0, t1], upper target inside [t2, t3] (sample ranks) */
        double t0 = at - gap < 0 ? -INFINITY : select_kth(sample, NS, at - gap);
        double t1 = at + gap >= NS ? INFINITY : select_kth(sample, NS, at + gap);
        double t2 = NS - 1 - at - gap < 0 ? -INFINITY : select_kth(sample, NS, NS - 1 - at - gap);
        double t3 = NS - 1 - at + gap >= NS ? INFINITY : select_kth(sample, NS, NS - 1 - at + gap);
        if (t1 < t2) { /* disjoint brackets: gather both into means[] from either end */
            long below = 0, above = 0, nlo = 0, nhi = 0;
            for (size_t j = 0; j < r->total; j++) {
                if (r->size[j] == 0)
                    continue;
                /* classified by sum against threshold·size: no division outside the brackets */
                double sm = r->sum[j], sz = (double)r->size[j];
                if (sm < t0 * sz)
                    below++;
                else if (sm <= t1 * sz)
                    means[nlo++] = sm / sz;
                else if (sm > t3 * sz)
                    above++;
                else if (sm >= t2 * sz)
                    means[m - 1 - nhi++] = sm / sz;
            }
            long klo = rank - 1 - below, khi = rank - 1 - above; /* khi: from the top */
            if (klo >= 0 && klo < nlo && khi >= 0 && khi < nhi) {
                *lo = select_kth(means, nlo, klo);
                *hi = select_kth(means + m - nhi, nhi, nhi - 1 - khi);
                return;
            }
        }
    }
    all_means(r, means);
    *lo = select_kth(means, m, rank - 1);
    *hi = select_kth(means, m, m - rank);
}

void pg_signflip_ref_ci(const pg_signflip_ref *r, double confidence, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (!r)
        return;
    if (!r->finite || !(confidence > 0.0 && confidence < 1.0)) {
        *lo = *hi = NAN;
        return;
    }
    double a = (1.0 - confidence) / 2.0, denom = r->bias + (double)r->total;
    /* C: the largest count N with p = (bias + N) / denom <= a, tested exactly as the p-value is.
     * A bound mu0 is rejected when N(mu0) = empties + #{non-empty F: mean_F <= mu0} <= C. */
    double start = floor(a * denom - r->bias);
    long c = (long)start;
    while ((r->bias + (double)(c + 1)) / denom <= a)
        c++;
    while (c >= 0 && (r->bias + (double)c) / denom > a)
        c--;
    long rank = c - (long)r->empties + 1; /* 1-based rank of the bound among the subset means */
    long m = (long)(r->total - r->empties);
    if (rank < 1 || m < 1)
        return; /* too few assignments for this level: nothing is rejected */
    if (rank > m)
        rank = m;
    double *means = malloc((size_t)m * sizeof *means);
    if (!means)
        return;
    select_bounds(r, m, rank, means, lo, hi);
    free(means);
}

/* One test of d against mu0 through a reference distribution built for it alone (freed here):
 * the one-shot form of test, which is pg_signflip_ref_greater or pg_signflip_ref_less. */
static pg_signflip_result one_shot(const double *d, size_t n, double mu0, uint64_t seed,
                                   size_t draws,
                                   pg_signflip_result (*test)(const pg_signflip_ref *, double))
{
    pg_signflip_result out = {1.0, NAN, 1, true};
    if (n == 0)
        return out;
    pg_signflip_ref *r = pg_signflip_ref_new(d, n, PG_SIGNFLIP_EXACT_MAX, seed, draws);
    if (!r) {
        out.assignments = 0;
        out.exact = false;
        return out;
    }
    out = test(r, mu0);
    pg_signflip_ref_free(r);
    return out;
}

pg_signflip_result pg_signflip_greater(const double *d, size_t n, double mu0, uint64_t seed,
                                       size_t draws)
{
    return one_shot(d, n, mu0, seed, draws, pg_signflip_ref_greater);
}

pg_signflip_result pg_signflip_less(const double *d, size_t n, double mu0, uint64_t seed,
                                    size_t draws)
{
    return one_shot(d, n, mu0, seed, draws, pg_signflip_ref_less);
}

void pg_signflip_ci(const double *d, size_t n, double confidence, uint64_t seed, size_t draws,
                    double *lo, double *hi)
{
    pg_signflip_ref *r = pg_signflip_ref_new(d, n, PG_SIGNFLIP_EXACT_MAX, seed, draws);
    pg_signflip_ref_ci(r, confidence, lo, hi);
    pg_signflip_ref_free(r);
}
