/* The instructions stage (docs/instructions.md): does the submission use the target
 * instructions its task names for this architecture? The static half runs once per submission
 * right after assemble: the PTX instruction inventory against the targets, and the SASS opcode
 * inventory of the very cubin the load stage will load (disassembled with nvdisasm or
 * cuobjdump). Every workload records a copy between correctness and performance; the runtime
 * half (executed counts, coverage) fills the fields left for it through
 * pg_instr_record_runtime. A SASS part that could not be checked is never a pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "model/target_check.h"
#include "ptx/sass_listing.h"
#include "tool/disasm.h"

#define RULE                                                                                      \
    "each target must be in the PTX (opcode and modifier set, never a substring) and, as one of " \
    "its SASS families, in the disassembled cubin; then executed and covering the required work"

/* ---- the SASS part ---- */

typedef struct {
    const char *status;     /* "checked", "skipped" or "error" */
    char reason[1024];      /* why not checked */
    pg_sass_listing listing;
    bool has_listing;
} sass_part;

static void disassemble(pg_run *run, pg_submission *s, json_t *det, sass_part *p)
{
    json_t *sj = json_object();
    json_object_set_new(det, "sass", sj);
    p->status = "skipped";
    if (!s->cubin_path[0]) {
        snprintf(p->reason, sizeof p->reason,
                 "skipped: no cubin (ptxas was not found; the driver JIT compiles the PTX at load)");
        goto done;
    }
    pg_disasm_result r;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_disassemble(s->cubin_path, run->o->timeout_s, &r, &d);
    if (r.tool_found) {
        json_object_set_new(sj, "tool", json_string(r.tool));
        json_object_set_new(sj, "tool_path", pg_jstr(r.tool_path));
        json_object_set_new(sj, "command", pg_jstr(r.command));
    }
    if (!r.tool_found && st == PG_ERR_INFRA) {
        snprintf(p->reason, sizeof p->reason, "skipped: %s", d.message);
    } else if (st != PG_OK || !r.ok) {
        char first[512] = "";
        if (r.output)
            snprintf(first, sizeof first, "%.*s", (int)strcspn(r.output, "\n"), r.output);
        p->status = "error";
        if (st != PG_OK)
            snprintf(p->reason, sizeof p->reason, "%s", d.message);
        else if (r.timed_out)
            snprintf(p->reason, sizeof p->reason, "%s timed out after %.0f s", r.tool,
                     run->o->timeout_s);
        else
            snprintf(p->reason, sizeof p->reason, "%s failed (exit code %d)%s%s", r.tool,
                     r.exit_code, first[0] ? ": " : "", first);
    } else if (pg_sass_listing_parse(r.output, r.output_len, r.tool, &p->listing, &d) != PG_OK) {
        p->status = "error";
        snprintf(p->reason, sizeof p->reason, "cannot read the %s listing: %s", r.tool, d.message);
    } else if (p->listing.n_instrs == 0) {
        p->status = "error";
        snprintf(p->reason, sizeof p->reason,
                 "the %s listing of the cubin holds no instruction", r.tool);
        pg_sass_listing_free(&p->listing);
    } else {
        p->status = "checked";
        p->has_listing = true;
        json_object_set_new(sj, "wall_s", json_real(round(r.wall_s * 1e6) / 1e6));
    }
    pg_disasm_result_free(&r);
done:
    json_object_set_new(sj, "status", json_string(p->status));
    json_object_set_new(sj, "reason", p->reason[0] ? pg_jstr(p->reason) : json_null());
    if (!p->has_listing)
        return;
    /* Instructions per SASS family of the whole cubin, in order of first appearance. */
    json_t *fam = json_object();
    for (size_t i = 0; i < p->listing.n_instrs; i++) {
        const char *f = p->listing.instrs[i].family;
        json_object_set_new(fam, f, json_integer(json_integer_value(json_object_get(fam, f)) + 1));
    }
    json_object_set_new(sj, "instructions", json_integer((json_int_t)p->listing.n_instrs));
    json_object_set_new(sj, "functions", json_integer((json_int_t)p->listing.n_functions));
    json_object_set_new(sj, "families", fam);
}

/* ---- the records ---- */

static json_t *lines_json(const int *lines, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(lines[i]));
    return a;
}

static json_t *mnemonics_json(const pg_tc_mnemonic *m, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "mnemonic", pg_jstr(m[i].mnemonic));
        json_object_set_new(o, "count", json_integer((json_int_t)m[i].count));
        json_object_set_new(o, "lines", lines_json(m[i].lines, m[i].n_lines));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *target_json(const pg_tc_result *r, const pg_arch_table *table,
                           const sass_part *p)
{
    const pg_target *tg = r->target;
    char summary[2048];
    pg_tc_describe(r, summary, sizeof summary);
    if (!r->sass_checked && r->ptx_count > 0) /* say why the SASS part was not checked */
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), " (%s)", p->reason);
    json_t *o = json_object(), *fams = json_array();
    for (int k = 0; k < tg->n_sass; k++)
        json_array_append_new(fams, json_string(tg->sass[k]));
    json_object_set_new(o, "target", pg_jstr(tg->pattern.text));
    json_object_set_new(o, "family", pg_jstr(table->families[tg->family].ptx.text));
    json_object_set_new(o, "sass_families", fams);
    json_object_set_new(o, "status", json_string(r->reason            ? "fail"
                                                 : r->sass_checked ? "pass"
                                                                   : "unknown"));
    json_object_set_new(o, "reason", r->reason ? json_string(r->reason) : json_null());
    json_object_set_new(o, "summary", pg_jstr(summary));

    json_t *ptx = json_object();
    json_object_set_new(ptx, "count", json_integer((json_int_t)r->ptx_count));
    json_object_set_new(ptx, "lines", lines_json(r->ptx_lines, r->n_ptx_lines));
    json_object_set_new(ptx, "mnemonics", mnemonics_json(r->found, r->n_found));
    json_object_set_new(ptx, "nearest", mnemonics_json(r->nearest, r->n_nearest));
    json_object_set_new(o, "ptx", ptx);

    json_t *sass = json_object(), *ops = json_array();
    json_object_set_new(sass, "status", json_string(p->status));
    json_object_set_new(sass, "count", r->sass_checked ? json_integer((json_int_t)r->sass_count)
                                                       : json_null());
    for (int i = 0; i < r->n_opcodes; i++)
        json_array_append_new(ops, json_pack("{s:s, s:I}", "opcode", r->opcodes[i].opcode,
                                             "count", (json_int_t)r->opcodes[i].count));
    json_object_set_new(sass, "opcodes", ops);
    json_object_set_new(o, "sass", sass);

    /* Left for the runtime half (pg_instr_record_runtime): not measured is not a pass. */
    json_object_set_new(o, "runtime",
                        json_pack("{s:s, s:n, s:n, s:n, s:n}", "status", "not measured",
                                  "executed_count", "coverage", "min_coverage", "reason"));
    return o;
}

/* ---- status and message from the target records ---- */

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Derive the stage's status and message from details.targets under details.policy. */
static void finish(json_t *stage)
{
    json_t *det = pg_stage_details(stage), *targets = json_object_get(det, "targets");
    const char *policy = jstr(det, "policy"), *arch = jstr(det, "arch");
    const char *sass_reason = jstr(json_object_get(det, "sass"), "reason");
    size_t n = json_array_size(targets), failed = 0, unknown = 0, measured = 0, i;
    bool sass_error = strcmp(jstr(json_object_get(det, "sass"), "status"), "error") == 0;
    json_t *t;
    json_array_foreach(targets, i, t) {
        failed += strcmp(jstr(t, "status"), "fail") == 0;
        unknown += strcmp(jstr(t, "status"), "unknown") == 0;
        measured += strcmp(jstr(json_object_get(t, "runtime"), "status"), "measured") == 0;
    }
    char msg[4096];
    size_t used = 0;
#define ADD(...)                                                                                  \
    do {                                                                                          \
        if (used < sizeof msg)                                                                    \
            used += (size_t)snprintf(msg + used, sizeof msg - used, __VA_ARGS__);                 \
    } while (0)
    msg[0] = '\0';
    const char *status;
    if (failed) {
        bool warn = strcmp(policy, "warn") == 0;
        status = warn ? "pass" : "fail";
        if (warn)
            ADD("warning (instructions policy warn: not failing the submission): ");
        ADD("%zu of %zu target%s fail%s on %s: ", failed, n, n == 1 ? "" : "s",
            failed == 1 ? "s" : "", arch);
        bool first = true;
        json_array_foreach(targets, i, t) {
            if (strcmp(jstr(t, "status"), "fail") != 0)
                continue;
            const json_t *rt = json_object_get(t, "runtime");
            const char *why = jstr(t, "reason");
            ADD("%s%s", first ? "" : "; ", jstr(t, "summary"));
            if (strcmp(why, "never_executed") == 0)
                ADD(" — present but never executed (executed count 0)");
            else if (strcmp(why, "coverage_too_low") == 0)
                ADD(" — executed %g times but covering %.4g of the required work (minimum %.4g)",
                    json_number_value(json_object_get(rt, "executed_count")),
                    json_number_value(json_object_get(rt, "coverage")),
                    json_number_value(json_object_get(rt, "min_coverage")));
            first = false;
        }
    } else if (sass_error || unknown) {
        status = sass_error ? "error" : "skipped";
        ADD("SASS not checked (%s); in the PTX:", sass_reason);
        json_array_foreach(targets, i, t) {
            const json_t *ptx = json_object_get(t, "ptx");
            ADD("%s %s ×%lld", i ? "," : "", jstr(t, "target"),
                (long long)json_integer_value(json_object_get(ptx, "count")));
        }
    } else {
        status = "pass";
        ADD("%zu/%zu target%s in the PTX and the SASS on %s:", n, n, n == 1 ? "" : "s", arch);
        json_array_foreach(targets, i, t) {
            const json_t *ptx = json_object_get(t, "ptx"), *sass = json_object_get(t, "sass");
            const json_t *rt = json_object_get(t, "runtime");
            ADD("%s %s (PTX ×%lld, SASS ×%lld", i ? "," : "", jstr(t, "target"),
                (long long)json_integer_value(json_object_get(ptx, "count")),
                (long long)json_integer_value(json_object_get(sass, "count")));
            /* The runtime half's numbers, when measured: the message is what people read. */
            if (strcmp(jstr(rt, "status"), "measured") == 0) {
                ADD(", executed %.0f", json_number_value(json_object_get(rt, "executed_count")));
                if (json_is_number(json_object_get(rt, "coverage")))
                    ADD(", coverage %.3f", json_number_value(json_object_get(rt, "coverage")));
            }
            ADD(")");
        }
    }
    if (!failed && measured && measured < n)
        ADD("; executed counts measured for %zu of %zu targets", measured, n);
    else if (!failed && measured < n)
        ADD("; executed counts not measured");
#undef ADD
    json_object_set_new(stage, "status", json_string(status));
    json_object_set_new(stage, "message", pg_jstr(msg));
}

/* ---- the static half ---- */

static void static_check(pg_run *run, pg_submission *s, json_t *stage)
{
    json_t *det = pg_stage_details(stage);
    json_object_set_new(det, "table", pg_jstr(s->arch_table->file));
    json_t *ptx = json_object();
    /* Line numbers refer to the PTX that was assembled: the source itself, or for a .cu the
     * output of `nvcc -ptx -lineinfo` (assemble details.nvcc.command reproduces it). */
    json_object_set_new(ptx, "file", pg_jstr(s->from_cu ? "nvcc -ptx output" : s->ptx_path));
    json_object_set_new(ptx, "instructions", json_integer((json_int_t)s->inventory.n_instrs));
    json_object_set_new(ptx, "uses_preprocessor", json_boolean(s->inventory.uses_preprocessor));
    json_object_set_new(det, "ptx", ptx);
    sass_part p = {0};
    disassemble(run, s, det, &p);
    pg_tc_result r[PG_MAX_TARGETS];
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_target_check(&s->targets, s->arch_table, &s->inventory,
                        p.has_listing ? &p.listing : NULL, r, &d) != PG_OK) {
        pg_stage_finish(stage, "error", 0.0, "%s", d.message);
    } else {
        json_t *targets = json_array();
        for (int i = 0; i < s->targets.n_targets; i++)
            json_array_append_new(targets, target_json(&r[i], s->arch_table, &p));
        json_object_set_new(det, "targets", targets);
        json_object_set_new(det, "rule", json_string(RULE));
        finish(stage);
    }
    pg_sass_listing_free(&p.listing);
}

void pg_instr_static(pg_run *run, pg_submission *s)
{
    json_t *stage = pg_stage_new("instructions");
    json_t *det = pg_stage_details(stage);
    double t0 = pg_now_s();
    json_object_set_new(det, "policy", json_string(s->instr_policy));
    json_object_set_new(det, "arch", pg_jstr(s->arch));
    const char *assembled = pg_stage_status(json_array_get(json_object_get(s->json, "stages"), 0));
    bool offline_ok = strcmp(assembled, "pass") == 0 || strcmp(assembled, "skipped") == 0;
    if (strcmp(s->instr_policy, "off") == 0) {
        pg_stage_finish(stage, "skipped", 0.0,
                        "instruction checks are off (--instructions off or the task's "
                        "gate.instructions)");
    } else if (!s->has_targets && json_object_size(s->task->targets) > 0) {
        /* Building for an architecture the task sets no targets for must not be a way around
         * them (an sm_80 cubin runs on an H200 too). */
        char archs[256] = "";
        size_t used = 0;
        const char *key;
        json_t *v;
        json_object_foreach(s->task->targets, key, v)
            if (used < sizeof archs)
                used += (size_t)snprintf(archs + used, sizeof archs - used, "%s%s",
                                         used ? ", " : "", key);
        bool warn = strcmp(s->instr_policy, "warn") == 0;
        pg_stage_finish(stage, warn ? "pass" : "fail", 0.0,
                        "%stask '%s' requires target instructions on %s; the submission is built "
                        "for %s, which the task sets none for (build for one of those, e.g. "
                        "--arch or the manifest's arch)",
                        warn ? "warning (instructions policy warn: not failing the submission): "
                             : "",
                        s->task->id, archs, s->arch);
    } else if (!s->has_targets) {
        pg_stage_finish(stage, "skipped", 0.0, "task '%s' lists no target instructions for %s",
                        s->task->id, s->arch);
    } else if (!offline_ok || !s->cu_compiled || !s->has_sig || s->refusal[0]) {
        pg_stage_finish(stage, "skipped", 0.0, "not run: the assemble stage did not pass");
    } else if (!s->has_inventory) {
        pg_stage_finish(stage, "error", pg_now_s() - t0,
                        "cannot read the PTX instructions (ptxgate's own reader; ptxas accepted "
                        "the PTX): %s",
                        s->inventory_error);
    } else {
        pg_progress(run, s, NULL, "instructions", NULL, NULL);
        static_check(run, s, stage);
        json_object_set_new(stage, "duration_s", json_real(round((pg_now_s() - t0) * 1e6) / 1e6));
        pg_progress(run, s, NULL, "instructions", pg_stage_status(stage),
                    json_string_value(json_object_get(stage, "message")));
    }
    s->instr_static = stage;
    /* The inventory is not needed after this (the records keep what reports use). */
    pg_ptx_inventory_free(&s->inventory);
}

json_t *pg_stage_instructions(pg_run *run, pg_submission *s, json_t *stages)
{
    (void)run;
    json_t *copy = s->instr_static ? json_deep_copy(s->instr_static) : NULL;
    if (!copy) {
        copy = pg_stage_new("instructions");
        pg_stage_finish(copy, "error", 0.0, "out of memory copying the instructions stage");
    }
    /* Computed once per submission: its time counts once. */
    if (s->instr_copies++ > 0)
        json_object_set_new(copy, "duration_s", json_real(0.0));
    json_array_append_new(stages, copy);
    return copy;
}

/* ---- the runtime half's entry point ---- */

void pg_instr_record_runtime(json_t *stage, const char *target, double executed,
                             double coverage, double min_coverage)
{
    json_t *targets = json_object_get(pg_stage_details(stage), "targets"), *t;
    size_t i;
    json_array_foreach(targets, i, t) {
        if (strcmp(jstr(t, "target"), target) != 0)
            continue;
        const char *reason = NULL;
        if (isfinite(executed) && executed <= 0)
            reason = "never_executed";
        else if (isfinite(coverage) && isfinite(min_coverage) && coverage < min_coverage)
            reason = "coverage_too_low";
        json_t *rt = json_object();
        json_object_set_new(rt, "status", json_string(isfinite(executed) ? "measured"
                                                                         : "not measured"));
        json_object_set_new(rt, "executed_count", pg_json_real_or_null(executed));
        json_object_set_new(rt, "coverage", pg_json_real_or_null(coverage));
        json_object_set_new(rt, "min_coverage", pg_json_real_or_null(min_coverage));
        json_object_set_new(rt, "reason", reason ? json_string(reason) : json_null());
        json_object_set_new(t, "runtime", rt);
        if (reason && !json_is_string(json_object_get(t, "reason"))) {
            json_object_set_new(t, "reason", json_string(reason));
            json_object_set_new(t, "status", json_string("fail"));
        }
        finish(stage);
        return;
    }
}
