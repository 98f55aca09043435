/* The stage ledger (ledger.h): typed stage entries, each next to the JSON record it writes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "ledger.h"
#include "results_json.h"

static const char *const k_kind_names[PG_STAGE_KIND_COUNT] = {
    [PG_STAGE_MANIFEST] = "manifest",         [PG_STAGE_SUPPORTS] = "supports",
    [PG_STAGE_ASSEMBLE] = "assemble",         [PG_STAGE_LOAD] = "load",
    [PG_STAGE_CORRECTNESS] = "correctness",   [PG_STAGE_INSTRUCTIONS] = "instructions",
    [PG_STAGE_PERFORMANCE] = "performance",   [PG_STAGE_VERIFY] = "verify",
    [PG_STAGE_SANITIZE] = "sanitize",         [PG_STAGE_WORKER] = "worker",
};

const char *pg_stage_kind_name(pg_stage_kind k)
{
    return (unsigned)k < PG_STAGE_KIND_COUNT ? k_kind_names[k] : "?";
}

bool pg_stage_kind_from_name(const char *name, pg_stage_kind *out)
{
    for (int k = 0; name && k < PG_STAGE_KIND_COUNT; k++)
        if (strcmp(name, k_kind_names[k]) == 0) {
            *out = (pg_stage_kind)k;
            return true;
        }
    return false;
}

bool pg_stage_status_from_name(const char *name, pg_res_status *out)
{
    static const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, pg_res_status_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

pg_stage_entry *pg_stage_entry_wrap(pg_stage_kind kind, json_t *record, json_t *details,
                                    pg_res_status status, const char *message,
                                    double duration_s)
{
    pg_stage_entry *e = record ? calloc(1, sizeof *e) : NULL;
    char *msg = e ? strdup(message ? message : "") : NULL;
    if (!msg) {
        free(e);
        json_decref(record);
        return NULL;
    }
    *e = (pg_stage_entry){kind, status, msg, duration_s, record, details};
    return e;
}

pg_stage_entry *pg_stage_entry_new(pg_stage_kind kind)
{
    json_t *details = json_object();
    json_t *rec = json_pack("{s:s, s:s, s:s, s:f, s:O}", "stage", pg_stage_kind_name(kind),
                            "status", "skipped", "message", "", "duration_s", 0.0, "details",
                            details);
    json_decref(details); /* the record holds it */
    return pg_stage_entry_wrap(kind, rec, rec ? details : NULL, PG_RES_SKIPPED, "", 0.0);
}

void pg_stage_entry_free(pg_stage_entry *e)
{
    if (!e)
        return;
    json_decref(e->record);
    free(e->message);
    free(e);
}

void pg_stage_entry_note(pg_stage_entry *e, pg_res_status status, const char *message,
                         double duration_s)
{
    if (!e)
        return;
    char *m = strdup(message ? message : "");
    if (m) {
        free(e->message);
        e->message = m;
    }
    e->status = status;
    e->duration_s = duration_s;
}

void pg_stage_finish(pg_stage_entry *e, const char *status, double duration_s, const char *fmt,
                     ...)
{
    if (!e)
        return;
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(msg, sizeof msg, fmt, ap) >= (int)sizeof msg)
        pg_utf8_trim_cut(msg); /* cut by the buffer: at a whole character */
    va_end(ap);
    pg_res_status st;
    if (!pg_stage_status_from_name(status, &st))
        st = PG_RES_ERROR;
    /* Rounded to the microsecond so the JSON stays readable. */
    double dur = round(duration_s * 1e6) / 1e6;
    json_t *jm = pg_jstr(msg);
    pg_stage_entry_note(e, st, json_string_value(jm), dur);
    json_object_set_new(e->record, "status", json_string(pg_res_status_name(st)));
    json_object_set_new(e->record, "message", jm);
    json_object_set_new(e->record, "duration_s", json_real(dur));
}

json_t *pg_stage_details(pg_stage_entry *e)
{
    return e ? e->details : NULL;
}

const char *pg_stage_status(const pg_stage_entry *e)
{
    return e ? pg_res_status_name(e->status) : "";
}

const char *pg_stage_message(const pg_stage_entry *e)
{
    return e ? e->message : "";
}

bool pg_stage_is(const pg_stage_entry *e, pg_stage_kind k, pg_res_status st)
{
    return e && e->kind == k && e->status == st;
}

void pg_ledger_init(pg_ledger *l, json_t *array)
{
    pg_ledger_release(l);
    l->array = json_incref(array);
}

void pg_ledger_release(pg_ledger *l)
{
    for (size_t i = 0; i < l->n; i++)
        pg_stage_entry_free(l->items[i]);
    free(l->items);
    json_decref(l->array);
    *l = (pg_ledger){0};
}

pg_stage_entry *pg_ledger_push(pg_ledger *l, pg_stage_entry *e)
{
    if (!e)
        return NULL;
    if (l->n >= PG_LEDGER_MAX) {
        pg_stage_entry_free(e);
        return NULL;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        pg_stage_entry **items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            pg_stage_entry_free(e);
            return NULL;
        }
        l->items = items;
        l->cap = cap;
    }
    if (l->array)
        json_array_append(l->array, e->record);
    l->items[l->n++] = e;
    return e;
}

pg_stage_entry *pg_ledger_begin(pg_ledger *l, pg_stage_kind kind)
{
    return pg_ledger_push(l, pg_stage_entry_new(kind));
}

pg_stage_entry *pg_ledger_at(const pg_ledger *l, size_t i)
{
    return i < l->n ? l->items[i] : NULL;
}

pg_stage_entry *pg_ledger_last(const pg_ledger *l)
{
    return l->n ? l->items[l->n - 1] : NULL;
}

pg_stage_entry *pg_ledger_find(const pg_ledger *l, pg_stage_kind k)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i]->kind == k)
            return l->items[i];
    return NULL;
}

pg_stage_entry *pg_ledger_find_last(const pg_ledger *l, pg_stage_kind k)
{
    for (size_t i = l->n; i-- > 0;)
        if (l->items[i]->kind == k)
            return l->items[i];
    return NULL;
}
