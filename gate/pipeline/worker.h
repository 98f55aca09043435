/* The worker process of an isolated `ptxgate check` (docs/isolation.md): `ptxgate worker` opens
 * the GPU and runs one submission's GPU stages for the workloads its job names, reporting every
 * step to its parent as it goes, so a kernel that faults, hangs or corrupts the context costs
 * only its own worker. The parent does all offline work and merges what the worker reports.
 *
 * Status channel: the worker opens the FIFO at the path it is given and writes one JSON object
 * per line (compact, reals with 17 significant digits). Every line is built by the one encoder
 * and read by the one decoder of worker_event.h (typed events, the fields of each kind, which
 * are required, what a malformed line is: the parent counts it in the worker's
 * "bad_status_lines" and uses nothing of it). Events, by "ev":
 *   {"ev":"ready","startup_s":S}               the GPU is open (S: seconds since exec)
 *   {"ev":"device","info":{...}}                the GPU's fingerprint and limits
 *   {"ev":"unavailable","reason":"..."}         no usable GPU; the worker ends
 *   {"ev":"heating"} | {"ev":"heat_failed","reason":"..."}  the heater's GEMM runs / cannot
 *   {"ev":"progress","workload":W|null,"stage":"correctness","status":null|"pass"|...,
 *    "message":...}                             a stage starts (status null) or ends
 *   {"ev":"stage","record":{...}}               a submission-level stage record (load)
 *   {"ev":"workload","index":T,"final":B,"record":{...},
 *    "perf":[{"index":I,"result":{...}}, ...],  a snapshot of the record of task workload T
 *    "peaks":{"tflops":X,"write_gbps":Y}|null,  after a stage ended; final after its last.
 *    "baseline_events":["..."]}                  perf: the comparisons recorded for the run's
 *                                                Holm step (I: position in the performance
 *                                                stage's comparisons, 0 vs the library, 2 vs
 *                                                the accepted kernel); baseline_events: the
 *                                                stored-baseline notes added since the last
 *                                                snapshot
 *   {"ev":"stopped","reason":"..."}             the GPU context broke: the worker stops early
 *   {"ev":"done"}                               nothing more will be reported
 *
 * Job file (written by the parent, JSON): {"mode": "check" | "sanitize", "manifest",
 * "tasks_dir", "arch", "ptx_path", "cubin_path", "workloads": [task workload indices],
 * "load_stage": bool (report the load stage record), "n_comparisons", "peaks": {...}|null,
 * "accepted": {"manifest", "arch", "ptx_path", "cubin_path", "usable", "identical", "note"} |
 * null (the task's accepted kernel as the parent prepared and assembled it; null in sanitize
 * mode), "instructions": {the instructions stage computed after assemble} | null,
 * "instructions_copies": records of it the parent already has, "options": {"device", "sets",
 * "seed", "warmup", "repetitions", "confidence", "timeout_s", "min_speedup_override",
 * "timing_mode"?, "energy", "instructions"?, "arch_dir", "baselines_dir"?, "gpu_key"?,
 * "on_missing_baseline", "on_drift", "drift_tolerance"}} (keys with "?" are left out when the
 * run has no value; "options" is written and read back by check's option table, settings.h). */
#ifndef PG_PIPELINE_WORKER_H
#define PG_PIPELINE_WORKER_H

#include <stdbool.h>

#include "base/diag.h"

/* Run the job at job_path, reporting on the FIFO at status_path. Returns PG_OK when the job ran
 * (whatever its kernels did); PG_ERR_INPUT for a job that cannot be read or prepared,
 * PG_ERR_INFRA when the status channel cannot be opened (d says why). */
pg_status pg_worker_main(const char *job_path, const char *status_path, pg_diag *d);

/* Open device `ordinal`, report "device" (or "unavailable") and "done", close it. With heat,
 * between the two: "heating" once an 8192³ bf16 cuBLASLt GEMM is ready (or "heat_failed" with
 * a reason), then back-to-back GEMMs until the parent kills the process (the heater that keeps
 * the GPU warm while the run's offline stages run, docs/performance.md). PG_ERR_INFRA when the
 * status channel cannot be opened. */
pg_status pg_worker_probe_main(int ordinal, bool heat, const char *status_path, pg_diag *d);

#endif
