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

static json_t *jstr_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Reads the optional "run" object of root (checked as pg_history_run_meta checks options). */
static pg_status read_run(const json_t *root, const char *file, run_ref *r, pg_diag *d)
{
    const json_t *run = json_object_get(root, "run");
    if (!run || json_is_null(run))
        return PG_OK;
    if (!json_is_object(run))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "run", "expected an object, found %s",
                           pg_json_type_name(run));
    static const char *const k_keys[] = {"label", "commit", "commit_time_utc"};
    const char *v[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        const json_t *x = json_object_get(run, k_keys[i]);
        if (x && !json_is_null(x) && !json_is_string(x)) {
            char f[64];
            snprintf(f, sizeof f, "run.%s", k_keys[i]);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "expected a string or null, found %s",
                               pg_json_type_name(x));
        }
        v[i] = json_string_value(x);
    }
    json_t *check = NULL;
    pg_diag inner;
    pg_diag_clear(&inner);
    char utc[21];
    if (pg_history_run_meta(v[0], v[1], NULL, &check, &inner) != PG_OK ||
        (v[2] && (!iso_to_utc(v[2], utc) || strcmp(utc, v[2]) != 0))) {
        json_decref(check);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0,
                           v[2] && inner.status == PG_OK ? "run.commit_time_utc"
                           : strcmp(inner.field, "--label") == 0 ? "run.label" : "run.commit",
                           "%s", inner.status == PG_OK ? "expected YYYY-MM-DDTHH:MM:SSZ"
                                                        : inner.message);
    }
    json_decref(check);
    r->label = v[0];
    r->commit = v[1];
    r->commit_time = v[2];
    return PG_OK;
}

/* The series index of (task, submission, workload), appending it when new. */
static json_t *series_for(json_t *series, const char *task, const char *sub, const char *wl,
                          size_t n_runs)
{
    size_t i;
    json_t *s;
    json_array_foreach(series, i, s)
        if (strcmp(json_string_value(json_object_get(s, "task")), task) == 0 &&
            strcmp(json_string_value(json_object_get(s, "submission")), sub) == 0 &&
            strcmp(json_string_value(json_object_get(s, "workload")), wl) == 0)
            return s;
    json_t *sp = json_array(), *stv = json_array();
    for (size_t k = 0; k < n_runs; k++) {
        json_array_append_new(sp, json_null());
        json_array_append_new(stv, json_null());
    }
    s = json_pack("{s:s, s:s, s:s, s:o, s:o}", "task", task, "submission", sub, "workload", wl,
                  "speedup", sp, "status", stv);
    if (!s || json_array_append_new(series, s) != 0)
        return NULL;
    return s;
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

static pg_status add_run(json_t *series, const pg_results *r, size_t k, size_t n_runs,
                         pg_diag *d)
{
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        bool void_timing = verify_failed(s);
        for (size_t w = 0; w < s->n_workloads; w++) {
            const pg_res_workload *wl = &s->workloads[w];
            json_t *x = series_for(series, s->task, s->name, wl->name, n_runs);
            if (!x)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            if (!json_is_null(json_array_get(json_object_get(x, "status"), k)))
                continue; /* the first of duplicates counts (compare refuses them) */
            const pg_res_stage *perf = pg_res_find_stage(wl->stages, wl->n_stages, "performance");
            pg_res_num est = {0};
            if (perf && perf->detail.kind == PG_RES_STAGE_PERFORMANCE)
                est = perf->detail.u.performance.speedup_estimate;
            const char *word = void_timing ? "VOID" : pg_res_status_word(wl->verdict);
            json_array_set_new(json_object_get(x, "status"), k, json_string(word));
            if (est.has && !void_timing)
                json_array_set_new(json_object_get(x, "speedup"), k, json_real(est.v));
        }
    }
    return PG_OK;
}

pg_status pg_history_build(const json_t *const *roots, const char *const *files, size_t n,
                           pg_history_order by, json_t **model, pg_diag *d)
{
    *model = NULL;
    if (n == 0 || n > PG_HISTORY_MAX_RUNS)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "expected 1 to %u results files, got %zu", PG_HISTORY_MAX_RUNS, n);
    run_ref *refs = calloc(n, sizeof *refs);
    pg_results *views = calloc(n, sizeof *views);
    json_t *m = json_object(), *runs = json_array(), *series = json_array();
    pg_status st = refs && views && m && runs && series
                       ? PG_OK
                       : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    size_t read = 0;
    for (; st == PG_OK && read < n; read++) {
        const char *file = files[read] ? files[read] : "results.json";
        if ((st = pg_results_read(roots[read], file, &views[read], d)) != PG_OK)
            break;
        refs[read] = (run_ref){roots[read], file, NULL, NULL, NULL, views[read].started_utc, read};
        st = read_run(roots[read], file, &refs[read], d);
    }
    if (st != PG_OK)
        goto done;
    /* Insertion sort of indices: stable, deterministic, n is small. */
    size_t *order = calloc(n, sizeof *order);
    if (!order) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0 && run_cmp(&refs[order[j - 1]], &refs[i], by) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    static const char *const k_order[] = {"time", "label", "input"};
    json_object_set_new(m, "order", json_string(k_order[by]));
    for (size_t k = 0; k < n && st == PG_OK; k++) {
        const run_ref *r = &refs[order[k]];
        const pg_results *v = &views[order[k]];
        json_t *run = json_pack("{s:s, s:o, s:o, s:o, s:s, s:s, s:o, s:o}", "file", r->file,
                                "label", jstr_or_null(r->label), "commit",
                                jstr_or_null(r->commit), "commit_time_utc",
                                jstr_or_null(r->commit_time), "started_utc", r->started,
                                "verdict", pg_res_status_name(v->verdict), "tool_version",
                                jstr_or_null(v->tool_version), "gpu",
                                jstr_or_null(v->env.has_gpu ? v->env.gpu_name : NULL));
        if (!run || json_array_append_new(runs, run) != 0)
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        else
            st = add_run(series, v, k, n, d);
    }
    free(order);
    if (st != PG_OK)
        goto done;
    json_object_set(m, "runs", runs);
    json_object_set(m, "series", series);
    *model = m;
    m = NULL;
done:
    for (size_t i = 0; i < n && views; i++)
        pg_results_free(&views[i]);
    free(views);
    free(refs);
    json_decref(m);
    json_decref(runs);
    json_decref(series);
    return st;
}
