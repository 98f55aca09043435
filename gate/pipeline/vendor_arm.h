/* The vendor baseline arm of the performance stage: cuBLASLt or cuDNN (vendor_arm.c), private
 * to gate/pipeline. */
#ifndef PG_PIPELINE_VENDOR_ARM_H
#define PG_PIPELINE_VENDOR_ARM_H

#include <jansson.h>

#include "base/diag.h"
#include "device/device.h"
#include "stage.h"

/* vendor_arm.c: the vendor baseline a task is timed against, as one arm of the performance
 * stage: cuBLASLt (GEMM tasks: the workload's problem c->gemm, with its layouts, batch,
 * alpha/beta and C input; the fastest of the task's max_candidates heuristic algorithms) or
 * cuDNN (attention: the SDPA graphs of device.h). prepare allocates the baseline's own outputs
 * and chooses its algorithm for workload c (whose inputs it reads); *out is owned by the caller
 * (pg_vendor_free). Errors: the library's, as PG_ERR_INFRA with the operation named; a problem
 * cuBLASLt cannot take (type combination, strides) as PG_ERR_INPUT. */
typedef struct pg_vendor pg_vendor;
pg_status pg_vendor_prepare(pg_wctx *c, pg_vendor **out, pg_diag *d);
/* The arm that enqueues one baseline run; {NULL, NULL} for a NULL baseline. */
pg_arm pg_vendor_arm(pg_vendor *b);
/* Add the baseline's record to the results object `obj`: "library" ("cublaslt" | "cudnn"),
 * the algorithm or engine and their settings; for cuBLASLt GEMMs other than the plain gemm_nt
 * form also "compute" and "layouts" (docs/results.md). */
void pg_vendor_describe(const pg_vendor *b, json_t *obj);
/* The "library" pg_vendor_describe writes: "cublaslt" or "cudnn"; NULL for a NULL baseline. */
const char *pg_vendor_library(const pg_vendor *b);
/* "cuBLASLt" or "cuDNN", for messages. */
const char *pg_vendor_label(const pg_vendor *b);
/* The cuBLASLt plan of a GEMM baseline (NULL for cuDNN), and the baseline's own output buffer
 * of task tensor `tensor` (NULL for inputs): sustained mode rebinds the plan to rotated copies. */
pg_blaslt_gemm *pg_vendor_gemm(pg_vendor *b);
pg_buffer *pg_vendor_output(pg_vendor *b, int tensor);
void pg_vendor_free(pg_vendor *b);

#endif
