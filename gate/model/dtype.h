/* Element types of task tensors, with their standard names (bf16, fp16, fp32, e4m3, e5m2). */
#ifndef PG_MODEL_DTYPE_H
#define PG_MODEL_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    PG_DTYPE_INVALID = 0,
    PG_DTYPE_BF16,
    PG_DTYPE_FP16,
    PG_DTYPE_FP32,
    PG_DTYPE_E4M3,
    PG_DTYPE_E5M2
} pg_dtype;

/* Parse a standard name ("bf16", "fp16", "fp32", "e4m3", "e5m2"); PG_DTYPE_INVALID otherwise. */
pg_dtype pg_dtype_parse(const char *name);
/* Standard name; "invalid" for PG_DTYPE_INVALID. Static storage. */
const char *pg_dtype_name(pg_dtype t);
/* Size of one element in bytes; 0 for PG_DTYPE_INVALID. */
size_t pg_dtype_size(pg_dtype t);
/* True for the 8-bit floating-point types e4m3 and e5m2 (OCP FP8: 4 exponent bits and 3
 * mantissa bits, finite only, max 448; 5 and 2, max 57344). */
bool pg_dtype_is_fp8(pg_dtype t);
/* Comma-separated list of accepted names, for error messages. */
const char *pg_dtype_accepted(void);

#endif
