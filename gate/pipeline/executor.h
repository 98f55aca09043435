/* The executor: who runs a submission's GPU stages, behind one interface with two
 * implementations (docs/architecture.md, docs/isolation.md). In this process (executor.c: the
 * stage sequence runs here and its records land in s->json directly) or in worker processes
 * (worker.c, worker_pool.c: each worker runs the same stage sequence, pg_exec_stages, with its
 * status pipe as the event sink, worker_main.c; the parent merges what it reports). The
 * orchestrator (check.c) calls only this interface. Private to gate/pipeline. */
#ifndef PG_PIPELINE_EXECUTOR_H
#define PG_PIPELINE_EXECUTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "settings.h"
#include "run.h"
#include "submission.h"

/* --- The stage sequence (stage_gpu.c), written once and run by both executors in the process
 * that holds the GPU. */

/* Where the sequence reports as it goes, besides s->json and pg_progress (which a worker sends
 * on its pipe itself). Either callback may be NULL; ctx is passed to both. */
typedef struct {
    void *ctx;
    /* The load stage ended: its record is the last of s->json "stages"; ok when it passed. */
    void (*loaded)(void *ctx, pg_submission *s, bool ok);
    /* The record of workload pos (s->json "workloads"[pos]) is final. false stops the
     * sequence: the later workloads keep their skeletons, for the caller to give elsewhere. */
    bool (*workload_done)(void *ctx, pg_submission *s, int pos);
    /* true: before each workload, a GPU context lost earlier records it as not run ("error",
     * run->gpu_skip_reason), as are all after it (in this process nothing else can run them).
     * false: the sink's workload_done decides after each workload (a worker stops there and
     * its parent starts a fresh one). */
    bool record_lost_gpu;
} pg_exec_sink;

/* The GPU stages' prologue, in the process that decides where they run: a skeleton record
 * per selected workload in s->json "workloads", then why the stages cannot run (the assemble
 * stage did not pass, the PTX calls the device heap, no GPU), recorded as not run for load
 * and every workload. True when the GPU stages can run. Asks for the device. */
bool pg_gpu_prologue(pg_run *run, pg_submission *s);
/* On the workload skeletons of s->json: the load stage (and the accepted kernel's module),
 * then per workload correctness, instructions and (when correct) performance and verify
 * (pg_gpu_run_workload); after a failed load every workload is recorded as not run
 * (COMPILE_ERROR). Reports to sink as above. Needs the device open in this process. */
void pg_exec_stages(pg_run *run, pg_submission *s, const pg_exec_sink *sink);

/* --- The executor interface. Every member is set (a no-op where an executor has nothing to
 * do); each is called holding run->lock when the run has one (run.h). */
typedef struct {
    const char *name; /* "in-process" or "worker" */
    /* As the run begins, before any offline work: the worker starts its heater (one GPU, not
     * --sanitize, GPU not disabled: docs/performance.md, step 4). */
    void (*run_start)(pg_run *run);
    /* Once the submissions are prepared, before the launch-limit check: with --devices the
     * worker probes every device (PG_ERR_INPUT for devices of different models, naming
     * --devices; pg_worker_pool_probe). */
    pg_status (*devices_open)(pg_run *run, pg_diag *d);
    /* The GPU stages of one submission, now, merged into s->json; its comparisons registered
     * for the run's Holm step in report order. The worker first has the heater report the
     * fingerprint and end, so no heater kernel runs next to a submission's. */
    void (*submission)(pg_run *run, pg_submission *s);
    /* With pg_executor_pooled: the GPU stages of every submission with active[i], on all of
     * --devices at once, each submission counted done (pg_run_submission_done) as it ends and
     * the comparisons registered in submission order after all ended (pg_worker_pool_run). */
    void (*submissions)(pg_run *run, pg_submission *subs, size_t n, const bool *active);
    /* As the run ends (also on an early error): the heater, if still there, killed and
     * reaped. */
    void (*run_end)(pg_run *run);
} pg_executor;

extern const pg_executor pg_executor_in_process;
extern const pg_executor pg_executor_worker;

/* The executor of a run: the worker one with an isolated run (o->worker_exe), else this
 * process's. */
const pg_executor *pg_executor_for(const pg_check_options *o);
/* True when the GPU stages of all submissions run at once on several devices (isolated, more
 * than one of --devices): then submissions, not submission, is called. */
bool pg_executor_pooled(const pg_check_options *o);

#endif
