/* History at a glance: many results files (one per commit of a kernel repository, or one per
 * model version) ordered by their run metadata and turned into a history model, typed records
 * of runs, series and points (docs/history.md) that the markdown writer (a table and mermaid
 * xychart-beta charts of speedup vs the vendor library per task, submission and workload) and
 * the SVG writer (the same charts, written with libxml2) render.
 *
 * Calling sequence:
 *     pg_history_model model;
 *     if (pg_history_build(roots, files, n, PG_HISTORY_BY_TIME, &model, d) != PG_OK) ...
 *     pg_history_markdown(&model, &md, &md_len, d);   // history.md
 *     pg_history_svg(&model, &svg, &svg_len, d);      // history.svg
 *     pg_history_model_free(&model);
 *
 * The run metadata is the results' optional "run" object, {"label", "commit",
 * "commit_time_utc"} (docs/results.md), written by `ptxgate check --label --commit
 * --commit-time`; pg_history_run_meta builds and checks it.
 *
 * Hook for `ptxgate compare` (a model-version comparison gets the same chart over versions):
 * build a model from its OLD and NEW roots (or more versions, in order) with PG_HISTORY_BY_INPUT
 * and append pg_history_charts_markdown(&model, ...) to its markdown. */
#ifndef PG_REPORT_HISTORY_H
#define PG_REPORT_HISTORY_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"
#include "report/results_read.h"

/* Most results files one history takes. */
#define PG_HISTORY_MAX_RUNS 1000u
/* Charts drawn: at most this many (task, submission) groups, lines per chart, and the last this
 * many runs per chart; the table has every run and series. */
#define PG_HISTORY_MAX_CHARTS 30u
#define PG_HISTORY_MAX_LINES 8u
#define PG_HISTORY_CHART_RUNS 100u

typedef enum {
    PG_HISTORY_BY_TIME,  /* run.commit_time_utc, else started_utc; ties by file name */
    PG_HISTORY_BY_LABEL, /* run.label in natural (version) order: "v2" < "v10"; runs without a
                            label after those with one, by time */
    PG_HISTORY_BY_INPUT  /* the order given */
} pg_history_order;

/* Parse "time", "label" or "input". Errors: PG_ERR_INPUT naming --by. */
pg_status pg_history_order_parse(const char *s, pg_history_order *out, pg_diag *d);

/* The results "run" object from check's options, each NULL when not given: label (1-100 bytes
 * of printable UTF-8, no control characters), commit (7-64 hex digits, lower-cased), commit_time
 * (ISO 8601 "YYYY-MM-DDTHH:MM:SSZ" or with an offset "+HH:MM"/"-HH:MM", as `git log
 * --format=%cI` prints it; stored converted to UTC, "…Z"). *out is a new object (NULL when all
 * three are NULL). Errors: PG_ERR_INPUT naming the option (--label, --commit, --commit-time)
 * and what was expected. */
pg_status pg_history_run_meta(const char *label, const char *commit, const char *commit_time,
                              json_t **out, pg_diag *d);

/* ---- the model ---- */

/* One run, in history order. Strings are owned by the model; NULL where the results have none
 * (label, commit, commit_time_utc: the "run" record; tool_version; gpu: environment.gpu.name). */
typedef struct {
    char *file;            /* files[i] of pg_history_build ("results.json" for NULL) */
    char *label, *commit, *commit_time_utc;
    char *started_utc;     /* never NULL */
    char *tool_version, *gpu;
    pg_res_status verdict; /* the run's verdict (pass | fail | error) */
} pg_history_run;

/* One series' value in one run. */
typedef struct {
    pg_res_num speedup;    /* speedup.estimate of the performance stage (vendor time / kernel
                              time); has is false where the run measured none or the timing
                              is void */
    bool present;          /* the run has this workload */
    bool void_timing;      /* the submission's verify stage failed or errored in that run (a
                              timing that must not be read, docs/reports.md) */
    pg_res_status verdict; /* the workload's verdict, when present and not void */
} pg_history_point;

/* One (task, submission, workload) over the runs. */
typedef struct {
    char *task, *submission, *workload; /* owned */
    pg_history_point *points;           /* one per run, owned */
} pg_history_series;

typedef struct {
    pg_history_order order;
    pg_history_run *runs;      /* owned, in history order */
    size_t n_runs;
    pg_history_series *series; /* owned, in order of first appearance over the ordered runs */
    size_t n_series;
} pg_history_model;

/* The model of n results roots (files[i] names roots[i] in diagnostics and in the model), each
 * read with pg_results_read's checks (and its "run" object, when present, checked as above),
 * ordered by `by`, into *out (zeroed first). The first of duplicate (task, submission,
 * workload) records in a run counts. The model owns copies of what it keeps: the roots may be
 * released after. Errors: PG_ERR_INPUT for a malformed results file (naming it and the JSON
 * path), n == 0 or n > PG_HISTORY_MAX_RUNS; PG_ERR_INFRA on out-of-memory. On error *out holds
 * nothing to free. */
pg_status pg_history_build(const json_t *const *roots, const char *const *files, size_t n,
                           pg_history_order by, pg_history_model *out, pg_diag *d);

/* Release what m owns and zero it (m may be zeroed already). */
void pg_history_model_free(pg_history_model *m);

/* history.md: a title, the runs table (#, run label, commit, time, verdict, GPU, file), then per
 * (task, submission) a table (workloads × runs: "0.878×", a status word, or "—") and a mermaid
 * xychart-beta line chart of the speedup over the runs, one line per workload that has a
 * speedup in every charted run (mermaid has no gaps and no legend: the lines are named in
 * order under the chart). Untrusted names are escaped as in the results summary; labels inside
 * mermaid keep only [A-Za-z0-9 ._:/+-]. *out is malloc'd (the caller frees it), *len (may be
 * NULL) its length. Errors: PG_ERR_INFRA on out-of-memory (or when the C numeric locale cannot
 * be entered). */
pg_status pg_history_markdown(const pg_history_model *m, char **out, size_t *len, pg_diag *d);

/* The charts alone (one "```mermaid" block per (task, submission), with their line names),
 * for other reports (the compare hook above). Same ownership and errors. */
pg_status pg_history_charts_markdown(const pg_history_model *m, char **out, size_t *len,
                                     pg_diag *d);

/* history.svg: an SVG 1.1 document written with libxml2's text writer, one panel per (task,
 * submission) (at most PG_HISTORY_MAX_CHARTS): axes, a y scale from 0 to the largest speedup
 * (at least 1.0, with a dashed line at 1.0 = the vendor's speed), one polyline per workload
 * (gaps where a run has no speedup), run numbers on the x axis and a legend. Deterministic:
 * coordinates "%.1f". Errors: PG_ERR_INFRA when libxml2 fails or memory runs out. */
pg_status pg_history_svg(const pg_history_model *m, char **out, size_t *len, pg_diag *d);

#endif
