/* What crosses the boundary between a worker and its parent besides the results records: the
 * GPU's fingerprint (pg_device_info) and a performance comparison's full result (pg_cmp_result,
 * which the parent's run-level Holm step needs), and the device's peaks. Both directions,
 * every field; a number that is not finite travels as the string "nan", "inf" or "-inf" so it
 * comes back unchanged (the peaks: null, read back as NaN). */
#include <math.h>
#include <string.h>

#include "results_json.h"
#include "worker_json.h"

json_t *pg_wire_real(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

bool pg_wire_real_value(const json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    const char *s = json_string_value(v);
    if (!s)
        return false;
    if (strcmp(s, "nan") == 0)
        *out = NAN;
    else if (strcmp(s, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
        *out = -INFINITY;
    else
        return false;
    return true;
}

static bool get_num(const json_t *j, const char *key, double *out)
{
    return pg_wire_real_value(json_object_get(j, key), out);
}

static bool get_int(const json_t *j, const char *key, long long *out)
{
    const json_t *v = json_object_get(j, key);
    if (!json_is_integer(v))
        return false;
    *out = (long long)json_integer_value(v);
    return true;
}

static bool get_str(const json_t *j, const char *key, char *dst, size_t n)
{
    const char *s = json_string_value(json_object_get(j, key));
    if (!s || strlen(s) >= n)
        return false;
    memcpy(dst, s, strlen(s) + 1);
    return true;
}

/* ---- pg_device_info ---- */

#define PG_INFO_INTS(X)                                                                        \
    X(ordinal) X(cc_major) X(cc_minor) X(sm_count) X(sm_clock_mhz) X(max_sm_clock_mhz)        \
    X(memory_clock_mhz) X(max_memory_clock_mhz) X(ecc) X(l2_bytes) X(memory_bytes)            \
    X(driver_api_version) X(cublaslt_version) X(cudnn_version) X(max_threads_per_block)      \
    X(max_shared_per_block) X(max_shared_per_block_optin)
#define PG_INFO_STRS(X) X(name) X(uuid) X(pci_bus_id) X(driver_version)

json_t *pg_device_info_to_json(const pg_device_info *i)
{
    json_t *j = json_object();
#define PUT_INT(f) json_object_set_new(j, #f, json_integer((json_int_t)i->f));
#define PUT_STR(f) json_object_set_new(j, #f, pg_jstr(i->f));
    PG_INFO_INTS(PUT_INT)
    PG_INFO_STRS(PUT_STR)
#undef PUT_INT
#undef PUT_STR
    json_object_set_new(j, "power_limit_w", pg_wire_real(i->power_limit_w));
    json_object_set_new(j, "max_block_dim", json_pack("[i, i, i]", i->max_block_dim[0],
                                                      i->max_block_dim[1], i->max_block_dim[2]));
    json_object_set_new(j, "max_grid_dim", json_pack("[i, i, i]", i->max_grid_dim[0],
                                                     i->max_grid_dim[1], i->max_grid_dim[2]));
    return j;
}

bool pg_device_info_from_json(const json_t *j, pg_device_info *out)
{
    memset(out, 0, sizeof *out);
    long long v;
#define GET_INT(f)                                                                             \
    if (!get_int(j, #f, &v))                                                                   \
        return false;                                                                          \
    out->f = v;
#define GET_STR(f)                                                                             \
    if (!get_str(j, #f, out->f, sizeof out->f))                                                \
        return false;
    PG_INFO_INTS(GET_INT)
    PG_INFO_STRS(GET_STR)
#undef GET_INT
#undef GET_STR
    if (!get_num(j, "power_limit_w", &out->power_limit_w))
        return false;
    const json_t *b = json_object_get(j, "max_block_dim"), *g = json_object_get(j, "max_grid_dim");
    if (json_array_size(b) != 3 || json_array_size(g) != 3)
        return false;
    for (size_t k = 0; k < 3; k++) {
        if (!json_is_integer(json_array_get(b, k)) || !json_is_integer(json_array_get(g, k)))
            return false;
        out->max_block_dim[k] = (int)json_integer_value(json_array_get(b, k));
        out->max_grid_dim[k] = (int)json_integer_value(json_array_get(g, k));
    }
    return true;
}

/* ---- pg_cmp_result ---- */

#define PG_CMP_REALS(X)                                                                        \
    X(alpha_look) X(mean_log_ratio) X(sd_log_ratio) X(acf1_log_ratio) X(skew_log_ratio)       \
    X(ratio_estimate) X(ratio_ci_low) X(ratio_ci_high) X(p_fail) X(p_pass) X(p_fast)           \
    X(p_fail_seq) X(mde_ratio)

json_t *pg_cmp_result_to_json(const pg_cmp_result *r)
{
    json_t *j = json_pack("{s:i, s:I, s:i, s:I, s:b, s:b}", "verdict", (int)r->verdict, "blocks",
                          (json_int_t)r->blocks, "look", r->look, "assignments",
                          (json_int_t)r->assignments, "exact", r->exact, "holm_changed",
                          r->holm_changed);
#define PUT_REAL(f) json_object_set_new(j, #f, pg_wire_real(r->f));
    PG_CMP_REALS(PUT_REAL)
#undef PUT_REAL
    return j;
}

bool pg_cmp_result_from_json(const json_t *j, pg_cmp_result *out)
{
    memset(out, 0, sizeof *out);
    long long v;
    if (!get_int(j, "verdict", &v) || v < PG_CMP_PASS || v > PG_CMP_FAST)
        return false;
    out->verdict = (pg_cmp_verdict)v;
    if (!get_int(j, "blocks", &v) || v < 0)
        return false;
    out->blocks = (size_t)v;
    if (!get_int(j, "look", &v))
        return false;
    out->look = (int)v;
    if (!get_int(j, "assignments", &v) || v < 0)
        return false;
    out->assignments = (size_t)v;
    const json_t *e = json_object_get(j, "exact"), *h = json_object_get(j, "holm_changed");
    if (!json_is_boolean(e) || !json_is_boolean(h))
        return false;
    out->exact = json_is_true(e);
    out->holm_changed = json_is_true(h);
#define GET_REAL(f)                                                                            \
    if (!get_num(j, #f, &out->f))                                                              \
        return false;
    PG_CMP_REALS(GET_REAL)
#undef GET_REAL
    return true;
}

json_t *pg_peaks_to_json(double tflops, double write_gbps)
{
    return json_pack("{s:o, s:o}", "tflops", pg_json_real_or_null(tflops), "write_gbps",
                     pg_json_real_or_null(write_gbps));
}

void pg_peaks_from_json(const json_t *j, double *tflops, double *write_gbps)
{
    json_t *t = json_object_get(j, "tflops"), *g = json_object_get(j, "write_gbps");
    *tflops = json_is_number(t) ? json_number_value(t) : NAN;
    *write_gbps = json_is_number(g) ? json_number_value(g) : NAN;
}
