/* GPU stages of one submission: open the device once per run, the load stage (and the accepted
 * kernel's module), then per workload correctness, instructions (the static half computed after
 * assemble, recorded per workload), and (when correct) performance and verify, each phase on a
 * module and buffers of its own. Without a GPU every GPU stage is recorded as skipped or error
 * with the reason, never silently left out. The sequence (pg_exec_stages) is the one both
 * executors run (executor.h): here in an in-process run, in the worker process otherwise. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "baseline_check.h"
#include "executor.h"
#include "instr_stage.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission.h"
#include "submission_stages.h"
#include "worker_parent.h"

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
        } else {
            run->info = *pg_device_get_info(run->dev);
            run->have_info = true;
        }
    }
    if (run->dev && pg_device_is_broken(run->dev))
        snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason,
                 "the GPU context is unusable after an earlier kernel fault in this run");
    return run->dev && !pg_device_is_broken(run->dev);
}

static const pg_device_info *device_info(pg_run *run)
{
    if (!run->o->worker_exe)
        return pg_run_ensure_device(run) ? &run->info : NULL;
    if (!run->dev_tried) {
        run->dev_tried = true;
        if (run->o->no_gpu)
            snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason,
                     "GPU stages disabled by --no-gpu");
        else
            pg_worker_probe(run);
    }
    return run->have_info ? &run->info : NULL;
}

const pg_device_info *pg_run_device_info(pg_run *run)
{
    /* Manifests prepared side by side may ask at once (device symbols, prepare_all.c): one
     * of them opens or probes the device, the others wait for its answer. */
    if (run->info_lock)
        pthread_mutex_lock(run->info_lock);
    const pg_device_info *info = device_info(run);
    if (run->info_lock)
        pthread_mutex_unlock(run->info_lock);
    return info;
}

void pg_record_not_run(pg_run *run, pg_submission *s, pg_ledger *stages, const char *workload,
                       pg_stage_kind kind, const char *status, const char *reason)
{
    const char *name = pg_stage_kind_name(kind);
    pg_stage_finish(pg_ledger_begin(stages, kind), status, 0.0, "%s", reason);
    /* Skips of per-workload stages repeat the submission's reason: report them once. */
    if (strcmp(status, "skipped") != 0 || !workload)
        pg_progress(run, s, workload, name, status, reason);
}

/* The skeleton record of workload i, its "stages" array in *stages (borrowed from it). */
static json_t *workload_json(const pg_submission *s, int i, json_t **stages)
{
    const pg_task *t = s->task;
    const pg_workload *w = &t->workloads[s->workloads[i]];
    json_t *aliases = json_array(), *symbols = json_object();
    for (int a = 0; a < w->n_aliases; a++)
        json_array_append_new(aliases, json_string(w->aliases[a]));
    for (int k = 0; k < t->n_symbols; k++)
        json_object_set_new(symbols, t->symbols[k], json_integer(w->values[k]));
    *stages = json_array();
    json_t *j = json_pack("{s:s, s:o, s:o, s:f, s:s, s:o, s:s, s:n, s:n, s:n, s:n, s:n}", "name",
                          w->name, "aliases", aliases, "symbols", symbols, "flop",
                          s->plans[i].flop, "verdict", "skipped", "stages", *stages, "status",
                          "SKIPPED", "max_absolute_error", "max_relative_error", "latency_ms",
                          "reference_latency_ms", "speedup_factor");
    if (!j)
        *stages = NULL;
    return j;
}

void pg_gpu_workloads_init(pg_submission *s)
{
    for (int i = 0; s->wl && i < s->n_workloads; i++)
        pg_wl_state_release(&s->wl[i]);
    free(s->wl);
    s->wl = calloc((size_t)s->n_workloads + 1, sizeof *s->wl);
    for (int i = 0; s->wl && i < s->n_workloads; i++) {
        json_t *stages = NULL, *wj = workload_json(s, i, &stages);
        pg_wl_state_init(&s->wl[i], s->workloads[i], s->task->workloads[s->workloads[i]].name,
                         wj, stages, "SKIPPED");
        json_array_append_new(s->workloads_json, wj);
    }
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
    /* The launches, then the setup launches (kernels has room for both). */
    for (int l = 0; st == PG_OK && l < s->manifest->n_launches + s->manifest->n_setup; l++)
        st = pg_module_get_kernel(*mod, s->manifest->launches[l].entry, &kernels[l], d);
    free(image);
    return st;
}

/* A freshly loaded module of the submission with its kernels, one per launch. Every phase that
 * runs the kernel (correctness, timing) loads its own, so module-level .global state never
 * carries anything from one phase into the next. */
typedef struct {
    pg_module *mod;
    pg_kernel **kernels;
} loaded_module;

static void module_release(loaded_module *m)
{
    if (m->mod)
        pg_module_unload(m->mod);
    free(m->kernels);
    m->mod = NULL;
    m->kernels = NULL;
}

/* Load the cubin (or the PTX for the driver JIT) and look every launch's entry up. log (may be
 * NULL) receives the driver's logs. */
static pg_status module_load(pg_run *run, pg_submission *s, loaded_module *m, char *log,
                             size_t log_len, pg_diag *d)
{
    memset(m, 0, sizeof *m);
    m->kernels = calloc((size_t)(s->manifest->n_launches + s->manifest->n_setup),
                        sizeof *m->kernels);
    if (!m->kernels)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_status st = pg_submission_load_module(run, s, &m->mod, m->kernels, log, log_len, d);
    if (st != PG_OK)
        module_release(m);
    return st;
}

bool pg_gpu_stage_load(pg_run *run, pg_submission *s)
{
    pg_stage_entry *stage = pg_stage_begin(run, s, &s->stages, NULL, PG_STAGE_LOAD);
    double t0 = pg_now_s();
    char log[16384] = "";
    pg_diag d;
    pg_diag_clear(&d);
    loaded_module m;
    pg_status st = module_load(run, s, &m, log, sizeof log, &d);
    module_release(&m);
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
    pg_progress(run, s, NULL, "load", pg_stage_status(stage), pg_stage_message(stage));
    /* The accepted kernel is trusted: one module for all its workloads. */
    if (st == PG_OK)
        pg_accepted_load(run, s);
    return st == PG_OK;
}

/* A context for workload i of s on a freshly loaded module with freshly allocated guarded
 * buffers. */
static pg_status phase_open(pg_run *run, pg_submission *s, int i, loaded_module *m, pg_wctx *c,
                            pg_diag *d)
{
    const pg_task *t = s->task;
    *c = (pg_wctx){.run = run, .s = s, .index = i, .w = &t->workloads[s->workloads[i]],
                   .plan = &s->plans[i], .json = s->wl[i].json, .wl = &s->wl[i]};
    pg_status st = module_load(run, s, m, NULL, 0, d);
    c->kernels = m->kernels;
    if (st == PG_OK)
        st = pg_wctx_setup(c, d);
    return st;
}

static void phase_close(pg_wctx *c, loaded_module *m)
{
    if (c->run)
        pg_wctx_release(c);
    c->run = NULL;
    module_release(m);
}

void pg_gpu_run_workload(pg_run *run, pg_submission *s, int i)
{
    pg_wl_state *wl = &s->wl[i];
    const char *wname = wl->name;
    pg_ledger *stages = &wl->stages;
    loaded_module m1 = {0}, m2 = {0};
    pg_wctx c1 = {0}, c2 = {0};
    char msg[2400], refused[2000];
    pg_diag d;
    pg_diag_clear(&d);
    pg_status ost = phase_open(run, s, i, &m1, &c1, &d);
    if (ost != PG_OK) {
        /* A setup launch that faulted or hung fails the workload as the kernel would. */
        bool kernel = ost == PG_FAIL_KERNEL;
        if (kernel)
            snprintf(msg, sizeof msg, "kernel failed at run time: %s", d.message);
        pg_record_not_run(run, s, stages, wname, PG_STAGE_CORRECTNESS, kernel ? "fail" : "error",
                          kernel ? msg : pg_diag_format(&d, msg, sizeof msg));
        if (!run->sanitize_mode)
            pg_stage_instructions(run, s, stages);
        pg_record_not_run(run, s, stages, wname, PG_STAGE_PERFORMANCE, "skipped",
                          "not run: the correctness stage did not pass");
        pg_wl_set_ptxbench(wl, !kernel                                 ? "INFRA_ERROR"
                               : strncmp(d.message, "TIMEOUT", 7) == 0 ? "TIMEOUT"
                                                                       : "RUNTIME_ERROR");
        goto done;
    }
    if (run->sanitize_mode) {
        /* Under compute-sanitizer only the correctness launches matter (sanitize stage). */
        pg_stage_correctness(&c1);
        goto done;
    }
    bool correct = pg_stage_correctness(&c1);
    /* The instruction verdict does not gate the timing: a kernel that misses its targets still
     * gets its speed measured and reported. Its runtime half runs here, on the correctness
     * phase's module and buffers (c1), before any timing (issue 3). */
    pg_instr_stage *irec = NULL;
    pg_stage_entry *instr = pg_stage_instructions_rec(run, s, stages, &irec);
    if (correct && pg_run_ensure_device(run) && instr && irec) {
        pg_instr_runtime(&c1, irec, instr->record);
        pg_res_status ist;
        if (pg_stage_status_from_name(irec->status, &ist))
            pg_stage_entry_note(instr, ist, irec->message, irec->duration_s);
    }
    pg_instr_stage_free(irec);
    if (!correct) {
        pg_record_not_run(run, s, stages, wname, PG_STAGE_PERFORMANCE, "skipped",
                          "not run: the correctness stage did not pass");
        goto done;
    }
    if (!pg_run_ensure_device(run)) {
        pg_record_not_run(run, s, stages, wname, PG_STAGE_PERFORMANCE, "error",
                          run->gpu_skip_reason);
        goto done;
    }
    if (pg_baseline_refuses(&c1, refused, sizeof refused)) {
        pg_record_not_run(run, s, stages, wname, PG_STAGE_PERFORMANCE, "error", refused);
        pg_wl_set_ptxbench(wl, "INFRA_ERROR");
        goto done;
    }
    /* Anti-replay: the timing runs on a module loaded again (its .global state back to the
     * image's) and on buffers allocated before the correctness ones are freed, so at other
     * addresses; nothing a kernel kept from the correctness phase reaches the timed launches. */
    pg_status st = phase_open(run, s, i, &m2, &c2, &d);
    phase_close(&c1, &m1);
    uint64_t timing_seed = pg_set_seed(run->o->seed, s->workloads[i], run->o->correctness_sets);
    if (st == PG_OK)
        st = pg_wctx_fill_inputs(&c2, timing_seed, &d);
    /* Every timed launch of the candidate gets inputs of its own (pg_wctx_prepare_launch, cold
     * mode; sustained graphs cannot refill per launch and rely on the verify stage). */
    c2.refresh_inputs = true;
    c2.timing_seed = timing_seed;
    /* No L2 line a kernel marked persisting survives into the timed launches. */
    if (st == PG_OK)
        st = pg_device_reset_l2_persistence(run->dev, &d);
    if (st != PG_OK) {
        pg_record_not_run(run, s, stages, wname, PG_STAGE_PERFORMANCE, "error",
                          pg_diag_format(&d, msg, sizeof msg));
        goto done;
    }
    pg_stage_performance(&c2);
    bool timed = pg_wl_timing_completed(wl);
    pg_baseline_check_stage(&c2);
    if (timed && pg_run_ensure_device(run))
        pg_stage_verify(&c2);
    else
        pg_record_not_run(run, s, stages, wname, PG_STAGE_VERIFY, "skipped",
                          "not run: the timed launches did not complete");
done:
    phase_close(&c1, &m1);
    phase_close(&c2, &m2);
}

void pg_gpu_workload_not_run(pg_run *run, pg_submission *s, pg_wl_state *w, const char *status,
                             const char *why, const char *ptxbench)
{
    pg_record_not_run(run, s, &w->stages, w->name, PG_STAGE_CORRECTNESS, status, why);
    pg_stage_instructions(run, s, &w->stages); /* its static half needs no GPU */
    pg_record_not_run(run, s, &w->stages, w->name, PG_STAGE_PERFORMANCE, status, why);
    if (ptxbench)
        pg_wl_set_ptxbench(w, ptxbench);
}

/* The PTXBench status of a workload whose GPU stages did not run: COMPILE_ERROR when the
 * kernel did not assemble or load, INFRA_ERROR for an error, else left as it is (NULL). */
static const char *not_run_ptxbench(const char *status, bool compile_error)
{
    return compile_error                   ? "COMPILE_ERROR"
           : strcmp(status, "error") == 0 ? "INFRA_ERROR"
                                          : NULL;
}

void pg_gpu_record_not_run(pg_run *run, pg_submission *s, const char *status, const char *why,
                           bool compile_error)
{
    if (!pg_ledger_find(&s->stages, PG_STAGE_LOAD))
        pg_record_not_run(run, s, &s->stages, NULL, PG_STAGE_LOAD, status, why);
    for (int i = 0; s->wl && i < s->n_workloads; i++)
        pg_gpu_workload_not_run(run, s, &s->wl[i], status, why,
                                not_run_ptxbench(status, compile_error));
}

/* Why the GPU stages cannot run (NULL when they can): the assemble stage did not pass (status
 * "skipped"), the PTX calls the device heap (the load stage is recorded as failed), or no GPU
 * ("skipped" or "error" per --if-no-gpu). Asks for the device. */
static const char *gpu_why_not(pg_run *run, pg_submission *s, const char **status,
                               bool *compile_error)
{
    const char *assembled = pg_stage_status(pg_ledger_at(&s->stages, 0));
    *status = "skipped";
    *compile_error = false;
    if (strcmp(assembled, "pass") != 0 && strcmp(assembled, "skipped") != 0) {
        *compile_error = true;
        return "not run: the assemble stage did not pass";
    }
    if (s->heap_refusal[0]) {
        /* Found offline, so reported with or without a GPU. */
        pg_stage_finish(pg_ledger_begin(&s->stages, PG_STAGE_LOAD), "fail", 0.0, "%s",
                        s->heap_refusal);
        pg_progress(run, s, NULL, "load", "fail", s->heap_refusal);
        *compile_error = true;
        return "not run: the load stage did not pass";
    }
    if (!pg_run_device_info(run)) {
        *status = gpu_unavailable_status(run);
        return run->gpu_skip_reason;
    }
    return NULL;
}

bool pg_gpu_prologue(pg_run *run, pg_submission *s)
{
    pg_gpu_workloads_init(s);
    const char *status;
    bool compile_error;
    const char *why = gpu_why_not(run, s, &status, &compile_error);
    if (why)
        pg_gpu_record_not_run(run, s, status, why, compile_error);
    return why == NULL;
}

void pg_exec_stages(pg_run *run, pg_submission *s, const pg_exec_sink *sink)
{
    bool loaded = pg_gpu_stage_load(run, s);
    if (sink->loaded)
        sink->loaded(sink->ctx, s, loaded);
    const char *why = loaded ? NULL : "not run: the load stage did not pass";
    const char *status = "skipped";
    for (int i = 0; s->wl && i < s->n_workloads; i++) {
        if (!why && sink->record_lost_gpu && !pg_run_ensure_device(run)) {
            why = run->gpu_skip_reason;
            status = "error";
        }
        if (why)
            pg_gpu_workload_not_run(run, s, &s->wl[i], status, why,
                                    not_run_ptxbench(status, !loaded));
        else
            pg_gpu_run_workload(run, s, i);
        if (sink->workload_done && !sink->workload_done(sink->ctx, s, i))
            break;
    }
}
