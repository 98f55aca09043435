/* What crosses the process boundary: device info and comparison results as JSON, and the
 * decoders of the worker's job file and of the stage and workload records a worker sends
 * (worker_json.c), private to gate/pipeline. */
#ifndef PG_PIPELINE_WORKER_JSON_H
#define PG_PIPELINE_WORKER_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"
#include "device/device.h"
#include "stats/comparison.h"
#include "ledger.h"
#include "wl_state.h"

/* --- worker_json.c: what crosses the process boundary */
/* A real as it crosses the boundary: a JSON real, or for a number that is not finite the string
 * "nan", "inf" or "-inf" (JSON has no such numbers), so it comes back unchanged. New reference
 * (NULL only when out of memory). value: back from such a JSON value (an integer is accepted
 * too); false, *out untouched, for anything else. */
json_t *pg_wire_real(double v);
bool pg_wire_real_value(const json_t *v, double *out);
json_t *pg_device_info_to_json(const pg_device_info *i);
bool pg_device_info_from_json(const json_t *j, pg_device_info *out);
/* Every field; non-finite numbers as the strings "nan", "inf", "-inf". */
json_t *pg_cmp_result_to_json(const pg_cmp_result *r);
bool pg_cmp_result_from_json(const json_t *j, pg_cmp_result *out);
/* The device's measured peaks, {"tflops": X, "write_gbps": Y} (TFLOP/s, GB/s; null for NaN: a
 * measurement that failed), as the job and the worker's "workload" events carry them. */
json_t *pg_peaks_to_json(double tflops, double write_gbps);
/* Back from such an object: NaN for a member that is not a number. */
void pg_peaks_from_json(const json_t *j, double *tflops, double *write_gbps);

/* The instructions stage as the parent wrote it into the job file (pg_instr_stage_json of the
 * static half), back as the typed value: pg_instr_stage_json of the result writes the same
 * record. The parts kept as fragments (details.table, .ptx, .sass, each target's ptx and sass)
 * are copied. New value (pg_instr_stage_free); NULL when out of memory or j is not an object. */
struct pg_instr_stage;
struct pg_instr_stage *pg_instr_stage_from_json(const json_t *j);

/* The worker's job file (worker.h, written by pg_worker_write_job): what it names, as read.
 * The strings are borrowed from the job's JSON. */
typedef struct {
    bool present;              /* the job names an accepted kernel ("accepted" not null) */
    const char *manifest, *arch, *ptx_path, *cubin_path, *note;
    const char *identical_by;  /* "bytes", "code_sections" or "" (absent: "") */
    bool usable, identical;
} pg_worker_job_accepted;
typedef struct {
    const char *manifest, *tasks_dir, *arch, *ptx_path, *cubin_path;
    int *workloads;            /* task workload indices (owned) */
    int n_workloads;
    bool load_stage;
    bool sanitize;             /* mode "sanitize" (else "check") */
    int64_t n_comparisons;
    bool have_peaks;           /* "peaks" is an object: the device's peaks measured */
    double peak_tflops, peak_write_gbps; /* NaN for a measurement that failed */
    double gpu_warm_s;         /* gpu_warm_monotonic_s when a positive number, else 0 */
    struct pg_instr_stage *instructions; /* the instructions stage as computed after assemble
                                            (owned), NULL when none or out of memory */
    int64_t instructions_copies; /* records of it the parent already has */
    pg_worker_job_accepted accepted;
} pg_worker_job;
/* Read the job into *f (zeroed first by the caller). Errors: PG_ERR_INPUT naming file and the
 * field for a member missing or of the wrong type; PG_ERR_INFRA out of memory. Free with
 * pg_worker_job_free whatever the result. */
pg_status pg_worker_job_read(const json_t *job, const char *file, pg_worker_job *f, pg_diag *d);
void pg_worker_job_free(pg_worker_job *f);

/* A stage record as a worker wrote it, back as a typed entry (kind from "stage", "status",
 * "message", "duration_s", the "details" object to write into), holding a new reference to j.
 * NULL when j is not such a record (an unknown stage or status) or out of memory. */
pg_stage_entry *pg_stage_entry_from_json(json_t *j);
/* A workload record as a worker wrote it, back as the typed state of task workload task_index
 * named name (borrowed): every stage (pg_stage_entry_from_json), its PTXBench "status", and the
 * names and records of the comparisons of its last performance stage. The state takes new
 * references to j and its "stages". false (*out untouched) when j is no such record or out of
 * memory. */
bool pg_wl_state_from_json(json_t *j, int task_index, const char *name, pg_wl_state *out);

#endif
