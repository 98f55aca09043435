/* The history model read back into typed records for its writers (see history.h): the one
 * place history.md and history.svg look into the model's json. */
#include "history.h"

#include <stdlib.h>
#include <string.h>

static pg_status bad_runs(pg_diag *d)
{
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "runs", "expected a history model");
}

static pg_status bad_series(pg_diag *d)
{
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "series",
                       "expected task, submission, workload and one speedup and status per run");
}

/* A member that must be a string or null (absent reads as null); false for another type. */
static bool str_or_null(const json_t *o, const char *key, const char **out)
{
    const json_t *v = json_object_get(o, key);
    *out = json_string_value(v);
    return !v || json_is_null(v) || json_is_string(v);
}

static pg_status read_run(const json_t *r, pg_history_run *out, pg_diag *d)
{
    const char *verdict = NULL;
    if (!json_is_object(r) || !str_or_null(r, "file", &out->file) ||
        !str_or_null(r, "label", &out->label) || !str_or_null(r, "commit", &out->commit) ||
        !str_or_null(r, "commit_time_utc", &out->commit_time_utc) ||
        !str_or_null(r, "started_utc", &out->started_utc) ||
        !str_or_null(r, "tool_version", &out->tool_version) || !str_or_null(r, "gpu", &out->gpu) ||
        !str_or_null(r, "verdict", &verdict))
        return bad_runs(d);
    out->has_verdict = verdict != NULL;
    if (verdict && !pg_res_status_parse(verdict, &out->verdict))
        return bad_runs(d);
    return PG_OK;
}

/* "PASS", "FAIL", "ERROR", "SKIPPED" (pg_res_status_word) or "VOID" into *p. */
static bool read_status_word(const char *w, pg_history_point *p)
{
    if (strcmp(w, "VOID") == 0) {
        p->present = p->void_timing = true;
        return true;
    }
    static const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(w, pg_res_status_word(all[i])) == 0) {
            p->present = true;
            p->verdict = all[i];
            return true;
        }
    return false;
}

static pg_status read_series(const json_t *s, size_t n_runs, pg_history_series *out, pg_diag *d)
{
    const json_t *sp = json_object_get(s, "speedup"), *stv = json_object_get(s, "status");
    out->task = json_string_value(json_object_get(s, "task"));
    out->submission = json_string_value(json_object_get(s, "submission"));
    out->workload = json_string_value(json_object_get(s, "workload"));
    if (!out->task || !out->submission || !out->workload || !json_is_array(sp) ||
        !json_is_array(stv) || json_array_size(sp) != n_runs || json_array_size(stv) != n_runs)
        return bad_series(d);
    if (n_runs && !(out->points = calloc(n_runs, sizeof *out->points)))
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t k = 0; k < n_runs; k++) {
        pg_history_point *p = &out->points[k];
        const json_t *x = json_array_get(sp, k), *w = json_array_get(stv, k);
        if (json_is_number(x))
            p->speedup = (pg_res_num){true, json_number_value(x)};
        else if (!json_is_null(x))
            return bad_series(d);
        if (json_is_string(w) ? !read_status_word(json_string_value(w), p) : !json_is_null(w))
            return bad_series(d);
    }
    return PG_OK;
}

pg_status pg_history_view_read(const json_t *model, pg_history_view *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    const json_t *runs = json_object_get(model, "runs"), *series = json_object_get(model, "series");
    if (!json_is_array(runs) || !json_is_array(series))
        return bad_runs(d);
    const char *order = json_string_value(json_object_get(model, "order"));
    pg_diag ignored;
    pg_diag_clear(&ignored);
    if (!order || pg_history_order_parse(order, &out->order, &ignored) != PG_OK)
        out->order = PG_HISTORY_BY_INPUT;
    size_t nr = json_array_size(runs), ns = json_array_size(series);
    if ((nr && !(out->runs = calloc(nr, sizeof *out->runs))) ||
        (ns && !(out->series = calloc(ns, sizeof *out->series)))) {
        pg_history_view_free(out);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    out->n_runs = nr;
    out->n_series = ns; /* points not read yet are NULL: pg_history_view_free frees them all */
    pg_status st = PG_OK;
    for (size_t k = 0; k < nr && st == PG_OK; k++)
        st = read_run(json_array_get(runs, k), &out->runs[k], d);
    for (size_t i = 0; i < ns && st == PG_OK; i++)
        st = read_series(json_array_get(series, i), nr, &out->series[i], d);
    if (st != PG_OK)
        pg_history_view_free(out);
    return st;
}

void pg_history_view_free(pg_history_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; v->series && i < v->n_series; i++)
        free(v->series[i].points);
    free(v->runs);
    free(v->series);
    memset(v, 0, sizeof *v);
}
