/* Compare's view: the pairing index of a results file, the settings compare lists, and the
 * comparison model read into typed records (see results_read_compare.h). */
#include "results_read_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compare's view ---- */

/* ---- the pairing index ---- */

/* "<length of task>:<task><name>": an unambiguous key for (task, name). NULL on
 * out-of-memory. */
static char *sub_key(const char *task, const char *name)
{
    size_t n = strlen(task) + strlen(name) + 32;
    char *k = malloc(n);
    if (k)
        snprintf(k, n, "%zu:%s%s", strlen(task), task, name);
    return k;
}

void pg_res_cmp_index_free(pg_res_cmp_index *x)
{
    json_decref(x->subs);
    for (size_t i = 0; x->wls && i < x->n; i++)
        json_decref(x->wls[i]);
    free(x->wls);
    memset(x, 0, sizeof *x);
}

pg_status pg_res_cmp_index_build(const pg_results *r, pg_res_cmp_index *x, pg_diag *d)
{
    memset(x, 0, sizeof *x);
    x->subs = json_object();
    x->wls = calloc(r->n_subs ? r->n_subs : 1, sizeof *x->wls);
    x->n = r->n_subs;
    if (!x->subs || !x->wls)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        char *key = sub_key(s->task, s->name);
        if (!key)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        const json_t *seen = json_object_get(x->subs, key);
        if (!seen)
            json_object_set_new(x->subs, key, json_integer((json_int_t)i));
        free(key);
        if (seen)
            return pg_diag_set(d, PG_ERR_INPUT, r->file, 0, s->ctx.path,
                               "submission '%s' of task '%s' appears twice (first at %s); compare "
                               "pairs submissions by task and name, so each must be unique in "
                               "one results file",
                               s->name, s->task, r->subs[json_integer_value(seen)].ctx.path);
        if (!(x->wls[i] = json_object()))
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        for (size_t j = 0; j < s->n_workloads; j++) {
            const pg_res_workload *w = &s->workloads[j];
            const json_t *first = json_object_get(x->wls[i], w->name);
            if (first) {
                const pg_res_workload *f = &s->workloads[json_integer_value(first)];
                return pg_diag_set(d, PG_ERR_INPUT, r->file, 0, w->ctx.path,
                                   "workload '%s' appears twice in submission '%s' (first at "
                                   "%s)",
                                   f->name, s->name, f->ctx.path);
            }
            json_object_set_new(x->wls[i], w->name, json_integer((json_int_t)j));
        }
    }
    return PG_OK;
}

const pg_res_submission *pg_res_cmp_find_sub(const pg_results *r, const pg_res_cmp_index *x,
                                             const char *task, const char *name)
{
    char *key = sub_key(task, name);
    const json_t *i = key ? json_object_get(x->subs, key) : NULL;
    free(key);
    return i ? &r->subs[json_integer_value(i)] : NULL;
}

const pg_res_workload *pg_res_cmp_find_wl(const pg_results *r, const pg_res_cmp_index *x,
                                          const pg_res_submission *s, const char *name)
{
    const json_t *i = json_object_get(x->wls[s - r->subs], name);
    return i ? &s->workloads[json_integer_value(i)] : NULL;
}

/* ---- names to numbers ---- */

bool pg_cmp_names_init(pg_cmp_names *n)
{
    n->map = json_object();
    return n->map != NULL;
}

void pg_cmp_names_free(pg_cmp_names *n)
{
    json_decref(n->map);
    n->map = NULL;
}

long long pg_cmp_names_get(const pg_cmp_names *n, const char *name)
{
    const json_t *v = json_object_get(n->map, name);
    return v ? (long long)json_integer_value(v) : -1;
}

bool pg_cmp_names_set(pg_cmp_names *n, const char *name, long long v)
{
    return json_object_set_new(n->map, name, json_integer((json_int_t)v)) == 0;
}

/* ---- the settings ---- */

void pg_res_cmp_run_read(const json_t *root, pg_res_cmp_run *out)
{
    memset(out, 0, sizeof *out);
    const json_t *s = json_object_get(root, "settings");
    out->correctness_sets = json_object_get(s, "correctness_sets");
    out->seed = json_object_get(s, "seed");
    out->min_speedup_override = json_object_get(s, "min_speedup_override");
    out->timing_mode_override = json_object_get(s, "timing_mode_override");
    out->accepted_kernel_override = json_object_get(s, "accepted_kernel_override");
    out->warmup = json_object_get(s, "warmup");
    out->repetitions = json_object_get(s, "repetitions");
    out->confidence = json_object_get(s, "confidence");
    const json_t *b = json_object_get(root, "baselines");
    out->baselines = json_is_object(b) ? b : NULL;
}

/* details.<key> of the workload's first stage named stage, or NULL. */
static const json_t *stage_detail(const json_t *wl, const char *stage, const char *key)
{
    size_t i;
    const json_t *st;
    json_array_foreach(json_object_get(wl, "stages"), i, st) {
        const char *name = json_string_value(json_object_get(st, "stage"));
        if (name && strcmp(name, stage) == 0)
            return json_object_get(json_object_get(st, "details"), key);
    }
    return NULL;
}

void pg_res_cmp_pair_read(const json_t *sub, const json_t *wl, pg_res_cmp_pair *out)
{
    out->arch = json_object_get(sub, "arch");
    out->policy = stage_detail(wl, "instructions", "policy");
    out->min_speedup = stage_detail(wl, "performance", "min_speedup");
    out->mode = stage_detail(wl, "performance", "mode");
}

/* ---- the comparison model ---- */

const char *const pg_cmp_env_keys[PG_CMP_N_ENV] = {
    "gpu",           "compute_capability", "driver_version", "cuda_version",
    "ptxas_version", "cublaslt_version",   "cudnn_version",  "tool_version"};

const char *pg_cmp_change_kind_name(pg_cmp_change_kind k)
{
    switch (k) {
    case PG_CMP_REGRESSION: return "regression";
    case PG_CMP_FIX: return "fix";
    case PG_CMP_NOT_COMPARABLE: return "not_comparable";
    }
    return "unknown";
}

const char *pg_cmp_source_name(pg_cmp_source s)
{
    switch (s) {
    case PG_CMP_SOURCE_SAME: return "same";
    case PG_CMP_SOURCE_DIFFERS: return "differs";
    case PG_CMP_SOURCE_UNKNOWN: return "unknown";
    }
    return "unknown";
}

/* Lenient member reads (the defaults the writers used). */
static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long integer(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

static bool is_true(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

/* The strings of array member key of o into out[0..max) (non-strings read as ""). Returns
 * false when there are more than max. */
static bool str_list(const json_t *o, const char *key, const char **out, size_t max, size_t *n)
{
    const json_t *a = json_object_get(o, key), *v;
    size_t i;
    *n = 0;
    if (json_array_size(a) > max)
        return false;
    json_array_foreach(a, i, v) {
        const char *s = json_string_value(v);
        out[(*n)++] = s ? s : "";
    }
    return true;
}

static pg_status bad(pg_diag *d, const char *path, const char *what)
{
    return pg_diag_set(d, PG_ERR_INPUT, "compare.json", 0, path, "%s", what);
}

static bool parse_status(const char *s, pg_res_status *out)
{
    static const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    for (size_t i = 0; i < 4; i++)
        if (s && strcmp(s, pg_res_status_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

static bool parse_source(const char *s, pg_cmp_source *out)
{
    for (int i = PG_CMP_SOURCE_SAME; i <= PG_CMP_SOURCE_UNKNOWN; i++)
        if (s && strcmp(s, pg_cmp_source_name((pg_cmp_source)i)) == 0) {
            *out = (pg_cmp_source)i;
            return true;
        }
    return false;
}

static bool parse_kind(const char *s, pg_cmp_change_kind *out)
{
    for (int i = PG_CMP_REGRESSION; i <= PG_CMP_NOT_COMPARABLE; i++)
        if (s && strcmp(s, pg_cmp_change_kind_name((pg_cmp_change_kind)i)) == 0) {
            *out = (pg_cmp_change_kind)i;
            return true;
        }
    return false;
}

pg_res_status pg_cmp_outcome_of(const pg_cmp_rec_side *s, const char *stage)
{
    for (size_t i = 0; i < s->n_outcomes; i++)
        if (strcmp(s->outcomes[i].stage, stage) == 0)
            return s->outcomes[i].outcome;
    return PG_RES_SKIPPED;
}

void pg_cmp_side_read(const json_t *side, pg_cmp_side *out)
{
    memset(out, 0, sizeof *out);
    out->file = str(side, "file");
    out->started_utc = str(side, "started_utc");
    out->verdict = str(side, "verdict");
    out->hostname = str(side, "hostname");
    out->submissions = integer(side, "submissions");
    out->workloads = integer(side, "workloads");
    for (size_t i = 0; i < PG_CMP_N_ENV; i++)
        out->env[i] = json_object_get(side, pg_cmp_env_keys[i]);
    out->gpu = json_string_value(out->env[PG_CMP_ENV_GPU]);
    out->driver_version = json_string_value(out->env[PG_CMP_ENV_DRIVER]);
    out->cublaslt_version = json_string_value(out->env[PG_CMP_ENV_CUBLASLT]);
}

pg_cmp_value pg_cmp_value_of(const json_t *v)
{
    pg_cmp_value out = {PG_CMP_VALUE_OTHER, NULL, 0.0, v};
    if (!v || json_is_null(v))
        out.kind = PG_CMP_VALUE_NONE;
    else if (json_is_string(v)) {
        out.kind = PG_CMP_VALUE_TEXT;
        out.text = json_string_value(v);
    } else if (json_is_number(v)) {
        out.kind = PG_CMP_VALUE_NUMBER;
        out.number = json_number_value(v);
    }
    return out;
}

void pg_cmp_setting_diff_read(const json_t *e, pg_cmp_setting_diff *out)
{
    memset(out, 0, sizeof *out);
    out->setting = str(e, "setting");
    out->old_value = json_object_get(e, "old");
    out->new_value = json_object_get(e, "new");
    out->scope = str(e, "scope");
    out->per_pairs = strcmp(out->scope, "pairs") == 0;
    out->pairs = integer(e, "pairs");
    if (!str_list(e, "stages", out->stages, PG_CMP_LIST_MAX, &out->n_stages))
        out->n_stages = 0;
}

static pg_status read_rec_side(const json_t *side, const char *path, pg_cmp_rec_side *out,
                               pg_diag *d)
{
    out->verdict = str(side, "verdict");
    out->speedup = num(side, "speedup");
    out->n_outcomes = 0;
    const json_t *outs = json_object_get(side, "outcomes"), *v;
    const char *k;
    if (json_object_size(outs) > PG_CMP_STAGES_MAX)
        return bad(d, path, "more outcomes than compared stages");
    json_object_foreach((json_t *)outs, k, v) {
        pg_cmp_outcome *o = &out->outcomes[out->n_outcomes++];
        o->stage = k;
        if (!parse_status(json_string_value(v), &o->outcome))
            return bad(d, path, "an outcome is not pass, fail, error or skipped");
    }
    return PG_OK;
}

static pg_status read_record(const json_t *r, size_t idx, pg_cmp_record *out, pg_diag *d)
{
    char path[64];
    snprintf(path, sizeof path, "workloads[%zu]", idx);
    out->task = str(r, "task");
    out->submission = str(r, "submission");
    out->workload = str(r, "workload");
    out->log_speedup_ratio = num(r, "log_speedup_ratio");
    pg_status st = read_rec_side(json_object_get(r, "old"), path, &out->old_side, d);
    if (st == PG_OK)
        st = read_rec_side(json_object_get(r, "new"), path, &out->new_side, d);
    if (st != PG_OK)
        return st;
    const json_t *changes = json_object_get(r, "changes"), *c;
    size_t i;
    if (json_array_size(changes) > PG_CMP_STAGES_MAX)
        return bad(d, path, "more changes than compared stages");
    out->n_changes = 0;
    json_array_foreach(changes, i, c) {
        pg_cmp_change *ch = &out->changes[out->n_changes++];
        ch->stage = str(c, "stage");
        if (!parse_status(json_string_value(json_object_get(c, "old")), &ch->old_outcome) ||
            !parse_status(json_string_value(json_object_get(c, "new")), &ch->new_outcome))
            return bad(d, path, "a change's outcome is not pass, fail, error or skipped");
        if (!parse_kind(json_string_value(json_object_get(c, "kind")), &ch->kind))
            return bad(d, path, "a change's kind is not regression, fix or not_comparable");
        if (!str_list(c, "explained_by", ch->explained_by, PG_CMP_LIST_MAX, &ch->n_explained))
            return bad(d, path, "a change is explained by too many settings");
    }
    if (!str_list(r, "not_judged", out->not_judged, PG_CMP_STAGES_MAX, &out->n_not_judged))
        return bad(d, path, "more stages not judged than compared stages");
    out->source = PG_CMP_SOURCE_UNKNOWN;
    if (json_object_get(r, "source") && !parse_source(str(r, "source"), &out->source))
        return bad(d, path, "source is not same, differs or unknown");
    return PG_OK;
}

static void read_counts(const json_t *o, pg_cmp_counts *c)
{
    c->pass = integer(o, "pass");
    c->fail = integer(o, "fail");
    c->error = integer(o, "error");
    c->skipped = integer(o, "skipped");
    c->pass_rate = num(o, "pass_rate");
}

static void read_geomean(const json_t *o, pg_cmp_geomean *g)
{
    g->n = integer(o, "n");
    g->geomean = num(o, "geomean");
    g->ci_low = num(o, "ci_low");
    g->ci_high = num(o, "ci_high");
}

/* calloc of n entries (at least one, so NULL means out-of-memory). */
static void *entries(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

void pg_cmp_view_free(pg_cmp_view *v)
{
    free(v->env_diffs);
    free(v->settings_diffs);
    free(v->sources);
    free(v->records);
    free(v->unpaired);
    free(v->stages);
    free(v->fast_p);
    free(v->tasks);
    free(v->reasons);
    memset(v, 0, sizeof *v);
}

pg_status pg_cmp_view_read(const json_t *m, pg_cmp_view *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    const json_t *a, *e;
    size_t i;
    out->tool_version = str(json_object_get(m, "tool"), "version");
    pg_cmp_side_read(json_object_get(m, "old"), &out->old_side);
    pg_cmp_side_read(json_object_get(m, "new"), &out->new_side);

    const json_t *ed = json_object_get(m, "environment_differences");
    const json_t *sd = json_object_get(m, "settings_differences");
    const json_t *subs = json_object_get(m, "submissions");
    const json_t *recs = json_object_get(m, "workloads");
    const json_t *unp = json_object_get(m, "unpaired");
    const json_t *stages = json_object_get(m, "stages");
    const json_t *fast = json_object_get(m, "fast_p");
    const json_t *tasks = json_object_get(m, "tasks");
    const json_t *gate = json_object_get(m, "gate");
    const json_t *reasons = json_object_get(gate, "reasons");
    out->env_diffs = entries(json_array_size(ed), sizeof *out->env_diffs);
    out->settings_diffs = entries(json_array_size(sd), sizeof *out->settings_diffs);
    out->sources = entries(json_array_size(subs), sizeof *out->sources);
    out->records = entries(json_array_size(recs), sizeof *out->records);
    out->unpaired = entries(json_array_size(unp), sizeof *out->unpaired);
    out->stages = entries(json_array_size(stages), sizeof *out->stages);
    out->fast_p = entries(json_array_size(fast), sizeof *out->fast_p);
    out->tasks = entries(json_array_size(tasks), sizeof *out->tasks);
    out->reasons = entries(json_array_size(reasons), sizeof *out->reasons);
    if (!out->env_diffs || !out->settings_diffs || !out->sources || !out->records ||
        !out->unpaired || !out->stages || !out->fast_p || !out->tasks || !out->reasons) {
        pg_cmp_view_free(out);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    pg_status st = PG_OK;

    json_array_foreach(ed, i, e) {
        pg_cmp_env_diff *x = &out->env_diffs[out->n_env_diffs++];
        x->field = str(e, "field");
        x->old_value = json_object_get(e, "old");
        x->new_value = json_object_get(e, "new");
    }
    json_array_foreach(sd, i, e)
        pg_cmp_setting_diff_read(e, &out->settings_diffs[out->n_settings_diffs++]);

    const json_t *set = json_object_get(m, "settings");
    out->alpha = num(set, "alpha");
    out->confidence = num(set, "confidence");
    if (!str_list(set, "fail_on", out->fail_on, PG_CMP_LIST_MAX, &out->n_fail_on))
        st = bad(d, "settings.fail_on", "too many entries");
    if (st == PG_OK && !str_list(m, "compared_stages", out->compared_stages, PG_CMP_STAGES_MAX,
                                 &out->n_compared_stages))
        st = bad(d, "compared_stages", "more than the four compared stages");

    json_array_foreach(subs, i, e) {
        if (st != PG_OK)
            break;
        pg_cmp_source *s = &out->sources[out->n_submissions++];
        *s = PG_CMP_SOURCE_UNKNOWN;
        if (json_object_get(e, "source") && !parse_source(str(e, "source"), s)) {
            char path[64];
            snprintf(path, sizeof path, "submissions[%zu].source", i);
            st = bad(d, path, "expected same, differs or unknown");
        }
    }
    json_array_foreach(recs, i, e) {
        if (st != PG_OK)
            break;
        st = read_record(e, i, &out->records[out->n_records++], d);
    }
    json_array_foreach(unp, i, e) {
        pg_cmp_unpaired *u = &out->unpaired[out->n_unpaired++];
        u->only_old = strcmp(str(e, "side"), "old") == 0;
        u->task = str(e, "task");
        u->submission = str(e, "submission");
        u->workload = json_string_value(json_object_get(e, "workload"));
    }

    out->paired_workloads = integer(m, "paired_workloads");
    json_array_foreach(stages, i, e) {
        pg_cmp_stage_sum *s = &out->stages[out->n_stages++];
        s->stage = str(e, "stage");
        read_counts(json_object_get(e, "old"), &s->old_counts);
        read_counts(json_object_get(e, "new"), &s->new_counts);
        s->regressions = integer(e, "regressions");
        s->fixes = integer(e, "fixes");
        s->not_comparable = integer(e, "not_comparable");
        s->not_judged = integer(e, "not_judged");
        const json_t *mc = json_object_get(e, "mcnemar");
        s->mcnemar.worse = integer(mc, "worse");
        s->mcnemar.better = integer(mc, "better");
        s->mcnemar.p_value = num(mc, "p_value");
        s->mcnemar.significant_worse = is_true(mc, "significant_worse");
        s->mcnemar.significant_better = is_true(mc, "significant_better");
    }
    json_array_foreach(fast, i, e) {
        pg_cmp_fast_p *f = &out->fast_p[out->n_fast_p++];
        f->p = num(e, "p");
        f->old_count = integer(e, "old_count");
        f->new_count = integer(e, "new_count");
        f->old_judged = integer(e, "old_judged");
        f->new_judged = integer(e, "new_judged");
        f->old_fraction = num(e, "old");
        f->new_fraction = num(e, "new");
    }
    const json_t *sp = json_object_get(m, "speedup");
    read_geomean(json_object_get(sp, "old"), &out->speedup_old);
    read_geomean(json_object_get(sp, "new"), &out->speedup_new);
    read_geomean(json_object_get(sp, "ratio"), &out->speedup_ratio);
    a = json_object_get(sp, "wilcoxon");
    out->wilcoxon.n = integer(a, "n");
    out->wilcoxon.zeros = integer(a, "zeros");
    out->wilcoxon.w_plus = num(a, "w_plus");
    out->wilcoxon.w_minus = num(a, "w_minus");
    out->wilcoxon.p_value = num(a, "p_value");
    out->wilcoxon.method = str(a, "method");
    const char *dir = str(a, "direction");
    out->wilcoxon.direction = strcmp(dir, "worse") == 0    ? PG_CMP_DIRECTION_WORSE
                              : strcmp(dir, "better") == 0 ? PG_CMP_DIRECTION_BETTER
                                                           : PG_CMP_DIRECTION_NONE;
    if (st == PG_OK && *dir && out->wilcoxon.direction == PG_CMP_DIRECTION_NONE &&
        strcmp(dir, "none") != 0)
        st = bad(d, "speedup.wilcoxon.direction", "expected none, worse or better");
    out->wilcoxon.significant_worse = is_true(a, "significant_worse");
    out->wilcoxon.significant_better = is_true(a, "significant_better");
    json_array_foreach(tasks, i, e) {
        pg_cmp_task *t = &out->tasks[out->n_tasks++];
        t->task = str(e, "task");
        t->workloads = integer(e, "workloads");
        t->old_correct = integer(e, "old_correct");
        t->new_correct = integer(e, "new_correct");
        t->old_geomean = num(e, "old_geomean");
        t->new_geomean = num(e, "new_geomean");
    }
    out->gate_verdict = str(gate, "verdict");
    out->gate_fails = strcmp(out->gate_verdict, "fail") == 0;
    out->exit_code = integer(gate, "exit_code");
    json_array_foreach(reasons, i, e) {
        const char *s = json_string_value(e);
        out->reasons[out->n_reasons++] = s ? s : "";
    }
    if (st != PG_OK)
        pg_cmp_view_free(out);
    return st;
}
