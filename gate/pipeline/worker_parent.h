/* The parent side of process isolation: probe and heater workers, a submission's GPU stages in
 * worker processes, the job file, and the pool of --devices (worker.c, worker_pool.c;
 * docs/isolation.md). Private to gate/pipeline. */
#ifndef PG_PIPELINE_WORKER_PARENT_H
#define PG_PIPELINE_WORKER_PARENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "device/device.h"
#include "run.h"
#include "submission.h"

/* --- worker.c: the parent side of process isolation (docs/isolation.md) */
/* Open the GPU in a probe worker: fills run->info, or run->gpu_skip_reason (from the heater's
 * report when one runs). */
bool pg_worker_probe(pg_run *run);
/* The heater (worker.c): the probe worker with --heat, started on a thread of its own when the
 * run begins, so that the GPU's fingerprint and a warm GPU are there when the offline stages are
 * done (docs/performance.md, step 4). Start: false when no thread could be made (the run goes on
 * without). Join: have it killed, wait until its process is reaped and free it; when it heated
 * for at least PG_HEATER_MIN_S, run->gpu_warm_t = that moment and run->heater_seconds = how
 * long it heated. Called before the first submission's worker starts, so its kernels never run
 * next to a submission's (a no-op without a heater). */
#define PG_HEATER_MIN_S 1.0
bool pg_heater_start(pg_run *run);
void pg_heater_join(pg_run *run);
/* Probe device `ordinal`: *info on success (true), else why in reason[n]. */
bool pg_worker_probe_device(pg_run *run, int ordinal, pg_device_info *info, char *reason,
                            size_t n);
/* The GPU stages of one submission in worker processes (the worker executor, executor.h),
 * merged into s->json; a worker that hangs or dies costs only the step it was in. On the
 * device of `slot` (its ordinal and peaks; NULL: o->device_ordinal and the run's peaks),
 * leaving the comparisons in s->pending (pg_worker_flush_perf registers them). With run->lock
 * set, the caller holds it; it is released only while a worker runs (the status callbacks
 * take it). */
void pg_worker_stages_gpu_on(pg_run *run, pg_submission *s, pg_device_slot *slot);
/* Register s->pending for the run's Holm step, in report order, and empty it. */
void pg_worker_flush_perf(pg_run *run, pg_submission *s);
/* The job file of one worker (gate/pipeline/worker.h): the submission (with its accepted
 * kernel and its instructions stage as computed after assemble), the workloads at the given
 * positions in s->workloads, the run's settings. mode "check" runs the GPU stages; "sanitize"
 * loads and runs one correctness set per workload on plain (unguarded) buffers, for a worker
 * run under compute-sanitizer. */
pg_status pg_worker_write_job(pg_run *run, pg_submission *s, const int *positions, int n,
                              bool load_stage, const char *mode, const char *path, pg_diag *d);

/* --- worker_pool.c: `--devices` with more than one device (docs/isolation.md).
 * probe: one probe worker per device; all must be the same GPU model (name, compute capability,
 * SM count), else PG_ERR_INPUT naming --devices; a device that cannot be opened makes the run
 * GPU-less as with one device (run->gpu_skip_reason names it). Fills run->info (the first
 * device), run->dev_infos.
 * run: the GPU stages of the submissions with active[i] on the devices, at most one worker per
 * device at a time, whole submissions longest first (model/devices.h); results stay in
 * s->json in submission order and the comparisons are registered for Holm after all ended, in
 * submission order. */
pg_status pg_worker_pool_probe(pg_run *run, pg_diag *d);
void pg_worker_pool_run(pg_run *run, pg_submission *subs, size_t n, const bool *active);

#endif
