/* Executed-instruction verdicts from range-profiler values (docs/instructions-runtime.md): per
 * target SASS family its executed count and tensor FLOPs, the work coverage against the task's
 * required FLOPs, and the reason a target fails (never executed, coverage too low). Pure: the
 * values come from pg_device_count_metrics or from a test. */
#ifndef PG_STATS_INSTR_COUNTS_H
#define PG_STATS_INSTR_COUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"
#include "../model/metric_table.h"

/* Issue 3: executed tensor FLOPs must reach 0.99 x the task's required FLOPs. */
#define PG_INSTR_DEFAULT_MIN_COVERAGE 0.99

typedef enum {
    PG_INSTR_PASS = 0,
    PG_INSTR_NEVER_EXECUTED,   /* count 0 (and no math ops): present, perhaps, but never run */
    PG_INSTR_COVERAGE_TOO_LOW, /* executed, but the target tensor families did too little work */
} pg_instr_verdict;

/* "pass", "never_executed", "coverage_too_low" (the results' reason strings). */
const char *pg_instr_verdict_name(pg_instr_verdict v);

typedef struct {
    char family[PG_METRIC_ID_MAX];
    double count;        /* executed warp instructions: sum(count_add) - sum(count_subtract),
                            clamped at 0 (a wgmma counts once per warp: 4 per warpgroup) */
    bool has_math_ops;   /* the family does tensor math (it has math-op paths) */
    double math_ops;     /* sum of the metrics of its path (of every path when path is NULL);
                            0 when !has_math_ops or the family lacks the path */
    double flops;        /* math_ops x the table's flops_per_math_op */
    pg_instr_verdict verdict;
} pg_instr_family_result;

typedef struct {
    pg_instr_family_result families[PG_METRIC_MAX_FAMILIES]; /* in the order asked */
    int n_families;
    /* Work coverage over the target families with tensor math (each math-op metric counted
     * once): has_coverage is false when none of them has math ops or required_flops <= 0,
     * and then no family fails for coverage. */
    bool has_coverage;
    double tensor_flops;   /* executed tensor FLOPs of the target families */
    double required_flops; /* as given: the task's flops expression for the workload */
    double coverage;       /* tensor_flops / required_flops (may exceed 1: padded tiles) */
    double min_coverage;
    pg_instr_verdict verdict; /* the first failing family's verdict, else PG_INSTR_PASS */
} pg_instr_result;

/* Evaluate the target families against measured values. metrics[i] / values[i] (n_values) are
 * the names asked of the profiler and the values it returned (any order, a superset is fine).
 * path: the tensor path the metrics were requested for (pg_metric_path_for_dtype of the task's
 * input dtype), NULL for every path; pass the same path as to pg_metric_table_request.
 * Per family: executed (count > 0, or math ops > 0 where the count is derived by subtraction
 * and may read 0) else NEVER_EXECUTED; an executed tensor family fails with
 * COVERAGE_TOO_LOW when has_coverage and coverage < min_coverage.
 * Errors: PG_ERR_INPUT for an unknown family (field "families[i]"), a metric a family needs but
 * metrics[] lacks, min_coverage outside (0, 1] or n_families outside 1..PG_METRIC_MAX_FAMILIES;
 * PG_ERR_INFRA for a value that is negative, NaN or infinite ("CUPTI returned nan for metric
 * X"). *out is filled only on PG_OK. */
pg_status pg_instr_evaluate(const pg_metric_table *t, const char *const *families,
                            size_t n_families, const char *path, const char *const *metrics,
                            const double *values, size_t n_values, double required_flops,
                            double min_coverage,
                            pg_instr_result *out, pg_diag *d);

#endif
