/* Chip metric lists: loading data/metrics/<chip>.json strictly, and the metrics to request for a
 * set of target SASS families. */
#include "metric_table.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../base/dirnames.h"
#include "../base/fileio.h"
#include "../base/jsonget.h"
#include "../base/names.h"

/* "<unit>__<counter>.<rollup>": lower-case letters, digits and '_' around one "__", then one of
 * CUPTI's rollups. CUPTI itself decides whether the chip knows the name (checked offline in the
 * tests and at run time). */
static bool metric_name_valid(const char *s)
{
    const char *dot = strrchr(s, '.');
    const char *sep = strstr(s, "__");
    if (!dot || !sep || sep == s || sep + 2 >= dot)
        return false;
    for (const char *p = s; p < dot; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return false;
    static const char *const rollups[] = {".sum", ".max", ".min", ".avg", NULL};
    return pg_name_among(dot, rollups);
}

/* [A-Za-z0-9_]+ (chips) or [A-Z0-9_.]+ (families, e.g. "HMMA"); at most PG_METRIC_ID_MAX - 1. */
static bool id_valid(const char *s, bool family)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PG_METRIC_ID_MAX)
        return false;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        bool ok = isdigit(c) || c == '_' || (family ? (isupper(c) || c == '.') : isalpha(c));
        if (!ok)
            return false;
    }
    return true;
}

/* A list of metric names: key absent -> 0 entries unless required. */
static pg_status get_metrics(const json_t *obj, const pg_jctx *ctx, const char *key,
                             bool required, char (*dst)[PG_METRIC_NAME_MAX], int *n, pg_diag *d)
{
    json_t *arr = NULL;
    char f[300];
    *n = 0;
    pg_status st = pg_jget_array(obj, ctx, key, required, &arr, d);
    if (st != PG_OK || !arr)
        return st;
    pg_jctx lc = pg_jctx_member(ctx, key);
    size_t len = json_array_size(arr);
    if ((required && len == 0) || len > PG_METRIC_MAX_TERMS)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected %d to %d metric names, found %zu", required ? 1 : 0,
                           PG_METRIC_MAX_TERMS, len);
    for (size_t i = 0; i < len; i++) {
        pg_jctx c = pg_jctx_index(&lc, i);
        const json_t *v = json_array_get(arr, i);
        const char *s = json_is_string(v) ? json_string_value(v) : NULL;
        if (!s || strlen(s) >= PG_METRIC_NAME_MAX || !metric_name_valid(s))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a CUPTI metric name like "
                               "\"sm__sass_inst_executed_op_shared_gmma.sum\" (at most %d "
                               "characters, rollup .sum/.max/.min/.avg), found %s%s%s",
                               PG_METRIC_NAME_MAX - 1, s ? "'" : "",
                               s ? s : pg_json_type_name(v), s ? "'" : "");
        for (int j = 0; j < *n; j++)
            if (strcmp(dst[j], s) == 0)
                return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                                   "metric '%s' is listed twice", s);
        snprintf(dst[*n], PG_METRIC_NAME_MAX, "%s", s);
        (*n)++;
    }
    return PG_OK;
}

/* [a-z0-9_]+, at most PG_METRIC_PATH_MAX - 1. */
static bool path_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PG_METRIC_PATH_MAX)
        return false;
    for (const char *p = s; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* "math_ops": {"bf16": [metrics], ...}. */
static pg_status parse_paths(pg_metric_family *fam, const json_t *v, const pg_jctx *c,
                             pg_diag *d)
{
    json_t *obj = NULL;
    pg_status st = pg_jget_object(v, c, "math_ops", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx mc = pg_jctx_member(c, "math_ops");
    if (json_object_size(obj) == 0 || json_object_size(obj) > PG_METRIC_MAX_PATHS)
        return pg_diag_set(d, PG_ERR_INPUT, mc.file, 0, mc.path,
                           "expected 1 to %d tensor paths, found %zu", PG_METRIC_MAX_PATHS,
                           json_object_size(obj));
    const char *key;
    json_t *list;
    json_object_foreach(obj, key, list) {
        pg_jctx pc = pg_jctx_member(&mc, key);
        if (!path_valid(key))
            return pg_diag_set(d, PG_ERR_INPUT, pc.file, 0, pc.path,
                               "expected a tensor path name like \"bf16\" (lower case, digits, "
                               "'_', at most %d characters)",
                               PG_METRIC_PATH_MAX - 1);
        pg_metric_path *p = &fam->math_ops[fam->n_paths];
        snprintf(p->path, sizeof p->path, "%s", key);
        st = get_metrics(obj, &mc, key, true, p->metrics, &p->n_metrics, d);
        if (st != PG_OK)
            return st;
        fam->n_paths++;
    }
    return PG_OK;
}

static pg_status parse_family(pg_metric_family *fam, const char *name, const json_t *v,
                              const pg_jctx *c, pg_diag *d)
{
    static const char *const keys[] = {"count_add", "count_subtract", "math_ops",
                                       "shares_count_with", "note", NULL};
    if (!id_valid(name, true))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, c->path,
                           "expected a SASS family name like \"HGMMA\" (capitals, digits, '_' "
                           "or '.', at most %d characters)",
                           PG_METRIC_ID_MAX - 1);
    if (!json_is_object(v))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, c->path, "expected an object, found %s",
                           pg_json_type_name(v));
    snprintf(fam->name, sizeof fam->name, "%s", name);
    pg_status st = pg_jcheck_keys(v, c, keys, d);
    if (st == PG_OK)
        st = get_metrics(v, c, "count_add", true, fam->count_add, &fam->n_count_add, d);
    if (st == PG_OK)
        st = get_metrics(v, c, "count_subtract", false, fam->count_subtract,
                         &fam->n_count_subtract, d);
    if (st == PG_OK)
        st = parse_paths(fam, v, c, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(v, c, "note", false, false, fam->note, sizeof fam->note, d);
    if (st != PG_OK)
        return st;
    json_t *shares = NULL;
    st = pg_jget_array(v, c, "shares_count_with", false, &shares, d);
    if (st != PG_OK || !shares)
        return st;
    pg_jctx sc = pg_jctx_member(c, "shares_count_with");
    if (json_array_size(shares) > PG_METRIC_MAX_SHARES)
        return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, sc.path, "at most %d families, found %zu",
                           PG_METRIC_MAX_SHARES, json_array_size(shares));
    for (size_t i = 0; i < json_array_size(shares); i++) {
        pg_jctx ec = pg_jctx_index(&sc, i);
        const json_t *e = json_array_get(shares, i);
        if (!json_is_string(e) || !id_valid(json_string_value(e), true))
            return pg_diag_set(d, PG_ERR_INPUT, ec.file, 0, ec.path,
                               "expected a SASS family name like \"QGMMA\"");
        snprintf(fam->shares_count_with[fam->n_shares++], PG_METRIC_ID_MAX, "%s",
                 json_string_value(e));
    }
    return PG_OK;
}

static pg_status parse(pg_metric_table *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"schema_version", "chip", "description",
                                       "flops_per_math_op", "families", NULL};
    char f[300];
    pg_status st = pg_jcheck_keys(root, ctx, keys, d);
    int64_t version = 0;
    if (st == PG_OK)
        st = pg_jget_int(root, ctx, "schema_version", true, &version, d);
    if (st != PG_OK)
        return st;
    if (version != 1)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                           pg_jctx_field(ctx, "schema_version", f, sizeof f),
                           "unsupported schema_version %lld, expected 1", (long long)version);
    st = pg_jget_string_copy(root, ctx, "chip", true, true, t->chip, sizeof t->chip, d);
    if (st != PG_OK)
        return st;
    if (!id_valid(t->chip, false))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "chip", f, sizeof f),
                           "expected a chip name like \"GH100\" (letters, digits, '_')");
    const char *desc = NULL;
    st = pg_jget_string(root, ctx, "description", false, &desc, d);
    if (st == PG_OK)
        st = pg_jget_number(root, ctx, "flops_per_math_op", true, &t->flops_per_math_op, d);
    if (st != PG_OK)
        return st;
    if (!(t->flops_per_math_op > 0 && t->flops_per_math_op <= 1e6))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                           pg_jctx_field(ctx, "flops_per_math_op", f, sizeof f),
                           "expected a positive number, found %g", t->flops_per_math_op);
    json_t *fams = NULL;
    st = pg_jget_object(root, ctx, "families", true, &fams, d);
    if (st != PG_OK)
        return st;
    pg_jctx fc = pg_jctx_member(ctx, "families");
    size_t nf = json_object_size(fams);
    if (nf == 0 || nf > PG_METRIC_MAX_FAMILIES)
        return pg_diag_set(d, PG_ERR_INPUT, fc.file, 0, fc.path,
                           "expected 1 to %d families, found %zu", PG_METRIC_MAX_FAMILIES, nf);
    const char *name;
    json_t *v;
    json_object_foreach(fams, name, v) {
        pg_jctx c = pg_jctx_member(&fc, name);
        st = parse_family(&t->families[t->n_families], name, v, &c, d);
        if (st != PG_OK)
            return st;
        t->n_families++;
    }
    return PG_OK;
}

pg_status pg_metric_table_load(const char *path, pg_metric_table **out, pg_diag *d)
{
    *out = NULL;
    json_t *root = NULL;
    pg_status st = pg_json_load(path, &root, d);
    if (st != PG_OK)
        return st;
    pg_metric_table *t = calloc(1, sizeof *t);
    if (!t) {
        json_decref(root);
        return pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL, "out of host memory");
    }
    snprintf(t->file, sizeof t->file, "%s", path);
    pg_jctx ctx = {.file = path, .path = ""};
    st = parse(t, root, &ctx, d);
    json_decref(root);
    if (st != PG_OK) {
        free(t);
        return st;
    }
    *out = t;
    return PG_OK;
}

pg_status pg_metric_table_load_chip(const char *dir, const char *chip, pg_metric_table **out,
                                    pg_diag *d)
{
    *out = NULL;
    if (!id_valid(chip, false))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "chip",
                           "expected a chip name like \"GH100\", found '%s'", chip);
    char stem[PG_METRIC_ID_MAX + 8], path[4096];
    size_t i = 0;
    for (; chip[i]; i++)
        stem[i] = (char)tolower((unsigned char)chip[i]);
    snprintf(stem + i, sizeof stem - i, ".json");
    pg_path_join(path, sizeof path, dir, stem);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        char known[1024];
        pg_dir_stems(dir, ".json", known, sizeof known);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, "chip",
                           "no metric list for chip '%s' in %s (known: %s): executed "
                           "instructions cannot be counted on this GPU",
                           chip, dir, known[0] ? known : "none");
    }
    pg_status st = pg_metric_table_load(path, out, d);
    if (st != PG_OK)
        return st;
    if (strcasecmp((*out)->chip, chip) != 0) {
        st = pg_diag_set(d, PG_ERR_INPUT, path, 0, "chip",
                         "the file is named for chip '%s' but says \"%s\"", chip, (*out)->chip);
        pg_metric_table_free(*out);
        *out = NULL;
    }
    return st;
}

void pg_metric_table_free(pg_metric_table *t)
{
    free(t);
}

const pg_metric_path *pg_metric_family_path(const pg_metric_family *f, const char *path)
{
    for (int i = 0; path && i < f->n_paths; i++)
        if (strcmp(f->math_ops[i].path, path) == 0)
            return &f->math_ops[i];
    return NULL;
}

const char *pg_metric_path_for_dtype(const char *dtype_name)
{
    static const char *const map[][2] = {
        {"bf16", "bf16"}, {"fp16", "fp16"}, {"fp32", "tf32"}, {"e4m3", "fp8"}, {"e5m2", "fp8"},
    };
    for (size_t i = 0; dtype_name && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], dtype_name) == 0)
            return map[i][1];
    return NULL;
}

const pg_metric_family *pg_metric_table_find(const pg_metric_table *t, const char *name)
{
    for (int i = 0; i < t->n_families; i++)
        if (strcmp(t->families[i].name, name) == 0)
            return &t->families[i];
    return NULL;
}

/* Append m to metrics unless present. */
static pg_status add_metric(const char *m, const char **metrics, size_t max, size_t *n,
                            pg_diag *d)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(metrics[i], m) == 0)
            return PG_OK;
    if (*n >= max)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "families",
                           "the target families need more than %zu metrics", max);
    metrics[(*n)++] = m;
    return PG_OK;
}

pg_status pg_metric_table_request(const pg_metric_table *t, const char *const *families,
                                  size_t n_families, const char *path, const char **metrics,
                                  size_t max_metrics, size_t *n_metrics, pg_diag *d)
{
    *n_metrics = 0;
    if (n_families == 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "families", "no target SASS family given");
    for (size_t i = 0; i < n_families; i++) {
        const pg_metric_family *f = pg_metric_table_find(t, families[i]);
        if (!f) {
            char known[1024] = "", field[32];
            size_t used = 0;
            for (int j = 0; j < t->n_families && used < sizeof known; j++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         j ? ", " : "", t->families[j].name);
            snprintf(field, sizeof field, "families[%zu]", i);
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, field,
                               "no execution counter for SASS family '%s' on chip %s (known: %s)",
                               families[i], t->chip, known);
        }
        pg_status st = PG_OK;
        for (int j = 0; j < f->n_count_add && st == PG_OK; j++)
            st = add_metric(f->count_add[j], metrics, max_metrics, n_metrics, d);
        for (int j = 0; j < f->n_count_subtract && st == PG_OK; j++)
            st = add_metric(f->count_subtract[j], metrics, max_metrics, n_metrics, d);
        for (int p = 0; p < f->n_paths && st == PG_OK; p++) {
            const pg_metric_path *mp = &f->math_ops[p];
            if (path && strcmp(mp->path, path) != 0)
                continue;
            for (int j = 0; j < mp->n_metrics && st == PG_OK; j++)
                st = add_metric(mp->metrics[j], metrics, max_metrics, n_metrics, d);
        }
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}
