/* The sanitize stage (--sanitize memcheck,racecheck,synccheck,initcheck): for each tool, a worker
 * runs the submission's smallest workload (one correctness input set, plain buffers, no timing)
 * under compute-sanitizer with its report in a log file; the findings are parsed per kernel
 * (gate/tool/sanitizer_log.h). Errors in the submission's own kernels fail the stage, or warn
 * under the task's gate.sanitizer "warn"; API errors that follow a kernel error and racecheck
 * warnings are reported without gating. Without the tool the stage is skipped, saying so. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "tool/sanitizer_log.h"
#include "tool/supervise.h"
#include "tool/toolchain.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "worker_parent.h"

/* Findings printed per tool (compute-sanitizer --print-limit) and the report read back. */
#define PG_SAN_PRINT_LIMIT "100"
#define PG_SAN_LOG_MAX ((size_t)16 << 20)
#define PG_SAN_OUTPUT_MAX ((size_t)64 << 10)

typedef struct {
    double deadline;
} san_watch;

static double san_deadline(void *ctx)
{
    return ((san_watch *)ctx)->deadline;
}

/* The status name of the submission's first stage of kind k, NULL when it has none. */
static const char *stage_status_of(const pg_submission *s, pg_stage_kind k)
{
    const pg_stage_entry *st = pg_ledger_find(&s->stages, k);
    return st ? pg_stage_status(st) : NULL;
}

/* The position in s->workloads of the workload with the fewest FLOPs: sanitizers slow kernels
 * down 10-100 times (racecheck more). */
static int smallest_workload(const pg_submission *s)
{
    int best = 0;
    for (int i = 1; i < s->n_workloads; i++)
        if (s->plans[i].flop < s->plans[best].flop)
            best = i;
    return best;
}

static bool own_kernel(const pg_submission *s, const char *kernel)
{
    if (!kernel[0])
        return true; /* unattributed: only kernels are instrumented, count it as the kernel's */
    for (int l = 0; l < s->manifest->n_launches; l++)
        if (strcmp(s->manifest->launches[l].entry, kernel) == 0)
            return true;
    return false;
}

static const char *kind_name(pg_san_kind k)
{
    return k == PG_SAN_ERROR ? "error" : k == PG_SAN_WARNING ? "warning" : k == PG_SAN_API ? "api" : "tool";
}

typedef struct {
    int errors;          /* gating: errors in the submission's kernels */
    int other_errors;    /* errors in other kernels (ptxgate's own) */
    int warnings;
    bool failed_run;     /* the tool did not produce a usable report */
    char summary[600];   /* for the stage message */
} tool_outcome;

/* Run one tool; its details into `tj`. */
static void run_tool(pg_run *run, pg_submission *s, int pos, const char *san, const char *tool,
                     json_t *tj, tool_outcome *out)
{
    char job[PG_PATH_MAX + 64], fifo[PG_PATH_MAX + 64], log[PG_PATH_MAX + 64];
    int k = run->workers++;
    snprintf(job, sizeof job, "%s/sanjob%d.json", run->tmpdir, k);
    snprintf(fifo, sizeof fifo, "%s/sanstatus%d.fifo", run->tmpdir, k);
    snprintf(log, sizeof log, "%s/san%d_%s.log", run->tmpdir, k, tool);
    memset(out, 0, sizeof *out);
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_worker_write_job(run, s, &pos, 1, false, "sanitize", job, &d) != PG_OK) {
        out->failed_run = true;
        snprintf(out->summary, sizeof out->summary, "%s: %s", tool, d.message);
        return;
    }
    const char *argv[] = {san, "--tool", tool, "--log-file", log, "--print-limit",
                          PG_SAN_PRINT_LIMIT, "--show-backtrace", "no", run->o->self_exe,
                          "worker", "--job", job, "--status", fifo, NULL};
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --tool %s --log-file LOG --print-limit %s --show-backtrace no "
             "ptxgate worker --job JOB --status FIFO", san, tool, PG_SAN_PRINT_LIMIT);
    json_object_set_new(tj, "command", pg_jstr(cmd));
    san_watch w = {pg_now_s() + run->o->watchdog.sanitize_s};
    pg_supervise_hooks h = {NULL, san_deadline, &w};
    pg_supervise_result r;
    pg_status st = pg_supervise_run(argv, fifo, &h, PG_SAN_OUTPUT_MAX, &r, &d);
    unlink(fifo);
    unlink(job);
    json_object_set_new(tj, "wall_s", json_real(r.wall_s));
    json_object_set_new(tj, "exit_code", json_integer(r.exit_code));
    char *text = NULL;
    pg_san_report rep;
    memset(&rep, 0, sizeof rep);
    pg_diag ld;
    pg_diag_clear(&ld);
    bool have_log = st == PG_OK && pg_file_read(log, PG_SAN_LOG_MAX, &text, NULL, &ld) == PG_OK &&
                    pg_san_parse(text, &rep, &ld) == PG_OK;
    unlink(log);
    if (st != PG_OK || r.watchdog_killed || !have_log || rep.summary_errors < 0) {
        out->failed_run = true;
        snprintf(out->summary, sizeof out->summary, "%s: %s", tool,
                 st != PG_OK        ? d.message
                 : r.watchdog_killed ? "TIMEOUT: the watchdog killed the sanitizer run"
                 : !have_log         ? "no report was written"
                                     : "the report has no summary (the run did not finish)");
        const char *o = r.output ? r.output : "";
        size_t len = strlen(o);
        json_object_set_new(tj, "output_tail", pg_jstr(len > 2000 ? o + len - 2000 : o));
    }
    json_t *findings = json_array();
    size_t used = 0;
    for (int i = 0; i < rep.n; i++) {
        const pg_san_finding *f = &rep.items[i];
        json_array_append_new(findings,
                              json_pack("{s:s, s:o, s:o, s:o, s:i, s:b}", "kind", kind_name(f->kind),
                                        "what", pg_jstr(f->what), "kernel", pg_jstr(f->kernel),
                                        "detail", pg_jstr(f->detail), "count", f->count,
                                        "submission_kernel", own_kernel(s, f->kernel)));
        if (f->kind == PG_SAN_TOOL && !out->failed_run) {
            out->failed_run = true;
            snprintf(out->summary, sizeof out->summary, "%s: %s", tool, f->what);
        }
        if (f->kind == PG_SAN_WARNING)
            out->warnings += f->count;
        if (f->kind != PG_SAN_ERROR)
            continue;
        if (!own_kernel(s, f->kernel)) {
            out->other_errors += f->count;
            continue;
        }
        if (out->errors == 0)
            used = (size_t)snprintf(out->summary, sizeof out->summary, "%s:", tool);
        out->errors += f->count;
        if (used < sizeof out->summary)
            used += (size_t)snprintf(out->summary + used, sizeof out->summary - used,
                                     " %s%s in %s (x%d)%s%s", out->errors > f->count ? "; " : "",
                                     f->what, f->kernel[0] ? f->kernel : "an unnamed kernel",
                                     f->count, f->detail[0] ? ": " : "", f->detail);
    }
    json_object_set_new(tj, "findings", findings);
    json_object_set_new(tj, "errors", json_integer(out->errors));
    json_object_set_new(tj, "other_kernel_errors", json_integer(out->other_errors));
    json_object_set_new(tj, "warnings", json_integer(out->warnings));
    json_object_set_new(tj, "summary_errors",
                        rep.summary_errors >= 0 ? json_integer(rep.summary_errors) : json_null());
    json_object_set_new(tj, "truncated", json_boolean(rep.truncated));
    pg_san_report_free(&rep);
    free(text);
    pg_supervise_result_free(&r);
}

void pg_stage_sanitize(pg_run *run, pg_submission *s)
{
    pg_stage_entry *stage = pg_stage_begin(run, s, &s->stages, NULL, PG_STAGE_SANITIZE);
    json_t *det = pg_stage_details(stage);
    double t0 = pg_now_s();
    const char *load = stage_status_of(s, PG_STAGE_LOAD);
    char san[PATH_MAX];
    bool policy_fails = s->task->sanitizer_fails;
    json_object_set_new(det, "policy", json_string(policy_fails ? "fail" : "warn"));
    if (!load || strcmp(load, "pass") != 0) {
        pg_stage_finish(stage, "skipped", 0, "not run: the load stage did not pass");
    } else if (!run->have_info) {
        pg_stage_finish(stage, run->o->skip_without_gpu ? "skipped" : "error", 0, "%s",
                        run->gpu_skip_reason);
    } else if (!run->o->self_exe) {
        pg_stage_finish(stage, "error", 0, "no path of this program to run under the sanitizer");
    } else if (!pg_toolchain_find("compute-sanitizer", san, sizeof san)) {
        pg_stage_finish(stage, "skipped", 0,
                        "skipped: compute-sanitizer not found (PTXGATE_COMPUTE_SANITIZER, PATH, "
                        "$CUDA_HOME/bin, /usr/local/cuda/bin, next to ptxas)");
    } else {
        int pos = smallest_workload(s);
        const char *wname = s->task->workloads[s->workloads[pos]].name;
        json_object_set_new(det, "tool_path", pg_jstr(san));
        json_object_set_new(det, "workload", json_string(wname));
        json_t *tools = json_object();
        json_object_set_new(det, "tools", tools);
        int errors = 0, warnings = 0, failed = 0;
        char findings[1800] = "", failures[1200] = "", clean[200] = "";
        size_t fu = 0, xu = 0, cu = 0;
        for (const char *p = run->o->sanitize; *p;) {
            size_t len = strcspn(p, ",");
            char tool[32];
            snprintf(tool, sizeof tool, "%.*s", (int)(len < sizeof tool ? len : sizeof tool - 1),
                     p);
            p += len + (p[len] == ',');
            json_t *tj = json_object();
            json_object_set_new(tools, tool, tj);
            tool_outcome o;
            run_tool(run, s, pos, san, tool, tj, &o);
            errors += o.errors;
            warnings += o.warnings;
            failed += o.failed_run;
            if (o.errors && fu < sizeof findings)
                fu += (size_t)snprintf(findings + fu, sizeof findings - fu, "%s%s",
                                       fu ? "; " : "", o.summary);
            else if (o.failed_run && xu < sizeof failures)
                xu += (size_t)snprintf(failures + xu, sizeof failures - xu, "%s%s",
                                       xu ? "; " : "", o.summary);
            else if (cu < sizeof clean)
                cu += (size_t)snprintf(clean + cu, sizeof clean - cu, "%s%s", cu ? ", " : "",
                                       tool);
        }
        double dt = pg_now_s() - t0;
        if (errors && policy_fails)
            pg_stage_finish(stage, "fail", dt, "SANITIZER (workload %s): %s%s%s", wname, findings,
                            clean[0] ? "; clean: " : "", clean);
        else if (failed)
            pg_stage_finish(stage, "error", dt, "the sanitizer could not judge (workload %s): %s%s%s",
                            wname, failures, findings[0] ? "; findings: " : "", findings);
        else if (errors)
            pg_stage_finish(stage, "pass", dt,
                            "warning (task policy: warn): SANITIZER (workload %s): %s", wname,
                            findings);
        else
            pg_stage_finish(stage, "pass", dt,
                            "%s: no errors in the submission's kernels (workload %s, one input "
                            "set)%s",
                            clean, wname, warnings ? "; racecheck warnings in details" : "");
    }
    pg_progress(run, s, NULL, "sanitize", pg_stage_status(stage), pg_stage_message(stage));
}
