/* The per-operation parts of the correctness stage: input fills and ptxgate's fp32 reference
 * (reference_run.c), private to gate/pipeline. */
#ifndef PG_PIPELINE_REFERENCE_RUN_H
#define PG_PIPELINE_REFERENCE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "device/device.h"
#include "model/task.h"
#include "stage.h"

/* Fill the inputs of one input set: input tensor i gets N(0,1) samples from seed + i, except
 * that for mha_bwd O and LSE are the reference forward of the filled Q, K, V (O rounded to the
 * task's dtype, LSE fp32), so the backward sees a consistent forward. Enqueued work plus, for
 * mha_bwd, synchronous reference work (waits bounded by the run's timeout). */
pg_status pg_refrun_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d);
/* True for the inputs a timed launch may get anew without the reference forward: those
 * pg_refrun_fill_inputs draws at random and no other input is derived from. Every input of
 * GEMM tasks (C too) and mha_fwd; of mha_bwd only dO (Q, K, V stay, so O and LSE stay consistent). */
bool pg_refrun_refillable(const pg_task *t, int tensor);
/* Enqueue N(0,1) fills (seed + i for tensor i, as pg_refrun_fill_inputs) of the refillable
 * inputs only; no wait. */
pg_status pg_refrun_refill(pg_wctx *c, uint64_t seed, pg_diag *d);
/* ptxgate's fp32 reference of every output tensor i into refs[i] (tensor_elements[i] floats;
 * NULL entries for inputs), from the current inputs; returns after the GPU finished. GEMM
 * tasks: pg_reference_gemm of c->gemm, the result at the output's own strides (its storage
 * order), so it compares element for element with the output. */
pg_status pg_refrun_outputs(pg_wctx *c, pg_buffer *const *refs, pg_diag *d);

#endif
