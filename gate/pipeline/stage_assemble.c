/* The assemble stage: (.cu → PTX with nvcc, done in submission.c), the refusals checked before
 * assembly (dynamic parallelism, unresolved externals: ptx/refusals.h), PTX → cubin with ptxas
 * for the task's architecture, with diagnostics at PTX line numbers and per-entry resource usage.
 * Without ptxas the stage is skipped and the load stage hands the PTX to the driver JIT; it says
 * so. nvJitLink is never used for the cubin that runs (it drops setmaxnreg, see
 * measurements on the H200 test machine). */
#include <stdlib.h>
#include <string.h>

#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "base/utf8.h"

static const char *severity_name(pg_severity s)
{
    return s == PG_SEV_ERROR ? "error" : s == PG_SEV_WARNING ? "warning" : "info";
}

/* details: tool, command, diagnostics, per-entry usage, raw log. */
static void fill_details(json_t *det, const pg_assemble_result *r, const char *arch)
{
    json_object_set_new(det, "tool_path", pg_jstr(r->tool_path));
    json_object_set_new(det, "arch", json_string(arch));
    json_object_set_new(det, "command", pg_jstr(r->command));
    json_t *diags = json_array();
    for (int i = 0; i < r->log.n_diags; i++) {
        const pg_ptxas_diag *g = &r->log.diags[i];
        json_t *item = json_pack("{s:s, s:i}", "severity", severity_name(g->severity), "line",
                                 g->line);
        json_object_set_new(item, "message", pg_jstr(g->message));
        json_array_append_new(diags, item);
    }
    json_object_set_new(det, "diagnostics", diags);
    json_t *entries = json_array();
    for (int i = 0; i < r->log.n_entries; i++) {
        const pg_ptxas_entry_usage *u = &r->log.entries[i];
        json_t *e = json_pack("{s:o, s:i, s:I, s:I, s:I, s:I, s:I}", "name", pg_jstr(u->entry),
                              "registers", u->registers, "shared_bytes", (json_int_t)u->shared_bytes,
                              "constant0_bytes", (json_int_t)u->constant0_bytes,
                              "stack_frame_bytes", (json_int_t)u->stack_frame_bytes,
                              "spill_store_bytes", (json_int_t)u->spill_store_bytes,
                              "spill_load_bytes", (json_int_t)u->spill_load_bytes);
        json_array_append_new(entries, e);
    }
    json_object_set_new(det, "entries", entries);
    json_object_set_new(det, "log", pg_jstr(r->raw_output));
}

/* First error diagnostic as "FILE:LINE: message" (the file it belongs to, relative to the
 * submission root when inside it: "kernel.cu:14", "include/tile.cuh:90"), for the stage
 * message. ptx_of non-NULL: ptxas's diagnostics, "PTX line N", with " (generated from X)"
 * when ptx_of names the .cu. */
static void first_error(const pg_run *run, const pg_assemble_result *r, const char *ptx_of,
                        char *buf, size_t n)
{
    snprintf(buf, n, "exit code %d", r->exit_code);
    for (int i = 0; i < r->log.n_diags; i++)
        if (r->log.diags[i].severity == PG_SEV_ERROR) {
            char file[PG_PATH_MAX];
            pg_cu_display_path(run, r->log.diags[i].file, file, sizeof file);
            if (ptx_of && r->log.diags[i].line > 0) /* ptxas: a line of the PTX */
                snprintf(buf, n, "PTX line %d%s%s%s: %s", r->log.diags[i].line,
                         ptx_of[0] ? " (generated from " : "", ptx_of, ptx_of[0] ? ")" : "",
                         r->log.diags[i].message);
            else if (r->log.diags[i].line > 0 && r->log.diags[i].file[0])
                snprintf(buf, n, "%s:%d: %s", file, r->log.diags[i].line,
                         r->log.diags[i].message);
            else
                snprintf(buf, n, "%s", r->log.diags[i].message);
            return;
        }
    /* No parsed diagnostic (e.g. nvcc's "fatal error: x.h: No such file or directory" or an
     * unsupported architecture): quote the tool's first line that says error or fatal. */
    const char *out = r->raw_output;
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && (memmem(line, len, "error", 5) || memmem(line, len, "fatal", 5))) {
            snprintf(buf, n, "exit code %d: %.*s", r->exit_code,
                     PG_UTF8_CUT(line, len > 400 ? 400 : len), line);
            return;
        }
        line = end ? end + 1 : NULL;
    }
}

void pg_stage_assemble(pg_run *run, pg_submission *s)
{
    pg_stage_entry *stage = pg_stage_begin(run, s, &s->stages, NULL, PG_STAGE_ASSEMBLE);
    json_t *det = pg_stage_details(stage);
    double t0 = pg_now_s();
    char why[1200];

    if (s->from_cu) {
        json_t *cu = json_object();
        json_object_set_new(cu, "tool_path", pg_jstr(s->cu_result.tool_path));
        json_object_set_new(cu, "command", pg_jstr(s->cu_result.command));
        json_object_set_new(cu, "log", pg_jstr(s->cu_result.raw_output));
        /* The log keeps only lines of files a report may quote (cu_includes.c). */
        json_object_set_new(cu, "includes_checked", json_integer(s->includes_checked));
        /* Where a .cu's prepare time goes: the include listing, then the compile. */
        json_object_set_new(cu, "includes_wall_s", json_real(s->includes_wall_s));
        json_object_set_new(cu, "wall_s", json_real(s->cu_result.wall_s));
        json_object_set_new(cu, "dropped_diagnostics", json_integer(s->cu_dropped));
        /* nvcc's located diagnostics, at .cu lines (reports point at the first one) */
        json_t *cu_diags = json_array();
        for (int i = 0; i < s->cu_result.log.n_diags; i++) {
            const pg_ptxas_diag *g = &s->cu_result.log.diags[i];
            json_t *item = json_pack("{s:s, s:i}", "severity", severity_name(g->severity),
                                     "line", g->line);
            json_object_set_new(item, "message", pg_jstr(g->message));
            if (g->file[0]) { /* a header's line names the header, relative to the root */
                char shown[PG_PATH_MAX];
                pg_cu_display_path(run, g->file, shown, sizeof shown);
                json_object_set_new(item, "file", pg_jstr(shown));
            }
            json_array_append_new(cu_diags, item);
        }
        json_object_set_new(cu, "diagnostics", cu_diags);
        json_object_set_new(det, "nvcc", cu);
        char dropped[160] = "";
        if (s->cu_dropped > 0)
            snprintf(dropped, sizeof dropped,
                     " (%d diagnostic%s quoting files outside the allowed folders dropped)",
                     s->cu_dropped, s->cu_dropped == 1 ? "" : "s");
        if (!s->cu_compiled) {
            if (!s->cu_result.tool_found) {
                pg_stage_finish(stage, "error", pg_now_s() - t0,
                                "nvcc not found: cannot compile the .cu source to PTX (set "
                                "PTXGATE_NVCC or submit PTX)");
            } else if (s->include_error[0] && s->cu_result.ok) {
                json_object_set_new(det, "include_refused", json_true());
                pg_stage_finish(stage, "fail", pg_now_s() - t0, "%s%s", s->include_error,
                                dropped);
            } else if (s->include_error[0]) {
                first_error(run, &s->cu_result, NULL, why, sizeof why);
                pg_stage_finish(stage, "fail", pg_now_s() - t0, "%s: %s%s", s->include_error,
                                why, dropped);
            } else {
                first_error(run, &s->cu_result, NULL, why, sizeof why);
                pg_stage_finish(stage, "fail", pg_now_s() - t0, "nvcc -ptx failed: %s%s", why,
                                dropped);
            }
            goto done;
        }
    }
    if (!s->has_sig) {
        pg_stage_finish(stage, "fail", pg_now_s() - t0, "cannot read the PTX entry signatures: %s",
                        s->sig_error);
        goto done;
    }
    if (s->refusal[0]) {
        /* Refused before ptxas runs (ptx/refusals.h); the diagnostic carries the PTX line so
         * that reports and annotations point at the declaration. */
        json_t *diag = json_pack("{s:s, s:I}", "severity", "error", "line",
                                 (json_int_t)s->refusal_line);
        json_object_set_new(diag, "message", pg_jstr(s->refusal));
        json_object_set_new(det, "diagnostics", json_pack("[o]", diag));
        json_object_set_new(det, "refused", json_true());
        pg_stage_finish(stage, "fail", pg_now_s() - t0, "refused before assembly: PTX line %ld: %s",
                        s->refusal_line, s->refusal);
        goto done;
    }

    pg_assemble_result r;
    pg_diag d;
    pg_diag_clear(&d);
    memset(&r, 0, sizeof r);
    pg_status st = pg_assemble_ptx(s->ptx_path, s->arch, s->cubin_path, s->ptxas_extra,
                                   run->o->timeout_s, &r, &d);
    const char *forced = getenv("PTXGATE_PTXAS");
    if (st != PG_OK && !r.tool_found && forced && forced[0]) {
        pg_stage_finish(stage, "error", pg_now_s() - t0,
                        "PTXGATE_PTXAS is set to '%s', which is not an executable", forced);
    } else if (st != PG_OK && !r.tool_found) {
        s->cubin_path[0] = '\0'; /* the load stage JIT-compiles the PTX */
        json_object_set_new(det, "fallback", json_string("driver JIT"));
        pg_stage_finish(stage, "skipped", pg_now_s() - t0,
                        "ptxas not found: the driver JIT compiles the PTX at load instead "
                        "(no resource usage, diagnostics only from the driver)");
    } else if (st != PG_OK) {
        char msg[2400];
        pg_stage_finish(stage, "error", pg_now_s() - t0, "%s",
                        pg_diag_format(&d, msg, sizeof msg));
    } else {
        fill_details(det, &r, s->arch);
        if (r.timed_out)
            pg_stage_finish(stage, "fail", r.wall_s, "ptxas timed out after %.0f s",
                            run->o->timeout_s);
        else if (!r.ok) {
            first_error(run, &r, s->from_cu ? s->manifest->source : "", why, sizeof why);
            pg_stage_finish(stage, "fail", r.wall_s, "ptxas failed for %s: %s", s->arch, why);
        } else {
            char usage[1024] = "";
            size_t used = 0;
            for (int i = 0; i < r.log.n_entries && used < sizeof usage; i++)
                used += (size_t)snprintf(usage + used, sizeof usage - used,
                                         "%s%s: %d registers, %ld B smem, %ld B spill stores",
                                         i ? "; " : "", r.log.entries[i].entry,
                                         r.log.entries[i].registers, r.log.entries[i].shared_bytes,
                                         r.log.entries[i].spill_store_bytes);
            pg_stage_finish(stage, "pass", r.wall_s, "ptxas %s ok (%d warnings); %s", s->arch,
                            r.log.n_warnings, usage);
        }
    }
    pg_assemble_result_free(&r);
done:
    pg_progress(run, s, NULL, "assemble", pg_stage_status(stage), pg_stage_message(stage));
}
