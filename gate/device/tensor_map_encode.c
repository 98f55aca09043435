/* TMA tensor maps: a validated pg_tensor_map_desc encoded by the driver's cuTensorMapEncodeTiled
 * into the 128-byte map a kernel takes by value. */
#include "device_internal.h"

#include <stdio.h>
#include <string.h>

static CUtensorMapDataType data_type(pg_dtype t)
{
    switch (t) {
    case PG_DTYPE_BF16:
        return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case PG_DTYPE_FP16:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case PG_DTYPE_FP32:
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    default: /* e4m3, e5m2: bytes to TMA */
        return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    }
}

static CUtensorMapInterleave interleave(pg_tmap_interleave v)
{
    return v == PG_TMAP_INTERLEAVE_16B   ? CU_TENSOR_MAP_INTERLEAVE_16B
           : v == PG_TMAP_INTERLEAVE_32B ? CU_TENSOR_MAP_INTERLEAVE_32B
                                         : CU_TENSOR_MAP_INTERLEAVE_NONE;
}

static CUtensorMapSwizzle swizzle(pg_tmap_swizzle v)
{
    return v == PG_TMAP_SWIZZLE_32B    ? CU_TENSOR_MAP_SWIZZLE_32B
           : v == PG_TMAP_SWIZZLE_64B  ? CU_TENSOR_MAP_SWIZZLE_64B
           : v == PG_TMAP_SWIZZLE_128B ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : CU_TENSOR_MAP_SWIZZLE_NONE;
}

static CUtensorMapL2promotion l2_promotion(pg_tmap_l2 v)
{
    return v == PG_TMAP_L2_64B    ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
           : v == PG_TMAP_L2_128B ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
           : v == PG_TMAP_L2_256B ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                  : CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

static CUtensorMapFloatOOBfill oob_fill(pg_tmap_oob v)
{
    return v == PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                                 : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
}

pg_status pg_tensor_map_encode(pg_device *dev, const pg_tensor_map_desc *m, uint64_t address,
                               void *out, pg_diag *d)
{
    _Static_assert(sizeof(CUtensorMap) == PG_TMAP_BYTES, "CUtensorMap is 128 bytes");
    if ((uintptr_t)out % PG_TMAP_ALIGN != 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, m->field,
                           "tensor map storage is not %d-byte aligned", PG_TMAP_ALIGN);
    if (m->rank < 1 || m->rank > PG_TMAP_MAX_RANK)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, m->field, "tensor map rank %d is not 1..%d",
                           m->rank, PG_TMAP_MAX_RANK);
    pg_status st = pg_tensor_map_check_address(m, address, d);
    if (st == PG_OK)
        st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    cuuint64_t dims[PG_TMAP_MAX_RANK], strides[PG_TMAP_MAX_RANK];
    cuuint32_t box[PG_TMAP_MAX_RANK], estrides[PG_TMAP_MAX_RANK];
    for (int i = 0; i < m->rank; i++) {
        dims[i] = m->global_dim[i];
        strides[i] = i + 1 < m->rank ? m->global_stride[i] : 0;
        box[i] = (cuuint32_t)m->box_dim[i];
        estrides[i] = (cuuint32_t)m->element_stride[i];
    }
    CUresult r = dev->cu->TensorMapEncodeTiled(
        (CUtensorMap *)out, data_type(m->dtype), (cuuint32_t)m->rank,
        (void *)(uintptr_t)address, dims, strides, box, estrides, interleave(m->interleave),
        swizzle(m->swizzle), l2_promotion(m->l2_promotion), oob_fill(m->oob_fill));
    if (r == CUDA_SUCCESS)
        return PG_OK;
    char why[256], what[512];
    pg_cu_describe(dev->cu, r, why, sizeof why);
    pg_tensor_map_describe(m, what, sizeof what);
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, m->field,
                       "cuTensorMapEncodeTiled rejected the tensor map of tensor '%s': %s; it "
                       "passed ptxgate's checks of the documented rules, so the driver applies "
                       "one more. Parameters: %s", m->tensor, why, what);
}
