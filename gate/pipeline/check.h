/* `ptxgate check`: the recipe that takes submissions through assemble → load → correctness →
 * instructions → performance on one GPU and builds the results model (docs/results.md). The pipeline never
 * prints: progress goes through a callback, and the caller writes the reports. */
#ifndef PG_PIPELINE_CHECK_H
#define PG_PIPELINE_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "settings.h" /* pg_check_options */

/* One progress line into buf (n bytes): "progress: 12/45 items (3/9 submissions), 1 min 15 s"
 * and, when the run is estimated to take longer than a minute, ", about 3 min 20 s left" (the
 * remaining items at the mean rate so far: elapsed / done × (total − done)). Returns buf. */
char *pg_progress_format(char *buf, size_t n, size_t items_done, size_t items_total,
                         size_t subs_done, size_t subs_total, double elapsed_s);

/* Validate every manifest against its task and its PTX first (input errors abort before any GPU
 * work: PG_ERR_INPUT with the file and field), then run the stages and return the results model
 * in *results (a new reference; the caller json_decref's it). Kernel failures and unavailable
 * GPUs are results, not errors: the return is PG_OK and results' "exit_code" says 0/1/3.
 * With shards, every manifest is still validated and Holm's m counts the comparisons of all
 * shards (so each comparison runs at the unsharded run's level); only the shard's items run and
 * appear in the results, with a "shard" record; a submission without items in the shard is
 * left out, and a shard without items passes.
 * Errors: PG_ERR_INPUT (bad task/manifest/flags), PG_ERR_INFRA (out of memory, temp folder). */
pg_status pg_check_run(const pg_check_options *o, const char *const *manifests, size_t n,
                       json_t **results, pg_diag *d);

#endif
