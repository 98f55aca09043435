/* Output-versus-reference accuracy of one output tensor: the tolerance comparator. Pure: the
 * caller downloads the kernel's output and ptxgate's fp32 reference to host memory. */
#ifndef PG_STATS_ACCURACY_H
#define PG_STATS_ACCURACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/dtype.h"

typedef struct {
    double atol, rtol; /* an element is bad when |out − ref| > atol + rtol·|ref| */
    double max_rel_l2; /* the set fails when ‖out − ref‖₂ / ‖ref‖₂ exceeds this */
} pg_accuracy_tolerance;

typedef struct {
    size_t elements;
    double max_absolute_error;  /* max |out − ref| over finite outputs */
    double max_relative_error;  /* max |out − ref| / |ref| over finite outputs with ref != 0 */
    double relative_l2_error;   /* ‖out − ref‖₂ / ‖ref‖₂ over finite outputs; +inf if ‖ref‖ = 0 and error > 0 */
    size_t bad_elements;        /* outside atol + rtol·|ref|, plus every NaN/Inf */
    size_t nan_or_inf_elements; /* non-finite outputs, including unwritten ones */
    size_t unwritten_elements;  /* outputs still holding the exact poison pattern (all bytes 0xFF) */
    long long first_bad_index;  /* linear index of the first bad element; -1 when none */
    bool pass;                  /* no bad element and relative_l2_error <= max_rel_l2 */
} pg_accuracy;

/* Convert one element to float. bf16: upper 16 bits of an fp32; fp16: IEEE binary16
 * (subnormals, Inf and NaN handled); fp32: as is; e4m3/e5m2: OCP FP8 (e4m3 has no Inf,
 * S.1111.111 is NaN). */
float pg_bf16_to_float(uint16_t h);
float pg_fp16_to_float(uint16_t h);
float pg_e4m3_to_float(uint8_t v);
float pg_e5m2_to_float(uint8_t v);
float pg_element_to_float(const void *data, pg_dtype dtype, size_t index);

/* Compare `count` elements of out (dtype) with ref (fp32), both in the same layout, and fill r.
 * Errors are accumulated in double precision. Never fails; dtype must be valid. */
void pg_accuracy_compare(const void *out, pg_dtype dtype, const float *ref, size_t count,
                         const pg_accuracy_tolerance *tol, pg_accuracy *r);

#endif
