/* The typed results model and its one strict reader (docs/results.md), plus the small text
 * toolkit the report writers share: UTF-8 cleaning of untrusted text (into base/text.h's
 * buffer) and the C numeric locale. Every consumer (JUnit, markdown, merge, compare, history,
 * publish, verdicts) reads results only through this reader, so a malformed results file fails
 * the same way everywhere: PG_ERR_INPUT naming the file and the JSON path. No consumer looks a
 * results field up in the json itself: each record keeps its json only for pass-through (merge
 * copies records as they are) and for rewriting (verdicts and Holm write through the handles of
 * pg_res_fold_view and pg_res_holm_family).
 *
 * The model: pg_results (run, environment, baselines, counts) > pg_res_submission >
 * pg_res_workload > pg_res_stage, whose details are typed as a union tagged by the stage's
 * kind (pg_res_detail). Read on demand: the shard and holm records of a shard
 * (pg_results_read_shard), Holm's family of performance comparisons
 * (pg_results_read_holm_family), the stage statuses verdicts are folded from
 * (pg_results_read_fold, also on a results json still being written).
 *
 * Calling sequence of a writer:
 *     pg_results r;
 *     if (pg_results_read(json, file, &r, d) != PG_OK) return d->status;
 *     ... walk r.subs[i].stages / r.subs[i].workloads[j].stages, reading s->detail.u.<kind>
 *         after checking s->detail.kind ...
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
#include "stats/comparison.h"

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

/* One entry of an assemble stage's details.diagnostics, checked. */
typedef struct {
    const char *severity; /* "error", "warning", "info" ("" when absent) */
    pg_res_int line;      /* PTX line, when known (has is false for a missing, null or 0 line) */
    const char *message;  /* "" when absent */
} pg_res_ptx_diag;

/* One entry of an instructions stage's details.targets (docs/instructions.md), checked. */
typedef struct {
    const char *target;         /* "wgmma.mma_async" */
    const char *status;         /* "pass", "fail", "unknown" */
    const char *reason;         /* absent_in_ptx, other_sass_family, removed_by_ptxas,
                                   never_executed, coverage_too_low; NULL when none */
    const char *summary;        /* one line; "" when absent */
    const char *sass_status;    /* "checked", "skipped", "error"; "" when absent */
    const char *runtime_status; /* "measured", "not measured"; "" when absent */
    pg_res_num executed_count;  /* runtime.executed_count */
    pg_res_num coverage;        /* runtime.coverage */
} pg_res_instr_target;

/* ptxas resource numbers of an assemble stage's details, or of one of its entries. */
typedef struct {
    pg_res_int registers, shared_bytes, spill_store_bytes, spill_load_bytes, stack_frame_bytes;
} pg_res_resources;

/* One entry of an assemble stage's details.entries. */
typedef struct {
    const char *name; /* NULL when absent or null */
    pg_res_resources res;
} pg_res_entry;

/* One arm of a performance stage (details.candidate, details.baseline). */
typedef struct {
    pg_res_num median_ms, ci_low_ms, ci_high_ms, tflops;
} pg_res_timing;

/* Which typed details a stage record carries, by its "stage" name. */
typedef enum {
    PG_RES_STAGE_OTHER, /* a stage no report reads details of (verify, sanitize, ...) */
    PG_RES_STAGE_ASSEMBLE,
    PG_RES_STAGE_LOAD,
    PG_RES_STAGE_CORRECTNESS,
    PG_RES_STAGE_INSTRUCTIONS,
    PG_RES_STAGE_PERFORMANCE,
    PG_RES_STAGE_MANIFEST /* a batch's unusable manifest */
} pg_res_stage_kind;

/* The typed details of each kind (fields named as in the stage's details). */
typedef struct {
    pg_res_resources res;          /* of the whole module */
    pg_res_ptx_diag *diagnostics;  /* every entry, info lines included */
    size_t n_diagnostics;
    pg_res_entry *entries;
    size_t n_entries;
    long ptx_line; /* the first error or warning diagnostic's PTX line */
    long cu_line;  /* ... of nvcc.diagnostics (a .cu submission) */
    const char *cu_file; /* the file of that nvcc diagnostic (a header), or NULL */
} pg_res_assemble;

typedef struct {
    const char *log;
} pg_res_load;

typedef struct {
    pg_res_num max_absolute_error, max_relative_error, relative_l2_error;
    pg_res_int bad_elements;
    pg_res_num atol, rtol, max_rel_l2; /* tolerance.* */
} pg_res_correctness;

typedef struct {
    const char *policy, *arch;
    pg_res_instr_target *targets;
    size_t n_targets;
    long failed_line; /* the first failed target's PTX line, else its nearest's */
} pg_res_instructions;

typedef struct {
    pg_res_timing candidate, baseline;
    pg_res_num speedup_estimate, speedup_ci_low, speedup_ci_high, speedup_confidence;
    pg_res_num min_speedup;
    /* details.reference is "accepted": the library refused the configuration and the speedup
     * is over the task's accepted kernel, not over the library (docs/results.md) */
    bool over_accepted;
} pg_res_performance;

typedef struct {
    long line; /* the line of the field the manifest loader named */
} pg_res_manifest_stage;

/* The typed details of a stage record, checked and range-checked as pg_results_read says;
 * arrays owned by the view, strings borrowed from the json. A number or string that is absent
 * or null reads as has = false / NULL. The lines (ptx_line, cu_line, failed_line, line) are
 * read leniently: 0 when none is recorded or the value is not a positive integer. */
typedef struct {
    pg_res_stage_kind kind;
    union {
        pg_res_assemble assemble;
        pg_res_load load;
        pg_res_correctness correctness;
        pg_res_instructions instructions;
        pg_res_performance performance;
        pg_res_manifest_stage manifest;
    } u;
} pg_res_detail;

/* One STAGE record. Strings and details are borrowed from the json. */
typedef struct {
    const char *stage;     /* "assemble", "load", "correctness", "instructions", "performance" */
    pg_res_status status;  /* pass | fail | error | skipped */
    const char *message;   /* may be "" */
    double duration_s;     /* >= 0 */
    const json_t *details; /* an object, possibly empty */
    pg_jctx ctx;           /* file and JSON path of this record ("submissions[0].stages[1]") */
    pg_jctx details_ctx;   /* ... and of its details ("submissions[0].stages[1].details") */
    const json_t *json;    /* the whole record, kept for pass-through (merge copies it as it is);
                              never looked into outside the reader */
    pg_res_detail detail;  /* the typed details */
} pg_res_stage;

typedef struct {
    const char *name;
    pg_res_status verdict;
    pg_res_num speedup_factor; /* candidate over baseline (type-checked only; compare keeps
                                  the positive finite ones) */
    pg_res_stage *stages;
    size_t n_stages;
    pg_jctx ctx;
    const json_t *json; /* the whole record, for pass-through only (as pg_res_stage.json) */
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
    const json_t *json; /* the whole record, for pass-through only (as pg_res_stage.json) */
} pg_res_submission;

/* environment. Strings are NULL when absent or null. */
typedef struct {
    const char *hostname;
    bool has_gpu;                   /* false when environment.gpu is null */
    const char *gpu_name;           /* gpu.name */
    const char *compute_capability; /* gpu.compute_capability */
    pg_res_int sm_count;            /* gpu.sm_count */
    pg_res_int memory_bytes;        /* gpu.memory_bytes */
    const char *gpu_uuid;           /* gpu.uuid ("GPU-..."), differs between hosts */
    const char *gpu_skip_reason;
    const char *driver_version;
    pg_res_int cuda_driver_api_version; /* 13000 = CUDA 13.0 */
    const char *ptxas_version;
    pg_res_int cublaslt_version;        /* 130100 = 13.1.0 */
    const json_t *cudnn_version;        /* as recorded (pass-through for compare), or NULL */
    const json_t *json; /* the whole record, for pass-through only (as pg_res_stage.json) */
} pg_res_env;

/* The stored baselines the run used (results "baselines", docs/baselines.md). Strings are
 * NULL when absent or null. */
typedef struct {
    const char *dir, *gpu_key, *gpu_key_source, *on_missing_baseline, *on_drift;
    pg_res_num drift_tolerance; /* a fraction: 0.1 = 10 % */
    const char **notes;         /* owned array of borrowed strings */
    size_t n_notes;
} pg_res_baselines;

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
    pg_res_baselines baselines;
    /* Read leniently: has is false unless the value is an integer. */
    pg_res_int counts[4]; /* counts.pass, .fail, .error, .skipped, by pg_res_status */
    pg_res_int holm_m;    /* holm.m: the performance comparisons Holm was applied over */
    /* Records kept whole for pass-through only (as pg_res_stage.json): the tool record and
     * the settings record (NULL when absent or null), the root. */
    const json_t *tool, *settings, *root;
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

/* ---- the statuses of a results json being folded (report/verdicts.h) ---- */

/* A record whose verdict is folded from its stage records: the statuses of those stages whose
 * "status" is one of the four words (others are left out, as the fold leaves them out), and
 * the record itself, to write the verdict into. */
typedef struct {
    json_t *json;
    pg_res_status *stages; /* owned */
    size_t n_stages;
} pg_res_fold_rec;

typedef struct {
    pg_res_fold_rec sub;          /* the submission and its submission-level stages */
    pg_res_fold_rec *workloads;   /* owned */
    size_t n_workloads;
} pg_res_fold_sub;

typedef struct {
    pg_res_fold_sub *subs; /* owned */
    size_t n_subs;
} pg_res_fold_view;

/* Read the stage statuses of results (a results json, possibly still being written: only
 * submissions[].stages[].status and submissions[].workloads[].stages[].status are looked at;
 * records, arrays or statuses of another shape count as absent) into *out (zeroed first).
 * Errors: PG_ERR_INFRA on out-of-memory (*out then holds nothing to free). */
pg_status pg_results_read_fold(json_t *results, pg_res_fold_view *out, pg_diag *d);
void pg_res_fold_view_free(pg_res_fold_view *v);

/* ---- the performance comparisons of Holm's family (report/holm_family.h) ---- */

/* A performance stage of a workload that holds members of the family. */
typedef struct {
    json_t *json;        /* the stage record, to rewrite */
    bool is_error;       /* its status is "error" */
    const char *message; /* borrowed; NULL when not a string */
} pg_res_perf_stage;

/* One member: an entry of a performance stage's details.comparisons with a "p_fail_seq" key,
 * other than "aa_canary". */
typedef struct {
    json_t *json;           /* the entry, to rewrite */
    size_t stage;           /* its stage, an index into pg_res_holm_family.stages */
    const char *name;       /* NULL when not a string */
    pg_cmp_verdict verdict; /* as recorded */
    double p_fail_seq;      /* in [0, 1]; NAN when null */
    bool holm_changed;      /* "holm_changed": true */
} pg_res_holm_member;

typedef struct {
    pg_res_perf_stage *stages;   /* owned */
    size_t n_stages;
    pg_res_holm_member *members; /* owned; in file order */
    size_t n;
} pg_res_holm_family;

/* Read the family of results (submissions[].workloads[].stages[] whose "stage" is
 * "performance") into *out (zeroed first). file names results in diagnostics. Errors:
 * PG_ERR_INPUT when a member's verdict is not PASS, FAIL, INCONCLUSIVE or FAST, or its
 * p_fail_seq is neither null nor a probability from 0 to 1 (the message names the file and
 * "submissions[i].workloads[j].stages[k].details.comparisons[c].FIELD"); PG_ERR_INFRA on
 * out-of-memory. On error *out holds nothing to free. */
pg_status pg_results_read_holm_family(json_t *results, const char *file,
                                      pg_res_holm_family *out, pg_diag *d);
void pg_res_holm_family_free(pg_res_holm_family *f);

/* ---- the records of a sharded run (docs/shards.md), read on demand by merge ---- */

/* One entry of shard.items: the work item's position in the unsharded run and its names. */
typedef struct {
    int64_t submission_index, workload_index; /* -1 when not an integer */
    const char *task, *submission, *workload; /* NULL when absent or not a string */
    const char *manifest;                     /* NULL when absent, null or not a string */
    const json_t *json; /* the entry, for pg_res_shard_items_same only */
} pg_res_shard_item;

/* The "shard" and "holm" records of a shard's results. */
typedef struct {
    int index, count;        /* 1 <= index <= count <= PG_SHARD_MAX */
    int64_t items_total;     /* >= 0 */
    pg_res_shard_item *items; /* owned (pg_res_shard_free) */
    size_t n_items;
    double run_alpha;        /* holm.run_alpha, in (0, 1) */
    int64_t m_planned, m;    /* holm: 0 <= m <= m_planned <= INT32_MAX */
} pg_res_shard;

/* Read r's "shard" and "holm" records into *out (zeroed first). Errors (PG_ERR_INPUT naming
 * r->file): no "shard" object ("not the results of a shard ..."), a "holm" record without
 * run_alpha, m_planned and m, a shard index, count or items_total out of range, a run_alpha
 * outside (0, 1) or m outside 0..m_planned; PG_ERR_INFRA on out-of-memory. On error *out holds
 * nothing to free. */
pg_status pg_results_read_shard(const pg_results *r, pg_res_shard *out, pg_diag *d);
void pg_res_shard_free(pg_res_shard *s);

/* Whether root (any json: a results file not read by pg_results_read) has a "shard" object,
 * and its index and count (0 when not integers), for messages about a folder that holds a
 * shard's results. */
bool pg_results_shard_label(const json_t *root, long long *index, long long *count);

/* Whether items a and b name the same submission: their "task", "submission" and "manifest"
 * members are equal JSON values or both absent. *which gets the first member that differs. */
bool pg_res_shard_items_same(const pg_res_shard_item *a, const pg_res_shard_item *b,
                             const char **which);

/* The first member of the settings records a and b (either NULL) that differs between them:
 * *key gets its name (borrowed), *va / *vb the two values (NULL when absent; null and absent
 * are the same). Members of a are visited first, in their order, then those only in b.
 * Returns false when the records agree. The values are for pg_res_show only. */
bool pg_res_settings_differ(const pg_results *a, const pg_results *b, const char **key,
                            const json_t **va, const json_t **vb);

/* Text of a value for messages into buf: 'text' for a string, none for null or absent, else
 * the value as compact ASCII JSON (0.99, false, {"load":1.0}), cut with "…" when longer than
 * buf. */
void pg_res_show(const json_t *v, char *buf, size_t n);

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
/* An object member (a record the caller hands on whole to its own checked reader, as
 * `baseline refresh` hands stored_baseline.configuration to the cuBLASLt/cuDNN config readers):
 * NULL when absent or null; another type is PG_ERR_INPUT naming the full JSON path. */
pg_status pg_res_detail_object(const pg_res_stage *s, const char *dotted, const json_t **out,
                               pg_diag *d);
/* A boolean member: *out is 1 (true), 0 (false) or -1 (absent or null); another type is
 * PG_ERR_INPUT naming the full JSON path. */
pg_status pg_res_get_bool(const json_t *obj, const pg_jctx *ctx, const char *dotted, int *out,
                          pg_diag *d);
pg_status pg_res_detail_bool(const pg_res_stage *s, const char *dotted, int *out, pg_diag *d);


/* Read details.diagnostics[i] of an assemble stage. Errors as for pg_res_detail_*. */
pg_status pg_res_ptx_diag_get(const pg_res_stage *s, const json_t *diagnostics, size_t i,
                              pg_res_ptx_diag *out, pg_diag *d);

/* The diagnostics both reports show: errors and warnings in order (ptxas "info" lines are
 * resource chatter, left to the results json), at most max of them into out[] (caller-owned,
 * max entries; strings borrowed from the results), their count in *n and the number left out
 * in *more. Errors as for pg_res_detail_*. */
pg_status pg_res_ptx_diags_shown(const pg_res_stage *s, pg_res_ptx_diag *out, size_t max,
                                 size_t *n, size_t *more, pg_diag *d);


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

/* ---- history and GitHub's view ---- */

/* The status of its results spelling ("pass", "fail", "error", "skipped", as
 * pg_res_status_name writes it) into *out. Returns false, leaving *out as it was, for NULL and
 * any other word (upper-case ones included). For callers handed a verdict as text (the GitHub
 * check run gets publish's "conclusion" word). */
bool pg_res_status_parse(const char *word, pg_res_status *out);

/* The optional "run" record of a results file (docs/results.md "run": written by check
 * --label, --commit and --commit-time). Strings are borrowed from the json; NULL when absent
 * or null. */
typedef struct {
    bool has;                    /* "run" is an object */
    const char *label;           /* run.label */
    const char *commit;          /* run.commit */
    const char *commit_time_utc; /* run.commit_time_utc */
} pg_res_run;

/* Read the "run" record of r (read by pg_results_read) into *out (zeroed first). Types only:
 * "run" absent, null or an object, each of its three members absent, null or a string (the
 * values' rules are history's: pg_history_run_meta). Errors: PG_ERR_INPUT naming r->file and
 * "run" ("expected an object, found array") or "run.label", "run.commit", "run.commit_time_utc"
 * ("expected a string or null, found integer"). Nothing to free. */
pg_status pg_results_read_run(const pg_results *r, pg_res_run *out, pg_diag *d);

/* Whether workload w was declined by its manifest's "supports" (never run: the record has a
 * "not_applicable" object, docs/results.md), and that object's "constraint" into *constraint
 * (borrowed; NULL when not a string; constraint may be NULL). Read leniently: a
 * "not_applicable" that is not an object reads as not declined (the strict contract is
 * schemas/results.schema.json). */
bool pg_res_workload_declined(const pg_res_workload *w, const char **constraint);

#endif
