/* The two executors of the GPU stages (executor.h) and the choice between them: in this process
 * (the stage sequence run here, recording straight into the results) and in worker processes
 * (worker.c, worker_pool.c: the parent side; worker_main.c runs the same sequence). */
#include <stddef.h>

#include "executor.h"
#include "worker_parent.h"

/* --- in this process */

static void inproc_run_start(pg_run *run)
{
    (void)run;
}

static pg_status inproc_devices_open(pg_run *run, pg_diag *d)
{
    (void)run;
    (void)d;
    return PG_OK; /* the device opens when a stage first asks (pg_run_ensure_device) */
}

/* The sequence's records land in s->json as they are made, and the performance stage registers
 * its comparisons for Holm itself: nothing to report further. A GPU context lost midway
 * leaves the remaining workloads as not run (nothing else in this process could run them). */
static void inproc_submission(pg_run *run, pg_submission *s)
{
    static const pg_exec_sink sink = {.record_lost_gpu = true};
    if (pg_gpu_prologue(run, s))
        pg_exec_stages(run, s, &sink);
}

static void inproc_submissions(pg_run *run, pg_submission *subs, size_t n, const bool *active)
{
    for (size_t i = 0; i < n; i++)
        if (active[i]) {
            inproc_submission(run, &subs[i]);
            pg_run_submission_done(run, &subs[i]);
        }
}

static void inproc_run_end(pg_run *run)
{
    (void)run;
}

const pg_executor pg_executor_in_process = {
    .name = "in-process", .run_start = inproc_run_start, .devices_open = inproc_devices_open,
    .submission = inproc_submission, .submissions = inproc_submissions,
    .run_end = inproc_run_end};

/* --- in worker processes (docs/isolation.md) */

static void worker_run_start(pg_run *run)
{
    const pg_check_options *o = run->o;
    if (!o->no_gpu && !pg_executor_pooled(o) && !o->sanitize)
        pg_heater_start(run);
}

static pg_status worker_devices_open(pg_run *run, pg_diag *d)
{
    if (pg_executor_pooled(run->o) && !run->o->no_gpu)
        return pg_worker_pool_probe(run, d);
    return PG_OK;
}

static void worker_submission(pg_run *run, pg_submission *s)
{
    if (run->heater) {
        /* Its report first (the fingerprint), then the GPU is this worker's alone: the heater
         * is gone before the worker starts, so no kernel of it can run next to the instruction
         * counters or the timing. */
        pg_run_device_info(run);
        pg_heater_join(run);
    }
    pg_worker_stages_gpu_on(run, s, NULL);
    pg_worker_flush_perf(run, s);
}

const pg_executor pg_executor_worker = {
    .name = "worker", .run_start = worker_run_start, .devices_open = worker_devices_open,
    .submission = worker_submission, .submissions = pg_worker_pool_run,
    .run_end = pg_heater_join};

const pg_executor *pg_executor_for(const pg_check_options *o)
{
    return o->worker_exe ? &pg_executor_worker : &pg_executor_in_process;
}

bool pg_executor_pooled(const pg_check_options *o)
{
    return o->worker_exe && o->n_devices > 1;
}
