/* Strict reading of the results json into a borrowed view, and the writers' text toolkit
 * (see results_read.h). */
#include "results_read.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "model/shard.h"

#define DEFAULT_FILE "results.json"

/* ---- status words ---- */

const char *pg_res_status_name(pg_res_status s)
{
    switch (s) {
    case PG_RES_PASS: return "pass";
    case PG_RES_FAIL: return "fail";
    case PG_RES_ERROR: return "error";
    case PG_RES_SKIPPED: return "skipped";
    }
    return "unknown";
}

const char *pg_res_status_word(pg_res_status s)
{
    switch (s) {
    case PG_RES_PASS: return "PASS";
    case PG_RES_FAIL: return "FAIL";
    case PG_RES_ERROR: return "ERROR";
    case PG_RES_SKIPPED: return "SKIPPED";
    }
    return "UNKNOWN";
}

/* ---- field helpers ---- */

static pg_status oom(const pg_jctx *ctx, pg_diag *d)
{
    return pg_diag_set(d, PG_ERR_INFRA, ctx->file, 0, ctx->path, "out of memory reading results");
}

static pg_status bad_field(const pg_jctx *ctx, const char *key, pg_diag *d, const char *what)
{
    char f[300];
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f), "%s",
                       what);
}

/* A string that may be null or (when !required) absent: *out = NULL then. */
static pg_status get_nstring(const json_t *obj, const pg_jctx *ctx, const char *key,
                             bool required, const char **out, pg_diag *d)
{
    *out = NULL;
    const json_t *v = json_object_get(obj, key);
    if (v && json_is_null(v))
        return PG_OK;
    if (!v && !required)
        return PG_OK;
    return pg_jget_string(obj, ctx, key, required, out, d);
}

static pg_status get_nint(const json_t *obj, const pg_jctx *ctx, const char *key, pg_res_int *out,
                          pg_diag *d)
{
    out->has = false;
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return PG_OK;
    pg_status st = pg_jget_int(obj, ctx, key, true, &out->v, d);
    out->has = st == PG_OK;
    return st;
}

static pg_status get_nnum(const json_t *obj, const pg_jctx *ctx, const char *key, pg_res_num *out,
                          pg_diag *d)
{
    out->has = false;
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return PG_OK;
    pg_status st = pg_jget_number(obj, ctx, key, true, &out->v, d);
    out->has = st == PG_OK;
    return st;
}

/* An object that may be null or absent: *out = NULL then. */
static pg_status get_nobject(const json_t *obj, const pg_jctx *ctx, const char *key, json_t **out,
                             pg_diag *d)
{
    *out = NULL;
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return PG_OK;
    return pg_jget_object(obj, ctx, key, true, out, d);
}

/* A required status word: pass, fail, error, and skipped when allow_skipped. */
static pg_status get_status(const json_t *obj, const pg_jctx *ctx, const char *key,
                            bool allow_skipped, pg_res_status *out, pg_diag *d)
{
    const char *s = NULL;
    pg_status st = pg_jget_string(obj, ctx, key, true, &s, d);
    if (st != PG_OK)
        return st;
    const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    size_t n = allow_skipped ? 4 : 3;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, pg_res_status_name(all[i])) == 0) {
            *out = all[i];
            return PG_OK;
        }
    char f[300];
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                       "expected one of pass, fail, error%s; found \"%.*s\"",
                       allow_skipped ? ", skipped" : "", PG_UTF8_CUT(s, 64), s);
}

static pg_status get_duration(const json_t *obj, const pg_jctx *ctx, const char *key, double *out,
                              pg_diag *d)
{
    pg_status st = pg_jget_number(obj, ctx, key, true, out, d);
    if (st == PG_OK && !(*out >= 0.0 && *out < 1e12))
        return bad_field(ctx, key, d, "expected a duration in seconds >= 0");
    return st;
}

static bool is_stage_name(const char *s)
{
    if (!(s[0] >= 'a' && s[0] <= 'z'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return strlen(s) <= 64;
}

/* "YYYY-MM-DDTHH:MM:SS" with optional ".fraction", then "Z". */
static bool is_utc_timestamp(const char *s)
{
    const char *form = "dddd-dd-ddTdd:dd:dd";
    size_t i = 0;
    for (; form[i]; i++) {
        if (form[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != form[i])
            return false;
    }
    if (s[i] == '.') {
        i++;
        if (!(s[i] >= '0' && s[i] <= '9'))
            return false;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return s[i] == 'Z' && s[i + 1] == '\0';
}

/* ---- the records ---- */

static pg_status check_details(const pg_res_stage *s, pg_diag *d);
static pg_status read_detail(pg_res_stage *s, pg_diag *d);

static pg_status read_stages(const json_t *obj, const pg_jctx *ctx, pg_res_stage **out, size_t *n,
                             pg_diag *d)
{
    json_t *arr = NULL;
    pg_status st = pg_jget_array(obj, ctx, "stages", true, &arr, d);
    if (st != PG_OK)
        return st;
    pg_jctx actx = pg_jctx_member(ctx, "stages");
    size_t count = json_array_size(arr);
    if (count == 0)
        return PG_OK;
    *out = calloc(count, sizeof **out);
    if (!*out)
        return oom(&actx, d);
    *n = count;
    for (size_t i = 0; i < count; i++) {
        pg_res_stage *s = &(*out)[i];
        s->ctx = pg_jctx_index(&actx, i);
        const json_t *rec = json_array_get(arr, i);
        if (!json_is_object(rec))
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, s->ctx.path,
                               "expected a stage record (an object), found %s",
                               pg_json_type_name(rec));
        json_t *details = NULL;
        if ((st = pg_jget_string(rec, &s->ctx, "stage", true, &s->stage, d)) != PG_OK ||
            (st = get_status(rec, &s->ctx, "status", true, &s->status, d)) != PG_OK ||
            (st = pg_jget_string(rec, &s->ctx, "message", true, &s->message, d)) != PG_OK ||
            (st = get_duration(rec, &s->ctx, "duration_s", &s->duration_s, d)) != PG_OK ||
            (st = pg_jget_object(rec, &s->ctx, "details", true, &details, d)) != PG_OK)
            return st;
        if (!is_stage_name(s->stage))
            return bad_field(&s->ctx, "stage", d,
                             "expected a stage name of lower-case letters, digits and '_' "
                             "(assemble, load, correctness, instructions, performance)");
        s->details = details;
        s->json = rec;
        s->details_ctx = pg_jctx_member(&s->ctx, "details");
        if ((st = check_details(s, d)) != PG_OK || (st = read_detail(s, d)) != PG_OK)
            return st;
    }
    return PG_OK;
}

static pg_status read_workload(const json_t *w, pg_res_workload *out, pg_diag *d)
{
    pg_status st;
    if ((st = pg_jget_string(w, &out->ctx, "name", true, &out->name, d)) != PG_OK ||
        (st = get_status(w, &out->ctx, "verdict", true, &out->verdict, d)) != PG_OK ||
        (st = read_stages(w, &out->ctx, &out->stages, &out->n_stages, d)) != PG_OK)
        return st;
    return pg_res_get_number(w, &out->ctx, "speedup_factor", &out->speedup_factor, d);
}

static pg_status read_submission(const json_t *s, pg_res_submission *out, pg_diag *d)
{
    pg_status st;
    const pg_jctx *c = &out->ctx;
    if ((st = pg_jget_string(s, c, "name", true, &out->name, d)) != PG_OK ||
        (st = pg_jget_string(s, c, "task", true, &out->task, d)) != PG_OK ||
        (st = get_nstring(s, c, "source", false, &out->source, d)) != PG_OK ||
        (st = get_nstring(s, c, "arch", false, &out->arch, d)) != PG_OK ||
        (st = get_nstring(s, c, "manifest", false, &out->manifest, d)) != PG_OK ||
        (st = get_nstring(s, c, "source_sha256", false, &out->source_sha256, d)) != PG_OK ||
        (st = get_nstring(s, c, "cubin_sha256", false, &out->cubin_sha256, d)) != PG_OK ||
        (st = get_status(s, c, "verdict", true, &out->verdict, d)) != PG_OK ||
        (st = read_stages(s, c, &out->stages, &out->n_stages, d)) != PG_OK)
        return st;
    json_t *arr = NULL;
    if ((st = pg_jget_array(s, c, "workloads", true, &arr, d)) != PG_OK)
        return st;
    pg_jctx actx = pg_jctx_member(c, "workloads");
    size_t count = json_array_size(arr);
    if (count == 0)
        return PG_OK;
    out->workloads = calloc(count, sizeof *out->workloads);
    if (!out->workloads)
        return oom(&actx, d);
    out->n_workloads = count;
    for (size_t i = 0; i < count; i++) {
        pg_res_workload *w = &out->workloads[i];
        w->ctx = pg_jctx_index(&actx, i);
        const json_t *wj = json_array_get(arr, i);
        if (!json_is_object(wj))
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, w->ctx.path,
                               "expected a workload (an object), found %s",
                               pg_json_type_name(wj));
        w->json = wj;
        if ((st = read_workload(wj, w, d)) != PG_OK)
            return st;
    }
    return PG_OK;
}

static pg_status read_environment(const json_t *root, const pg_jctx *top, pg_res_env *e,
                                  pg_diag *d)
{
    json_t *env = NULL, *gpu = NULL;
    pg_status st = pg_jget_object(root, top, "environment", true, &env, d);
    if (st != PG_OK)
        return st;
    pg_jctx c = pg_jctx_member(top, "environment");
    e->json = env;
    e->cudnn_version = json_object_get(env, "cudnn_version");
    if ((st = get_nstring(env, &c, "hostname", false, &e->hostname, d)) != PG_OK ||
        (st = get_nobject(env, &c, "gpu", &gpu, d)) != PG_OK ||
        (st = get_nstring(env, &c, "gpu_skip_reason", false, &e->gpu_skip_reason, d)) != PG_OK ||
        (st = get_nstring(env, &c, "driver_version", false, &e->driver_version, d)) != PG_OK ||
        (st = get_nint(env, &c, "cuda_driver_api_version", &e->cuda_driver_api_version, d)) !=
            PG_OK ||
        (st = get_nstring(env, &c, "ptxas_version", false, &e->ptxas_version, d)) != PG_OK ||
        (st = get_nint(env, &c, "cublaslt_version", &e->cublaslt_version, d)) != PG_OK)
        return st;
    if (gpu) {
        pg_jctx g = pg_jctx_member(&c, "gpu");
        e->has_gpu = true;
        if ((st = get_nstring(gpu, &g, "name", false, &e->gpu_name, d)) != PG_OK ||
            (st = get_nstring(gpu, &g, "compute_capability", false, &e->compute_capability, d)) !=
                PG_OK ||
            (st = get_nint(gpu, &g, "sm_count", &e->sm_count, d)) != PG_OK ||
            (st = get_nint(gpu, &g, "memory_bytes", &e->memory_bytes, d)) != PG_OK ||
            (st = get_nstring(gpu, &g, "uuid", false, &e->gpu_uuid, d)) != PG_OK)
            return st;
    }
    return PG_OK;
}

static pg_res_int lenient_int(const json_t *v)
{
    pg_res_int r = {.has = json_is_integer(v)};
    r.v = r.has ? (int64_t)json_integer_value(v) : 0;
    return r;
}

static pg_status read_baselines(const json_t *root, const pg_jctx *top, pg_res_baselines *b,
                                pg_diag *d)
{
    const json_t *notes = NULL;
    pg_status st;
    if ((st = pg_res_get_string(root, top, "baselines.dir", &b->dir, d)) != PG_OK ||
        (st = pg_res_get_string(root, top, "baselines.gpu_key", &b->gpu_key, d)) != PG_OK ||
        (st = pg_res_get_string(root, top, "baselines.gpu_key_source", &b->gpu_key_source, d)) !=
            PG_OK ||
        (st = pg_res_get_string(root, top, "baselines.on_missing_baseline",
                                &b->on_missing_baseline, d)) != PG_OK ||
        (st = pg_res_get_string(root, top, "baselines.on_drift", &b->on_drift, d)) != PG_OK ||
        (st = pg_res_get_number(root, top, "baselines.drift_tolerance", &b->drift_tolerance,
                                d)) != PG_OK ||
        (st = pg_res_get_array(root, top, "baselines.notes", &notes, d)) != PG_OK)
        return st;
    size_t n = json_array_size(notes);
    if (n > 0 && !(b->notes = calloc(n, sizeof *b->notes)))
        return oom(top, d);
    for (size_t i = 0; i < n; i++) {
        const json_t *note = json_array_get(notes, i);
        if (!json_is_string(note)) {
            char f[64];
            snprintf(f, sizeof f, "baselines.notes[%zu]", i);
            return pg_diag_set(d, PG_ERR_INPUT, top->file, 0, f, "expected a string");
        }
        b->notes[b->n_notes++] = json_string_value(note);
    }
    return PG_OK;
}

pg_status pg_results_read(const json_t *root, const char *file, pg_results *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    pg_jctx top = {.file = file ? file : DEFAULT_FILE};
    out->file = top.file;
    out->root = root;
    pg_status st;
    if (!root || !json_is_object(root))
        return pg_diag_set(d, PG_ERR_INPUT, top.file, 0, NULL,
                           "expected a results object at the top level, found %s",
                           pg_json_type_name(root));
    int64_t version = 0;
    if ((st = pg_jget_int(root, &top, "schema_version", true, &version, d)) != PG_OK)
        goto done;
    if (version != 1) {
        st = bad_field(&top, "schema_version", d, "unsupported results schema_version (expected 1)");
        goto done;
    }
    json_t *tool = NULL, *settings = NULL, *subs = NULL;
    if ((st = pg_jget_string(root, &top, "started_utc", true, &out->started_utc, d)) != PG_OK ||
        (st = get_duration(root, &top, "duration_s", &out->duration_s, d)) != PG_OK ||
        (st = get_status(root, &top, "verdict", false, &out->verdict, d)) != PG_OK ||
        (st = pg_jget_int(root, &top, "exit_code", true, &out->exit_code, d)) != PG_OK ||
        (st = get_nobject(root, &top, "tool", &tool, d)) != PG_OK ||
        (st = get_nobject(root, &top, "settings", &settings, d)) != PG_OK ||
        (st = read_environment(root, &top, &out->env, d)) != PG_OK)
        goto done;
    out->tool = tool;
    out->settings = settings;
    if (!is_utc_timestamp(out->started_utc)) {
        st = bad_field(&top, "started_utc", d,
                       "expected a UTC time \"YYYY-MM-DDTHH:MM:SSZ\" (fractional seconds allowed)");
        goto done;
    }
    if (out->exit_code < 0 || out->exit_code > 3) {
        st = bad_field(&top, "exit_code", d, "expected 0, 1, 2 or 3 (docs/exit-codes.md)");
        goto done;
    }
    if (tool) {
        pg_jctx c = pg_jctx_member(&top, "tool");
        if ((st = pg_jget_string(tool, &c, "name", true, &out->tool_name, d)) != PG_OK ||
            (st = pg_jget_string(tool, &c, "version", true, &out->tool_version, d)) != PG_OK)
            goto done;
        if (strcmp(out->tool_name, "ptxgate") != 0) {
            st = bad_field(&c, "name", d, "expected \"ptxgate\" (a results file ptxgate wrote)");
            goto done;
        }
    }
    if (settings) {
        pg_jctx c = pg_jctx_member(&top, "settings");
        if ((st = get_nnum(settings, &c, "confidence", &out->confidence, d)) != PG_OK)
            goto done;
        if (out->confidence.has && !(out->confidence.v > 0.0 && out->confidence.v < 1.0)) {
            st = bad_field(&c, "confidence", d, "expected a confidence level between 0 and 1");
            goto done;
        }
        if ((st = get_nstring(settings, &c, "working_directory", false, &out->working_directory,
                              d)) != PG_OK)
            goto done;
    }
    if ((st = pg_jget_array(root, &top, "submissions", true, &subs, d)) != PG_OK)
        goto done;
    pg_jctx sctx = pg_jctx_member(&top, "submissions");
    size_t count = json_array_size(subs);
    if (count > 0) {
        out->subs = calloc(count, sizeof *out->subs);
        if (!out->subs) {
            st = oom(&sctx, d);
            goto done;
        }
        out->n_subs = count;
    }
    for (size_t i = 0; i < count; i++) {
        pg_res_submission *s = &out->subs[i];
        s->ctx = pg_jctx_index(&sctx, i);
        const json_t *sj = json_array_get(subs, i);
        if (!json_is_object(sj)) {
            st = pg_diag_set(d, PG_ERR_INPUT, top.file, 0, s->ctx.path,
                             "expected a submission (an object), found %s",
                             pg_json_type_name(sj));
            goto done;
        }
        s->json = sj;
        if ((st = read_submission(sj, s, d)) != PG_OK)
            goto done;
    }
    if ((st = read_baselines(root, &top, &out->baselines, d)) != PG_OK)
        goto done;
    /* Read leniently (has = false unless an integer): verdicts fold the counts again and
     * merge checks the holm record with its own message (pg_results_read_shard). */
    for (pg_res_status k = PG_RES_PASS; k <= PG_RES_SKIPPED; k++)
        out->counts[k] = lenient_int(json_object_get(json_object_get(root, "counts"),
                                                     pg_res_status_name(k)));
    out->holm_m = lenient_int(json_object_get(json_object_get(root, "holm"), "m"));
done:
    if (st != PG_OK)
        pg_results_free(out);
    return st;
}

static void free_stages(pg_res_stage *stages, size_t n)
{
    for (size_t i = 0; stages && i < n; i++) {
        pg_res_detail *x = &stages[i].detail;
        if (x->kind == PG_RES_STAGE_ASSEMBLE) {
            free(x->u.assemble.diagnostics);
            free(x->u.assemble.entries);
        } else if (x->kind == PG_RES_STAGE_INSTRUCTIONS) {
            free(x->u.instructions.targets);
        }
    }
    free(stages);
}

void pg_results_free(pg_results *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_subs && r->subs; i++) {
        pg_res_submission *s = &r->subs[i];
        free_stages(s->stages, s->n_stages);
        for (size_t j = 0; j < s->n_workloads && s->workloads; j++)
            free_stages(s->workloads[j].stages, s->workloads[j].n_stages);
        free(s->workloads);
    }
    free(r->subs);
    r->subs = NULL;
    r->n_subs = 0;
    free(r->baselines.notes);
    r->baselines.notes = NULL;
    r->baselines.n_notes = 0;
}

/* ---- the statuses of a results json being folded ---- */

static bool parse_status(const char *s, pg_res_status *out)
{
    static const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    for (size_t i = 0; s && i < 4; i++)
        if (strcmp(s, pg_res_status_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

static bool read_fold_rec(json_t *rec, pg_res_fold_rec *out)
{
    out->json = rec;
    json_t *stages = json_object_get(rec, "stages");
    size_t n = json_array_size(stages);
    if (n == 0)
        return true;
    if (!(out->stages = calloc(n, sizeof *out->stages)))
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(stages, i), "status"));
        if (parse_status(s, &out->stages[out->n_stages]))
            out->n_stages++;
    }
    return true;
}

pg_status pg_results_read_fold(json_t *results, pg_res_fold_view *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    json_t *subs = json_object_get(results, "submissions");
    size_t n = json_array_size(subs);
    if (n > 0 && !(out->subs = calloc(n, sizeof *out->subs)))
        goto oom;
    out->n_subs = n;
    for (size_t i = 0; i < n; i++) {
        json_t *sub = json_array_get(subs, i);
        pg_res_fold_sub *o = &out->subs[i];
        if (!read_fold_rec(sub, &o->sub))
            goto oom;
        json_t *wls = json_object_get(sub, "workloads");
        size_t m = json_array_size(wls);
        if (m > 0 && !(o->workloads = calloc(m, sizeof *o->workloads)))
            goto oom;
        o->n_workloads = m;
        for (size_t j = 0; j < m; j++)
            if (!read_fold_rec(json_array_get(wls, j), &o->workloads[j]))
                goto oom;
    }
    return PG_OK;
oom:
    pg_res_fold_view_free(out);
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory folding verdicts");
}

void pg_res_fold_view_free(pg_res_fold_view *v)
{
    for (size_t i = 0; v && i < v->n_subs && v->subs; i++) {
        free(v->subs[i].sub.stages);
        for (size_t j = 0; j < v->subs[i].n_workloads && v->subs[i].workloads; j++)
            free(v->subs[i].workloads[j].stages);
        free(v->subs[i].workloads);
    }
    if (v) {
        free(v->subs);
        memset(v, 0, sizeof *v);
    }
}

/* ---- the performance comparisons of Holm's family ---- */

static bool parse_cmp_verdict(const char *s, pg_cmp_verdict *out)
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

static pg_status holm_member(pg_res_holm_family *f, json_t *cmp, const char *file,
                             const char *path, pg_diag *d)
{
    pg_res_holm_member m = {.json = cmp, .stage = f->n_stages - 1};
    pg_jctx c = {.file = file};
    char field[600];
    snprintf(c.path, sizeof c.path, "%s", path);
    if (!parse_cmp_verdict(json_string_value(json_object_get(cmp, "verdict")), &m.verdict))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0,
                           pg_jctx_field(&c, "verdict", field, sizeof field),
                           "expected verdict PASS, FAIL, INCONCLUSIVE or FAST");
    const json_t *p = json_object_get(cmp, "p_fail_seq");
    if (!json_is_number(p) && !json_is_null(p))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0,
                           pg_jctx_field(&c, "p_fail_seq", field, sizeof field),
                           "expected a probability from 0 to 1 or null, found %s",
                           pg_json_type_name(p));
    if (json_is_number(p)) {
        pg_status st =
            pg_res_check_range(&c, "p_fail_seq", PG_RES_RANGE_PROB, json_number_value(p), d);
        if (st != PG_OK)
            return st;
    }
    m.p_fail_seq = json_is_number(p) ? json_number_value(p) : NAN;
    m.name = json_string_value(json_object_get(cmp, "name"));
    m.holm_changed = json_is_true(json_object_get(cmp, "holm_changed"));
    if (f->n % 32 == 0) {
        pg_res_holm_member *v = realloc(f->members, (f->n + 32) * sizeof *v);
        if (!v)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        f->members = v;
    }
    f->members[f->n++] = m;
    return PG_OK;
}

static pg_status holm_stages(pg_res_holm_family *f, json_t *stages, const char *file,
                             const char *base, pg_diag *d)
{
    size_t i, k;
    json_t *st, *c;
    json_array_foreach(stages, i, st) {
        const char *name = json_string_value(json_object_get(st, "stage"));
        if (!name || strcmp(name, "performance") != 0)
            continue;
        if (f->n_stages % 32 == 0) {
            pg_res_perf_stage *v = realloc(f->stages, (f->n_stages + 32) * sizeof *v);
            if (!v)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            f->stages = v;
        }
        const char *status = json_string_value(json_object_get(st, "status"));
        f->stages[f->n_stages++] = (pg_res_perf_stage){
            .json = st,
            .is_error = status && strcmp(status, "error") == 0,
            .message = json_string_value(json_object_get(st, "message")),
        };
        json_array_foreach(json_object_get(json_object_get(st, "details"), "comparisons"), k, c) {
            const char *cname = json_string_value(json_object_get(c, "name"));
            if (!json_object_get(c, "p_fail_seq") || (cname && strcmp(cname, "aa_canary") == 0))
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s.stages[%zu].details.comparisons[%zu]", base, i, k);
            pg_status s = holm_member(f, c, file, path, d);
            if (s != PG_OK)
                return s;
        }
    }
    return PG_OK;
}

pg_status pg_results_read_holm_family(json_t *results, const char *file,
                                      pg_res_holm_family *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    pg_status st = PG_OK;
    size_t i, j;
    json_t *sub, *wl;
    json_array_foreach(json_object_get(results, "submissions"), i, sub) {
        json_array_foreach(json_object_get(sub, "workloads"), j, wl) {
            char base[128];
            snprintf(base, sizeof base, "submissions[%zu].workloads[%zu]", i, j);
            if ((st = holm_stages(out, json_object_get(wl, "stages"), file, base, d)) != PG_OK) {
                pg_res_holm_family_free(out);
                return st;
            }
        }
    }
    return PG_OK;
}

void pg_res_holm_family_free(pg_res_holm_family *f)
{
    if (!f)
        return;
    free(f->stages);
    free(f->members);
    memset(f, 0, sizeof *f);
}

/* ---- the records of a sharded run ---- */

pg_status pg_results_read_shard(const pg_results *r, pg_res_shard *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *file = r->file;
    const json_t *sh = json_object_get(r->root, "shard");
    if (!json_is_object(sh))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "shard",
                           "not the results of a shard: no \"shard\" record (run ptxgate check "
                           "with --shard i/n)");
    const json_t *holm = json_object_get(r->root, "holm");
    if (!json_is_object(holm) || !json_is_integer(json_object_get(holm, "m")) ||
        !json_is_integer(json_object_get(holm, "m_planned")) ||
        !json_is_number(json_object_get(holm, "run_alpha")))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm",
                           "expected an object with run_alpha, m_planned and m (written by "
                           "ptxgate check of this version)");
    const json_t *idx = json_object_get(sh, "index"), *cnt = json_object_get(sh, "count"),
                 *tot = json_object_get(sh, "items_total"), *items = json_object_get(sh, "items");
    if (!json_is_integer(idx) || !json_is_integer(cnt) || !json_is_integer(tot) ||
        !json_is_array(items) || json_integer_value(cnt) < 1 ||
        json_integer_value(cnt) > PG_SHARD_MAX || json_integer_value(idx) < 1 ||
        json_integer_value(idx) > json_integer_value(cnt) || json_integer_value(tot) < 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "shard",
                           "expected index (1..count), count (1..%d), items_total (>= 0) and "
                           "items",
                           PG_SHARD_MAX);
    /* Holm's inputs: a level in (0, 1) and comparison counts a run can have (their sum over
     * every shard stays far from overflowing). */
    double alpha = json_number_value(json_object_get(holm, "run_alpha"));
    json_int_t m = json_integer_value(json_object_get(holm, "m")),
               m_planned = json_integer_value(json_object_get(holm, "m_planned"));
    if (!(alpha > 0.0 && alpha < 1.0))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm.run_alpha",
                           "expected a level between 0 and 1, got %g", alpha);
    if (m_planned < 0 || m_planned > INT32_MAX || m < 0 || m > m_planned)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm.m",
                           "expected 0 <= m <= m_planned <= %d, got m = %lld, m_planned = %lld",
                           INT32_MAX, (long long)m, (long long)m_planned);
    size_t n = json_array_size(items);
    if (n > 0 && !(out->items = calloc(n, sizeof *out->items)))
        return pg_diag_set(d, PG_ERR_INFRA, file, 0, "shard.items", "out of memory");
    out->n_items = n;
    for (size_t k = 0; k < n; k++) {
        const json_t *it = json_array_get(items, k);
        pg_res_shard_item *o = &out->items[k];
        const json_t *si = json_object_get(it, "submission_index"),
                     *wi = json_object_get(it, "workload_index");
        o->submission_index = json_is_integer(si) ? (int64_t)json_integer_value(si) : -1;
        o->workload_index = json_is_integer(wi) ? (int64_t)json_integer_value(wi) : -1;
        o->task = json_string_value(json_object_get(it, "task"));
        o->submission = json_string_value(json_object_get(it, "submission"));
        o->workload = json_string_value(json_object_get(it, "workload"));
        o->manifest = json_string_value(json_object_get(it, "manifest"));
        o->json = it;
    }
    out->index = (int)json_integer_value(idx);
    out->count = (int)json_integer_value(cnt);
    out->items_total = (int64_t)json_integer_value(tot);
    out->run_alpha = alpha;
    out->m_planned = (int64_t)m_planned;
    out->m = (int64_t)m;
    return PG_OK;
}

bool pg_results_shard_label(const json_t *root, long long *index, long long *count)
{
    const json_t *shard = json_object_get(root, "shard");
    *index = (long long)json_integer_value(json_object_get(shard, "index"));
    *count = (long long)json_integer_value(json_object_get(shard, "count"));
    return json_is_object(shard);
}

void pg_res_shard_free(pg_res_shard *s)
{
    if (!s)
        return;
    free(s->items);
    s->items = NULL;
    s->n_items = 0;
}

bool pg_res_shard_items_same(const pg_res_shard_item *a, const pg_res_shard_item *b,
                             const char **which)
{
    static const char *const keys[] = {"task", "submission", "manifest"};
    for (size_t q = 0; q < 3; q++) {
        const json_t *x = json_object_get(a->json, keys[q]), *y = json_object_get(b->json, keys[q]);
        if ((x || y) && !json_equal((json_t *)x, (json_t *)y)) {
            if (which)
                *which = keys[q];
            return false;
        }
    }
    return true;
}

static bool same_value(const json_t *va, const json_t *vb)
{
    return json_equal((json_t *)va, (json_t *)vb) || (!va && json_is_null(vb)) ||
           (json_is_null(va) && !vb);
}

bool pg_res_settings_differ(const pg_results *a, const pg_results *b, const char **key,
                            const json_t **va, const json_t **vb)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)a->settings, k, v) {
        const json_t *w = json_object_get(b->settings, k);
        if (!same_value(v, w)) {
            *key = k, *va = v, *vb = w;
            return true;
        }
    }
    json_object_foreach((json_t *)b->settings, k, v) {
        const json_t *w = json_object_get(a->settings, k);
        if (!same_value(w, v)) {
            *key = k, *va = w, *vb = v;
            return true;
        }
    }
    return false;
}

void pg_res_show(const json_t *v, char *buf, size_t n)
{
    if (!v || json_is_null(v)) {
        snprintf(buf, n, "none");
        return;
    }
    if (json_is_string(v)) {
        snprintf(buf, n, "'%s'", json_string_value(v));
        return;
    }
    /* ASCII, so a cut never splits a character. */
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS |
                                   JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
    if (!text) {
        snprintf(buf, n, "(a %s)", pg_json_type_name(v));
        return;
    }
    if (strlen(text) < n)
        snprintf(buf, n, "%s", text);
    else if (n > 8)
        snprintf(buf, n, "%.*s…", (int)(n - 8), text);
    free(text);
}

const pg_res_stage *pg_res_find_stage(const pg_res_stage *stages, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(stages[i].stage, name) == 0)
            return &stages[i];
    return NULL;
}

/* ---- details lookups ---- */

/* Walk "a.b.c" from obj. *v = the member (NULL when missing/null on the way); path gets the JSON
 * path of the last member walked, for errors. */
static pg_status walk(const json_t *obj, const pg_jctx *ctx, const char *dotted, const json_t **v,
                      char *path, size_t n, pg_diag *d)
{
    const json_t *cur = obj;
    size_t used = (size_t)snprintf(path, n, "%s", ctx->path);
    const char *p = dotted;
    *v = NULL;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t klen = dot ? (size_t)(dot - p) : strlen(p);
        char key[64];
        if (klen >= sizeof key)
            klen = sizeof key - 1;
        memcpy(key, p, klen);
        key[klen] = '\0';
        if (!json_is_object(cur))
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, path,
                               "expected an object, found %s", pg_json_type_name(cur));
        if (used < n)
            used += (size_t)snprintf(path + used, n - used, "%s%s", used ? "." : "", key);
        cur = json_object_get(cur, key);
        if (!cur || json_is_null(cur))
            return PG_OK;
        p = dot ? dot + 1 : p + strlen(p);
    }
    *v = cur;
    return PG_OK;
}

static pg_status type_error(const pg_jctx *ctx, const char *path, const char *want,
                            const json_t *v, pg_diag *d)
{
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, path, "expected %s, found %s", want,
                       pg_json_type_name(v));
}

/* obj's value at dotted into *v (NULL when absent: not an error), which must be of the type
 * `is` accepts (want names it for the message). Errors: walk's; PG_ERR_INPUT naming the path
 * when the type differs. */
static pg_status get_typed(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                           bool (*is)(const json_t *), const char *want, const json_t **v,
                           pg_diag *d)
{
    char path[512];
    pg_status st = walk(obj, ctx, dotted, v, path, sizeof path, d);
    if (st == PG_OK && *v && !is(*v))
        return type_error(ctx, path, want, *v, d);
    return st;
}

static bool is_number(const json_t *v) { return json_is_number(v); }
static bool is_integer(const json_t *v) { return json_is_integer(v); }
static bool is_string(const json_t *v) { return json_is_string(v); }
static bool is_array(const json_t *v) { return json_is_array(v); }
static bool is_object(const json_t *v) { return json_is_object(v); }
static bool is_boolean(const json_t *v) { return json_is_boolean(v); }

pg_status pg_res_get_number(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                            pg_res_num *out, pg_diag *d)
{
    const json_t *v;
    out->has = false;
    pg_status st = get_typed(obj, ctx, dotted, is_number, "a number", &v, d);
    if (st == PG_OK && v) {
        out->has = true;
        out->v = json_number_value(v);
    }
    return st;
}

pg_status pg_res_get_int(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                         pg_res_int *out, pg_diag *d)
{
    const json_t *v;
    out->has = false;
    pg_status st = get_typed(obj, ctx, dotted, is_integer, "an integer", &v, d);
    if (st == PG_OK && v) {
        out->has = true;
        out->v = (int64_t)json_integer_value(v);
    }
    return st;
}

pg_status pg_res_get_string(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                            const char **out, pg_diag *d)
{
    const json_t *v;
    pg_status st = get_typed(obj, ctx, dotted, is_string, "a string", &v, d);
    *out = st == PG_OK && v ? json_string_value(v) : NULL;
    return st;
}

pg_status pg_res_get_array(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                           const json_t **out, pg_diag *d)
{
    const json_t *v;
    pg_status st = get_typed(obj, ctx, dotted, is_array, "an array", &v, d);
    *out = st == PG_OK ? v : NULL;
    return st;
}

pg_status pg_res_detail_number(const pg_res_stage *s, const char *dotted, pg_res_num *out,
                               pg_diag *d)
{
    return pg_res_get_number(s->details, &s->details_ctx, dotted, out, d);
}

pg_status pg_res_detail_int(const pg_res_stage *s, const char *dotted, pg_res_int *out,
                            pg_diag *d)
{
    return pg_res_get_int(s->details, &s->details_ctx, dotted, out, d);
}

pg_status pg_res_detail_string(const pg_res_stage *s, const char *dotted, const char **out,
                               pg_diag *d)
{
    return pg_res_get_string(s->details, &s->details_ctx, dotted, out, d);
}

pg_status pg_res_detail_array(const pg_res_stage *s, const char *dotted, const json_t **out,
                              pg_diag *d)
{
    return pg_res_get_array(s->details, &s->details_ctx, dotted, out, d);
}

pg_status pg_res_detail_object(const pg_res_stage *s, const char *dotted, const json_t **out,
                               pg_diag *d)
{
    const json_t *v;
    pg_status st = get_typed(s->details, &s->details_ctx, dotted, is_object, "an object", &v, d);
    *out = st == PG_OK ? v : NULL;
    return st;
}

pg_status pg_res_get_bool(const json_t *obj, const pg_jctx *ctx, const char *dotted, int *out,
                          pg_diag *d)
{
    const json_t *v;
    pg_status st = get_typed(obj, ctx, dotted, is_boolean, "true or false", &v, d);
    *out = st == PG_OK && v ? json_is_true(v) : -1;
    return st;
}

pg_status pg_res_detail_bool(const pg_res_stage *s, const char *dotted, int *out, pg_diag *d)
{
    return pg_res_get_bool(s->details, &s->details_ctx, dotted, out, d);
}

/* The detail fields the reports read, by stage, with the type each must have when present and
 * the range of a number (what ptxgate check can write: errors, counts and sizes >= 0, times
 * > 0, a confidence level in (0, 1); all below 1e12 so that sums and ratios stay finite), so
 * that a hand-edited or hostile file (a p_fail_seq or a time of -1e308) is an input error
 * naming the field, never a changed verdict. */
typedef enum { T_NUM, T_INT, T_STR, T_ARR } detail_type;
typedef enum { R_ANY, R_NONNEG, R_POS, R_LEVEL } detail_range;
static const struct {
    const char *stage, *path;
    detail_type type;
    detail_range range;
} k_detail_fields[] = {
    {"assemble", "registers", T_INT, R_NONNEG},
    {"assemble", "shared_bytes", T_INT, R_NONNEG},
    {"assemble", "spill_store_bytes", T_INT, R_NONNEG},
    {"assemble", "spill_load_bytes", T_INT, R_NONNEG},
    {"assemble", "stack_frame_bytes", T_INT, R_NONNEG},
    {"assemble", "diagnostics", T_ARR, R_ANY},
    {"assemble", "entries", T_ARR, R_ANY},
    {"load", "log", T_STR, R_ANY},
    {"correctness", "max_absolute_error", T_NUM, R_NONNEG},
    {"correctness", "max_relative_error", T_NUM, R_NONNEG},
    {"correctness", "relative_l2_error", T_NUM, R_NONNEG},
    {"correctness", "bad_elements", T_INT, R_NONNEG},
    {"correctness", "tolerance.atol", T_NUM, R_NONNEG},
    {"correctness", "tolerance.rtol", T_NUM, R_NONNEG},
    {"correctness", "tolerance.max_rel_l2", T_NUM, R_NONNEG},
    {"performance", "candidate.median_ms", T_NUM, R_POS},
    {"performance", "candidate.ci_low_ms", T_NUM, R_POS},
    {"performance", "candidate.ci_high_ms", T_NUM, R_POS},
    {"performance", "candidate.tflops", T_NUM, R_NONNEG},
    {"performance", "baseline.median_ms", T_NUM, R_POS},
    {"performance", "baseline.ci_low_ms", T_NUM, R_POS},
    {"performance", "baseline.ci_high_ms", T_NUM, R_POS},
    {"performance", "baseline.tflops", T_NUM, R_NONNEG},
    {"performance", "speedup.estimate", T_NUM, R_NONNEG},
    {"performance", "speedup.ci_low", T_NUM, R_NONNEG},
    {"performance", "speedup.ci_high", T_NUM, R_NONNEG},
    {"performance", "speedup.confidence", T_NUM, R_LEVEL},
    {"performance", "min_speedup", T_NUM, R_POS},
    {"performance", "reference", T_STR, R_ANY},
    {"instructions", "policy", T_STR, R_ANY},
    {"instructions", "arch", T_STR, R_ANY},
    {"instructions", "targets", T_ARR, R_ANY},
};

pg_status pg_res_check_range(const pg_jctx *ctx, const char *field, pg_res_range range,
                             double v, pg_diag *d)
{
    static const char *const want[] = {
        [PG_RES_RANGE_ANY] = "a number above -1e12 and below 1e12",
        [PG_RES_RANGE_NONNEG] = "a number >= 0 and below 1e12",
        [PG_RES_RANGE_POS] = "a number > 0 and below 1e12",
        [PG_RES_RANGE_LEVEL] = "a level between 0 and 1 (both excluded)",
        [PG_RES_RANGE_PROB] = "a probability from 0 to 1",
    };
    bool ok = v > -1e12 && v < 1e12;
    switch (range) {
    case PG_RES_RANGE_ANY: break;
    case PG_RES_RANGE_NONNEG: ok = ok && v >= 0.0; break;
    case PG_RES_RANGE_POS: ok = ok && v > 0.0; break;
    case PG_RES_RANGE_LEVEL: ok = v > 0.0 && v < 1.0; break;
    case PG_RES_RANGE_PROB: ok = v >= 0.0 && v <= 1.0; break;
    }
    if (ok)
        return PG_OK;
    char f[600];
    snprintf(f, sizeof f, "%s%s%s", ctx->path, ctx->path[0] ? "." : "", field);
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, f, "expected %s, found %g", want[range],
                       v);
}

static pg_status check_range(const pg_res_stage *s, const char *path, detail_range r, double v,
                             pg_diag *d)
{
    static const pg_res_range map[] = {[R_ANY] = PG_RES_RANGE_ANY,
                                       [R_NONNEG] = PG_RES_RANGE_NONNEG,
                                       [R_POS] = PG_RES_RANGE_POS,
                                       [R_LEVEL] = PG_RES_RANGE_LEVEL};
    return pg_res_check_range(&s->details_ctx, path, map[r], v, d);
}

/* Check the types of the detail fields reports use, so every writer fails the same way on a
 * malformed file, whatever the stage's status. */
static pg_status check_details(const pg_res_stage *s, pg_diag *d)
{
    pg_status st = PG_OK;
    for (size_t i = 0; i < sizeof k_detail_fields / sizeof k_detail_fields[0] && st == PG_OK;
         i++) {
        if (strcmp(k_detail_fields[i].stage, s->stage) != 0)
            continue;
        const char *path = k_detail_fields[i].path, *str;
        const json_t *arr;
        pg_res_num num;
        pg_res_int in;
        num.has = in.has = false;
        switch (k_detail_fields[i].type) {
        case T_NUM: st = pg_res_detail_number(s, path, &num, d); break;
        case T_INT: st = pg_res_detail_int(s, path, &in, d); break;
        case T_STR: st = pg_res_detail_string(s, path, &str, d); break;
        case T_ARR: st = pg_res_detail_array(s, path, &arr, d); break;
        }
        if (st == PG_OK && (num.has || in.has))
            st = check_range(s, path, k_detail_fields[i].range, num.has ? num.v : (double)in.v,
                             d);
    }
    if (st == PG_OK && strcmp(s->stage, "instructions") == 0) {
        const json_t *targets = NULL;
        pg_res_detail_array(s, "targets", &targets, d);
        for (size_t i = 0; i < json_array_size(targets) && st == PG_OK; i++) {
            pg_res_instr_target t;
            st = pg_res_instr_target_get(s, targets, i, &t, d);
        }
        return st;
    }
    if (st != PG_OK || strcmp(s->stage, "assemble") != 0)
        return st;
    const json_t *diags = NULL, *entries = NULL;
    pg_res_detail_array(s, "diagnostics", &diags, d);
    for (size_t i = 0; i < json_array_size(diags) && st == PG_OK; i++) {
        pg_res_ptx_diag g;
        st = pg_res_ptx_diag_get(s, diags, i, &g, d);
    }
    pg_res_detail_array(s, "entries", &entries, d);
    pg_jctx list = pg_jctx_member(&s->details_ctx, "entries");
    for (size_t i = 0; i < json_array_size(entries) && st == PG_OK; i++) {
        pg_jctx ec = pg_jctx_index(&list, i);
        const json_t *e = json_array_get(entries, i);
        const char *name;
        pg_res_int v;
        if (!json_is_object(e))
            return pg_diag_set(d, PG_ERR_INPUT, ec.file, 0, ec.path,
                               "expected an entry (an object), found %s", pg_json_type_name(e));
        static const char *const k_ints[] = {"registers", "shared_bytes", "spill_store_bytes",
                                             "spill_load_bytes", "stack_frame_bytes"};
        st = pg_res_get_string(e, &ec, "name", &name, d);
        for (size_t k = 0; k < sizeof k_ints / sizeof k_ints[0] && st == PG_OK; k++) {
            st = pg_res_get_int(e, &ec, k_ints[k], &v, d);
            if (st == PG_OK && v.has)
                st = pg_res_check_range(&ec, k_ints[k], PG_RES_RANGE_NONNEG, (double)v.v, d);
        }
    }
    return st;
}

/* ---- typed details ---- */

/* A positive integer below LONG_MAX, else 0 (the lenient lines of pg_res_detail). */
static long positive_line(const json_t *l)
{
    if (json_is_integer(l) && json_integer_value(l) > 0 && json_integer_value(l) < LONG_MAX)
        return (long)json_integer_value(l);
    return 0;
}

/* The first positive "line" of the objects in array a whose "severity" is error or warning (or
 * that have no severity), or 0; *file (may be NULL) its "file". */
static long first_diag_line(const json_t *a, const char **file)
{
    size_t i;
    const json_t *g;
    if (file)
        *file = NULL;
    json_array_foreach(a, i, g) {
        const char *sev = json_string_value(json_object_get(g, "severity"));
        if (sev && strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0)
            continue;
        long line = positive_line(json_object_get(g, "line"));
        if (line > 0) {
            if (file)
                *file = json_string_value(json_object_get(g, "file"));
            return line;
        }
    }
    return 0;
}

/* The first PTX line of the first failed target: where the target occurs, else where its
 * nearest instruction is; 0 when none is recorded. */
static long first_target_line(const json_t *targets)
{
    size_t i;
    const json_t *t;
    json_array_foreach(targets, i, t) {
        const char *status = json_string_value(json_object_get(t, "status"));
        if (!status || strcmp(status, "fail") != 0)
            continue;
        const json_t *ptx = json_object_get(t, "ptx");
        const json_t *l = json_array_get(json_object_get(ptx, "lines"), 0);
        if (!json_is_integer(l))
            l = json_array_get(
                json_object_get(json_array_get(json_object_get(ptx, "nearest"), 0), "lines"), 0);
        long line = positive_line(l);
        if (line > 0)
            return line;
    }
    return 0;
}

static pg_status read_resources(const json_t *obj, const pg_jctx *ctx, pg_res_resources *r,
                                pg_diag *d)
{
    pg_status st;
    if ((st = pg_res_get_int(obj, ctx, "registers", &r->registers, d)) != PG_OK ||
        (st = pg_res_get_int(obj, ctx, "shared_bytes", &r->shared_bytes, d)) != PG_OK ||
        (st = pg_res_get_int(obj, ctx, "spill_store_bytes", &r->spill_store_bytes, d)) != PG_OK ||
        (st = pg_res_get_int(obj, ctx, "spill_load_bytes", &r->spill_load_bytes, d)) != PG_OK ||
        (st = pg_res_get_int(obj, ctx, "stack_frame_bytes", &r->stack_frame_bytes, d)) != PG_OK)
        return st;
    return PG_OK;
}

static pg_status read_timing(const pg_res_stage *s, const char *arm, pg_res_timing *t,
                             pg_diag *d)
{
    char k[4][64];
    snprintf(k[0], sizeof k[0], "%s.median_ms", arm);
    snprintf(k[1], sizeof k[1], "%s.ci_low_ms", arm);
    snprintf(k[2], sizeof k[2], "%s.ci_high_ms", arm);
    snprintf(k[3], sizeof k[3], "%s.tflops", arm);
    pg_status st;
    if ((st = pg_res_detail_number(s, k[0], &t->median_ms, d)) != PG_OK ||
        (st = pg_res_detail_number(s, k[1], &t->ci_low_ms, d)) != PG_OK ||
        (st = pg_res_detail_number(s, k[2], &t->ci_high_ms, d)) != PG_OK ||
        (st = pg_res_detail_number(s, k[3], &t->tflops, d)) != PG_OK)
        return st;
    return PG_OK;
}

/* Fill s->detail from s->details (check_details has checked the types and ranges). */
static pg_status read_detail(pg_res_stage *s, pg_diag *d)
{
    pg_res_detail *x = &s->detail;
    memset(x, 0, sizeof *x);
    pg_status st = PG_OK;
    const json_t *arr = NULL;
    if (strcmp(s->stage, "assemble") == 0) {
        x->kind = PG_RES_STAGE_ASSEMBLE;
        if ((st = read_resources(s->details, &s->details_ctx, &x->u.assemble.res, d)) != PG_OK ||
            (st = pg_res_detail_array(s, "diagnostics", &arr, d)) != PG_OK)
            return st;
        size_t n = json_array_size(arr);
        if (n > 0 && !(x->u.assemble.diagnostics = calloc(n, sizeof *x->u.assemble.diagnostics)))
            return oom(&s->details_ctx, d);
        for (size_t i = 0; i < n; i++, x->u.assemble.n_diagnostics++)
            if ((st = pg_res_ptx_diag_get(s, arr, i, &x->u.assemble.diagnostics[i], d)) != PG_OK)
                return st;
        x->u.assemble.ptx_line = first_diag_line(arr, NULL);
        x->u.assemble.cu_line =
            first_diag_line(json_object_get(json_object_get(s->details, "nvcc"), "diagnostics"),
                            &x->u.assemble.cu_file);
        if ((st = pg_res_detail_array(s, "entries", &arr, d)) != PG_OK)
            return st;
        n = json_array_size(arr);
        if (n > 0 && !(x->u.assemble.entries = calloc(n, sizeof *x->u.assemble.entries)))
            return oom(&s->details_ctx, d);
        pg_jctx list = pg_jctx_member(&s->details_ctx, "entries");
        for (size_t i = 0; i < n; i++, x->u.assemble.n_entries++) {
            pg_jctx ec = pg_jctx_index(&list, i);
            pg_res_entry *e = &x->u.assemble.entries[i];
            const json_t *ej = json_array_get(arr, i);
            if ((st = pg_res_get_string(ej, &ec, "name", &e->name, d)) != PG_OK ||
                (st = read_resources(ej, &ec, &e->res, d)) != PG_OK)
                return st;
        }
    } else if (strcmp(s->stage, "load") == 0) {
        x->kind = PG_RES_STAGE_LOAD;
        st = pg_res_detail_string(s, "log", &x->u.load.log, d);
    } else if (strcmp(s->stage, "correctness") == 0) {
        x->kind = PG_RES_STAGE_CORRECTNESS;
        if ((st = pg_res_detail_number(s, "max_absolute_error",
                                       &x->u.correctness.max_absolute_error, d)) != PG_OK ||
            (st = pg_res_detail_number(s, "max_relative_error",
                                       &x->u.correctness.max_relative_error, d)) != PG_OK ||
            (st = pg_res_detail_number(s, "relative_l2_error",
                                       &x->u.correctness.relative_l2_error, d)) != PG_OK ||
            (st = pg_res_detail_int(s, "bad_elements", &x->u.correctness.bad_elements, d)) !=
                PG_OK ||
            (st = pg_res_detail_number(s, "tolerance.atol", &x->u.correctness.atol, d)) !=
                PG_OK ||
            (st = pg_res_detail_number(s, "tolerance.rtol", &x->u.correctness.rtol, d)) !=
                PG_OK ||
            (st = pg_res_detail_number(s, "tolerance.max_rel_l2", &x->u.correctness.max_rel_l2,
                                       d)) != PG_OK)
            return st;
    } else if (strcmp(s->stage, "instructions") == 0) {
        x->kind = PG_RES_STAGE_INSTRUCTIONS;
        if ((st = pg_res_detail_string(s, "policy", &x->u.instructions.policy, d)) != PG_OK ||
            (st = pg_res_detail_string(s, "arch", &x->u.instructions.arch, d)) != PG_OK ||
            (st = pg_res_detail_array(s, "targets", &arr, d)) != PG_OK)
            return st;
        size_t n = json_array_size(arr);
        if (n > 0 && !(x->u.instructions.targets = calloc(n, sizeof *x->u.instructions.targets)))
            return oom(&s->details_ctx, d);
        for (size_t i = 0; i < n; i++, x->u.instructions.n_targets++)
            if ((st = pg_res_instr_target_get(s, arr, i, &x->u.instructions.targets[i], d)) !=
                PG_OK)
                return st;
        x->u.instructions.failed_line = first_target_line(arr);
    } else if (strcmp(s->stage, "performance") == 0) {
        const char *reference = NULL;
        x->kind = PG_RES_STAGE_PERFORMANCE;
        if ((st = read_timing(s, "candidate", &x->u.performance.candidate, d)) != PG_OK ||
            (st = read_timing(s, "baseline", &x->u.performance.baseline, d)) != PG_OK ||
            (st = pg_res_detail_number(s, "speedup.estimate",
                                       &x->u.performance.speedup_estimate, d)) != PG_OK ||
            (st = pg_res_detail_number(s, "speedup.ci_low", &x->u.performance.speedup_ci_low,
                                       d)) != PG_OK ||
            (st = pg_res_detail_number(s, "speedup.ci_high", &x->u.performance.speedup_ci_high,
                                       d)) != PG_OK ||
            (st = pg_res_detail_number(s, "speedup.confidence",
                                       &x->u.performance.speedup_confidence, d)) != PG_OK ||
            (st = pg_res_detail_number(s, "min_speedup", &x->u.performance.min_speedup, d)) !=
                PG_OK ||
            (st = pg_res_detail_string(s, "reference", &reference, d)) != PG_OK)
            return st;
        x->u.performance.over_accepted = reference && strcmp(reference, "accepted") == 0;
    } else if (strcmp(s->stage, "manifest") == 0) {
        x->kind = PG_RES_STAGE_MANIFEST;
        x->u.manifest.line = positive_line(json_object_get(s->details, "line"));
    }
    return st;
}

pg_status pg_res_ptx_diag_get(const pg_res_stage *s, const json_t *diagnostics, size_t i,
                              pg_res_ptx_diag *out, pg_diag *d)
{
    pg_jctx list = pg_jctx_member(&s->details_ctx, "diagnostics");
    pg_jctx c = pg_jctx_index(&list, i);
    const json_t *e = json_array_get(diagnostics, i);
    memset(out, 0, sizeof *out);
    out->severity = "";
    out->message = "";
    if (!json_is_object(e))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                           "expected a diagnostic (an object), found %s", pg_json_type_name(e));
    pg_status st;
    const char *sev = NULL, *msg = NULL;
    if ((st = get_nstring(e, &c, "severity", false, &sev, d)) != PG_OK ||
        (st = get_nstring(e, &c, "message", false, &msg, d)) != PG_OK ||
        (st = get_nint(e, &c, "line", &out->line, d)) != PG_OK)
        return st;
    if (out->line.has && out->line.v <= 0)
        out->line.has = false; /* ptxas reports 0 for messages without a line */
    if (sev)
        out->severity = sev;
    if (msg)
        out->message = msg;
    return PG_OK;
}

pg_status pg_res_instr_target_get(const pg_res_stage *s, const json_t *targets, size_t i,
                                  pg_res_instr_target *out, pg_diag *d)
{
    pg_jctx list = pg_jctx_member(&s->details_ctx, "targets");
    pg_jctx c = pg_jctx_index(&list, i);
    const json_t *e = json_array_get(targets, i);
    memset(out, 0, sizeof *out);
    out->summary = out->sass_status = out->runtime_status = "";
    if (!json_is_object(e))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                           "expected a target (an object), found %s", pg_json_type_name(e));
    pg_status st;
    const char *summary = NULL, *sass = NULL, *runtime = NULL;
    if ((st = pg_jget_string(e, &c, "target", true, &out->target, d)) != PG_OK ||
        (st = pg_jget_string(e, &c, "status", true, &out->status, d)) != PG_OK ||
        (st = get_nstring(e, &c, "reason", false, &out->reason, d)) != PG_OK ||
        (st = get_nstring(e, &c, "summary", false, &summary, d)) != PG_OK ||
        (st = pg_res_get_string(e, &c, "sass.status", &sass, d)) != PG_OK ||
        (st = pg_res_get_string(e, &c, "runtime.status", &runtime, d)) != PG_OK ||
        (st = pg_res_get_number(e, &c, "runtime.executed_count", &out->executed_count, d)) !=
            PG_OK ||
        (st = pg_res_get_number(e, &c, "runtime.coverage", &out->coverage, d)) != PG_OK)
        return st;
    if (out->executed_count.has &&
        (st = pg_res_check_range(&c, "runtime.executed_count", PG_RES_RANGE_NONNEG,
                                 out->executed_count.v, d)) != PG_OK)
        return st;
    /* Coverage is executed tensor work over the task's FLOPs, not a probability: a kernel that
     * computes padded tiles covers more than 1 (wgmma_tma at m257_n513_k1000: 2.291 on the
     * H200), so only its sign and size are checked. */
    if (out->coverage.has && (st = pg_res_check_range(&c, "runtime.coverage", PG_RES_RANGE_NONNEG,
                                                      out->coverage.v, d)) != PG_OK)
        return st;
    if (strcmp(out->status, "pass") != 0 && strcmp(out->status, "fail") != 0 &&
        strcmp(out->status, "unknown") != 0)
        return bad_field(&c, "status", d, "expected one of pass, fail, unknown");
    out->summary = summary ? summary : "";
    out->sass_status = sass ? sass : "";
    out->runtime_status = runtime ? runtime : "";
    return PG_OK;
}

/* ---- UTF-8 ---- */

size_t pg_utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[0];
    size_t n;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, min = 0x80, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, min = 0x800, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, min = 0x10000, c &= 0x07;
    } else {
        *cp = 0xFFFD;
        return 1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        c = (c << 6) | (u[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = c;
    return n;
}

/* Characters no report shows as they are: those XML 1.0 forbids (C0 controls other than
 * TAB/LF/CR, U+FFFE, U+FFFF), DEL and the C1 controls (terminal escapes), and the bidirectional
 * overrides and isolates that make text read differently from what it is. */
static bool hidden(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || (cp >= 0x7F && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFFFE ||
           cp == 0xFFFF;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void pg_rtext_add_clean(pg_text *t, const char *s, unsigned flags, size_t max_bytes)
{
    if (!s)
        return;
    size_t end = strlen(s);
    bool cut = false;
    if (max_bytes && end > max_bytes) {
        end = max_bytes;
        while (end > 0 && ((unsigned char)s[end] & 0xC0) == 0x80)
            end--;
        cut = true;
    }
    size_t i = 0;
    while (i < end) {
        if ((flags & PG_CLEAN_ONE_LINE) && is_space(s[i])) {
            size_t j = i;
            bool breaks = false;
            while (j < end && is_space(s[j]))
                breaks |= s[j++] != ' ';
            if (!breaks)
                pg_text_addn(t, s + i, j - i);
            else if (i > 0 && j < end)
                pg_text_add(t, " ");
            i = j;
            continue;
        }
        uint32_t cp;
        size_t k = pg_utf8_next(s + i, &cp);
        if (i + k > end)
            k = end - i, cp = 0xFFFD;
        if (cp == 0xFFFD || hidden(cp))
            pg_text_add_cp(t, 0xFFFD);
        else
            pg_text_addn(t, s + i, k);
        i += k;
    }
    if (cut)
        pg_text_add(t, "…");
}

/* ---- locale and versions ---- */

pg_status pg_res_locale_enter(pg_res_locale *l, pg_diag *d)
{
    l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (l->c == (locale_t)0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cannot create the C locale");
    l->old = uselocale(l->c);
    return PG_OK;
}

void pg_res_locale_leave(pg_res_locale *l)
{
    if (l->c == (locale_t)0)
        return;
    uselocale(l->old);
    freelocale(l->c);
    l->c = (locale_t)0;
}

char *pg_res_cuda_version(int64_t v, char *buf, size_t n)
{
    if (v > 0)
        snprintf(buf, n, "%lld.%lld", (long long)(v / 1000), (long long)((v % 1000) / 10));
    else
        snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

char *pg_res_cublaslt_version(int64_t v, char *buf, size_t n)
{
    if (v > 0)
        snprintf(buf, n, "%lld.%lld.%lld", (long long)(v / 10000), (long long)((v / 100) % 100),
                 (long long)(v % 100));
    else
        snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

pg_status pg_res_ptx_diags_shown(const pg_res_stage *s, pg_res_ptx_diag *out, size_t max,
                                 size_t *n, size_t *more, pg_diag *d)
{
    (void)d;
    *n = *more = 0;
    if (s->detail.kind != PG_RES_STAGE_ASSEMBLE)
        return PG_OK;
    for (size_t i = 0; i < s->detail.u.assemble.n_diagnostics; i++) {
        const pg_res_ptx_diag *g = &s->detail.u.assemble.diagnostics[i];
        if (strcmp(g->severity, "info") == 0)
            continue;
        if (*n < max)
            out[(*n)++] = *g;
        else
            (*more)++;
    }
    return PG_OK;
}
