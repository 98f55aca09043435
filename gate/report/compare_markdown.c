/* The markdown of `ptxgate compare`, rendered from the comparison model alone (see compare.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "markdown.h"
#include "results_read.h"

#define NAME_MAX_BYTES 200
#define CHANGED_ROWS_MAX 200 /* rows of the changed-workloads table */
#define CHART_TASKS_MAX 30   /* tasks in the mermaid chart */

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long integer(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

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
static void rate_cell(pg_text *t, const json_t *side)
{
    long long pass = integer(side, "pass"), judged = pass + integer(side, "fail");
    long long error = integer(side, "error"), skipped = integer(side, "skipped");
    double r = num(side, "pass_rate");
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

static void side_line(pg_text *t, const char *label, const json_t *s)
{
    pg_text_addf(t, "- **%s** ", label);
    esc(t, str(s, "file"));
    pg_text_addf(t, " — %s, verdict %s, %lld submissions, %lld workloads; ", str(s, "started_utc"),
                 str(s, "verdict"), integer(s, "submissions"), integer(s, "workloads"));
    const char *gpu = json_string_value(json_object_get(s, "gpu"));
    esc(t, gpu ? gpu : "no GPU");
    const char *drv = json_string_value(json_object_get(s, "driver_version"));
    if (drv) {
        pg_text_add(t, ", driver ");
        esc(t, drv);
    }
    const char *cublaslt = json_string_value(json_object_get(s, "cublaslt_version"));
    if (cublaslt) {
        pg_text_add(t, ", cuBLASLt ");
        esc(t, cublaslt);
    }
    pg_text_add(t, "\n");
}

static void value_or_none(pg_text *t, const json_t *v)
{
    if (json_is_string(v))
        esc(t, json_string_value(v));
    else
        pg_text_add(t, "none");
}

/* A setting's value: text escaped, numbers bounded, anything else as compact JSON. */
static void setting_value(pg_text *t, const json_t *v)
{
    if (json_is_string(v)) {
        esc(t, json_string_value(v));
    } else if (json_is_number(v)) {
        num_text(t, json_number_value(v), 3);
    } else if (json_is_null(v) || !v) {
        pg_text_add(t, "none");
    } else {
        char *j = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
        esc(t, j ? j : "");
        if (!j)
            t->oom = true;
        free(j);
    }
}

static void header(pg_text *t, const json_t *m)
{
    const json_t *gate = json_object_get(m, "gate");
    bool fail = strcmp(str(gate, "verdict"), "fail") == 0;
    pg_text_addf(t, "## ptxgate compare: %s\n\n", fail ? "FAIL" : "PASS");
    side_line(t, "OLD", json_object_get(m, "old"));
    side_line(t, "NEW", json_object_get(m, "new"));
    pg_text_add(t, "\n");
    size_t i;
    const json_t *r;
    if (fail) {
        pg_text_add(t, "Why it fails:\n\n");
        json_array_foreach(json_object_get(gate, "reasons"), i, r) {
            pg_text_add(t, "- ");
            esc(t, json_string_value(r));
            pg_text_add(t, "\n");
        }
        pg_text_add(t, "\n");
    }
    const json_t *sd = json_object_get(m, "settings_differences");
    if (json_array_size(sd) > 0) {
        pg_text_add(t, "**Settings that differ between the runs** (a change in a stage they "
                       "can affect is marked *settings differ*):\n\n");
        json_array_foreach(sd, i, r) {
            pg_text_add(t, "- ");
            esc(t, str(r, "setting"));
            pg_text_add(t, ": ");
            setting_value(t, json_object_get(r, "old"));
            pg_text_add(t, " → ");
            setting_value(t, json_object_get(r, "new"));
            if (strcmp(str(r, "scope"), "pairs") == 0)
                pg_text_addf(t, " (%lld paired workload%s; the first shown)", integer(r, "pairs"),
                             integer(r, "pairs") == 1 ? "" : "s");
            pg_text_add(t, "\n");
        }
        pg_text_add(t, "\n");
    }
    size_t differs = 0, unknown = 0;
    json_array_foreach(json_object_get(m, "submissions"), i, r) {
        differs += strcmp(str(r, "source"), "differs") == 0;
        unknown += strcmp(str(r, "source"), "unknown") == 0;
    }
    if (differs > 0)
        pg_text_addf(t, "%zu of %zu paired submissions have the same name but a different "
                        "source (SHA-256 in compare.json `submissions`; **differs** in the "
                        "table below).\n\n",
                     differs, json_array_size(json_object_get(m, "submissions")));
    if (unknown > 0)
        pg_text_addf(t, "%zu paired submissions have no source hash on a side (a results file "
                        "of an older ptxgate): whether their sources are the same is "
                        "unknown.\n\n", unknown);
    const json_t *diffs = json_object_get(m, "environment_differences");
    if (json_array_size(diffs) > 0) {
        pg_text_add(t, "> **Warning:** the two runs differ in their environment:");
        json_array_foreach(diffs, i, r) {
            pg_text_addf(t, "%s %s ", i ? ";" : "", str(r, "field"));
            value_or_none(t, json_object_get(r, "old"));
            pg_text_add(t, " → ");
            value_or_none(t, json_object_get(r, "new"));
        }
        pg_text_add(t, ". Speedups are against each run's own cuBLASLt, but differences may "
                       "come from the machine.\n\n");
    }
}

static void stages_table(pg_text *t, const json_t *m)
{
    pg_text_addf(t, "### Stages (%lld paired workloads)\n\n", integer(m, "paired_workloads"));
    pg_text_add(t, "| stage | OLD pass rate | NEW pass rate | regressions | fixes | not "
                   "comparable | not judged | McNemar p (two-sided) |\n"
                   "|---|---|---|---|---|---|---|---|\n");
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(m, "stages"), i, s) {
        const json_t *mc = json_object_get(s, "mcnemar");
        pg_text_addf(t, "| %s | ", str(s, "stage"));
        rate_cell(t, json_object_get(s, "old"));
        pg_text_add(t, " | ");
        rate_cell(t, json_object_get(s, "new"));
        pg_text_addf(t, " | %lld | %lld | %lld | %lld | %.3g%s |\n", integer(s, "regressions"),
                     integer(s, "fixes"), integer(s, "not_comparable"),
                     integer(s, "not_judged"), num(mc, "p_value"),
                     json_is_true(json_object_get(mc, "significant_worse"))    ? " (worse)"
                     : json_is_true(json_object_get(mc, "significant_better")) ? " (better)"
                                                                               : "");
    }
    pg_text_add(t, "\nPass rates are over the judged workloads (pass + fail); errors and skips "
                   "are left out. A stage not run because an earlier one failed counts as "
                   "failed; *not comparable* = an infrastructure error on one side; *not "
                   "judged* = pairs where the stage did not run on a side (skipped): they are "
                   "in no rate and no transition.\n\n");
}

static void fast_p_cell(pg_text *t, const json_t *f, const char *side)
{
    char key[32];
    snprintf(key, sizeof key, "%s_judged", side);
    long long judged = integer(f, key);
    snprintf(key, sizeof key, "%s_count", side);
    if (judged > 0 && isfinite(num(f, side)))
        pg_text_addf(t, "%.3f (%lld/%lld)", num(f, side), integer(f, key), judged);
    else
        pg_text_add(t, "n/a (none judged)");
}

static void fast_p_table(pg_text *t, const json_t *m)
{
    pg_text_add(t, "### fast_p (correct and speedup > p, over the workloads whose speed was "
                   "judged)\n\n| p | OLD | NEW |\n|---|---|---|\n");
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(m, "fast_p"), i, f) {
        pg_text_addf(t, "| %.1f | ", num(f, "p"));
        fast_p_cell(t, f, "old");
        pg_text_add(t, " | ");
        fast_p_cell(t, f, "new");
        pg_text_add(t, " |\n");
    }
    pg_text_add(t, "\n");
}

static void geomean_row(pg_text *t, const char *label, const json_t *g)
{
    pg_text_addf(t, "| %s | %lld | ", label, integer(g, "n"));
    speedup_cell(t, num(g, "geomean"));
    pg_text_add(t, " | ");
    if (isfinite(num(g, "ci_low")) && isfinite(num(g, "ci_high"))) {
        pg_text_add(t, "[");
        num_text(t, num(g, "ci_low"), 3);
        pg_text_add(t, ", ");
        num_text(t, num(g, "ci_high"), 3);
        pg_text_add(t, "]");
    } else
        pg_text_add(t, "—");
    pg_text_add(t, " |\n");
}

static void speedup_section(pg_text *t, const json_t *m)
{
    const json_t *sp = json_object_get(m, "speedup");
    const json_t *set = json_object_get(m, "settings");
    pg_text_addf(t, "### Speedup vs cuBLASLt (geometric mean)\n\n| | workloads | geometric mean "
                    "| %.0f %% bootstrap interval |\n|---|---|---|---|\n",
                 100.0 * num(set, "confidence"));
    geomean_row(t, "OLD", json_object_get(sp, "old"));
    geomean_row(t, "NEW", json_object_get(sp, "new"));
    geomean_row(t, "NEW / OLD (paired)", json_object_get(sp, "ratio"));
    const json_t *w = json_object_get(sp, "wilcoxon");
    pg_text_addf(t, "\nWilcoxon signed-rank on log(NEW / OLD): %lld pairs (%lld equal, "
                    "dropped), W+ = ",
                 integer(w, "n"), integer(w, "zeros"));
    num_text(t, num(w, "w_plus"), 1);
    pg_text_add(t, ", W− = ");
    num_text(t, num(w, "w_minus"), 1);
    pg_text_add(t, ", ");
    if (isfinite(num(w, "p_value")))
        pg_text_addf(t, "p = %.3g (two-sided, %s), NEW %s%s.\n\n", num(w, "p_value"),
                     str(w, "method"),
                     strcmp(str(w, "direction"), "worse") == 0    ? "slower"
                     : strcmp(str(w, "direction"), "better") == 0 ? "faster"
                                                                  : "unchanged",
                     json_is_true(json_object_get(w, "significant_worse")) ||
                             json_is_true(json_object_get(w, "significant_better"))
                         ? ", significant"
                         : "");
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

static void tasks_section(pg_text *t, const json_t *m)
{
    const json_t *tasks = json_object_get(m, "tasks");
    size_t n = json_array_size(tasks), i;
    if (n == 0)
        return;
    const json_t *k;
    double top = 0.0;
    json_array_foreach(tasks, i, k) top =
        fmax(top, fmax(isfinite(num(k, "old_geomean")) ? num(k, "old_geomean") : 0.0,
                       isfinite(num(k, "new_geomean")) ? num(k, "new_geomean") : 0.0));
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
        k = json_array_get(tasks, i);
        for (int s = 0; s < 2; s++) {
            pg_text_add(t, i || s ? ", " : "");
            chart_label(t, str(k, "task"));
            pg_text_add(t, s ? " NEW\"" : " OLD\"");
        }
    }
    pg_text_addf(t, "]\n    y-axis \"speedup (x)\" 0 --> %.2f\n    bar [",
                 top > 0 ? ceil(top * 11.0) / 10.0 : 1.0);
    for (i = 0; i < shown; i++) {
        k = json_array_get(tasks, i);
        double a = num(k, "old_geomean"), b = num(k, "new_geomean");
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
    json_array_foreach(tasks, i, k) {
        pg_text_add(t, "| ");
        esc(t, str(k, "task"));
        pg_text_addf(t, " | %lld | %lld | %lld | ", integer(k, "workloads"),
                     integer(k, "old_correct"), integer(k, "new_correct"));
        speedup_cell(t, num(k, "old_geomean"));
        pg_text_add(t, " | ");
        speedup_cell(t, num(k, "new_geomean"));
        pg_text_add(t, " |\n");
    }
    pg_text_add(t, "\nA task's bar is 0 where no workload of it has a speedup on that side "
                   "(none was correct, or the performance stage did not run).\n\n");
}

static void changes_section(pg_text *t, const json_t *m)
{
    const json_t *recs = json_object_get(m, "workloads");
    size_t i, j, changed = 0;
    const json_t *r, *c;
    json_array_foreach(recs, i, r) changed += json_array_size(json_object_get(r, "changes")) > 0;
    pg_text_addf(t, "### Changed workloads (%zu)\n\n", changed);
    if (changed == 0) {
        pg_text_add(t, "No stage outcome changed.\n\n");
        return;
    }
    pg_text_add(t, "| task | submission | workload | changes | source | OLD speedup | NEW "
                   "speedup |\n|---|---|---|---|---|---|---|\n");
    size_t rows = 0;
    json_array_foreach(recs, i, r) {
        const json_t *changes = json_object_get(r, "changes");
        if (json_array_size(changes) == 0)
            continue;
        if (rows++ == CHANGED_ROWS_MAX)
            break;
        pg_text_add(t, "| ");
        esc(t, str(r, "task"));
        pg_text_add(t, " | ");
        esc(t, str(r, "submission"));
        pg_text_add(t, " | ");
        esc(t, str(r, "workload"));
        pg_text_add(t, " | ");
        json_array_foreach(changes, j, c) {
            const char *kind = str(c, "kind");
            pg_text_addf(t, "%s%s %s → %s%s", j ? "; " : "", str(c, "stage"), str(c, "old"),
                         str(c, "new"),
                         strcmp(kind, "regression") == 0 ? " **(regression)**"
                         : strcmp(kind, "fix") == 0      ? " (fix)"
                                                         : " (not comparable)");
            const json_t *ex = json_object_get(c, "explained_by");
            size_t e;
            const json_t *why;
            json_array_foreach(ex, e, why) {
                pg_text_add(t, e ? ", " : " (settings differ: ");
                esc(t, json_string_value(why));
            }
            if (json_array_size(ex) > 0)
                pg_text_add(t, ")");
        }
        const char *rel = str(r, "source");
        pg_text_addf(t, " | %s | ", strcmp(rel, "differs") == 0 ? "**differs**"
                                    : strcmp(rel, "same") == 0  ? "same"
                                                                : "—");
        speedup_cell(t, num(json_object_get(r, "old"), "speedup"));
        pg_text_add(t, " | ");
        speedup_cell(t, num(json_object_get(r, "new"), "speedup"));
        pg_text_add(t, " |\n");
    }
    if (changed > CHANGED_ROWS_MAX)
        pg_text_addf(t, "\n… %zu more in compare.json.\n", changed - CHANGED_ROWS_MAX);
    pg_text_add(t, "\n");
}

static void unpaired_section(pg_text *t, const json_t *m)
{
    const json_t *u = json_object_get(m, "unpaired");
    if (json_array_size(u) == 0)
        return;
    pg_text_addf(t, "### Unpaired (%zu, not compared)\n\n", json_array_size(u));
    size_t i;
    const json_t *e;
    json_array_foreach(u, i, e) {
        if (i == CHANGED_ROWS_MAX) {
            pg_text_addf(t, "- … %zu more in compare.json\n", json_array_size(u) - i);
            break;
        }
        pg_text_addf(t, "- only in %s: ", strcmp(str(e, "side"), "old") == 0 ? "OLD" : "NEW");
        esc(t, str(e, "task"));
        pg_text_add(t, " / ");
        esc(t, str(e, "submission"));
        if (json_is_string(json_object_get(e, "workload"))) {
            pg_text_add(t, " / ");
            esc(t, str(e, "workload"));
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
    pg_res_locale loc;
    pg_status st = pg_res_locale_enter(&loc, d);
    if (st != PG_OK)
        return st;
    pg_text t;
    pg_text_init(&t, PG_COMPARE_MARKDOWN_MAX_BYTES);
    header(&t, model);
    stages_table(&t, model);
    fast_p_table(&t, model);
    speedup_section(&t, model);
    tasks_section(&t, model);
    changes_section(&t, model);
    unpaired_section(&t, model);
    const json_t *set = json_object_get(model, "settings");
    pg_text_addf(&t, "<sub>ptxgate %s compare: tests at alpha %.3g; fails on ",
                 str(json_object_get(model, "tool"), "version"), num(set, "alpha"));
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(set, "fail_on"), i, f)
        pg_text_addf(&t, "%s%s", i ? ", " : "", json_string_value(f));
    pg_text_add(&t, json_array_size(json_object_get(set, "fail_on")) ? "" : "nothing (never)");
    pg_text_add(&t, ".</sub>\n");
    pg_res_locale_leave(&loc);
    if (t.oom) {
        pg_text_free(&t);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory rendering markdown");
    }
    *out = pg_text_take(&t, len);
    return PG_OK;
}
