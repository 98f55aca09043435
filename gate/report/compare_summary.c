/* The aggregates of the comparison model from its per-workload records (see compare.h): pass
 * rates and transitions per stage with McNemar's test, fast_p, geometric-mean speedups with
 * bootstrap intervals and Wilcoxon's test, per-task speedups, and the gate decision. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results_read_compare.h"
#include "stats/bootstrap.h"
#include "stats/mcnemar.h"
#include "stats/wilcoxon.h"

/* The two sides of a record, by index: 0 OLD, 1 NEW. */
static const pg_cmp_rec_side *side_of(const pg_cmp_record *rec, int side)
{
    return side ? &rec->new_side : &rec->old_side;
}

static pg_res_status outcome(const pg_cmp_record *rec, int side, const char *stage)
{
    return pg_cmp_outcome_of(side_of(rec, side), stage);
}

static double speedup(const pg_cmp_record *rec, int side)
{
    return side_of(rec, side)->speedup;
}

/* Was a stage with this outcome judged (pass or fail)? */
static bool is_judged(pg_res_status o)
{
    return o == PG_RES_PASS || o == PG_RES_FAIL;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A side's outcome counts for one stage. The pass rate is over the judged outcomes only (pass
 * and fail): a stage skipped on a side (no disassembler, no GPU) or stopped by an
 * infrastructure error says nothing about the kernel, so it is left out of the rate instead of
 * counting as a failure; with nothing judged the rate is null. */
static json_t *side_counts(const pg_cmp_view *v, int side, const char *stage)
{
    size_t n[4] = {0}; /* by pg_res_status */
    for (size_t i = 0; i < v->n_records; i++)
        n[outcome(&v->records[i], side, stage)]++;
    size_t judged = n[0] + n[1];
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "pass", (json_int_t)n[0], "fail",
                     (json_int_t)n[1], "error", (json_int_t)n[2], "skipped", (json_int_t)n[3],
                     "judged", (json_int_t)judged, "pass_rate",
                     judged ? json_real((double)n[0] / (double)judged) : json_null());
}

/* McNemar's test on the correctness transitions, as the gate reads it. */
typedef struct {
    bool present; /* correctness is a compared stage */
    size_t worse, better;
    pg_mcnemar_result m;
    bool significant_worse;
} corr_test;

static json_t *mcnemar_json(size_t worse, size_t better, double alpha, pg_mcnemar_result *res,
                            bool *sig_worse)
{
    pg_mcnemar_result m = pg_mcnemar_exact(worse, better);
    *res = m;
    *sig_worse = m.p_two_sided <= alpha && worse > better;
    return json_pack("{s:I, s:I, s:f, s:f, s:b, s:b}", "worse", (json_int_t)worse, "better",
                     (json_int_t)better, "p_value", m.p_two_sided, "p_worse", m.p_worse,
                     "significant_worse", *sig_worse,
                     "significant_better", m.p_two_sided <= alpha && better > worse);
}

/* The "stages" records; *regressions gets their sum over all stages, *corr correctness's
 * test. */
static json_t *stages_json(const pg_cmp_view *v, double alpha, size_t *regressions,
                           corr_test *corr)
{
    json_t *out = json_array();
    *regressions = 0;
    memset(corr, 0, sizeof *corr);
    for (size_t k = 0; k < v->n_compared_stages; k++) {
        const char *stage = v->compared_stages[k];
        size_t reg = 0, fix = 0, other = 0, unjudged = 0, explained = 0;
        for (size_t i = 0; i < v->n_records; i++) {
            const pg_cmp_record *rec = &v->records[i];
            for (size_t j = 0; j < rec->n_not_judged; j++)
                unjudged += strcmp(rec->not_judged[j], stage) == 0;
            for (size_t j = 0; j < rec->n_changes; j++) {
                const pg_cmp_change *ch = &rec->changes[j];
                if (strcmp(ch->stage, stage) != 0)
                    continue;
                reg += ch->kind == PG_CMP_REGRESSION;
                fix += ch->kind == PG_CMP_FIX;
                other += ch->kind == PG_CMP_NOT_COMPARABLE;
                explained += ch->n_explained > 0;
            }
        }
        pg_mcnemar_result m;
        bool sig_worse;
        json_t *mc = mcnemar_json(reg, fix, alpha, &m, &sig_worse);
        *regressions += reg;
        if (!corr->present && strcmp(stage, "correctness") == 0) {
            corr->present = true;
            corr->worse = reg;
            corr->better = fix;
            corr->m = m;
            corr->significant_worse = sig_worse;
        }
        json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o}",
                                             "stage", stage, "old",
                                             side_counts(v, 0, stage), "new",
                                             side_counts(v, 1, stage), "regressions",
                                             (json_int_t)reg, "fixes", (json_int_t)fix,
                                             "not_comparable", (json_int_t)other, "not_judged",
                                             (json_int_t)unjudged, "explained_by_settings",
                                             (json_int_t)explained, "mcnemar", mc));
    }
    return out;
}

/* fast_p over the workloads whose speed was judged on that side (performance outcome pass
 * or fail; a performance stage blocked by a failed correctness is a judged fail): a stage
 * that did not run says nothing about speed, so it is left out of the denominator; with none
 * judged the fraction is null. */
static json_t *fast_p_json(const pg_cmp_view *view)
{
    json_t *out = json_array();
    size_t judged[2] = {0, 0};
    for (size_t i = 0; i < view->n_records; i++)
        for (int s = 0; s < 2; s++)
            judged[s] += is_judged(outcome(&view->records[i], s, "performance"));
    for (size_t t = 0; t < PG_COMPARE_N_FAST_P; t++) {
        double p = pg_compare_fast_p[t];
        size_t c[2] = {0, 0};
        for (size_t i = 0; i < view->n_records; i++)
            for (int s = 0; s < 2; s++) {
                const pg_cmp_record *rec = &view->records[i];
                if (!is_judged(outcome(rec, s, "performance")))
                    continue;
                double v = speedup(rec, s);
                /* NaN > p is false: no speedup, not counted. */
                c[s] += outcome(rec, s, "correctness") == PG_RES_PASS && v > p;
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

static json_t *wilcoxon_json(const double *d, size_t n, double alpha, pg_wilcoxon_result *res,
                             bool *sig_worse)
{
    pg_wilcoxon_result w = pg_wilcoxon_signed_rank(d, n);
    *res = w;
    *sig_worse = w.p_two_sided <= alpha && w.w_plus < w.w_minus;
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

static pg_status speedup_json(const pg_cmp_view *v, const pg_compare_options *o, json_t **out,
                              pg_wilcoxon_result *wx, bool *wx_sig)
{
    size_t n = v->n_records, na = 0, nb = 0, nr = 0;
    double *la = malloc((n ? n : 1) * sizeof *la), *lb = malloc((n ? n : 1) * sizeof *lb),
           *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!la || !lb || !lr) {
        free(la);
        free(lb);
        free(lr);
        return PG_ERR_INFRA;
    }
    for (size_t i = 0; i < n; i++) {
        double a = speedup(&v->records[i], 0), b = speedup(&v->records[i], 1);
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
                     "wilcoxon", wilcoxon_json(lr, nr, o->alpha, wx, wx_sig));
    free(la);
    free(lb);
    free(lr);
    return *out ? PG_OK : PG_ERR_INFRA;
}

/* Per task, in order of first appearance: paired workloads, correct ones and the geometric mean
 * speedup of each side (over that side's workloads with a speedup). One pass over the records,
 * tasks found through a hash map (pg_cmp_names), so many tasks cost linear time. */
typedef struct {
    const char *task;
    size_t n, ca, cb, na, nb;
    double sa, sb;
} task_sum;

static json_t *tasks_json(const pg_cmp_view *v)
{
    size_t n_rec = v->n_records, n_tasks = 0;
    task_sum *sum = calloc(n_rec ? n_rec : 1, sizeof *sum);
    pg_cmp_names index;
    bool have_index = pg_cmp_names_init(&index);
    json_t *out = json_array();
    if (!sum || !have_index || !out) {
        free(sum);
        pg_cmp_names_free(&index);
        json_decref(out);
        return NULL;
    }
    for (size_t i = 0; i < n_rec; i++) {
        const pg_cmp_record *rec = &v->records[i];
        const char *task = rec->task;
        long long known = pg_cmp_names_get(&index, task);
        task_sum *t = &sum[known >= 0 ? (size_t)known : n_tasks];
        if (known < 0) {
            pg_cmp_names_set(&index, task, (long long)n_tasks++);
            t->task = task;
        }
        t->n++;
        t->ca += outcome(rec, 0, "correctness") == PG_RES_PASS;
        t->cb += outcome(rec, 1, "correctness") == PG_RES_PASS;
        double a = speedup(rec, 0), b = speedup(rec, 1);
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
    pg_cmp_names_free(&index);
    return out;
}

/* Regressions in stage (NULL = any) whose change a settings difference can explain. */
static size_t explained_regressions(const pg_cmp_view *v, const char *stage)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n_records; i++)
        for (size_t j = 0; j < v->records[i].n_changes; j++) {
            const pg_cmp_change *ch = &v->records[i].changes[j];
            n += ch->kind == PG_CMP_REGRESSION && (!stage || strcmp(ch->stage, stage) == 0) &&
                 ch->n_explained > 0;
        }
    return n;
}

static json_t *gate_json(const pg_cmp_view *v, size_t regressions, const corr_test *corr,
                         const pg_wilcoxon_result *wx, bool wx_sig, const pg_compare_options *o)
{
    json_t *reasons = json_array();
    size_t corr_reg = corr->present ? corr->worse : 0;
    bool mc_sig = corr->present && corr->significant_worse;
    char line[512];
    if ((o->fail_on & PG_FAIL_ON_CORRECTNESS) && corr_reg > 0) {
        size_t ex = explained_regressions(v, "correctness");
        snprintf(line, sizeof line, "%zu correctness regression%s (pass → fail)%s", corr_reg,
                 corr_reg == 1 ? "" : "s",
                 ex ? "; a settings difference can explain some (see the settings list)" : "");
        json_array_append_new(reasons, json_string(line));
    }
    if ((o->fail_on & PG_FAIL_ON_REGRESSION) && regressions > 0) {
        size_t ex = explained_regressions(v, NULL);
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
                 (long long)corr->worse, (long long)corr->better, corr->m.p_two_sided, o->alpha);
        json_array_append_new(reasons, json_string(line));
    }
    if ((o->fail_on & PG_FAIL_ON_SIGNIFICANT) && wx_sig) {
        snprintf(line, sizeof line,
                 "Wilcoxon signed-rank on log speedups: NEW slower over %lld paired workloads, "
                 "p = %.3g <= alpha %.3g",
                 (long long)wx->n, wx->p_two_sided, o->alpha);
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
    pg_cmp_view v;
    pg_status st = pg_cmp_view_read(model, &v, d);
    if (st != PG_OK)
        return st;
    size_t regressions;
    corr_test corr;
    pg_wilcoxon_result wx;
    bool wx_sig = false;
    json_t *stages = stages_json(&v, o->alpha, &regressions, &corr), *speed = NULL;
    if (!stages || speedup_json(&v, o, &speed, &wx, &wx_sig) != PG_OK) {
        json_decref(stages);
        pg_cmp_view_free(&v);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    json_t *gate = gate_json(&v, regressions, &corr, &wx, wx_sig, o);
    json_object_set_new(model, "paired_workloads", json_integer((json_int_t)v.n_records));
    json_object_set_new(model, "stages", stages);
    json_object_set_new(model, "fast_p", fast_p_json(&v));
    json_object_set_new(model, "speedup", speed);
    json_object_set_new(model, "tasks", tasks_json(&v));
    pg_cmp_view_free(&v);
    if (!gate || json_object_set_new(model, "gate", gate) != 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    return PG_OK;
}
