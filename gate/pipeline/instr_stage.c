/* The instructions stage's typed result and its writer (instr_stage.h). */
#include "instr_stage.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_json.h"
#include "base/utf8.h"

const char pg_instr_rule[] =
    "each target must be in the PTX (opcode and modifier set, never a substring) and, as one of "
    "its SASS families, in the disassembled cubin; then executed and covering the required work";

pg_instr_stage *pg_instr_stage_new(void)
{
    pg_instr_stage *st = calloc(1, sizeof *st);
    if (st)
        snprintf(st->status, sizeof st->status, "skipped");
    return st;
}

static json_t *copy_or_null(const json_t *j)
{
    return j ? json_deep_copy(j) : NULL;
}

pg_instr_stage *pg_instr_stage_copy(const pg_instr_stage *st)
{
    if (!st)
        return NULL;
    pg_instr_stage *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    memcpy(c, st, sizeof *c);
    c->table = copy_or_null(st->table);
    c->ptx = copy_or_null(st->ptx);
    c->sass = copy_or_null(st->sass);
    c->runtime = copy_or_null(st->runtime);
    for (int i = 0; i < st->n_targets; i++) {
        c->targets[i].ptx = copy_or_null(st->targets[i].ptx);
        c->targets[i].sass = copy_or_null(st->targets[i].sass);
    }
    return c;
}

void pg_instr_stage_free(pg_instr_stage *st)
{
    if (!st)
        return;
    json_decref(st->table);
    json_decref(st->ptx);
    json_decref(st->sass);
    json_decref(st->runtime);
    for (int i = 0; i < st->n_targets; i++) {
        json_decref(st->targets[i].ptx);
        json_decref(st->targets[i].sass);
    }
    free(st);
}

void pg_instr_target_runtime_clear(pg_instr_target *t)
{
    snprintf(t->rt_status, sizeof t->rt_status, "not measured");
    t->rt_executed = t->rt_coverage = t->rt_min_coverage = NAN;
    t->rt_has_reason = false;
    t->rt_reason[0] = '\0';
}

/* A number as a record holds it: non-finite numbers are null, read as 0. */
static double num(double v)
{
    return isfinite(v) ? v : 0.0;
}

void pg_instr_stage_finish(pg_instr_stage *st)
{
    size_t n = (size_t)st->n_targets, failed = 0, unknown = 0, measured = 0, i;
    bool sass_error = strcmp(st->sass_status, "error") == 0;
    const pg_instr_target *t;
    for (i = 0; i < n; i++) {
        t = &st->targets[i];
        failed += strcmp(t->status, "fail") == 0;
        unknown += strcmp(t->status, "unknown") == 0;
        measured += strcmp(t->rt_status, "measured") == 0;
    }
    char *msg = st->message;
    size_t cap = sizeof st->message, used = 0;
#define ADD(...)                                                                                  \
    do {                                                                                          \
        if (used < cap)                                                                           \
            used += (size_t)snprintf(msg + used, cap - used, __VA_ARGS__);                        \
    } while (0)
    msg[0] = '\0';
    const char *status;
    if (failed) {
        bool warn = strcmp(st->policy, "warn") == 0;
        status = warn ? "pass" : "fail";
        if (warn)
            ADD("warning (instructions policy warn: not failing the submission): ");
        ADD("%zu of %zu target%s fail%s on %s: ", failed, n, n == 1 ? "" : "s",
            failed == 1 ? "s" : "", st->arch);
        bool first = true;
        for (i = 0; i < n; i++) {
            t = &st->targets[i];
            if (strcmp(t->status, "fail") != 0)
                continue;
            ADD("%s%s", first ? "" : "; ", t->summary);
            if (strcmp(t->reason, "never_executed") == 0)
                ADD(" — present but never executed (executed count 0)");
            else if (strcmp(t->reason, "coverage_too_low") == 0)
                ADD(" — executed %g times but covering %.4g of the required work (minimum %.4g)",
                    num(t->rt_executed), num(t->rt_coverage), num(t->rt_min_coverage));
            first = false;
        }
    } else if (sass_error || unknown) {
        status = sass_error ? "error" : "skipped";
        ADD("SASS not checked (%s); in the PTX:", st->sass_reason);
        for (i = 0; i < n; i++)
            ADD("%s %s ×%lld", i ? "," : "", st->targets[i].target, st->targets[i].ptx_count);
    } else {
        status = "pass";
        ADD("%zu/%zu target%s in the PTX and the SASS on %s:", n, n, n == 1 ? "" : "s",
            st->arch);
        for (i = 0; i < n; i++) {
            t = &st->targets[i];
            ADD("%s %s (PTX ×%lld, SASS ×%lld", i ? "," : "", t->target, t->ptx_count,
                t->sass_counted ? t->sass_count : 0LL);
            /* The runtime half's numbers, when measured: the message is what people read. */
            if (strcmp(t->rt_status, "measured") == 0) {
                ADD(", executed %.0f", num(t->rt_executed));
                if (isfinite(t->rt_coverage))
                    ADD(", coverage %.3f", t->rt_coverage);
            }
            ADD(")");
        }
    }
    if (!failed && measured && measured < n)
        ADD("; executed counts measured for %zu of %zu targets", measured, n);
    else if (!failed && measured < n)
        ADD("; executed counts not measured");
#undef ADD
    snprintf(st->status, sizeof st->status, "%s", status);
}

void pg_instr_record_runtime(pg_instr_stage *st, const char *target, double executed,
                             double coverage, double min_coverage)
{
    for (int i = 0; i < st->n_targets; i++) {
        pg_instr_target *t = &st->targets[i];
        if (strcmp(t->target, target) != 0)
            continue;
        const char *reason = NULL;
        if (isfinite(executed) && executed <= 0)
            reason = "never_executed";
        else if (isfinite(coverage) && isfinite(min_coverage) && coverage < min_coverage)
            reason = "coverage_too_low";
        snprintf(t->rt_status, sizeof t->rt_status, "%s",
                 isfinite(executed) ? "measured" : "not measured");
        t->rt_executed = executed;
        t->rt_coverage = coverage;
        t->rt_min_coverage = min_coverage;
        t->rt_has_reason = reason != NULL;
        snprintf(t->rt_reason, sizeof t->rt_reason, "%s", reason ? reason : "");
        if (reason && !t->reason[0]) {
            snprintf(t->reason, sizeof t->reason, "%s", reason);
            snprintf(t->status, sizeof t->status, "fail");
        }
        pg_instr_stage_finish(st);
        return;
    }
}

static json_t *fragment(const json_t *j)
{
    return j ? json_deep_copy(j) : json_object();
}

static json_t *target_json(const pg_instr_target *t)
{
    json_t *o = json_object(), *fams = json_array();
    for (int k = 0; k < t->n_sass; k++)
        json_array_append_new(fams, json_string(t->sass_families[k]));
    json_object_set_new(o, "target", pg_jstr(t->target));
    json_object_set_new(o, "family", pg_jstr(t->family));
    json_object_set_new(o, "sass_families", fams);
    json_object_set_new(o, "status", json_string(t->status));
    json_object_set_new(o, "reason", t->reason[0] ? json_string(t->reason) : json_null());
    json_object_set_new(o, "summary", pg_jstr(t->summary));
    json_object_set_new(o, "ptx", fragment(t->ptx));
    json_object_set_new(o, "sass", fragment(t->sass));
    json_t *rt = json_object();
    json_object_set_new(rt, "status", json_string(t->rt_status));
    json_object_set_new(rt, "executed_count", pg_json_real_or_null(t->rt_executed));
    json_object_set_new(rt, "coverage", pg_json_real_or_null(t->rt_coverage));
    json_object_set_new(rt, "min_coverage", pg_json_real_or_null(t->rt_min_coverage));
    json_object_set_new(rt, "reason", t->rt_has_reason ? pg_jstr(t->rt_reason) : json_null());
    json_object_set_new(o, "runtime", rt);
    return o;
}

json_t *pg_instr_stage_json(const pg_instr_stage *st)
{
    /* The record's skeleton as every stage's (its keys in the same order). */
    pg_stage_entry *e = pg_stage_entry_new(PG_STAGE_INSTRUCTIONS);
    if (!e)
        return NULL;
    json_t *rec = json_incref(e->record), *det = e->details;
    pg_stage_entry_free(e);
    json_object_set_new(rec, "status", json_string(st->status));
    json_object_set_new(rec, "message", pg_jstr(st->message));
    json_object_set_new(rec, "duration_s", json_real(st->duration_s));
    json_object_set_new(det, "policy", json_string(st->policy));
    json_object_set_new(det, "arch", pg_jstr(st->arch));
    if (st->table)
        json_object_set_new(det, "table", json_deep_copy(st->table));
    if (st->ptx)
        json_object_set_new(det, "ptx", json_deep_copy(st->ptx));
    if (st->sass)
        json_object_set_new(det, "sass", json_deep_copy(st->sass));
    if (st->has_targets) {
        json_t *targets = json_array();
        for (int i = 0; i < st->n_targets; i++)
            json_array_append_new(targets, target_json(&st->targets[i]));
        json_object_set_new(det, "targets", targets);
        json_object_set_new(det, "rule", json_string(pg_instr_rule));
    }
    if (st->runtime)
        json_object_set_new(det, "runtime", json_deep_copy(st->runtime));
    return rec;
}

void pg_instr_stage_end(pg_instr_stage *st, const char *status, double duration_s,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(st->message, sizeof st->message, fmt, ap) >= (int)sizeof st->message)
        pg_utf8_trim_cut(st->message); /* cut by the buffer: at a whole character */
    va_end(ap);
    snprintf(st->status, sizeof st->status, "%s", status);
    st->duration_s = round(duration_s * 1e6) / 1e6;
}
