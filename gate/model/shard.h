/* Splitting a run's work into shards (`ptxgate check --shard i/n`): the work items are the
 * (task, submission, workload) triples of the run, and each goes to exactly one of n shards, so
 * n runners (or GPUs) can each run one shard and `ptxgate merge` can put the results together.
 *
 * The split is round-robin over the items in sorted order: sort by (task, submission name,
 * workload name, manifest path) in byte order, then the k-th item (0-based) goes to shard
 * (k mod n) + 1. So every shard gets floor(N/n) or ceil(N/n) items, a task's workloads spread over
 * the shards, and the split depends only on the set of items, not on the order of the command
 * line. Every shard of one run must see the same items (same manifests, same --workloads). */
#ifndef PG_MODEL_SHARD_H
#define PG_MODEL_SHARD_H

#include <stddef.h>

#include "base/diag.h"

/* Most shards of one run. */
#define PG_SHARD_MAX 4096

typedef struct {
    int index; /* 1..count */
    int count; /* >= 1 */
} pg_shard;

/* Parse "i/n" (decimal, 1 <= i <= n <= PG_SHARD_MAX, nothing else). Errors: PG_ERR_INPUT naming
 * --shard, what was found and what was expected. */
pg_status pg_shard_parse(const char *text, pg_shard *out, pg_diag *d);

/* One work item; strings are borrowed. manifest breaks ties between submissions of the same
 * task and name (e.g. the same file name in two model-version folders). */
typedef struct {
    const char *task;
    const char *submission;
    const char *workload;
    const char *manifest;
} pg_work_item;

/* shard_of[k] = the shard (1..count) of items[k], for k < n. Items equal in all four strings get
 * consecutive positions in their input order. Errors: PG_ERR_INPUT for count outside
 * 1..PG_SHARD_MAX, PG_ERR_INFRA on out-of-memory. */
pg_status pg_shard_assign(const pg_work_item *items, size_t n, int count, int *shard_of,
                          pg_diag *d);

#endif
