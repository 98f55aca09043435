/* Compare's view (docs/compare.md): what `ptxgate compare` and its reports read, through the
 * reader instead of by looking into json themselves. Three parts:
 *   - the pairing index of a results file read by pg_results_read: submissions by (task,
 *     name), workloads by name, refusing the duplicates that would make pairing a guess;
 *   - the settings a comparison lists when they differ: a run's settings and baselines
 *     records, a pair's arch, instructions policy, min_speedup and mode, as the values
 *     recorded (pass-through: compare.json copies them as they are);
 *   - the comparison model itself (compare.json's shape, built by report/compare.c), read into
 *     typed records for the aggregates, the markdown, the JUnit and the command's summary,
 *     its outcomes, change kinds and source relations as enums.
 * The settings and model reads are lenient as the writers were: a member that is absent or of
 * another type reads as the empty value ("" or NULL for text, NAN for a number, 0 for a count,
 * false), since the model is ptxgate's own and partial models (before the aggregates are
 * added) are read too. Strings and values are borrowed from the json read. */
#ifndef PG_REPORT_RESULTS_READ_COMPARE_H
#define PG_REPORT_RESULTS_READ_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "results_read.h"

/* ---- compare's view ---- */

/* ---- the pairing index of one results file ---- */

typedef struct {
    json_t *subs;  /* "<length of task>:<task><name>" -> index into r->subs (a hash map) */
    json_t **wls;  /* per submission: workload name -> index (hash maps) */
    size_t n;
} pg_res_cmp_index;

/* Index the submissions and workloads of r into *x (zeroed first; pg_res_cmp_index_free is
 * always safe after it). Errors: PG_ERR_INPUT naming r->file and the JSON path of the second
 * occurrence when a (task, name) appears twice in the file or a workload name twice in one
 * submission ("... appears twice (first at submissions[0])"); PG_ERR_INFRA on out-of-memory. */
pg_status pg_res_cmp_index_build(const pg_results *r, pg_res_cmp_index *x, pg_diag *d);
/* Release x's maps (not r); x is zeroed, so freeing twice is safe. */
void pg_res_cmp_index_free(pg_res_cmp_index *x);

/* The submission (task, name) of r (indexed by x), or NULL (also on out-of-memory forming the
 * key). The result points into r. */
const pg_res_submission *pg_res_cmp_find_sub(const pg_results *r, const pg_res_cmp_index *x,
                                             const char *task, const char *name);
/* The workload named name of s (a submission of r, indexed by x), or NULL. The result points
 * into s. */
const pg_res_workload *pg_res_cmp_find_wl(const pg_results *r, const pg_res_cmp_index *x,
                                          const pg_res_submission *s, const char *name);

/* A map from names to numbers (a jansson object underneath: hashed, so grouping many names
 * costs linear time), for the compare writers that group records by task or keep names
 * unique. */
typedef struct {
    json_t *map;
} pg_cmp_names;

/* Returns false on out-of-memory (pg_cmp_names_free is safe either way). */
bool pg_cmp_names_init(pg_cmp_names *n);
void pg_cmp_names_free(pg_cmp_names *n);
/* The number stored for name (>= 0), or -1 when none is. */
long long pg_cmp_names_get(const pg_cmp_names *n, const char *name);
/* Store v (>= 0) for name. Returns false on out-of-memory. */
bool pg_cmp_names_set(pg_cmp_names *n, const char *name, long long v);

/* ---- the settings compare lists when they differ (report/compare_settings.h) ---- */

/* Members of a results root's "settings" record, borrowed from it (NULL when absent or the record is not an
 * object), and its "baselines" record (NULL when not an object). */
typedef struct {
    const json_t *correctness_sets, *seed, *min_speedup_override, *timing_mode_override,
        *accepted_kernel_override, *warmup, *repetitions, *confidence;
    const json_t *baselines;
} pg_res_cmp_run;

/* Read root (any json; NULL reads as empty) into *out. Never fails. */
void pg_res_cmp_run_read(const json_t *root, pg_res_cmp_run *out);

/* What one submission's workload ran with: the submission's "arch", and details.policy of the
 * workload's first stage named "instructions", details.min_speedup and details.mode of its first
 * "performance" (NULL when absent). sub and wl: the records (any json; NULL reads as empty). */
typedef struct {
    const json_t *arch, *policy, *min_speedup, *mode;
} pg_res_cmp_pair;

/* Read the pair's values into *out (borrowed from sub and wl). Never fails. */
void pg_res_cmp_pair_read(const json_t *sub, const json_t *wl, pg_res_cmp_pair *out);

/* ---- the comparison model (compare.json) ---- */

/* The compared stages: at most these many in a model. */
#define PG_CMP_STAGES_MAX 4
/* The settings a difference can affect, and the differences a change is explained by: at most
 * these many are read (a model holds at most 21). */
#define PG_CMP_LIST_MAX 32

/* The environment fields both sides record, in the order the model lists their differences. */
enum {
    PG_CMP_ENV_GPU,
    PG_CMP_ENV_COMPUTE_CAPABILITY,
    PG_CMP_ENV_DRIVER,
    PG_CMP_ENV_CUDA,
    PG_CMP_ENV_PTXAS,
    PG_CMP_ENV_CUBLASLT,
    PG_CMP_ENV_CUDNN,
    PG_CMP_ENV_TOOL,
    PG_CMP_N_ENV
};
/* Their keys in a side record: "gpu", "compute_capability", "driver_version", "cuda_version",
 * "ptxas_version", "cublaslt_version", "cudnn_version", "tool_version". */
extern const char *const pg_cmp_env_keys[PG_CMP_N_ENV];

/* A side record ("old", "new"). */
typedef struct {
    const char *file, *started_utc, *verdict; /* "" when absent */
    const char *hostname;                    /* "" when absent or null */
    long long submissions, workloads;
    const json_t *env[PG_CMP_N_ENV];         /* as recorded; NULL when absent */
    const char *gpu, *driver_version, *cublaslt_version; /* NULL unless a string */
} pg_cmp_side;

/* Read side (a side record, or NULL: all empty) into *out. Never fails; strings and values are
 * borrowed from side. */
void pg_cmp_side_read(const json_t *side, pg_cmp_side *out);

/* A value recorded as it was (a setting's or an environment field's), by its shape. */
typedef enum {
    PG_CMP_VALUE_NONE,   /* absent or null */
    PG_CMP_VALUE_TEXT,   /* a string: text */
    PG_CMP_VALUE_NUMBER, /* an integer or real: number */
    PG_CMP_VALUE_OTHER   /* true, false, an array or an object: json */
} pg_cmp_value_kind;

typedef struct {
    pg_cmp_value_kind kind;
    const char *text; /* TEXT: borrowed from the json; else NULL */
    double number;    /* NUMBER; else 0 */
    const json_t *json; /* the value (NULL when absent) */
} pg_cmp_value;

/* The shape and contents of v (NULL reads as NONE). */
pg_cmp_value pg_cmp_value_of(const json_t *v);

/* An entry of "settings_differences" (or of one pair's list). */
typedef struct {
    const char *setting;                 /* "" when absent */
    const json_t *old_value, *new_value; /* as recorded; NULL when absent */
    const char *scope;                   /* "run", "pairs"; "" when absent (a pair's list) */
    bool per_pairs;                      /* scope is "pairs": folded from pairs' lists */
    long long pairs;                     /* scope "pairs": how many pairs differ */
    const char *stages[PG_CMP_LIST_MAX]; /* the stages it can change */
    size_t n_stages;
} pg_cmp_setting_diff;

/* Read e (a difference entry, or NULL: all empty) into *out. Never fails; a "stages" list
 * longer than PG_CMP_LIST_MAX reads as empty. Strings and values are borrowed from e. */
void pg_cmp_setting_diff_read(const json_t *e, pg_cmp_setting_diff *out);

typedef enum { PG_CMP_REGRESSION, PG_CMP_FIX, PG_CMP_NOT_COMPARABLE } pg_cmp_change_kind;
/* "regression", "fix", "not_comparable" (the model's spelling). */
const char *pg_cmp_change_kind_name(pg_cmp_change_kind k);

/* Whether a pair's sources are the same: UNKNOWN when a side has no hash (an older file). */
typedef enum { PG_CMP_SOURCE_SAME, PG_CMP_SOURCE_DIFFERS, PG_CMP_SOURCE_UNKNOWN } pg_cmp_source;
/* "same", "differs", "unknown". */
const char *pg_cmp_source_name(pg_cmp_source s);

typedef struct {
    const char *stage;
    pg_res_status outcome;
} pg_cmp_outcome;

/* One side of a workload record. */
typedef struct {
    const char *verdict;                           /* "" when absent */
    double speedup;                                /* NAN when null */
    pg_cmp_outcome outcomes[PG_CMP_STAGES_MAX];    /* in the record's order */
    size_t n_outcomes;
} pg_cmp_rec_side;

typedef struct {
    const char *stage;
    pg_res_status old_outcome, new_outcome;
    pg_cmp_change_kind kind;
    const char *explained_by[PG_CMP_LIST_MAX]; /* settings names */
    size_t n_explained;
} pg_cmp_change;

/* An entry of "workloads": one paired workload. */
typedef struct {
    const char *task, *submission, *workload; /* "" when absent */
    pg_cmp_rec_side old_side, new_side;
    double log_speedup_ratio;                 /* NAN when null */
    pg_cmp_change changes[PG_CMP_STAGES_MAX];
    size_t n_changes;
    const char *not_judged[PG_CMP_STAGES_MAX];
    size_t n_not_judged;
    pg_cmp_source source;
} pg_cmp_record;

/* The outcome of stage on a side: PG_RES_SKIPPED when the side records none. */
pg_res_status pg_cmp_outcome_of(const pg_cmp_rec_side *s, const char *stage);

typedef struct {
    long long pass, fail, error, skipped;
    double pass_rate; /* NAN when null */
} pg_cmp_counts;

typedef struct {
    long long worse, better;
    double p_value;
    bool significant_worse, significant_better;
} pg_cmp_mcnemar;

/* An entry of "stages". */
typedef struct {
    const char *stage;
    pg_cmp_counts old_counts, new_counts;
    long long regressions, fixes, not_comparable, not_judged;
    pg_cmp_mcnemar mcnemar;
} pg_cmp_stage_sum;

/* An entry of "fast_p". */
typedef struct {
    double p;
    long long old_count, new_count, old_judged, new_judged;
    double old_fraction, new_fraction; /* NAN when null */
} pg_cmp_fast_p;

/* "speedup.old", ".new", ".ratio". */
typedef struct {
    long long n;
    double geomean, ci_low, ci_high; /* NAN when null */
} pg_cmp_geomean;

/* Which way the paired log speedups moved (Wilcoxon's "direction"). */
typedef enum { PG_CMP_DIRECTION_NONE, PG_CMP_DIRECTION_WORSE, PG_CMP_DIRECTION_BETTER } pg_cmp_direction;

/* "speedup.wilcoxon". */
typedef struct {
    long long n, zeros;
    double w_plus, w_minus, p_value; /* NAN when null */
    const char *method;              /* "" when absent */
    pg_cmp_direction direction;      /* NONE when absent or "none" */
    bool significant_worse, significant_better;
} pg_cmp_wilcoxon;

/* An entry of "tasks". */
typedef struct {
    const char *task;
    long long workloads, old_correct, new_correct;
    double old_geomean, new_geomean; /* NAN when null */
} pg_cmp_task;

/* An entry of "unpaired". */
typedef struct {
    bool only_old;                        /* side "old" (else only in NEW) */
    const char *task, *submission;        /* "" when absent */
    const char *workload;                 /* NULL when null: the whole submission */
} pg_cmp_unpaired;

/* An entry of "environment_differences". */
typedef struct {
    const char *field;
    const json_t *old_value, *new_value; /* NULL when absent */
} pg_cmp_env_diff;

/* The whole model. Arrays are owned by the view (pg_cmp_view_free), strings and values
 * borrowed from the model. */
typedef struct {
    const char *tool_version;
    pg_cmp_side old_side, new_side;
    pg_cmp_env_diff *env_diffs;
    size_t n_env_diffs;
    pg_cmp_setting_diff *settings_diffs;
    size_t n_settings_diffs;
    double alpha, confidence;                   /* settings.* */
    const char *fail_on[PG_CMP_LIST_MAX];       /* settings.fail_on */
    size_t n_fail_on;
    const char *compared_stages[PG_CMP_STAGES_MAX];
    size_t n_compared_stages;
    pg_cmp_source *sources;                     /* submissions[].source */
    size_t n_submissions;
    pg_cmp_record *records;                     /* workloads[] */
    size_t n_records;
    pg_cmp_unpaired *unpaired;
    size_t n_unpaired;
    /* The aggregates (pg_compare_summarize): empty before they are added. */
    long long paired_workloads;
    pg_cmp_stage_sum *stages;
    size_t n_stages;
    pg_cmp_fast_p *fast_p;
    size_t n_fast_p;
    pg_cmp_geomean speedup_old, speedup_new, speedup_ratio;
    pg_cmp_wilcoxon wilcoxon;
    pg_cmp_task *tasks;
    size_t n_tasks;
    const char *gate_verdict;                   /* "pass", "fail"; "" when absent */
    bool gate_fails;                            /* gate_verdict is "fail" */
    long long exit_code;
    const char **reasons;                       /* owned array of borrowed strings */
    size_t n_reasons;
} pg_cmp_view;

/* Read model (a comparison model, complete or before its aggregates) into *out (zeroed first,
 * so pg_cmp_view_free is always safe). Errors: PG_ERR_INPUT naming "compare.json" and the JSON
 * path when an outcome is not pass, fail, error or skipped, a change kind or source relation is
 * not one of its words, or a record holds more outcomes, changes or list entries than the
 * limits above, or Wilcoxon's direction is not none, worse or better; PG_ERR_INFRA on
 * out-of-memory. On error *out holds nothing to free. */
pg_status pg_cmp_view_read(const json_t *model, pg_cmp_view *out, pg_diag *d);
/* Release v's arrays (not the model); v is zeroed, so freeing twice is safe. */
void pg_cmp_view_free(pg_cmp_view *v);

#endif
