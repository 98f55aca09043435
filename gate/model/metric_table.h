/* Chip metric lists (data/metrics/<chip>.json, schemas/metrics.schema.json,
 * docs/instructions-runtime.md): per SASS family, the CUPTI range-profiler metrics that give its
 * executed count and its tensor math ops, and the list of metrics to request for a set of
 * target families. */
#ifndef PG_MODEL_METRIC_TABLE_H
#define PG_MODEL_METRIC_TABLE_H

#include <stddef.h>

#include "../base/diag.h"

#define PG_METRIC_MAX_FAMILIES 32
/* Most metrics in one list of a family (count_add, count_subtract, one math-op path). */
#define PG_METRIC_MAX_TERMS 8
/* Most math-op paths (input types) of one family. */
#define PG_METRIC_MAX_PATHS 6
/* Longest path name + 1 ("bf16", "tf32", "fp4_fp6_fp8"). */
#define PG_METRIC_PATH_MAX 16
/* Most families another one shares its count with. */
#define PG_METRIC_MAX_SHARES 8
/* Longest metric name + 1 ("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum" is 51). */
#define PG_METRIC_NAME_MAX 128
/* Longest family or chip name + 1. */
#define PG_METRIC_ID_MAX 32
/* Most distinct metrics pg_metric_table_request returns. */
#define PG_METRIC_MAX_REQUEST 64

/* The math-op counters of one tensor path: the input type of the tensor math ("bf16", "fp16",
 * "tf32", "fp8", "int8", ...; pg_metric_path_for_dtype maps a task's input dtype to it). Every
 * counter is its own hardware event, often a replay pass of its own, so a verification run asks
 * only for the path of the task's dtype. */
typedef struct {
    char path[PG_METRIC_PATH_MAX];
    char metrics[PG_METRIC_MAX_TERMS][PG_METRIC_NAME_MAX];
    int n_metrics; /* >= 1 */
} pg_metric_path;

/* One SASS family ("HGMMA", "UTMALDG"). Its executed count, in warp instructions, is
 * sum(count_add) - sum(count_subtract), clamped at 0; its tensor math ops on a path are the sum
 * of that path's metrics (n_paths == 0: no tensor math). */
typedef struct {
    char name[PG_METRIC_ID_MAX];
    char count_add[PG_METRIC_MAX_TERMS][PG_METRIC_NAME_MAX];
    int n_count_add; /* >= 1 */
    char count_subtract[PG_METRIC_MAX_TERMS][PG_METRIC_NAME_MAX];
    int n_count_subtract;
    pg_metric_path math_ops[PG_METRIC_MAX_PATHS];
    int n_paths;
    /* Families the same count also holds (the counter cannot tell them apart). */
    char shares_count_with[PG_METRIC_MAX_SHARES][PG_METRIC_ID_MAX];
    int n_shares;
    char note[512]; /* "" when absent */
} pg_metric_family;

typedef struct {
    char file[1024];          /* path as given */
    char chip[PG_METRIC_ID_MAX]; /* as CUPTI names it, e.g. "GH100" */
    /* FLOPs per math op of the math_ops metrics: 1 on GH100, the ops_path counters counting
     * 2 per multiply-add (calibrated on the H200 by tests/gpu/rangeprof_calibration.c; see
     * docs/instructions-runtime.md). */
    double flops_per_math_op;
    pg_metric_family families[PG_METRIC_MAX_FAMILIES];
    int n_families;           /* >= 1, in file order */
} pg_metric_table;

/* Load and validate a chip metric list. *out is owned by the caller (pg_metric_table_free); NULL
 * on error. Errors: PG_ERR_INPUT naming the file and the JSON path of the bad field (unknown
 * keys, wrong types, a metric name that is not "<unit>__<counter>.<rollup>", duplicate metrics
 * in one list, more than the limits above). */
pg_status pg_metric_table_load(const char *path, pg_metric_table **out, pg_diag *d);

/* Load dir/<chip in lower case>.json for the chip name CUPTI reported at run time, and check
 * the file's "chip" equals it (case-insensitively). Errors: PG_ERR_INFRA when the chip has no
 * file, "no metric list for chip 'GB202' in DIR (known: gb100, gh100)" (the runtime check
 * cannot run on this GPU: the stage is unknown, never a pass); PG_ERR_INPUT for a chip name
 * that is not [A-Za-z0-9_] or a bad file (pg_metric_table_load). */
pg_status pg_metric_table_load_chip(const char *dir, const char *chip, pg_metric_table **out,
                                    pg_diag *d);

void pg_metric_table_free(pg_metric_table *t);

/* The family named exactly `name`, or NULL. Borrowed from t. */
const pg_metric_family *pg_metric_table_find(const pg_metric_table *t, const char *name);

/* The math-op path of a family, or NULL when it has none of that name. path NULL: NULL. */
const pg_metric_path *pg_metric_family_path(const pg_metric_family *f, const char *path);

/* The tensor path of a task's input dtype: bf16 -> "bf16", fp16 -> "fp16", fp32 -> "tf32"
 * (fp32 operands run on tensor cores as tf32), e4m3 and e5m2 -> "fp8"; NULL for others. */
const char *pg_metric_path_for_dtype(const char *dtype_name);

/* The distinct metrics to request for the target families, first occurrence order, into
 * metrics[0 .. *n_metrics): count_add and count_subtract of each, and the math ops of `path`
 * (every path when path is NULL; none for a family without that path: its work then reads 0).
 * The strings are borrowed from t. Errors: PG_ERR_INPUT with field "families[i]" for a family
 * the chip's file does not list ("no execution counter for SASS family 'X' on chip GH100
 * (known: ...)"), for n_families == 0, or when more than max_metrics distinct metrics would be
 * needed. */
pg_status pg_metric_table_request(const pg_metric_table *t, const char *const *families,
                                  size_t n_families, const char *path, const char **metrics,
                                  size_t max_metrics, size_t *n_metrics, pg_diag *d);

#endif
