/* Wilcoxon's signed-rank test for paired differences d_i (here: log speedup NEW − log speedup
 * OLD per workload), H0: the d_i are symmetric about 0 (Wilcoxon, Biometrics Bulletin 1 (1945)
 * 80–83; Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., §3.1).
 * Zeros are dropped (Wilcoxon's own rule, scipy's zero_method="wilcox"); tied |d_i| get their
 * mean rank (midranks).
 *   - n <= PG_WILCOXON_EXACT_MAX nonzero differences: the exact permutation distribution of W+
 *     over the 2^n equally likely sign assignments given the (mid)ranks, by dynamic programming
 *     over doubled ranks (integers), so it stays exact with ties;
 *   - above: the normal approximation, mean n(n+1)/4, variance n(n+1)(2n+1)/24 − Σ(t³ − t)/48
 *     over tie groups of size t, with a continuity correction of 1/2 (as scipy.stats.wilcoxon
 *     with correction=True).
 * Pure functions, no allocation beyond the call. */
#ifndef PG_STATS_WILCOXON_H
#define PG_STATS_WILCOXON_H

#include <stdbool.h>
#include <stddef.h>

/* Largest number of nonzero differences for the exact distribution. */
#define PG_WILCOXON_EXACT_MAX 50

typedef struct {
    size_t n;          /* nonzero, finite differences used */
    size_t zeros;      /* differences equal to 0, dropped */
    size_t non_finite; /* NaN or infinite differences, dropped */
    bool ties;         /* some |d_i| tie (midranks used) */
    double w_plus;     /* sum of the ranks of positive d_i */
    double w_minus;    /* sum of the ranks of negative d_i; w_plus + w_minus = n(n+1)/2 */
    bool exact;        /* exact distribution (else normal approximation) */
    double z;          /* the normal approximation's statistic for W+ (NaN when exact) */
    double p_two_sided; /* 1 when n == 0 */
    double p_less;     /* H1: the d_i tend to be negative (small W+) */
    double p_greater;  /* H1: the d_i tend to be positive (large W+) */
} pg_wilcoxon_result;

/* The test on d[0..n) (n may be 0). The two-sided p-value is min(1, 2·min(p_less, p_greater)),
 * which for the exact distribution equals 2·P(W+ <= min(W+, W−)) (symmetry). Out of memory
 * gives NaN p-values. */
pg_wilcoxon_result pg_wilcoxon_signed_rank(const double *d, size_t n);

#endif
