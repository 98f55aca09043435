/* Whether a submission was judged on a GPU, read from the results view: the honest headline of a
 * run whose GPU stages did not run (summary, pull-request comment, check run). */
#ifndef PG_REPORT_JUDGED_H
#define PG_REPORT_JUDGED_H

#include <stdbool.h>
#include <stddef.h>

#include "report/results_read.h"

/* True when submission s passed (or was wholly skipped) without any of the stages that run the
 * kernel on a GPU ("correctness", "performance", "verify", "sanitize") having passed or failed
 * in any of its workloads: its PASS then only says that the offline stages (assemble,
 * instructions, the manifest checks) passed. A submission that failed or errored is judged by
 * its failure, with or without a GPU; one without workloads has nothing to run on a GPU.
 * *reason (reason may be NULL) is set to why the GPU stages did not run, borrowed from r: the
 * run's environment.gpu_skip_reason when no GPU was opened, else the first skipped GPU stage's
 * message, else "no GPU stage ran"; NULL when the submission was judged. */
bool pg_res_not_judged_on_gpu(const pg_results *r, const pg_res_submission *s,
                              const char **reason);

/* How many of r's submissions pg_res_not_judged_on_gpu holds for; *reason (may be NULL) is the
 * first one's reason (NULL when none). */
size_t pg_res_count_not_judged_on_gpu(const pg_results *r, const char **reason);

#endif
