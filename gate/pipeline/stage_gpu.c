/* GPU stages of one submission: open the device once per run, the load stage, then per
 * workload correctness, instructions (the static half computed after assemble, recorded per
 * workload) and (when correct) performance. Without a GPU every GPU stage is
 * recorded as skipped or error with the reason, never silently left out. */
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "internal.h"

/* Largest module image read back from ptxas (bytes). */
#define PG_CUBIN_MAX_BYTES (256u * 1024u * 1024u)

static const char *gpu_unavailable_status(const pg_run *run)
{
    return run->o->skip_without_gpu ? "skipped" : "error";
}

bool pg_run_ensure_device(pg_run *run)
{
    if (!run->dev_tried) {
        run->dev_tried = true;
        if (run->o->no_gpu) {
            snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason,
                     "GPU stages disabled by --no-gpu");
            return false;
        }
        pg_diag d;
        pg_diag_clear(&d);
        if (pg_device_open(run->o->device_ordinal, &run->dev, &d) != PG_OK) {
            snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason, "%s", d.message);
            run->dev = NULL;
        }
    }
    if (run->dev && pg_device_is_broken(run->dev))
        snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason,
                 "the GPU context is unusable after an earlier kernel fault in this run");
    return run->dev && !pg_device_is_broken(run->dev);
}

/* Record `stage` as not run, with status and reason. */
static void record_not_run(pg_run *run, pg_submission *s, json_t *stages, const char *workload,
                           const char *name, const char *status, const char *reason)
{
    json_t *st = pg_stage_new(name);
    pg_stage_finish(st, status, 0.0, "%s", reason);
    json_array_append_new(stages, st);
    /* Skips of per-workload stages repeat the submission's reason: report them once. */
    if (strcmp(status, "skipped") != 0 || !workload)
        pg_progress(run, s, workload, name, status, reason);
}

static json_t *workload_json(const pg_submission *s, int i)
{
    const pg_task *t = s->task;
    const pg_workload *w = &t->workloads[s->workloads[i]];
    json_t *aliases = json_array(), *symbols = json_object();
    for (int a = 0; a < w->n_aliases; a++)
        json_array_append_new(aliases, json_string(w->aliases[a]));
    for (int k = 0; k < t->n_symbols; k++)
        json_object_set_new(symbols, t->symbols[k], json_integer(w->values[k]));
    return json_pack("{s:s, s:o, s:o, s:f, s:s, s:[], s:s, s:n, s:n, s:n, s:n, s:n}", "name",
                     w->name, "aliases", aliases, "symbols", symbols, "flop", s->plans[i].flop,
                     "verdict", "skipped", "stages", "status", "SKIPPED", "max_absolute_error",
                     "max_relative_error", "latency_ms", "reference_latency_ms", "speedup_factor");
}

pg_status pg_submission_load_module(pg_run *run, pg_submission *s, pg_module **mod,
                                    pg_kernel **kernels, char *log, size_t log_len, pg_diag *d)
{
    const char *path = s->cubin_path[0] ? s->cubin_path : s->ptx_path;
    char *image = NULL;
    size_t len = 0;
    pg_status st = pg_file_read(path, PG_CUBIN_MAX_BYTES, &image, &len, d);
    if (st == PG_OK)
        st = pg_module_load(run->dev, image, len + (s->cubin_path[0] ? 0 : 1), mod, log, log_len,
                            d);
    for (int l = 0; st == PG_OK && l < s->manifest->n_launches; l++)
        st = pg_module_get_kernel(*mod, s->manifest->launches[l].entry, &kernels[l], d);
    free(image);
    return st;
}

/* The load stage: module from the cubin (or the PTX for the driver JIT), then every entry. */
static bool stage_load(pg_run *run, pg_submission *s, pg_module **mod, pg_kernel **kernels)
{
    json_t *stage = pg_stage_new("load");
    json_array_append_new(json_object_get(s->json, "stages"), stage);
    pg_progress(run, s, NULL, "load", NULL, NULL);
    double t0 = pg_now_s();
    char log[16384] = "";
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_submission_load_module(run, s, mod, kernels, log, sizeof log, &d);
    json_object_set_new(pg_stage_details(stage), "log", pg_jstr(log));
    json_object_set_new(pg_stage_details(stage), "image",
                        json_string(s->cubin_path[0] ? "cubin (ptxas)" : "PTX (driver JIT)"));
    char msg[2400];
    if (st == PG_OK)
        pg_stage_finish(stage, "pass", pg_now_s() - t0, "module loaded from %s; %d entr%s found",
                        s->cubin_path[0] ? "the ptxas cubin" : "PTX by the driver JIT",
                        s->manifest->n_launches, s->manifest->n_launches == 1 ? "y" : "ies");
    else
        pg_stage_finish(stage, st == PG_ERR_INFRA ? "error" : "fail", pg_now_s() - t0, "%s",
                        pg_diag_format(&d, msg, sizeof msg));
    pg_progress(run, s, NULL, "load", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return st == PG_OK;
}

static void run_workload(pg_run *run, pg_submission *s, int i, pg_kernel **kernels, json_t *wj)
{
    const pg_task *t = s->task;
    pg_wctx c = {.run = run, .s = s, .index = i, .w = &t->workloads[s->workloads[i]],
                 .plan = &s->plans[i], .kernels = kernels, .json = wj,
                 .a = pg_task_find_tensor(t, "A"), .b = pg_task_find_tensor(t, "B"),
                 .c = pg_task_find_tensor(t, "C")};
    json_t *stages = json_object_get(wj, "stages");
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_wctx_setup(&c, &d) != PG_OK) {
        char msg[2400];
        pg_diag_format(&d, msg, sizeof msg);
        record_not_run(run, s, stages, c.w->name, "correctness", "error", msg);
        pg_stage_instructions(run, s, stages);
        record_not_run(run, s, stages, c.w->name, "performance", "skipped",
                       "not run: the correctness stage did not pass");
        json_object_set_new(wj, "status", json_string("INFRA_ERROR"));
        pg_wctx_release(&c);
        return;
    }
    char refused[2000];
    bool correct = pg_stage_correctness(&c);
    /* The instruction verdict does not gate the timing: a kernel that misses its targets still
     * gets its speed measured and reported. */
    json_t *instr = pg_stage_instructions(run, s, stages);
    /* Executed counts: a verification run of its own, before any timing (issue 3). */
    if (correct && pg_run_ensure_device(run))
        pg_instr_runtime(&c, instr);
    if (correct) {
        if (!pg_run_ensure_device(run)) {
            record_not_run(run, s, stages, c.w->name, "performance", "error", run->gpu_skip_reason);
        } else if (pg_baseline_refuses(&c, refused, sizeof refused)) {
            record_not_run(run, s, stages, c.w->name, "performance", "error", refused);
            json_object_set_new(wj, "status", json_string("INFRA_ERROR"));
        } else {
            pg_stage_performance(&c);
            pg_baseline_check_stage(&c);
        }
    } else {
        record_not_run(run, s, stages, c.w->name, "performance", "skipped",
                       "not run: the correctness stage did not pass");
    }
    pg_wctx_release(&c);
}

void pg_stages_gpu(pg_run *run, pg_submission *s)
{
    json_t *wls = json_object_get(s->json, "workloads");
    for (int i = 0; i < s->n_workloads; i++)
        json_array_append_new(wls, workload_json(s, i));

    json_t *sub_stages = json_object_get(s->json, "stages");
    const char *assembled = pg_stage_status(json_array_get(sub_stages, 0));
    bool offline_ok = strcmp(assembled, "pass") == 0 || strcmp(assembled, "skipped") == 0;
    const char *why = NULL, *status = "skipped";
    bool load_failed = false;
    if (!offline_ok) {
        why = "not run: the assemble stage did not pass";
    } else if (!pg_run_ensure_device(run)) {
        why = run->gpu_skip_reason;
        status = gpu_unavailable_status(run);
    }

    pg_module *mod = NULL;
    pg_kernel **kernels = calloc((size_t)s->manifest->n_launches, sizeof *kernels);
    if (!why) {
        if (!stage_load(run, s, &mod, kernels)) {
            why = "not run: the load stage did not pass";
            load_failed = true;
        } else {
            pg_accepted_load(run, s);
        }
    } else {
        record_not_run(run, s, sub_stages, NULL, "load", status, why);
    }
    for (int i = 0; i < s->n_workloads; i++) {
        json_t *wj = json_array_get(wls, (size_t)i);
        const char *wname = json_string_value(json_object_get(wj, "name"));
        json_t *stages = json_object_get(wj, "stages");
        if (!why && !pg_run_ensure_device(run)) {
            why = run->gpu_skip_reason;
            status = "error";
        }
        if (why) {
            record_not_run(run, s, stages, wname, "correctness", status, why);
            pg_stage_instructions(run, s, stages); /* its static half needs no GPU */
            record_not_run(run, s, stages, wname, "performance", status, why);
            if (!offline_ok || load_failed)
                json_object_set_new(wj, "status", json_string("COMPILE_ERROR"));
            else if (strcmp(status, "error") == 0)
                json_object_set_new(wj, "status", json_string("INFRA_ERROR"));
            continue;
        }
        run_workload(run, s, i, kernels, wj);
    }
    if (mod)
        pg_module_unload(mod);
    free(kernels);
}
