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

/* The comparison's running sums over a part of the elements, as the GPU computes them per
 * block (gate/device/kernels/checks.cuh; the same element rule as pg_accuracy_compare):
 * Σ(out − ref)² and Σref² over finite outputs (ref² over all), the maxima, the counts and the
 * smallest bad index (-1: none). */
typedef struct {
    double err2, ref2, max_abs, max_rel;
    unsigned long long bad, nonfinite, unwritten;
    long long first_bad;
} pg_accuracy_sums;

/* The sums over elements [begin, end) of out and ref (indices into the whole tensors, so
 * first_bad is a global index); pg_accuracy_compare is this over all elements, then
 * pg_accuracy_from_sums. */
void pg_accuracy_sums_range(const void *out, pg_dtype dtype, const float *ref, size_t begin,
                            size_t end, const pg_accuracy_tolerance *tol, pg_accuracy_sums *sums);
/* Fold b into a (sums added, maxima and the first bad index kept): folding the parts in index
 * order gives a result that does not depend on how the work was split into parts beyond the
 * order of the double additions. */
void pg_accuracy_sums_add(pg_accuracy_sums *a, const pg_accuracy_sums *b);
/* The result for `count` elements from their sums, under tol (the same rules as
 * pg_accuracy_compare: relative L2 = sqrt(err2) / sqrt(ref2), +inf when ref2 = 0 < err2). */
void pg_accuracy_from_sums(const pg_accuracy_sums *s, size_t count,
                           const pg_accuracy_tolerance *tol, pg_accuracy *r);

#endif
