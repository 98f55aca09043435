/* Task definitions: loading and validating task.json, and lookups (see task.h). */
#include "task.h"

#include "device_symbols.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/dirnames.h"
#include "../base/fileio.h"
#include "../base/jsonget.h"
#include "device_symbols.h"
#include "mha_problem.h"
#include "task_ops.h"

/* ---- small shared helpers ---------------------------------------------------------------- */

/* [A-Za-z0-9_.-]+, not starting with '.' (usable as a file or folder name). */
static bool is_plain_name(const char *s)
{
    if (!*s || *s == '.')
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

static bool is_function_name(const char *s)
{
    return strcmp(s, "ceil_div") == 0 || strcmp(s, "min") == 0 || strcmp(s, "max") == 0 ||
           strcmp(s, "max_active_clusters") == 0;
}

/* Why s cannot name a symbol, or NULL: a function of the expression language, a device symbol
 * (manifests' num_sms, l2_bytes, ...: the GPU in use decides those, a task must not), or a
 * dtype name (tolerance keys). */
static const char *reserved_symbol(const char *s)
{
    if (is_function_name(s))
        return "a function of the expression language";
    for (int i = 0; i < PG_N_DEVICE_SYMBOLS; i++)
        if (strcmp(s, pg_device_symbol_names[i]) == 0)
            return "a device symbol, whose value comes from the GPU in use";
    if (pg_dtype_parse(s) != PG_DTYPE_INVALID)
        return "a dtype name";
    return NULL;
}

bool pg_arch_name_valid(const char *arch)
{
    if (strncmp(arch, "sm_", 3) != 0)
        return false;
    const char *p = arch + 3;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits++;
    }
    if (digits < 2 || digits > 3 || arch[3] == '0')
        return false;
    if (*p == 'a')
        p++;
    return *p == '\0';
}

/* Array element i of arr as a string copied into dst (n bytes); ctx is the array's context. */
static pg_status get_string_elem(const json_t *arr, size_t i, const pg_jctx *ctx, char *dst,
                                 size_t n, pg_diag *d)
{
    pg_jctx c = pg_jctx_index(ctx, i);
    const json_t *v = json_array_get(arr, i);
    if (!json_is_string(v))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path, "expected a string, found %s",
                           pg_json_type_name(v));
    const char *s = json_string_value(v);
    if (!s[0])
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path, "expected a non-empty string");
    if (strlen(s) >= n)
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                           "string is too long (%zu characters, at most %zu)", strlen(s), n - 1);
    snprintf(dst, n, "%s", s);
    return PG_OK;
}

/* The optional array obj[key] (*arr NULL when absent) of at most max elements ("expected at most
 * max <key>" otherwise); *actx receives its context for the caller's per-element messages. */
static pg_status get_short_array(const json_t *obj, const pg_jctx *ctx, const char *key, int max,
                                 json_t **arr, pg_jctx *actx, pg_diag *d)
{
    *arr = NULL;
    *actx = pg_jctx_member(ctx, key);
    pg_status st = pg_jget_array(obj, ctx, key, false, arr, d);
    if (st == PG_OK && *arr && json_array_size(*arr) > (size_t)max)
        return pg_diag_set(d, PG_ERR_INPUT, actx->file, 0, actx->path,
                           "expected at most %d %s, found %zu", max, key, json_array_size(*arr));
    return st;
}

/* Array with min..max elements. */
static pg_status get_array(const json_t *obj, const pg_jctx *ctx, const char *key, size_t min,
                           size_t max, json_t **out, pg_diag *d)
{
    char f[300];
    pg_status st = pg_jget_array(obj, ctx, key, true, out, d);
    if (st != PG_OK)
        return st;
    size_t n = json_array_size(*out);
    if (n < min || n > max)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected %zu to %zu elements, found %zu", min, max, n);
    return PG_OK;
}

/* Non-negative (or positive) finite number. */
static pg_status get_limit(const json_t *obj, const pg_jctx *ctx, const char *key, bool positive,
                           double *out, pg_diag *d)
{
    char f[300];
    pg_status st = pg_jget_number(obj, ctx, key, true, out, d);
    if (st != PG_OK)
        return st;
    if (!isfinite(*out) || (positive ? *out <= 0 : *out < 0))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected a %s number, found %g", positive ? "positive" : "non-negative",
                           *out);
    return PG_OK;
}

/* The first count symbols of t, "M, N, K" (n_free_symbols: those a workload binds;
 * n_symbols: with the derived ones). */
static void symbol_list(const pg_task *t, int count, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", t->symbols[i]);
}

/* Name of the folder holding path ("tasks/x/task.json" -> "x"), resolving "." and "..". */
static void folder_name(const char *path, char *out, size_t n)
{
    char dir[PATH_MAX], real[PATH_MAX];
    pg_path_dirname(dir, sizeof dir, path);
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if ((!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) && realpath(dir, real)) {
        base = strrchr(real, '/');
        base = base ? base + 1 : real;
    }
    snprintf(out, n, "%s", base);
}

/* ---- sections of task.json --------------------------------------------------------------- */

static pg_status parse_symbols(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *arr;
    pg_status st = get_array(root, ctx, "symbols", 1, PG_MAX_SYMBOLS, &arr, d);
    if (st != PG_OK)
        return st;
    pg_jctx ac = pg_jctx_member(ctx, "symbols");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        char *s = t->symbols[i];
        st = get_string_elem(arr, i, &ac, s, sizeof t->symbols[i], d);
        if (st != PG_OK)
            return st;
        if (!pg_is_identifier(s))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a symbol name ([A-Za-z_][A-Za-z0-9_]*), found '%s'", s);
        if (reserved_symbol(s))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "'%s' is %s; choose another symbol name", s, reserved_symbol(s));
        for (size_t j = 0; j < i; j++)
            if (strcmp(t->symbols[j], s) == 0)
                return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                                   "duplicate symbol '%s' (also symbols[%zu])", s, j);
        t->n_symbols = (int)i + 1;
    }
    t->n_free_symbols = t->n_symbols;
    return PG_OK;
}

/* "derived_symbols": {"KB": "ceil_div(K, 128)", ...}, appended to t->symbols. */
static pg_status parse_derived(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *obj = NULL;
    pg_status st = pg_jget_object(root, ctx, "derived_symbols", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx oc = pg_jctx_member(ctx, "derived_symbols");
    const char *names[PG_MAX_SYMBOLS];
    for (int i = 0; i < t->n_free_symbols; i++)
        names[i] = t->symbols[i];
    const char *key;
    json_t *v;
    char f[320], err[512];
    json_object_foreach(obj, key, v) {
        pg_jctx_field(&oc, key, f, sizeof f);
        if (!pg_is_identifier(key) || strlen(key) >= sizeof t->symbols[0])
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, f,
                               "expected a symbol name ([A-Za-z_][A-Za-z0-9_]*, at most 31 "
                               "characters), found '%s'", key);
        if (reserved_symbol(key))
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, f,
                               "'%s' is %s; choose another symbol name", key,
                               reserved_symbol(key));
        if (pg_task_find_symbol(t, key) >= 0)
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, f,
                               "'%s' is already a symbol; a derived symbol needs a new name", key);
        if (t->n_symbols >= PG_MAX_SYMBOLS)
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, f,
                               "more than %d symbols and derived symbols", PG_MAX_SYMBOLS);
        int k = t->n_symbols;
        st = pg_expr_from_json(obj, &oc, key, true, t->derived[k], sizeof t->derived[k], d);
        if (st != PG_OK)
            return st;
        if (pg_expr_check(t->derived[k], names, (size_t)t->n_free_symbols, err, sizeof err) !=
            PG_OK)
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, f,
                               "%s (a derived symbol's expression uses the symbols only, not "
                               "other derived symbols)", err);
        snprintf(t->symbols[k], sizeof t->symbols[k], "%s", key);
        t->n_symbols = k + 1;
    }
    return PG_OK;
}

/* Workload w's derived symbols from its free ones; each must be >= 1. */
static pg_status eval_derived(const pg_task *t, pg_workload *w, const pg_jctx *sc, pg_diag *d)
{
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    pg_task_symtab(t, w, names, &syms);
    syms.count = (size_t)t->n_free_symbols;
    char err[512];
    for (int i = t->n_free_symbols; i < t->n_symbols; i++) {
        int64_t v = 0;
        if (pg_expr_eval(t->derived[i], &syms, &v, err, sizeof err) != PG_OK)
            return pg_diag_set(d, PG_ERR_INPUT, sc->file, 0, sc->path,
                               "workload '%s': derived symbol %s = %s cannot be computed: %s",
                               w->name, t->symbols[i], t->derived[i], err);
        if (v < 1)
            return pg_diag_set(d, PG_ERR_INPUT, sc->file, 0, sc->path,
                               "workload '%s': derived symbol %s = %s is %" PRId64 "; it must be "
                               "at least 1", w->name, t->symbols[i], t->derived[i], v);
        w->values[i] = v;
    }
    return PG_OK;
}

static pg_status parse_tensor(pg_task *t, pg_tensor_spec *ts, const json_t *obj,
                              const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"name", "dims", "dtype", "layout", "role", NULL};
    char f[300], syms[512], buf[64];
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a tensor object, found %s", pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, ctx, "name", true, true, ts->name, sizeof ts->name, d);
    if (st != PG_OK)
        return st;
    if (!pg_is_identifier(ts->name))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "name", f, sizeof f),
                           "expected a tensor name ([A-Za-z_][A-Za-z0-9_]*), found '%s'", ts->name);
    /* A manifest's {"value": "X"} names a symbol: a tensor of that name would be confused */
    if (pg_task_find_symbol(t, ts->name) >= 0)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "name", f, sizeof f),
                           "tensor name '%s' is also a symbol of the task; choose another name",
                           ts->name);
    /* Tolerances are keyed by dtype or by output name: the two must never be confused. */
    if (pg_dtype_parse(ts->name) != PG_DTYPE_INVALID)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "name", f, sizeof f),
                           "tensor name '%s' is a dtype name (%s); tolerances are keyed by both, "
                           "so choose another name", ts->name, pg_dtype_accepted());
    json_t *dims;
    /* [] is a scalar (one element), e.g. the per-tensor scale of an fp8 GEMM */
    st = get_array(obj, ctx, "dims", 0, PG_MAX_DIMS, &dims, d);
    if (st != PG_OK)
        return st;
    pg_jctx dc = pg_jctx_member(ctx, "dims");
    symbol_list(t, t->n_symbols, syms, sizeof syms);
    for (size_t i = 0; i < json_array_size(dims); i++) {
        st = get_string_elem(dims, i, &dc, ts->dims[i], sizeof ts->dims[i], d);
        if (st != PG_OK)
            return st;
        if (pg_task_find_symbol(t, ts->dims[i]) < 0) {
            pg_jctx c = pg_jctx_index(&dc, i);
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "unknown symbol '%s'; dims must be task symbols (%s)", ts->dims[i],
                               syms);
        }
        ts->ndims = (int)i + 1;
    }
    st = pg_jget_string_copy(obj, ctx, "dtype", true, true, buf, sizeof buf, d);
    if (st != PG_OK)
        return st;
    ts->dtype = pg_dtype_parse(buf);
    if (ts->dtype == PG_DTYPE_INVALID)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "dtype", f, sizeof f),
                           "unknown dtype '%s'; accepted: %s", buf, pg_dtype_accepted());
    st = pg_jget_string_copy(obj, ctx, "layout", true, true, buf, sizeof buf, d);
    if (st != PG_OK)
        return st;
    bool gemm = t->op == PG_OP_GEMM;
    if (strcmp(buf, "col_major") == 0 && gemm) {
        if (ts->ndims < 2)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                               pg_jctx_field(ctx, "layout", f, sizeof f),
                               "layout col_major swaps the last two dims, and tensor '%s' has "
                               "%d dims; use row_major", ts->name, ts->ndims);
        /* dims were written in logical order: store them in storage order */
        char tmp[sizeof ts->dims[0]];
        memcpy(tmp, ts->dims[ts->ndims - 1], sizeof tmp);
        memcpy(ts->dims[ts->ndims - 1], ts->dims[ts->ndims - 2], sizeof tmp);
        memcpy(ts->dims[ts->ndims - 2], tmp, sizeof tmp);
        ts->col_major_declared = true;
    } else if (strcmp(buf, "row_major") != 0) {
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                           pg_jctx_field(ctx, "layout", f, sizeof f),
                           "unsupported layout '%s'; accepted: %s", buf,
                           gemm ? "row_major (dims in storage order, the last contiguous) or "
                                  "col_major (dims in logical order, the first of the last two "
                                  "contiguous)"
                                : strcmp(buf, "col_major") == 0
                                      ? "row_major (col_major is for gemm tasks only)"
                                      : "row_major");
    }
    st = pg_jget_string_copy(obj, ctx, "role", true, true, buf, sizeof buf, d);
    if (st != PG_OK)
        return st;
    if (strcmp(buf, "input") != 0 && strcmp(buf, "output") != 0)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "role", f, sizeof f),
                           "unknown role '%s'; accepted: input, output", buf);
    ts->is_output = strcmp(buf, "output") == 0;
    return PG_OK;
}

static pg_status parse_tensors(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *arr;
    pg_status st = get_array(root, ctx, "tensors", 1, PG_MAX_TENSORS, &arr, d);
    if (st != PG_OK)
        return st;
    pg_jctx ac = pg_jctx_member(ctx, "tensors");
    int outputs = 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        pg_tensor_spec *ts = &t->tensors[i];
        st = parse_tensor(t, ts, json_array_get(arr, i), &c, d);
        if (st != PG_OK)
            return st;
        int prev = pg_task_find_tensor(t, ts->name);
        if (prev >= 0) {
            char f[300];
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, "name", f, sizeof f),
                               "duplicate tensor name '%s' (also tensors[%d])", ts->name, prev);
        }
        outputs += ts->is_output;
        t->n_tensors = (int)i + 1;
    }
    if (outputs == 0)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, "tensors",
                           "expected at least one tensor with role \"output\"");
    return PG_OK;
}

/* Attention "parameters": softmax_scale (from PG_MHA_MIN_SCALE to PG_MHA_MAX_SCALE), lse_base
 * ("e" or "2") and lse_scores ("scaled" or "unscaled"), each optional (model/mha_problem.h).
 * An LSE convention needs an LSE tensor. */
static pg_status parse_mha_parameters(pg_task *t, const json_t *obj, const pg_jctx *c,
                                      pg_diag *d)
{
    static const char *const keys[] = {"softmax_scale", "lse_base", "lse_scores", NULL};
    char f[300];
    pg_status st = pg_jcheck_keys(obj, c, keys, d);
    if (st == PG_OK)
        st = pg_jget_number(obj, c, "softmax_scale", false, &t->softmax_scale, d);
    if (st != PG_OK)
        return st;
    if (json_object_get(obj, "softmax_scale") &&
        !(t->softmax_scale >= PG_MHA_MIN_SCALE && t->softmax_scale <= PG_MHA_MAX_SCALE))
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0,
                           pg_jctx_field(c, "softmax_scale", f, sizeof f),
                           "expected a finite number > 0 from %g to %g, found %g: the scores "
                           "scale·q·k, their exponentials and an LSE of unscaled scores (LSE / "
                           "scale) must stay finite and normal in fp32",
                           PG_MHA_MIN_SCALE, PG_MHA_MAX_SCALE, t->softmax_scale);
    static const struct {
        const char *key, *plain, *other;
    } words[] = {{"lse_base", "e", "2"}, {"lse_scores", "scaled", "unscaled"}};
    for (int i = 0; i < 2; i++) {
        char v[32] = "";
        st = pg_jget_string_copy(obj, c, words[i].key, false, true, v, sizeof v, d);
        if (st != PG_OK)
            return st;
        if (!v[0])
            continue;
        pg_jctx_field(c, words[i].key, f, sizeof f);
        if (strcmp(v, words[i].plain) != 0 && strcmp(v, words[i].other) != 0)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, f,
                               "unsupported value '%s'; accepted: \"%s\" (default), \"%s\"", v,
                               words[i].plain, words[i].other);
        if (pg_task_find_tensor(t, "LSE") < 0)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, f,
                               "an LSE convention needs an LSE tensor, and the task has none%s",
                               t->op == PG_OP_MHA_BWD
                                   ? " (mha_bwd requires one: the input LSE [B,H,S_q], fp32)"
                                   : "");
        bool set = strcmp(v, words[i].other) == 0;
        if (i == 0)
            t->lse_log2 = set;
        else
            t->lse_unscaled = set;
    }
    return PG_OK;
}

/* gemm "parameters": {"alpha": number, "beta": number}, each optional. The scale type of the
 * GEMM is fp32 (model/gemm_problem.h), so each must be finite and within the fp32 range. */
static pg_status parse_gemm_parameters(pg_task *t, const json_t *obj, const pg_jctx *c,
                                       pg_diag *d)
{
    static const char *const keys[] = {"alpha", "beta", NULL};
    char f[300];
    pg_status st = pg_jcheck_keys(obj, c, keys, d);
    for (int k = 0; k < 2 && st == PG_OK; k++) {
        double *dst = k == 0 ? &t->alpha : &t->beta;
        st = pg_jget_number(obj, c, keys[k], false, dst, d);
        if (st == PG_OK && !(isfinite(*dst) && fabs(*dst) <= (double)FLT_MAX))
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, keys[k], f, sizeof f),
                               "expected a finite number within the fp32 range (the GEMM's "
                               "scale type is fp32), found %g", *dst);
        if (st == PG_OK && k == 0 && *dst == 0.0)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, keys[k], f, sizeof f),
                               "alpha 0 makes D = beta·C: A and B would never be tested");
        /* beta != 0 decides that C is read; a value the fp32 GEMM sees as 0 would contradict it */
        if (st == PG_OK && *dst != 0.0 && (float)*dst == 0.0f)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, keys[k], f, sizeof f),
                               "%g rounds to 0 in fp32 (the GEMM's scale type): use 0, or a "
                               "magnitude of at least %g", *dst, (double)FLT_TRUE_MIN);
    }
    return st;
}

/* "parameters" (optional): the operation's (gemm: alpha, beta; attention: softmax scale and
 * LSE convention). */
static pg_status parse_parameters(pg_task *t, const json_t *root, const pg_jctx *ctx,
                                  pg_diag *d)
{
    json_t *obj = NULL;
    pg_status st = pg_jget_object(root, ctx, "parameters", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx c = pg_jctx_member(ctx, "parameters");
    return t->op == PG_OP_GEMM ? parse_gemm_parameters(t, obj, &c, d)
                               : parse_mha_parameters(t, obj, &c, d);
}

/* Name or alias at field f of workload wi; unique among all earlier names and aliases. */
static pg_status check_workload_name(const pg_task *t, int wi, const char *name, const char *f,
                                     pg_diag *d)
{
    if (!is_plain_name(name))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "expected a workload name made of [A-Za-z0-9_.-] not starting with "
                           "'.', found '%s'", name);
    for (int j = 0; j <= wi; j++) {
        const pg_workload *w = &t->workloads[j];
        /* name may be workload wi's own name (then skip it) or one of its aliases */
        if (w->name != name && strcmp(w->name, name) == 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "duplicate workload name '%s' (also workloads[%d].name)", name, j);
        for (int a = 0; a < w->n_aliases; a++)
            if (strcmp(w->aliases[a], name) == 0)
                return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                                   "duplicate workload name '%s' (also workloads[%d].aliases[%d])",
                                   name, j, a);
    }
    return PG_OK;
}

static pg_status parse_workload(pg_task *t, int wi, const json_t *obj, const pg_jctx *ctx,
                                pg_diag *d)
{
    static const char *const keys[] = {"name", "aliases", "selections", "symbols", "required",
                                       NULL};
    pg_workload *w = &t->workloads[wi];
    char f[300], syms[512];
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a workload object, found %s", pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, ctx, "name", true, true, w->name, sizeof w->name, d);
    if (st == PG_OK)
        st = check_workload_name(t, wi, w->name, pg_jctx_field(ctx, "name", f, sizeof f), d);
    if (st != PG_OK)
        return st;
    st = pg_jget_bool(obj, ctx, "required", false, &w->required, d);
    if (st != PG_OK)
        return st;
    json_t *aliases = NULL;
    pg_jctx ac;
    st = get_short_array(obj, ctx, "aliases", PG_MAX_ALIASES, &aliases, &ac, d);
    if (st != PG_OK)
        return st;
    if (aliases) {
        for (size_t a = 0; a < json_array_size(aliases); a++) {
            pg_jctx c = pg_jctx_index(&ac, a);
            st = get_string_elem(aliases, a, &ac, w->aliases[a], sizeof w->aliases[a], d);
            if (st == PG_OK)
                st = check_workload_name(t, wi, w->aliases[a], c.path, d);
            if (st != PG_OK)
                return st;
            w->n_aliases = (int)a + 1;
        }
    }
    json_t *sel = NULL;
    pg_jctx selc;
    st = get_short_array(obj, ctx, "selections", PG_MAX_SELECTIONS, &sel, &selc, d);
    if (st != PG_OK)
        return st;
    if (sel) {
        for (size_t a = 0; a < json_array_size(sel); a++) {
            pg_jctx c = pg_jctx_index(&selc, a);
            st = get_string_elem(sel, a, &selc, w->selections[a], sizeof w->selections[a], d);
            if (st != PG_OK)
                return st;
            if (!is_plain_name(w->selections[a]))
                return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                                   "expected a selection name made of [A-Za-z0-9_.-] not "
                                   "starting with '.', found '%s'", w->selections[a]);
            for (size_t b = 0; b < a; b++)
                if (strcmp(w->selections[b], w->selections[a]) == 0)
                    return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                                       "duplicate selection '%s'", w->selections[a]);
            w->n_selections = (int)a + 1;
        }
    }
    json_t *so;
    st = pg_jget_object(obj, ctx, "symbols", true, &so, d);
    if (st != PG_OK)
        return st;
    pg_jctx sc = pg_jctx_member(ctx, "symbols");
    symbol_list(t, t->n_free_symbols, syms, sizeof syms);
    const char *key;
    json_t *v;
    json_object_foreach(so, key, v) {
        int k = pg_task_find_symbol(t, key);
        if (k < 0)
            return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, pg_jctx_field(&sc, key, f, sizeof f),
                               "unknown symbol; the task's symbols are %s", syms);
        if (k >= t->n_free_symbols)
            return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, pg_jctx_field(&sc, key, f, sizeof f),
                               "'%s' is a derived symbol (%s), computed for every workload; "
                               "bind only %s", key, t->derived[k], syms);
    }
    for (int i = 0; i < t->n_free_symbols; i++) {
        pg_jctx_field(&sc, t->symbols[i], f, sizeof f);
        v = json_object_get(so, t->symbols[i]);
        if (!v)
            return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, f,
                               "symbol '%s' is not bound; a workload binds every task symbol (%s)",
                               t->symbols[i], syms);
        if (!json_is_integer(v) || json_integer_value(v) <= 0) {
            if (json_is_integer(v))
                return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, f,
                                   "expected a positive integer, found %" JSON_INTEGER_FORMAT,
                                   json_integer_value(v));
            return pg_diag_set(d, PG_ERR_INPUT, sc.file, 0, f,
                               "expected a positive integer, found %s", pg_json_type_name(v));
        }
        w->values[i] = (int64_t)json_integer_value(v);
    }
    return eval_derived(t, w, &sc, d);
}

static pg_status parse_workloads(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *arr;
    pg_status st = get_array(root, ctx, "workloads", 1, PG_MAX_WORKLOADS, &arr, d);
    if (st != PG_OK)
        return st;
    t->workloads = calloc(json_array_size(arr), sizeof *t->workloads);
    if (!t->workloads)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_jctx ac = pg_jctx_member(ctx, "workloads");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        st = parse_workload(t, (int)i, json_array_get(arr, i), &c, d);
        if (st == PG_OK)
            st = pg_task_check_workload_op(t, (int)i, d);
        /* every tensor's size fits (64-bit element count, at most 2^40 bytes) */
        for (int k = 0; k < t->n_tensors && st == PG_OK; k++) {
            uint64_t elements;
            st = pg_task_tensor_elements(t, k, &t->workloads[i], &elements, d);
        }
        if (st != PG_OK)
            return st;
        t->n_workloads = (int)i + 1;
    }
    return PG_OK;
}

/* The tolerance for `key` of "tolerances": an output tensor's name or a dtype name. */
static pg_status tolerance_key(pg_task *t, const char *key, const pg_jctx *c, pg_diag *d)
{
    int ti = pg_task_find_tensor(t, key);
    int slot = t->n_tolerances;
    if (ti >= 0) {
        if (!t->tensors[ti].is_output)
            return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, c->path,
                               "tensor '%s' is an input; tolerances apply to outputs", key);
        snprintf(t->tolerances[slot].tensor, sizeof t->tolerances[slot].tensor, "%s", key);
        t->tolerances[slot].dtype = t->tensors[ti].dtype;
        return PG_OK;
    }
    pg_dtype dt = pg_dtype_parse(key);
    if (dt == PG_DTYPE_INVALID) {
        char outs[512] = "";
        size_t used = 0;
        for (int i = 0; i < t->n_tensors && used < sizeof outs; i++)
            if (t->tensors[i].is_output)
                used += (size_t)snprintf(outs + used, sizeof outs - used, "%s%s",
                                         used ? ", " : "", t->tensors[i].name);
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, c->path,
                           "unknown key '%s'; expected a dtype (%s) or an output tensor (%s)",
                           key, pg_dtype_accepted(), outs);
    }
    t->tolerances[slot].tensor[0] = '\0';
    t->tolerances[slot].dtype = dt;
    return PG_OK;
}

static pg_status parse_tolerances(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"atol", "rtol", "max_rel_l2", NULL};
    json_t *obj;
    pg_status st = pg_jget_object(root, ctx, "tolerances", true, &obj, d);
    if (st != PG_OK)
        return st;
    pg_jctx oc = pg_jctx_member(ctx, "tolerances");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        pg_jctx c = pg_jctx_member(&oc, key);
        if (t->n_tolerances >= PG_MAX_TOLERANCES)
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "at most %d tolerances are accepted", PG_MAX_TOLERANCES);
        st = tolerance_key(t, key, &c, d);
        if (st != PG_OK)
            return st;
        if (!json_is_object(v))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a tolerance object, found %s", pg_json_type_name(v));
        pg_tolerance *tol = &t->tolerances[t->n_tolerances].tol;
        st = pg_jcheck_keys(v, &c, keys, d);
        if (st == PG_OK)
            st = get_limit(v, &c, "atol", false, &tol->atol, d);
        if (st == PG_OK)
            st = get_limit(v, &c, "rtol", false, &tol->rtol, d);
        if (st == PG_OK)
            st = get_limit(v, &c, "max_rel_l2", false, &tol->max_rel_l2, d);
        if (st != PG_OK)
            return st;
        t->n_tolerances++;
    }
    for (int i = 0; i < t->n_tensors; i++)
        if (t->tensors[i].is_output && !pg_task_output_tolerance(t, i))
            return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, oc.path,
                               "no tolerance for dtype '%s' of output tensor '%s' (key it by the "
                               "dtype or by the tensor's name)",
                               pg_dtype_name(t->tensors[i].dtype), t->tensors[i].name);
    /* a dtype key no output has would judge nothing: a typo or a wrong assumption */
    for (int k = 0; k < t->n_tolerances; k++) {
        if (t->tolerances[k].tensor[0])
            continue;
        bool used = false;
        for (int i = 0; i < t->n_tensors && !used; i++)
            used = t->tensors[i].is_output && t->tensors[i].dtype == t->tolerances[k].dtype;
        if (!used) {
            pg_jctx c = pg_jctx_member(&oc, pg_dtype_name(t->tolerances[k].dtype));
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "no output tensor is %s, so this tolerance would judge nothing "
                               "(tolerances apply to outputs: key them by an output's dtype or "
                               "name)", pg_dtype_name(t->tolerances[k].dtype));
        }
    }
    return PG_OK;
}

static pg_status parse_targets(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"ptx", "sass", NULL};
    static const char *const lists[] = {"ptx", "sass"};
    json_t *obj;
    pg_status st = pg_jget_object(root, ctx, "targets", true, &obj, d);
    if (st != PG_OK)
        return st;
    pg_jctx oc = pg_jctx_member(ctx, "targets");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        pg_jctx c = pg_jctx_member(&oc, key);
        if (!pg_arch_name_valid(key))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected an architecture name like sm_90 or sm_90a, found '%s'",
                               key);
        if (!json_is_object(v))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a target set object {\"ptx\": [...], \"sass\": [...]}, "
                               "found %s", pg_json_type_name(v));
        st = pg_jcheck_keys(v, &c, keys, d);
        if (st != PG_OK)
            return st;
        for (int l = 0; l < 2; l++) {
            json_t *arr = NULL;
            st = pg_jget_array(v, &c, lists[l], l == 0, &arr, d); /* "sass" is optional */
            if (st != PG_OK)
                return st;
            pg_jctx lc = pg_jctx_member(&c, lists[l]);
            for (size_t i = 0; i < json_array_size(arr); i++) {
                char s[256];
                st = get_string_elem(arr, i, &lc, s, sizeof s, d);
                if (st != PG_OK)
                    return st;
            }
        }
    }
    t->targets = json_incref(obj);
    return PG_OK;
}

static pg_status parse_baseline(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"library", "compute", "max_candidates", "optional", NULL};
    json_t *obj;
    char f[300];
    pg_status st = pg_jget_object(root, ctx, "baseline", true, &obj, d);
    if (st != PG_OK)
        return st;
    pg_jctx c = pg_jctx_member(ctx, "baseline");
    st = pg_jcheck_keys(obj, &c, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, &c, "library", true, true, t->baseline_library,
                        sizeof t->baseline_library, d);
    if (st != PG_OK)
        return st;
    const char *want = pg_operation_baseline(t->op);
    if (strcmp(t->baseline_library, want) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, "library", f, sizeof f),
                           "unsupported library '%s' for operation %s; accepted: %s",
                           t->baseline_library, t->operation, want);
    st = pg_jget_string_copy(obj, &c, "compute", true, true, t->baseline_compute,
                    sizeof t->baseline_compute, d);
    if (st != PG_OK)
        return st;
    pg_jctx_field(&c, "compute", f, sizeof f);
    bool gemm = t->op == PG_OP_GEMM;
    if (strcmp(t->baseline_compute, "fp32") != 0 &&
        !(gemm && strcmp(t->baseline_compute, "tf32") == 0))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, f,
                           "unsupported compute type '%s'; accepted: %s", t->baseline_compute,
                           gemm ? "fp32, or tf32 when A and B are fp32" : "fp32");
    if (gemm && strcmp(t->baseline_compute, "tf32") == 0) {
        /* the contract (task_ops.h) has made sure A and B exist and share one dtype */
        pg_dtype ab = t->tensors[pg_task_find_tensor(t, "A")].dtype;
        if (ab != PG_DTYPE_FP32)
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, f,
                               "compute tf32 rounds fp32 inputs to tf32, so it needs fp32 A and "
                               "B; A and B are %s (use \"fp32\", the only compute type for %s "
                               "inputs)", pg_dtype_name(ab), pg_dtype_name(ab));
    }
    int64_t mc = 16;
    st = pg_jget_int(obj, &c, "max_candidates", false, &mc, d);
    if (st != PG_OK)
        return st;
    if (mc < 1 || mc > 64)
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                           pg_jctx_field(&c, "max_candidates", f, sizeof f),
                           "expected an integer from 1 to 64, found %" PRId64, mc);
    t->baseline_max_candidates = (int)mc;
    return pg_jget_bool(obj, &c, "optional", false, &t->baseline_optional, d);
}

/* An optional policy string: "fail" sets *fails, the other allowed word clears it. */
static pg_status get_policy(const json_t *obj, const pg_jctx *c, const char *key,
                            const char *other, bool *fails, pg_diag *d)
{
    const char *v = NULL;
    pg_status st = pg_jget_string(obj, c, key, false, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (strcmp(v, "fail") != 0 && strcmp(v, other) != 0) {
        char f[300];
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, pg_jctx_field(c, key, f, sizeof f),
                           "expected \"fail\" or \"%s\", found \"%s\"", other, v);
    }
    *fails = strcmp(v, "fail") == 0;
    return PG_OK;
}

static pg_status parse_gate(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"min_speedup",    "timing_mode",  "accepted_kernel",
                                       "regression_tolerance", "instructions",
                                       "nondeterminism", "sanitizer",    NULL};
    json_t *obj;
    char f[300];
    pg_status st = pg_jget_object(root, ctx, "gate", true, &obj, d);
    if (st != PG_OK)
        return st;
    pg_jctx c = pg_jctx_member(ctx, "gate");
    t->nondeterminism_fails = false;
    t->sanitizer_fails = true;
    st = pg_jcheck_keys(obj, &c, keys, d);
    if (st == PG_OK)
        st = get_limit(obj, &c, "min_speedup", true, &t->min_speedup, d);
    snprintf(t->timing_mode, sizeof t->timing_mode, "cold");
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, &c, "timing_mode", false, true, t->timing_mode,
                                 sizeof t->timing_mode, d);
    if (st == PG_OK && !pg_timing_mode_valid(t->timing_mode))
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                           pg_jctx_field(&c, "timing_mode", f, sizeof f),
                           "expected \"cold\" or \"sustained\", found '%s'", t->timing_mode);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, &c, "accepted_kernel", false, true, t->accepted_kernel,
                                 sizeof t->accepted_kernel, d);
    if (st == PG_OK && t->accepted_kernel[0] == '/')
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                           pg_jctx_field(&c, "accepted_kernel", f, sizeof f),
                           "expected a manifest path relative to the task's folder, found '%s'",
                           t->accepted_kernel);
    json_t *rt = json_object_get(obj, "regression_tolerance");
    if (st == PG_OK && rt) {
        st = get_limit(obj, &c, "regression_tolerance", true, &t->regression_tolerance, d);
        if (st == PG_OK && !(t->regression_tolerance < 1.0))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0,
                               pg_jctx_field(&c, "regression_tolerance", f, sizeof f),
                               "expected a fraction in (0, 1), e.g. 0.01 for 1 %%, found %g",
                               t->regression_tolerance);
    }
    snprintf(t->instructions, sizeof t->instructions, "require");
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, &c, "instructions", false, true, t->instructions,
                                 sizeof t->instructions, d);
    if (st == PG_OK && strcmp(t->instructions, "require") != 0 &&
        strcmp(t->instructions, "warn") != 0 && strcmp(t->instructions, "off") != 0)
        st = pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, "instructions", f, sizeof f),
                         "unknown policy '%s'; accepted: require, warn, off", t->instructions);
    if (st == PG_OK)
        st = get_policy(obj, &c, "nondeterminism", "warn", &t->nondeterminism_fails, d);
    if (st == PG_OK)
        st = get_policy(obj, &c, "sanitizer", "warn", &t->sanitizer_fails, d);
    return st;
}

bool pg_timing_mode_valid(const char *mode)
{
    return mode && (strcmp(mode, "cold") == 0 || strcmp(mode, "sustained") == 0);
}

static pg_status parse_header(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    int64_t version = 0;
    char folder[PATH_MAX];
    pg_status st = pg_jget_int(root, ctx, "schema_version", true, &version, d);
    if (st != PG_OK)
        return st;
    if (version != 1)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "schema_version",
                           "unsupported schema_version %" PRId64 "; accepted: 1", version);
    st = pg_jget_string_copy(root, ctx, "id", true, true, t->id, sizeof t->id, d);
    if (st != PG_OK)
        return st;
    folder_name(t->file, folder, sizeof folder);
    if (strcmp(folder, t->id) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "id",
                           "id '%s' must equal the name of the task's folder ('%s')", t->id,
                           folder);
    st = pg_jget_string_copy(root, ctx, "description", false, false, t->description,
                    sizeof t->description, d);
    if (st != PG_OK)
        return st;
    if (strpbrk(t->description, "\r\n"))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "description",
                           "expected one line, found a line break");
    st = pg_jget_string_copy(root, ctx, "operation", true, true, t->operation, sizeof t->operation, d);
    if (st != PG_OK)
        return st;
    if (!pg_operation_parse(t->operation, &t->op))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "operation",
                           "unsupported operation '%s'; accepted: %s", t->operation,
                           pg_operation_accepted());
    st = pg_jget_bool(root, ctx, "causal", false, &t->causal, d);
    if (st != PG_OK)
        return st;
    if (json_object_get(root, "causal") && !pg_operation_is_attention(t->op))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "causal",
                           "causal applies to the attention operations (mha_fwd, mha_bwd), not "
                           "to %s", t->operation);
    st = pg_jget_string_copy(root, ctx, "default_arch", true, true, t->default_arch,
                    sizeof t->default_arch, d);
    if (st != PG_OK)
        return st;
    if (!pg_arch_name_valid(t->default_arch))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "default_arch",
                           "expected an architecture name like sm_90 or sm_90a, found '%s'",
                           t->default_arch);
    return PG_OK;
}

/* "flops" (required) and "coverage_flops" (optional): expressions over the task's symbols. */
static pg_status parse_flops(pg_task *t, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    const char *names[PG_MAX_SYMBOLS];
    char err[1024];
    for (int i = 0; i < t->n_symbols; i++)
        names[i] = t->symbols[i];
    static const char *const keys[] = {"flops", "coverage_flops"};
    for (int k = 0; k < 2; k++) {
        char *dst = k == 0 ? t->flops : t->coverage_flops;
        size_t n = k == 0 ? sizeof t->flops : sizeof t->coverage_flops;
        pg_status st = pg_expr_from_json(root, ctx, keys[k], k == 0, dst, n, d);
        if (st != PG_OK)
            return st;
        if (dst[0] && pg_expr_check(dst, names, (size_t)t->n_symbols, err, sizeof err) != PG_OK)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, keys[k], "%s", err);
    }
    return PG_OK;
}

/* ---- public ------------------------------------------------------------------------------ */

pg_status pg_task_load_file(const char *path, pg_task **out, pg_diag *d)
{
    static const char *const keys[] = {
        "schema_version", "id",         "description", "operation", "causal",
        "symbols",        "derived_symbols", "tensors", "parameters",  "flops",  "coverage_flops",
        "workloads",      "tolerances", "targets",     "baseline",  "gate",
        "default_arch",   NULL};
    json_t *root = NULL;
    pg_task *t = NULL;
    pg_jctx ctx = {.file = path, .path = ""};
    *out = NULL;
    pg_status st;
    t = pg_json_load_new(path, &root, sizeof *t, &st, d);
    if (!t)
        goto done;
    snprintf(t->file, sizeof t->file, "%s", path);
    t->alpha = 1.0;
    t->beta = 0.0;
    st = pg_jcheck_keys(root, &ctx, keys, d);
    if (st == PG_OK)
        st = parse_header(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_symbols(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_derived(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_tensors(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_parameters(t, root, &ctx, d);
    if (st == PG_OK)
        st = pg_task_check_operation(t, d);
    if (st == PG_OK)
        st = parse_flops(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_workloads(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_tolerances(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_targets(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_baseline(t, root, &ctx, d);
    if (st == PG_OK)
        st = parse_gate(t, root, &ctx, d);
done:
    json_decref(root);
    if (st != PG_OK) {
        pg_task_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

/* "unknown task" error listing the folders of tasks_dir that hold a task.json. */
static pg_status unknown_task(const char *tasks_dir, const char *task_id, pg_diag *d)
{
    enum { MAX_LISTED = 256 };
    char *names[MAX_LISTED];
    size_t n = 0;
    char list[1536] = "";
    pg_status st;
    DIR *dir = opendir(tasks_dir);
    if (!dir)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "task",
                           "unknown task '%s': the tasks folder '%s' cannot be read (%s)", task_id,
                           tasks_dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(dir)) && n < MAX_LISTED) {
        char sub[PATH_MAX], file[PATH_MAX];
        struct stat sb;
        if (e->d_name[0] == '.')
            continue;
        pg_path_join(sub, sizeof sub, tasks_dir, e->d_name);
        pg_path_join(file, sizeof file, sub, "task.json");
        if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(dir);
    pg_names_join(names, n, list, sizeof list);
    if (n == 0)
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "task",
                         "unknown task '%s' (no task.json found in the folders of '%s')", task_id,
                         tasks_dir);
    else
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "task", "unknown task '%s' (known: %s)",
                         task_id, list);
    return st;
}

pg_status pg_task_load(const char *tasks_dir, const char *task_id, pg_task **out, pg_diag *d)
{
    char sub[PATH_MAX], path[PATH_MAX];
    struct stat sb;
    *out = NULL;
    if (!is_plain_name(task_id) || strlen(task_id) >= sizeof ((pg_task *)0)->id)
        return unknown_task(tasks_dir, task_id, d);
    pg_path_join(sub, sizeof sub, tasks_dir, task_id);
    pg_path_join(path, sizeof path, sub, "task.json");
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return unknown_task(tasks_dir, task_id, d);
    return pg_task_load_file(path, out, d);
}

void pg_task_free(pg_task *t)
{
    if (!t)
        return;
    free(t->workloads);
    json_decref(t->targets);
    free(t);
}

const pg_tolerance *pg_task_tolerance(const pg_task *t, pg_dtype dtype)
{
    for (int i = 0; i < t->n_tolerances; i++)
        if (!t->tolerances[i].tensor[0] && t->tolerances[i].dtype == dtype)
            return &t->tolerances[i].tol;
    return NULL;
}

const pg_tolerance *pg_task_output_tolerance(const pg_task *t, int tensor)
{
    if (tensor < 0 || tensor >= t->n_tensors)
        return NULL;
    for (int i = 0; i < t->n_tolerances; i++)
        if (strcmp(t->tolerances[i].tensor, t->tensors[tensor].name) == 0)
            return &t->tolerances[i].tol;
    return pg_task_tolerance(t, t->tensors[tensor].dtype);
}

int pg_task_find_tensor(const pg_task *t, const char *name)
{
    for (int i = 0; i < t->n_tensors; i++)
        if (strcmp(t->tensors[i].name, name) == 0)
            return i;
    return -1;
}

int pg_task_find_workload(const pg_task *t, const char *name_or_alias)
{
    for (int i = 0; i < t->n_workloads; i++) {
        if (strcmp(t->workloads[i].name, name_or_alias) == 0)
            return i;
        for (int a = 0; a < t->workloads[i].n_aliases; a++)
            if (strcmp(t->workloads[i].aliases[a], name_or_alias) == 0)
                return i;
    }
    return -1;
}

int pg_task_find_symbol(const pg_task *t, const char *name)
{
    for (int i = 0; i < t->n_symbols; i++)
        if (strcmp(t->symbols[i], name) == 0)
            return i;
    return -1;
}

void pg_task_symtab(const pg_task *t, const pg_workload *w, const char **names_storage,
                    pg_symtab *out)
{
    for (int i = 0; i < t->n_symbols; i++)
        names_storage[i] = t->symbols[i];
    out->names = names_storage;
    out->values = w->values;
    out->count = (size_t)t->n_symbols;
    out->clusters = NULL;
    out->clusters_ctx = NULL;
}

pg_status pg_task_tensor_elements(const pg_task *t, int tensor, const pg_workload *w,
                                  uint64_t *out, pg_diag *d)
{
    char f[64];
    if (tensor < 0 || tensor >= t->n_tensors)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors",
                           "no tensor with index %d (the task has %d)", tensor, t->n_tensors);
    const pg_tensor_spec *ts = &t->tensors[tensor];
    snprintf(f, sizeof f, "tensors[%d].dims", tensor);
    uint64_t n = 1;
    for (int i = 0; i < ts->ndims; i++) {
        int s = pg_task_find_symbol(t, ts->dims[i]);
        if (s < 0 || w->values[s] <= 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "symbol '%s' has no positive value in workload '%s'", ts->dims[i],
                               w->name);
        if (__builtin_mul_overflow(n, (uint64_t)w->values[s], &n))
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "element count of tensor '%s' for workload '%s' overflows 64 bits",
                               ts->name, w->name);
    }
    /* The same bound as a workspace's (plan.h): no GPU holds a tensor of more than 1 TiB. */
    uint64_t size = (uint64_t)pg_dtype_size(ts->dtype);
    if (size && n > (uint64_t)PG_MAX_TENSOR_BYTES / size)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "tensor '%s' for workload '%s' holds %" PRIu64 " elements of %s, more "
                           "than 2^40 bytes (1 TiB, above any GPU's memory)",
                           ts->name, w->name, n, pg_dtype_name(ts->dtype));
    *out = n;
    return PG_OK;
}
