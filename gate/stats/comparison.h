/* The three-zone performance verdict of one comparison (candidate arm against a baseline arm)
 * from per-block log ratios d_b = ln(T_cand,b / T_base,b): FAIL, PASS, FAST or INCONCLUSIVE,
 * decided at group-sequential looks by sign-flip tests (signflip.h), with Holm's correction
 * across the comparisons of one run (holm.h). Pure functions over arrays; no device, no output.
 * The method, its error guarantees and their proofs: ../docs/statistics.md.
 *
 * Calling sequence for a run of m comparisons (every comparison, the regression check and the
 * vendor check alike; canaries are a separate family, see pg_cmp_canary_rejects):
 *     pg_cmp_config c;
 *     pg_cmp_config_default(&c, delta);          // or pg_cmp_config_min_speedup
 *     c.alpha = pg_cmp_comparison_alpha(0.01, m); // run-level false-FAIL rate 1 %
 *     c.seed = <logged seed>;
 *     for each look k while the blocks last:
 *         measure blocks up to c.looks[k]; r = pg_cmp_evaluate(d, c.looks[k], &c, k);
 *         if (pg_cmp_decisive(&r)) break;
 *     ... after all m comparisons: pg_cmp_holm_finalize(results, m, 0.01); */
#ifndef PG_STATS_COMPARISON_H
#define PG_STATS_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PG_CMP_MAX_LOOKS 8
/* Monte Carlo looks draw at least this many assignments per unit of 1/alpha_look, so that a
 * p-value at the look's level is reachable with room to spare (p >= 1 / (1 + draws)). */
#define PG_CMP_MC_MIN_EXCEED 10.0

typedef enum { PG_CMP_PASS, PG_CMP_FAIL, PG_CMP_INCONCLUSIVE, PG_CMP_FAST } pg_cmp_verdict;

/* "PASS", "FAIL", "INCONCLUSIVE", "FAST"; "?" for a value outside the enum. Static storage. */
const char *pg_cmp_verdict_name(pg_cmp_verdict v);

/* Default tolerance δ (a fraction) for a baseline median time in ms: 0.01 for >= 0.1 ms,
 * 0.02 for [0.02, 0.1) ms, 0.05 below 0.02 ms. The first two are issue 4's; the last is ours:
 * under 20 µs the events carry several µs of launch overhead (measurements on the H200 test machine: a
 * 4 MiB kernel read ~8 µs by events and ~0.6 µs by CUPTI) and per-block noise grows from
 * ~0.13 % (>= 100 µs) and ~0.8 % (~40 µs) to several %, so a tighter default would leave most
 * short-kernel comparisons INCONCLUSIVE. Tasks set their own. NaN or <= 0 gives NaN. */
double pg_cmp_default_delta(double baseline_ms);

typedef struct {
    /* FAIL threshold in log units: ln(1 + δ) for a regression check; ln(1 / min_speedup) for a
     * check against the vendor library. */
    double lambda;
    /* FAST threshold, log units, < lambda: FAST when E[d] < fast_lambda is shown. Default
     * −ln(1 + δ) (faster beyond tolerance); −INFINITY never reports FAST. */
    double fast_lambda;
    /* Per-comparison level, split over the looks (pg_cmp_alpha_at_look). For a run of m
     * comparisons use pg_cmp_comparison_alpha(run_alpha, m); pg_cmp_holm_finalize then holds
     * the run's false-FAIL rate at run_alpha. Default 0.01 (a run of one comparison). */
    double alpha;
    int looks[PG_CMP_MAX_LOOKS]; /* block counts of the looks, increasing; default {16, 32, 64} */
    int n_looks;
    /* Fraction of alpha spent at each look; all zero (the default) = equal split. Fractions
     * summing to more than 1 are scaled down to sum to 1. */
    double spend[PG_CMP_MAX_LOOKS];
    uint64_t seed;   /* Monte Carlo looks (n > PG_SIGNFLIP_EXACT_MAX); log it */
    size_t mc_draws; /* at least this many draws; raised per look by PG_CMP_MC_MIN_EXCEED */
    double confidence; /* of the reported interval, default 0.95 */
    double mde_power;  /* of the reported minimum detectable effect, default 0.8 */
} pg_cmp_config;

/* Defaults for tolerance δ (fraction, e.g. 0.01): lambda = ln(1 + δ), fast_lambda = −lambda,
 * alpha 0.01, looks {16, 32, 64}, equal spending, seed 0x7074786761746521, mc_draws 20000,
 * confidence 0.95, mde_power 0.8. */
void pg_cmp_config_default(pg_cmp_config *c, double delta);
/* The vendor-library check: as pg_cmp_config_default(c, delta), then lambda = ln(1/min_speedup)
 * (FAIL when the candidate is shown slower than baseline/min_speedup) and fast_lambda =
 * lambda − ln(1 + δ) (FAST when shown faster than the requirement by more than δ). */
void pg_cmp_config_min_speedup(pg_cmp_config *c, double min_speedup, double delta);

/* run_alpha / m (m >= 1): the per-comparison alpha for which every FAIL reached at a look
 * survives the run's Holm step (Bonferroni is Holm's first step). */
double pg_cmp_comparison_alpha(double run_alpha, size_t m);

/* Level spent at look k (0-based): alpha·w_k with w_k = 1/n_looks, or spend[k]/max(1, Σ spend).
 * Σ_k w_k <= 1, so by the union bound the chance that any look rejects a true hypothesis is
 * <= Σ_k alpha·w_k <= alpha whatever the dependence between looks and whatever the stopping
 * rule. NaN for k outside [0, n_looks) or an invalid config. */
double pg_cmp_alpha_at_look(const pg_cmp_config *c, int k);
/* Monte Carlo draws used at look k: max(mc_draws, ceil(PG_CMP_MC_MIN_EXCEED / alpha_at_look)),
 * at most PG_SIGNFLIP_MAX_DRAWS. (Exact looks do not draw.) */
size_t pg_cmp_mc_draws(const pg_cmp_config *c, int k);

/* Quantile of Student's t with df > 0 degrees of freedom (0 < p < 1), by bisection on the CDF
 * 1 − ½·I_{df/(df+t²)}(df/2, ½) with the regularized incomplete beta from its continued
 * fraction (Numerical Recipes 3rd ed. §6.4); |error| < 1e-9. NaN outside the domain. */
double pg_cmp_t_quantile(double p, double df);

/* Minimum detectable slowdown ratio T_cand/T_base: the true ratio that the FAIL test at one-sided
 * level alpha detects with probability `power` given n blocks of standard deviation sd (log
 * units): exp(lambda + (t_{1−alpha, n−1} + t_{power, n−1})·sd/√n). The one-sample
 * non-inferiority sample-size formula (Chow, Shao & Wang, Sample Size Calculations in Clinical
 * Research, 2nd ed., §3.1) with t quantiles for small n; the sign-flip test's power approaches the
 * t-test's (Lehmann & Romano, Testing Statistical Hypotheses, §5.8). INFINITY for n < 2 or a
 * non-finite sd. */
double pg_cmp_mde_ratio(double lambda, double sd, size_t n, double alpha, double power);

typedef struct {
    pg_cmp_verdict verdict;
    size_t blocks;      /* n */
    int look;           /* 0-based look index */
    double alpha_look;  /* level used at this look */
    double mean_log_ratio; /* mean of d */
    double sd_log_ratio;   /* sample standard deviation of d (n − 1); NaN for n < 2 */
    /* Diagnostics of the test's two assumptions (NaN for n < 3 or no spread), for reports and
     * monitoring; they do not change the verdict. Lag-1 autocorrelation of d in measurement
     * order, Σ(d_b − m)(d_{b+1} − m) / Σ(d_b − m)²: blocks must be independent, and serial
     * correlation inflates the false-FAIL rate (0.5 gave 13 % instead of <= 1 % in
     * docs/statistics.md); beyond ±2/√n it is unlikely under independence (Bartlett).
     * Sample skewness g1 = m3 / m2^1.5: d must be symmetric under H0; |g1| near 2 (exponential
     * noise) gave 5.7 % instead of <= 1 %. */
    double acf1_log_ratio;
    double skew_log_ratio;
    double ratio_estimate, ratio_ci_low, ratio_ci_high; /* exp of mean and of the sign-flip
                                                           interval: T_cand/T_base */
    double p_fail; /* H0: E[d] <= lambda (small -> FAIL) */
    double p_pass; /* H0: E[d] >= lambda (small -> PASS: non-inferior) */
    double p_fast; /* H0: E[d] >= fast_lambda (small -> FAST) */
    /* Look-adjusted FAIL p-value over the looks so far: min_{j <= look} p_fail,j / w_j, capped
     * at 1 (p_fail,j recomputed on the prefix of the blocks at look j). Valid for any stopping
     * rule; the input of pg_cmp_holm_finalize. FAIL at this look implies p_fail_seq <= alpha. */
    double p_fail_seq;
    /* Minimum detectable slowdown ratio at this n, level alpha_look, power mde_power, from
     * sd_log_ratio (pg_cmp_mde_ratio); INFINITY when no p-value at this n can reach alpha_look
     * (2^-n > alpha_look when exact). */
    double mde_ratio;
    size_t assignments; /* sign assignments behind the p-values (2^n or the draws) */
    bool exact;
    bool holm_changed;  /* the verdict was changed by pg_cmp_holm_finalize */
} pg_cmp_result;

/* Decide at look `look` (0-based) from the blocks d[0..n) in measurement order (n normally
 * c->looks[look]): FAIL if p_fail <= alpha_look; else FAST if p_fast <= alpha_look; else PASS if
 * p_pass <= alpha_look; else INCONCLUSIVE. Earlier looks are recomputed on the prefixes
 * d[0..min(looks[j], n)) for p_fail_seq, so they must be the blocks those looks saw. Invalid
 * input (n == 0, look out of range, bad config) or failed allocation gives INCONCLUSIVE with
 * p-values 1 and NaN estimates; non-finite d gives NaN p-values, hence INCONCLUSIVE. */
pg_cmp_result pg_cmp_evaluate(const double *d, size_t n, const pg_cmp_config *c, int look);

/* FAIL, PASS or FAST: the sequential stop rule (stop the comparison at its first decisive look). */
bool pg_cmp_decisive(const pg_cmp_result *r);

/* All looks over already measured blocks d[0..n): evaluates look k on min(looks[k], n) blocks
 * in order and returns the first decisive result, or the last one evaluated. For simulations
 * and re-analysis; the gate itself measures between looks. */
pg_cmp_result pg_cmp_sequential(const double *d, size_t n, const pg_cmp_config *c);

/* The run-level step: Holm at level run_alpha over the m comparisons' p_fail_seq. A FAIL whose
 * hypothesis Holm does not reject becomes INCONCLUSIVE; an INCONCLUSIVE whose hypothesis Holm
 * rejects becomes FAIL (possible only when the comparisons ran at alpha < run_alpha, e.g.
 * run_alpha/m); PASS and FAST are kept. Changed results get holm_changed. Since the final FAIL set
 * is a subset of Holm's rejections of valid p-values, P(any false FAIL in the run) <= run_alpha.
 * Returns the number of FAIL verdicts after the step. */
size_t pg_cmp_holm_finalize(pg_cmp_result *results, size_t m, double run_alpha);

/* The A/A canary (issue 4 item 7): a baseline compared with itself through the same config and
 * looks. It rejects, meaning the run is INFRASTRUCTURE, when the harness produced a decisive
 * non-PASS verdict between identical arms: FAIL or FAST. With identical arms E[d] = 0, so each
 * rejection has probability <= alpha_look at its look and <= 2·alpha over the looks; give the
 * canaries of a run their own family alpha (e.g. canary_alpha / (2·canaries)). */
bool pg_cmp_canary_rejects(const pg_cmp_result *r);

#endif
