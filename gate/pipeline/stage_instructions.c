/* The instructions stage (docs/instructions.md): does the submission use the target
 * instructions its task names for this architecture? The static half runs once per submission
 * right after assemble: the PTX instruction inventory against the targets, and the SASS opcode
 * inventory of the very cubin the load stage will load (disassembled with nvdisasm or
 * cuobjdump). The result is typed (instr_stage.h, s->instr); every workload records a copy
 * written from it between correctness and performance, and the runtime half (executed counts,
 * coverage) completes its own typed copy through pg_instr_record_runtime and writes the record
 * again. A SASS part that could not be checked is never a pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instr_stage.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "model/target_check.h"
#include "ptx/sass_listing.h"
#include "tool/disasm.h"

/* ---- the SASS part ---- */

typedef struct {
    const char *status;     /* "checked", "skipped" or "error" */
    char reason[1024];      /* why not checked */
    pg_sass_listing listing;
    bool has_listing;
} sass_part;

/* Instructions per SASS family of the whole cubin, in order of first appearance. */
static json_t *families_json(const pg_sass_listing *l)
{
    const char **names = malloc((l->n_instrs ? l->n_instrs : 1) * sizeof *names);
    json_int_t *counts = malloc((l->n_instrs ? l->n_instrs : 1) * sizeof *counts);
    json_t *fam = json_object();
    size_t n = 0;
    if (names && counts) {
        for (size_t i = 0; i < l->n_instrs; i++) {
            const char *f = l->instrs[i].family;
            size_t k = 0;
            while (k < n && strcmp(names[k], f) != 0)
                k++;
            if (k == n) {
                names[n] = f;
                counts[n++] = 0;
            }
            counts[k]++;
        }
        for (size_t k = 0; k < n; k++)
            json_object_set_new(fam, names[k], json_integer(counts[k]));
    }
    free(names);
    free(counts);
    return fam;
}

static void disassemble(pg_run *run, pg_submission *s, pg_instr_stage *rec, sass_part *p)
{
    json_t *sj = json_object();
    rec->sass = sj;
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
    snprintf(rec->sass_status, sizeof rec->sass_status, "%s", p->status);
    snprintf(rec->sass_reason, sizeof rec->sass_reason, "%s", p->reason);
    if (!p->has_listing)
        return;
    json_t *fam = families_json(&p->listing);
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

static void target_fill(pg_instr_target *o, const pg_tc_result *r, const pg_arch_table *table,
                        const sass_part *p)
{
    const pg_target *tg = r->target;
    char summary[2048];
    pg_tc_describe(r, summary, sizeof summary);
    if (!r->sass_checked && r->ptx_count > 0) /* say why the SASS part was not checked */
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), " (%s)", p->reason);
    memset(o, 0, sizeof *o);
    snprintf(o->target, sizeof o->target, "%s", tg->pattern.text);
    snprintf(o->family, sizeof o->family, "%s", table->families[tg->family].ptx.text);
    o->n_sass = tg->n_sass;
    for (int k = 0; k < tg->n_sass; k++)
        snprintf(o->sass_families[k], sizeof o->sass_families[k], "%s", tg->sass[k]);
    snprintf(o->status, sizeof o->status, "%s",
             r->reason ? "fail" : r->sass_checked ? "pass" : "unknown");
    snprintf(o->reason, sizeof o->reason, "%s", r->reason ? r->reason : "");
    snprintf(o->summary, sizeof o->summary, "%s", summary);
    o->ptx_count = (long long)r->ptx_count;
    o->sass_counted = r->sass_checked;
    o->sass_count = (long long)r->sass_count;

    json_t *ptx = json_object();
    json_object_set_new(ptx, "count", json_integer((json_int_t)r->ptx_count));
    json_object_set_new(ptx, "lines", lines_json(r->ptx_lines, r->n_ptx_lines));
    json_object_set_new(ptx, "mnemonics", mnemonics_json(r->found, r->n_found));
    json_object_set_new(ptx, "nearest", mnemonics_json(r->nearest, r->n_nearest));
    o->ptx = ptx;

    json_t *sass = json_object(), *ops = json_array();
    json_object_set_new(sass, "status", json_string(p->status));
    json_object_set_new(sass, "count", r->sass_checked ? json_integer((json_int_t)r->sass_count)
                                                       : json_null());
    for (int i = 0; i < r->n_opcodes; i++)
        json_array_append_new(ops, json_pack("{s:s, s:I}", "opcode", r->opcodes[i].opcode,
                                             "count", (json_int_t)r->opcodes[i].count));
    json_object_set_new(sass, "opcodes", ops);
    o->sass = sass;

    /* Left for the runtime half (pg_instr_record_runtime): not measured is not a pass. */
    pg_instr_target_runtime_clear(o);
}

/* ---- the static half ---- */

static void static_check(pg_run *run, pg_submission *s, pg_instr_stage *st)
{
    st->table = pg_jstr(s->arch_table->file);
    json_t *ptx = json_object();
    /* Line numbers refer to the PTX that was assembled: the source itself, or for a .cu the
     * output of `nvcc -ptx -lineinfo` (assemble details.nvcc.command reproduces it). */
    json_object_set_new(ptx, "file", pg_jstr(s->from_cu ? "nvcc -ptx output" : s->ptx_path));
    json_object_set_new(ptx, "instructions", json_integer((json_int_t)s->inventory.n_instrs));
    json_object_set_new(ptx, "uses_preprocessor", json_boolean(s->inventory.uses_preprocessor));
    st->ptx = ptx;
    sass_part p = {0};
    disassemble(run, s, st, &p);
    pg_tc_result r[PG_MAX_TARGETS];
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_target_check(&s->targets, s->arch_table, &s->inventory,
                        p.has_listing ? &p.listing : NULL, r, &d) != PG_OK) {
        pg_instr_stage_end(st, "error", 0.0, "%s", d.message);
    } else {
        st->has_targets = true;
        st->n_targets = s->targets.n_targets;
        for (int i = 0; i < s->targets.n_targets; i++)
            target_fill(&st->targets[i], &r[i], s->arch_table, &p);
        pg_instr_stage_finish(st);
    }
    pg_sass_listing_free(&p.listing);
}

void pg_instr_static(pg_run *run, pg_submission *s)
{
    pg_instr_stage *st = pg_instr_stage_new();
    if (!st) {
        pg_ptx_inventory_free(&s->inventory);
        return; /* out of memory: every workload records an error (pg_stage_instructions) */
    }
    double t0 = pg_now_s();
    snprintf(st->policy, sizeof st->policy, "%s", s->instr_policy);
    snprintf(st->arch, sizeof st->arch, "%s", s->arch);
    const char *assembled = pg_stage_status(pg_ledger_at(&s->stages, 0));
    bool offline_ok = strcmp(assembled, "pass") == 0 || strcmp(assembled, "skipped") == 0;
    if (strcmp(s->instr_policy, "off") == 0) {
        pg_instr_stage_end(st, "skipped", 0.0,
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
        pg_instr_stage_end(st, warn ? "pass" : "fail", 0.0,
                        "%stask '%s' requires target instructions on %s; the submission is built "
                        "for %s, which the task sets none for (build for one of those, e.g. "
                        "--arch or the manifest's arch)",
                        warn ? "warning (instructions policy warn: not failing the submission): "
                             : "",
                        s->task->id, archs, s->arch);
    } else if (!s->has_targets) {
        pg_instr_stage_end(st, "skipped", 0.0, "task '%s' lists no target instructions for %s",
                        s->task->id, s->arch);
    } else if (!offline_ok || !s->cu_compiled || !s->has_sig || s->refusal[0]) {
        pg_instr_stage_end(st, "skipped", 0.0, "not run: the assemble stage did not pass");
    } else if (!s->has_inventory) {
        pg_instr_stage_end(st, "error", pg_now_s() - t0,
                        "cannot read the PTX instructions (ptxgate's own reader; ptxas accepted "
                        "the PTX): %s",
                        s->inventory_error);
    } else {
        pg_progress(run, s, NULL, "instructions", NULL, NULL);
        static_check(run, s, st);
        st->duration_s = round((pg_now_s() - t0) * 1e6) / 1e6;
        pg_progress(run, s, NULL, "instructions", st->status, st->message);
    }
    s->instr = st;
    /* The inventory is not needed after this (the records keep what reports use). */
    pg_ptx_inventory_free(&s->inventory);
}

pg_stage_entry *pg_stage_instructions_rec(pg_run *run, pg_submission *s, pg_ledger *stages,
                                          pg_instr_stage **rec)
{
    (void)run;
    pg_instr_stage *copy = pg_instr_stage_copy(s->instr);
    pg_stage_entry *e = NULL;
    /* Computed once per submission: its time counts once. */
    if (copy && s->instr_copies > 0)
        copy->duration_s = 0.0;
    pg_res_status st = PG_RES_ERROR;
    if (copy && pg_stage_status_from_name(copy->status, &st))
        e = pg_stage_entry_wrap(PG_STAGE_INSTRUCTIONS, pg_instr_stage_json(copy), NULL, st,
                                copy->message, copy->duration_s);
    if (!e) {
        pg_instr_stage_free(copy);
        copy = NULL;
        e = pg_stage_entry_new(PG_STAGE_INSTRUCTIONS);
        pg_stage_finish(e, "error", 0.0, "out of memory copying the instructions stage");
    }
    s->instr_copies++;
    e = pg_ledger_push(stages, e);
    if (rec)
        *rec = copy;
    else
        pg_instr_stage_free(copy);
    return e;
}

pg_stage_entry *pg_stage_instructions(pg_run *run, pg_submission *s, pg_ledger *stages)
{
    return pg_stage_instructions_rec(run, s, stages, NULL);
}
