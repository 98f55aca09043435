/* Combining shard results into the results of the whole run (see merge.h). */
#include "merge.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holm_family.h"
#include "model/shard.h"
#include "results_read.h"
#include "verdicts.h"

typedef struct {
    pg_results view; /* the shard's results, read once (strings borrowed from its json) */
    pg_res_shard sh; /* its "shard" and "holm" records */
    const char *file;
    int index, count; /* sh.index, sh.count (sorted on) */
} shard_in;

/* One submission of the merged run: its first shard's record, its submission-level stages (the
 * worst of the shards', merge.h) and its workloads. */
typedef struct {
    const pg_res_submission *sub;   /* NULL while unseen */
    const pg_res_stage **stages;    /* sub->n_stages, each from the shard where it is worst */
    const pg_res_workload **workloads; /* by workload_index; borrowed from the shards */
    const char **placed_by;         /* ... and the file of the shard that placed each */
    size_t n_workloads;
    const pg_res_shard_item *item;  /* the first shard item placed here */
    const char *file;               /* ... and that shard's file */
} merged_sub;

static const char *text_or_null(const char *s)
{
    return s ? s : "(null)";
}

/* The item's "task / submission (manifest)" for messages. */
static void item_text(const pg_res_shard_item *it, char *buf, size_t n)
{
    snprintf(buf, n, "%s / %s (%s)", text_or_null(it->task), text_or_null(it->submission),
             it->manifest ? it->manifest : "no manifest");
}

static pg_status read_shard(json_t *root, const char *file, shard_in *s, pg_diag *d)
{
    memset(s, 0, sizeof *s);
    pg_status st = pg_results_read(root, file, &s->view, d);
    if (st != PG_OK)
        return st;
    /* Holm's inputs, checked here so that an error names this shard and its own indices, not
     * the merged run's. */
    if ((st = pg_results_check_holm(root, file, d)) != PG_OK ||
        (st = pg_results_read_shard(&s->view, &s->sh, d)) != PG_OK)
        return st;
    s->file = file;
    s->index = s->sh.index;
    s->count = s->sh.count;
    return PG_OK;
}

static pg_status differ(const shard_in *a, const shard_in *b, const char *field, const char *x,
                        const char *y, pg_diag *d)
{
    char msg[800];
    snprintf(msg, sizeof msg, "%s here, %s in %s: the shards of one run must share the GPU "
                              "model, driver, libraries, ptxgate version and settings",
             x, y, a->file);
    return pg_diag_set(d, PG_ERR_INPUT, b->file, 0, field, "%s", msg);
}

/* Typed values shown as pg_res_show shows them: 'text', an integer, or none. */
static void show_str(const char *v, char *buf, size_t n)
{
    if (v)
        snprintf(buf, n, "'%s'", v);
    else
        snprintf(buf, n, "none");
}

static void show_int(bool has, int64_t v, char *buf, size_t n)
{
    if (has)
        snprintf(buf, n, "%lld", (long long)v);
    else
        snprintf(buf, n, "none");
}

static void show_real(double v, char *buf, size_t n)
{
    json_t *j = json_real(v);
    pg_res_show(j, buf, n);
    json_decref(j);
}

static pg_status same_str(const shard_in *a, const shard_in *b, const char *field,
                          const char *va, const char *vb, pg_diag *d)
{
    if ((!va && !vb) || (va && vb && strcmp(va, vb) == 0))
        return PG_OK;
    char x[256], y[256];
    show_str(vb, x, sizeof x);
    show_str(va, y, sizeof y);
    return differ(a, b, field, x, y, d);
}

static pg_status same_int(const shard_in *a, const shard_in *b, const char *field,
                          pg_res_int va, pg_res_int vb, pg_diag *d)
{
    if ((!va.has && !vb.has) || (va.has && vb.has && va.v == vb.v))
        return PG_OK;
    char x[256], y[256];
    show_int(vb.has, vb.v, x, sizeof x);
    show_int(va.has, va.v, y, sizeof y);
    return differ(a, b, field, x, y, d);
}

static pg_res_int has_int(int64_t v)
{
    return (pg_res_int){.has = true, .v = v};
}

/* b's fingerprint against a's (merge.h). GPU fields are compared when both shards opened a GPU
 * (a shard whose items never reached a GPU stage records none). */
static pg_status check_fingerprint(const shard_in *a, const shard_in *b, pg_diag *d)
{
    const pg_res_env *ea = &a->view.env, *eb = &b->view.env;
    pg_status st = same_str(a, b, "environment.ptxas_version", ea->ptxas_version,
                            eb->ptxas_version, d);
    bool gpus = ea->has_gpu && eb->has_gpu;
    if (st == PG_OK && gpus &&
        ((st = same_str(a, b, "environment.gpu.name", ea->gpu_name, eb->gpu_name, d)) != PG_OK ||
         (st = same_str(a, b, "environment.gpu.compute_capability", ea->compute_capability,
                        eb->compute_capability, d)) != PG_OK ||
         (st = same_int(a, b, "environment.gpu.sm_count", ea->sm_count, eb->sm_count, d)) !=
             PG_OK ||
         (st = same_int(a, b, "environment.gpu.memory_bytes", ea->memory_bytes, eb->memory_bytes,
                        d)) != PG_OK ||
         (st = same_str(a, b, "environment.driver_version", ea->driver_version,
                        eb->driver_version, d)) != PG_OK ||
         (st = same_int(a, b, "environment.cuda_driver_api_version",
                        ea->cuda_driver_api_version, eb->cuda_driver_api_version, d)) != PG_OK ||
         (st = same_int(a, b, "environment.cublaslt_version", ea->cublaslt_version,
                        eb->cublaslt_version, d)) != PG_OK))
        return st;
    if (st == PG_OK)
        st = same_str(a, b, "tool.version", a->view.tool_version, b->view.tool_version, d);
    const char *key;
    const json_t *va, *vb;
    if (st == PG_OK && pg_res_settings_differ(&a->view, &b->view, &key, &va, &vb)) {
        char field[128], x[256], y[256];
        snprintf(field, sizeof field, "settings.%s", key);
        pg_res_show(vb, x, sizeof x);
        pg_res_show(va, y, sizeof y);
        st = differ(a, b, field, x, y, d);
    }
    if (st == PG_OK)
        st = same_int(a, b, "holm.m_planned", has_int(a->sh.m_planned), has_int(b->sh.m_planned),
                      d);
    if (st == PG_OK && a->sh.run_alpha != b->sh.run_alpha) {
        char x[64], y[64];
        show_real(b->sh.run_alpha, x, sizeof x);
        show_real(a->sh.run_alpha, y, sizeof y);
        st = differ(a, b, "holm.run_alpha", x, y, d);
    }
    if (st == PG_OK)
        st = same_int(a, b, "shard.count", has_int(a->sh.count), has_int(b->sh.count), d);
    if (st == PG_OK)
        st = same_int(a, b, "shard.items_total", has_int(a->sh.items_total),
                      has_int(b->sh.items_total), d);
    return st;
}

/* Keep, per submission-level stage name, the worse record of the two. */
static void merge_sub_stages(merged_sub *m, const pg_res_submission *other)
{
    for (size_t i = 0; i < other->n_stages; i++) {
        const pg_res_stage *o = &other->stages[i];
        for (size_t j = 0; j < m->sub->n_stages; j++) {
            if (strcmp(m->stages[j]->stage, o->stage) != 0)
                continue;
            if (pg_verdict_rank(o->status) > pg_verdict_rank(m->stages[j]->status))
                m->stages[j] = o;
            break;
        }
    }
}

static bool same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Place shard s's submissions and workloads at their positions in the unsharded run. Every
 * position is below n_items, the work items the shards list together (so what is allocated
 * follows what the files hold, whatever indexes they claim). */
static pg_status place(const shard_in *s, merged_sub *subs, size_t n_subs, size_t n_items,
                       pg_diag *d)
{
    size_t next_sub = 0, next_wl = 0;
    int64_t cur = -1;
    for (size_t k = 0; k < s->sh.n_items; k++) {
        const pg_res_shard_item *it = &s->sh.items[k];
        int64_t si = it->submission_index, wi = it->workload_index;
        char field[64];
        snprintf(field, sizeof field, "shard.items[%zu]", k);
        if (si < 0 || wi < 0 || (uint64_t)si >= n_subs || (uint64_t)wi >= n_items || si < cur)
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "expected submission_index and workload_index from 0 to %zu (the "
                               "work items of the run), submissions in increasing order",
                               n_items ? n_items - 1 : 0);
        if (si != cur) { /* the next submission of this shard */
            if (cur >= 0)
                next_sub++;
            cur = si;
            next_wl = 0;
        }
        const pg_res_submission *sub =
            next_sub < s->view.n_subs ? &s->view.subs[next_sub] : NULL;
        const pg_res_workload *wl =
            sub && next_wl < sub->n_workloads ? &sub->workloads[next_wl] : NULL;
        next_wl++;
        if (!sub || !wl || !same_text(sub->task, it->task) ||
            !same_text(sub->name, it->submission) || !same_text(wl->name, it->workload))
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "does not match the submissions of the file (the shard record and "
                               "the results must come from the same run)");
        merged_sub *m = &subs[si];
        if (!m->sub) {
            m->sub = sub;
            if (sub->n_stages > 0 && !(m->stages = calloc(sub->n_stages, sizeof *m->stages)))
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            for (size_t j = 0; j < sub->n_stages; j++)
                m->stages[j] = &sub->stages[j];
            m->item = it;
            m->file = s->file;
        } else if (next_wl == 1) {
            /* The same position must be the same submission in every shard: shards of runs
             * over other manifests would otherwise be merged into one submission. */
            if (!pg_res_shard_items_same(it, m->item, NULL)) {
                char here[700], there[700];
                item_text(it, here, sizeof here);
                item_text(m->item, there, sizeof there);
                return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                                   "submission %lld is %s here, %s in %s: the shards come "
                                   "from runs over different manifests",
                                   (long long)si, here, there, m->file);
            }
            merge_sub_stages(m, sub);
        }
        if ((uint64_t)wi >= m->n_workloads) {
            size_t nn = (size_t)wi + 1;
            const pg_res_workload **v = realloc(m->workloads, nn * sizeof *v);
            if (v)
                m->workloads = v;
            const char **f = v ? realloc(m->placed_by, nn * sizeof *f) : NULL;
            if (!v || !f)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            m->placed_by = f;
            for (size_t z = m->n_workloads; z < nn; z++) {
                v[z] = NULL;
                f[z] = NULL;
            }
            m->n_workloads = nn;
        }
        if (m->workloads[wi]) {
            char what[600];
            snprintf(what, sizeof what, "%s / %s / %s", text_or_null(it->task),
                     text_or_null(it->submission), text_or_null(it->workload));
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "the work item %s is also in another shard", what);
        }
        for (size_t z = 0; z < m->n_workloads; z++)
            if (m->workloads[z] && strcmp(m->workloads[z]->name, wl->name) == 0) {
                char what[600];
                item_text(it, what, sizeof what);
                return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                                   "the workload %s of %s is at another position in %s: the "
                                   "shards come from runs over different workloads",
                                   wl->name, what, m->placed_by[z]);
            }
        m->workloads[wi] = wl;
        m->placed_by[wi] = s->file;
    }
    size_t listed = s->sh.n_items > 0 ? next_sub + 1 : 0;
    if (listed != s->view.n_subs)
        return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, "submissions",
                           "holds %zu submissions, its shard record lists %zu", s->view.n_subs,
                           listed);
    return PG_OK;
}

/* The merged submission record: the first shard's, with the chosen stages and the placed
 * workloads (copies, in the record's own key order). NULL on out-of-memory. */
static json_t *merged_record(const merged_sub *m)
{
    json_t *sub = json_deep_copy(m->sub->json), *stages = json_array(), *wls = json_array();
    for (size_t j = 0; stages && j < m->sub->n_stages; j++)
        if (json_array_append_new(stages, json_deep_copy(m->stages[j]->json)) != 0)
            break;
    for (size_t w = 0; wls && w < m->n_workloads; w++)
        if (m->workloads[w] && json_array_append_new(wls, json_deep_copy(m->workloads[w]->json)))
            break;
    if (!sub || !stages || !wls || json_object_set_new(sub, "stages", stages) != 0) {
        json_decref(sub);
        json_decref(wls);
        return NULL;
    }
    if (json_object_set_new(sub, "workloads", wls) != 0) {
        json_decref(sub);
        return NULL;
    }
    return sub;
}

static int cmp_index(const void *a, const void *b)
{
    return ((const shard_in *)a)->index - ((const shard_in *)b)->index;
}

pg_status pg_results_merge(json_t *const *shards, const char *const *files, size_t n,
                           json_t **out, pg_diag *d)
{
    *out = NULL;
    shard_in *in = calloc(n ? n : 1, sizeof *in);
    merged_sub *subs = NULL;
    size_t n_subs = 0;
    json_t *res = NULL;
    pg_status st = in ? PG_OK : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; st == PG_OK && i < n; i++)
        st = read_shard(shards[i], files[i], &in[i], d);
    if (st != PG_OK)
        goto done;
    for (size_t i = 1; st == PG_OK && i < n; i++)
        st = check_fingerprint(&in[0], &in[i], d);
    if (st != PG_OK)
        goto done;
    qsort(in, n, sizeof *in, cmp_index);
    for (size_t i = 1; i < n; i++)
        if (in[i].index == in[i - 1].index) {
            st = pg_diag_set(d, PG_ERR_INPUT, in[i].file, 0, "shard.index",
                             "shard %d/%d is given twice (also %s)", in[i].index, in[i].count,
                             in[i - 1].file);
            goto done;
        }
    if ((int)n != in[0].count) {
        char missing[512] = "";
        size_t used = 0;
        for (int want = 1, k = 0; want <= in[0].count && used < sizeof missing - 16; want++) {
            if (k < (int)n && in[k].index == want)
                k++;
            else
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%d/%d",
                                         used ? ", " : "", want, in[0].count);
        }
        st = pg_diag_set(d, PG_ERR_INPUT, in[0].file, 0, "shard",
                         "incomplete run: missing shard %s", missing);
        goto done;
    }
    /* The items the shards list together must be the run's: checked before any placing, so
     * the positions below are bounded by what the files hold. */
    size_t n_items = 0;
    for (size_t i = 0; i < n; i++)
        n_items += in[i].sh.n_items;
    if ((uint64_t)n_items != (uint64_t)in[0].sh.items_total) {
        st = pg_diag_set(d, PG_ERR_INPUT, in[0].file, 0, "shard.items_total",
                         "the shards hold %zu work items together, expected %lld", n_items,
                         (long long)in[0].sh.items_total);
        goto done;
    }
    /* Positions: one slot per submission of the unsharded run. */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < in[i].sh.n_items; k++) {
            int64_t si = in[i].sh.items[k].submission_index;
            if (si >= 0 && (uint64_t)si < (uint64_t)n_items && (size_t)si + 1 > n_subs)
                n_subs = (size_t)si + 1;
        }
    subs = calloc(n_subs ? n_subs : 1, sizeof *subs);
    if (!subs) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; st == PG_OK && i < n; i++)
        st = place(&in[i], subs, n_subs, n_items, d);
    if (st != PG_OK)
        goto done;

    /* The merged results, keys in the order check writes them. */
    const shard_in *env_from = &in[0];
    for (size_t i = 0; i < n; i++)
        if (in[i].view.env.has_gpu) {
            env_from = &in[i];
            break;
        }
    const char *started = in[0].view.started_utc;
    double duration = 0.0;
    json_int_t m_sum = 0;
    json_t *from = json_array(), *merged_subs = json_array();
    for (size_t i = 0; i < n; i++) {
        const pg_results *r = &in[i].view;
        if (strcmp(r->started_utc, started) < 0)
            started = r->started_utc;
        duration += r->duration_s;
        m_sum += (json_int_t)in[i].sh.m;
        char label[32];
        snprintf(label, sizeof label, "%d/%d", in[i].index, in[i].count);
        json_array_append_new(
            from, json_pack("{s:s, s:s, s:o, s:o, s:s, s:f, s:I}", "file", in[i].file, "shard",
                            label, "hostname",
                            r->env.hostname ? json_string(r->env.hostname) : json_null(),
                            "gpu_uuid", r->env.gpu_uuid ? json_string(r->env.gpu_uuid) : json_null(),
                            "started_utc", r->started_utc, "duration_s", r->duration_s, "items",
                            (json_int_t)in[i].sh.n_items));
    }
    for (size_t i = 0; i < n_subs; i++) {
        if (!subs[i].sub)
            continue;
        json_t *rec = merged_record(&subs[i]);
        if (!rec || json_array_append_new(merged_subs, rec) != 0) {
            json_decref(from);
            json_decref(merged_subs);
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
    }
    res = json_pack("{s:i, s:O, s:s, s:f, s:s, s:i, s:o, s:O, s:O, s:{s:i, s:i, s:i, s:i}, "
                    "s:{s:f, s:I, s:I}, s:o}",
                    "schema_version", 1, "tool", in[0].view.tool, "started_utc", started,
                    "duration_s", duration, "verdict", "pass", "exit_code", 0, "submissions",
                    merged_subs, "environment", env_from->view.env.json, "settings",
                    in[0].view.settings, "counts", "pass", 0, "fail", 0, "error", 0, "skipped",
                    0, "holm", "run_alpha", in[0].sh.run_alpha, "m_planned",
                    (json_int_t)in[0].sh.m_planned, "m", m_sum, "merged_from", from);
    if (!res) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    size_t m_family = 0;
    st = pg_results_reapply_holm(res, "merged results", in[0].sh.run_alpha, &m_family, d);
    if (st != PG_OK)
        goto done;
    if ((json_int_t)m_family != m_sum) {
        st = pg_diag_set(d, PG_ERR_INPUT, in[0].file, 0, "holm.m",
                         "the shards record %zu performance comparisons, their holm.m add up to "
                         "%lld",
                         m_family, (long long)m_sum);
        goto done;
    }
    /* A shard's own Holm verdicts were rewritten: the copies of the inputs are ours. */
    if ((st = pg_results_fold(res, false, d)) != PG_OK)
        goto done;
    *out = res;
    res = NULL;
done:
    for (size_t i = 0; subs && i < n_subs; i++) {
        free(subs[i].stages);
        free(subs[i].workloads);
        free(subs[i].placed_by);
    }
    free(subs);
    for (size_t i = 0; in && i < n; i++) {
        pg_res_shard_free(&in[i].sh);
        pg_results_free(&in[i].view);
    }
    free(in);
    json_decref(res);
    return st;
}
