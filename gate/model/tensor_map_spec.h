/* A manifest's tensor_map binding (docs/formats.md "tensor_map"): reading it from JSON, checking
 * it against the task's tensor, and deriving the full tensor map (global dims and strides from
 * the tensor's dims and row-major layout, box dims evaluated for a workload) that tensor_map.h
 * validates and the device layer encodes. */
#ifndef PG_MODEL_TENSOR_MAP_SPEC_H
#define PG_MODEL_TENSOR_MAP_SPEC_H

#include <jansson.h>

#include "../base/diag.h"
#include "../base/jsonget.h"
#include "expr.h"
#include "task.h"
#include "tensor_map.h"

/* The binding as written. Box expressions stay text until a workload is known.
 * box[i], element_strides[i], dims[i]: TMA dimension i (0 = innermost).
 * n_dims == 0: "dims" absent, the tensor's dims innermost first (its own order reversed).
 * n_element_strides == 0: "element_strides" absent, all 1. */
typedef struct {
    char tensor[64];
    char box[PG_TMAP_MAX_RANK][128];
    int n_box;
    int64_t element_strides[PG_TMAP_MAX_RANK];
    int n_element_strides;
    char dims[PG_TMAP_MAX_RANK][32];
    int n_dims;
    /* A view ("global_dims", "global_strides_bytes"): n_global_dims > 0, the map's rank; the
     * strides are those of dims 1..rank-1 in bytes (dim 0's is the element size). */
    char global_dims[PG_TMAP_MAX_RANK][128];
    int n_global_dims;
    char global_strides[PG_TMAP_MAX_RANK - 1][128];
    int n_global_strides;
    pg_tmap_interleave interleave;   /* default none */
    pg_tmap_swizzle swizzle;         /* default none */
    pg_tmap_l2 l2_promotion;         /* default none */
    pg_tmap_oob oob_fill;            /* default none */
} pg_tensor_map_spec;

/* Read the object obj (located by ctx, whose path is ".../tensor_map") into *out (zeroed first).
 * Keys: "tensor" (required, a name), "box" (required, 1..5 expressions), "element_strides"
 * (optional, 1..5 integers), "dims" (optional, 1..5 symbol names), "global_dims" (optional,
 * 1..5 expressions) and "global_strides_bytes" (1..4 expressions, required with global_dims of
 * rank 2 or more, absent for rank 1), "interleave", "swizzle",
 * "l2_promotion", "oob_fill" (optional strings, see tensor_map.h for the spellings).
 * Errors (PG_ERR_INPUT naming ctx->file and the field): not an object, unknown keys, wrong
 * types, empty or too long arrays, expression syntax, unknown enumeration spellings (listing the
 * accepted ones). Value ranges are checked later (pg_tensor_map_validate). */
pg_status pg_tensor_map_spec_from_json(const json_t *obj, const pg_jctx *ctx,
                                       pg_tensor_map_spec *out, pg_diag *d);

/* Check s (at field, e.g. "launches[0].params[3]", of file) against task t: the tensor exists
 * (field "<field>.tensor_map.tensor"), its rank (number of dims) is 1..5
 * ("<field>.tensor_map.tensor"), "box" and "element_strides" have one entry per dimension
 * ("<field>.tensor_map.box", ".element_strides"), "dims" is a permutation of the tensor's dims
 * whose first entry is the contiguous (last) dim ("<field>.tensor_map.dims"), box expressions
 * use task symbols only ("<field>.tensor_map.box[i]"). A view (global_dims given): the tensor
 * exists, "dims" is absent ("<field>.tensor_map.dims"), there are rank - 1 strides
 * ("<field>.tensor_map.global_strides_bytes"), box and element_strides have one entry per view
 * dimension, every expression uses task symbols only ("...global_dims[i]",
 * "...global_strides_bytes[i]"). Errors: PG_ERR_INPUT. */
pg_status pg_tensor_map_spec_check(const pg_tensor_map_spec *s, const pg_task *t,
                                   const char *file, const char *field, pg_diag *d);

/* The tensor map of s (checked with pg_tensor_map_spec_check) for workload w, validated with
 * pg_tensor_map_validate. Global dims are the tensor's dim values in TMA order; the stride of a
 * dim is the element size times the product of the dims after it in the tensor (row-major). The
 * box expressions are evaluated with syms (the workload's symbols). out->field is
 * "<field>.tensor_map".
 * A view takes its dims and strides from the evaluated expressions instead (out->view set,
 * dim_names[i] the expression text), and must stay inside the tensor's buffer: the last byte
 * of every corner of the view, sum over i of (corner_i * stride_i) + element size, is at most
 * the tensor's bytes (all strides are positive, so the corners bound every element).
 * Errors (PG_ERR_INPUT, file and field named, the message naming the workload): box expression
 * errors ("<field>.tensor_map.box[i]"), a tensor stride above 2^63 ("<field>.tensor_map.tensor"),
 * view expression errors and values out of range ("...global_dims[i]",
 * "...global_strides_bytes[i]"), a view reaching past the tensor ("...global_dims", naming the
 * first corner out of range, its byte offset and the tensor's size), and every rule of
 * pg_tensor_map_validate. */
pg_status pg_tensor_map_spec_build(const pg_tensor_map_spec *s, const pg_task *t,
                                   const pg_workload *w, const pg_symtab *syms, const char *file,
                                   const char *field, pg_tensor_map_desc *out, pg_diag *d);

#endif
