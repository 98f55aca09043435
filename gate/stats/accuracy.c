/* The tolerance comparator (see accuracy.h). */
#include "accuracy.h"

#include <math.h>
#include <string.h>

float pg_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float pg_fp16_to_float(uint16_t h)
{
    int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24); /* subnormal: man · 2^-24 */
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

float pg_e4m3_to_float(uint8_t x)
{
    int sign = x >> 7, exp = (x >> 3) & 0xf, man = x & 7;
    float v;
    if (exp == 15 && man == 7)
        v = NAN;
    else if (exp == 0)
        v = ldexpf((float)man, -9); /* subnormal: man/8 · 2^-6 */
    else
        v = ldexpf((float)(man | 8), exp - 10);
    return sign ? -v : v;
}

float pg_e5m2_to_float(uint8_t x)
{
    /* e5m2 is the upper byte of an fp16. */
    return pg_fp16_to_float((uint16_t)(x << 8));
}

float pg_element_to_float(const void *data, pg_dtype dtype, size_t i)
{
    switch (dtype) {
    case PG_DTYPE_BF16: return pg_bf16_to_float(((const uint16_t *)data)[i]);
    case PG_DTYPE_FP16: return pg_fp16_to_float(((const uint16_t *)data)[i]);
    case PG_DTYPE_FP32: return ((const float *)data)[i];
    case PG_DTYPE_E4M3: return pg_e4m3_to_float(((const uint8_t *)data)[i]);
    case PG_DTYPE_E5M2: return pg_e5m2_to_float(((const uint8_t *)data)[i]);
    default: return NAN;
    }
}

static bool is_poison(const void *data, size_t esize, size_t i)
{
    const unsigned char *p = (const unsigned char *)data + i * esize;
    for (size_t b = 0; b < esize; b++)
        if (p[b] != 0xFF)
            return false;
    return true;
}

void pg_accuracy_sums_range(const void *out, pg_dtype dtype, const float *ref, size_t begin,
                            size_t end, const pg_accuracy_tolerance *tol, pg_accuracy_sums *a)
{
    *a = (pg_accuracy_sums){0, 0, 0, 0, 0, 0, 0, -1};
    size_t esize = pg_dtype_size(dtype);
    for (size_t i = begin; i < end; i++) {
        double y = ref[i];
        double x = pg_element_to_float(out, dtype, i);
        a->ref2 += y * y;
        if (!isfinite(x)) {
            a->nonfinite++;
            a->unwritten += is_poison(out, esize, i);
            a->bad++;
            if (a->first_bad < 0)
                a->first_bad = (long long)i;
            continue;
        }
        double e = fabs(x - y);
        a->err2 += e * e;
        if (e > a->max_abs)
            a->max_abs = e;
        if (y != 0.0 && e / fabs(y) > a->max_rel)
            a->max_rel = e / fabs(y);
        if (!(e <= tol->atol + tol->rtol * fabs(y))) {
            a->bad++;
            if (a->first_bad < 0)
                a->first_bad = (long long)i;
        }
    }
}

void pg_accuracy_compare(const void *out, pg_dtype dtype, const float *ref, size_t count,
                         const pg_accuracy_tolerance *tol, pg_accuracy *r)
{
    pg_accuracy_sums a;
    pg_accuracy_sums_range(out, dtype, ref, 0, count, tol, &a);
    pg_accuracy_from_sums(&a, count, tol, r);
}

void pg_accuracy_sums_add(pg_accuracy_sums *a, const pg_accuracy_sums *b)
{
    a->err2 += b->err2;
    a->ref2 += b->ref2;
    if (b->max_abs > a->max_abs)
        a->max_abs = b->max_abs;
    if (b->max_rel > a->max_rel)
        a->max_rel = b->max_rel;
    a->bad += b->bad;
    a->nonfinite += b->nonfinite;
    a->unwritten += b->unwritten;
    if (b->first_bad >= 0 && (a->first_bad < 0 || b->first_bad < a->first_bad))
        a->first_bad = b->first_bad;
}

void pg_accuracy_from_sums(const pg_accuracy_sums *s, size_t count,
                           const pg_accuracy_tolerance *tol, pg_accuracy *r)
{
    memset(r, 0, sizeof *r);
    r->elements = count;
    r->max_absolute_error = s->max_abs;
    r->max_relative_error = s->max_rel;
    r->bad_elements = (size_t)s->bad;
    r->nan_or_inf_elements = (size_t)s->nonfinite;
    r->unwritten_elements = (size_t)s->unwritten;
    r->first_bad_index = s->first_bad;
    if (s->ref2 > 0.0)
        r->relative_l2_error = sqrt(s->err2) / sqrt(s->ref2);
    else
        r->relative_l2_error = s->err2 > 0.0 ? INFINITY : 0.0;
    r->pass = r->bad_elements == 0 && r->relative_l2_error <= tol->max_rel_l2;
}
