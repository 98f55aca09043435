/* TMA tensor maps: the parameters of one cuTensorMapEncodeTiled call and ptxgate's own check of
 * the rules the CUDA driver API documents for them, so that a bad map is an input error naming
 * the manifest field instead of the driver's bare CUDA_ERROR_INVALID_VALUE. Pure: no CUDA.
 *
 * Source of every rule: the documentation of cuTensorMapEncodeTiled in cuda.h of CUDA 13.0
 * (CUDA Driver API, "Tensor Map Object Management"). Dimension 0 is the innermost (contiguous)
 * one, as CUDA numbers them. */
#ifndef PG_MODEL_TENSOR_MAP_H
#define PG_MODEL_TENSOR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "dtype.h"

/* "tensorRank must be non-zero and less than or equal to ... 5". */
#define PG_TMAP_MAX_RANK 5
/* "globalDim ... must be non-zero and less than or equal to 2^32". */
#define PG_TMAP_MAX_GLOBAL_DIM (UINT64_C(1) << 32)
/* "globalStrides ... must be a multiple of 16 and less than 2^40". */
#define PG_TMAP_MAX_GLOBAL_STRIDE (UINT64_C(1) << 40)
/* "boxDim ... must be non-zero and less than or equal to 256". */
#define PG_TMAP_MAX_BOX_DIM 256
/* "elementStrides ... must be non-zero and less than or equal to 8". */
#define PG_TMAP_MAX_ELEMENT_STRIDE 8
/* Size and alignment of the opaque map (CUtensorMap: 16 64-bit words, 64-byte aligned). */
#define PG_TMAP_BYTES 128
#define PG_TMAP_ALIGN 64

/* The enumerations keep the order (and values) of CUtensorMapInterleave, CUtensorMapSwizzle
 * (its first four members), CUtensorMapL2promotion and CUtensorMapFloatOOBfill; the device
 * layer still maps them member by member. */
typedef enum { PG_TMAP_INTERLEAVE_NONE, PG_TMAP_INTERLEAVE_16B, PG_TMAP_INTERLEAVE_32B } pg_tmap_interleave;
typedef enum {
    PG_TMAP_SWIZZLE_NONE,
    PG_TMAP_SWIZZLE_32B,
    PG_TMAP_SWIZZLE_64B,
    PG_TMAP_SWIZZLE_128B
} pg_tmap_swizzle;
typedef enum { PG_TMAP_L2_NONE, PG_TMAP_L2_64B, PG_TMAP_L2_128B, PG_TMAP_L2_256B } pg_tmap_l2;
typedef enum { PG_TMAP_OOB_NONE, PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA } pg_tmap_oob;

/* Manifest spellings: interleave "none" "16B" "32B"; swizzle "none" "32B" "64B" "128B";
 * l2_promotion "none" "64B" "128B" "256B"; oob_fill "none" "nan_request_zero_fma".
 * parse returns the index into that list (= the enumeration value) or -1; name returns the
 * spelling (static) or "invalid". accepted: the comma-separated list, for messages. */
int pg_tmap_interleave_parse(const char *s);
int pg_tmap_swizzle_parse(const char *s);
int pg_tmap_l2_parse(const char *s);
int pg_tmap_oob_parse(const char *s);
const char *pg_tmap_interleave_name(pg_tmap_interleave v);
const char *pg_tmap_swizzle_name(pg_tmap_swizzle v);
const char *pg_tmap_l2_name(pg_tmap_l2 v);
const char *pg_tmap_oob_name(pg_tmap_oob v);
const char *pg_tmap_interleave_accepted(void);
const char *pg_tmap_swizzle_accepted(void);
const char *pg_tmap_l2_accepted(void);
const char *pg_tmap_oob_accepted(void);

/* Bytes of the span a swizzle mode permutes 16-byte chunks in: 32, 64, 128; 0 for none. */
unsigned pg_tmap_swizzle_span(pg_tmap_swizzle v);

/* One tiled tensor map, everything cuTensorMapEncodeTiled takes except the tensor's address.
 * Arrays are indexed by TMA dimension (0 = innermost, contiguous); entries at and above rank are
 * unused. Units: global_dim, box_dim in elements; global_stride in bytes, global_stride[i] being
 * the stride of dimension i + 1 (dimension 0 is contiguous: its stride is the element size).
 * dtype: the task tensor's element type; bf16 → BFLOAT16, fp16 → FLOAT16, fp32 → FLOAT32,
 * e4m3 and e5m2 → UINT8 (TMA moves bytes; they are not floating-point types to it).
 * Names for messages: field is the JSON path of the binding's tensor_map object
 * ("launches[0].params[3].tensor_map"), tensor the task tensor's name, dim_names[i] the symbol
 * of the tensor dimension that TMA dimension i comes from. */
typedef struct {
    pg_dtype dtype;
    int rank;
    uint64_t global_dim[PG_TMAP_MAX_RANK];
    uint64_t global_stride[PG_TMAP_MAX_RANK - 1];
    int64_t box_dim[PG_TMAP_MAX_RANK];
    int64_t element_stride[PG_TMAP_MAX_RANK];
    pg_tmap_interleave interleave;
    pg_tmap_swizzle swizzle;
    pg_tmap_l2 l2_promotion;
    pg_tmap_oob oob_fill;
    int tensor_index;          /* index of the task tensor whose address the map describes */
    bool view;                 /* global dims and strides written in the manifest ("global_dims",
                                  "global_strides_bytes"), not the tensor's own */
    char field[160];
    char tensor[32];
    char dim_names[PG_TMAP_MAX_RANK][32];
} pg_tensor_map_desc;

/* Whether dtype is a floating-point type to TMA (bf16, fp16, fp32; not e4m3/e5m2, encoded as
 * UINT8). */
bool pg_tmap_dtype_is_float(pg_dtype dtype);

/* Check m against every documented rule that does not depend on the address:
 *   rank 1..5                                                         → "<field>.tensor"
 *   rank >= 3 when interleave is not none                             → "<field>.interleave"
 *   interleave 32B requires swizzle 32B                               → "<field>.swizzle"
 *   global_dim[i] in 1..2^32                                          → "<field>.tensor"
 *                                          (a view: "<field>.global_dims[i]")
 *   global_stride[i] a multiple of 16 (32 with interleave 32B), < 2^40 → "<field>.tensor"
 *                                          (a view: "<field>.global_strides_bytes[i]")
 *   box_dim[i] in 1..256                                              → "<field>.box[i]"
 *   interleave none: box_dim[0] · element size a multiple of 16 bytes → "<field>.box[0]"
 *   interleave none, swizzle not none: box_dim[0] · element size <= the swizzle span
 *                                                                     → "<field>.box[0]"
 *   element_stride[i] in 1..8                                         → "<field>.element_strides[i]"
 *   oob_fill nan_request_zero_fma only for floating-point dtypes      → "<field>.oob_fill"
 *   dtype one of bf16, fp16, fp32, e4m3, e5m2                          → "<field>.tensor"
 * Box and element-stride indices are TMA dimension indices (innermost first), as in the manifest.
 * Errors: PG_ERR_INPUT with d->file = file, d->field as listed, and a message that starts with
 * "workload '<workload>': " when workload is not NULL, names the value found, the rule and, for
 * tensor dimensions, the symbol. */
pg_status pg_tensor_map_validate(const pg_tensor_map_desc *m, const char *file,
                                 const char *workload, pg_diag *d);

/* The address rule, checked when the tensor's buffer exists: "globalAddress ... must be 16 byte
 * aligned", 32 with interleave 32B. Error: PG_ERR_INPUT, field "<field>.tensor", no file. */
pg_status pg_tensor_map_check_address(const pg_tensor_map_desc *m, uint64_t address, pg_diag *d);

/* One line describing m for messages: "bf16 rank 2 dims [1000, 257] strides [2000] box [64, 128]
 * element_strides [1, 1] interleave none swizzle 128B l2_promotion 256B oob_fill none". */
void pg_tensor_map_describe(const pg_tensor_map_desc *m, char *buf, size_t n);

#endif
