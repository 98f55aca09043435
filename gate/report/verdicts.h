/* Folding stage statuses into verdicts: per workload and submission the worst of their stages
 * (fail > error > pass > skipped), the counts of stage records by status, and the run's verdict
 * and exit code (docs/exit-codes.md). Shared by `ptxgate check` and `ptxgate merge`, so a merged
 * run is judged exactly like an unsharded one. */
#ifndef PG_REPORT_VERDICTS_H
#define PG_REPORT_VERDICTS_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"
#include "report/results_read.h"

/* Rewrite results' workload and submission "verdict"s, "counts", "verdict" and "exit_code" from
 * the stage records' statuses (which must be "pass", "fail", "error" or "skipped"): exit 3
 * (error) when any stage is an infrastructure error or when nothing was checked (no stage
 * passed or failed: e.g. no ptxas and no GPU), else 1 (fail) when any stage failed, else 0.
 * empty_passes: a results file without any submission (a shard that got no work item) passes
 * instead of counting as "nothing checked". The statuses are read by the results reader
 * (pg_results_read_fold) and folded as enums. Errors: PG_ERR_INFRA on out-of-memory (results
 * is then left as it was). */
pg_status pg_results_fold(json_t *results, bool empty_passes, pg_diag *d);

/* The order of the fold: fail 3 > error 2 > pass 1 > skipped 0. */
int pg_verdict_rank(pg_res_status s);

#endif
