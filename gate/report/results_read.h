/* Strict reading of a results json (docs/results.md) into a borrowed C view, plus the small text
 * toolkit the report writers share: UTF-8 cleaning of untrusted text (into base/text.h's
 * buffer) and the C numeric locale. Every report (JUnit, markdown) reads results only through
 * this view, so a malformed results file fails the same way everywhere: PG_ERR_INPUT naming the
 * file and the JSON path.
 *
 * Calling sequence of a writer:
 *     pg_results r;
 *     if (pg_results_read(json, file, &r, d) != PG_OK) return d->status;
 *     ... walk r.subs[i].stages / r.subs[i].workloads[j].stages, reading numbers out of a
 *         stage's details with pg_res_detail_number() and friends ...
 *     pg_results_free(&r);
 */
#ifndef PG_REPORT_RESULTS_READ_H
#define PG_REPORT_RESULTS_READ_H

#include <jansson.h>
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/jsonget.h"
#include "base/text.h"

/* Outcome of a stage record, and verdict of a submission, workload or run. A submission or
 * workload whose every stage was skipped has verdict PG_RES_SKIPPED; the run's verdict is never
 * PG_RES_SKIPPED. */
typedef enum { PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED } pg_res_status;

/* "pass", "fail", "error", "skipped" (the results json spelling). */
const char *pg_res_status_name(pg_res_status s);
/* "PASS", "FAIL", "ERROR", "SKIPPED" (the words reports show). */
const char *pg_res_status_word(pg_res_status s);

/* An optional number: has is false when the key was absent or null. */
typedef struct {
    bool has;
    double v;
} pg_res_num;

/* An optional integer: has is false when the key was absent or null. */
typedef struct {
    bool has;
    int64_t v;
} pg_res_int;

/* One STAGE record. Strings and details are borrowed from the json. */
typedef struct {
    const char *stage;     /* "assemble", "load", "correctness", "instructions", "performance" */
    pg_res_status status;  /* pass | fail | error | skipped */
    const char *message;   /* may be "" */
    double duration_s;     /* >= 0 */
    const json_t *details; /* an object, possibly empty */
    pg_jctx ctx;           /* file and JSON path of this record ("submissions[0].stages[1]") */
    pg_jctx details_ctx;   /* ... and of its details ("submissions[0].stages[1].details") */
} pg_res_stage;

typedef struct {
    const char *name;
    pg_res_status verdict;
    pg_res_stage *stages;
    size_t n_stages;
    pg_jctx ctx;
} pg_res_workload;

typedef struct {
    const char *name, *task, *source, *arch, *manifest;
    const char *source_sha256, *cubin_sha256; /* NULL when absent or null (older files) */
    pg_res_status verdict;
    pg_res_stage *stages; /* submission-level stages: assemble, load */
    size_t n_stages;
    pg_res_workload *workloads;
    size_t n_workloads;
    pg_jctx ctx;
} pg_res_submission;

/* environment. Strings are NULL when absent or null. */
typedef struct {
    const char *hostname;
    bool has_gpu;                   /* false when environment.gpu is null */
    const char *gpu_name;           /* gpu.name */
    const char *compute_capability; /* gpu.compute_capability */
    pg_res_int sm_count;            /* gpu.sm_count */
    const char *gpu_skip_reason;
    const char *driver_version;
    pg_res_int cuda_driver_api_version; /* 13000 = CUDA 13.0 */
    const char *ptxas_version;
    pg_res_int cublaslt_version;        /* 130100 = 13.1.0 */
} pg_res_env;

/* The whole results json. Arrays are owned by the view (pg_results_free), strings borrowed. */
typedef struct {
    const char *file;        /* the results file name given to pg_results_read */
    const char *started_utc; /* "YYYY-MM-DDTHH:MM:SS[.fff]Z" (checked) */
    double duration_s;
    pg_res_status verdict;   /* pass | fail | error */
    int64_t exit_code;
    const char *tool_name, *tool_version;
    pg_res_num confidence;   /* settings.confidence */
    const char *working_directory; /* settings.working_directory; NULL when absent or null */
    pg_res_env env;
    pg_res_submission *subs;
    size_t n_subs;
} pg_results;

/* Read and check the results json root into *out (zeroed first, so pg_results_free is always
 * safe). file names the results file in diagnostics (NULL reads as "results.json").
 * Checks schema_version == 1, the presence and type of every field the reports use (in the
 * stage details too, whatever the stage's status), the enums (verdicts, stage statuses), stage
 * names ([a-z][a-z0-9_]*), non-negative durations and the started_utc form. Unknown keys are ignored here (schemas/results.schema.json is the strict
 * contract for writers of results). Errors: PG_ERR_INPUT naming file and JSON path;
 * PG_ERR_INFRA on out-of-memory. On error *out holds nothing to free. */
pg_status pg_results_read(const json_t *root, const char *file, pg_results *out, pg_diag *d);

/* Release the arrays of r (not the json). r may be zeroed. */
void pg_results_free(pg_results *r);

/* First stage record named name among stages[0..n), or NULL. */
const pg_res_stage *pg_res_find_stage(const pg_res_stage *stages, size_t n, const char *name);

/* The range a number read from a results file must lie in (pg_res_check_range). */
typedef enum {
    PG_RES_RANGE_ANY,    /* -1e12 < v < 1e12 */
    PG_RES_RANGE_NONNEG, /* 0 <= v < 1e12: errors, counts, sizes, throughputs, ratios */
    PG_RES_RANGE_POS,    /* 0 < v < 1e12: times */
    PG_RES_RANGE_LEVEL,  /* 0 < v < 1: a confidence or significance level */
    PG_RES_RANGE_PROB,   /* 0 <= v <= 1: a probability */
} pg_res_range;

/* PG_OK when v lies in range; else PG_ERR_INPUT with file ctx->file, field ctx->path + "." +
 * field, message "expected a probability from 0 to 1, found -1e+308" (the bounds keep every
 * sum and ratio ptxgate forms from the file finite). */
pg_status pg_res_check_range(const pg_jctx *ctx, const char *field, pg_res_range range,
                             double v, pg_diag *d);

/* Typed lookups below obj (an object at JSON path ctx) by a dotted path ("candidate.tflops",
 * "speedup.ci_low"). A missing or null member anywhere on the path leaves the result empty
 * (has = false, NULL) and returns PG_OK; a member of the wrong type is PG_ERR_INPUT naming the
 * full JSON path ("submissions[0].workloads[1].stages[1].details.candidate.tflops"). */
pg_status pg_res_get_number(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                            pg_res_num *out, pg_diag *d);
pg_status pg_res_get_int(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                         pg_res_int *out, pg_diag *d);
pg_status pg_res_get_string(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                            const char **out, pg_diag *d);
pg_status pg_res_get_array(const json_t *obj, const pg_jctx *ctx, const char *dotted,
                           const json_t **out, pg_diag *d);

/* The same lookups inside a stage's details. */
pg_status pg_res_detail_number(const pg_res_stage *s, const char *dotted, pg_res_num *out,
                               pg_diag *d);
pg_status pg_res_detail_int(const pg_res_stage *s, const char *dotted, pg_res_int *out,
                            pg_diag *d);
pg_status pg_res_detail_string(const pg_res_stage *s, const char *dotted, const char **out,
                               pg_diag *d);
pg_status pg_res_detail_array(const pg_res_stage *s, const char *dotted, const json_t **out,
                              pg_diag *d);

/* One entry of an assemble stage's details.diagnostics, checked. */
typedef struct {
    const char *severity; /* "error", "warning", "info" ("" when absent) */
    pg_res_int line;      /* PTX line, when known (has is false for a missing, null or 0 line) */
    const char *message;  /* "" when absent */
} pg_res_ptx_diag;

/* Read details.diagnostics[i] of an assemble stage. Errors as for pg_res_detail_*. */
pg_status pg_res_ptx_diag_get(const pg_res_stage *s, const json_t *diagnostics, size_t i,
                              pg_res_ptx_diag *out, pg_diag *d);

/* The diagnostics both reports show: errors and warnings in order (ptxas "info" lines are
 * resource chatter, left to the results json), at most max of them into out[] (caller-owned,
 * max entries; strings borrowed from the results), their count in *n and the number left out
 * in *more. Errors as for pg_res_detail_*. */
pg_status pg_res_ptx_diags_shown(const pg_res_stage *s, pg_res_ptx_diag *out, size_t max,
                                 size_t *n, size_t *more, pg_diag *d);

/* One entry of an instructions stage's details.targets (docs/instructions.md), checked. */
typedef struct {
    const char *target;         /* "wgmma.mma_async" */
    const char *status;         /* "pass", "fail", "unknown" */
    const char *reason;         /* absent_in_ptx, removed_by_ptxas, never_executed,
                                   coverage_too_low; NULL when none */
    const char *summary;        /* one line; "" when absent */
    const char *sass_status;    /* "checked", "skipped", "error"; "" when absent */
    const char *runtime_status; /* "measured", "not measured"; "" when absent */
    pg_res_num executed_count;  /* runtime.executed_count */
    pg_res_num coverage;        /* runtime.coverage */
} pg_res_instr_target;

/* Read details.targets[i] of an instructions stage. Errors as for pg_res_detail_*; target and
 * status are required. */
pg_status pg_res_instr_target_get(const pg_res_stage *s, const json_t *targets, size_t i,
                                  pg_res_instr_target *out, pg_diag *d);

/* ---- text toolkit shared by the writers ---- */

/* Decode one UTF-8 character of s (s[0] != 0). Returns the bytes consumed (1..4) and sets *cp;
 * an invalid or truncated sequence, an overlong form or a surrogate consumes 1 byte and yields
 * U+FFFD. */
size_t pg_utf8_next(const char *s, uint32_t *cp);

/* Flags for pg_rtext_add_clean. */
enum {
    PG_CLEAN_ONE_LINE = 1 /* runs of CR, LF and TAB (with spaces around them) become one space */
};

/* Append untrusted text s cleaned for any report: invalid UTF-8, the characters XML 1.0 forbids
 * (C0 controls other than TAB/LF/CR, U+FFFE, U+FFFF), DEL, C1 controls and the bidirectional
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069) become U+FFFD; with PG_CLEAN_ONE_LINE the
 * text is kept on one line. At most max_bytes of s are used (0 = no limit); a longer text is cut
 * at a character boundary and ends with "…". s may be NULL (appends nothing). */
void pg_rtext_add_clean(pg_text *t, const char *s, unsigned flags, size_t max_bytes);

/* Switch the calling thread to the C locale for number formatting, so "%.3f" always writes a
 * '.' whatever setlocale() the program made; leave restores the previous locale. */
typedef struct {
    locale_t c, old;
} pg_res_locale;
/* Errors: PG_ERR_INFRA when the C locale object cannot be created. */
pg_status pg_res_locale_enter(pg_res_locale *l, pg_diag *d);
void pg_res_locale_leave(pg_res_locale *l);

/* "CUDA 13.0" style versions: 13000 -> "13.0"; cuBLASLt 130100 -> "13.1.0". buf is returned. */
char *pg_res_cuda_version(int64_t v, char *buf, size_t n);
char *pg_res_cublaslt_version(int64_t v, char *buf, size_t n);

#endif
