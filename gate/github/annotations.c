/* Annotations from the results model (see annotations.h). */
#include "annotations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_MAX 255
#define MESSAGE_MAX 4000

const char *pg_gh_level_name(pg_gh_level l)
{
    return l == PG_GH_FAILURE ? "failure" : l == PG_GH_WARNING ? "warning" : "notice";
}

void pg_gh_annotations_free(pg_gh_annotations *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        free(a->items[i].path);
        free(a->items[i].title);
        free(a->items[i].message);
        free(a->items[i].group);
    }
    free(a->items);
    memset(a, 0, sizeof *a);
}

/* path made relative to workspace, without "./" prefixes; malloc'd. */
static char *relative_path(const char *path, const char *workspace)
{
    if (!path)
        path = "";
    size_t w = workspace ? strlen(workspace) : 0;
    while (w > 1 && workspace[w - 1] == '/')
        w--;
    if (w && strncmp(path, workspace, w) == 0 && path[w] == '/')
        path += w + 1;
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    pg_text t;
    pg_text_init(&t, 4096);
    pg_rtext_add_clean(&t, path[0] ? path : "results.json", PG_CLEAN_ONE_LINE, 1024);
    return pg_text_take(&t, NULL);
}

static char *clean(const char *s, unsigned flags, size_t max)
{
    pg_text t;
    pg_text_init(&t, max * 2 + 16);
    pg_rtext_add_clean(&t, s ? s : "", flags, max);
    return pg_text_take(&t, NULL);
}

static pg_status add(pg_gh_annotations *a, const char *path, const char *workspace, long line,
                     pg_gh_level level, const char *title, const char *message, pg_diag *d)
{
    if (a->n >= PG_GH_ANNOTATIONS_MAX) {
        a->dropped++;
        return PG_OK;
    }
    if (a->n % 64 == 0) {
        pg_gh_annotation *p = realloc(a->items, (a->n + 64) * sizeof *p);
        if (!p)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        a->items = p;
    }
    pg_gh_annotation *x = &a->items[a->n];
    x->path = relative_path(path, workspace);
    x->title = clean(title, PG_CLEAN_ONE_LINE, TITLE_MAX);
    x->message = clean(message, 0, MESSAGE_MAX);
    x->start_line = x->end_line = line >= 1 ? line : 1;
    x->level = level;
    x->group = NULL;
    x->workloads = 0;
    a->n++;
    if (!x->path || !x->title || !x->message)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    a->count[level]++;
    return PG_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = s ? strlen(s) : 0, k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A workload stage's failure already annotated for an earlier workload of the same submission
 * (items from `first` on): counted there, retitled "[N workloads]"; true when so. */
static bool merged_repeat(pg_gh_annotations *a, size_t first, const pg_res_submission *s,
                          const pg_res_stage *st, const char *group, const char *message,
                          pg_diag *d, pg_status *rc)
{
    char *m = clean(message, 0, MESSAGE_MAX);
    *rc = m ? PG_OK : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = first; m && i < a->n; i++) {
        pg_gh_annotation *x = &a->items[i];
        if (!x->group || strcmp(x->group, group) != 0 || strcmp(x->message, m) != 0)
            continue;
        char title[600];
        snprintf(title, sizeof title, "ptxgate %s[%zu workloads] %s: %s / %s", st->stage,
                 ++x->workloads, pg_res_status_word(st->status), s->task ? s->task : "?",
                 s->name ? s->name : "?");
        char *t = clean(title, PG_CLEAN_ONE_LINE, TITLE_MAX);
        if (!t) {
            *rc = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        } else {
            free(x->title);
            x->title = t;
        }
        free(m);
        return true;
    }
    free(m);
    return *rc != PG_OK;
}

/* Annotations of one stage record; workload is NULL for submission stages. first: the index
 * of the submission's first annotation. */
static pg_status stage_annotations(pg_gh_annotations *a, const pg_res_submission *s,
                                   const char *workload, const pg_res_stage *st,
                                   const char *workspace, size_t first, pg_diag *d)
{
    char title[600], msg[1200];
    const char *task = s->task ? s->task : "?", *name = s->name ? s->name : "?";
    if (workload)
        snprintf(title, sizeof title, "ptxgate %s[%s] %s: %s / %s", st->stage, workload,
                 pg_res_status_word(st->status), task, name);
    else
        snprintf(title, sizeof title, "ptxgate %s %s: %s / %s", st->stage,
                 pg_res_status_word(st->status), task, name);
    /* ptxas diagnostics: only the assemble stage records them (typed by the reader). */
    const pg_res_ptx_diag *diags = NULL;
    size_t n_diags = 0;
    if (st->detail.kind == PG_RES_STAGE_ASSEMBLE) {
        diags = st->detail.u.assemble.diagnostics;
        n_diags = st->detail.u.assemble.n_diagnostics;
    }
    pg_status rc = PG_OK;
    size_t errors = 0;
    bool ptx = ends_with(s->source, ".ptx");
    for (size_t i = 0; i < n_diags; i++) {
        const pg_res_ptx_diag pd = diags[i];
        bool err = strcmp(pd.severity, "error") == 0;
        if (!err && strcmp(pd.severity, "warning") != 0)
            continue;
        long line = 1;
        if (pd.line.has && ptx) {
            line = (long)pd.line.v;
            snprintf(msg, sizeof msg, "%s: %s", pd.severity, pd.message);
        } else if (pd.line.has) {
            snprintf(msg, sizeof msg, "PTX line %lld: %s: %s", (long long)pd.line.v, pd.severity,
                     pd.message);
        } else {
            snprintf(msg, sizeof msg, "%s: %s", pd.severity, pd.message);
        }
        if ((rc = add(a, s->source ? s->source : s->manifest, workspace, line,
                      err ? PG_GH_FAILURE : PG_GH_WARNING, title, msg, d)) != PG_OK)
            return rc;
        errors += err;
    }
    if ((st->status != PG_RES_FAIL && st->status != PG_RES_ERROR) || errors > 0)
        return rc;
    const char *message = st->message[0] ? st->message : "no message recorded";
    char group[200];
    snprintf(group, sizeof group, "%s %s", st->stage, pg_res_status_word(st->status));
    if (workload && merged_repeat(a, first, s, st, group, message, d, &rc))
        return rc;
    size_t at = a->n;
    rc = add(a, s->manifest, workspace, 1, PG_GH_FAILURE, title, message, d);
    if (rc == PG_OK && workload && at < a->n) {
        a->items[at].workloads = 1;
        if (!(a->items[at].group = strdup(group)))
            rc = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    return rc;
}

pg_status pg_gh_annotations_build(const pg_results *r, const char *workspace,
                                  pg_gh_annotations *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    pg_status rc = PG_OK;
    for (size_t i = 0; rc == PG_OK && i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        size_t first = out->n;
        for (size_t k = 0; rc == PG_OK && k < s->n_stages; k++)
            rc = stage_annotations(out, s, NULL, &s->stages[k], workspace, first, d);
        for (size_t w = 0; rc == PG_OK && w < s->n_workloads; w++)
            for (size_t k = 0; rc == PG_OK && k < s->workloads[w].n_stages; k++)
                rc = stage_annotations(out, s, s->workloads[w].name, &s->workloads[w].stages[k],
                                       workspace, first, d);
    }
    return rc;
}

/* s appended with each byte found in set written as %XX (upper-case hex, as @actions/core's
 * escapeData and escapeProperty write it), the others as they are. */
static void escape_bytes(pg_text *t, const char *s, const char *set)
{
    for (; s && *s; s++) {
        if (strchr(set, *s))
            pg_text_addf(t, "%%%02X", (unsigned)(unsigned char)*s);
        else
            pg_text_addn(t, s, 1);
    }
}

void pg_gh_escape_data(pg_text *t, const char *s)
{
    escape_bytes(t, s, "%\r\n");
}

void pg_gh_escape_property(pg_text *t, const char *s)
{
    escape_bytes(t, s, "%\r\n:,");
}

char *pg_gh_annotation_command(const pg_gh_annotation *a)
{
    static const char *const k_cmd[] = {"notice", "warning", "error"};
    pg_text t;
    pg_text_init(&t, 64 * 1024);
    pg_text_addf(&t, "::%s file=", k_cmd[a->level]);
    pg_gh_escape_property(&t, a->path);
    pg_text_addf(&t, ",line=%ld,endLine=%ld,title=", a->start_line, a->end_line);
    pg_gh_escape_property(&t, a->title);
    pg_text_add(&t, "::");
    pg_gh_escape_data(&t, a->message);
    pg_text_add(&t, "\n");
    return pg_text_take(&t, NULL);
}
