/* cuBLASLt algorithm configurations as text and JSON (see blaslt_algo.h). */
#include "blaslt_algo.h"

#include <stdio.h>
#include <string.h>

char *pg_blaslt_algo_format(const pg_blaslt_algo *a, char *out, size_t n)
{
    snprintf(out, n,
             "algo_id=%d tile=%u stages=%u splitk=%d reduction=%u swizzle=%u custom=%u "
             "inner_shape=%u cluster_shape=%u",
             (int)a->algo_id, (unsigned)a->tile, (unsigned)a->stages, (int)a->splitk,
             (unsigned)a->reduction, (unsigned)a->swizzle, (unsigned)a->custom,
             (unsigned)a->inner_shape, (unsigned)a->cluster_shape);
    return out;
}

json_t *pg_blaslt_algo_to_json(const pg_blaslt_algo *a)
{
    return json_pack("{s:i, s:I, s:I, s:i, s:I, s:I, s:I, s:i, s:i}", "algo_id", (int)a->algo_id,
                     "tile", (json_int_t)a->tile, "stages", (json_int_t)a->stages, "splitk",
                     (int)a->splitk, "reduction", (json_int_t)a->reduction, "swizzle",
                     (json_int_t)a->swizzle, "custom", (json_int_t)a->custom, "inner_shape",
                     (int)a->inner_shape, "cluster_shape", (int)a->cluster_shape);
}

static pg_status get_ranged(const json_t *obj, const pg_jctx *ctx, const char *key, int64_t lo,
                            int64_t hi, int64_t *out, pg_diag *d)
{
    pg_status st = pg_jget_int(obj, ctx, key, true, out, d);
    if (st != PG_OK)
        return st;
    if (*out < lo || *out > hi) {
        char f[512];
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected an integer from %lld to %lld, got %lld", (long long)lo,
                           (long long)hi, (long long)*out);
    }
    return PG_OK;
}

pg_status pg_blaslt_algo_from_json(const json_t *obj, const pg_jctx *ctx, pg_blaslt_algo *out,
                                   pg_diag *d)
{
    static const char *const keys[] = {"algo_id", "tile", "stages", "splitk", "reduction",
                                       "swizzle", "custom", "inner_shape", "cluster_shape", NULL};
    memset(out, 0, sizeof *out);
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    int64_t v[9] = {0};
    const int64_t u32 = UINT32_MAX, u16 = UINT16_MAX;
    const int64_t lo[9] = {0, 0, 0, 1, 0, 0, 0, 0, 0};
    const int64_t hi[9] = {INT32_MAX, u32, u32, INT32_MAX, u32, u32, u32, u16, u16};
    for (int i = 0; st == PG_OK && i < 9; i++)
        st = get_ranged(obj, ctx, keys[i], lo[i], hi[i], &v[i], d);
    if (st != PG_OK)
        return st;
    *out = (pg_blaslt_algo){.algo_id = (int32_t)v[0], .tile = (uint32_t)v[1],
                            .stages = (uint32_t)v[2], .splitk = (int32_t)v[3],
                            .reduction = (uint32_t)v[4], .swizzle = (uint32_t)v[5],
                            .custom = (uint32_t)v[6], .inner_shape = (uint16_t)v[7],
                            .cluster_shape = (uint16_t)v[8]};
    return PG_OK;
}

bool pg_blaslt_algo_equal(const pg_blaslt_algo *a, const pg_blaslt_algo *b)
{
    return a->algo_id == b->algo_id && a->tile == b->tile && a->stages == b->stages &&
           a->splitk == b->splitk && a->reduction == b->reduction && a->swizzle == b->swizzle &&
           a->custom == b->custom && a->inner_shape == b->inner_shape &&
           a->cluster_shape == b->cluster_shape;
}
