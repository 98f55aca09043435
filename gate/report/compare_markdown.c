/* The markdown of `ptxgate compare`, rendered from the comparison model alone (see compare.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "markdown.h"
#include "results_read.h"
#include "results_read_compare.h"

#define NAME_MAX_BYTES 200
#define CHANGED_ROWS_MAX 200 /* rows of the changed-workloads table */
#define CHART_TASKS_MAX 30   /* tasks in the mermaid chart */

/* Untrusted text, escaped as the results summary escapes it. */
static void esc(pg_text *t, const char *s)
{
    char *e = pg_report_markdown_inline(s, NAME_MAX_BYTES);
    pg_text_add(t, e ? e : "");
    if (!e)
        t->oom = true;
    free(e);
}

/* A number in at most a dozen characters: fixed with `decimals` places in [1e-3, 1e6),
 * else three significant digits in exponent form (a hostile file's 1e300 speedup prints as
 * 1e+300, not 300 digits). */
static void num_text(pg_text *t, double v, int decimals)
{
    double a = fabs(v);
    if (a != 0.0 && (a >= 1e6 || a < 1e-3))
        pg_text_addf(t, "%.3g", v);
    else
        pg_text_addf(t, "%.*f", decimals, v);
}

static void speedup_cell(pg_text *t, double v)
{
    if (isfinite(v)) {
        num_text(t, v, 3);
        pg_text_add(t, "×");
    } else {
        pg_text_add(t, "—");
    }
}

/* The pass rate over the judged workloads (pass + fail), with the count of those left out;
 * never 0 % for a stage that judged nothing. */
static void rate_cell(pg_text *t, const pg_cmp_counts *side)
{
    long long pass = side->pass, judged = pass + side->fail;
    long long error = side->error, skipped = side->skipped;
    double r = side->pass_rate;
    if (isfinite(r) && judged > 0) {
        pg_text_addf(t, "%.1f %% (%lld/%lld", 100.0 * r, pass, judged);
        if (error + skipped > 0)
            pg_text_addf(t, "; %lld not judged", error + skipped);
        pg_text_add(t, ")");
    } else if (skipped > 0 && error == 0) {
        pg_text_add(t, "n/a (all skipped)");
    } else if (error > 0 && skipped == 0) {
        pg_text_add(t, "n/a (all errors)");
    } else if (error + skipped > 0) {
        pg_text_add(t, "n/a (none judged)");
    } else {
        pg_text_add(t, "—");
    }
}

static void side_line(pg_text *t, const char *label, const pg_cmp_side *s)
{
    pg_text_addf(t, "- **%s** ", label);
    esc(t, s->file);
    pg_text_addf(t, " — %s, verdict %s, %lld submissions, %lld workloads; ", s->started_utc,
                 s->verdict, s->submissions, s->workloads);
    esc(t, s->gpu ? s->gpu : "no GPU");
    if (s->driver_version) {
        pg_text_add(t, ", driver ");
        esc(t, s->driver_version);
    }
    const char *cublaslt = s->cublaslt_version;
    if (cublaslt) {
        pg_text_add(t, ", cuBLASLt ");
        esc(t, cublaslt);
    }
    pg_text_add(t, "\n");
}

static void value_or_none(pg_text *t, const json_t *v)
{
    pg_cmp_value x = pg_cmp_value_of(v);
    if (x.kind == PG_CMP_VALUE_TEXT)
        esc(t, x.text);
    else
        pg_text_add(t, "none");
}

/* A setting's value: text escaped, numbers bounded, anything else as compact JSON. */
static void setting_value(pg_text *t, const json_t *v)
{
    pg_cmp_value x = pg_cmp_value_of(v);
    if (x.kind == PG_CMP_VALUE_TEXT) {
        esc(t, x.text);
    } else if (x.kind == PG_CMP_VALUE_NUMBER) {
        num_text(t, x.number, 3);
    } else if (x.kind == PG_CMP_VALUE_NONE) {
        pg_text_add(t, "none");
    } else {
        char *j = json_dumps(x.json, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
        esc(t, j ? j : "");
        if (!j)
            t->oom = true;
        free(j);
    }
}

static void header(pg_text *t, const pg_cmp_view *m)
{
    bool fail = m->gate_fails;
    pg_text_addf(t, "## ptxgate compare: %s\n\n", fail ? "FAIL" : "PASS");
    side_line(t, "OLD", &m->old_side);
    side_line(t, "NEW", &m->new_side);
    pg_text_add(t, "\n");
    if (fail) {
        pg_text_add(t, "Why it fails:\n\n");
        for (size_t i = 0; i < m->n_reasons; i++) {
            pg_text_add(t, "- ");
            esc(t, m->reasons[i]);
            pg_text_add(t, "\n");
        }
        pg_text_add(t, "\n");
    }
    if (m->n_settings_diffs > 0) {
        pg_text_add(t, "**Settings that differ between the runs** (a change in a stage they "
                       "can affect is marked *settings differ*):\n\n");
        for (size_t i = 0; i < m->n_settings_diffs; i++) {
            const pg_cmp_setting_diff *r = &m->settings_diffs[i];
            pg_text_add(t, "- ");
            esc(t, r->setting);
            pg_text_add(t, ": ");
            setting_value(t, r->old_value);
            pg_text_add(t, " → ");
            setting_value(t, r->new_value);
            if (r->per_pairs)
                pg_text_addf(t, " (%lld paired workload%s; the first shown)", r->pairs,
                             r->pairs == 1 ? "" : "s");
            pg_text_add(t, "\n");
        }
        pg_text_add(t, "\n");
    }
    size_t differs = 0, unknown = 0;
    for (size_t i = 0; i < m->n_submissions; i++) {
        differs += m->sources[i] == PG_CMP_SOURCE_DIFFERS;
        unknown += m->sources[i] == PG_CMP_SOURCE_UNKNOWN;
    }
    if (differs > 0)
        pg_text_addf(t, "%zu of %zu paired submissions have the same name but a different "
                        "source (SHA-256 in compare.json `submissions`; **differs** in the "
                        "table below).\n\n",
                     differs, m->n_submissions);
    if (unknown > 0)
        pg_text_addf(t, "%zu paired submissions have no source hash on a side (a results file "
                        "of an older ptxgate): whether their sources are the same is "
                        "unknown.\n\n", unknown);
    if (m->n_env_diffs > 0) {
        pg_text_add(t, "> **Warning:** the two runs differ in their environment:");
        for (size_t i = 0; i < m->n_env_diffs; i++) {
            const pg_cmp_env_diff *r = &m->env_diffs[i];
            pg_text_addf(t, "%s %s ", i ? ";" : "", r->field);
            value_or_none(t, r->old_value);
            pg_text_add(t, " → ");
            value_or_none(t, r->new_value);
        }
        pg_text_add(t, ". Speedups are against each run's own cuBLASLt, but differences may "
                       "come from the machine.\n\n");
    }
}

static void stages_table(pg_text *t, const pg_cmp_view *m)
{
    pg_text_addf(t, "### Stages (%lld paired workloads)\n\n", m->paired_workloads);
    pg_text_add(t, "| stage | OLD pass rate | NEW pass rate | regressions | fixes | not "
                   "comparable | not judged | McNemar p (two-sided) |\n"
                   "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < m->n_stages; i++) {
        const pg_cmp_stage_sum *s = &m->stages[i];
        const pg_cmp_mcnemar *mc = &s->mcnemar;
        pg_text_addf(t, "| %s | ", s->stage);
        rate_cell(t, &s->old_counts);
        pg_text_add(t, " | ");
        rate_cell(t, &s->new_counts);
        pg_text_addf(t, " | %lld | %lld | %lld | %lld | %.3g%s |\n", s->regressions, s->fixes,
                     s->not_comparable, s->not_judged, mc->p_value,
                     mc->significant_worse    ? " (worse)"
                     : mc->significant_better ? " (better)"
                                              : "");
    }
    pg_text_add(t, "\nPass rates are over the judged workloads (pass + fail); errors and skips "
                   "are left out. A stage not run because an earlier one failed counts as "
                   "failed; *not comparable* = an infrastructure error on one side; *not "
                   "judged* = pairs where the stage did not run on a side (skipped): they are "
                   "in no rate and no transition.\n\n");
}

static void fast_p_cell(pg_text *t, long long judged, long long count, double fraction)
{
    if (judged > 0 && isfinite(fraction))
        pg_text_addf(t, "%.3f (%lld/%lld)", fraction, count, judged);
    else
        pg_text_add(t, "n/a (none judged)");
}

static void fast_p_table(pg_text *t, const pg_cmp_view *m)
{
    pg_text_add(t, "### fast_p (correct and speedup > p, over the workloads whose speed was "
                   "judged)\n\n| p | OLD | NEW |\n|---|---|---|\n");
    for (size_t i = 0; i < m->n_fast_p; i++) {
        const pg_cmp_fast_p *f = &m->fast_p[i];
        pg_text_addf(t, "| %.1f | ", f->p);
        fast_p_cell(t, f->old_judged, f->old_count, f->old_fraction);
        pg_text_add(t, " | ");
        fast_p_cell(t, f->new_judged, f->new_count, f->new_fraction);
        pg_text_add(t, " |\n");
    }
    pg_text_add(t, "\n");
}

static void geomean_row(pg_text *t, const char *label, const pg_cmp_geomean *g)
{
    pg_text_addf(t, "| %s | %lld | ", label, g->n);
    speedup_cell(t, g->geomean);
    pg_text_add(t, " | ");
    if (isfinite(g->ci_low) && isfinite(g->ci_high)) {
        pg_text_add(t, "[");
        num_text(t, g->ci_low, 3);
        pg_text_add(t, ", ");
        num_text(t, g->ci_high, 3);
        pg_text_add(t, "]");
    } else
        pg_text_add(t, "—");
    pg_text_add(t, " |\n");
}

static void speedup_section(pg_text *t, const pg_cmp_view *m)
{
    pg_text_addf(t, "### Speedup vs cuBLASLt (geometric mean)\n\n| | workloads | geometric mean "
                    "| %.0f %% bootstrap interval |\n|---|---|---|---|\n",
                 100.0 * m->confidence);
    geomean_row(t, "OLD", &m->speedup_old);
    geomean_row(t, "NEW", &m->speedup_new);
    geomean_row(t, "NEW / OLD (paired)", &m->speedup_ratio);
    const pg_cmp_wilcoxon *w = &m->wilcoxon;
    pg_text_addf(t, "\nWilcoxon signed-rank on log(NEW / OLD): %lld pairs (%lld equal, "
                    "dropped), W+ = ",
                 w->n, w->zeros);
    num_text(t, w->w_plus, 1);
    pg_text_add(t, ", W− = ");
    num_text(t, w->w_minus, 1);
    pg_text_add(t, ", ");
    if (isfinite(w->p_value))
        pg_text_addf(t, "p = %.3g (two-sided, %s), NEW %s%s.\n\n", w->p_value, w->method,
                     w->direction == PG_CMP_DIRECTION_WORSE    ? "slower"
                     : w->direction == PG_CMP_DIRECTION_BETTER ? "faster"
                                                               : "unchanged",
                     w->significant_worse || w->significant_better ? ", significant" : "");
    else
        pg_text_add(t, "no p-value.\n\n");
}

/* Mermaid labels: task ids are [a-z0-9_] already; anything else becomes '_' so no label can
 * break the chart's syntax. */
static void chart_label(pg_text *t, const char *s)
{
    pg_text_add(t, "\"");
    for (size_t i = 0; s[i] && i < 48; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        pg_text_addn(t, ok ? &c : "_", 1);
    }
}

static void tasks_section(pg_text *t, const pg_cmp_view *m)
{
    size_t n = m->n_tasks, i;
    if (n == 0)
        return;
    const pg_cmp_task *k;
    double top = 0.0;
    for (i = 0; i < n; i++) {
        k = &m->tasks[i];
        top = fmax(top, fmax(isfinite(k->old_geomean) ? k->old_geomean : 0.0,
                             isfinite(k->new_geomean) ? k->new_geomean : 0.0));
    }
    pg_text_add(t, "### Speedup per task\n\n");
    size_t shown = n < CHART_TASKS_MAX ? n : CHART_TASKS_MAX;
    /* Bars only when some task has a speedup (a chart of zero bars says nothing), and heights
     * cut at 1e6 so a hostile file cannot print hundred-digit numbers. */
    top = fmin(top, 1e6);
    if (top <= 0)
        shown = 0;
    if (shown == 0)
        pg_text_add(t, "No task has a speedup on either side (the performance stage was not "
                       "judged, or no workload was correct): no chart.\n\n");
    else {
    pg_text_add(t, "```mermaid\nxychart-beta\n    title \"Geometric-mean speedup vs cuBLASLt "
                   "per task (OLD, NEW)\"\n    x-axis [");
    for (i = 0; i < shown; i++) {
        k = &m->tasks[i];
        for (int s = 0; s < 2; s++) {
            pg_text_add(t, i || s ? ", " : "");
            chart_label(t, k->task);
            pg_text_add(t, s ? " NEW\"" : " OLD\"");
        }
    }
    pg_text_addf(t, "]\n    y-axis \"speedup (x)\" 0 --> %.2f\n    bar [",
                 top > 0 ? ceil(top * 11.0) / 10.0 : 1.0);
    for (i = 0; i < shown; i++) {
        k = &m->tasks[i];
        double a = k->old_geomean, b = k->new_geomean;
        pg_text_addf(t, "%s%.4f, %.4f", i ? ", " : "", isfinite(a) ? fmin(a, 1e6) : 0.0,
                     isfinite(b) ? fmin(b, 1e6) : 0.0);
    }
    pg_text_add(t, "]\n```\n\n");
    }
    if (shown > 0 && shown < n)
        pg_text_addf(t, "The chart shows the first %zu of %zu tasks; the table has all.\n\n",
                     shown, n);
    pg_text_add(t, "| task | paired workloads | OLD correct | NEW correct | OLD geometric mean | "
                   "NEW geometric mean |\n|---|---|---|---|---|---|\n");
    for (i = 0; i < n; i++) {
        k = &m->tasks[i];
        pg_text_add(t, "| ");
        esc(t, k->task);
        pg_text_addf(t, " | %lld | %lld | %lld | ", k->workloads, k->old_correct,
                     k->new_correct);
        speedup_cell(t, k->old_geomean);
        pg_text_add(t, " | ");
        speedup_cell(t, k->new_geomean);
        pg_text_add(t, " |\n");
    }
    pg_text_add(t, "\nA task's bar is 0 where no workload of it has a speedup on that side "
                   "(none was correct, or the performance stage did not run).\n\n");
}

static void changes_section(pg_text *t, const pg_cmp_view *m)
{
    size_t changed = 0;
    for (size_t i = 0; i < m->n_records; i++)
        changed += m->records[i].n_changes > 0;
    pg_text_addf(t, "### Changed workloads (%zu)\n\n", changed);
    if (changed == 0) {
        pg_text_add(t, "No stage outcome changed.\n\n");
        return;
    }
    pg_text_add(t, "| task | submission | workload | changes | source | OLD speedup | NEW "
                   "speedup |\n|---|---|---|---|---|---|---|\n");
    size_t rows = 0;
    for (size_t i = 0; i < m->n_records; i++) {
        const pg_cmp_record *r = &m->records[i];
        if (r->n_changes == 0)
            continue;
        if (rows++ == CHANGED_ROWS_MAX)
            break;
        pg_text_add(t, "| ");
        esc(t, r->task);
        pg_text_add(t, " | ");
        esc(t, r->submission);
        pg_text_add(t, " | ");
        esc(t, r->workload);
        pg_text_add(t, " | ");
        for (size_t j = 0; j < r->n_changes; j++) {
            const pg_cmp_change *c = &r->changes[j];
            pg_text_addf(t, "%s%s %s → %s%s", j ? "; " : "", c->stage,
                         pg_res_status_name(c->old_outcome), pg_res_status_name(c->new_outcome),
                         c->kind == PG_CMP_REGRESSION ? " **(regression)**"
                         : c->kind == PG_CMP_FIX      ? " (fix)"
                                                      : " (not comparable)");
            for (size_t e = 0; e < c->n_explained; e++) {
                pg_text_add(t, e ? ", " : " (settings differ: ");
                esc(t, c->explained_by[e]);
            }
            if (c->n_explained > 0)
                pg_text_add(t, ")");
        }
        pg_text_addf(t, " | %s | ", r->source == PG_CMP_SOURCE_DIFFERS ? "**differs**"
                                    : r->source == PG_CMP_SOURCE_SAME  ? "same"
                                                                       : "—");
        speedup_cell(t, r->old_side.speedup);
        pg_text_add(t, " | ");
        speedup_cell(t, r->new_side.speedup);
        pg_text_add(t, " |\n");
    }
    if (changed > CHANGED_ROWS_MAX)
        pg_text_addf(t, "\n… %zu more in compare.json.\n", changed - CHANGED_ROWS_MAX);
    pg_text_add(t, "\n");
}

static void unpaired_section(pg_text *t, const pg_cmp_view *m)
{
    if (m->n_unpaired == 0)
        return;
    pg_text_addf(t, "### Unpaired (%zu, not compared)\n\n", m->n_unpaired);
    for (size_t i = 0; i < m->n_unpaired; i++) {
        const pg_cmp_unpaired *e = &m->unpaired[i];
        if (i == CHANGED_ROWS_MAX) {
            pg_text_addf(t, "- … %zu more in compare.json\n", m->n_unpaired - i);
            break;
        }
        pg_text_addf(t, "- only in %s: ", e->only_old ? "OLD" : "NEW");
        esc(t, e->task);
        pg_text_add(t, " / ");
        esc(t, e->submission);
        if (e->workload) {
            pg_text_add(t, " / ");
            esc(t, e->workload);
        } else {
            pg_text_add(t, " (the whole submission)");
        }
        pg_text_add(t, "\n");
    }
    pg_text_add(t, "\n");
}

pg_status pg_compare_markdown(const json_t *model, char **out, size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_cmp_view m;
    pg_status st = pg_cmp_view_read(model, &m, d);
    if (st != PG_OK)
        return st;
    pg_res_locale loc;
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK) {
        pg_cmp_view_free(&m);
        return st;
    }
    pg_text t;
    pg_text_init(&t, PG_COMPARE_MARKDOWN_MAX_BYTES);
    header(&t, &m);
    stages_table(&t, &m);
    fast_p_table(&t, &m);
    speedup_section(&t, &m);
    tasks_section(&t, &m);
    changes_section(&t, &m);
    unpaired_section(&t, &m);
    pg_text_addf(&t, "<sub>ptxgate %s compare: tests at alpha %.3g; fails on ", m.tool_version,
                 m.alpha);
    for (size_t i = 0; i < m.n_fail_on; i++)
        pg_text_addf(&t, "%s%s", i ? ", " : "", m.fail_on[i]);
    pg_text_add(&t, m.n_fail_on ? "" : "nothing (never)");
    pg_text_add(&t, ".</sub>\n");
    pg_res_locale_leave(&loc);
    pg_cmp_view_free(&m);
    return pg_text_finish(&t, NULL, "out of memory rendering markdown", out, len, d);
}
