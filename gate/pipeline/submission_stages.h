/* The submission-level stages: assemble, the instructions stage's static half, the GPU stages
 * (the pieces of the sequence both executors run, executor.h), sanitize; private to
 * gate/pipeline. */
#ifndef PG_PIPELINE_SUBMISSION_STAGES_H
#define PG_PIPELINE_SUBMISSION_STAGES_H

#include <jansson.h>
#include <stdbool.h>

#include "run.h"
#include "submission.h"

/* --- stages */
void pg_stage_assemble(pg_run *run, pg_submission *s);
/* stage_instructions.c: the static half, once per submission right after assemble (PTX
 * inventory against the targets, disassembly of the assembled cubin) into s->instr. */
void pg_instr_static(pg_run *run, pg_submission *s);
/* Append the submission's instructions stage to a workload's stages (a copy of the static
 * result; the runtime half fills it in further). Returns the appended stage (borrowed). */
pg_stage_entry *pg_stage_instructions(pg_run *run, pg_submission *s, pg_ledger *stages);
/* As pg_stage_instructions; *rec (when rec is not NULL) gets the typed copy the record was
 * written from (caller-owned, pg_instr_stage_free; NULL when the record is the out-of-memory
 * error), for the runtime half to complete (pg_instr_runtime). */
pg_stage_entry *pg_stage_instructions_rec(pg_run *run, pg_submission *s, pg_ledger *stages,
                                          struct pg_instr_stage **rec);

/* --- stage_gpu.c, the pieces of the stage sequence (executor.h) its callers share */
/* Append a skeleton record per selected workload to s->json "workloads", with its typed state
 * (s->wl). */
void pg_gpu_workloads_init(pg_submission *s);
/* Record load and every workload's GPU stages as not run with status and reason (the
 * instructions stage, which needs no GPU, as computed). */
void pg_gpu_record_not_run(pg_run *run, pg_submission *s, const char *status, const char *why,
                           bool compile_error);
/* Record correctness, the instructions stage (its static half, which needs no GPU) and
 * performance of workload w as not run with status and reason; its PTXBench status becomes
 * ptxbench ("COMPILE_ERROR", "TIMEOUT", ...; NULL: unchanged). */
void pg_gpu_workload_not_run(pg_run *run, pg_submission *s, pg_wl_state *w, const char *status,
                             const char *why, const char *ptxbench);
/* Record stage `kind` as not run in `stages`, with status and reason (progress for
 * non-skips). */
void pg_record_not_run(pg_run *run, pg_submission *s, pg_ledger *stages, const char *workload,
                       pg_stage_kind kind, const char *status, const char *reason);
/* The load stage record (submission level): the module loads and every entry is found; then
 * the accepted kernel is loaded (pg_accepted_load). */
bool pg_gpu_stage_load(pg_run *run, pg_submission *s);
/* Correctness and instructions, then (when correct) performance and verify of workload i
 * (position in s->workloads), filling its state s->wl[i]. */
void pg_gpu_run_workload(pg_run *run, pg_submission *s, int i);

/* --- stage_sanitize.c: with --sanitize, the submission-level sanitize stage: a worker under
 * compute-sanitizer per tool, on the submission's smallest workload, findings per kernel. */
void pg_stage_sanitize(pg_run *run, pg_submission *s);

#endif
