/* Environment fingerprints: JSON and field-by-field comparison (see fingerprint.h). One table
 * describes every field, so writing, reading and comparing cannot disagree. */
#include "fingerprint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/utf8.h"

typedef enum { F_STR, F_INT, F_LONG, F_WATTS, F_ECC } field_kind;

static const struct {
    const char *key;
    field_kind kind;
    size_t offset, size;
    bool gpu;
} k_fields[PG_FINGERPRINT_FIELDS] = {
#define PG_F(key, kind, member, gpu)                                                            \
    {key, kind, offsetof(pg_fingerprint, member), sizeof(((pg_fingerprint *)0)->member), gpu}
    PG_F("gpu_name", F_STR, gpu_name, true),
    PG_F("compute_capability", F_STR, compute_capability, true),
    PG_F("sm_count", F_INT, sm_count, true),
    PG_F("driver_version", F_STR, driver_version, false),
    PG_F("cuda_driver_api_version", F_INT, cuda_driver_api_version, false),
    PG_F("ptxas_version", F_STR, ptxas_version, false),
    PG_F("cublaslt_version", F_LONG, cublaslt_version, false),
    PG_F("cudnn_version", F_LONG, cudnn_version, false),
    PG_F("max_sm_clock_mhz", F_INT, max_sm_clock_mhz, false),
    PG_F("max_memory_clock_mhz", F_INT, max_memory_clock_mhz, false),
    PG_F("power_limit_w", F_WATTS, power_limit_w, false),
    PG_F("ecc", F_ECC, ecc, false),
#undef PG_F
};

void pg_fingerprint_init(pg_fingerprint *f)
{
    memset(f, 0, sizeof *f);
    f->ecc = -1;
}

static const void *member(const pg_fingerprint *f, int i)
{
    return (const char *)f + k_fields[i].offset;
}

static bool known(const pg_fingerprint *f, int i)
{
    const void *m = member(f, i);
    switch (k_fields[i].kind) {
    case F_STR: return ((const char *)m)[0] != '\0';
    case F_INT: return *(const int *)m > 0;
    case F_LONG: return *(const long *)m > 0;
    case F_WATTS: return *(const double *)m > 0;
    case F_ECC: return *(const int *)m >= 0;
    }
    return false;
}

/* The value as JSON (null when unknown). */
static json_t *value_json(const pg_fingerprint *f, int i)
{
    const void *m = member(f, i);
    if (!known(f, i))
        return json_null();
    switch (k_fields[i].kind) {
    case F_STR: return json_string((const char *)m);
    case F_INT: return json_integer(*(const int *)m);
    case F_LONG: return json_integer(*(const long *)m);
    /* Watts to 0.1 W: NVML reports milliwatts, and a fixed rounding keeps files stable. */
    case F_WATTS: return json_real(round(*(const double *)m * 10.0) / 10.0);
    case F_ECC: return json_boolean(*(const int *)m == 1);
    }
    return json_null();
}

static void value_text(const pg_fingerprint *f, int i, char *out, size_t n)
{
    const void *m = member(f, i);
    if (!known(f, i)) {
        snprintf(out, n, "unknown");
        return;
    }
    switch (k_fields[i].kind) {
    /* A stored file's text (a GPU name) may be any UTF-8: cut at a whole character. */
    case F_STR: snprintf(out, n, "%.*s", PG_UTF8_CUT((const char *)m, n - 1), (const char *)m); break;
    case F_INT: snprintf(out, n, "%d", *(const int *)m); break;
    case F_LONG: snprintf(out, n, "%ld", *(const long *)m); break;
    case F_WATTS: snprintf(out, n, "%.1f W", *(const double *)m); break;
    case F_ECC: snprintf(out, n, "%s", *(const int *)m == 1 ? "on" : "off"); break;
    }
}

json_t *pg_fingerprint_to_json(const pg_fingerprint *f)
{
    json_t *j = json_object();
    for (int i = 0; i < PG_FINGERPRINT_FIELDS; i++)
        json_object_set_new(j, k_fields[i].key, value_json(f, i));
    return j;
}

static pg_status bad(const pg_jctx *ctx, const char *key, const char *what, pg_diag *d)
{
    char f[512];
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f), "%s",
                       what);
}

static pg_status read_field(const json_t *obj, const pg_jctx *ctx, int i, pg_fingerprint *out,
                            pg_diag *d)
{
    const char *key = k_fields[i].key;
    json_t *v = json_object_get(obj, key);
    void *m = (char *)out + k_fields[i].offset;
    if (!v)
        return bad(ctx, key, "required field is missing (null when unknown)", d);
    if (json_is_null(v))
        return PG_OK;
    switch (k_fields[i].kind) {
    case F_STR:
        if (!json_is_string(v) || json_string_length(v) == 0)
            return bad(ctx, key, "expected a non-empty string or null", d);
        if (json_string_length(v) >= k_fields[i].size)
            return bad(ctx, key, "string is too long", d);
        snprintf(m, k_fields[i].size, "%s", json_string_value(v));
        return PG_OK;
    case F_INT:
    case F_LONG:
        if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
            json_integer_value(v) > 2147483647)
            return bad(ctx, key, "expected a positive integer or null", d);
        if (k_fields[i].kind == F_INT)
            *(int *)m = (int)json_integer_value(v);
        else
            *(long *)m = (long)json_integer_value(v);
        return PG_OK;
    case F_WATTS:
        /* Bounded so that the writer's rounding (to 0.1 W) stays finite. */
        if (!json_is_number(v) || !(json_number_value(v) > 0) ||
            !(json_number_value(v) < 1e6))
            return bad(ctx, key, "expected a positive number of watts below 1e6 or null", d);
        *(double *)m = json_number_value(v);
        return PG_OK;
    case F_ECC:
        if (!json_is_boolean(v))
            return bad(ctx, key, "expected true, false or null", d);
        *(int *)m = json_is_true(v) ? 1 : 0;
        return PG_OK;
    }
    return PG_OK;
}

pg_status pg_fingerprint_from_json(const json_t *obj, const pg_jctx *ctx, pg_fingerprint *out,
                                   pg_diag *d)
{
    const char *keys[PG_FINGERPRINT_FIELDS + 1];
    for (int i = 0; i < PG_FINGERPRINT_FIELDS; i++)
        keys[i] = k_fields[i].key;
    keys[PG_FINGERPRINT_FIELDS] = NULL;
    pg_fingerprint_init(out);
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    for (int i = 0; st == PG_OK && i < PG_FINGERPRINT_FIELDS; i++)
        st = read_field(obj, ctx, i, out, d);
    if (st == PG_OK && out->compute_capability[0]) {
        unsigned a, b;
        char extra;
        if (sscanf(out->compute_capability, "%u.%u%c", &a, &b, &extra) != 2)
            st = bad(ctx, "compute_capability", "expected MAJOR.MINOR, e.g. \"9.0\"", d);
    }
    return st;
}

static bool same(const pg_fingerprint *a, const pg_fingerprint *b, int i)
{
    bool ka = known(a, i), kb = known(b, i);
    if (!ka || !kb)
        return ka == kb;
    const void *x = member(a, i), *y = member(b, i);
    switch (k_fields[i].kind) {
    case F_STR: return strcmp(x, y) == 0;
    case F_INT:
    case F_ECC: return *(const int *)x == *(const int *)y;
    case F_LONG: return *(const long *)x == *(const long *)y;
    case F_WATTS: return fabs(*(const double *)x - *(const double *)y) < 0.5;
    }
    return false;
}

int pg_fingerprint_diff(const pg_fingerprint *stored, const pg_fingerprint *live,
                        pg_fingerprint_change out[PG_FINGERPRINT_FIELDS])
{
    int n = 0;
    for (int i = 0; i < PG_FINGERPRINT_FIELDS; i++) {
        if (same(stored, live, i))
            continue;
        out[n].field = k_fields[i].key;
        out[n].gpu = k_fields[i].gpu;
        value_text(stored, i, out[n].stored, sizeof out[n].stored);
        value_text(live, i, out[n].live, sizeof out[n].live);
        n++;
    }
    return n;
}

bool pg_fingerprint_same_cublaslt(const pg_fingerprint *stored, const pg_fingerprint *live)
{
    return stored->cublaslt_version > 0 && stored->cublaslt_version == live->cublaslt_version;
}

bool pg_fingerprint_same_cudnn(const pg_fingerprint *stored, const pg_fingerprint *live)
{
    return stored->cudnn_version > 0 && stored->cudnn_version == live->cudnn_version;
}
