/* Stored baselines (docs/baselines.md, schemas/baseline.schema.json): one file per GPU kind and
 * task, baselines/<gpu-key>/<task>.json, holding per workload the vendor library's pinned
 * configuration and its measured time, the environment fingerprint it was measured in, and the
 * task's accepted kernel (content hashes and its measured speedup). The vendor library is
 * cuBLASLt for GEMM tasks and cuDNN for attention tasks. Loading validates every
 * field (errors name the file and the JSON path); writing is deterministic (sorted keys, fixed
 * number formatting, so equal baselines are equal bytes) and atomic. */
#ifndef PG_MODEL_BASELINE_H
#define PG_MODEL_BASELINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../base/digest.h"
#include "blaslt_algo.h"
#include "cudnn_config.h"
#include "fingerprint.h"
#include "gpu_key.h"
#include "task.h"

#define PG_BASELINE_SCHEMA_VERSION 1

/* One workload's stored numbers. Times in ms. */
typedef struct {
    char name[128];                         /* the task's workload name */
    char symbol_names[PG_MAX_SYMBOLS][32];  /* the workload's symbols, sorted by name */
    int64_t symbol_values[PG_MAX_SYMBOLS];
    int n_symbols;
    /* The vendor configuration, pinned. */
    char library[16];          /* "cublaslt" | "cudnn" */
    pg_blaslt_algo algorithm;  /* cuBLASLt: the algorithm */
    pg_cudnn_config cudnn;     /* cuDNN: graph, engine and knob choices */
    int64_t workspace_bytes;   /* workspace handed to the library */
    int heuristic_rank;        /* rank of the choice in the heuristic's list (0 = first) */
    int candidates_timed;      /* cuBLASLt: heuristic candidates timed in the search that chose
                                  it; cuDNN: configurations tried until one finalized */
    /* Its measured time: the performance stage's vendor arm. */
    double median_ms, ci_low_ms, ci_high_ms;
    double confidence;         /* of [ci_low_ms, ci_high_ms] */
    int64_t samples;           /* timed launches */
    char mode[16];             /* "cold" | "sustained" */
    int blocks, warmup, timed; /* blocks; untimed and timed launches per arm and block */
    char method[2048];         /* the stage's method line */
    /* The accepted kernel in the same blocks (when the task has one). */
    bool has_accepted;
    double accepted_median_ms, accepted_ci_low_ms, accepted_ci_high_ms;
    double speedup, speedup_ci_low, speedup_ci_high; /* vendor time / accepted kernel time */
} pg_baseline_workload;

typedef struct {
    char file[1024];             /* path it was loaded from; "" for a new one */
    char task[128];
    char gpu_key[PG_GPU_KEY_MAX];
    char measured_utc[32];       /* "YYYY-MM-DDTHH:MM:SSZ" */
    char tool_version[32];       /* ptxgate version that measured it */
    pg_fingerprint env;
    /* The task's accepted kernel; paths relative to the task's folder. */
    bool has_accepted;
    char accepted_manifest[1024], accepted_source[1024];
    char accepted_manifest_sha256[PG_SHA256_HEX], accepted_source_sha256[PG_SHA256_HEX];
    pg_baseline_workload *workloads; /* n_workloads entries sorted by name, owned */
    int n_workloads;
} pg_baseline;

/* A new, empty baseline for (task, gpu_key); *out owned by the caller (pg_baseline_free).
 * Errors: PG_ERR_INPUT for a task id or key that is not a plain folder/file name;
 * PG_ERR_INFRA on out-of-memory. */
pg_status pg_baseline_new(const char *task, const char *gpu_key, pg_baseline **out, pg_diag *d);
void pg_baseline_free(pg_baseline *b);

/* "<dir>/<gpu_key>/<task>.json" into out (n bytes). Returns out. */
char *pg_baseline_path(char *out, size_t n, const char *dir, const char *gpu_key,
                       const char *task);

/* Is there a stored baseline at path (pg_baseline_path)? *exists = false with PG_OK only when
 * nothing is there (no such file, or no folder of that GPU key); true for a regular file (or a
 * symbolic link to one). Anything else in its place is PG_ERR_INPUT naming the path, so a broken
 * file is never taken for a missing one: a folder or other non-file, a symbolic link loop or a
 * link to nothing, a file where the GPU key's folder should be (naming that), an unreadable
 * path. */
pg_status pg_baseline_exists(const char *path, bool *exists, pg_diag *d);

/* Load and validate the file at path. expect_task / expect_gpu_key (may be NULL): the task and
 * GPU key the file's place names; a file whose fields say otherwise is refused. Validates:
 * schema_version 1; no unknown key at any level; task and gpu_key plain names; measured_utc's
 * form; the environment (pg_fingerprint_from_json); accepted_kernel null or {manifest, source,
 * manifest_sha256, source_sha256} with relative paths and 64-hex-digit hashes; workloads an
 * object of 1.. entries keyed by workload name, each with symbols (positive integers), vendor
 * (library "cublaslt" with algorithm per pg_blaslt_algo_from_json, or "cudnn" with
 * configuration per pg_cudnn_config_from_json; workspace_bytes >= 0,
 * heuristic_rank >= 0, candidates_timed >= 1), time (0 < ci_low_ms <= median_ms <= ci_high_ms,
 * confidence in (0, 1), samples/blocks/timed >= 1, warmup >= 0, mode cold|sustained, method
 * non-empty) and accepted (null exactly when the file has no accepted kernel; else times as
 * above and speedup {estimate, ci_low, ci_high} positive and ordered).
 * *out owned by the caller. Errors: PG_ERR_INPUT naming the file, the JSON path of the field
 * ("workloads.m4096_n4096_k4096.time.median_ms") and what was expected; a missing file says so
 * (check pg_baseline_exists first to tell "missing" from "bad"). */
pg_status pg_baseline_load_file(const char *path, const char *expect_task,
                                const char *expect_gpu_key, pg_baseline **out, pg_diag *d);

/* The same validation of an already parsed document; file names it in diagnostics (not read).
 * *out->file is set to file. Errors as pg_baseline_load_file. */
pg_status pg_baseline_from_json(const json_t *root, const char *file, const char *expect_task,
                                const char *expect_gpu_key, pg_baseline **out, pg_diag *d);

/* The baseline as JSON (schemas/baseline.schema.json), times rounded to 1 ns (6 decimals of a
 * ms), ratios to 6 decimals, power to 0.1 W. New reference. */
json_t *pg_baseline_to_json(const pg_baseline *b);

/* The file's bytes: pg_baseline_to_json with sorted keys, two-space indentation, numbers with
 * at most 10 significant digits, and a final newline. Loading the text and dumping it again
 * gives the same bytes. *text is owned by the caller (free). Errors: PG_ERR_INFRA on
 * out-of-memory. */
pg_status pg_baseline_dumps(const pg_baseline *b, char **text, size_t *len, pg_diag *d);

/* Write b to path atomically and safely (pg_file_write_safe), creating path's missing folders.
 * A symbolic link at path, or on the way to it where pg_outdir_open refuses one, is refused
 * unless follow_links. Errors: PG_ERR_INPUT naming an unwritable folder or file, or the link. */
pg_status pg_baseline_write(const pg_baseline *b, const char *path, bool follow_links,
                            pg_diag *d);

/* The workload named name, or NULL. Borrowed from b. */
const pg_baseline_workload *pg_baseline_find(const pg_baseline *b, const char *name);

/* Insert w (copied), replacing an entry of the same name; the list stays sorted by name.
 * Errors: PG_ERR_INFRA on out-of-memory. */
pg_status pg_baseline_put(pg_baseline *b, const pg_baseline_workload *w, pg_diag *d);

/* Remove the workload named name (no-op when absent). */
void pg_baseline_remove(pg_baseline *b, const char *name);

/* True when w's symbols are exactly the task workload's (same names and values), i.e. the entry
 * still describes that problem size. */
bool pg_baseline_workload_matches(const pg_baseline_workload *w, const pg_task *t,
                                  const pg_workload *tw);

/* True when w's vendor library is cuDNN (its configuration is w->cudnn), false for cuBLASLt. */
bool pg_baseline_workload_is_cudnn(const pg_baseline_workload *w);

/* "cuBLASLt" or "cuDNN", for messages. */
const char *pg_baseline_library_label(const pg_baseline_workload *w);

/* The pinned configuration as one line into out (n bytes, always NUL-terminated): cuBLASLt's
 * pg_blaslt_algo_format, or "graph composite_fwd, engine 7; STAGES=3" for cuDNN. Returns out. */
char *pg_baseline_vendor_config_text(const pg_baseline_workload *w, char *out, size_t n);

/* Same library and the same algorithm / engine configuration. */
bool pg_baseline_vendor_config_equal(const pg_baseline_workload *a, const pg_baseline_workload *b);

/* Fill w's name and symbols from the task's workload (sorted by symbol name). */
void pg_baseline_workload_set_problem(pg_baseline_workload *w, const pg_task *t,
                                      const pg_workload *tw);

#endif
