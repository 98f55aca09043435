/* The history model: results files ordered by their run metadata, speedups per series (see
 * history.h). */
#include "history.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/results_read.h"

pg_status pg_history_order_parse(const char *s, pg_history_order *out, pg_diag *d)
{
    if (s && strcmp(s, "time") == 0)
        *out = PG_HISTORY_BY_TIME;
    else if (s && strcmp(s, "label") == 0)
        *out = PG_HISTORY_BY_LABEL;
    else if (s && strcmp(s, "input") == 0)
        *out = PG_HISTORY_BY_INPUT;
    else
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--by",
                           "expected time, label or input, got '%.100s'", s ? s : "");
    return PG_OK;
}

/* ---- run metadata ---- */

static bool label_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 100)
        return false;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = pg_utf8_next(s + i, &cp);
        if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0xfffd ||
            (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
            return false;
        i += k;
    }
    return true;
}

/* Digits of s[0..n) as a number, or -1. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DDTHH:MM:SS" + ("Z" | "+HH:MM" | "-HH:MM") -> UTC "YYYY-MM-DDTHH:MM:SSZ". */
static bool iso_to_utc(const char *s, char out[21])
{
    size_t n = strlen(s);
    if (n != 20 && n != 25)
        return false;
    if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return false;
    int Y = digits(s, 4), M = digits(s + 5, 2), D = digits(s + 8, 2), h = digits(s + 11, 2),
        m = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (Y < 1970 || M < 1 || M > 12 || D < 1 || D > 31 || h < 0 || h > 23 || m < 0 || m > 59 ||
        sec < 0 || sec > 60)
        return false;
    long off = 0;
    if (n == 20) {
        if (s[19] != 'Z')
            return false;
    } else {
        int oh = digits(s + 20, 2), om = digits(s + 23, 2);
        if ((s[19] != '+' && s[19] != '-') || s[22] != ':' || oh < 0 || oh > 14 || om < 0 ||
            om > 59)
            return false;
        off = (s[19] == '+' ? 1 : -1) * (oh * 3600L + om * 60L);
    }
    struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h,
                    .tm_min = m, .tm_sec = sec};
    time_t t = timegm(&tm) - off;
    struct tm u;
    if (!gmtime_r(&t, &u))
        return false;
    return strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &u) == 20;
}

pg_status pg_history_run_meta(const char *label, const char *commit, const char *commit_time,
                              json_t **out, pg_diag *d)
{
    *out = NULL;
    if (!label && !commit && !commit_time)
        return PG_OK;
    char sha[65] = "", utc[21] = "";
    if (label && !label_ok(label))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--label",
                           "expected 1-100 bytes of printable UTF-8 text, got '%.100s'", label);
    if (commit) {
        size_t n = strlen(commit);
        bool ok = n >= 7 && n <= 64;
        for (size_t i = 0; ok && i < n; i++) {
            ok = isxdigit((unsigned char)commit[i]) != 0;
            sha[i] = (char)tolower((unsigned char)commit[i]);
        }
        sha[ok ? n : 0] = '\0';
        if (!ok)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--commit",
                               "expected a commit hash of 7-64 hex digits, got '%.100s'", commit);
    }
    if (commit_time && !iso_to_utc(commit_time, utc))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--commit-time",
                           "expected an ISO 8601 time such as 2026-11-29T10:00:00Z or "
                           "2026-11-29T11:00:00+01:00 (git log -1 --format=%%cI), got '%.100s'",
                           commit_time);
    json_t *o = json_object();
    if (!o)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    json_object_set_new(o, "label", label ? json_string(label) : json_null());
    json_object_set_new(o, "commit", commit ? json_string(sha) : json_null());
    json_object_set_new(o, "commit_time_utc", commit_time ? json_string(utc) : json_null());
    *out = o;
    return PG_OK;
}

/* ---- ordering ---- */

typedef struct {
    const json_t *root;
    const char *file, *label, *commit, *commit_time, *started;
    size_t input;
} run_ref;

/* Natural order: runs of digits compare as numbers ("v2" < "v10"), the rest bytewise. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = strncmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int time_cmp(const run_ref *a, const run_ref *b)
{
    int c = strcmp(a->commit_time ? a->commit_time : a->started,
                   b->commit_time ? b->commit_time : b->started);
    if (!c)
        c = strcmp(a->file, b->file);
    return c ? c : (a->input < b->input ? -1 : a->input > b->input);
}

static int run_cmp(const run_ref *a, const run_ref *b, pg_history_order by)
{
    if (by == PG_HISTORY_BY_INPUT)
        return a->input < b->input ? -1 : a->input > b->input;
    if (by == PG_HISTORY_BY_LABEL) {
        if (a->label && b->label) {
            int c = natural_cmp(a->label, b->label);
            if (c)
                return c;
        } else if (a->label || b->label) {
            return a->label ? -1 : 1;
        }
    }
    return time_cmp(a, b);
}

/* ---- the model ---- */

/* A copy of s into *out (NULL stays NULL); false on out-of-memory. */
static bool dup_or_null(const char *s, char **out)
{
    *out = s ? strdup(s) : NULL;
    return !s || *out;
}

/* The "run" record of r (typed by the results reader), checked as pg_history_run_meta checks
 * check's options. */
static pg_status read_run(const pg_results *r, run_ref *ref, pg_diag *d)
{
    pg_res_run run;
    pg_status st = pg_results_read_run(r, &run, d);
    if (st != PG_OK || !run.has)
        return st;
    const char *v[3] = {run.label, run.commit, run.commit_time_utc};
    json_t *check = NULL;
    pg_diag inner;
    pg_diag_clear(&inner);
    char utc[21];
    if (pg_history_run_meta(v[0], v[1], NULL, &check, &inner) != PG_OK ||
        (v[2] && (!iso_to_utc(v[2], utc) || strcmp(utc, v[2]) != 0))) {
        json_decref(check);
        return pg_diag_set(d, PG_ERR_INPUT, r->file, 0,
                           v[2] && inner.status == PG_OK ? "run.commit_time_utc"
                           : strcmp(inner.field, "--label") == 0 ? "run.label" : "run.commit",
                           "%s", inner.status == PG_OK ? "expected YYYY-MM-DDTHH:MM:SSZ"
                                                        : inner.message);
    }
    json_decref(check);
    ref->label = v[0];
    ref->commit = v[1];
    ref->commit_time = v[2];
    return PG_OK;
}

/* The series while the model is built, in order of first appearance. */
typedef struct {
    pg_history_series *v;
    size_t n, cap, n_runs;
} series_list;

/* The series of (task, submission, workload), appended when new (names copied, points zeroed);
 * NULL when memory runs out. */
static pg_history_series *series_for(series_list *l, const char *task, const char *sub,
                                     const char *wl)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].task, task) == 0 && strcmp(l->v[i].submission, sub) == 0 &&
            strcmp(l->v[i].workload, wl) == 0)
            return &l->v[i];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pg_history_series *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    pg_history_series s = {strdup(task), strdup(sub), strdup(wl),
                           calloc(l->n_runs, sizeof *s.points)};
    if (!s.task || !s.submission || !s.workload || !s.points) {
        free(s.task);
        free(s.submission);
        free(s.workload);
        free(s.points);
        return NULL;
    }
    l->v[l->n] = s;
    return &l->v[l->n++];
}

static bool verify_failed(const pg_res_submission *s)
{
    for (size_t w = 0; w < s->n_workloads; w++) {
        const pg_res_stage *v =
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "verify");
        if (v && (v->status == PG_RES_FAIL || v->status == PG_RES_ERROR))
            return true;
    }
    return false;
}

static pg_status add_run(series_list *series, const pg_results *r, size_t k, pg_diag *d)
{
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        bool void_timing = verify_failed(s);
        for (size_t w = 0; w < s->n_workloads; w++) {
            const pg_res_workload *wl = &s->workloads[w];
            pg_history_series *x = series_for(series, s->task, s->name, wl->name);
            if (!x)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            pg_history_point *p = &x->points[k];
            if (p->present)
                continue; /* the first of duplicates counts (compare refuses them) */
            const pg_res_stage *perf = pg_res_find_stage(wl->stages, wl->n_stages, "performance");
            pg_res_num est = {0};
            /* a speedup over the accepted kernel (the library refused the configuration) is
             * not a point of the series over the library */
            if (perf && perf->detail.kind == PG_RES_STAGE_PERFORMANCE &&
                !perf->detail.u.performance.over_accepted)
                est = perf->detail.u.performance.speedup_estimate;
            p->present = true;
            p->void_timing = void_timing;
            if (!void_timing)
                p->verdict = wl->verdict;
            if (est.has && !void_timing)
                p->speedup = est;
        }
    }
    return PG_OK;
}

/* Run k of the model from its reference and results view; false on out-of-memory. */
static bool copy_run(const run_ref *r, const pg_results *v, pg_history_run *out)
{
    out->verdict = v->verdict;
    return dup_or_null(r->file, &out->file) && dup_or_null(r->label, &out->label) &&
           dup_or_null(r->commit, &out->commit) &&
           dup_or_null(r->commit_time, &out->commit_time_utc) &&
           dup_or_null(r->started, &out->started_utc) &&
           dup_or_null(v->tool_version, &out->tool_version) &&
           dup_or_null(v->env.has_gpu ? v->env.gpu_name : NULL, &out->gpu);
}

pg_status pg_history_build(const json_t *const *roots, const char *const *files, size_t n,
                           pg_history_order by, pg_history_model *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > PG_HISTORY_MAX_RUNS)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "expected 1 to %u results files, got %zu", PG_HISTORY_MAX_RUNS, n);
    run_ref *refs = calloc(n, sizeof *refs);
    pg_results *views = calloc(n, sizeof *views);
    size_t *order = calloc(n, sizeof *order);
    pg_history_model m = {.order = by, .runs = calloc(n, sizeof *m.runs), .n_runs = n};
    series_list acc = {.n_runs = n};
    pg_status st = refs && views && order && m.runs
                       ? PG_OK
                       : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; st == PG_OK && i < n; i++) {
        const char *file = files[i] ? files[i] : "results.json";
        if ((st = pg_results_read(roots[i], file, &views[i], d)) != PG_OK)
            break;
        refs[i] = (run_ref){roots[i], file, NULL, NULL, NULL, views[i].started_utc, i};
        st = read_run(&views[i], &refs[i], d);
    }
    /* Insertion sort of indices: stable, deterministic, n is small. */
    for (size_t i = 0; st == PG_OK && i < n; i++) {
        size_t j = i;
        for (; j > 0 && run_cmp(&refs[order[j - 1]], &refs[i], by) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t k = 0; k < n && st == PG_OK; k++) {
        if (!copy_run(&refs[order[k]], &views[order[k]], &m.runs[k]))
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        else
            st = add_run(&acc, &views[order[k]], k, d);
    }
    /* The series move into the model either way: pg_history_model_free releases them. */
    m.series = acc.v;
    m.n_series = acc.n;
    if (!m.runs)
        m.n_runs = 0;
    if (st == PG_OK)
        *out = m;
    else
        pg_history_model_free(&m);
    for (size_t i = 0; i < n && views; i++)
        pg_results_free(&views[i]);
    free(views);
    free(refs);
    free(order);
    return st;
}

void pg_history_model_free(pg_history_model *m)
{
    if (!m)
        return;
    for (size_t k = 0; m->runs && k < m->n_runs; k++) {
        pg_history_run *r = &m->runs[k];
        free(r->file);
        free(r->label);
        free(r->commit);
        free(r->commit_time_utc);
        free(r->started_utc);
        free(r->tool_version);
        free(r->gpu);
    }
    for (size_t i = 0; m->series && i < m->n_series; i++) {
        free(m->series[i].task);
        free(m->series[i].submission);
        free(m->series[i].workload);
        free(m->series[i].points);
    }
    free(m->runs);
    free(m->series);
    memset(m, 0, sizeof *m);
}
