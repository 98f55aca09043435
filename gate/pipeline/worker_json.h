/* What crosses the process boundary: device info and comparison results as JSON
 * (worker_json.c), private to gate/pipeline. */
#ifndef PG_PIPELINE_WORKER_JSON_H
#define PG_PIPELINE_WORKER_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "device/device.h"
#include "stats/comparison.h"

/* --- worker_json.c: what crosses the process boundary */
json_t *pg_device_info_to_json(const pg_device_info *i);
bool pg_device_info_from_json(const json_t *j, pg_device_info *out);
/* Every field; non-finite numbers as the strings "nan", "inf", "-inf". */
json_t *pg_cmp_result_to_json(const pg_cmp_result *r);
bool pg_cmp_result_from_json(const json_t *j, pg_cmp_result *out);

#endif
