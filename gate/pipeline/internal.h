/* Shared state of one `ptxgate check` run, private to gate/pipeline: for now every header of
 * the split below (run, submission, stage context, stage pieces). */
#ifndef PG_PIPELINE_INTERNAL_H
#define PG_PIPELINE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "base/pathroot.h"
#include "check.h"
#include "device/device.h"
#include "model/baseline.h"
#include "model/binding.h"
#include "model/launch_limits.h"
#include "model/manifest.h"
#include "model/plan.h"
#include "model/targets.h"
#include "model/workload_filter.h"
#include "model/task.h"
#include "ptx/inventory.h"
#include "ptx/signature.h"
#include "stats/accuracy.h"
#include "stats/comparison.h"
#include "tool/assemble.h"

#include "run.h"
#include "results_json.h"
#include "submission.h"
#include "stage.h"
#include "blocks.h"
#include "reference_run.h"
#include "vendor_arm.h"
#include "baseline_check.h"
#include "submission_stages.h"
#include "worker_parent.h"
#include "worker_json.h"

#endif
