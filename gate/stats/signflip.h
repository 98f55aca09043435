/* One-sided sign-flip randomization tests for the mean of per-block log ratios
 * d_b = ln(T_cand,b / T_base,b), and the confidence interval obtained by inverting them.
 *
 * The test (Fisher 1935, The Design of Experiments §21; Pitman 1937): under the null hypothesis
 * at its boundary, d_b − mu0 is symmetric about 0, so every assignment of signs to the n values
 * is equally likely. With x_b = d_b − mu0 and T = mean(x), flipping the blocks of a set F gives
 * T* = T − (2/n)·Σ_{b∈F} x_b. Hence
 *     T* >= T  exactly when  Σ_{b∈F} x_b <= 0,  i.e. when mean(d over F) <= mu0 (F non-empty),
 * and the reference set of 2^n assignments is the set of 2^n subsets F (the empty one is the
 * observed assignment). The confidence interval that inverts these tests is therefore bounded
 * by order statistics of the 2^n − 1 subset means, Hartigan's "typical values" (Hartigan 1969,
 * JASA 64:1303–1317), so it is computed exactly by selection, not by a root search.
 *
 * Exact enumeration for n <= PG_SIGNFLIP_EXACT_MAX; above it a Monte Carlo sample of `draws`
 * assignments with p = (1 + #{T* >= T}) / (1 + draws), which is a valid p-value for any draws
 * (Davison & Hinkley 1997, Bootstrap Methods, eq. 4.11; Phipson & Smyth 2010). The draws come
 * from a counter-based generator: the w-th 64-bit word is SplitMix64's output
 * mix((seed ^ 0x5349474E464C4950) + (w + 1)·0x9E3779B97F4A7C15) (Steele, Lea & Flood 2014; the
 * constant is "SIGNFLIP", separating this stream from other users of the seed), draw j uses words
 * j·W .. j·W + W − 1 with W = ceil(n / 64), and bit b of the draw flips block b. So a logged seed
 * reproduces every p-value bit for bit on any machine.
 *
 * Ties: Σ_F x_b within 1e-12·(Σ|d_b| + n·|mu0|) of 0 counts as a tie, which counts as
 * "at least as extreme" (conservative; timings quantised by the event timer produce real ties).
 * Non-finite input gives NaN p-values and NaN bounds. Pure functions; nothing is printed. */
#ifndef PG_STATS_SIGNFLIP_H
#define PG_STATS_SIGNFLIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest n enumerated exactly by the convenience functions below (2^20 assignments, 12 MiB). */
#define PG_SIGNFLIP_EXACT_MAX 20
/* Hard limit on exact enumeration through pg_signflip_ref_new (2^24 assignments, 192 MiB). */
#define PG_SIGNFLIP_EXACT_LIMIT 24
/* Hard limit on Monte Carlo draws (48 MiB of reference set). */
#define PG_SIGNFLIP_MAX_DRAWS ((size_t)1 << 22)

typedef struct {
    double p_value;     /* in (0, 1]; NaN for non-finite input */
    double statistic;   /* mean(d) − mu0 (log units); NaN when n == 0 */
    size_t assignments; /* 2^n when exact, the number of Monte Carlo draws otherwise */
    bool exact;         /* enumerated every sign assignment */
} pg_signflip_result;

/* H0: E[d] <= mu0 against H1: E[d] > mu0; p = P(T* >= T). Exact for n <= PG_SIGNFLIP_EXACT_MAX,
 * else Monte Carlo with `draws` assignments (clamped to [1, PG_SIGNFLIP_MAX_DRAWS]) from `seed`.
 * d[0..n) is read, not kept. n == 0 gives p = 1. If memory for the reference set cannot be
 * allocated, p = 1 and assignments = 0 (never a false rejection). */
pg_signflip_result pg_signflip_greater(const double *d, size_t n, double mu0, uint64_t seed,
                                       size_t draws);
/* H0: E[d] >= mu0 against H1: E[d] < mu0; p = P(T* <= T). Otherwise as pg_signflip_greater. */
pg_signflip_result pg_signflip_less(const double *d, size_t n, double mu0, uint64_t seed,
                                    size_t draws);

/* Interval [*lo, *hi] for E[d] (log units) of the mu0 that neither one-sided test rejects at
 * level (1 − confidence)/2, so its coverage is >= confidence under the symmetry assumption.
 * *lo is the smallest mu0 that pg_signflip_greater does not reject, *hi the largest that
 * pg_signflip_less does not reject (each found exactly as a subset mean, see above). When n is
 * too small for the level (2^-n > (1 − confidence)/2 when exact) the bound is ∓INFINITY. The
 * exact interval always contains mean(d). n == 0 or allocation failure: (−INFINITY, INFINITY). */
void pg_signflip_ci(const double *d, size_t n, double confidence, uint64_t seed, size_t draws,
                    double *lo, double *hi);

/* --- The reference set, for callers that test several mu0 on the same blocks (the
 * comparison tests three hypotheses and inverts two): built once, queried in O(assignments). */
typedef struct pg_signflip_ref pg_signflip_ref;

/* Builds the reference set of d[0..n): exact when n <= exact_max (capped at
 * PG_SIGNFLIP_EXACT_LIMIT), else `draws` Monte Carlo assignments from `seed` (draws clamped as
 * above). d is read, not kept (the set stores subset sums and sizes, 12 bytes per assignment).
 * Returns NULL when memory cannot be allocated or n == 0; the caller owns the result and frees
 * it with pg_signflip_ref_free. The queries below are the functions above on this set: same
 * p-values, same bounds; a NULL set gives p = 1 and (−INFINITY, INFINITY). */
pg_signflip_ref *pg_signflip_ref_new(const double *d, size_t n, size_t exact_max, uint64_t seed,
                                     size_t draws);
void pg_signflip_ref_free(pg_signflip_ref *r); /* NULL is fine */
pg_signflip_result pg_signflip_ref_greater(const pg_signflip_ref *r, double mu0);
pg_signflip_result pg_signflip_ref_less(const pg_signflip_ref *r, double mu0);
void pg_signflip_ref_ci(const pg_signflip_ref *r, double confidence, double *lo, double *hi);
/* Smallest p-value the reference set can produce: 2^-n exact, (1 + draws that flip no block) /
 * (1 + draws) Monte Carlo. 1 for NULL. A level below it can never reject. */
double pg_signflip_ref_min_p(const pg_signflip_ref *r);

#endif
