/* The aggregates of the comparison model from its per-workload records (see compare.h): pass
 * rates and transitions per stage with McNemar's test, fast_p, geometric-mean speedups with
 * bootstrap intervals and Wilcoxon's test, per-task speedups, and the gate decision. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "stats/bootstrap.h"
#include "stats/mcnemar.h"
#include "stats/wilcoxon.h"

static const char *outcome(const json_t *rec, const char *side, const char *stage)
{
    const char *s = json_string_value(
        json_object_get(json_object_get(json_object_get(rec, side), "outcomes"), stage));
    return s ? s : "skipped";
}

static double speedup(const json_t *rec, const char *side)
{
    const json_t *v = json_object_get(json_object_get(rec, side), "speedup");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A side's outcome counts for one stage. The pass rate is over the judged outcomes only (pass
 * and fail): a stage skipped on a side (no disassembler, no GPU) or stopped by an
 * infrastructure error says nothing about the kernel, so it is left out of the rate instead of
 * counting as a failure; with nothing judged the rate is null. */
static json_t *side_counts(const json_t *records, const char *side, const char *stage)
{
    size_t n[4] = {0};
    static const char *const names[4] = {"pass", "fail", "error", "skipped"};
    size_t i;
    const json_t *rec;
    json_array_foreach(records, i, rec) {
        const char *o = outcome(rec, side, stage);
        for (int k = 0; k < 4; k++)
            n[k] += strcmp(o, names[k]) == 0;
    }
    size_t judged = n[0] + n[1];
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "pass", (json_int_t)n[0], "fail",
                     (json_int_t)n[1], "error", (json_int_t)n[2], "skipped", (json_int_t)n[3],
                     "judged", (json_int_t)judged, "pass_rate",
                     judged ? json_real((double)n[0] / (double)judged) : json_null());
}

static json_t *mcnemar_json(size_t worse, size_t better, double alpha)
{
    pg_mcnemar_result m = pg_mcnemar_exact(worse, better);
    return json_pack("{s:I, s:I, s:f, s:f, s:b, s:b}", "worse", (json_int_t)worse, "better",
                     (json_int_t)better, "p_value", m.p_two_sided, "p_worse", m.p_worse,
                     "significant_worse", m.p_two_sided <= alpha && worse > better,
                     "significant_better", m.p_two_sided <= alpha && better > worse);
}

static json_t *stages_json(const json_t *model, double alpha)
{
    const json_t *records = json_object_get(model, "workloads");
    json_t *out = json_array();
    size_t k;
    const json_t *name;
    json_array_foreach(json_object_get(model, "compared_stages"), k, name) {
        const char *stage = json_string_value(name);
        size_t reg = 0, fix = 0, other = 0, unjudged = 0, explained = 0, i, j;
        const json_t *rec, *ch, *nj;
        json_array_foreach(records, i, rec) {
            json_array_foreach(json_object_get(rec, "not_judged"), j, nj)
                unjudged += strcmp(json_string_value(nj), stage) == 0;
            json_array_foreach(json_object_get(rec, "changes"), j, ch) {
                if (strcmp(json_string_value(json_object_get(ch, "stage")), stage) != 0)
                    continue;
                const char *kind = json_string_value(json_object_get(ch, "kind"));
                reg += strcmp(kind, "regression") == 0;
                fix += strcmp(kind, "fix") == 0;
                other += strcmp(kind, "not_comparable") == 0;
                explained += json_array_size(json_object_get(ch, "explained_by")) > 0;
            }
        }
        json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o}",
                                             "stage", stage, "old",
                                             side_counts(records, "old", stage), "new",
                                             side_counts(records, "new", stage), "regressions",
                                             (json_int_t)reg, "fixes", (json_int_t)fix,
                                             "not_comparable", (json_int_t)other, "not_judged",
                                             (json_int_t)unjudged, "explained_by_settings",
                                             (json_int_t)explained, "mcnemar",
                                             mcnemar_json(reg, fix, alpha)));
    }
    return out;
}

/* fast_p over the workloads whose speed was judged on that side (performance outcome pass
 * or fail; a performance stage blocked by a failed correctness is a judged fail): a stage
 * that did not run says nothing about speed, so it is left out of the denominator; with none
 * judged the fraction is null. */
static json_t *fast_p_json(const json_t *records)
{
    json_t *out = json_array();
    static const char *const sides[2] = {"old", "new"};
    size_t judged[2] = {0, 0}, i;
    const json_t *rec;
    json_array_foreach(records, i, rec) for (int s = 0; s < 2; s++) {
        const char *o = outcome(rec, sides[s], "performance");
        judged[s] += strcmp(o, "pass") == 0 || strcmp(o, "fail") == 0;
    }
    for (size_t t = 0; t < PG_COMPARE_N_FAST_P; t++) {
        double p = pg_compare_fast_p[t];
        size_t c[2] = {0, 0};
        json_array_foreach(records, i, rec) for (int s = 0; s < 2; s++) {
            const char *o = outcome(rec, sides[s], "performance");
            if (strcmp(o, "pass") != 0 && strcmp(o, "fail") != 0)
                continue;
            double v = speedup(rec, sides[s]);
            /* NaN > p is false: no speedup, not counted. */
            c[s] += strcmp(outcome(rec, sides[s], "correctness"), "pass") == 0 && v > p;
        }
        json_array_append_new(
            out, json_pack("{s:f, s:I, s:I, s:I, s:I, s:o, s:o}", "p", p, "old_count",
                           (json_int_t)c[0], "new_count", (json_int_t)c[1], "old_judged",
                           (json_int_t)judged[0], "new_judged", (json_int_t)judged[1], "old",
                           judged[0] ? json_real((double)c[0] / (double)judged[0]) : json_null(),
                           "new",
                           judged[1] ? json_real((double)c[1] / (double)judged[1])
                                     : json_null()));
    }
    return out;
}

/* Geometric mean with the bootstrap interval, from logs[0..n). */
static json_t *geomean_json(const double *logs, size_t n, const pg_compare_options *o)
{
    pg_bootstrap_result b = pg_bootstrap_mean(logs, n, o->resamples, o->confidence, o->seed);
    return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)n, "geomean",
                     num_or_null(exp(b.mean)), "ci_low", num_or_null(exp(b.ci_low)), "ci_high",
                     num_or_null(exp(b.ci_high)));
}

static json_t *wilcoxon_json(const double *d, size_t n, double alpha)
{
    pg_wilcoxon_result w = pg_wilcoxon_signed_rank(d, n);
    const char *dir = w.w_plus < w.w_minus ? "worse" : w.w_plus > w.w_minus ? "better" : "none";
    return json_pack("{s:I, s:I, s:f, s:f, s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:b}", "n",
                     (json_int_t)w.n, "zeros", (json_int_t)w.zeros, "w_plus", w.w_plus, "w_minus",
                     w.w_minus, "method",
                     w.exact ? "exact (permutation distribution, midranks)"
                             : "normal approximation (tie-corrected variance, continuity "
                               "correction 1/2)",
                     "z", num_or_null(w.z), "p_value", num_or_null(w.p_two_sided), "p_less",
                     num_or_null(w.p_less), "p_greater", num_or_null(w.p_greater), "direction",
                     dir, "significant_worse",
                     w.p_two_sided <= alpha && strcmp(dir, "worse") == 0, "significant_better",
                     w.p_two_sided <= alpha && strcmp(dir, "better") == 0);
}

static pg_status speedup_json(const json_t *records, const pg_compare_options *o, json_t **out)
{
    size_t n = json_array_size(records), na = 0, nb = 0, nr = 0, i;
    double *la = malloc((n ? n : 1) * sizeof *la), *lb = malloc((n ? n : 1) * sizeof *lb),
           *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!la || !lb || !lr) {
        free(la);
        free(lb);
        free(lr);
        return PG_ERR_INFRA;
    }
    const json_t *rec;
    json_array_foreach(records, i, rec) {
        double a = speedup(rec, "old"), b = speedup(rec, "new");
        if (isfinite(a))
            la[na++] = log(a);
        if (isfinite(b))
            lb[nb++] = log(b);
        if (isfinite(a) && isfinite(b))
            lr[nr++] = log(b) - log(a);
    }
    char method[400];
    snprintf(method, sizeof method,
             "geometric mean = exp(mean of log speedup) over the paired workloads with a "
             "speedup on that side (ratio: on both sides, NEW / OLD); %.0f %% percentile "
             "bootstrap interval, %zu resamples, seed %llu",
             100.0 * o->confidence, o->resamples, (unsigned long long)o->seed);
    *out = json_pack("{s:o, s:o, s:o, s:s, s:o}", "old", geomean_json(la, na, o), "new",
                     geomean_json(lb, nb, o), "ratio", geomean_json(lr, nr, o), "method", method,
                     "wilcoxon", wilcoxon_json(lr, nr, o->alpha));
    free(la);
    free(lb);
    free(lr);
    return *out ? PG_OK : PG_ERR_INFRA;
}

/* Per task, in order of first appearance: paired workloads, correct ones and the geometric mean
 * speedup of each side (over that side's workloads with a speedup). One pass over the records,
 * tasks found through a hash map (a jansson object), so many tasks cost linear time. */
typedef struct {
    const char *task;
    size_t n, ca, cb, na, nb;
    double sa, sb;
} task_sum;

static json_t *tasks_json(const json_t *records)
{
    size_t n_rec = json_array_size(records), n_tasks = 0, i;
    task_sum *sum = calloc(n_rec ? n_rec : 1, sizeof *sum);
    json_t *index = json_object(), *out = json_array();
    if (!sum || !index || !out) {
        free(sum);
        json_decref(index);
        json_decref(out);
        return NULL;
    }
    const json_t *rec;
    json_array_foreach(records, i, rec) {
        const char *task = json_string_value(json_object_get(rec, "task"));
        const json_t *known = json_object_get(index, task);
        task_sum *t = &sum[known ? (size_t)json_integer_value(known) : n_tasks];
        if (!known) {
            json_object_set_new(index, task, json_integer((json_int_t)n_tasks++));
            t->task = task;
        }
        t->n++;
        t->ca += strcmp(outcome(rec, "old", "correctness"), "pass") == 0;
        t->cb += strcmp(outcome(rec, "new", "correctness"), "pass") == 0;
        double a = speedup(rec, "old"), b = speedup(rec, "new");
        if (isfinite(a)) {
            t->sa += log(a);
            t->na++;
        }
        if (isfinite(b)) {
            t->sb += log(b);
            t->nb++;
        }
    }
    for (size_t k = 0; k < n_tasks; k++) {
        const task_sum *t = &sum[k];
        json_array_append_new(
            out, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "task", t->task,
                           "workloads", (json_int_t)t->n, "old_correct", (json_int_t)t->ca,
                           "new_correct", (json_int_t)t->cb, "old_with_speedup",
                           (json_int_t)t->na, "new_with_speedup", (json_int_t)t->nb,
                           "old_geomean",
                           t->na ? num_or_null(exp(t->sa / (double)t->na)) : json_null(),
                           "new_geomean",
                           t->nb ? num_or_null(exp(t->sb / (double)t->nb)) : json_null()));
    }
    free(sum);
    json_decref(index);
    return out;
}

static const json_t *stage_entry(const json_t *stages, const char *name)
{
    size_t i;
    const json_t *s;
    json_array_foreach(stages, i, s) if (strcmp(json_string_value(json_object_get(s, "stage")), name) == 0) return s;
    return NULL;
}

/* Regressions in stage (NULL = any) whose change a settings difference can explain. */
static size_t explained_regressions(const json_t *records, const char *stage)
{
    size_t n = 0, i, j;
    const json_t *rec, *ch;
    json_array_foreach(records, i, rec) json_array_foreach(json_object_get(rec, "changes"), j, ch) {
        n += strcmp(json_string_value(json_object_get(ch, "kind")), "regression") == 0 &&
             (!stage || strcmp(json_string_value(json_object_get(ch, "stage")), stage) == 0) &&
             json_array_size(json_object_get(ch, "explained_by")) > 0;
    }
    return n;
}

static json_t *gate_json(const json_t *records, const json_t *stages, const json_t *speed,
                         const pg_compare_options *o)
{
    json_t *reasons = json_array();
    size_t regressions = 0, i;
    const json_t *s;
    json_array_foreach(stages, i, s) regressions +=
        (size_t)json_integer_value(json_object_get(s, "regressions"));
    const json_t *corr = stage_entry(stages, "correctness");
    size_t corr_reg = corr ? (size_t)json_integer_value(json_object_get(corr, "regressions")) : 0;
    const json_t *mc = json_object_get(corr, "mcnemar");
    const json_t *wx = json_object_get(speed, "wilcoxon");
    bool mc_sig = json_is_true(json_object_get(mc, "significant_worse"));
    bool wx_sig = json_is_true(json_object_get(wx, "significant_worse"));
    char line[512];
    if ((o->fail_on & PG_FAIL_ON_CORRECTNESS) && corr_reg > 0) {
        size_t ex = explained_regressions(records, "correctness");
        snprintf(line, sizeof line, "%zu correctness regression%s (pass → fail)%s", corr_reg,
                 corr_reg == 1 ? "" : "s",
                 ex ? "; a settings difference can explain some (see the settings list)" : "");
        json_array_append_new(reasons, json_string(line));
    }
    if ((o->fail_on & PG_FAIL_ON_REGRESSION) && regressions > 0) {
        size_t ex = explained_regressions(records, NULL);
        snprintf(line, sizeof line,
                 "%zu stage regression%s (pass → fail) over all compared stages%s", regressions,
                 regressions == 1 ? "" : "s",
                 ex ? "; a settings difference can explain some (see the settings list)" : "");
        json_array_append_new(reasons, json_string(line));
    }
    if ((o->fail_on & PG_FAIL_ON_SIGNIFICANT) && mc_sig) {
        snprintf(line, sizeof line,
                 "McNemar on correctness: %lld pass → fail against %lld fail → pass, p = %.3g <= "
                 "alpha %.3g",
                 (long long)json_integer_value(json_object_get(mc, "worse")),
                 (long long)json_integer_value(json_object_get(mc, "better")),
                 json_real_value(json_object_get(mc, "p_value")), o->alpha);
        json_array_append_new(reasons, json_string(line));
    }
    if ((o->fail_on & PG_FAIL_ON_SIGNIFICANT) && wx_sig) {
        snprintf(line, sizeof line,
                 "Wilcoxon signed-rank on log speedups: NEW slower over %lld paired workloads, "
                 "p = %.3g <= alpha %.3g",
                 (long long)json_integer_value(json_object_get(wx, "n")),
                 json_real_value(json_object_get(wx, "p_value")), o->alpha);
        json_array_append_new(reasons, json_string(line));
    }
    bool fail = json_array_size(reasons) > 0;
    return json_pack("{s:s, s:i, s:I, s:I, s:b, s:b, s:o}", "verdict", fail ? "fail" : "pass",
                     "exit_code", fail ? 1 : 0, "regressions", (json_int_t)regressions,
                     "correctness_regressions", (json_int_t)corr_reg, "mcnemar_significant_worse",
                     mc_sig, "wilcoxon_significant_worse", wx_sig, "reasons", reasons);
}

pg_status pg_compare_summarize(json_t *model, const pg_compare_options *o, pg_diag *d)
{
    const json_t *records = json_object_get(model, "workloads");
    json_t *stages = stages_json(model, o->alpha), *speed = NULL;
    if (!stages || speedup_json(records, o, &speed) != PG_OK) {
        json_decref(stages);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    json_t *gate = gate_json(records, stages, speed, o);
    json_object_set_new(model, "paired_workloads",
                        json_integer((json_int_t)json_array_size(records)));
    json_object_set_new(model, "stages", stages);
    json_object_set_new(model, "fast_p", fast_p_json(records));
    json_object_set_new(model, "speedup", speed);
    json_object_set_new(model, "tasks", tasks_json(records));
    if (!gate || json_object_set_new(model, "gate", gate) != 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    return PG_OK;
}
