/* Holm's step over the performance comparisons recorded in a results json, applied again from
 * what the file records, as `ptxgate check` applied it at the end of its run
 * (gate/pipeline/stage_performance.c, pg_perf_holm_finalize). `ptxgate merge` uses it: each
 * shard applied Holm over its own comparisons; the merged run must apply it over all of them.
 *
 * The family: every entry of a performance stage's details.comparisons that has a "p_fail_seq"
 * key (number or null), except "aa_canary" (the canaries are their own family). The verdict
 * before Holm is recovered from the recorded one: Holm only turns FAIL into INCONCLUSIVE or
 * INCONCLUSIVE into FAIL, and marks the entry "holm_changed": true (it leaves the comparisons of
 * a stage whose status is "error" as they were). Then, over all m entries (stats/comparison.h,
 * pg_cmp_holm_finalize at run_alpha): a FAIL Holm does not keep becomes INCONCLUSIVE, an
 * INCONCLUSIVE it rejects becomes FAIL; each changed entry gets "holm_changed": true and its
 * stage (unless "error") the message suffix " (Holm over the run's M comparisons made NAME
 * VERDICT)" and the status "fail" when the candidate was IMPLAUSIBLE (below the speed-of-light
 * floor) or any of the stage's entries is FAIL, else "pass". Workload and submission verdicts
 * are not touched (report/verdicts.h folds them). */
#ifndef PG_REPORT_HOLM_FAMILY_H
#define PG_REPORT_HOLM_FAMILY_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"

/* Re-apply Holm at run_alpha over results' family as described above; *m (may be NULL) gets
 * the family's size. file names results in diagnostics. Errors: PG_ERR_INPUT when an entry's
 * verdict is not PASS, FAIL, INCONCLUSIVE or FAST, or its p_fail_seq is neither null nor a
 * probability from 0 to 1 (the message names the file and the JSON path); PG_ERR_INFRA on
 * out-of-memory. */
pg_status pg_results_reapply_holm(json_t *results, const char *file, double run_alpha, size_t *m,
                                  pg_diag *d);

/* The checks of pg_results_reapply_holm alone, changing nothing: what merge asks of each shard
 * before it combines them, so that an error names the shard's file and its own indices. */
pg_status pg_results_check_holm(const json_t *results, const char *file, pg_diag *d);

#endif
