/* `ptxgate merge`: the results of the n shards of one run (check --shard i/n) combined into the
 * results of the whole run, judged as an unsharded run is (docs/shards.md):
 *   - every shard 1..n exactly once, each work item in exactly one shard, together all
 *     items_total items;
 *   - the same fingerprint: GPU model (name, compute capability, SM count, memory), driver, CUDA,
 *     ptxas and cuBLASLt versions, ptxgate version, settings and Holm's planned m (hosts, GPU
 *     UUIDs and PCI slots may differ: they are listed under "merged_from");
 *   - submissions and workloads in the unsharded run's order (their recorded positions); a
 *     submission split over shards keeps each submission-level stage (assemble, load) from the
 *     shard where it is worst (fail > error > pass > skipped; they normally agree);
 *   - Holm re-applied over the performance comparisons of all shards (report/holm_family.h),
 *     holm.m = the sum of the shards' m;
 *   - verdicts, counts and exit code folded again (report/verdicts.h); started_utc the earliest,
 *     duration_s the sum of the shards' durations (machine time, not wall time). */
#ifndef PG_REPORT_MERGE_H
#define PG_REPORT_MERGE_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"

/* Merge shards[0..n) (results json roots; files[i] names shards[i] in diagnostics, n >= 1) into
 * *out (a new results json the caller json_decref's; NULL on error). The inputs are not
 * modified. Errors: PG_ERR_INPUT naming the file and field: a malformed results file, a file
 * without a "shard" record or "holm" record, a shard missing, given twice or of another split
 * (count, items_total), an item in two shards or one missing, a shard record that does not match
 * its submissions, or a fingerprint that differs from the first shard's (the message shows both
 * values); PG_ERR_INFRA on out-of-memory. */
pg_status pg_results_merge(json_t *const *shards, const char *const *files, size_t n,
                           json_t **out, pg_diag *d);

#endif
