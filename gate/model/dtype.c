/* dtype names and sizes (see dtype.h). */
#include "dtype.h"

#include <string.h>

static const struct {
    pg_dtype t;
    const char *name;
    size_t size;
} k_dtypes[] = {
    {PG_DTYPE_BF16, "bf16", 2}, {PG_DTYPE_FP16, "fp16", 2}, {PG_DTYPE_FP32, "fp32", 4},
    {PG_DTYPE_E4M3, "e4m3", 1}, {PG_DTYPE_E5M2, "e5m2", 1},
};

pg_dtype pg_dtype_parse(const char *name)
{
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (name && strcmp(name, k_dtypes[i].name) == 0)
            return k_dtypes[i].t;
    return PG_DTYPE_INVALID;
}

const char *pg_dtype_name(pg_dtype t)
{
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (k_dtypes[i].t == t)
            return k_dtypes[i].name;
    return "invalid";
}

size_t pg_dtype_size(pg_dtype t)
{
    for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (k_dtypes[i].t == t)
            return k_dtypes[i].size;
    return 0;
}

const char *pg_dtype_accepted(void)
{
    return "bf16, fp16, fp32, e4m3, e5m2";
}

bool pg_dtype_is_fp8(pg_dtype t)
{
    return t == PG_DTYPE_E4M3 || t == PG_DTYPE_E5M2;
}
