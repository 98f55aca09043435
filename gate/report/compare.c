/* Pairing two results files and the per-workload records of the comparison model (see
 * compare.h); the aggregates are compare_summary.c's. */
#include "compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_settings.h"
#include "results_read.h"
#include "results_read_compare.h"

const double pg_compare_fast_p[PG_COMPARE_N_FAST_P] = {0.5, 0.8, 1.0, 1.2};

/* The compared stages, in chain order. */
static const char *const k_stages[] = {"assemble", "correctness", "instructions", "performance"};
#define N_STAGES (sizeof k_stages / sizeof k_stages[0])

void pg_compare_options_init(pg_compare_options *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.05;
    o->confidence = 0.95;
    o->resamples = 10000;
    o->seed = 20261129;
    o->fail_on = PG_FAIL_ON_CORRECTNESS | PG_FAIL_ON_SIGNIFICANT;
}

pg_status pg_compare_parse_fail_on(const char *text, unsigned *out, pg_diag *d)
{
    static const struct {
        const char *word;
        unsigned bits;
    } words[] = {{"correctness", PG_FAIL_ON_CORRECTNESS},
                 {"regression", PG_FAIL_ON_REGRESSION},
                 {"significant", PG_FAIL_ON_SIGNIFICANT},
                 {"any", PG_FAIL_ON_CORRECTNESS | PG_FAIL_ON_REGRESSION | PG_FAIL_ON_SIGNIFICANT}};
    *out = 0;
    if (strcmp(text, "never") == 0)
        return PG_OK;
    const char *p = text;
    do {
        size_t len = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (len == strlen(words[i].word) && strncmp(p, words[i].word, len) == 0) {
                *out |= words[i].bits;
                found = true;
            }
        if (!found)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--fail-on",
                               "expected 'never' or a comma-separated list of correctness, "
                               "regression, significant, any; got '%.*s'",
                               (int)len, p);
        p += len;
    } while (*p++ == ',');
    return PG_OK;
}

/* ---- outcomes ---- */

/* The outcome of each compared stage for workload w of submission s (compare.h). */
static void outcomes(const pg_res_submission *s, const pg_res_workload *w, pg_res_status *out)
{
    bool blocked = false;
    pg_res_status blocked_as = PG_RES_SKIPPED;
    pg_res_status chain_out[64];
    const char *chain_name[64];
    size_t n = 0;
    for (size_t i = 0; i < s->n_stages + w->n_stages && n < 64; i++, n++) {
        const pg_res_stage *st = i < s->n_stages ? &s->stages[i] : &w->stages[i - s->n_stages];
        pg_res_status o = st->status;
        if (st->status == PG_RES_FAIL) {
            blocked = true;
            blocked_as = PG_RES_FAIL;
        } else if (st->status == PG_RES_ERROR && !blocked) {
            blocked = true;
            blocked_as = PG_RES_ERROR;
        } else if (st->status == PG_RES_SKIPPED && blocked) {
            o = blocked_as;
        }
        chain_name[n] = st->stage;
        chain_out[n] = o;
    }
    for (size_t k = 0; k < N_STAGES; k++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            if (strcmp(chain_name[i], k_stages[k]) == 0) {
                out[k] = chain_out[i];
                found = true;
            }
        if (!found) /* absent: not run, or blocked */
            out[k] = blocked ? blocked_as : PG_RES_SKIPPED;
    }
}

/* Is stage k recorded anywhere in r? */
static bool stage_present(const pg_results *r, size_t k)
{
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        if (pg_res_find_stage(s->stages, s->n_stages, k_stages[k]))
            return true;
        for (size_t j = 0; j < s->n_workloads; j++)
            if (pg_res_find_stage(s->workloads[j].stages, s->workloads[j].n_stages, k_stages[k]))
                return true;
    }
    return false;
}

/* ---- pairing ---- */

/* The workload's speedup_factor when it is a positive finite number, else NaN. */
static double speedup_of(const pg_res_workload *w)
{
    pg_res_num v = w->speedup_factor;
    return v.has && isfinite(v.v) && v.v > 0 ? v.v : NAN;
}

/* A JSON string of s, or JSON null when s is NULL (a field the run did not record). New
 * reference; NULL only when out of memory. */
static json_t *opt_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *side_record(const pg_res_submission *s, const pg_res_workload *w,
                           const pg_res_status *outs, const bool *present, double speedup)
{
    json_t *o = json_object();
    json_object_set_new(o, "verdict", json_string(pg_res_status_name(w->verdict)));
    json_object_set_new(o, "source_sha256", opt_str(s->source_sha256));
    json_object_set_new(o, "cubin_sha256", opt_str(s->cubin_sha256));
    json_object_set_new(o, "speedup", isfinite(speedup) ? json_real(speedup) : json_null());
    json_t *m = json_object();
    for (size_t k = 0; k < N_STAGES; k++)
        if (present[k])
            json_object_set_new(m, k_stages[k], json_string(pg_res_status_name(outs[k])));
    json_object_set_new(o, "outcomes", m);
    return o;
}

/* Is the outcome one of a stage that did not run on that side (not judged)? */
static bool not_judged(pg_res_status outcome)
{
    return outcome == PG_RES_SKIPPED;
}

static pg_cmp_change_kind change_kind(pg_res_status from, pg_res_status to)
{
    if (from == PG_RES_PASS && to == PG_RES_FAIL)
        return PG_CMP_REGRESSION;
    if (from == PG_RES_FAIL && to == PG_RES_PASS)
        return PG_CMP_FIX;
    return PG_CMP_NOT_COMPARABLE;
}

static json_t *env_json(const pg_results *r)
{
    char b[32];
    const pg_res_env *e = &r->env;
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(r->file));
    json_object_set_new(o, "started_utc", json_string(r->started_utc));
    json_object_set_new(o, "verdict", json_string(pg_res_status_name(r->verdict)));
    json_object_set_new(o, "tool_version", opt_str(r->tool_version));
    json_object_set_new(o, "hostname", opt_str(e->hostname));
    json_object_set_new(o, "gpu", opt_str(e->gpu_name));
    json_object_set_new(o, "compute_capability", opt_str(e->compute_capability));
    json_object_set_new(o, "driver_version", opt_str(e->driver_version));
    json_object_set_new(o, "cuda_version",
                        opt_str(e->cuda_driver_api_version.has
                                    ? pg_res_cuda_version(e->cuda_driver_api_version.v, b, sizeof b)
                                    : NULL));
    json_object_set_new(o, "ptxas_version", opt_str(e->ptxas_version));
    json_object_set_new(o, "cublaslt_version",
                        opt_str(e->cublaslt_version.has
                                    ? pg_res_cublaslt_version(e->cublaslt_version.v, b, sizeof b)
                                    : NULL));
    json_t *cudnn = e->cudnn_version ? json_deep_copy(e->cudnn_version) : NULL;
    json_object_set_new(o, "cudnn_version", cudnn ? cudnn : json_null());
    size_t wl = 0;
    for (size_t i = 0; i < r->n_subs; i++)
        wl += r->subs[i].n_workloads;
    json_object_set_new(o, "submissions", json_integer((json_int_t)r->n_subs));
    json_object_set_new(o, "workloads", json_integer((json_int_t)wl));
    return o;
}

/* The fields of the two sides' fingerprints that differ, as {"field", "old", "new"}. */
static json_t *env_differences(const json_t *a, const json_t *b)
{
    pg_cmp_side x, y;
    pg_cmp_side_read(a, &x);
    pg_cmp_side_read(b, &y);
    json_t *out = json_array();
    for (size_t i = 0; i < PG_CMP_N_ENV; i++)
        if (!json_equal(x.env[i], y.env[i]))
            json_array_append_new(out, json_pack("{s:s, s:O, s:O}", "field", pg_cmp_env_keys[i],
                                                 "old", x.env[i], "new", y.env[i]));
    return out;
}

static void add_unpaired(json_t *arr, const char *side, const char *task, const char *sub,
                         const char *wl)
{
    json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o}", "side", side, "task", task,
                                         "submission", sub, "workload", opt_str(wl)));
}

/* "same", "differs" or "unknown" (a hash missing on a side: an older results file). */
static const char *source_relation(const pg_res_submission *s, const pg_res_submission *t)
{
    pg_cmp_source r = !s->source_sha256 || !t->source_sha256 ? PG_CMP_SOURCE_UNKNOWN
                      : strcmp(s->source_sha256, t->source_sha256) == 0 ? PG_CMP_SOURCE_SAME
                                                                         : PG_CMP_SOURCE_DIFFERS;
    return pg_cmp_source_name(r);
}

/* The settings differences (run-level ones and this pair's) that can change stage. */
static json_t *explained_by(const json_t *run_diffs, const json_t *pair_diffs, const char *stage)
{
    json_t *out = json_array();
    const json_t *lists[2] = {run_diffs, pair_diffs};
    for (int l = 0; l < 2; l++) {
        size_t i;
        const json_t *e;
        json_array_foreach(lists[l], i, e) {
            pg_cmp_setting_diff x;
            pg_cmp_setting_diff_read(e, &x);
            if (pg_compare_setting_affects(e, stage))
                json_array_append_new(out, json_string(x.setting));
        }
    }
    return out;
}

/* Paired workload records in OLD's order, and the unpaired ones of both sides. run_diffs
 * (the run-level settings differences) gains one "pairs" entry per setting that differs
 * between some pairs. */
static pg_status pair(const pg_results *a, const pg_res_cmp_index *ax, const pg_results *b,
                      const pg_res_cmp_index *bx,
                      const bool *present, json_t *records, json_t *unpaired,
                      json_t *run_diffs, json_t *pairs, pg_diag *d)
{
    json_t *run_level = json_deep_copy(run_diffs);
    if (!run_level)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_status st = PG_OK;
    for (size_t i = 0; i < a->n_subs && st == PG_OK; i++) {
        const pg_res_submission *s = &a->subs[i];
        const pg_res_submission *t = pg_res_cmp_find_sub(b, bx, s->task, s->name);
        if (!t) {
            add_unpaired(unpaired, "old", s->task, s->name, NULL);
            continue;
        }
        const char *rel = source_relation(s, t);
        json_array_append_new(
            pairs, json_pack("{s:s, s:s, s:{s:o, s:o}, s:{s:o, s:o}, s:s}", "task", s->task,
                             "submission", s->name, "old", "source_sha256",
                             opt_str(s->source_sha256), "cubin_sha256", opt_str(s->cubin_sha256),
                             "new", "source_sha256", opt_str(t->source_sha256), "cubin_sha256",
                             opt_str(t->cubin_sha256), "source", rel));
        for (size_t j = 0; j < s->n_workloads && st == PG_OK; j++) {
            const pg_res_workload *w = &s->workloads[j];
            const pg_res_workload *v = pg_res_cmp_find_wl(b, bx, t, w->name);
            if (!v) {
                add_unpaired(unpaired, "old", s->task, s->name, w->name);
                continue;
            }
            double sa = speedup_of(w), sb = speedup_of(v);
            pg_res_status oa[N_STAGES], ob[N_STAGES];
            outcomes(s, w, oa);
            outcomes(t, v, ob);
            json_t *pair_diffs = pg_compare_pair_settings(s->json, w->json, t->json, v->json);
            json_t *changes = json_array(), *unjudged = json_array();
            for (size_t k = 0; k < N_STAGES; k++) {
                if (!present[k])
                    continue;
                /* A stage that did not run on a side judged nothing there: no transition. */
                if (not_judged(oa[k]) || not_judged(ob[k])) {
                    json_array_append_new(unjudged, json_string(k_stages[k]));
                    continue;
                }
                if (oa[k] != ob[k])
                    json_array_append_new(
                        changes, json_pack("{s:s, s:s, s:s, s:s, s:o}", "stage", k_stages[k],
                                           "old", pg_res_status_name(oa[k]), "new",
                                           pg_res_status_name(ob[k]), "kind",
                                           pg_cmp_change_kind_name(change_kind(oa[k], ob[k])),
                                           "explained_by",
                                           explained_by(run_level, pair_diffs, k_stages[k])));
            }
            json_t *rec = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:O}",
                                    "task", s->task, "submission", s->name, "workload", w->name,
                                    "old", side_record(s, w, oa, present, sa), "new",
                                    side_record(t, v, ob, present, sb), "log_speedup_ratio",
                                    /* log(sb) - log(sa): sb / sa may overflow */
                                    isfinite(sa) && isfinite(sb) ? json_real(log(sb) - log(sa))
                                                                 : json_null(),
                                    "changes", changes, "not_judged", unjudged, "source", rel,
                                    "settings_differences", pair_diffs ? pair_diffs : json_null());
            bool ok = rec && pair_diffs && pg_compare_settings_add_pair(run_diffs, pair_diffs);
            json_decref(pair_diffs);
            if (!ok) {
                json_decref(rec);
                st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
                break;
            }
            json_array_append_new(records, rec);
        }
        for (size_t j = 0; j < t->n_workloads && st == PG_OK; j++)
            if (!pg_res_cmp_find_wl(a, ax, s, t->workloads[j].name))
                add_unpaired(unpaired, "new", t->task, t->name, t->workloads[j].name);
    }
    for (size_t i = 0; i < b->n_subs && st == PG_OK; i++)
        if (!pg_res_cmp_find_sub(a, ax, b->subs[i].task, b->subs[i].name))
            add_unpaired(unpaired, "new", b->subs[i].task, b->subs[i].name, NULL);
    json_decref(run_level);
    return st;
}

/* Nothing paired: why, for the exit-2 message. */
static pg_status nothing_paired(const pg_results *a, const pg_results *b, const json_t *pairs,
                                pg_diag *d)
{
    size_t wa = 0, wb = 0;
    for (size_t i = 0; i < a->n_subs; i++)
        wa += a->subs[i].n_workloads;
    for (size_t i = 0; i < b->n_subs; i++)
        wb += b->subs[i].n_workloads;
    if (a->n_subs == 0 || b->n_subs == 0 || wa == 0 || wb == 0)
        return pg_diag_set(d, PG_ERR_INPUT, a->n_subs == 0 || wa == 0 ? a->file : b->file, 0,
                           "submissions", "nothing to compare: the file has no workload results "
                           "(OLD %zu submissions, %zu workloads; NEW %zu submissions, %zu "
                           "workloads)", a->n_subs, wa, b->n_subs, wb);
    if (json_array_size(pairs) == 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "nothing to compare: no submission of %s has the task and name of "
                           "one in %s (compare pairs submissions by task and submission name, "
                           "e.g. OLD has %s/%s)",
                           a->file, b->file, a->subs[0].task, a->subs[0].name);
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                       "nothing to compare: %zu submissions pair by task and name, but no "
                       "workload name of OLD (%s) is in NEW (%s) for them (e.g. were they run "
                       "with different --workloads?)",
                       json_array_size(pairs), a->file, b->file);
}

static json_t *settings_json(const pg_compare_options *o)
{
    json_t *fail_on = json_array(), *fast = json_array();
    if (o->fail_on & PG_FAIL_ON_CORRECTNESS)
        json_array_append_new(fail_on, json_string("correctness"));
    if (o->fail_on & PG_FAIL_ON_REGRESSION)
        json_array_append_new(fail_on, json_string("regression"));
    if (o->fail_on & PG_FAIL_ON_SIGNIFICANT)
        json_array_append_new(fail_on, json_string("significant"));
    for (size_t i = 0; i < PG_COMPARE_N_FAST_P; i++)
        json_array_append_new(fast, json_real(pg_compare_fast_p[i]));
    return json_pack("{s:f, s:f, s:I, s:I, s:o, s:o}", "alpha", o->alpha, "confidence",
                     o->confidence, "bootstrap_resamples", (json_int_t)o->resamples, "seed",
                     (json_int_t)o->seed, "fail_on", fail_on, "fast_p", fast);
}

pg_status pg_compare_build(const json_t *old_res, const char *old_file, const json_t *new_res,
                           const char *new_file, const pg_compare_options *o, json_t **out,
                           pg_diag *d)
{
    *out = NULL;
    pg_results a, b;
    pg_res_cmp_index ax = {0}, bx = {0};
    memset(&b, 0, sizeof b);
    json_t *model = NULL;
    pg_status st = pg_results_read(old_res, old_file, &a, d);
    if (st != PG_OK)
        return st;
    if ((st = pg_results_read(new_res, new_file, &b, d)) != PG_OK ||
        (st = pg_res_cmp_index_build(&a, &ax, d)) != PG_OK || (st = pg_res_cmp_index_build(&b, &bx, d)) != PG_OK)
        goto done;
    bool present[N_STAGES];
    json_t *stages = json_array();
    for (size_t k = 0; k < N_STAGES; k++) {
        present[k] = stage_present(&a, k) || stage_present(&b, k);
        if (present[k])
            json_array_append_new(stages, json_string(k_stages[k]));
    }
    json_t *old_side = env_json(&a), *new_side = env_json(&b);
    json_t *run_diffs = pg_compare_run_settings(old_res, new_res, old_side, new_side);
    /* The model's arrays, filled below (borrowed: the model holds them). */
    json_t *subs = json_array(), *records = json_array(), *unpaired = json_array();
    model = json_pack("{s:i, s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                      "schema_version", 1, "kind", "ptxgate-compare", "tool", "name", "ptxgate",
                      "version", PG_VERSION, "old", old_side, "new", new_side,
                      "environment_differences", env_differences(old_side, new_side),
                      "settings_differences", run_diffs ? run_diffs : json_null(),
                      "settings", settings_json(o), "compared_stages", stages, "submissions",
                      subs, "workloads", records, "unpaired", unpaired);
    if (!model || !run_diffs) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    st = pair(&a, &ax, &b, &bx, present, records, unpaired, run_diffs, subs, d);
    if (st == PG_OK && json_array_size(records) == 0)
        st = nothing_paired(&a, &b, subs, d);
    if (st == PG_OK)
        st = pg_compare_summarize(model, o, d);
    if (st == PG_OK) {
        *out = model;
        model = NULL;
    }
done:
    json_decref(model);
    pg_res_cmp_index_free(&ax);
    pg_res_cmp_index_free(&bx);
    pg_results_free(&a);
    pg_results_free(&b);
    return st;
}
