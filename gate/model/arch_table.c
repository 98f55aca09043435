/* Per-architecture PTX → SASS family tables: loading, validation, classification (see
 * arch_table.h). */
#include "arch_table.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/dirnames.h"
#include "../base/fileio.h"
#include "../base/jsonget.h"
#include "task.h"

/* A letter in lo..hi first, then letters in lo..hi, digits and '_': "HGMMA" (lo 'A', hi 'Z')
 * for a SASS family, "tensor_core" (lo 'a', hi 'z') for a group. */
static bool name_valid(const char *s, char lo, char hi)
{
    if (!(s[0] >= lo && s[0] <= hi))
        return false;
    for (; *s; s++)
        if (!((*s >= lo && *s <= hi) || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* "sm_90a" from ".../sm_90a.json". */
static void file_stem(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    snprintf(out, n, "%.*s", (int)len, base);
}

static pg_status parse_family(pg_arch_table *t, pg_arch_family *f, const json_t *obj,
                              const pg_jctx *c, pg_diag *d)
{
    static const char *const keys[] = {"ptx", "sass", "group", "note", NULL};
    char text[PG_PATTERN_MAX_TEXT], err[256], fld[300];
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, c->path,
                           "expected a family object {\"ptx\": ..., \"sass\": [...]}, found %s",
                           pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, c, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, c, "ptx", true, true, text, sizeof text, d);
    if (st != PG_OK)
        return st;
    if (!pg_pattern_parse(text, &f->ptx, err, sizeof err))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, "ptx", fld, sizeof fld),
                           "'%s' is not a PTX instruction pattern: %s", text, err);
    for (int i = 0; i < t->n_families; i++) {
        const pg_instr_pattern *o = &t->families[i].ptx;
        if (pg_pattern_contains(o, &f->ptx) && pg_pattern_contains(&f->ptx, o))
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0,
                               pg_jctx_field(c, "ptx", fld, sizeof fld),
                               "'%s' repeats families[%d] ('%s')", text, i, o->text);
    }
    json_t *arr;
    if ((st = pg_jget_array(obj, c, "sass", true, &arr, d)) != PG_OK)
        return st;
    pg_jctx sc = pg_jctx_member(c, "sass");
    if (json_array_size(arr) > PG_ARCH_MAX_SASS)
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, sc.path,
                           "at most %d SASS families per PTX family, found %zu", PG_ARCH_MAX_SASS,
                           json_array_size(arr));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        pg_jctx ec = pg_jctx_index(&sc, i);
        const json_t *v = json_array_get(arr, i);
        const char *s = json_string_value(v);
        if (!s || !name_valid(s, 'A', 'Z') || strlen(s) >= PG_SASS_FAMILY_MAX)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, ec.path,
                               "expected a SASS opcode family ([A-Z][A-Z0-9_]*, at most %d "
                               "characters, e.g. \"HGMMA\"), found %s%s%s",
                               PG_SASS_FAMILY_MAX - 1, s ? "'" : pg_json_type_name(v),
                               s ? s : "", s ? "'" : "");
        for (int j = 0; j < f->n_sass; j++)
            if (strcmp(f->sass[j], s) == 0)
                return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, ec.path,
                                   "'%s' appears twice in this list", s);
        snprintf(f->sass[f->n_sass++], sizeof f->sass[0], "%s", s);
    }
    if ((st = pg_jget_string_copy(obj, c, "group", false, true, f->group, sizeof f->group, d)) !=
        PG_OK)
        return st;
    if (f->group[0] && !name_valid(f->group, 'a', 'z'))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, "group", fld, sizeof fld),
                           "expected a group name ([a-z][a-z0-9_]*), found '%s'", f->group);
    return pg_jget_string_copy(obj, c, "note", false, false, f->note, sizeof f->note, d);
}

/* One limit: an integer 1 .. 2^31 - 1. */
static pg_status parse_limit(const json_t *v, const pg_jctx *c, const char *key, int *out,
                             pg_diag *d)
{
    char fld[300];
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > INT32_MAX)
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, key, fld, sizeof fld),
                           "expected an integer from 1 to 2147483647");
    *out = (int)json_integer_value(v);
    return PG_OK;
}

static pg_status parse_dims(const json_t *obj, const pg_jctx *c, const char *key, int out[3],
                            pg_diag *d)
{
    char fld[300];
    const json_t *a = json_object_get(obj, key);
    if (!json_is_array(a) || json_array_size(a) != 3)
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, key, fld, sizeof fld),
                           "expected an array of 3 integers (x, y, z)");
    pg_jctx m = pg_jctx_member(c, key);
    for (size_t i = 0; i < 3; i++) {
        pg_jctx e = pg_jctx_index(&m, i);
        pg_status st = parse_limit(json_array_get(a, i), &e, "", &out[i], d);
        if (st != PG_OK)
            return pg_diag_set(d, st, c->file, 0, e.path,
                               "expected an integer from 1 to 2147483647");
    }
    return PG_OK;
}

static pg_status parse_launch_limits(const json_t *root, const pg_jctx *ctx,
                                     pg_arch_launch_limits *l, pg_diag *d)
{
    static const char *const keys[] = {"source", "max_threads_per_block", "max_block_dim",
                                       "max_grid_dim", "max_shared_per_block_optin",
                                       "max_cluster_blocks_portable", "max_cluster_blocks", NULL};
    json_t *obj = NULL;
    pg_status st = pg_jget_object(root, ctx, "launch_limits", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx c = pg_jctx_member(ctx, "launch_limits");
    char fld[300];
    if ((st = pg_jcheck_keys(obj, &c, keys, d)) != PG_OK ||
        (st = pg_jget_string_copy(obj, &c, "source", true, true, l->source, sizeof l->source,
                                  d)) != PG_OK ||
        (st = parse_limit(json_object_get(obj, "max_threads_per_block"), &c,
                          "max_threads_per_block", &l->max_threads_per_block, d)) != PG_OK ||
        (st = parse_dims(obj, &c, "max_block_dim", l->max_block_dim, d)) != PG_OK ||
        (st = parse_dims(obj, &c, "max_grid_dim", l->max_grid_dim, d)) != PG_OK ||
        (st = parse_limit(json_object_get(obj, "max_shared_per_block_optin"), &c,
                          "max_shared_per_block_optin", &l->max_shared_per_block_optin, d)) !=
            PG_OK ||
        (st = parse_limit(json_object_get(obj, "max_cluster_blocks_portable"), &c,
                          "max_cluster_blocks_portable", &l->max_cluster_blocks_portable, d)) !=
            PG_OK ||
        (st = parse_limit(json_object_get(obj, "max_cluster_blocks"), &c, "max_cluster_blocks",
                          &l->max_cluster_blocks, d)) != PG_OK)
        return st;
    if (l->max_cluster_blocks < l->max_cluster_blocks_portable)
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                           pg_jctx_field(&c, "max_cluster_blocks", fld, sizeof fld),
                           "expected at least max_cluster_blocks_portable (%d), found %d",
                           l->max_cluster_blocks_portable, l->max_cluster_blocks);
    l->present = true;
    return PG_OK;
}

static pg_status parse_reference_device(const json_t *root, const pg_jctx *ctx,
                                        pg_arch_reference_device *r, pg_diag *d)
{
    static const char *const keys[] = {"name", "source", "num_sms", "l2_bytes", "cluster_sms",
                                       NULL};
    json_t *obj = NULL;
    int64_t l2 = 0;
    char fld[300];
    pg_status st = pg_jget_object(root, ctx, "reference_device", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx c = pg_jctx_member(ctx, "reference_device");
    if ((st = pg_jcheck_keys(obj, &c, keys, d)) != PG_OK ||
        (st = pg_jget_string_copy(obj, &c, "name", true, true, r->name, sizeof r->name, d)) !=
            PG_OK ||
        (st = pg_jget_string_copy(obj, &c, "source", true, true, r->source, sizeof r->source,
                                  d)) != PG_OK ||
        (st = parse_limit(json_object_get(obj, "num_sms"), &c, "num_sms", &r->num_sms, d)) !=
            PG_OK ||
        (st = pg_jget_int(obj, &c, "l2_bytes", true, &l2, d)) != PG_OK)
        return st;
    if (l2 < 1 || l2 > ((int64_t)1 << 40))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, "l2_bytes", fld, sizeof fld),
                           "expected an integer from 1 to 2^40, found %lld", (long long)l2);
    r->l2_bytes = l2;
    r->cluster_sms = r->num_sms;
    if (json_object_get(obj, "cluster_sms") &&
        (st = parse_limit(json_object_get(obj, "cluster_sms"), &c, "cluster_sms",
                          &r->cluster_sms, d)) != PG_OK)
        return st;
    if (r->cluster_sms > r->num_sms)
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                           pg_jctx_field(&c, "cluster_sms", fld, sizeof fld),
                           "expected at most num_sms (%d), found %d", r->num_sms, r->cluster_sms);
    r->present = true;
    return PG_OK;
}

pg_status pg_arch_table_load_file(const char *path, pg_arch_table **out, pg_diag *d)
{
    static const char *const keys[] = {"schema_version", "arch", "description", "source",
                                       "families", "launch_limits", "reference_device", NULL};
    json_t *root = NULL;
    pg_arch_table *t = NULL;
    pg_jctx ctx = {.file = path, .path = ""};
    char stem[256], desc[1024];
    int64_t version = 0;
    *out = NULL;
    pg_status st;
    t = pg_json_load_new(path, &root, sizeof *t, &st, d);
    if (!t)
        goto done;
    snprintf(t->file, sizeof t->file, "%s", path);
    if ((st = pg_jcheck_keys(root, &ctx, keys, d)) != PG_OK ||
        (st = pg_jget_int(root, &ctx, "schema_version", true, &version, d)) != PG_OK)
        goto done;
    if (version != 1) {
        st = pg_diag_set(d, PG_ERR_INPUT, path, 0, "schema_version",
                         "unsupported schema_version %" PRId64 "; accepted: 1", version);
        goto done;
    }
    if ((st = pg_jget_string_copy(root, &ctx, "arch", true, true, t->arch, sizeof t->arch, d)) !=
        PG_OK)
        goto done;
    file_stem(path, stem, sizeof stem);
    if (!pg_arch_name_valid(t->arch) || strcmp(stem, t->arch) != 0) {
        st = pg_diag_set(d, PG_ERR_INPUT, path, 0, "arch",
                         "expected the architecture named by the file ('%s', like sm_90a), found "
                         "'%s'",
                         stem, t->arch);
        goto done;
    }
    if ((st = pg_jget_string_copy(root, &ctx, "description", false, false, desc, sizeof desc,
                                  d)) != PG_OK ||
        (st = pg_jget_string_copy(root, &ctx, "source", true, true, t->source, sizeof t->source,
                                  d)) != PG_OK)
        goto done;
    json_t *arr;
    if ((st = pg_jget_array(root, &ctx, "families", true, &arr, d)) != PG_OK)
        goto done;
    size_t n = json_array_size(arr);
    if (n < 1 || n > PG_ARCH_MAX_FAMILIES) {
        st = pg_diag_set(d, PG_ERR_INPUT, path, 0, "families", "expected 1 to %d families, found %zu",
                         PG_ARCH_MAX_FAMILIES, n);
        goto done;
    }
    t->families = calloc(n, sizeof *t->families);
    if (!t->families) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    pg_jctx fc = pg_jctx_member(&ctx, "families");
    for (size_t i = 0; i < n && st == PG_OK; i++) {
        pg_jctx c = pg_jctx_index(&fc, i);
        st = parse_family(t, &t->families[i], json_array_get(arr, i), &c, d);
        if (st == PG_OK)
            t->n_families = (int)i + 1;
    }
    if (st == PG_OK)
        st = parse_launch_limits(root, &ctx, &t->launch, d);
    if (st == PG_OK)
        st = parse_reference_device(root, &ctx, &t->ref, d);
done:
    json_decref(root);
    if (st != PG_OK) {
        pg_arch_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

pg_status pg_arch_table_load(const char *dir, const char *arch, pg_arch_table **out, pg_diag *d)
{
    char name[64], path[PATH_MAX], known[512];
    struct stat sb;
    *out = NULL;
    if (!pg_arch_name_valid(arch))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "'%s' is not an architecture name like sm_90a", arch);
    snprintf(name, sizeof name, "%s.json", arch);
    pg_path_join(path, sizeof path, dir, name);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        pg_dir_stems(dir, ".json", known, sizeof known);
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "no instruction table for %s in '%s' (tables: %s)", arch, dir,
                           known[0] ? known : "none");
    }
    return pg_arch_table_load_file(path, out, d);
}

void pg_arch_table_free(pg_arch_table *t)
{
    if (!t)
        return;
    free(t->families);
    free(t);
}

/* The family whose PTX pattern fits arg, the most specific (most modifiers) where several do,
 * the first of those on a tie; -1 when none does. The one rule behind classify and resolve. */
static int most_specific(const pg_arch_table *t,
                         bool (*fits)(const pg_instr_pattern *family, const void *arg),
                         const void *arg)
{
    int best = -1;
    for (int i = 0; i < t->n_families; i++)
        if (fits(&t->families[i].ptx, arg) &&
            (best < 0 || t->families[i].ptx.n_mods > t->families[best].ptx.n_mods))
            best = i;
    return best;
}

static bool matches_mnemonic(const pg_instr_pattern *family, const void *mnemonic)
{
    return pg_pattern_matches(family, mnemonic);
}

static bool contains_pattern(const pg_instr_pattern *family, const void *p)
{
    return pg_pattern_contains(family, p);
}

int pg_arch_table_classify(const pg_arch_table *t, const char *mnemonic)
{
    return most_specific(t, matches_mnemonic, mnemonic);
}

int pg_arch_table_resolve(const pg_arch_table *t, const pg_instr_pattern *p)
{
    return most_specific(t, contains_pattern, p);
}

bool pg_arch_table_knows_sass(const pg_arch_table *t, const char *sass_family)
{
    for (int i = 0; i < t->n_families; i++)
        for (int j = 0; j < t->families[i].n_sass; j++)
            if (strcmp(t->families[i].sass[j], sass_family) == 0)
                return true;
    return false;
}
