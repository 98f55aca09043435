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
static const char *run_name(const pg_history_run *run, char *buf, size_t n)
{
    if (run->label)
        return run->label;
    if (run->commit) {
        snprintf(buf, n, "%.12s", run->commit);
        return buf;
    }
    return run->started_utc ? run->started_utc : "?";
}

static bool same_group(const pg_history_series *a, const pg_history_series *b)
{
    return strcmp(a->task, b->task) == 0 && strcmp(a->submission, b->submission) == 0;
}

/* The series of the same (task, submission) as series[first]: their indices into idx (at most
 * cap), count returned. */
static size_t group_of(const pg_history_model *v, size_t first, size_t *idx, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n_series; i++)
        if (same_group(&v->series[i], &v->series[first]) && n < cap)
            idx[n++] = i;
    return n;
}

/* True when series[i] is the first of its group. */
static bool group_first(const pg_history_model *v, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (same_group(&v->series[k], &v->series[i]))
            return false;
    return true;
}

static void write_chart(pg_text *t, const pg_history_model *v, const size_t *idx, size_t n_idx)
{
    size_t n_runs = v->n_runs;
    size_t from = n_runs > PG_HISTORY_CHART_RUNS ? n_runs - PG_HISTORY_CHART_RUNS : 0;
    /* Lines: the workloads with a speedup in every charted run. */
    size_t lines[PG_HISTORY_MAX_LINES], n_lines = 0, left_out = 0;
    double top = 1.0;
    for (size_t q = 0; q < n_idx; q++) {
        const pg_history_point *p = v->series[idx[q]].points;
        bool full = true;
        for (size_t k = from; k < n_runs && full; k++)
            full = p[k].speedup.has;
        if (!full || n_lines == PG_HISTORY_MAX_LINES) {
            left_out++;
            continue;
        }
        lines[n_lines++] = idx[q];
        for (size_t k = from; k < n_runs; k++)
            top = fmax(top, p[k].speedup.v);
    }
    const pg_history_series *f = &v->series[idx[0]];
    if (n_lines == 0) {
        pg_text_add(t, "No chart: no workload has a speedup in every run (see the table).\n\n");
        return;
    }
    pg_text_add(t, "```mermaid\nxychart-beta\n    title \"");
    mermaid_text(t, f->task);
    pg_text_add(t, " / ");
    mermaid_text(t, f->submission);
    pg_text_add(t, ": speedup vs vendor\"\n    x-axis [");
    char nb[64];
    for (size_t k = from; k < n_runs; k++) {
        pg_text_addf(t, "%s\"%zu ", k > from ? ", " : "", k + 1);
        mermaid_text(t, run_name(&v->runs[k], nb, sizeof nb));
        pg_text_add(t, "\"");
    }
    pg_text_addf(t, "]\n    y-axis \"speedup (vendor time / kernel time)\" 0 --> %.2f\n",
                 ceil(top * 11.0) / 10.0);
    for (size_t q = 0; q < n_lines; q++) {
        const pg_history_point *p = v->series[lines[q]].points;
        pg_text_add(t, "    line [");
        for (size_t k = from; k < n_runs; k++)
            pg_text_addf(t, "%s%.4f", k > from ? ", " : "", p[k].speedup.v);
        pg_text_add(t, "]\n");
    }
    pg_text_add(t, "```\n\nLines, in drawing order: ");
    for (size_t q = 0; q < n_lines; q++) {
        pg_text_addf(t, "%s%zu. ", q ? "; " : "", q + 1);
        md(t, v->series[lines[q]].workload);
    }
    if (left_out)
        pg_text_addf(t, " (%zu more workload%s without a speedup in every run, or past %u "
                        "lines: in the table)",
                     left_out, left_out == 1 ? "" : "s", PG_HISTORY_MAX_LINES);
    if (from)
        pg_text_addf(t, "; the chart shows the last %u runs", PG_HISTORY_CHART_RUNS);
    pg_text_add(t, ".\n\n");
}

/* A cell of the table: the speedup (with FAIL or ERROR after it unless the workload passed),
 * else the void timing, else the verdict word, else "—". */
static void write_cell(pg_text *t, const pg_history_point *p)
{
    bool passed = p->present && !p->void_timing && p->verdict == PG_RES_PASS;
    bool failed = p->present && !p->void_timing && p->verdict == PG_RES_FAIL;
    if (p->speedup.has)
        pg_text_addf(t, " %.3f×%s |", p->speedup.v,
                     p->present && !passed ? failed ? " FAIL" : " ERROR" : "");
    else if (p->void_timing)
        pg_text_add(t, " timing void: failed verify |");
    else
        pg_text_addf(t, " %s |", p->present ? pg_res_status_word(p->verdict) : "—");
}

static void write_table(pg_text *t, const pg_history_model *v, const size_t *idx, size_t n_idx)
{
    size_t n_runs = v->n_runs;
    size_t from = n_runs > TABLE_RUNS ? n_runs - TABLE_RUNS : 0;
    pg_text_add(t, "| workload |");
    for (size_t k = from; k < n_runs; k++)
        pg_text_addf(t, " %zu |", k + 1);
    pg_text_add(t, "\n|---|");
    for (size_t k = from; k < n_runs; k++)
        pg_text_add(t, "--:|");
    pg_text_add(t, "\n");
    for (size_t q = 0; q < n_idx; q++) {
        const pg_history_series *s = &v->series[idx[q]];
        pg_text_add(t, "| ");
        md(t, s->workload);
        pg_text_add(t, " |");
        for (size_t k = from; k < n_runs; k++)
            write_cell(t, &s->points[k]);
        pg_text_add(t, "\n");
    }
    if (from)
        pg_text_addf(t, "\nThe table shows the last %u runs.\n", TABLE_RUNS);
    pg_text_add(t, "\n");
}

static pg_status render(const pg_history_model *v, bool whole, char **out, size_t *len,
                        pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_res_locale loc = {0};
    pg_status st = pg_res_locale_enter(&loc, d);
    if (st != PG_OK)
        return st;
    pg_text t;
    pg_text_init(&t, 4u * 1024u * 1024u);
    pg_text_add(&t, "");
    size_t n_runs = v->n_runs;
    if (whole) {
        pg_text_addf(&t, "## ptxgate history: %zu run%s\n\nOrdered by %s. Speedup = the vendor "
                         "library's time / the kernel's time on the same GPU in the same run "
                         "(above 1: faster than the vendor); a run whose verify stage failed "
                         "shows no timing.\n\n",
                     n_runs, n_runs == 1 ? "" : "s",
                     v->order == PG_HISTORY_BY_TIME    ? "commit time (else start time)"
                     : v->order == PG_HISTORY_BY_LABEL ? "label (natural order: v2 before v10)"
                                                       : "the order given");
        pg_text_add(&t, "| # | run | commit | time (UTC) | verdict | GPU | results |\n"
                        "|--:|---|---|---|---|---|---|\n");
        char nb[64];
        for (size_t k = 0; k < n_runs; k++) {
            const pg_history_run *r = &v->runs[k];
            pg_text_addf(&t, "| %zu | ", k + 1);
            md(&t, run_name(r, nb, sizeof nb));
            pg_text_add(&t, " | ");
            snprintf(nb, sizeof nb, "%.12s", r->commit ? r->commit : "");
            md(&t, nb);
            pg_text_add(&t, " | ");
            md(&t, r->commit_time_utc ? r->commit_time_utc : r->started_utc);
            pg_text_add(&t, " | ");
            md(&t, pg_res_status_name(r->verdict));
            pg_text_add(&t, " | ");
            md(&t, r->gpu ? r->gpu : "no GPU");
            pg_text_add(&t, " | ");
            md(&t, r->file);
            pg_text_add(&t, " |\n");
        }
        pg_text_add(&t, "\n");
    }
    size_t *idx = calloc(v->n_series + 1, sizeof *idx);
    if (!idx)
        t.oom = true;
    size_t groups = 0;
    for (size_t i = 0; idx && i < v->n_series; i++) {
        if (!group_first(v, i))
            continue;
        size_t n_idx = group_of(v, i, idx, v->n_series);
        const pg_history_series *f = &v->series[i];
        if (whole) {
            pg_text_add(&t, "### ");
            md(&t, f->task);
            pg_text_add(&t, " / ");
            md(&t, f->submission);
            pg_text_add(&t, "\n\n");
            write_table(&t, v, idx, n_idx);
        }
        if (groups++ < PG_HISTORY_MAX_CHARTS)
            write_chart(&t, v, idx, n_idx);
        else if (groups == PG_HISTORY_MAX_CHARTS + 1)
            pg_text_addf(&t, "Charts are drawn for the first %u submissions only.\n\n",
                         PG_HISTORY_MAX_CHARTS);
    }
    free(idx);
    pg_res_locale_leave(&loc);
    return pg_text_finish(&t, NULL, "out of memory rendering history", out, len, d);
}

pg_status pg_history_markdown(const pg_history_model *m, char **out, size_t *len, pg_diag *d)
{
    return render(m, true, out, len, d);
}

pg_status pg_history_charts_markdown(const pg_history_model *m, char **out, size_t *len,
                                     pg_diag *d)
{
    return render(m, false, out, len, d);
}
