/* The three-zone verdict at group-sequential looks, Holm across a run (see comparison.h). */
#include "comparison.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "holm.h"
#include "signflip.h"

const char *pg_cmp_verdict_name(pg_cmp_verdict v)
{
    switch (v) {
    case PG_CMP_PASS: return "PASS";
    case PG_CMP_FAIL: return "FAIL";
    case PG_CMP_INCONCLUSIVE: return "INCONCLUSIVE";
    case PG_CMP_FAST: return "FAST";
    }
    return "?";
}

double pg_cmp_default_delta(double baseline_ms)
{
    if (!(baseline_ms > 0.0))
        return NAN;
    if (baseline_ms >= 0.1)
        return 0.01;
    if (baseline_ms >= 0.02)
        return 0.02;
    return 0.05;
}

void pg_cmp_config_default(pg_cmp_config *c, double delta)
{
    memset(c, 0, sizeof *c);
    c->lambda = log1p(delta);
    c->fast_lambda = -c->lambda;
    c->alpha = 0.01;
    c->looks[0] = 16;
    c->looks[1] = 32;
    c->looks[2] = 64;
    c->n_looks = 3;
    c->seed = 0x7074786761746521ULL; /* "ptxgate!" */
    c->mc_draws = 20000;
    c->confidence = 0.95;
    c->mde_power = 0.8;
}

void pg_cmp_config_min_speedup(pg_cmp_config *c, double min_speedup, double delta)
{
    pg_cmp_config_default(c, delta);
    c->lambda = -log(min_speedup);
    c->fast_lambda = c->lambda - log1p(delta);
}

double pg_cmp_comparison_alpha(double run_alpha, size_t m)
{
    return run_alpha / (double)(m ? m : 1);
}

static bool config_valid(const pg_cmp_config *c)
{
    if (!c || c->n_looks < 1 || c->n_looks > PG_CMP_MAX_LOOKS || !(c->alpha > 0.0) ||
        !(c->alpha < 1.0) || isnan(c->lambda) || isnan(c->fast_lambda))
        return false;
    for (int k = 0; k < c->n_looks; k++)
        if (c->looks[k] < 1 || (k > 0 && c->looks[k] <= c->looks[k - 1]) ||
            !(c->spend[k] >= 0.0) || isinf(c->spend[k]))
            return false;
    return true;
}

double pg_cmp_alpha_at_look(const pg_cmp_config *c, int k)
{
    if (!config_valid(c) || k < 0 || k >= c->n_looks)
        return NAN;
    double total = 0.0;
    for (int j = 0; j < c->n_looks; j++)
        total += c->spend[j];
    if (total == 0.0)
        return c->alpha / (double)c->n_looks;
    return c->alpha * c->spend[k] / (total > 1.0 ? total : 1.0);
}

size_t pg_cmp_mc_draws(const pg_cmp_config *c, int k)
{
    double a = pg_cmp_alpha_at_look(c, k);
    double want = a > 0.0 ? ceil(PG_CMP_MC_MIN_EXCEED / a) : (double)PG_SIGNFLIP_MAX_DRAWS;
    if (c && want < (double)c->mc_draws)
        want = (double)c->mc_draws;
    if (want > (double)PG_SIGNFLIP_MAX_DRAWS)
        want = (double)PG_SIGNFLIP_MAX_DRAWS;
    return want < 1.0 ? 1 : (size_t)want;
}

/* Continued fraction of the incomplete beta (modified Lentz; Numerical Recipes §6.4). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        c = 1.0 + aa / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        c = 1.0 + aa / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_cf(a, b, x) / a;
    return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

/* P(T > t) for t >= 0. */
static double t_upper_tail(double t, double df)
{
    return 0.5 * beta_inc(df / 2.0, 0.5, df / (df + t * t));
}

double pg_cmp_t_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || !(df > 0.0) || isinf(df))
        return NAN;
    if (p == 0.5)
        return 0.0;
    if (p < 0.5)
        return -pg_cmp_t_quantile(1.0 - p, df);
    double tail = 1.0 - p, lo = 0.0, hi = 1.0;
    while (t_upper_tail(hi, df) > tail && hi < 1e300)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_upper_tail(mid, df) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double pg_cmp_mde_ratio(double lambda, double sd, size_t n, double alpha, double power)
{
    if (n < 2 || !isfinite(sd) || sd < 0.0 || !(alpha > 0.0 && alpha < 1.0) ||
        !(power > 0.0 && power < 1.0))
        return INFINITY;
    double df = (double)(n - 1);
    double k = pg_cmp_t_quantile(1.0 - alpha, df) + pg_cmp_t_quantile(power, df);
    return exp(lambda + k * sd / sqrt((double)n));
}

static void mean_sd(const double *d, size_t n, double *mean, double *sd)
{
    double s = 0.0;
    for (size_t b = 0; b < n; b++)
        s += d[b];
    *mean = s / (double)n;
    double ss = 0.0;
    for (size_t b = 0; b < n; b++)
        ss += (d[b] - *mean) * (d[b] - *mean);
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/* Lag-1 autocorrelation and skewness g1 of d (see comparison.h). */
static void shape(const double *d, size_t n, double mean, double *acf1, double *skew)
{
    *acf1 = *skew = NAN;
    if (n < 3)
        return;
    double m2 = 0.0, m3 = 0.0, lag = 0.0;
    for (size_t b = 0; b < n; b++) {
        double e = d[b] - mean;
        m2 += e * e;
        m3 += e * e * e;
        if (b + 1 < n)
            lag += e * (d[b + 1] - mean);
    }
    if (!(m2 > 0.0))
        return;
    *acf1 = lag / m2;
    m2 /= (double)n;
    m3 /= (double)n;
    *skew = m3 / (m2 * sqrt(m2));
}

static pg_cmp_result undecided(size_t n, int look)
{
    pg_cmp_result r;
    memset(&r, 0, sizeof r);
    r.verdict = PG_CMP_INCONCLUSIVE;
    r.blocks = n;
    r.look = look;
    r.alpha_look = r.mean_log_ratio = r.sd_log_ratio = r.acf1_log_ratio = r.skew_log_ratio = NAN;
    r.ratio_estimate = r.ratio_ci_low = r.ratio_ci_high = NAN;
    r.p_fail = r.p_pass = r.p_fast = r.p_fail_seq = 1.0;
    r.mde_ratio = INFINITY;
    return r;
}

/* p_fail of the look-j prefix, as pg_cmp_evaluate computed it at that look. */
static double prefix_p_fail(const double *d, size_t n, const pg_cmp_config *c, int j)
{
    pg_signflip_ref *ref =
        pg_signflip_ref_new(d, n, PG_SIGNFLIP_EXACT_MAX, c->seed, pg_cmp_mc_draws(c, j));
    if (!ref)
        return 1.0;
    double p = pg_signflip_ref_greater(ref, c->lambda).p_value;
    pg_signflip_ref_free(ref);
    return p;
}

pg_cmp_result pg_cmp_evaluate(const double *d, size_t n, const pg_cmp_config *c, int look)
{
    pg_cmp_result r = undecided(n, look);
    if (n == 0 || !config_valid(c) || look < 0 || look >= c->n_looks)
        return r;
    double alpha_k = pg_cmp_alpha_at_look(c, look);
    pg_signflip_ref *ref =
        pg_signflip_ref_new(d, n, PG_SIGNFLIP_EXACT_MAX, c->seed, pg_cmp_mc_draws(c, look));
    if (!ref)
        return r;

    r.alpha_look = alpha_k;
    mean_sd(d, n, &r.mean_log_ratio, &r.sd_log_ratio);
    shape(d, n, r.mean_log_ratio, &r.acf1_log_ratio, &r.skew_log_ratio);
    r.ratio_estimate = exp(r.mean_log_ratio);
    pg_signflip_result fail = pg_signflip_ref_greater(ref, c->lambda);
    r.p_fail = fail.p_value;
    r.p_pass = pg_signflip_ref_less(ref, c->lambda).p_value;
    r.p_fast = pg_signflip_ref_less(ref, c->fast_lambda).p_value;
    r.assignments = fail.assignments;
    r.exact = fail.exact;
    double lo, hi;
    pg_signflip_ref_ci(ref, c->confidence, &lo, &hi);
    r.ratio_ci_low = exp(lo);
    r.ratio_ci_high = exp(hi);
    r.mde_ratio = pg_signflip_ref_min_p(ref) > alpha_k
                      ? INFINITY
                      : pg_cmp_mde_ratio(c->lambda, r.sd_log_ratio, n, alpha_k, c->mde_power);
    pg_signflip_ref_free(ref);

    /* Sequential p-value: union bound over the looks so far (see comparison.h). */
    double seq = r.p_fail / (alpha_k / c->alpha);
    for (int j = 0; j < look; j++) {
        size_t nj = (size_t)c->looks[j] < n ? (size_t)c->looks[j] : n;
        double pj = prefix_p_fail(d, nj, c, j) / (pg_cmp_alpha_at_look(c, j) / c->alpha);
        if (pj < seq)
            seq = pj;
    }
    r.p_fail_seq = seq < 1.0 ? seq : isnan(seq) ? NAN : 1.0;

    if (r.p_fail <= alpha_k)
        r.verdict = PG_CMP_FAIL;
    else if (r.p_fast <= alpha_k)
        r.verdict = PG_CMP_FAST;
    else if (r.p_pass <= alpha_k)
        r.verdict = PG_CMP_PASS;
    return r;
}

bool pg_cmp_decisive(const pg_cmp_result *r)
{
    return r->verdict == PG_CMP_FAIL || r->verdict == PG_CMP_PASS || r->verdict == PG_CMP_FAST;
}

pg_cmp_result pg_cmp_sequential(const double *d, size_t n, const pg_cmp_config *c)
{
    pg_cmp_result r = undecided(n, 0);
    if (!config_valid(c))
        return r;
    for (int k = 0; k < c->n_looks; k++) {
        size_t nk = (size_t)c->looks[k] < n ? (size_t)c->looks[k] : n;
        r = pg_cmp_evaluate(d, nk, c, k);
        if (pg_cmp_decisive(&r) || nk == n)
            break;
    }
    return r;
}

size_t pg_cmp_holm_finalize(pg_cmp_result *results, size_t m, double run_alpha)
{
    if (m == 0)
        return 0;
    double *p = malloc(m * sizeof *p);
    bool *reject = malloc(m * sizeof *reject);
    if (p && reject) {
        for (size_t i = 0; i < m; i++)
            p[i] = results[i].p_fail_seq;
        pg_holm(p, m, run_alpha, reject);
    }
    size_t fails = 0;
    for (size_t i = 0; i < m; i++) {
        pg_cmp_result *r = &results[i];
        /* Without memory, Bonferroni: its rejections are a subset of Holm's. */
        bool rej = reject && p ? reject[i] : r->p_fail_seq <= run_alpha / (double)m;
        if (r->verdict == PG_CMP_FAIL && !rej) {
            r->verdict = PG_CMP_INCONCLUSIVE;
            r->holm_changed = true;
        } else if (r->verdict == PG_CMP_INCONCLUSIVE && rej) {
            r->verdict = PG_CMP_FAIL;
            r->holm_changed = true;
        }
        fails += r->verdict == PG_CMP_FAIL;
    }
    free(p);
    free(reject);
    return fails;
}

bool pg_cmp_canary_rejects(const pg_cmp_result *r)
{
    return r->verdict == PG_CMP_FAIL || r->verdict == PG_CMP_FAST;
}
