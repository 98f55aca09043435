/* Holm's step re-applied over the recorded performance comparisons (see holm_family.h). */
#include "holm_family.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_read.h"
#include "stats/comparison.h"

/* The suffix pg_perf_holm_finalize appends to a stage message, up to the comparison's name. */
#define SUFFIX_START " (Holm over the run's "

typedef struct {
    json_t *stage;      /* the performance stage record */
    json_t *cmp;        /* the entry of its details.comparisons */
    pg_cmp_result r;    /* verdict before Holm, p_fail_seq */
} member;

typedef struct {
    member *v;
    size_t n, cap;
} family;

static bool parse_verdict(const char *s, pg_cmp_verdict *out)
{
    static const pg_cmp_verdict all[] = {PG_CMP_PASS, PG_CMP_FAIL, PG_CMP_INCONCLUSIVE,
                                         PG_CMP_FAST};
    for (size_t i = 0; s && i < 4; i++)
        if (strcmp(s, pg_cmp_verdict_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

static pg_status add(family *f, json_t *stage, json_t *cmp, const char *file, const char *path,
                     pg_diag *d)
{
    pg_cmp_verdict v;
    pg_jctx c = {.file = file};
    char field[600];
    snprintf(c.path, sizeof c.path, "%s", path);
    if (!parse_verdict(json_string_value(json_object_get(cmp, "verdict")), &v))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, pg_jctx_field(&c, "verdict", field, sizeof field),
                           "expected verdict PASS, FAIL, INCONCLUSIVE or FAST");
    const json_t *p = json_object_get(cmp, "p_fail_seq");
    if (!json_is_number(p) && !json_is_null(p))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0,
                           pg_jctx_field(&c, "p_fail_seq", field, sizeof field),
                           "expected a probability from 0 to 1 or null, found %s",
                           pg_json_type_name(p));
    if (json_is_number(p)) {
        pg_status st = pg_res_check_range(&c, "p_fail_seq", PG_RES_RANGE_PROB,
                                          json_number_value(p), d);
        if (st != PG_OK)
            return st;
    }
    /* Undo the recorded Holm step: it only swaps FAIL and INCONCLUSIVE. */
    if (json_is_true(json_object_get(cmp, "holm_changed")))
        v = v == PG_CMP_FAIL ? PG_CMP_INCONCLUSIVE : v == PG_CMP_INCONCLUSIVE ? PG_CMP_FAIL : v;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 32;
        member *nv = realloc(f->v, cap * sizeof *nv);
        if (!nv)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        f->v = nv;
        f->cap = cap;
    }
    member *m = &f->v[f->n++];
    memset(m, 0, sizeof *m);
    m->stage = stage;
    m->cmp = cmp;
    m->r.verdict = v;
    m->r.p_fail_seq = json_is_number(p) ? json_number_value(p) : NAN;
    return PG_OK;
}

static pg_status collect(json_t *stages, const char *file, const char *base, family *f,
                         pg_diag *d)
{
    size_t i, k;
    json_t *st, *c;
    json_array_foreach(stages, i, st) {
        const char *name = json_string_value(json_object_get(st, "stage"));
        if (!name || strcmp(name, "performance") != 0)
            continue;
        json_array_foreach(json_object_get(json_object_get(st, "details"), "comparisons"), k, c) {
            const char *cname = json_string_value(json_object_get(c, "name"));
            if (!json_object_get(c, "p_fail_seq") || (cname && strcmp(cname, "aa_canary") == 0))
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s.stages[%zu].details.comparisons[%zu]", base, i, k);
            pg_status s = add(f, st, c, file, path, d);
            if (s != PG_OK)
                return s;
        }
    }
    return PG_OK;
}

static bool is_error(const json_t *stage)
{
    const char *s = json_string_value(json_object_get(stage, "status"));
    return s && strcmp(s, "error") == 0;
}

/* "fail" when the stage's candidate was implausible or any of its members is FAIL. */
static const char *stage_status(const family *f, const json_t *stage)
{
    const char *msg = json_string_value(json_object_get(stage, "message"));
    bool failed = msg && strncmp(msg, "IMPLAUSIBLE:", 12) == 0;
    for (size_t j = 0; j < f->n; j++)
        failed |= f->v[j].stage == stage && f->v[j].r.verdict == PG_CMP_FAIL;
    return failed ? "fail" : "pass";
}

pg_status pg_results_check_holm(const json_t *results, const char *file, pg_diag *d)
{
    family f = {0};
    pg_status st = PG_OK;
    size_t i, j;
    json_t *sub, *wl;
    json_array_foreach(json_object_get(results, "submissions"), i, sub) {
        json_array_foreach(json_object_get(sub, "workloads"), j, wl) {
            char base[128];
            snprintf(base, sizeof base, "submissions[%zu].workloads[%zu]", i, j);
            if ((st = collect(json_object_get(wl, "stages"), file, base, &f, d)) != PG_OK)
                break;
        }
        if (st != PG_OK)
            break;
    }
    free(f.v);
    return st;
}

pg_status pg_results_reapply_holm(json_t *results, const char *file, double run_alpha, size_t *m,
                                  pg_diag *d)
{
    family f = {0};
    pg_status st = PG_OK;
    size_t i, j;
    json_t *sub, *wl;
    json_array_foreach(json_object_get(results, "submissions"), i, sub) {
        json_array_foreach(json_object_get(sub, "workloads"), j, wl) {
            char base[128];
            snprintf(base, sizeof base, "submissions[%zu].workloads[%zu]", i, j);
            if ((st = collect(json_object_get(wl, "stages"), file, base, &f, d)) != PG_OK)
                goto done;
        }
    }
    /* Back to the state before any Holm step. */
    for (size_t k = 0; k < f.n; k++) {
        member *mb = &f.v[k];
        if (!json_is_true(json_object_get(mb->cmp, "holm_changed")))
            continue;
        json_object_set_new(mb->cmp, "verdict", json_string(pg_cmp_verdict_name(mb->r.verdict)));
        json_object_del(mb->cmp, "holm_changed");
        if (is_error(mb->stage))
            continue;
        const char *msg = json_string_value(json_object_get(mb->stage, "message"));
        const char *cut = msg ? strstr(msg, SUFFIX_START) : NULL;
        if (cut)
            json_object_set_new(mb->stage, "message", json_stringn(msg, (size_t)(cut - msg)));
        json_object_set_new(mb->stage, "status", json_string(stage_status(&f, mb->stage)));
    }
    pg_cmp_result *r = malloc((f.n ? f.n : 1) * sizeof *r);
    if (!r) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < f.n; k++)
        r[k] = f.v[k].r;
    pg_cmp_holm_finalize(r, f.n, run_alpha);
    for (size_t k = 0; k < f.n; k++)
        f.v[k].r = r[k];
    free(r);
    /* As pg_perf_holm_finalize writes it. */
    for (size_t k = 0; k < f.n; k++) {
        member *mb = &f.v[k];
        if (!mb->r.holm_changed || is_error(mb->stage))
            continue;
        const char *name = json_string_value(json_object_get(mb->cmp, "name"));
        json_object_set_new(mb->cmp, "verdict", json_string(pg_cmp_verdict_name(mb->r.verdict)));
        json_object_set_new(mb->cmp, "holm_changed", json_true());
        char suffix[256];
        snprintf(suffix, sizeof suffix, SUFFIX_START "%zu comparisons made %s %s)", f.n,
                 name ? name : "?", pg_cmp_verdict_name(mb->r.verdict));
        const char *msg = json_string_value(json_object_get(mb->stage, "message"));
        size_t a = msg ? strlen(msg) : 0, b = strlen(suffix);
        char *joined = malloc(a + b + 1);
        if (!joined) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
        memcpy(joined, msg ? msg : "", a);
        memcpy(joined + a, suffix, b + 1);
        json_object_set_new(mb->stage, "message", json_string(joined));
        free(joined);
        json_object_set_new(mb->stage, "status", json_string(stage_status(&f, mb->stage)));
    }
    if (m)
        *m = f.n;
done:
    free(f.v);
    return st;
}
