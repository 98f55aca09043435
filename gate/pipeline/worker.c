/* The parent side of process isolation (docs/isolation.md): per submission, spawn `ptxgate
 * worker` under a watchdog, follow the steps it reports, merge its records into the results,
 * and when it hangs or dies, record the step it was in and give the remaining workloads to a
 * fresh worker. Also the probe worker that reads the GPU's fingerprint once per run, so this
 * process never creates a CUDA context. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "tool/supervise.h"
#include "baseline_check.h"
#include "executor.h"
#include "instr_stage.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "worker_event.h"
#include "worker_json.h"
#include "worker_parent.h"
#include "base/utf8.h"

/* Worker output (stdout, stderr, kernel printf) kept per worker; the rest is dropped. */
#define PG_WORKER_MAX_OUTPUT ((size_t)64 << 10)
/* Output tail shown in the results when a worker ended abnormally. */
#define PG_WORKER_TAIL_BYTES 2000

/* The comparisons of one workload's last snapshot recorded for Holm (owned). */
typedef struct {
    pg_wev_perf *items;
    size_t n;
} perf_list;

typedef struct {
    pg_run *run;
    pg_submission *s;   /* NULL for the probe */
    pg_device_slot *slot; /* the device and its peaks; NULL: o->device_ordinal, the run's */
    pg_device_info *probe_info; /* a device probe's fingerprint goes here (not the run's) */
    bool probe_have;
    double spawn_t;
    bool ready, done, stopped, unavailable;
    double startup_s;   /* spawn until "ready", parent clock */
    char reason[1024];  /* of "unavailable" / "stopped" */
    /* The current step for the watchdog: the last stage announced, open until it ends. */
    char stage[32];
    char workload[256];
    bool stage_open;
    double step_t;
    /* Per position in s->workloads. perf[p]: the comparisons of its last snapshot recorded for
     * Holm. */
    int n;
    bool *final, *touched;
    perf_list *perf;
    int new_finals;
    pg_stage_entry *load_record; /* the load stage's, as the worker reported it */
    size_t bad_lines;
    /* The heater (a probe worker with --heat): its own thread, never the run's lock; its
     * device report goes to the heater's record at once. */
    struct pg_heater *heater;
    double heating_t;         /* when it reported "heating"; 0: not (yet) */
} wstate;

/* The heater: the probe worker with --heat, followed on a thread of its own. ready is set once
 * info/have_info or reason hold its device report; stop makes the watchdog kill it. */
struct pg_heater {
    pg_run *run;
    pthread_t thread;
    atomic_bool stop, ready;
    char fifo[PG_PATH_MAX + 64];
    pg_device_info info;
    bool have_info;
    char reason[1024];
    _Atomic double heating_t; /* when it reported "heating"; 0: not (yet) */
    bool stopped;             /* heater_stop ran (the GPU thread's own flag) */
};

/* The probe's report reached a heater: hand it to the thread waiting for it. */
static void heater_report(wstate *w, const pg_device_info *info, const char *reason)
{
    struct pg_heater *h = w->heater;
    if (!h || atomic_load(&h->ready))
        return;
    if (info) {
        h->info = *info;
        h->have_info = true;
    } else {
        snprintf(h->reason, sizeof h->reason, "%s", reason);
    }
    atomic_store(&h->ready, true);
}

static int position_of(const pg_submission *s, int task_index)
{
    for (int i = 0; i < s->n_workloads; i++)
        if (s->workloads[i] == task_index)
            return i;
    return -1;
}

/* A snapshot of one workload's record (ev: a decoded "workload" event, whose perf list this
 * takes). Refused (a bad line) when the workload is not one of this worker's, already final, or
 * the record names another workload. */
/* Forget the comparisons registered for the Holm step from workload state wl (an earlier
 * worker's run of a workload that a new worker runs again): they point into the stages that
 * the new snapshot replaces, and the new run's comparisons are the ones to judge. */
static void drop_pending_of(pg_submission *s, const pg_wl_state *wl)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n_pending; i++) {
        bool of_wl = false;
        for (size_t k = 0; k < wl->stages.n && !of_wl; k++)
            of_wl = s->pending[i].stage == pg_ledger_at(&wl->stages, k);
        if (!of_wl)
            s->pending[kept++] = s->pending[i];
    }
    s->n_pending = kept;
}

static void on_workload(wstate *w, pg_worker_event *ev)
{
    int pos = position_of(w->s, ev->workload.index);
    pg_wl_state *mine = pos < 0 || !w->s->wl ? NULL : &w->s->wl[pos];
    pg_wl_state got;
    if (!mine || w->final[pos] || !mine->name || strcmp(mine->name, ev->workload.name) != 0 ||
        !pg_wl_state_from_json(ev->workload.record, mine->task_index, mine->name, &got)) {
        w->bad_lines++;
        return;
    }
    json_array_set(w->s->workloads_json, (size_t)pos, ev->workload.record);
    drop_pending_of(w->s, mine);
    pg_wl_state_release(mine);
    *mine = got;
    w->touched[pos] = true;
    free(w->perf[pos].items);
    w->perf[pos] = (perf_list){ev->workload.perf, ev->workload.n_perf};
    ev->workload.perf = NULL; /* taken */
    if (ev->workload.baseline_events)
        pg_baselines_add_events(w->run, w->s->task->id, ev->workload.baseline_events);
    if (ev->workload.final) {
        w->final[pos] = true;
        w->new_finals++;
    }
    if (ev->workload.have_peaks) {
        pg_run *run = w->run;
        bool *measured = w->slot ? &w->slot->peaks_measured : &run->peaks_measured;
        double *ptf = w->slot ? &w->slot->peak_tflops : &run->peak_tflops;
        double *pgb = w->slot ? &w->slot->peak_write_gbps : &run->peak_write_gbps;
        double tf = ev->workload.peak_tflops, gb = ev->workload.peak_write_gbps;
        if (!*measured) {
            *measured = true;
            *ptf = tf;
            *pgb = gb;
        } else if (tf > *ptf) {
            *ptf = tf; /* a faster cuBLASLt launch raised it (performance stage) */
        }
    }
}

static void on_progress(wstate *w, const pg_worker_event *ev)
{
    const char *stage = ev->progress.stage, *wl = ev->progress.workload;
    const char *status = ev->progress.status, *msg = ev->progress.message;
    snprintf(w->stage, sizeof w->stage, "%s", stage);
    snprintf(w->workload, sizeof w->workload, "%s", wl ? wl : "");
    w->stage_open = status == NULL;
    w->step_t = pg_now_s();
    /* Timing blocks just ended on this device: the next workload's heat soak starts warm. */
    if (strcmp(stage, "performance") == 0 && status &&
        (strcmp(status, "pass") == 0 || strcmp(status, "fail") == 0))
        *(w->slot ? &w->slot->gpu_warm_t : &w->run->gpu_warm_t) = w->step_t;
    if (w->s)
        pg_progress(w->run, w->s, wl, stage, status, msg);
}

static void on_line_locked(wstate *w, const char *line, size_t len);

/* Status lines arrive while the worker runs, when this thread does not hold the run's lock. */
static void on_line(void *ctx, const char *line, size_t len)
{
    wstate *w = ctx;
    pthread_mutex_t *lock = w->heater ? NULL : w->run->lock;
    if (lock)
        pthread_mutex_lock(lock);
    on_line_locked(w, line, len);
    if (lock)
        pthread_mutex_unlock(lock);
}

static void on_line_locked(wstate *w, const char *line, size_t len)
{
    pg_worker_event ev;
    if (pg_worker_event_decode(line, len, &ev, NULL) != PG_OK) {
        w->bad_lines++;
        return;
    }
    switch (ev.kind) {
    case PG_WEV_READY:
        w->ready = true;
        w->startup_s = pg_now_s() - w->spawn_t; /* the parent's clock, not the worker's */
        w->step_t = pg_now_s();
        break;
    case PG_WEV_DEVICE:
        if (w->probe_info) {
            if (!w->probe_have) {
                *w->probe_info = ev.device;
                w->probe_have = true;
            }
            heater_report(w, w->probe_info, NULL);
        } else if (!w->run->have_info) {
            w->run->info = ev.device;
            w->run->have_info = true;
        }
        break;
    case PG_WEV_HEATING:
        w->heating_t = pg_now_s();
        if (w->heater)
            atomic_store(&w->heater->heating_t, w->heating_t);
        break;
    case PG_WEV_HEAT_FAILED:
        snprintf(w->reason, sizeof w->reason, "%s", ev.reason);
        break;
    case PG_WEV_UNAVAILABLE:
        snprintf(w->reason, sizeof w->reason, "%s", ev.reason);
        w->unavailable = true;
        heater_report(w, NULL, w->reason);
        break;
    case PG_WEV_STOPPED:
        snprintf(w->reason, sizeof w->reason, "%s", ev.reason);
        w->stopped = true;
        break;
    case PG_WEV_PROGRESS:
        on_progress(w, &ev);
        break;
    case PG_WEV_STAGE:
        if (!w->s)
            w->bad_lines++; /* a probe has no submission */
        else if (!w->load_record && !(w->load_record = pg_stage_entry_from_json(ev.stage.record)))
            w->bad_lines++;
        break;
    case PG_WEV_WORKLOAD:
        if (!w->s)
            w->bad_lines++;
        else
            on_workload(w, &ev);
        break;
    case PG_WEV_DONE:
        w->done = true;
        w->step_t = pg_now_s();
        break;
    }
    pg_worker_event_release(&ev);
}

static double deadline(void *ctx)
{
    wstate *w = ctx;
    const pg_watchdog *wd = &w->run->o->watchdog;
    if (w->heater && atomic_load(&w->heater->stop))
        return pg_now_s() - 1.0; /* passed: the heater is stopped */
    if (w->done)
        return w->step_t + wd->exit_s;
    if (!w->ready)
        return w->spawn_t + wd->startup_s;
    if (w->stage_open)
        return w->step_t + pg_watchdog_limit(wd, w->stage);
    return w->step_t + wd->startup_s; /* between stages */
}

/* "exit 0", "signal 11 (Segmentation fault)", "killed by the watchdog". */
static void describe_end(const pg_supervise_result *r, char *buf, size_t n)
{
    if (r->watchdog_killed)
        snprintf(buf, n, "killed by the watchdog");
    else if (r->term_signal)
        snprintf(buf, n, "signal %d (%s)", r->term_signal, strsignal(r->term_signal));
    else
        snprintf(buf, n, "exit %d", r->exit_code);
}

/* Spawn one worker with argv (whose status channel is the FIFO `fifo`), following it until it
 * ends. */
static pg_status supervise(wstate *w, const char *const *argv, const char *fifo,
                           pg_supervise_result *r, pg_diag *d)
{
    w->spawn_t = w->step_t = pg_now_s();
    pg_supervise_hooks h = {on_line, deadline, w};
    if (w->run->lock && !w->heater)
        pthread_mutex_unlock(w->run->lock);
    pg_status st = pg_supervise_run(argv, fifo, &h, PG_WORKER_MAX_OUTPUT, r, d);
    if (w->run->lock && !w->heater)
        pthread_mutex_lock(w->run->lock);
    unlink(fifo);
    return st;
}

bool pg_worker_probe_device(pg_run *run, int ordinal, pg_device_info *info, char *reason,
                            size_t n)
{
    char device[16], fifo[PG_PATH_MAX + 64];
    snprintf(device, sizeof device, "%d", ordinal);
    snprintf(fifo, sizeof fifo, "%s/status%d.fifo", run->tmpdir, run->workers++);
    const char *argv[] = {run->o->worker_exe, "worker", "--probe", "--device", device,
                          "--status", fifo, NULL};
    wstate w = {.run = run, .probe_info = info};
    pg_supervise_result r;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = supervise(&w, argv, fifo, &r, &d);
    char end[128];
    describe_end(&r, end, sizeof end);
    if (st != PG_OK)
        snprintf(reason, n, "cannot start the GPU probe worker: %s", d.message);
    else if (w.unavailable)
        snprintf(reason, n, "%s", w.reason);
    else if (!w.probe_have)
        snprintf(reason, n, "the GPU probe worker reported no device (%s): %.*s", end,
                 PG_UTF8_CUT(r.output, 300), r.output);
    pg_supervise_result_free(&r);
    return st == PG_OK && !w.unavailable && w.probe_have;
}

static void *heater_main(void *arg)
{
    struct pg_heater *h = arg;
    char device[16];
    snprintf(device, sizeof device, "%d", h->run->o->device_ordinal);
    const char *argv[] = {h->run->o->worker_exe, "worker", "--probe", "--heat", "--device",
                          device, "--status", h->fifo, NULL};
    pg_device_info info;
    wstate w = {.run = h->run, .probe_info = &info, .heater = h};
    pg_supervise_result r;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = supervise(&w, argv, h->fifo, &r, &d);
    char why[1024], end[128];
    describe_end(&r, end, sizeof end);
    if (st != PG_OK)
        snprintf(why, sizeof why, "cannot start the GPU probe worker: %s", d.message);
    else
        snprintf(why, sizeof why, "the GPU probe worker reported no device (%s): %.*s", end,
                 PG_UTF8_CUT(r.output, 300), r.output);
    heater_report(&w, NULL, why); /* nothing when it reported already */
    pg_supervise_result_free(&r);
    return NULL;
}

bool pg_heater_start(pg_run *run)
{
    struct pg_heater *h = calloc(1, sizeof *h);
    if (!h)
        return false;
    h->run = run;
    atomic_init(&h->stop, false);
    atomic_init(&h->ready, false);
    atomic_init(&h->heating_t, 0.0);
    snprintf(h->fifo, sizeof h->fifo, "%s/status%d.fifo", run->tmpdir, run->workers++);
    if (pthread_create(&h->thread, NULL, heater_main, h) != 0) {
        free(h);
        return false;
    }
    run->heater = h;
    return true;
}

/* Wait (bounded by the probe's own watchdog) for the heater's device report. */
static void heater_wait_device(pg_run *run)
{
    struct pg_heater *h = run->heater;
    while (!atomic_load(&h->ready))
        usleep(2000);
    if (h->have_info) {
        run->info = h->info;
        run->have_info = true;
    } else {
        snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason, "%s", h->reason);
    }
}

/* Have the heater killed (its watchdog deadline passes) and note how long it heated. */
static void heater_stop(pg_run *run)
{
    struct pg_heater *h = run->heater;
    if (!h || h->stopped)
        return;
    /* Killed within one watchdog poll (100 ms); pg_heater_join waits until it is reaped. */
    atomic_store(&h->stop, true);
    h->stopped = true;
    double now = pg_now_s(), since = atomic_load(&h->heating_t);
    double heated = since > 0 ? now - since : 0;
    /* The GPU ran GEMMs until this moment: the first heat soak starts warm (blocks.c). */
    if (heated >= PG_HEATER_MIN_S)
        run->gpu_warm_t = now;
    run->heater_seconds = heated;
}

void pg_heater_join(pg_run *run)
{
    struct pg_heater *h = run->heater;
    if (!h)
        return;
    heater_stop(run);
    pthread_join(h->thread, NULL);
    free(h);
    run->heater = NULL;
}

bool pg_worker_probe(pg_run *run)
{
    if (run->heater) {
        heater_wait_device(run);
        return run->have_info;
    }
    pg_device_info info;
    if (pg_worker_probe_device(run, run->o->device_ordinal, &info, run->gpu_skip_reason,
                               sizeof run->gpu_skip_reason)) {
        run->info = info;
        run->have_info = true;
    }
    return run->have_info;
}

/* The accepted kernel as this process prepared and assembled it (worker.h), or null. */
static json_t *accepted_json(const pg_submission *s, bool sanitize)
{
    const pg_submission *a = s->accepted.kernel;
    if (!a || sanitize)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o}", "manifest",
                     pg_jstr(a->manifest->file), "arch", pg_jstr(a->arch), "ptx_path",
                     pg_jstr(a->ptx_path), "cubin_path", pg_jstr(a->cubin_path), "note",
                     pg_jstr(s->accepted.note), "usable", s->accepted.usable, "identical",
                     s->accepted.identical, "identical_by",
                     pg_jstr(s->accepted.identical_by));
}

/* The job on the device of slot (NULL: o->device_ordinal with the run's peaks). */
static pg_status write_job_on(pg_run *run, pg_submission *s, const pg_device_slot *slot,
                              const int *positions, int n, bool load_stage, const char *mode,
                              const char *path, pg_diag *d)
{
    const pg_check_options *o = run->o;
    bool sanitize = strcmp(mode, "sanitize") == 0;
    json_t *wls = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(wls, json_integer(s->workloads[positions[i]]));
    bool measured = slot ? slot->peaks_measured : run->peaks_measured;
    double tflops = slot ? slot->peak_tflops : run->peak_tflops;
    double gbps = slot ? slot->peak_write_gbps : run->peak_write_gbps;
    int ordinal = slot ? slot->ordinal : o->device_ordinal;
    json_t *peaks = measured ? pg_peaks_to_json(tflops, gbps) : json_null();
    double warm_t = slot ? slot->gpu_warm_t : run->gpu_warm_t;
    /* The run's settings as the table writes them, on this worker's device; a sanitize job
     * runs one input set. */
    pg_check_options jo = *o;
    jo.device_ordinal = ordinal;
    if (sanitize)
        jo.correctness_sets = 1;
    json_t *job = json_pack(
        "{s:s, s:o, s:o, s:s, s:o, s:o, s:o, s:b, s:i, s:o, s:o}",
        "mode", mode, "manifest", pg_jstr(s->manifest->file), "tasks_dir", pg_jstr(o->tasks_dir),
        "arch", s->arch, "ptx_path", pg_jstr(s->ptx_path), "cubin_path", pg_jstr(s->cubin_path),
        "workloads", wls, "load_stage", load_stage, "n_comparisons", run->n_comparisons, "peaks",
        peaks, "options", pg_check_job_options(&jo));
    /* CLOCK_MONOTONIC is one clock for every process of the machine. */
    json_object_set_new(job, "gpu_warm_monotonic_s", warm_t > 0 ? json_real(warm_t) : json_null());
    json_object_set_new(job, "accepted", accepted_json(s, sanitize));
    json_object_set_new(job, "instructions",
                        s->instr ? pg_instr_stage_json(s->instr) : json_null());
    json_object_set_new(job, "instructions_copies", json_integer(s->instr_copies));
    char *text = job ? json_dumps(job, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(job);
    if (!text)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_status st = pg_file_write_atomic(path, text, strlen(text), d);
    free(text);
    return st;
}

pg_status pg_worker_write_job(pg_run *run, pg_submission *s, const int *positions, int n,
                              bool load_stage, const char *mode, const char *path, pg_diag *d)
{
    return write_job_on(run, s, NULL, positions, n, load_stage, mode, path, d);
}

/* The record of a stage the worker never finished: status and PTXBench status of the
 * workload. */
static void record_failed_step(wstate *w, int pos, pg_stage_kind stage, const char *status,
                               const char *ptxbench, const char *msg)
{
    pg_wl_state *wl = &w->s->wl[pos];
    pg_stage_finish(pg_ledger_begin(&wl->stages, stage), status, pg_now_s() - w->step_t, "%s",
                    msg);
    pg_wl_set_ptxbench(wl, ptxbench);
    w->final[pos] = true;
    pg_progress(w->run, w->s, wl->name, pg_stage_kind_name(stage), status, msg);
    /* The stages the worker would have recorded next, as an in-process run does. */
    if (stage == PG_STAGE_CORRECTNESS) {
        pg_stage_instructions(w->run, w->s, &wl->stages);
        pg_record_not_run(w->run, w->s, &wl->stages, wl->name, PG_STAGE_PERFORMANCE, "skipped",
                          "not run: the correctness stage did not pass");
    } else if (stage == PG_STAGE_PERFORMANCE) {
        pg_record_not_run(w->run, w->s, &wl->stages, wl->name, PG_STAGE_VERIFY, "skipped",
                          "not run: the timed launches did not complete");
    }
}

/* Workloads still without a final record get `why` for every GPU stage. */
static void record_rest(wstate *w, const char *status, const char *ptxbench, const char *why)
{
    for (int p = 0; p < w->n; p++) {
        if (w->final[p])
            continue;
        pg_gpu_workload_not_run(w->run, w->s, &w->s->wl[p], status, why, ptxbench);
        w->final[p] = true;
    }
}

/* After a worker that did not report "done": the step it was in gets the blame. have_load: the
 * load stage record is in the results already. Returns false when the submission cannot go on
 * (its worker never got through startup and loading). */
static bool attribute_death(wstate *w, const pg_supervise_result *r, const char *end,
                            bool have_load)
{
    char msg[1600];
    const pg_watchdog *wd = &w->run->o->watchdog;
    bool timeout = r->watchdog_killed;
    if (!w->ready)
        snprintf(msg, sizeof msg, "%sthe worker did not open the GPU (%s after %.1f s)",
                 timeout ? "TIMEOUT: " : "", end, r->wall_s);
    else if (timeout && w->stage_open)
        snprintf(msg, sizeof msg,
                 "TIMEOUT: the watchdog killed the worker after %.0f s in the %s stage%s%s",
                 pg_watchdog_limit(wd, w->stage), w->stage, w->workload[0] ? " of workload " : "",
                 w->workload);
    else if (timeout)
        snprintf(msg, sizeof msg,
                 "TIMEOUT: the watchdog killed the worker after %.0f s without a report after "
                 "the %s stage",
                 wd->startup_s, w->stage);
    else
        snprintf(msg, sizeof msg, "the worker process ended unexpectedly (%s) %s the %s stage",
                 end, w->stage_open ? "in" : "after", w->stage);
    int pos = -1;
    for (int p = 0; w->workload[0] && p < w->n; p++)
        if (!w->final[p] && strcmp(w->s->wl[p].name, w->workload) == 0)
            pos = p;
    /* The stage it was in (a name the worker reported; one of its own stages), else the worker
     * itself. */
    pg_stage_kind blamed = PG_STAGE_WORKER;
    if (w->stage_open && !pg_stage_kind_from_name(w->stage, &blamed))
        blamed = PG_STAGE_WORKER;
    if (w->ready && pos >= 0) {
        /* A stage of one workload: that workload fails; the others go on in a new worker. */
        record_failed_step(w, pos, blamed, timeout ? "fail" : "error",
                           timeout ? "TIMEOUT" : "INFRA_ERROR", msg);
        return true;
    }
    if (have_load)
        return true; /* nothing to blame but the worker: see whether it got anything done */
    /* Startup or load: the submission cannot run. */
    pg_stage_finish(pg_ledger_begin(&w->s->stages, PG_STAGE_LOAD), timeout ? "fail" : "error",
                    r->wall_s, "%s", msg);
    pg_progress(w->run, w->s, NULL, "load", timeout ? "fail" : "error", msg);
    record_rest(w, "skipped", timeout ? "TIMEOUT" : "INFRA_ERROR",
                "not run: the load stage did not pass");
    return false;
}

static json_t *worker_entry(const wstate *w, const pg_supervise_result *r, const char *end,
                            const int *positions, int n, bool abnormal)
{
    json_t *names = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(names, json_string(w->s->wl[positions[i]].name));
    json_t *e = json_pack("{s:i, s:o, s:o, s:f, s:s}", "pid", r->pid, "workloads", names,
                          "startup_s", w->ready ? json_real(w->startup_s) : json_null(),
                          "wall_s", r->wall_s, "end", end);
    if (abnormal || r->exit_code != 0) {
        const char *out = r->output ? r->output : "";
        size_t len = strlen(out);
        json_object_set_new(e, "output_tail",
                            pg_jstr(len > PG_WORKER_TAIL_BYTES ? out + len - PG_WORKER_TAIL_BYTES
                                                               : out));
    }
    if (w->bad_lines)
        json_object_set_new(e, "bad_status_lines", json_integer((json_int_t)w->bad_lines));
    return e;
}

/* Keep every comparison this worker finished for the run's Holm step (s->pending), on this
 * process's copy of its performance stage, at the position the worker recorded it (0: vs the
 * vendor library, 2: vs the accepted kernel). */
static void register_perf(wstate *w)
{
    for (int p = 0; p < w->n; p++) {
        if (!w->touched[p] || w->perf[p].n == 0)
            continue;
        pg_wl_state *wl = &w->s->wl[p];
        pg_stage_entry *stage = pg_ledger_find_last(&wl->stages, PG_STAGE_PERFORMANCE);
        for (size_t k = 0; k < w->perf[p].n; k++) {
            const pg_wev_perf *e = &w->perf[p].items[k];
            /* The index was checked when the line was read; that it names one of the stage's
             * comparisons needs the record. */
            if (!stage || e->index < 0 || e->index >= wl->perf.n_cmps) {
                w->bad_lines++;
                continue;
            }
            pg_submission *s = w->s;
            if (s->n_pending == s->cap_pending) {
                size_t cap = s->cap_pending ? 2 * s->cap_pending : 8;
                struct pg_perf_pending *p = realloc(s->pending, cap * sizeof *p);
                if (!p) {
                    w->bad_lines++;
                    continue;
                }
                s->pending = p;
                s->cap_pending = cap;
            }
            s->pending[s->n_pending++] =
                (struct pg_perf_pending){stage, e->index, wl->perf.cmps[e->index], e->result};
        }
    }
}

/* A failure before any worker reported: the load stage carries it, workloads are not run. */
static void fail_submission(wstate *w, bool have_load, const char *msg)
{
    if (!have_load)
        pg_record_not_run(w->run, w->s, &w->s->stages, NULL, PG_STAGE_LOAD, "error", msg);
    record_rest(w, "error", "INFRA_ERROR", msg);
}

void pg_worker_flush_perf(pg_run *run, pg_submission *s)
{
    for (size_t i = 0; i < s->n_pending; i++)
        pg_perf_record(run, s->pending[i].stage, s->pending[i].cmp_index, &s->pending[i].cmp,
                       &s->pending[i].result);
    free(s->pending);
    s->pending = NULL;
    s->n_pending = s->cap_pending = 0;
}

void pg_worker_stages_gpu_on(pg_run *run, pg_submission *s, pg_device_slot *slot)
{
    if (!pg_gpu_prologue(run, s))
        return;
    int n = s->n_workloads;
    bool *final = calloc((size_t)n + 1, sizeof(bool));
    bool *touched = calloc((size_t)n + 1, sizeof(bool));
    perf_list *perf = calloc((size_t)n + 1, sizeof *perf);
    int *positions = calloc((size_t)n + 1, sizeof(int));
    json_t *workers = json_array();
    json_t *iso = json_pack("{s:s, s:O, s:f}", "mode", "process", "workers", workers,
                            "overhead_s", 0.0);
    json_decref(workers); /* iso holds it */
    json_object_set_new(s->json, "isolation", iso);
    double overhead = 0;
    bool have_load = false;
    if (!final || !touched || !perf || !positions || !s->wl) {
        pg_gpu_record_not_run(run, s, "error", "out of memory", false);
        goto done;
    }
    for (;;) {
        int k = 0;
        for (int p = 0; p < n; p++)
            if (!final[p])
                positions[k++] = p;
        if (k == 0)
            break;
        wstate w = {.run = run, .s = s, .slot = slot, .n = n, .final = final,
                    .touched = touched, .perf = perf};
        memset(touched, 0, (size_t)n * sizeof(bool));
        for (int p = 0; p < n; p++) {
            free(perf[p].items);
            perf[p] = (perf_list){NULL, 0};
        }
        char job[PG_PATH_MAX + 64], fifo[PG_PATH_MAX + 64], end[1024];
        /* Numbered before the lock is given up: another device's thread names its own. */
        int number = run->workers++;
        snprintf(job, sizeof job, "%s/job%d.json", run->tmpdir, number);
        snprintf(fifo, sizeof fifo, "%s/status%d.fifo", run->tmpdir, number);
        pg_diag d;
        pg_diag_clear(&d);
        if (write_job_on(run, s, slot, positions, k, !have_load, "check", job, &d) != PG_OK) {
            fail_submission(&w, have_load, d.message);
            break;
        }
        const char *argv[] = {run->o->worker_exe, "worker", "--job", job, "--status", fifo, NULL};
        pg_supervise_result r;
        pg_status st = supervise(&w, argv, fifo, &r, &d);
        unlink(job);
        if (st != PG_OK)
            snprintf(end, sizeof end, "%s", d.message);
        else
            describe_end(&r, end, sizeof end);
        register_perf(&w);
        s->instr_copies += k; /* the worker's records carry the stage's time at most once */
        if (w.load_record) {
            pg_ledger_push(&s->stages, w.load_record);
            w.load_record = NULL;
            have_load = true;
        }
        bool abnormal = st != PG_OK || !w.done;
        overhead += w.ready ? w.startup_s : 0;
        json_array_append_new(workers, worker_entry(&w, &r, end, positions, k, abnormal));
        bool go_on = true;
        if (st != PG_OK) {
            fail_submission(&w, have_load, end);
            go_on = false;
        } else if (w.unavailable) {
            fail_submission(&w, have_load, w.reason);
            go_on = false;
        } else if (!w.done) {
            go_on = attribute_death(&w, &r, end, have_load);
            have_load = have_load || !go_on;
        }
        if (go_on) {
            bool progress = false;
            for (int i = 0; i < k; i++)
                progress |= final[positions[i]];
            if (!progress) {
                char msg[1600];
                snprintf(msg, sizeof msg, "the worker ended (%s) without reporting a result%s%s",
                         end, w.stopped ? ": " : "", w.stopped ? w.reason : "");
                fail_submission(&w, have_load, msg);
                go_on = false;
            }
        }
        pg_supervise_result_free(&r);
        if (!go_on)
            break;
    }
done:
    json_object_set_new(iso, "overhead_s", json_real(round(overhead * 1e6) / 1e6));
    free(final);
    free(touched);
    for (int p = 0; perf && p < n; p++)
        free(perf[p].items);
    free(perf);
    free(positions);
}
