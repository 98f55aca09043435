/* Stored baselines at check time (baseline_check.c, docs/baselines.md), private to
 * gate/pipeline. */
#ifndef PG_PIPELINE_BASELINE_CHECK_H
#define PG_PIPELINE_BASELINE_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "device/device.h"
#include "model/dtype.h"
#include "run.h"
#include "stage.h"
#include "submission.h"

/* --- baseline_check.c: stored baselines at check time (docs/baselines.md).
 * resolve: once per run after the device is opened (or not): the GPU key, then per task of
 * the run its file <baselines_dir>/<gpu-key>/<task>.json loaded and validated (a bad file is
 * PG_ERR_INPUT naming the file and field: the run stops before any GPU work), the live
 * fingerprint compared with the stored one, and the accepted kernel's hashes compared.
 * Without a GPU and without --gpu-key nothing is looked up.
 * refuses: true (with the reason) when --on-missing-baseline=fail and workload c has no usable
 * stored entry: the performance stage is then recorded as an infrastructure error, not run.
 * prepare_gemm: the performance stage's cuBLASLt preparation (vendor_arm.c) of problem p (the
 * workload's; pg_blaslt_gemm_prepare: A, B and C, NULL without a C input, read; D written):
 * the stored algorithm pinned when the stored and live cuBLASLt versions match and the entry describes
 * c's workload, else the heuristic search (also when cuBLASLt refuses the pinned algorithm);
 * how it went is written to the current performance stage's details.stored_baseline.
 * prepare_sdpa: the same for cuDNN's attention graphs (vendor_arm.c): args->pin set to the
 * stored engine configuration when the cuDNN versions match (and reset after), else, or when
 * cuDNN refuses it, the heuristics choose.
 * check_stage: after the performance stage: the live vendor median and interval against the
 * stored ones (details.baseline_drift); drift beyond --drift-tolerance is a warning or an
 * infrastructure error per --on-drift. Verdicts stay those of the live measurement.
 * json: the run's "baselines" section (docs/results.md). */
pg_status pg_baselines_resolve(pg_run *run, pg_submission *subs, size_t n, pg_diag *d);
bool pg_baseline_refuses(pg_wctx *c, char *why, size_t n);
pg_status pg_baseline_prepare_gemm(pg_wctx *c, const pg_gemm_problem *p, const pg_buffer *A,
                                   const pg_buffer *B, const pg_buffer *C, pg_buffer *D,
                                   int max_candidates, pg_blaslt_gemm **out,
                                   pg_blaslt_choice *choice, pg_diag *d);
pg_status pg_baseline_prepare_sdpa(pg_wctx *c, pg_sdpa_args *args, pg_cudnn_sdpa **out,
                                   pg_cudnn_sdpa_info *info, pg_diag *d);
void pg_baseline_check_stage(pg_wctx *c);
json_t *pg_baselines_json(const pg_run *run);
void pg_baselines_release(pg_run *run);
/* Isolated runs: the worker resolves the baselines again (the same options and files) and
 * reports the per-workload notes it adds; the parent appends them to its own record of the
 * task. events_since returns a new array of the task's notes from position *from on and
 * advances *from; add_events appends such an array (strings) to the task's notes. */
json_t *pg_baselines_events_since(const pg_run *run, const char *task, size_t *from);
void pg_baselines_add_events(pg_run *run, const char *task, const json_t *events);

#endif
