/* The performance stage's decision: configurations, the stop rule and the verdict (see
 * perf_verdict.h). */
#include "perf_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "stats/signflip.h"

void pg_perf_configure(const pg_perf_settings *s, double probe_baseline_ms,
                       double probe_accepted_ms, pg_perf_configs *k)
{
    size_t m = (size_t)(s->n_comparisons > 0 ? s->n_comparisons : 1);
    uint64_t seed = s->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(s->workload + 1));
    k->delta = pg_cmp_default_delta(probe_baseline_ms);
    if (!isfinite(k->delta))
        k->delta = 0.05;
    pg_cmp_config_default(&k->canary, k->delta);
    k->canary.alpha = s->run_alpha / (2.0 * (double)m);
    pg_cmp_config_min_speedup(&k->main, s->min_speedup, k->delta);
    k->main.alpha = pg_cmp_comparison_alpha(s->run_alpha, m);
    if (s->reference_is_accepted)
        probe_accepted_ms = probe_baseline_ms;
    double dr = s->regression_tolerance > 0 ? s->regression_tolerance
                                            : pg_cmp_default_delta(probe_accepted_ms);
    k->delta_regression = isfinite(dr) ? dr : 0.05;
    pg_cmp_config_default(&k->regression, k->delta_regression);
    k->regression.alpha = k->main.alpha;
    if (s->reference_is_accepted) {
        double alpha = k->main.alpha;
        k->main = k->regression;
        k->main.alpha = alpha;
    }
    pg_cmp_config *all[3] = {&k->main, &k->canary, &k->regression};
    for (int i = 0; i < 3; i++) {
        all[i]->confidence = s->confidence;
        all[i]->seed = seed;
    }
}

bool pg_perf_look(const pg_perf_configs *k, const double *d_main, const double *d_canary,
                  const double *d_regression, size_t n, int look, pg_perf_comparisons *out)
{
    out->main = pg_cmp_evaluate(d_main, n, &k->main, look);
    out->canary = pg_cmp_evaluate(d_canary, n, &k->canary, look);
    bool regression_done = true;
    if (d_regression) {
        out->regression = pg_cmp_evaluate(d_regression, n, &k->regression, look);
        regression_done = pg_cmp_decisive(&out->regression);
    }
    return pg_cmp_decisive(&out->main) && regression_done && !pg_cmp_canary_rejects(&out->canary);
}

/* The stage's status and message; a message longer than the buffer is cut at a whole
 * character, as the stage record cuts its own. */
static void finish(pg_perf_verdict *v, pg_perf_outcome outcome, const char *status,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void finish(pg_perf_verdict *v, pg_perf_outcome outcome, const char *status,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(v->message, sizeof v->message, fmt, ap) >= (int)sizeof v->message)
        pg_utf8_trim_cut(v->message);
    va_end(ap);
    v->outcome = outcome;
    v->status = status;
}

/* One clause for the regression comparison, appended to the stage message. */
static void regression_text(const pg_perf_measurement *m, const pg_perf_configs *k, char *buf,
                            size_t n)
{
    const pg_cmp_result *r = &m->cmp.regression;
    if (!m->has_accepted)
        buf[0] = '\0';
    else if (m->accepted_identical)
        snprintf(buf, n, "; vs accepted kernel: PASS (SASS-identical: %s)",
                 m->accepted_identical_text);
    else if (!m->accepted_timed)
        snprintf(buf, n, "; vs accepted kernel: not compared (%s)", m->accepted_note);
    else
        snprintf(buf, n, "; vs accepted kernel: %s, time ratio %.4f [%.4f, %.4f], tolerance %.1f%%%s",
                 pg_cmp_verdict_name(r->verdict), r->ratio_estimate, r->ratio_ci_low,
                 r->ratio_ci_high, 100.0 * k->delta_regression,
                 r->verdict == PG_CMP_INCONCLUSIVE ? " (warning, not failing)" : "");
}

/* The numbers behind every verdict: speedup, looks, both medians and their rates. */
static void numbers_text(const pg_perf_settings *s, const pg_perf_configs *k,
                         const pg_perf_measurement *m, const pg_perf_verdict *v, char *buf,
                         size_t n)
{
    double tf_c = m->flop / (v->candidate.median * 1e-3) / 1e12;
    double tf_b = m->flop / (v->baseline.median * 1e-3) / 1e12;
    char against[96];
    if (s->reference_is_accepted)
        snprintf(against, sizeof against, "over %s, regression tolerance %.1f%%",
                 m->vendor_label, 100.0 * k->delta_regression);
    else
        snprintf(against, sizeof against, "vs min_speedup %.3g", s->min_speedup);
    snprintf(buf, n,
             "speedup %.3fx [%.3f, %.3f] %s after %d blocks (%s); candidate "
             "%.4f ms (%.1f TFLOP/s, %.0f %% of speed of light), %s %.4f ms (%.1f TFLOP/s)",
             v->speedup, v->speedup_ci_low, v->speedup_ci_high, against, m->blocks, m->mode,
             v->candidate.median, tf_c, 100.0 * v->floor_ms / v->candidate.median,
             m->vendor_label, v->baseline.median, tf_b);
}

/* The numbers of a completed measurement: summaries, the speed-of-light floor, the speedup and
 * its interval, the FAST test, and which comparisons fail and go to the Holm step. */
static void summarize(const pg_perf_settings *s, const pg_perf_configs *k,
                      const pg_perf_measurement *m, pg_perf_verdict *v)
{
    const pg_perf_comparisons *c = &m->cmp;
    pg_summarize(m->candidate_ms, m->n_samples, s->confidence, &v->candidate);
    pg_summarize(m->baseline_ms, m->n_samples, s->confidence, &v->baseline);
    if (m->accepted_ms)
        pg_summarize(m->accepted_ms, m->n_samples, s->confidence, &v->accepted);
    /* The vendor library itself bounds the reachable rate from below: never call it faster
     * than light. */
    double base_best_tflops = m->flop / (v->baseline.min * 1e-3) / 1e12;
    v->peak_tflops = m->peak_tflops;
    if (isfinite(base_best_tflops) && !(v->peak_tflops >= base_best_tflops))
        v->peak_tflops = base_best_tflops;
    v->floor_ms =
        fmax(m->flop / (v->peak_tflops * 1e12), m->bytes / (m->peak_write_gbps * 1e9)) * 1e3;
    v->implausible =
        isfinite(v->floor_ms) && v->candidate.median < v->floor_ms * (1.0 - PG_PERF_SOL_SLACK);
    v->speedup = 1.0 / c->main.ratio_estimate;
    v->speedup_ci_low = 1.0 / c->main.ratio_ci_high;
    v->speedup_ci_high = 1.0 / c->main.ratio_ci_low;
    v->faster_p = pg_signflip_less(m->d_main, (size_t)m->blocks, 0.0, k->main.seed,
                                   pg_cmp_mc_draws(&k->main, c->main.look))
                      .p_value;
    v->main_shown = c->main.verdict == PG_CMP_FAST ? PG_CMP_PASS : c->main.verdict;
    v->record_main = true;
    v->record_regression = m->accepted_timed;
    v->main_fail = c->main.verdict == PG_CMP_FAIL;
    v->regression_fail = m->accepted_timed && c->regression.verdict == PG_CMP_FAIL;
}

void pg_perf_decide(const pg_perf_settings *s, const pg_perf_configs *k,
                    const pg_perf_measurement *m, pg_perf_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (!m->completed) {
        char msg[2400];
        if (m->kernel_failed)
            finish(v, PG_PERF_KERNEL_FAILED, "fail", "kernel failed while timed: %s",
                   m->failure->message);
        else
            finish(v, PG_PERF_DEVICE_ERROR, "error", "%s",
                   pg_diag_format(m->failure, msg, sizeof msg));
        return;
    }
    summarize(s, k, m, v);
    const pg_perf_comparisons *c = &m->cmp;
    const char *L = m->vendor_label;
    char numbers[512], reg[400];
    numbers_text(s, k, m, v, numbers, sizeof numbers);
    regression_text(m, k, reg, sizeof reg);
    if (v->implausible)
        finish(v, PG_PERF_IMPLAUSIBLE, "fail",
               "IMPLAUSIBLE: the candidate's %.4f ms is below the speed-of-light floor "
               "%.4f ms (peak %.0f TFLOP/s, %.0f GB/s, less %.0f %% slack): a broken "
               "measurement or skipped work; %s",
               v->candidate.median, v->floor_ms, v->peak_tflops, m->peak_write_gbps,
               100 * PG_PERF_SOL_SLACK, numbers);
    else if (m->other_processes > 0)
        finish(v, PG_PERF_OTHER_PROCESSES, "error",
               "INFRASTRUCTURE: %d other compute process(es) ran on the GPU while "
               "timing; %s",
               m->other_processes, numbers);
    else if (pg_cmp_canary_rejects(&c->canary))
        finish(v, PG_PERF_CANARY_REJECTED, "error",
               "INFRASTRUCTURE: the A/A canary (%s against itself) differed by "
               "%.2f%% (p = %.3g): this machine is too noisy to judge; %s",
               L, 100.0 * (c->canary.ratio_estimate - 1.0), c->canary.p_fail, numbers);
    else if (v->main_fail || v->regression_fail)
        finish(v, PG_PERF_FAIL, "fail", "FAIL: %s%s%s%s%s", v->main_fail ? "" : "(vs ",
               v->main_fail ? "" : L, v->main_fail ? "" : " PASS) ", numbers, reg);
    else if (c->main.verdict == PG_CMP_INCONCLUSIVE)
        finish(v, PG_PERF_INCONCLUSIVE, "pass",
               "INCONCLUSIVE (warning, not failing): %s; smallest detectable slowdown "
               "%.2f%%%s",
               numbers, 100.0 * (c->main.mde_ratio - 1.0), reg);
    else if (v->faster_p <= k->main.alpha)
        finish(v, PG_PERF_FAST, "pass", "FAST (faster than %s): %s%s",
               s->reference_is_accepted ? m->vendor_label : "the library", numbers, reg);
    else
        finish(v, PG_PERF_PASS, "pass", "PASS: %s%s", numbers, reg);
}
