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
    json_t *root;
    const char *file;
    int index, count;
    int64_t items_total;
    const json_t *items;
    const json_t *holm;
} shard_in;

/* One submission of the merged run: its first shard's record (copied) and its workloads. */
typedef struct {
    json_t *sub;        /* deep copy, "workloads" emptied; NULL while unseen */
    json_t **workloads; /* by workload_index; borrowed from the shards */
    size_t n_workloads;
    const json_t *item; /* the first shard item placed here (its task, submission, manifest) */
    const char *file;   /* ... and that shard's file */
    json_t *names;      /* workload name -> the file of the shard that placed it */
} merged_sub;

/* The item's "task / submission (manifest)" for messages. */
static void item_text(const json_t *it, char *buf, size_t n)
{
    const char *m = json_string_value(json_object_get(it, "manifest"));
    snprintf(buf, n, "%s / %s (%s)", json_string_value(json_object_get(it, "task")),
             json_string_value(json_object_get(it, "submission")), m ? m : "no manifest");
}

static pg_status read_shard(json_t *root, const char *file, shard_in *s, pg_diag *d)
{
    pg_results view;
    pg_status st = pg_results_read(root, file, &view, d);
    if (st != PG_OK)
        return st;
    pg_results_free(&view);
    /* Holm's inputs, checked here so that an error names this shard and its own indices, not
     * the merged run's. */
    if ((st = pg_results_check_holm(root, file, d)) != PG_OK)
        return st;
    memset(s, 0, sizeof *s);
    s->root = root;
    s->file = file;
    const json_t *sh = json_object_get(root, "shard");
    if (!json_is_object(sh))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "shard",
                           "not the results of a shard: no \"shard\" record (run ptxgate check "
                           "with --shard i/n)");
    s->holm = json_object_get(root, "holm");
    if (!json_is_object(s->holm) || !json_is_integer(json_object_get(s->holm, "m")) ||
        !json_is_integer(json_object_get(s->holm, "m_planned")) ||
        !json_is_number(json_object_get(s->holm, "run_alpha")))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm",
                           "expected an object with run_alpha, m_planned and m (written by "
                           "ptxgate check of this version)");
    const json_t *idx = json_object_get(sh, "index"), *cnt = json_object_get(sh, "count"),
                 *tot = json_object_get(sh, "items_total");
    s->items = json_object_get(sh, "items");
    if (!json_is_integer(idx) || !json_is_integer(cnt) || !json_is_integer(tot) ||
        !json_is_array(s->items) || json_integer_value(cnt) < 1 ||
        json_integer_value(cnt) > PG_SHARD_MAX || json_integer_value(idx) < 1 ||
        json_integer_value(idx) > json_integer_value(cnt) || json_integer_value(tot) < 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "shard",
                           "expected index (1..count), count (1..%d), items_total (>= 0) and "
                           "items",
                           PG_SHARD_MAX);
    /* Holm's inputs: a level in (0, 1) and comparison counts a run can have (their sum over
     * every shard stays far from overflowing). */
    double alpha = json_number_value(json_object_get(s->holm, "run_alpha"));
    json_int_t m = json_integer_value(json_object_get(s->holm, "m")),
               m_planned = json_integer_value(json_object_get(s->holm, "m_planned"));
    if (!(alpha > 0.0 && alpha < 1.0))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm.run_alpha",
                           "expected a level between 0 and 1, got %g", alpha);
    if (m_planned < 0 || m_planned > INT32_MAX || m < 0 || m > m_planned)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "holm.m",
                           "expected 0 <= m <= m_planned <= %d, got m = %lld, m_planned = %lld",
                           INT32_MAX, (long long)m, (long long)m_planned);
    s->index = (int)json_integer_value(idx);
    s->count = (int)json_integer_value(cnt);
    s->items_total = json_integer_value(tot);
    return PG_OK;
}

/* Text of a fingerprint value for messages: 'text' for a string, none for null or absent, else
 * the value as compact ASCII JSON (0.99, false, {"load":1.0}), cut with "…" when longer than
 * buf. */
static void show(const json_t *v, char *buf, size_t n)
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

static pg_status same(const shard_in *a, const shard_in *b, const char *field, const json_t *va,
                      const json_t *vb, pg_diag *d)
{
    if (json_equal((json_t *)va, (json_t *)vb) || (!va && json_is_null(vb)) ||
        (json_is_null(va) && !vb))
        return PG_OK;
    char x[256], y[256];
    show(vb, x, sizeof x);
    show(va, y, sizeof y);
    char msg[800];
    snprintf(msg, sizeof msg, "%s here, %s in %s: the shards of one run must share the GPU "
                              "model, driver, libraries, ptxgate version and settings",
             x, y, a->file);
    return pg_diag_set(d, PG_ERR_INPUT, b->file, 0, field, "%s", msg);
}

/* b's fingerprint against a's (merge.h). GPU fields are compared when both shards opened a GPU
 * (a shard whose items never reached a GPU stage records none). */
static pg_status check_fingerprint(const shard_in *a, const shard_in *b, pg_diag *d)
{
    static const char *const env_fields[] = {"driver_version", "cuda_driver_api_version",
                                             "cublaslt_version"};
    static const char *const gpu_fields[] = {"name", "compute_capability", "sm_count",
                                             "memory_bytes"};
    const json_t *ea = json_object_get(a->root, "environment"),
                 *eb = json_object_get(b->root, "environment");
    const json_t *ga = json_object_get(ea, "gpu"), *gb = json_object_get(eb, "gpu");
    pg_status st = same(a, b, "environment.ptxas_version", json_object_get(ea, "ptxas_version"),
                        json_object_get(eb, "ptxas_version"), d);
    char field[128];
    for (size_t i = 0; st == PG_OK && json_is_object(ga) && json_is_object(gb) && i < 4; i++) {
        snprintf(field, sizeof field, "environment.gpu.%s", gpu_fields[i]);
        st = same(a, b, field, json_object_get(ga, gpu_fields[i]), json_object_get(gb, gpu_fields[i]), d);
    }
    for (size_t i = 0; st == PG_OK && json_is_object(ga) && json_is_object(gb) && i < 3; i++) {
        snprintf(field, sizeof field, "environment.%s", env_fields[i]);
        st = same(a, b, field, json_object_get(ea, env_fields[i]), json_object_get(eb, env_fields[i]), d);
    }
    if (st == PG_OK)
        st = same(a, b, "tool.version", json_object_get(json_object_get(a->root, "tool"), "version"),
                  json_object_get(json_object_get(b->root, "tool"), "version"), d);
    const json_t *sa = json_object_get(a->root, "settings"), *sb = json_object_get(b->root, "settings");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)sa, key, v) {
        if (st != PG_OK)
            break;
        snprintf(field, sizeof field, "settings.%s", key);
        st = same(a, b, field, v, json_object_get(sb, key), d);
    }
    json_object_foreach((json_t *)sb, key, v) {
        if (st != PG_OK)
            break;
        snprintf(field, sizeof field, "settings.%s", key);
        st = same(a, b, field, json_object_get(sa, key), v, d);
    }
    if (st == PG_OK)
        st = same(a, b, "holm.m_planned", json_object_get(a->holm, "m_planned"),
                  json_object_get(b->holm, "m_planned"), d);
    if (st == PG_OK)
        st = same(a, b, "holm.run_alpha", json_object_get(a->holm, "run_alpha"),
                  json_object_get(b->holm, "run_alpha"), d);
    if (st == PG_OK)
        st = same(a, b, "shard.count", json_object_get(json_object_get(a->root, "shard"), "count"),
                  json_object_get(json_object_get(b->root, "shard"), "count"), d);
    if (st == PG_OK)
        st = same(a, b, "shard.items_total",
                  json_object_get(json_object_get(a->root, "shard"), "items_total"),
                  json_object_get(json_object_get(b->root, "shard"), "items_total"), d);
    return st;
}

static int rank(const char *s)
{
    return !s ? 0 : !strcmp(s, "fail") ? 3 : !strcmp(s, "error") ? 2 : !strcmp(s, "pass") ? 1 : 0;
}

/* Keep, per submission-level stage name, the worse record of the two. */
static void merge_sub_stages(json_t *into, const json_t *other)
{
    json_t *mine = json_object_get(into, "stages");
    size_t i, j;
    json_t *o, *m;
    json_array_foreach(json_object_get(other, "stages"), i, o) {
        json_array_foreach(mine, j, m) {
            if (!json_equal(json_object_get(m, "stage"), json_object_get(o, "stage")))
                continue;
            if (rank(json_string_value(json_object_get(o, "status"))) >
                rank(json_string_value(json_object_get(m, "status"))))
                json_array_set_new(mine, j, json_deep_copy(o));
            break;
        }
    }
}

/* Place shard s's submissions and workloads at their positions in the unsharded run. Every
 * position is below n_items, the work items the shards list together (so what is allocated
 * follows what the files hold, whatever indexes they claim). */
static pg_status place(const shard_in *s, merged_sub *subs, size_t n_subs, size_t n_items,
                       pg_diag *d)
{
    const json_t *arr = json_object_get(s->root, "submissions");
    size_t next_sub = 0, next_wl = 0;
    int64_t cur = -1;
    size_t k;
    const json_t *it;
    json_array_foreach(s->items, k, it) {
        json_int_t si = json_integer_value(json_object_get(it, "submission_index"));
        json_int_t wi = json_integer_value(json_object_get(it, "workload_index"));
        char field[64];
        snprintf(field, sizeof field, "shard.items[%zu]", k);
        if (!json_is_integer(json_object_get(it, "submission_index")) ||
            !json_is_integer(json_object_get(it, "workload_index")) || si < 0 || wi < 0 ||
            (size_t)si >= n_subs || (uint64_t)wi >= n_items || si < cur)
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
        json_t *sub = json_array_get(arr, next_sub);
        json_t *wl = json_array_get(json_object_get(sub, "workloads"), next_wl++);
        if (!sub || !wl ||
            !json_equal(json_object_get(sub, "task"), json_object_get(it, "task")) ||
            !json_equal(json_object_get(sub, "name"), json_object_get(it, "submission")) ||
            !json_equal(json_object_get(wl, "name"), json_object_get(it, "workload")))
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "does not match the submissions of the file (the shard record and "
                               "the results must come from the same run)");
        merged_sub *m = &subs[si];
        if (!m->sub) {
            m->sub = json_deep_copy(sub);
            if (!m->sub)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            json_object_set_new(m->sub, "workloads", json_array());
            m->item = it;
            m->file = s->file;
        } else if (next_wl == 1) {
            /* The same position must be the same submission in every shard: shards of runs
             * over other manifests would otherwise be merged into one submission. */
            static const char *const same_keys[] = {"task", "submission", "manifest"};
            for (size_t q = 0; q < 3; q++) {
                const json_t *x = json_object_get(it, same_keys[q]),
                             *y = json_object_get(m->item, same_keys[q]);
                if ((x || y) && !json_equal(x, y)) {
                    char here[700], there[700];
                    item_text(it, here, sizeof here);
                    item_text(m->item, there, sizeof there);
                    return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                                       "submission %lld is %s here, %s in %s: the shards come "
                                       "from runs over different manifests",
                                       (long long)si, here, there, m->file);
                }
            }
            merge_sub_stages(m->sub, sub);
        }
        if ((size_t)wi >= m->n_workloads) {
            size_t nn = (size_t)wi + 1;
            json_t **v = realloc(m->workloads, nn * sizeof *v);
            if (!v)
                return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            for (size_t z = m->n_workloads; z < nn; z++)
                v[z] = NULL;
            m->workloads = v;
            m->n_workloads = nn;
        }
        if (m->workloads[wi]) {
            char what[600];
            snprintf(what, sizeof what, "%s / %s / %s",
                     json_string_value(json_object_get(it, "task")),
                     json_string_value(json_object_get(it, "submission")),
                     json_string_value(json_object_get(it, "workload")));
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "the work item %s is also in another shard", what);
        }
        const char *wname = json_string_value(json_object_get(wl, "name"));
        const json_t *placed_by = wname ? json_object_get(m->names, wname) : NULL;
        if (placed_by) {
            char what[600];
            item_text(it, what, sizeof what);
            return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, field,
                               "the workload %s of %s is at another position in %s: the shards "
                               "come from runs over different workloads",
                               wname, what, json_string_value(placed_by));
        }
        m->workloads[wi] = wl;
        if (!m->names && !(m->names = json_object()))
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        if (wname)
            json_object_set_new(m->names, wname, json_string(s->file));
    }
    size_t listed = json_array_size(s->items) > 0 ? next_sub + 1 : 0;
    if (listed != json_array_size(arr))
        return pg_diag_set(d, PG_ERR_INPUT, s->file, 0, "submissions",
                           "holds %zu submissions, its shard record lists %zu", json_array_size(arr),
                           listed);
    return PG_OK;
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
        n_items += json_array_size(in[i].items);
    if ((uint64_t)n_items != (uint64_t)in[0].items_total) {
        st = pg_diag_set(d, PG_ERR_INPUT, in[0].file, 0, "shard.items_total",
                         "the shards hold %zu work items together, expected %lld", n_items,
                         (long long)in[0].items_total);
        goto done;
    }
    /* Positions: one slot per submission of the unsharded run. */
    for (size_t i = 0; i < n; i++) {
        size_t k;
        const json_t *it;
        json_array_foreach(in[i].items, k, it) {
            json_int_t si = json_integer_value(json_object_get(it, "submission_index"));
            if (si >= 0 && (uint64_t)si < (uint64_t)n_items && (size_t)si + 1 > n_subs)
                n_subs = (size_t)si + 1;
        }
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
        if (json_is_object(json_object_get(json_object_get(in[i].root, "environment"), "gpu"))) {
            env_from = &in[i];
            break;
        }
    const char *started = json_string_value(json_object_get(in[0].root, "started_utc"));
    double duration = 0.0;
    json_int_t m_sum = 0;
    json_t *from = json_array(), *merged_subs = json_array();
    for (size_t i = 0; i < n; i++) {
        const json_t *r = in[i].root;
        const char *s = json_string_value(json_object_get(r, "started_utc"));
        if (strcmp(s, started) < 0)
            started = s;
        double ds = json_number_value(json_object_get(r, "duration_s"));
        duration += ds;
        m_sum += json_integer_value(json_object_get(in[i].holm, "m"));
        const json_t *env = json_object_get(r, "environment");
        char label[32];
        snprintf(label, sizeof label, "%d/%d", in[i].index, in[i].count);
        json_array_append_new(
            from, json_pack("{s:s, s:s, s:O, s:O, s:s, s:f, s:I}", "file", in[i].file, "shard",
                            label, "hostname",
                            json_object_get(env, "hostname") ? json_object_get(env, "hostname")
                                                             : json_null(),
                            "gpu_uuid",
                            json_object_get(json_object_get(env, "gpu"), "uuid")
                                ? json_object_get(json_object_get(env, "gpu"), "uuid")
                                : json_null(),
                            "started_utc", s, "duration_s", ds, "items",
                            (json_int_t)json_array_size(in[i].items)));
    }
    for (size_t i = 0; i < n_subs; i++) {
        merged_sub *m = &subs[i];
        if (!m->sub)
            continue;
        json_t *wls = json_object_get(m->sub, "workloads");
        for (size_t w = 0; w < m->n_workloads; w++)
            if (m->workloads[w])
                json_array_append_new(wls, json_deep_copy(m->workloads[w]));
        json_array_append(merged_subs, m->sub);
    }
    res = json_pack("{s:i, s:O, s:s, s:f, s:s, s:i, s:o, s:O, s:O, s:{s:i, s:i, s:i, s:i}, "
                    "s:{s:O, s:O, s:I}, s:o}",
                    "schema_version", 1, "tool", json_object_get(in[0].root, "tool"),
                    "started_utc", started, "duration_s", duration, "verdict", "pass",
                    "exit_code", 0, "submissions", merged_subs, "environment",
                    json_object_get(env_from->root, "environment"), "settings",
                    json_object_get(in[0].root, "settings"), "counts", "pass", 0, "fail", 0,
                    "error", 0, "skipped", 0, "holm", "run_alpha",
                    json_object_get(in[0].holm, "run_alpha"), "m_planned",
                    json_object_get(in[0].holm, "m_planned"), "m", m_sum, "merged_from", from);
    if (!res) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    size_t m_family = 0;
    st = pg_results_reapply_holm(res, "merged results",
                                 json_number_value(json_object_get(in[0].holm, "run_alpha")),
                                 &m_family, d);
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
    pg_results_fold(res, false);
    *out = res;
    res = NULL;
done:
    for (size_t i = 0; subs && i < n_subs; i++) {
        json_decref(subs[i].sub);
        json_decref(subs[i].names);
        free(subs[i].workloads);
    }
    free(subs);
    free(in);
    json_decref(res);
    return st;
}
