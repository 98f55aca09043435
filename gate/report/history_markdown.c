/* history.md: the runs table, per (task, submission) a table of speedups over the runs and a
 * mermaid xychart-beta chart (see history.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history.h"
#include "report/markdown.h"
#include "report/results_read.h"

#define NAME_MAX_BYTES 200
#define TABLE_RUNS 40 /* run columns of a table: the last ones (the runs table has all) */

static const char *sv(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : NULL;
}

/* Escaped inline text (pg_report_markdown_inline), or "—". */
static void md(pg_text *t, const char *s)
{
    if (!s || !s[0]) {
        pg_text_add(t, "—");
        return;
    }
    char *e = pg_report_markdown_inline(s, NAME_MAX_BYTES);
    if (!e) {
        t->oom = true;
        return;
    }
    pg_text_add(t, e);
    free(e);
}

/* Text inside a mermaid string: only [A-Za-z0-9 ._:/+-], the rest '_', at most 40 bytes
 * (mermaid strings cannot escape '"', and a chart label needs no more). */
static void mermaid_text(pg_text *t, const char *s)
{
    size_t n = 0;
    for (; s && *s && n < 40; s++, n++) {
        char c = *s;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == ' ' || c == '.' || c == '_' || c == ':' || c == '/' || c == '+' || c == '-';
        pg_text_addn(t, ok ? &c : "_", 1);
    }
}

/* What names a run: its label, else its commit (12 digits), else its start time. */
static const char *run_name(const json_t *run, char *buf, size_t n)
{
    if (sv(run, "label"))
        return sv(run, "label");
    if (sv(run, "commit")) {
        snprintf(buf, n, "%.12s", sv(run, "commit"));
        return buf;
    }
    return sv(run, "started_utc") ? sv(run, "started_utc") : "?";
}

static pg_status check_model(const json_t *m, pg_diag *d)
{
    const json_t *runs = json_object_get(m, "runs"), *series = json_object_get(m, "series");
    if (!json_is_array(runs) || !json_is_array(series))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "runs", "expected a history model");
    size_t i, n = json_array_size(runs);
    const json_t *s;
    json_array_foreach(series, i, s)
        if (!sv(s, "task") || !sv(s, "submission") || !sv(s, "workload") ||
            json_array_size(json_object_get(s, "speedup")) != n ||
            json_array_size(json_object_get(s, "status")) != n)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "series",
                               "expected task, submission, workload and one speedup and "
                               "status per run");
    return PG_OK;
}

/* The series of the same (task, submission) as series[first]: their indices into idx (at most
 * cap), count returned. */
static size_t group_of(const json_t *series, size_t first, size_t *idx, size_t cap)
{
    const json_t *f = json_array_get(series, first);
    size_t n = 0, i;
    const json_t *s;
    json_array_foreach(series, i, s)
        if (strcmp(sv(s, "task"), sv(f, "task")) == 0 &&
            strcmp(sv(s, "submission"), sv(f, "submission")) == 0 && n < cap)
            idx[n++] = i;
    return n;
}

/* True when series[i] is the first of its group. */
static bool group_first(const json_t *series, size_t i)
{
    const json_t *f = json_array_get(series, i);
    for (size_t k = 0; k < i; k++) {
        const json_t *s = json_array_get(series, k);
        if (strcmp(sv(s, "task"), sv(f, "task")) == 0 &&
            strcmp(sv(s, "submission"), sv(f, "submission")) == 0)
            return false;
    }
    return true;
}

static void write_chart(pg_text *t, const json_t *m, const json_t *series, const size_t *idx,
                        size_t n_idx)
{
    const json_t *runs = json_object_get(m, "runs");
    size_t n_runs = json_array_size(runs);
    size_t from = n_runs > PG_HISTORY_CHART_RUNS ? n_runs - PG_HISTORY_CHART_RUNS : 0;
    /* Lines: the workloads with a speedup in every charted run. */
    size_t lines[PG_HISTORY_MAX_LINES], n_lines = 0, left_out = 0;
    double top = 1.0;
    for (size_t q = 0; q < n_idx; q++) {
        const json_t *sp = json_object_get(json_array_get(series, idx[q]), "speedup");
        bool full = true;
        for (size_t k = from; k < n_runs && full; k++)
            full = json_is_number(json_array_get(sp, k));
        if (!full || n_lines == PG_HISTORY_MAX_LINES) {
            left_out++;
            continue;
        }
        lines[n_lines++] = idx[q];
        for (size_t k = from; k < n_runs; k++)
            top = fmax(top, json_number_value(json_array_get(sp, k)));
    }
    const json_t *f = json_array_get(series, idx[0]);
    if (n_lines == 0) {
        pg_text_add(t, "No chart: no workload has a speedup in every run (see the table).\n\n");
        return;
    }
    pg_text_add(t, "```mermaid\nxychart-beta\n    title \"");
    mermaid_text(t, sv(f, "task"));
    pg_text_add(t, " / ");
    mermaid_text(t, sv(f, "submission"));
    pg_text_add(t, ": speedup vs vendor\"\n    x-axis [");
    char nb[64];
    for (size_t k = from; k < n_runs; k++) {
        pg_text_addf(t, "%s\"%zu ", k > from ? ", " : "", k + 1);
        mermaid_text(t, run_name(json_array_get(runs, k), nb, sizeof nb));
        pg_text_add(t, "\"");
    }
    pg_text_addf(t, "]\n    y-axis \"speedup (vendor time / kernel time)\" 0 --> %.2f\n",
                 ceil(top * 11.0) / 10.0);
    for (size_t q = 0; q < n_lines; q++) {
        const json_t *sp = json_object_get(json_array_get(series, lines[q]), "speedup");
        pg_text_add(t, "    line [");
        for (size_t k = from; k < n_runs; k++)
            pg_text_addf(t, "%s%.4f", k > from ? ", " : "",
                         json_number_value(json_array_get(sp, k)));
        pg_text_add(t, "]\n");
    }
    pg_text_add(t, "```\n\nLines, in drawing order: ");
    for (size_t q = 0; q < n_lines; q++) {
        pg_text_addf(t, "%s%zu. ", q ? "; " : "", q + 1);
        md(t, sv(json_array_get(series, lines[q]), "workload"));
    }
    if (left_out)
        pg_text_addf(t, " (%zu more workload%s without a speedup in every run, or past %u "
                        "lines: in the table)",
                     left_out, left_out == 1 ? "" : "s", PG_HISTORY_MAX_LINES);
    if (from)
        pg_text_addf(t, "; the chart shows the last %u runs", PG_HISTORY_CHART_RUNS);
    pg_text_add(t, ".\n\n");
}

static void write_table(pg_text *t, const json_t *m, const json_t *series, const size_t *idx,
                        size_t n_idx)
{
    size_t n_runs = json_array_size(json_object_get(m, "runs"));
    size_t from = n_runs > TABLE_RUNS ? n_runs - TABLE_RUNS : 0;
    pg_text_add(t, "| workload |");
    for (size_t k = from; k < n_runs; k++)
        pg_text_addf(t, " %zu |", k + 1);
    pg_text_add(t, "\n|---|");
    for (size_t k = from; k < n_runs; k++)
        pg_text_add(t, "--:|");
    pg_text_add(t, "\n");
    for (size_t q = 0; q < n_idx; q++) {
        const json_t *s = json_array_get(series, idx[q]);
        pg_text_add(t, "| ");
        md(t, sv(s, "workload"));
        pg_text_add(t, " |");
        for (size_t k = from; k < n_runs; k++) {
            const json_t *x = json_array_get(json_object_get(s, "speedup"), k);
            const char *w = json_string_value(json_array_get(json_object_get(s, "status"), k));
            if (json_is_number(x))
                pg_text_addf(t, " %.3f×%s |", json_number_value(x),
                             w && strcmp(w, "PASS") != 0 ? w[0] == 'F' ? " FAIL" : " ERROR" : "");
            else if (w && strcmp(w, "VOID") == 0)
                pg_text_add(t, " timing void: failed verify |");
            else
                pg_text_addf(t, " %s |", w ? w : "—");
        }
        pg_text_add(t, "\n");
    }
    if (from)
        pg_text_addf(t, "\nThe table shows the last %u runs.\n", TABLE_RUNS);
    pg_text_add(t, "\n");
}

static pg_status render(const json_t *m, bool whole, char **out, size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_status st = check_model(m, d);
    if (st != PG_OK)
        return st;
    pg_res_locale loc = {0};
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK)
        return st;
    pg_text t;
    pg_text_init(&t, 4u * 1024u * 1024u);
    pg_text_add(&t, "");
    const json_t *runs = json_object_get(m, "runs"), *series = json_object_get(m, "series");
    size_t n_runs = json_array_size(runs);
    if (whole) {
        const char *order = sv(m, "order") ? sv(m, "order") : "input";
        pg_text_addf(&t, "## ptxgate history: %zu run%s\n\nOrdered by %s. Speedup = the vendor "
                         "library's time / the kernel's time on the same GPU in the same run "
                         "(above 1: faster than the vendor); a run whose verify stage failed "
                         "shows no timing.\n\n",
                     n_runs, n_runs == 1 ? "" : "s",
                     strcmp(order, "time") == 0    ? "commit time (else start time)"
                     : strcmp(order, "label") == 0 ? "label (natural order: v2 before v10)"
                                                   : "the order given");
        pg_text_add(&t, "| # | run | commit | time (UTC) | verdict | GPU | results |\n"
                        "|--:|---|---|---|---|---|---|\n");
        char nb[64];
        for (size_t k = 0; k < n_runs; k++) {
            const json_t *r = json_array_get(runs, k);
            pg_text_addf(&t, "| %zu | ", k + 1);
            md(&t, run_name(r, nb, sizeof nb));
            pg_text_add(&t, " | ");
            snprintf(nb, sizeof nb, "%.12s", sv(r, "commit") ? sv(r, "commit") : "");
            md(&t, nb);
            pg_text_add(&t, " | ");
            md(&t, sv(r, "commit_time_utc") ? sv(r, "commit_time_utc") : sv(r, "started_utc"));
            pg_text_add(&t, " | ");
            md(&t, sv(r, "verdict"));
            pg_text_add(&t, " | ");
            md(&t, sv(r, "gpu") ? sv(r, "gpu") : "no GPU");
            pg_text_add(&t, " | ");
            md(&t, sv(r, "file"));
            pg_text_add(&t, " |\n");
        }
        pg_text_add(&t, "\n");
    }
    size_t *idx = calloc(json_array_size(series) + 1, sizeof *idx);
    if (!idx)
        t.oom = true;
    size_t groups = 0;
    for (size_t i = 0; idx && i < json_array_size(series); i++) {
        if (!group_first(series, i))
            continue;
        size_t n_idx = group_of(series, i, idx, json_array_size(series));
        const json_t *f = json_array_get(series, i);
        if (whole) {
            pg_text_add(&t, "### ");
            md(&t, sv(f, "task"));
            pg_text_add(&t, " / ");
            md(&t, sv(f, "submission"));
            pg_text_add(&t, "\n\n");
            write_table(&t, m, series, idx, n_idx);
        }
        if (groups++ < PG_HISTORY_MAX_CHARTS)
            write_chart(&t, m, series, idx, n_idx);
        else if (groups == PG_HISTORY_MAX_CHARTS + 1)
            pg_text_addf(&t, "Charts are drawn for the first %u submissions only.\n\n",
                         PG_HISTORY_MAX_CHARTS);
    }
    free(idx);
    pg_res_locale_leave(&loc);
    if (t.oom) {
        pg_text_free(&t);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory rendering history");
    }
    *out = pg_text_take(&t, len);
    return PG_OK;
}

pg_status pg_history_markdown(const json_t *model, char **out, size_t *len, pg_diag *d)
{
    return render(model, true, out, len, d);
}

pg_status pg_history_charts_markdown(const json_t *model, char **out, size_t *len, pg_diag *d)
{
    return render(model, false, out, len, d);
}
