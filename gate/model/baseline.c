/* Stored baselines: the model, its strict loader and its deterministic writer (see baseline.h). */
#include "baseline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/fileio.h"
#include "../base/jsonget.h"

/* ---- small helpers ---- */

static pg_status bad(const pg_jctx *ctx, const char *key, pg_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* PG_ERR_INPUT at ctx's file, field ctx.key (or ctx itself when key is NULL). */
static pg_status bad(const pg_jctx *ctx, const char *key, pg_diag *d, const char *fmt, ...)
{
    char f[512], msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                       key ? pg_jctx_field(ctx, key, f, sizeof f) : ctx->path, "%s", msg);
}

/* A plain file or folder name: [A-Za-z0-9_.-]+, not "." or "..". */
static bool plain_name(const char *s)
{
    if (!s || !s[0] || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '.' || *p == '-'))
            return false;
    return true;
}

/* A relative path without empty components (informative: baselines never open these paths;
 * the check hashes the files the run itself uses). */
static bool relative_path(const char *s)
{
    if (!s || !s[0] || s[0] == '/' || strstr(s, "//"))
        return false;
    return s[strlen(s) - 1] != '/';
}

static pg_status get_int_min(const json_t *o, const pg_jctx *c, const char *key, int64_t lo,
                             int64_t *out, pg_diag *d)
{
    pg_status st = pg_jget_int(o, c, key, true, out, d);
    if (st == PG_OK && *out < lo)
        return bad(c, key, d, "expected an integer >= %lld, got %lld", (long long)lo,
                   (long long)*out);
    return st;
}

static pg_status get_int32_min(const json_t *o, const pg_jctx *c, const char *key, int lo,
                               int *out, pg_diag *d)
{
    int64_t v = 0;
    pg_status st = get_int_min(o, c, key, lo, &v, d);
    if (st == PG_OK && v > INT32_MAX)
        return bad(c, key, d, "expected an integer below 2^31");
    *out = (int)v;
    return st;
}

/* Times (ms) and ratios: positive, and below 1e12 so that the writer's rounding (to 1e-6) stays
 * a finite number (a file read must write back). */
static pg_status get_positive(const json_t *o, const pg_jctx *c, const char *key, double *out,
                              pg_diag *d)
{
    pg_status st = pg_jget_number(o, c, key, true, out, d);
    if (st == PG_OK && !(isfinite(*out) && *out > 0 && *out < 1e12))
        return bad(c, key, d, "expected a positive number below 1e12");
    return st;
}

/* {median, low, high} positive with low <= median <= high. */
static pg_status get_interval(const json_t *o, const pg_jctx *c, const char *const keys[3],
                              double out[3], pg_diag *d)
{
    pg_status st = PG_OK;
    for (int i = 0; st == PG_OK && i < 3; i++)
        st = get_positive(o, c, keys[i], &out[i], d);
    if (st == PG_OK && !(out[1] <= out[0] && out[0] <= out[2])) {
        return bad(c, keys[0], d, "expected %s <= %s <= %s, got %g, %g, %g", keys[1], keys[0],
                   keys[2], out[1], out[0], out[2]);
    }
    return st;
}

static int cmp_workload(const void *a, const void *b)
{
    return strcmp(((const pg_baseline_workload *)a)->name, ((const pg_baseline_workload *)b)->name);
}

/* ---- lifetime ---- */

pg_status pg_baseline_new(const char *task, const char *gpu_key, pg_baseline **out, pg_diag *d)
{
    *out = NULL;
    if (!plain_name(task) || strlen(task) >= sizeof((pg_baseline *)0)->task)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "task",
                           "'%s' is not a plain task id ([A-Za-z0-9_.-])", task ? task : "");
    if (!pg_gpu_key_valid(gpu_key))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "gpu_key",
                           "'%s' is not a GPU key (1-63 characters of [a-z0-9._-], starting with "
                           "a letter or digit)",
                           gpu_key ? gpu_key : "");
    pg_baseline *b = calloc(1, sizeof *b);
    if (!b)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    snprintf(b->task, sizeof b->task, "%s", task);
    snprintf(b->gpu_key, sizeof b->gpu_key, "%s", gpu_key);
    pg_fingerprint_init(&b->env);
    *out = b;
    return PG_OK;
}

void pg_baseline_free(pg_baseline *b)
{
    if (!b)
        return;
    free(b->workloads);
    free(b);
}

char *pg_baseline_path(char *out, size_t n, const char *dir, const char *gpu_key,
                       const char *task)
{
    snprintf(out, n, "%s%s%s/%s.json", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
             gpu_key, task);
    return out;
}

pg_status pg_baseline_exists(const char *path, bool *exists, pg_diag *d)
{
    struct stat st;
    *exists = false;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                               "expected a stored baseline (a JSON file), found %s",
                               S_ISDIR(st.st_mode) ? "a folder" : "something that is not a file");
        *exists = true;
        return PG_OK;
    }
    int e = errno;
    if (e == ENOENT) {
        if (lstat(path, &st) == 0)
            return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                               "is a symbolic link to nothing; expected a stored baseline");
        return PG_OK;
    }
    if (e == ENOTDIR) {
        char dir[4096];
        return pg_diag_set(d, PG_ERR_INPUT, pg_path_dirname(dir, sizeof dir, path), 0, NULL,
                           "is not a folder; expected the folder of the GPU key's stored "
                           "baselines");
    }
    return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot read the stored baseline: %s",
                       strerror(e));
}

const pg_baseline_workload *pg_baseline_find(const pg_baseline *b, const char *name)
{
    for (int i = 0; i < b->n_workloads; i++)
        if (strcmp(b->workloads[i].name, name) == 0)
            return &b->workloads[i];
    return NULL;
}

pg_status pg_baseline_put(pg_baseline *b, const pg_baseline_workload *w, pg_diag *d)
{
    for (int i = 0; i < b->n_workloads; i++)
        if (strcmp(b->workloads[i].name, w->name) == 0) {
            b->workloads[i] = *w;
            return PG_OK;
        }
    pg_baseline_workload *grown =
        realloc(b->workloads, (size_t)(b->n_workloads + 1) * sizeof *grown);
    if (!grown)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    b->workloads = grown;
    b->workloads[b->n_workloads++] = *w;
    qsort(b->workloads, (size_t)b->n_workloads, sizeof *b->workloads, cmp_workload);
    return PG_OK;
}

void pg_baseline_remove(pg_baseline *b, const char *name)
{
    for (int i = 0; i < b->n_workloads; i++)
        if (strcmp(b->workloads[i].name, name) == 0) {
            memmove(&b->workloads[i], &b->workloads[i + 1],
                    (size_t)(b->n_workloads - i - 1) * sizeof *b->workloads);
            b->n_workloads--;
            return;
        }
}

/* ---- problem sizes ---- */

/* The symbols by name, values following (insertion sort: at most PG_MAX_SYMBOLS). */
static void sort_symbols(pg_baseline_workload *w)
{
    for (int i = 1; i < w->n_symbols; i++)
        for (int j = i; j > 0 && strcmp(w->symbol_names[j - 1], w->symbol_names[j]) > 0; j--) {
            char tmp[sizeof w->symbol_names[0]];
            memcpy(tmp, w->symbol_names[j], sizeof tmp);
            memcpy(w->symbol_names[j], w->symbol_names[j - 1], sizeof tmp);
            memcpy(w->symbol_names[j - 1], tmp, sizeof tmp);
            int64_t v = w->symbol_values[j];
            w->symbol_values[j] = w->symbol_values[j - 1];
            w->symbol_values[j - 1] = v;
        }
}

void pg_baseline_workload_set_problem(pg_baseline_workload *w, const pg_task *t,
                                      const pg_workload *tw)
{
    snprintf(w->name, sizeof w->name, "%s", tw->name);
    w->n_symbols = t->n_symbols;
    for (int i = 0; i < t->n_symbols; i++) {
        snprintf(w->symbol_names[i], sizeof w->symbol_names[i], "%s", t->symbols[i]);
        w->symbol_values[i] = tw->values[i];
    }
    sort_symbols(w); /* as the file stores them */
}

bool pg_baseline_workload_matches(const pg_baseline_workload *w, const pg_task *t,
                                  const pg_workload *tw)
{
    if (strcmp(w->name, tw->name) != 0 || w->n_symbols != t->n_symbols)
        return false;
    for (int i = 0; i < w->n_symbols; i++) {
        int k = pg_task_find_symbol(t, w->symbol_names[i]);
        if (k < 0 || tw->values[k] != w->symbol_values[i])
            return false;
    }
    return true;
}

/* ---- loading ---- */

static pg_status load_accepted_kernel(const json_t *o, const pg_jctx *c, pg_baseline *b,
                                      pg_diag *d)
{
    static const char *const keys[] = {"manifest", "manifest_sha256", "source", "source_sha256",
                                       NULL};
    pg_status st = pg_jcheck_keys(o, c, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "manifest", true, true, b->accepted_manifest,
                                 sizeof b->accepted_manifest, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "source", true, true, b->accepted_source,
                                 sizeof b->accepted_source, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "manifest_sha256", true, true,
                                 b->accepted_manifest_sha256, sizeof b->accepted_manifest_sha256,
                                 d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "source_sha256", true, true, b->accepted_source_sha256,
                                 sizeof b->accepted_source_sha256, d);
    if (st != PG_OK)
        return st;
    if (!relative_path(b->accepted_manifest))
        return bad(c, "manifest", d, "expected a path relative to the task's folder, got '%s'",
                   b->accepted_manifest);
    if (!relative_path(b->accepted_source))
        return bad(c, "source", d, "expected a path relative to the task's folder, got '%s'",
                   b->accepted_source);
    if (!pg_sha256_hex_valid(b->accepted_manifest_sha256))
        return bad(c, "manifest_sha256", d, "expected 64 lowercase hex digits (SHA-256)");
    if (!pg_sha256_hex_valid(b->accepted_source_sha256))
        return bad(c, "source_sha256", d, "expected 64 lowercase hex digits (SHA-256)");
    b->has_accepted = true;
    return PG_OK;
}

static pg_status load_symbols(const json_t *o, const pg_jctx *c, pg_baseline_workload *w,
                              pg_diag *d)
{
    const char *k;
    json_t *v;
    w->n_symbols = 0;
    if (json_object_size(o) == 0)
        return bad(c, NULL, d, "expected at least one symbol");
    json_object_foreach((json_t *)o, k, v) {
        if (w->n_symbols == PG_MAX_SYMBOLS)
            return bad(c, NULL, d, "expected at most 16 symbols");
        if (!pg_is_identifier(k) || strlen(k) >= sizeof w->symbol_names[0])
            return bad(c, k, d, "'%s' is not a symbol name", k);
        int64_t x;
        pg_status st = get_int_min(o, c, k, 1, &x, d);
        if (st != PG_OK)
            return st;
        snprintf(w->symbol_names[w->n_symbols], sizeof w->symbol_names[0], "%s", k);
        w->symbol_values[w->n_symbols++] = x;
    }
    sort_symbols(w); /* jansson keeps insertion order; the model keeps them sorted */
    return PG_OK;
}

/* vendor: {library, algorithm | configuration, workspace_bytes, heuristic_rank,
 * candidates_timed}; "algorithm" for cuBLASLt, "configuration" for cuDNN. */
static pg_status load_vendor(const json_t *o, const pg_jctx *c, pg_baseline_workload *w,
                             pg_diag *d)
{
    static const char *const blaslt_keys[] = {"library", "algorithm", "workspace_bytes",
                                              "heuristic_rank", "candidates_timed", NULL};
    static const char *const cudnn_keys[] = {"library", "configuration", "workspace_bytes",
                                             "heuristic_rank", "candidates_timed", NULL};
    pg_status st =
        pg_jget_string_copy(o, c, "library", true, true, w->library, sizeof w->library, d);
    if (st != PG_OK)
        return st;
    bool cudnn = strcmp(w->library, "cudnn") == 0;
    if (!cudnn && strcmp(w->library, "cublaslt") != 0)
        return bad(c, "library", d, "expected \"cublaslt\" or \"cudnn\", got '%s'", w->library);
    const char *key = cudnn ? "configuration" : "algorithm";
    json_t *config = NULL;
    st = pg_jcheck_keys(o, c, cudnn ? cudnn_keys : blaslt_keys, d);
    if (st == PG_OK)
        st = pg_jget_object(o, c, key, true, &config, d);
    if (st == PG_OK) {
        pg_jctx ac = pg_jctx_member(c, key);
        st = cudnn ? pg_cudnn_config_from_json(config, &ac, &w->cudnn, d)
                   : pg_blaslt_algo_from_json(config, &ac, &w->algorithm, d);
    }
    if (st == PG_OK)
        st = get_int_min(o, c, "workspace_bytes", 0, &w->workspace_bytes, d);
    if (st == PG_OK)
        st = get_int32_min(o, c, "heuristic_rank", 0, &w->heuristic_rank, d);
    if (st == PG_OK)
        st = get_int32_min(o, c, "candidates_timed", 1, &w->candidates_timed, d);
    return st;
}

static pg_status load_time(const json_t *o, const pg_jctx *c, pg_baseline_workload *w,
                           pg_diag *d)
{
    static const char *const keys[] = {"median_ms", "ci_low_ms", "ci_high_ms", "confidence",
                                       "samples",   "mode",      "blocks",     "warmup",
                                       "timed",     "method",    NULL};
    static const char *const iv[3] = {"median_ms", "ci_low_ms", "ci_high_ms"};
    double t[3];
    pg_status st = pg_jcheck_keys(o, c, keys, d);
    if (st == PG_OK)
        st = get_interval(o, c, iv, t, d);
    if (st == PG_OK) {
        w->median_ms = t[0];
        w->ci_low_ms = t[1];
        w->ci_high_ms = t[2];
        st = pg_jget_number(o, c, "confidence", true, &w->confidence, d);
    }
    if (st == PG_OK && !(w->confidence > 0 && w->confidence < 1))
        return bad(c, "confidence", d, "expected a number in (0, 1)");
    if (st == PG_OK)
        st = get_int_min(o, c, "samples", 1, &w->samples, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "mode", true, true, w->mode, sizeof w->mode, d);
    if (st == PG_OK && !pg_timing_mode_valid(w->mode))
        return bad(c, "mode", d, "expected \"cold\" or \"sustained\", got '%s'", w->mode);
    if (st == PG_OK)
        st = get_int32_min(o, c, "blocks", 1, &w->blocks, d);
    if (st == PG_OK)
        st = get_int32_min(o, c, "warmup", 0, &w->warmup, d);
    if (st == PG_OK)
        st = get_int32_min(o, c, "timed", 1, &w->timed, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(o, c, "method", true, true, w->method, sizeof w->method, d);
    return st;
}

static pg_status load_accepted_numbers(const json_t *o, const pg_jctx *c, pg_baseline_workload *w,
                                       pg_diag *d)
{
    static const char *const keys[] = {"median_ms", "ci_low_ms", "ci_high_ms", "speedup", NULL};
    static const char *const iv[3] = {"median_ms", "ci_low_ms", "ci_high_ms"};
    static const char *const sk[] = {"estimate", "ci_low", "ci_high", NULL};
    double t[3], s[3];
    json_t *sp = NULL;
    pg_status st = pg_jcheck_keys(o, c, keys, d);
    if (st == PG_OK)
        st = get_interval(o, c, iv, t, d);
    if (st == PG_OK)
        st = pg_jget_object(o, c, "speedup", true, &sp, d);
    pg_jctx sc = pg_jctx_member(c, "speedup");
    if (st == PG_OK)
        st = pg_jcheck_keys(sp, &sc, sk, d);
    if (st == PG_OK)
        st = get_interval(sp, &sc, sk, s, d);
    if (st != PG_OK)
        return st;
    w->has_accepted = true;
    w->accepted_median_ms = t[0];
    w->accepted_ci_low_ms = t[1];
    w->accepted_ci_high_ms = t[2];
    w->speedup = s[0];
    w->speedup_ci_low = s[1];
    w->speedup_ci_high = s[2];
    return PG_OK;
}

static pg_status load_workload(const json_t *o, const pg_jctx *c, const char *name,
                               bool file_has_accepted, pg_baseline_workload *w, pg_diag *d)
{
    static const char *const keys[] = {"symbols", "vendor", "time", "accepted", NULL};
    memset(w, 0, sizeof *w);
    if (!json_is_object(o))
        return bad(c, NULL, d, "expected an object, got %s", pg_json_type_name(o));
    if (strlen(name) >= sizeof w->name || !plain_name(name))
        return bad(c, NULL, d, "'%s' is not a workload name ([A-Za-z0-9_.-], < 128 bytes)", name);
    snprintf(w->name, sizeof w->name, "%s", name);
    json_t *sym = NULL, *vendor = NULL, *time = NULL;
    pg_status st = pg_jcheck_keys(o, c, keys, d);
    if (st == PG_OK)
        st = pg_jget_object(o, c, "symbols", true, &sym, d);
    pg_jctx sc = pg_jctx_member(c, "symbols"), vc = pg_jctx_member(c, "vendor"),
            tc = pg_jctx_member(c, "time"), ac = pg_jctx_member(c, "accepted");
    if (st == PG_OK)
        st = load_symbols(sym, &sc, w, d);
    if (st == PG_OK)
        st = pg_jget_object(o, c, "vendor", true, &vendor, d);
    if (st == PG_OK)
        st = load_vendor(vendor, &vc, w, d);
    if (st == PG_OK)
        st = pg_jget_object(o, c, "time", true, &time, d);
    if (st == PG_OK)
        st = load_time(time, &tc, w, d);
    if (st != PG_OK)
        return st;
    json_t *acc = json_object_get(o, "accepted");
    if (!acc)
        return bad(c, "accepted", d, "required field is missing (null when the task has no "
                                     "accepted kernel)");
    if (json_is_null(acc)) {
        if (file_has_accepted)
            return bad(c, "accepted", d, "expected the accepted kernel's numbers: the file names "
                                         "an accepted_kernel");
        return PG_OK;
    }
    if (!json_is_object(acc))
        return bad(c, "accepted", d, "expected an object or null, got %s", pg_json_type_name(acc));
    if (!file_has_accepted)
        return bad(c, "accepted", d, "expected null: the file's accepted_kernel is null");
    return load_accepted_numbers(acc, &ac, w, d);
}

static bool utc_form(const char *s)
{
    /* YYYY-MM-DDTHH:MM:SSZ, each field in its calendar range (a leap second allowed). */
    static const char k_form[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof k_form - 1)
        return false;
    for (size_t i = 0; k_form[i]; i++)
        if (k_form[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != k_form[i])
            return false;
    int month = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
    int hour = (s[11] - '0') * 10 + (s[12] - '0'), minute = (s[14] - '0') * 10 + (s[15] - '0');
    int second = (s[17] - '0') * 10 + (s[18] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 &&
           second <= 60;
}

/* A field that says which baseline the file is (its task, its GPU key): its own form, and
 * where in the file's path the same value stands (baselines/<gpu-key>/<task>.json). */
typedef struct {
    const char *key;
    bool (*valid)(const char *);
    const char *form;  /* what valid accepts, for the message */
    const char *where; /* the part of the path it must match */
} identity_field;

static const identity_field k_task_field = {"task", plain_name, "a plain task id",
                                            "the file's name"};
static const identity_field k_gpu_key_field = {"gpu_key", pg_gpu_key_valid,
                                               "a GPU key ([a-z0-9._-])", "the file's folder"};

/* Copy field f of root into buf (n bytes) and check its form and, when expect is not NULL,
 * that it equals expect (the value the file's path gives). Errors: PG_ERR_INPUT naming the
 * field. */
static pg_status load_identity(const json_t *root, const pg_jctx *c, const identity_field *f,
                               char *buf, size_t n, const char *expect, pg_diag *d)
{
    pg_status st = pg_jget_string_copy(root, c, f->key, true, true, buf, n, d);
    if (st != PG_OK)
        return st;
    if (!f->valid(buf))
        return bad(c, f->key, d, "'%s' is not %s", buf, f->form);
    if (expect && strcmp(buf, expect) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, c->file, 0, f->key, "expected '%s' (%s), got '%s'",
                           expect, f->where, buf);
    return PG_OK;
}

static pg_status load_root(const json_t *root, const pg_jctx *c, const char *expect_task,
                           const char *expect_key, pg_baseline *b, pg_diag *d)
{
    static const char *const keys[] = {"schema_version", "task", "gpu_key", "measured_utc",
                                       "tool", "environment", "accepted_kernel", "workloads",
                                       NULL};
    int64_t version = 0;
    pg_status st = pg_jcheck_keys(root, c, keys, d);
    if (st == PG_OK)
        st = pg_jget_int(root, c, "schema_version", true, &version, d);
    if (st == PG_OK && version != PG_BASELINE_SCHEMA_VERSION)
        return bad(c, "schema_version", d, "expected 1 (the only version this ptxgate reads)");
    if (st == PG_OK)
        st = load_identity(root, c, &k_task_field, b->task, sizeof b->task, expect_task, d);
    if (st == PG_OK)
        st = load_identity(root, c, &k_gpu_key_field, b->gpu_key, sizeof b->gpu_key, expect_key,
                           d);
    if (st == PG_OK)
        st = pg_jget_string_copy(root, c, "measured_utc", true, true, b->measured_utc,
                                 sizeof b->measured_utc, d);
    if (st == PG_OK && !utc_form(b->measured_utc))
        return bad(c, "measured_utc", d, "expected YYYY-MM-DDTHH:MM:SSZ, got '%s'",
                   b->measured_utc);
    json_t *tool = NULL, *env = NULL, *wls = NULL;
    pg_jctx tc = pg_jctx_member(c, "tool"), ec = pg_jctx_member(c, "environment"),
            kc = pg_jctx_member(c, "accepted_kernel"), wc = pg_jctx_member(c, "workloads");
    if (st == PG_OK)
        st = pg_jget_object(root, c, "tool", true, &tool, d);
    static const char *const tool_keys[] = {"name", "version", NULL};
    if (st == PG_OK)
        st = pg_jcheck_keys(tool, &tc, tool_keys, d);
    const char *tool_name = NULL;
    if (st == PG_OK)
        st = pg_jget_string(tool, &tc, "name", true, &tool_name, d);
    if (st == PG_OK && strcmp(tool_name, "ptxgate") != 0)
        return bad(&tc, "name", d, "expected \"ptxgate\", got '%s'", tool_name);
    if (st == PG_OK)
        st = pg_jget_string_copy(tool, &tc, "version", true, true, b->tool_version,
                                 sizeof b->tool_version, d);
    if (st == PG_OK)
        st = pg_jget_object(root, c, "environment", true, &env, d);
    if (st == PG_OK)
        st = pg_fingerprint_from_json(env, &ec, &b->env, d);
    if (st != PG_OK)
        return st;
    json_t *acc = json_object_get(root, "accepted_kernel");
    if (!acc)
        return bad(c, "accepted_kernel", d, "required field is missing (null when the task has "
                                            "none)");
    if (json_is_object(acc))
        st = load_accepted_kernel(acc, &kc, b, d);
    else if (!json_is_null(acc))
        return bad(c, "accepted_kernel", d, "expected an object or null, got %s",
                   pg_json_type_name(acc));
    if (st == PG_OK)
        st = pg_jget_object(root, c, "workloads", true, &wls, d);
    if (st != PG_OK)
        return st;
    size_t n = json_object_size(wls);
    if (n == 0 || n > PG_MAX_WORKLOADS)
        return bad(c, "workloads", d, "expected 1 to 256 workloads");
    b->workloads = calloc(n, sizeof *b->workloads);
    if (!b->workloads)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    const char *name;
    json_t *w;
    json_object_foreach(wls, name, w) {
        pg_jctx one = pg_jctx_member(&wc, name);
        pg_baseline_workload *bw = &b->workloads[b->n_workloads];
        st = load_workload(w, &one, name, b->has_accepted, bw, d);
        if (st != PG_OK)
            return st;
        /* A task has one vendor library: a file mixing them was not written by a refresh. */
        if (b->n_workloads > 0 && strcmp(bw->library, b->workloads[0].library) != 0) {
            pg_jctx vc = pg_jctx_member(&one, "vendor");
            return bad(&vc, "library", d,
                       "expected \"%s\" like workloads.%s (a task has one vendor library), got "
                       "\"%s\"",
                       b->workloads[0].library, b->workloads[0].name, bw->library);
        }
        b->n_workloads++;
    }
    qsort(b->workloads, (size_t)b->n_workloads, sizeof *b->workloads, cmp_workload);
    return PG_OK;
}

pg_status pg_baseline_from_json(const json_t *root, const char *file, const char *expect_task,
                                const char *expect_gpu_key, pg_baseline **out, pg_diag *d)
{
    *out = NULL;
    if (!json_is_object(root))
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, NULL, "expected a JSON object");
    pg_baseline *b = calloc(1, sizeof *b);
    if (!b)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    snprintf(b->file, sizeof b->file, "%s", file);
    pg_jctx c = {.file = file, .path = ""};
    pg_status st = load_root(root, &c, expect_task, expect_gpu_key, b, d);
    if (st != PG_OK) {
        pg_baseline_free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

pg_status pg_baseline_load_file(const char *path, const char *expect_task,
                                const char *expect_gpu_key, pg_baseline **out, pg_diag *d)
{
    *out = NULL;
    json_t *root = NULL;
    pg_status st = pg_json_load(path, &root, d);
    if (st == PG_OK)
        st = pg_baseline_from_json(root, path, expect_task, expect_gpu_key, out, d);
    json_decref(root);
    return st;
}

/* ---- writing ---- */

/* Fixed rounding: ms to 1 ns, ratios to 1e-6. */
static json_t *ms(double v)
{
    return json_real(round(v * 1e6) / 1e6);
}

static json_t *accepted_json(const pg_baseline_workload *w)
{
    if (!w->has_accepted)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:{s:o, s:o, s:o}}", "median_ms", ms(w->accepted_median_ms),
                     "ci_low_ms", ms(w->accepted_ci_low_ms), "ci_high_ms",
                     ms(w->accepted_ci_high_ms), "speedup", "estimate", ms(w->speedup), "ci_low",
                     ms(w->speedup_ci_low), "ci_high", ms(w->speedup_ci_high));
}

static json_t *workload_json(const pg_baseline_workload *w)
{
    json_t *sym = json_object();
    for (int i = 0; i < w->n_symbols; i++)
        json_object_set_new(sym, w->symbol_names[i], json_integer(w->symbol_values[i]));
    bool cudnn = pg_baseline_workload_is_cudnn(w);
    json_t *vendor = json_pack("{s:s, s:o, s:I, s:i, s:i}", "library", w->library,
                               cudnn ? "configuration" : "algorithm",
                               cudnn ? pg_cudnn_config_to_json(&w->cudnn)
                                     : pg_blaslt_algo_to_json(&w->algorithm),
                               "workspace_bytes", (json_int_t)w->workspace_bytes,
                               "heuristic_rank", w->heuristic_rank, "candidates_timed",
                               w->candidates_timed);
    json_t *time = json_pack("{s:o, s:o, s:o, s:o, s:I, s:s, s:i, s:i, s:i, s:s}", "median_ms",
                             ms(w->median_ms), "ci_low_ms", ms(w->ci_low_ms), "ci_high_ms",
                             ms(w->ci_high_ms), "confidence", ms(w->confidence), "samples",
                             (json_int_t)w->samples, "mode", w->mode, "blocks", w->blocks,
                             "warmup", w->warmup, "timed", w->timed, "method", w->method);
    return json_pack("{s:o, s:o, s:o, s:o}", "symbols", sym, "vendor", vendor, "time", time,
                     "accepted", accepted_json(w));
}

json_t *pg_baseline_to_json(const pg_baseline *b)
{
    json_t *wls = json_object();
    for (int i = 0; i < b->n_workloads; i++)
        json_object_set_new(wls, b->workloads[i].name, workload_json(&b->workloads[i]));
    json_t *acc = b->has_accepted
                      ? json_pack("{s:s, s:s, s:s, s:s}", "manifest", b->accepted_manifest,
                                  "manifest_sha256", b->accepted_manifest_sha256, "source",
                                  b->accepted_source, "source_sha256", b->accepted_source_sha256)
                      : json_null();
    return json_pack("{s:i, s:s, s:s, s:s, s:{s:s, s:s}, s:o, s:o, s:o}", "schema_version",
                     PG_BASELINE_SCHEMA_VERSION, "task", b->task, "gpu_key", b->gpu_key,
                     "measured_utc", b->measured_utc, "tool", "name", "ptxgate", "version",
                     b->tool_version, "environment", pg_fingerprint_to_json(&b->env),
                     "accepted_kernel", acc, "workloads", wls);
}

pg_status pg_baseline_dumps(const pg_baseline *b, char **text, size_t *len, pg_diag *d)
{
    *text = NULL;
    json_t *j = pg_baseline_to_json(b);
    char *s = j ? json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(j);
    size_t n = s ? strlen(s) : 0;
    char *out = s ? malloc(n + 2) : NULL;
    if (!out) {
        free(s);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "out of memory (or a string that is not UTF-8) writing the baseline");
    }
    memcpy(out, s, n);
    out[n] = '\n';
    out[n + 1] = '\0';
    free(s);
    *text = out;
    if (len)
        *len = n + 1;
    return PG_OK;
}

pg_status pg_baseline_write(const pg_baseline *b, const char *path, bool follow_links,
                            pg_diag *d)
{
    char *text = NULL;
    size_t len = 0;
    unsigned flags = PG_OUTDIR_CREATE | (follow_links ? PG_OUTDIR_FOLLOW_LINKS : 0);
    pg_status st = pg_baseline_dumps(b, &text, &len, d);
    if (st == PG_OK)
        st = pg_file_write_safe(path, flags, text, len, d);
    free(text);
    return st;
}

bool pg_baseline_workload_is_cudnn(const pg_baseline_workload *w)
{
    return strcmp(w->library, "cudnn") == 0;
}

const char *pg_baseline_library_label(const pg_baseline_workload *w)
{
    return pg_baseline_workload_is_cudnn(w) ? "cuDNN" : "cuBLASLt";
}

char *pg_baseline_vendor_config_text(const pg_baseline_workload *w, char *out, size_t n)
{
    if (!pg_baseline_workload_is_cudnn(w))
        return pg_blaslt_algo_format(&w->algorithm, out, n);
    char config[PG_CUDNN_CONFIG_TEXT_MAX];
    const char *graph = pg_dnn_graph_id(w->cudnn.graph);
    snprintf(out, n, "graph %s, %s", graph ? graph : "?",
             pg_cudnn_config_format(&w->cudnn, config, sizeof config));
    return out;
}

bool pg_baseline_vendor_config_equal(const pg_baseline_workload *a, const pg_baseline_workload *b)
{
    if (strcmp(a->library, b->library) != 0)
        return false;
    return pg_baseline_workload_is_cudnn(a) ? pg_cudnn_config_equal(&a->cudnn, &b->cudnn)
                                            : pg_blaslt_algo_equal(&a->algorithm, &b->algorithm);
}
