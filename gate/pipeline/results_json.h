/* Building the results model: safe JSON strings and numbers, the clock
 * (results_json.c), private to gate/pipeline. */
#ifndef PG_PIPELINE_RESULTS_JSON_H
#define PG_PIPELINE_RESULTS_JSON_H

#include <jansson.h>

#include "ledger.h"

/* A JSON string of untrusted text (paths, logs, kernel names): bytes that are not valid UTF-8
 * become U+FFFD, so a hostile byte can neither drop the text nor break the report. NULL gives
 * "". New reference. */
json_t *pg_jstr(const char *s);
/* Nullable number: NaN becomes null. New reference. */
json_t *pg_json_real_or_null(double v);
double pg_now_s(void);

#endif
