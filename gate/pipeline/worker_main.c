/* The worker side of process isolation (worker.h): read the job, open the GPU, run the load stage
 * and each workload's GPU stages in this process with the sequence an in-process run runs
 * (pg_exec_stages, executor.h), and report every step and every record on the status channel
 * as soon as it exists: the pipe is the sequence's event sink. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/jsonget.h"
#include "baseline_check.h"
#include "executor.h"
#include "model/gemm_blas.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "worker_event.h"
#include "worker_json.h"
#include "worker.h"

typedef struct {
    int fd;
    pg_run *run;
    pg_submission *s;
    size_t baseline_events_sent; /* the task's stored-baseline notes already reported */
    bool load_stage;             /* the job asks for the load stage's record */
    bool loaded;                 /* the load stage passed */
} worker;

/* One event: its line (worker_event.h), in one write where the pipe allows. A parent that is
 * gone makes the write fail (or SIGPIPE end us): either way nobody is listening any more. An
 * event that cannot be encoded (out of memory) is not sent: the parent's watchdog covers it. */
static void emit(worker *w, const pg_worker_event *ev)
{
    char *text = NULL;
    size_t len = 0;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_worker_event_encode(ev, &text, &len, &d) != PG_OK)
        return;
    for (size_t off = 0; off < len;) {
        ssize_t n = write(w->fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    free(text);
}

/* The state of the workload named `name` and its position. */
static pg_wl_state *find_workload(pg_submission *s, const char *name, int *pos)
{
    for (int i = 0; s->wl && i < s->n_workloads; i++)
        if (strcmp(s->wl[i].name, name) == 0) {
            *pos = i;
            return &s->wl[i];
        }
    return NULL;
}

/* The comparisons recorded for the run's Holm step in workload wl, at their position in their
 * stage's comparisons: *n entries, malloc'd (NULL when there are none, or out of memory: then
 * the parent registers none of this workload's, as for a worker that died). */
static pg_wev_perf *perf_of(const pg_run *run, const pg_wl_state *wl, size_t *n)
{
    pg_wev_perf *list = run->n_perf ? calloc(run->n_perf, sizeof *list) : NULL;
    *n = 0;
    for (size_t k = 0; list && k < run->n_perf; k++)
        for (size_t i = 0; i < wl->stages.n; i++)
            if (run->perf_stages[k] == pg_ledger_at(&wl->stages, i)) {
                list[(*n)++] = (pg_wev_perf){run->perf_cmp_index[k], run->perf_results[k]};
                break; /* one entry per comparison: at most run->n_perf */
            }
    return list;
}

static void emit_workload(worker *w, int pos, bool final)
{
    const pg_wl_state *wl = &w->s->wl[pos];
    json_t *events = pg_baselines_events_since(w->run, w->s->task->id, &w->baseline_events_sent);
    pg_worker_event ev = {.kind = PG_WEV_WORKLOAD};
    ev.workload.index = w->s->workloads[pos];
    ev.workload.final = final;
    ev.workload.record = wl->json;
    ev.workload.perf = perf_of(w->run, wl, &ev.workload.n_perf);
    ev.workload.have_peaks = w->run->peaks_measured;
    ev.workload.peak_tflops = w->run->peak_tflops;
    ev.workload.peak_write_gbps = w->run->peak_write_gbps;
    ev.workload.baseline_events = events;
    emit(w, &ev);
    free(ev.workload.perf);
    json_decref(events);
}

/* The events without a record: one of the reason kinds, or ready / heating / done. */
static void emit_reason(worker *w, pg_wev_kind kind, const char *reason)
{
    pg_worker_event ev = {.kind = kind};
    ev.reason = reason;
    emit(w, &ev);
}

/* Progress callback: every stage start and end goes to the parent (its watchdog follows the
 * starts); after a workload stage ends, a snapshot of that workload's record follows. */
static void on_progress(void *ctx, const char *task, const char *sub, const char *workload,
                        const char *stage, const char *status, const char *message)
{
    worker *w = ctx;
    pg_worker_event ev = {.kind = PG_WEV_PROGRESS};
    ev.progress.workload = workload;
    ev.progress.stage = stage;
    ev.progress.status = status;
    ev.progress.message = message;
    emit(w, &ev);
    int pos;
    if (status && workload && w->s && w->s->json && find_workload(w->s, workload, &pos))
        emit_workload(w, pos, false);
}

/* The stage sequence's sink (executor.h): the load stage's record when the job asks for it,
 * each workload's final record, and "stopped" once the GPU context is lost. */
static void sink_loaded(void *ctx, pg_submission *s, bool ok)
{
    worker *w = ctx;
    w->loaded = ok;
    const pg_stage_entry *last = pg_ledger_last(&s->stages);
    pg_worker_event ev = {.kind = PG_WEV_STAGE};
    ev.stage.record = last ? last->record : NULL;
    if (w->load_stage && ev.stage.record)
        emit(w, &ev);
}

static bool sink_workload_done(void *ctx, pg_submission *s, int pos)
{
    worker *w = ctx;
    (void)s;
    emit_workload(w, pos, true);
    if (w->loaded && !pg_run_ensure_device(w->run)) {
        /* A sticky fault or a hung kernel: this context can run nothing more. The parent
         * gives the remaining workloads to a fresh worker. */
        emit_reason(w, PG_WEV_STOPPED, w->run->gpu_skip_reason);
        return false;
    }
    return true;
}

static pg_status open_status(const char *path, int *fd, pg_diag *d)
{
    /* The parent holds the FIFO open, so this open does not block. */
    *fd = open(path, O_WRONLY | O_CLOEXEC);
    if (*fd < 0)
        return pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL, "cannot open the status channel: %s",
                           strerror(errno));
    return PG_OK;
}

/* The worker must not outlive its parent: a parent killed mid-run takes its worker with it. */
static void die_with_parent(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        _exit(3);
}

/* The heater's load: 8192³ bf16 GEMMs on random inputs (zeros draw less power), a cuBLASLt
 * algorithm the heuristic picks first, in batches of 8 with a bounded wait, until the parent
 * kills the process (at the latest its watchdog does, after --watchdog startup). */
#define PG_HEAT_GEMM_N 8192
#define PG_HEAT_BATCH 8

static void heat(worker *w, pg_device *dev)
{
    const int64_t n = PG_HEAT_GEMM_N;
    size_t bytes = (size_t)n * (size_t)n * 2;
    pg_buffer *a = NULL, *b = NULL, *c = NULL;
    pg_blaslt_gemm *gemm = NULL;
    pg_blaslt_choice choice;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_buffer_alloc(dev, bytes, &a, &d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, bytes, &b, &d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, bytes, &c, &d);
    if (st == PG_OK)
        st = pg_buffer_fill_normal(a, PG_DTYPE_BF16, (size_t)n * (size_t)n, 21, &d);
    if (st == PG_OK)
        st = pg_buffer_fill_normal(b, PG_DTYPE_BF16, (size_t)n * (size_t)n, 22, &d);
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_BF16, PG_DTYPE_BF16, n, n, n);
    if (st == PG_OK)
        st = pg_blaslt_gemm_prepare(dev, &p, a, b, NULL, c, 1, &gemm, &choice, &d);
    if (st == PG_OK)
        emit_reason(w, PG_WEV_HEATING, NULL);
    else
        emit_reason(w, PG_WEV_HEAT_FAILED, d.message);
    while (st == PG_OK) {
        for (int i = 0; i < PG_HEAT_BATCH && st == PG_OK; i++)
            st = pg_blaslt_gemm_enqueue(gemm, &d);
        if (st == PG_OK)
            st = pg_device_sync(dev, 60.0, &d);
    }
    if (gemm)
        pg_blaslt_gemm_free(gemm);
    pg_buffer_free(a);
    pg_buffer_free(b);
    pg_buffer_free(c);
}

pg_status pg_worker_probe_main(int ordinal, bool heat_after, const char *status_path, pg_diag *d)
{
    die_with_parent();
    worker w = {.fd = -1};
    pg_status st = open_status(status_path, &w.fd, d);
    if (st != PG_OK)
        return st;
    pg_device *dev = NULL;
    pg_diag od;
    pg_diag_clear(&od);
    if (pg_device_open(ordinal, &dev, &od) == PG_OK) {
        pg_worker_event ev = {.kind = PG_WEV_DEVICE};
        ev.device = *pg_device_get_info(dev);
        emit(&w, &ev);
        if (heat_after)
            heat(&w, dev);
        pg_device_close(dev);
    } else {
        emit_reason(&w, PG_WEV_UNAVAILABLE, od.message);
    }
    emit_reason(&w, PG_WEV_DONE, NULL);
    close(w.fd);
    return PG_OK;
}

/* Options from the job's "options" object (settings.h reads every row the parent wrote). */
static pg_status read_options(const json_t *job, const char *file, pg_check_options *o,
                              pg_diag *d)
{
    pg_jctx top = {.file = file};
    json_t *opts = NULL;
    pg_status st = pg_jget_object(job, &top, "options", true, &opts, d);
    return st == PG_OK ? pg_check_job_options_read(o, opts, file, d) : st;
}

/* The accepted kernel the parent prepared and assembled, re-read for the same workloads; it is
 * loaded after the candidate (pg_gpu_stage_load). */
static pg_status prepare_accepted(pg_run *run, const pg_worker_job *f, pg_submission *s, pg_diag *d)
{
    const pg_worker_job_accepted *a = &f->accepted;
    if (!a->present)
        return PG_OK;
    s->accepted.kernel = calloc(1, sizeof *s->accepted.kernel);
    if (!s->accepted.kernel)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_status st = pg_submission_prepare_worker(run, a->manifest, a->arch, a->ptx_path,
                                                a->cubin_path, f->workloads, f->n_workloads,
                                                s->accepted.kernel, d);
    s->accepted.usable = a->usable;
    s->accepted.identical = a->identical;
    /* Back to the static names (gate/ptx/cubin_code.h). */
    s->accepted.identical_by =
        !a->identical                                                     ? NULL
        : a->identical_by && strcmp(a->identical_by, "code_sections") == 0 ? "code_sections"
                                                                           : "bytes";
    snprintf(s->accepted.note, sizeof s->accepted.note, "%s", a->note);
    return st;
}


pg_status pg_worker_main(const char *job_path, const char *status_path, pg_diag *d)
{
    die_with_parent();
    double t_exec = pg_now_s();
    json_t *job = NULL;
    pg_worker_job f;
    memset(&f, 0, sizeof f);
    pg_check_options o;
    pg_check_options_init(&o);
    pg_run run = {.o = &o};
    pg_submission s;
    memset(&s, 0, sizeof s);
    bool prepared = false;
    worker w = {.fd = -1, .run = &run};
    pg_status st = pg_json_load(job_path, &job, d);
    if (st == PG_OK)
        st = pg_worker_job_read(job, job_path, &f, d);
    if (st == PG_OK)
        st = read_options(job, job_path, &o, d);
    if (st != PG_OK)
        goto done;
    o.tasks_dir = f.tasks_dir;
    o.progress = on_progress;
    o.progress_ctx = &w;
    run.n_comparisons = (int)f.n_comparisons;
    run.sanitize_mode = f.sanitize;
    if (f.gpu_warm_s > 0 && f.gpu_warm_s <= t_exec)
        run.gpu_warm_t = f.gpu_warm_s;
    if (f.have_peaks) {
        run.peaks_measured = true;
        run.peak_tflops = f.peak_tflops;
        run.peak_write_gbps = f.peak_write_gbps;
    }
    st = pg_submission_prepare_worker(&run, f.manifest, f.arch, f.ptx_path, f.cubin_path,
                                      f.workloads, f.n_workloads, &s, d);
    prepared = true;
    if (st == PG_OK)
        st = prepare_accepted(&run, &f, &s, d);
    s.instr = f.instructions; /* taken */
    f.instructions = NULL;
    s.instr_copies = (int)f.instructions_copies;
    if (st == PG_OK)
        st = open_status(status_path, &w.fd, d);
    if (st != PG_OK)
        goto done;
    w.s = &s;
    pg_submission_results_init(&s, json_object());

    if (!pg_run_ensure_device(&run)) {
        emit_reason(&w, PG_WEV_UNAVAILABLE, run.gpu_skip_reason);
        emit_reason(&w, PG_WEV_DONE, NULL);
        goto done;
    }
    /* The stored baselines as the parent resolved them: same options, same files. */
    pg_diag bd;
    pg_diag_clear(&bd);
    if (pg_baselines_resolve(&run, &s, 1, &bd) != PG_OK) {
        char msg[2400];
        emit_reason(&w, PG_WEV_UNAVAILABLE, pg_diag_format(&bd, msg, sizeof msg));
        emit_reason(&w, PG_WEV_DONE, NULL);
        goto done;
    }
    pg_worker_event ready = {.kind = PG_WEV_READY}, device = {.kind = PG_WEV_DEVICE};
    ready.ready.startup_s = pg_now_s() - t_exec;
    device.device = run.info;
    emit(&w, &ready);
    emit(&w, &device);
    pg_gpu_workloads_init(&s);
    w.load_stage = f.load_stage;
    pg_exec_sink sink = {.ctx = &w, .loaded = sink_loaded, .workload_done = sink_workload_done};
    pg_exec_stages(&run, &s, &sink);
    emit_reason(&w, PG_WEV_DONE, NULL);
done:
    pg_submission_results_release(&s);
    json_decref(s.json);
    s.json = NULL;
    if (prepared)
        pg_submission_release(&s);
    pg_worker_job_free(&f);
    json_decref(job);
    pg_perf_release(&run);
    pg_baselines_release(&run);
    if (run.dev)
        pg_device_close(run.dev);
    if (w.fd >= 0)
        close(w.fd);
    return st;
}
