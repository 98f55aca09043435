/* What crosses the boundary between a worker and its parent besides the results records: the
 * GPU's fingerprint (pg_device_info) and a performance comparison's full result (pg_cmp_result,
 * which the parent's run-level Holm step needs), and the device's peaks. Both directions,
 * every field; a number that is not finite travels as the string "nan", "inf" or "-inf" so it
 * comes back unchanged (the peaks: null, read back as NaN). And the readers of what the
 * parent hands a worker (its job file) and of the records a worker sends back (a stage, a
 * workload), which fill the typed state (ledger.h, wl_state.h) the pipeline decides on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonget.h"
#include "instr_stage.h"
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

/* ---- the instructions stage of the job file ---- */

static void copy_str(char *out, size_t n, const json_t *v)
{
    snprintf(out, n, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static double real_or_nan(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *fragment_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v ? json_deep_copy(v) : NULL;
}

pg_instr_stage *pg_instr_stage_from_json(const json_t *j)
{
    if (!json_is_object(j))
        return NULL;
    pg_instr_stage *st = pg_instr_stage_new();
    if (!st)
        return NULL;
    const json_t *det = json_object_get(j, "details");
    copy_str(st->status, sizeof st->status, json_object_get(j, "status"));
    copy_str(st->message, sizeof st->message, json_object_get(j, "message"));
    st->duration_s = json_number_value(json_object_get(j, "duration_s"));
    copy_str(st->policy, sizeof st->policy, json_object_get(det, "policy"));
    copy_str(st->arch, sizeof st->arch, json_object_get(det, "arch"));
    st->table = fragment_of(det, "table");
    st->ptx = fragment_of(det, "ptx");
    st->sass = fragment_of(det, "sass");
    st->runtime = fragment_of(det, "runtime");
    const json_t *sass = json_object_get(det, "sass");
    copy_str(st->sass_status, sizeof st->sass_status, json_object_get(sass, "status"));
    copy_str(st->sass_reason, sizeof st->sass_reason, json_object_get(sass, "reason"));
    const json_t *targets = json_object_get(det, "targets"), *t, *f;
    st->has_targets = json_is_array(targets);
    size_t i, k;
    json_array_foreach(targets, i, t) {
        if (st->n_targets >= PG_MAX_TARGETS)
            break;
        pg_instr_target *o = &st->targets[st->n_targets++];
        copy_str(o->target, sizeof o->target, json_object_get(t, "target"));
        copy_str(o->family, sizeof o->family, json_object_get(t, "family"));
        json_array_foreach(json_object_get(t, "sass_families"), k, f) {
            if (o->n_sass < PG_ARCH_MAX_SASS)
                copy_str(o->sass_families[o->n_sass++], sizeof o->sass_families[0], f);
        }
        copy_str(o->status, sizeof o->status, json_object_get(t, "status"));
        copy_str(o->reason, sizeof o->reason, json_object_get(t, "reason"));
        copy_str(o->summary, sizeof o->summary, json_object_get(t, "summary"));
        o->ptx = fragment_of(t, "ptx");
        o->sass = fragment_of(t, "sass");
        o->ptx_count = (long long)json_integer_value(json_object_get(o->ptx, "count"));
        const json_t *sc = json_object_get(o->sass, "count");
        o->sass_counted = json_is_integer(sc);
        o->sass_count = (long long)json_integer_value(sc);
        const json_t *rt = json_object_get(t, "runtime");
        copy_str(o->rt_status, sizeof o->rt_status, json_object_get(rt, "status"));
        o->rt_executed = real_or_nan(json_object_get(rt, "executed_count"));
        o->rt_coverage = real_or_nan(json_object_get(rt, "coverage"));
        o->rt_min_coverage = real_or_nan(json_object_get(rt, "min_coverage"));
        o->rt_has_reason = json_is_string(json_object_get(rt, "reason"));
        copy_str(o->rt_reason, sizeof o->rt_reason, json_object_get(rt, "reason"));
    }
    return st;
}

/* ---- the worker's job file ---- */

static pg_status read_accepted(const json_t *job, const char *file, pg_worker_job_accepted *a,
                               pg_diag *d)
{
    pg_jctx top = {.file = file};
    json_t *obj = json_object_get(job, "accepted");
    if (!obj || json_is_null(obj))
        return PG_OK;
    pg_status st = pg_jget_object(job, &top, "accepted", true, &obj, d);
    if (st != PG_OK)
        return st;
    pg_jctx c = pg_jctx_member(&top, "accepted");
    a->present = true;
    if ((st = pg_jget_string(obj, &c, "manifest", true, &a->manifest, d)) != PG_OK ||
        (st = pg_jget_string(obj, &c, "arch", true, &a->arch, d)) != PG_OK ||
        (st = pg_jget_string(obj, &c, "ptx_path", true, &a->ptx_path, d)) != PG_OK ||
        (st = pg_jget_string(obj, &c, "cubin_path", true, &a->cubin_path, d)) != PG_OK ||
        (st = pg_jget_string(obj, &c, "note", true, &a->note, d)) != PG_OK ||
        (st = pg_jget_bool(obj, &c, "usable", true, &a->usable, d)) != PG_OK ||
        (st = pg_jget_bool(obj, &c, "identical", true, &a->identical, d)) != PG_OK ||
        (st = pg_jget_string(obj, &c, "identical_by", false, &a->identical_by, d)) != PG_OK)
        return st;
    return PG_OK;
}

pg_status pg_worker_job_read(const json_t *job, const char *file, pg_worker_job *f, pg_diag *d)
{
    pg_jctx top = {.file = file};
    json_t *wls = NULL;
    pg_status st;
    if ((st = pg_jget_string(job, &top, "manifest", true, &f->manifest, d)) != PG_OK ||
        (st = pg_jget_string(job, &top, "tasks_dir", true, &f->tasks_dir, d)) != PG_OK ||
        (st = pg_jget_string(job, &top, "arch", true, &f->arch, d)) != PG_OK ||
        (st = pg_jget_string(job, &top, "ptx_path", true, &f->ptx_path, d)) != PG_OK ||
        (st = pg_jget_string(job, &top, "cubin_path", true, &f->cubin_path, d)) != PG_OK ||
        (st = pg_jget_bool(job, &top, "load_stage", true, &f->load_stage, d)) != PG_OK ||
        (st = pg_jget_int(job, &top, "n_comparisons", true, &f->n_comparisons, d)) != PG_OK ||
        (st = pg_jget_array(job, &top, "workloads", true, &wls, d)) != PG_OK)
        return st;
    const char *mode = "check";
    if ((st = pg_jget_string(job, &top, "mode", false, &mode, d)) != PG_OK)
        return st;
    if (strcmp(mode, "check") != 0 && strcmp(mode, "sanitize") != 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, "mode",
                           "expected \"check\" or \"sanitize\", found \"%s\"", mode);
    f->sanitize = strcmp(mode, "sanitize") == 0;
    const json_t *peaks = json_object_get(job, "peaks");
    if (json_is_object(peaks)) {
        f->have_peaks = true;
        pg_peaks_from_json(peaks, &f->peak_tflops, &f->peak_write_gbps);
    }
    const json_t *warm = json_object_get(job, "gpu_warm_monotonic_s");
    f->gpu_warm_s = json_is_number(warm) && json_number_value(warm) > 0 ? json_number_value(warm)
                                                                         : 0;
    const json_t *instr = json_object_get(job, "instructions");
    if (json_is_object(instr))
        f->instructions = pg_instr_stage_from_json(instr);
    if ((st = pg_jget_int(job, &top, "instructions_copies", false, &f->instructions_copies, d)) !=
            PG_OK ||
        (st = read_accepted(job, file, &f->accepted, d)) != PG_OK)
        return st;
    f->workloads = calloc(json_array_size(wls) + 1, sizeof(int));
    if (!f->workloads)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < json_array_size(wls); i++) {
        json_t *v = json_array_get(wls, i);
        if (!json_is_integer(v))
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, "workloads",
                               "expected workload indices (integers)");
        f->workloads[f->n_workloads++] = (int)json_integer_value(v);
    }
    return PG_OK;
}

void pg_worker_job_free(pg_worker_job *f)
{
    free(f->workloads);
    pg_instr_stage_free(f->instructions);
    memset(f, 0, sizeof *f);
}

/* ---- stage and workload records ---- */

pg_stage_entry *pg_stage_entry_from_json(json_t *j)
{
    pg_stage_kind kind;
    pg_res_status status;
    if (!json_is_object(j) ||
        !pg_stage_kind_from_name(json_string_value(json_object_get(j, "stage")), &kind) ||
        !pg_stage_status_from_name(json_string_value(json_object_get(j, "status")), &status))
        return NULL;
    json_t *det = json_object_get(j, "details");
    return pg_stage_entry_wrap(kind, json_incref(j), json_is_object(det) ? det : NULL, status,
                               json_string_value(json_object_get(j, "message")),
                               json_number_value(json_object_get(j, "duration_s")));
}

/* The comparisons of the last performance stage of w, by name (the run's Holm step). */
static void perf_of_record(pg_wl_state *w)
{
    const pg_stage_entry *perf = pg_ledger_find_last(&w->stages, PG_STAGE_PERFORMANCE);
    const json_t *cmps = perf ? json_object_get(perf->details, "comparisons") : NULL;
    for (size_t i = 0; i < json_array_size(cmps) && i < PG_PERF_MAX_COMPARISONS; i++) {
        pg_perf_cmp *c = &w->perf.cmps[w->perf.n_cmps++];
        json_t *cmp = json_array_get(cmps, i);
        const char *name = json_string_value(json_object_get(cmp, "name"));
        snprintf(c->name, sizeof c->name, "%s", name ? name : "");
        c->record = cmp;
    }
}

bool pg_wl_state_from_json(json_t *j, int task_index, const char *name, pg_wl_state *out)
{
    json_t *stages = json_object_get(j, "stages");
    if (!json_is_object(j) || !json_is_array(stages))
        return false;
    const char *ptxbench = json_string_value(json_object_get(j, "status"));
    pg_wl_state w = {0};
    /* No array while the entries are pushed: their records are in it already. */
    pg_wl_state_init(&w, task_index, name, j, NULL, ptxbench);
    for (size_t i = 0; i < json_array_size(stages); i++)
        if (!pg_ledger_push(&w.stages, pg_stage_entry_from_json(json_array_get(stages, i)))) {
            pg_wl_state_release(&w);
            return false;
        }
    w.stages.array = json_incref(stages);
    perf_of_record(&w);
    *out = w;
    return true;
}
