/* The worker's status events, typed, to and from their line on the status channel
 * (worker_event.h): the one place that builds or reads an event's JSON. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonget.h"
#include "results_json.h"
#include "worker_event.h"
#include "worker_json.h"

/* What a decode error names as its file: the line came from a pipe, not a file. */
#define LINE_SOURCE "worker status line"

static const char *const kind_names[] = {
    [PG_WEV_READY] = "ready",          [PG_WEV_DEVICE] = "device",
    [PG_WEV_UNAVAILABLE] = "unavailable", [PG_WEV_HEATING] = "heating",
    [PG_WEV_HEAT_FAILED] = "heat_failed", [PG_WEV_PROGRESS] = "progress",
    [PG_WEV_STAGE] = "stage",          [PG_WEV_WORKLOAD] = "workload",
    [PG_WEV_STOPPED] = "stopped",      [PG_WEV_DONE] = "done",
};
#define N_KINDS (sizeof kind_names / sizeof kind_names[0])

const char *pg_wev_kind_name(pg_wev_kind kind)
{
    return (unsigned)kind < N_KINDS ? kind_names[kind] : NULL;
}

/* ---- encoding ---- */

static json_t *str_or_null(const char *s)
{
    return s ? pg_jstr(s) : json_null();
}

/* The perf list: [{"index": I, "result": {...}}, ...]. */
static json_t *perf_json(const pg_wev_perf *perf, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        if (json_array_append_new(list, json_pack("{s:i, s:o}", "index", perf[i].index, "result",
                                                  pg_cmp_result_to_json(&perf[i].result))) != 0) {
            json_decref(list);
            return NULL;
        }
    return list;
}

/* ev as one JSON object, "ev" first and its fields after it in the channel's order: *out, a new
 * reference. */
static pg_status event_json(const pg_worker_event *ev, json_t **out, pg_diag *d)
{
    const char *kind = pg_wev_kind_name(ev->kind);
    *out = NULL;
    if (!kind)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "worker event of unknown kind %d",
                           (int)ev->kind);
    const char *missing = NULL;
    json_t *j = NULL;
    switch (ev->kind) {
    case PG_WEV_READY:
        j = json_pack("{s:s, s:o}", "ev", kind, "startup_s", pg_wire_real(ev->ready.startup_s));
        break;
    case PG_WEV_DEVICE:
        j = json_pack("{s:s, s:o}", "ev", kind, "info", pg_device_info_to_json(&ev->device));
        break;
    case PG_WEV_UNAVAILABLE:
    case PG_WEV_HEAT_FAILED:
    case PG_WEV_STOPPED:
        j = json_pack("{s:s, s:o}", "ev", kind, "reason", pg_jstr(ev->reason));
        break;
    case PG_WEV_HEATING:
    case PG_WEV_DONE:
        j = json_pack("{s:s}", "ev", kind);
        break;
    case PG_WEV_PROGRESS:
        if (!ev->progress.stage) {
            missing = "stage";
            break;
        }
        j = json_pack("{s:s, s:o, s:o, s:o, s:o}", "ev", kind, "workload",
                      str_or_null(ev->progress.workload), "stage", pg_jstr(ev->progress.stage),
                      "status", str_or_null(ev->progress.status), "message",
                      str_or_null(ev->progress.message));
        break;
    case PG_WEV_STAGE:
        if (!ev->stage.record) {
            missing = "record";
            break;
        }
        j = json_pack("{s:s, s:O}", "ev", kind, "record", ev->stage.record);
        break;
    case PG_WEV_WORKLOAD: {
        if (!ev->workload.record) {
            missing = "record";
            break;
        }
        json_t *peaks = ev->workload.have_peaks ? pg_peaks_to_json(ev->workload.peak_tflops,
                                                                   ev->workload.peak_write_gbps)
                                                : json_null();
        json_t *events = ev->workload.baseline_events ? json_incref(ev->workload.baseline_events)
                                                      : json_array();
        j = json_pack("{s:s, s:i, s:b, s:O, s:o, s:o, s:o}", "ev", kind, "index",
                      ev->workload.index, "final", ev->workload.final, "record",
                      ev->workload.record, "perf",
                      perf_json(ev->workload.perf, ev->workload.n_perf), "peaks", peaks,
                      "baseline_events", events);
        break;
    }
    }
    if (missing)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, missing, "a \"%s\" event needs its %s",
                           kind, missing);
    if (!j)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    *out = j;
    return PG_OK;
}

pg_status pg_worker_event_encode(const pg_worker_event *ev, char **line, size_t *len,
                                 pg_diag *d)
{
    *line = NULL;
    *len = 0;
    json_t *j = NULL;
    pg_status st = event_json(ev, &j, d);
    if (st != PG_OK)
        return st;
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    size_t n = text ? strlen(text) : 0;
    char *out = text ? realloc(text, n + 2) : NULL;
    if (!out) {
        free(text);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    *line = out;
    *len = n + 1;
    return PG_OK;
}

/* ---- decoding ---- */

static pg_status bad(pg_diag *d, const pg_jctx *c, const char *key, const char *what)
{
    char field[320];
    return pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, pg_jctx_field(c, key, field, sizeof field),
                       "%s", what);
}

/* A string or null; absent reads as null. */
static pg_status get_nullable_str(const json_t *obj, const pg_jctx *c, const char *key,
                                  const char **out, pg_diag *d)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return PG_OK;
    if (!json_is_string(v))
        return bad(d, c, key, "expected a string or null");
    *out = json_string_value(v);
    return PG_OK;
}

static pg_status get_index(const json_t *obj, const pg_jctx *c, const char *key, int *out,
                           pg_diag *d)
{
    int64_t v;
    pg_status st = pg_jget_int(obj, c, key, true, &v, d);
    if (st != PG_OK)
        return st;
    if (v < 0 || v > INT_MAX)
        return bad(d, c, key, "expected an index (an integer from 0)");
    *out = (int)v;
    return PG_OK;
}

static pg_status decode_perf(const json_t *ev_obj, const pg_jctx *top, pg_worker_event *ev,
                             pg_diag *d)
{
    json_t *list = NULL;
    pg_status st = pg_jget_array(ev_obj, top, "perf", false, &list, d);
    if (st != PG_OK || !list || json_array_size(list) == 0)
        return st;
    pg_jctx pc = pg_jctx_member(top, "perf");
    ev->workload.perf = calloc(json_array_size(list), sizeof *ev->workload.perf);
    if (!ev->workload.perf)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i), *result = NULL;
        pg_jctx ec = pg_jctx_index(&pc, i);
        pg_wev_perf *p = &ev->workload.perf[i];
        if (!json_is_object(e))
            return pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, ec.path,
                               "expected an object {\"index\", \"result\"}");
        if ((st = get_index(e, &ec, "index", &p->index, d)) != PG_OK ||
            (st = pg_jget_object(e, &ec, "result", true, &result, d)) != PG_OK)
            return st;
        if (!pg_cmp_result_from_json(result, &p->result))
            return bad(d, &ec, "result", "expected a comparison result with every field");
        ev->workload.n_perf++;
    }
    return PG_OK;
}

static pg_status decode_peaks(const json_t *ev_obj, const pg_jctx *top, pg_worker_event *ev,
                              pg_diag *d)
{
    const json_t *peaks = json_object_get(ev_obj, "peaks");
    if (!peaks || json_is_null(peaks))
        return PG_OK;
    if (!json_is_object(peaks))
        return bad(d, top, "peaks", "expected an object {\"tflops\", \"write_gbps\"} or null");
    pg_jctx pc = pg_jctx_member(top, "peaks");
    const char *keys[] = {"tflops", "write_gbps"};
    double *dst[] = {&ev->workload.peak_tflops, &ev->workload.peak_write_gbps};
    for (int k = 0; k < 2; k++) {
        const json_t *v = json_object_get(peaks, keys[k]);
        if (json_is_null(v))
            *dst[k] = NAN;
        else if (json_is_number(v))
            *dst[k] = json_number_value(v);
        else
            return bad(d, &pc, keys[k], "expected a number or null");
    }
    ev->workload.have_peaks = true;
    return PG_OK;
}

static pg_status decode_workload(const json_t *j, const pg_jctx *top, pg_worker_event *ev,
                                 pg_diag *d)
{
    json_t *rec = NULL, *stages = NULL, *events = NULL;
    pg_status st;
    if ((st = get_index(j, top, "index", &ev->workload.index, d)) != PG_OK ||
        (st = pg_jget_bool(j, top, "final", true, &ev->workload.final, d)) != PG_OK ||
        (st = pg_jget_object(j, top, "record", true, &rec, d)) != PG_OK)
        return st;
    pg_jctx rc = pg_jctx_member(top, "record");
    if ((st = pg_jget_string(rec, &rc, "name", true, &ev->workload.name, d)) != PG_OK ||
        (st = pg_jget_array(rec, &rc, "stages", true, &stages, d)) != PG_OK)
        return st;
    ev->workload.record = rec;
    if ((st = decode_perf(j, top, ev, d)) != PG_OK || (st = decode_peaks(j, top, ev, d)) != PG_OK ||
        (st = pg_jget_array(j, top, "baseline_events", false, &events, d)) != PG_OK)
        return st;
    for (size_t i = 0; i < json_array_size(events); i++)
        if (!json_is_string(json_array_get(events, i))) {
            pg_jctx bc = pg_jctx_member(top, "baseline_events");
            pg_jctx ic = pg_jctx_index(&bc, i);
            return pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, ic.path, "expected a string");
        }
    ev->workload.baseline_events = events;
    return PG_OK;
}

/* The fields of kind ev->kind from j. */
static pg_status decode_fields(const json_t *j, const pg_jctx *top, pg_worker_event *ev,
                               pg_diag *d)
{
    json_t *obj = NULL;
    pg_status st = PG_OK;
    switch (ev->kind) {
    case PG_WEV_READY:
        if (!json_object_get(j, "startup_s"))
            return bad(d, top, "startup_s", "missing (expected seconds, a number)");
        if (!pg_wire_real_value(json_object_get(j, "startup_s"), &ev->ready.startup_s))
            return bad(d, top, "startup_s", "expected seconds, a number");
        return PG_OK;
    case PG_WEV_DEVICE:
        if ((st = pg_jget_object(j, top, "info", true, &obj, d)) != PG_OK)
            return st;
        if (!pg_device_info_from_json(obj, &ev->device))
            return bad(d, top, "info", "expected the GPU's fingerprint with every field");
        return PG_OK;
    case PG_WEV_UNAVAILABLE:
    case PG_WEV_HEAT_FAILED:
    case PG_WEV_STOPPED:
        return pg_jget_string(j, top, "reason", true, &ev->reason, d);
    case PG_WEV_HEATING:
    case PG_WEV_DONE:
        return PG_OK;
    case PG_WEV_PROGRESS:
        if ((st = pg_jget_string(j, top, "stage", true, &ev->progress.stage, d)) != PG_OK ||
            (st = get_nullable_str(j, top, "workload", &ev->progress.workload, d)) != PG_OK ||
            (st = get_nullable_str(j, top, "status", &ev->progress.status, d)) != PG_OK ||
            (st = get_nullable_str(j, top, "message", &ev->progress.message, d)) != PG_OK)
            return st;
        return PG_OK;
    case PG_WEV_STAGE:
        if ((st = pg_jget_object(j, top, "record", true, &obj, d)) != PG_OK)
            return st;
        ev->stage.record = obj;
        return PG_OK;
    case PG_WEV_WORKLOAD:
        return decode_workload(j, top, ev, d);
    }
    return bad(d, top, "ev", "unknown event kind");
}

pg_status pg_worker_event_decode(const char *line, size_t len, pg_worker_event *ev,
                                 pg_diag *d)
{
    memset(ev, 0, sizeof *ev);
    pg_jctx top = {.file = LINE_SOURCE};
    json_error_t err;
    json_t *j = line ? json_loadb(line, len, 0, &err) : NULL;
    if (!j)
        return pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, NULL, "not JSON: %s",
                           line ? err.text : "no text");
    if (!json_is_object(j)) {
        pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, NULL, "expected a JSON object, found %s",
                    pg_json_type_name(j));
        json_decref(j);
        return PG_ERR_INPUT;
    }
    const char *kind = NULL;
    pg_status st = pg_jget_string(j, &top, "ev", true, &kind, d);
    if (st == PG_OK) {
        size_t k = 0;
        while (k < N_KINDS && strcmp(kind_names[k], kind) != 0)
            k++;
        if (k == N_KINDS)
            st = pg_diag_set(d, PG_ERR_INPUT, LINE_SOURCE, 0, "ev",
                             "unknown event kind \"%.64s\"", kind);
        else
            ev->kind = (pg_wev_kind)k;
    }
    if (st == PG_OK)
        st = decode_fields(j, &top, ev, d);
    if (st != PG_OK) {
        if (ev->kind == PG_WEV_WORKLOAD)
            free(ev->workload.perf);
        memset(ev, 0, sizeof *ev);
        json_decref(j);
        return st;
    }
    ev->root = j;
    return PG_OK;
}

void pg_worker_event_release(pg_worker_event *ev)
{
    if (!ev->root)
        return;
    if (ev->kind == PG_WEV_WORKLOAD)
        free(ev->workload.perf);
    json_decref(ev->root);
    memset(ev, 0, sizeof *ev);
}
