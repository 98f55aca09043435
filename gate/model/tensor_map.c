/* The cuTensorMapEncodeTiled rules, checked by ptxgate itself (see tensor_map.h). */
#include "tensor_map.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const k_interleave[] = {"none", "16B", "32B"};
static const char *const k_swizzle[] = {"none", "32B", "64B", "128B"};
static const char *const k_l2[] = {"none", "64B", "128B", "256B"};
static const char *const k_oob[] = {"none", "nan_request_zero_fma"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static const char *name(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : "invalid";
}

int pg_tmap_interleave_parse(const char *s) { return parse(k_interleave, COUNT(k_interleave), s); }
int pg_tmap_swizzle_parse(const char *s) { return parse(k_swizzle, COUNT(k_swizzle), s); }
int pg_tmap_l2_parse(const char *s) { return parse(k_l2, COUNT(k_l2), s); }
int pg_tmap_oob_parse(const char *s) { return parse(k_oob, COUNT(k_oob), s); }
const char *pg_tmap_interleave_name(pg_tmap_interleave v)
{
    return name(k_interleave, COUNT(k_interleave), (int)v);
}
const char *pg_tmap_swizzle_name(pg_tmap_swizzle v) { return name(k_swizzle, COUNT(k_swizzle), (int)v); }
const char *pg_tmap_l2_name(pg_tmap_l2 v) { return name(k_l2, COUNT(k_l2), (int)v); }
const char *pg_tmap_oob_name(pg_tmap_oob v) { return name(k_oob, COUNT(k_oob), (int)v); }
const char *pg_tmap_interleave_accepted(void) { return "none, 16B, 32B"; }
const char *pg_tmap_swizzle_accepted(void) { return "none, 32B, 64B, 128B"; }
const char *pg_tmap_l2_accepted(void) { return "none, 64B, 128B, 256B"; }
const char *pg_tmap_oob_accepted(void) { return "none, nan_request_zero_fma"; }

unsigned pg_tmap_swizzle_span(pg_tmap_swizzle v)
{
    switch (v) {
    case PG_TMAP_SWIZZLE_32B:
        return 32;
    case PG_TMAP_SWIZZLE_64B:
        return 64;
    case PG_TMAP_SWIZZLE_128B:
        return 128;
    default:
        return 0;
    }
}

bool pg_tmap_dtype_is_float(pg_dtype dtype)
{
    return dtype == PG_DTYPE_BF16 || dtype == PG_DTYPE_FP16 || dtype == PG_DTYPE_FP32;
}

/* What a failing rule needs to name: the map, the file, the workload, the diagnostic. */
typedef struct {
    const pg_tensor_map_desc *m;
    const char *file;
    const char *workload;
    pg_diag *d;
} checker;

/* Fail at "<m->field>.<sub>" with "workload 'w': " + the formatted message. */
static pg_status fail(const checker *c, const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pg_status fail(const checker *c, const char *sub, const char *fmt, ...)
{
    char field[256], msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(field, sizeof field, "%s.%s", c->m->field, sub);
    if (c->workload)
        return pg_diag_set(c->d, PG_ERR_INPUT, c->file, 0, field, "workload '%s': %s",
                           c->workload, msg);
    return pg_diag_set(c->d, PG_ERR_INPUT, c->file, 0, field, "%s", msg);
}

/* The field a dimension or stride rule names: "tensor" for a map over the tensor as declared,
 * "<key>[i]" for a view, whose dims and strides the manifest wrote. */
static const char *view_key(const pg_tensor_map_desc *m, const char *key, int i, char *buf,
                            size_t n)
{
    if (!m->view)
        return "tensor";
    snprintf(buf, n, "%s[%d]", key, i);
    return buf;
}

static pg_status check_shape(const checker *c, size_t esize)
{
    const pg_tensor_map_desc *m = c->m;
    if (m->rank < 1 || m->rank > PG_TMAP_MAX_RANK)
        return fail(c, "tensor",
                    "tensor '%s' gives a tensor map of rank %d; cuTensorMapEncodeTiled accepts "
                    "rank 1 to %d", m->tensor, m->rank, PG_TMAP_MAX_RANK);
    if (m->interleave != PG_TMAP_INTERLEAVE_NONE && m->rank < 3)
        return fail(c, "interleave",
                    "interleave %s needs a tensor map of rank 3 or more (cuTensorMapEncodeTiled); "
                    "tensor '%s' gives rank %d", pg_tmap_interleave_name(m->interleave),
                    m->tensor, m->rank);
    char key[64];
    for (int i = 0; i < m->rank; i++)
        if (m->global_dim[i] < 1 || m->global_dim[i] > PG_TMAP_MAX_GLOBAL_DIM)
            return fail(c, view_key(m, "global_dims", i, key, sizeof key),
                        "dimension %d of tensor '%s' (%s) is %" PRIu64 " elements; a tensor map "
                        "dimension must be 1 to 2^32", i, m->tensor, m->dim_names[i],
                        m->global_dim[i]);
    uint64_t align = m->interleave == PG_TMAP_INTERLEAVE_32B ? 32 : 16;
    for (int i = 1; i < m->rank; i++) {
        uint64_t s = m->global_stride[i - 1];
        if (s % align != 0 || s >= PG_TMAP_MAX_GLOBAL_STRIDE)
            return fail(c, view_key(m, "global_strides_bytes", i - 1, key, sizeof key),
                        "the stride of dimension %d of tensor '%s' (%s) is %" PRIu64 " bytes; "
                        "cuTensorMapEncodeTiled needs a multiple of %" PRIu64 " below 2^40%s "
                        "(the inner dimensions hold %" PRIu64 " elements of %zu bytes)",
                        i, m->tensor, m->dim_names[i], s, align,
                        align == 32 ? " with interleave 32B" : "", s / esize, esize);
    }
    return PG_OK;
}

static pg_status check_box(const checker *c, size_t esize)
{
    const pg_tensor_map_desc *m = c->m;
    char sub[64];
    for (int i = 0; i < m->rank; i++) {
        snprintf(sub, sizeof sub, "box[%d]", i);
        if (m->box_dim[i] < 1 || m->box_dim[i] > PG_TMAP_MAX_BOX_DIM)
            return fail(c, sub, "box dimension %d (%s) is %" PRId64 "; expected 1 to %d elements",
                        i, m->dim_names[i], m->box_dim[i], PG_TMAP_MAX_BOX_DIM);
    }
    uint64_t inner = (uint64_t)m->box_dim[0] * esize;
    if (m->interleave == PG_TMAP_INTERLEAVE_NONE && inner % 16 != 0)
        return fail(c, "box[0]",
                    "the inner box dimension is %" PRId64 " elements x %zu bytes = %" PRIu64
                    " bytes; without interleave it must be a multiple of 16 bytes",
                    m->box_dim[0], esize, inner);
    unsigned span = pg_tmap_swizzle_span(m->swizzle);
    if (m->interleave == PG_TMAP_INTERLEAVE_NONE && span && inner > span)
        return fail(c, "box[0]",
                    "the inner box dimension is %" PRId64 " elements x %zu bytes = %" PRIu64
                    " bytes, more than the %u-byte span of swizzle %s",
                    m->box_dim[0], esize, inner, span, pg_tmap_swizzle_name(m->swizzle));
    for (int i = 0; i < m->rank; i++) {
        snprintf(sub, sizeof sub, "element_strides[%d]", i);
        if (m->element_stride[i] < 1 || m->element_stride[i] > PG_TMAP_MAX_ELEMENT_STRIDE)
            return fail(c, sub, "element stride %d is %" PRId64 "; expected 1 to %d", i,
                        m->element_stride[i], PG_TMAP_MAX_ELEMENT_STRIDE);
    }
    return PG_OK;
}

pg_status pg_tensor_map_validate(const pg_tensor_map_desc *m, const char *file,
                                 const char *workload, pg_diag *d)
{
    checker c = {m, file, workload, d};
    size_t esize = pg_dtype_size(m->dtype);
    if (esize == 0)
        return fail(&c, "tensor", "tensor '%s' has no element type a tensor map accepts "
                                  "(expected %s)", m->tensor, pg_dtype_accepted());
    if ((unsigned)m->interleave > PG_TMAP_INTERLEAVE_32B)
        return fail(&c, "interleave", "unknown interleave; accepted: %s",
                    pg_tmap_interleave_accepted());
    if ((unsigned)m->swizzle > PG_TMAP_SWIZZLE_128B)
        return fail(&c, "swizzle", "unknown swizzle; accepted: %s", pg_tmap_swizzle_accepted());
    if ((unsigned)m->l2_promotion > PG_TMAP_L2_256B)
        return fail(&c, "l2_promotion", "unknown l2_promotion; accepted: %s",
                    pg_tmap_l2_accepted());
    if ((unsigned)m->oob_fill > PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA)
        return fail(&c, "oob_fill", "unknown oob_fill; accepted: %s", pg_tmap_oob_accepted());
    pg_status st = check_shape(&c, esize);
    if (st == PG_OK && m->interleave == PG_TMAP_INTERLEAVE_32B &&
        m->swizzle != PG_TMAP_SWIZZLE_32B)
        st = fail(&c, "swizzle", "interleave 32B requires swizzle 32B, found swizzle %s",
                  pg_tmap_swizzle_name(m->swizzle));
    if (st == PG_OK)
        st = check_box(&c, esize);
    if (st == PG_OK && m->oob_fill == PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA &&
        !pg_tmap_dtype_is_float(m->dtype))
        st = fail(&c, "oob_fill",
                  "oob_fill nan_request_zero_fma needs a floating-point element type; tensor "
                  "'%s' is %s, which a tensor map moves as UINT8", m->tensor,
                  pg_dtype_name(m->dtype));
    return st;
}

pg_status pg_tensor_map_check_address(const pg_tensor_map_desc *m, uint64_t address, pg_diag *d)
{
    checker c = {m, NULL, NULL, d};
    uint64_t align = m->interleave == PG_TMAP_INTERLEAVE_32B ? 32 : 16;
    if (address % align != 0)
        return fail(&c, "tensor",
                    "the address of tensor '%s' (0x%" PRIx64 ") is not %" PRIu64 "-byte aligned, "
                    "as cuTensorMapEncodeTiled requires%s", m->tensor, address, align,
                    align == 32 ? " with interleave 32B" : "");
    return PG_OK;
}

/* Append "[a, b, c]" of n values to buf at *used. */
static void list_u64(char *buf, size_t n, size_t *used, const char *key, const uint64_t *v,
                     int count)
{
    if (*used >= n)
        return;
    *used += (size_t)snprintf(buf + *used, n - *used, " %s [", key);
    for (int i = 0; i < count && *used < n; i++)
        *used += (size_t)snprintf(buf + *used, n - *used, "%s%" PRIu64, i ? ", " : "", v[i]);
    if (*used < n)
        *used += (size_t)snprintf(buf + *used, n - *used, "]");
}

void pg_tensor_map_describe(const pg_tensor_map_desc *m, char *buf, size_t n)
{
    uint64_t box[PG_TMAP_MAX_RANK], es[PG_TMAP_MAX_RANK];
    int rank = m->rank < 0 ? 0 : m->rank > PG_TMAP_MAX_RANK ? PG_TMAP_MAX_RANK : m->rank;
    size_t used;
    if (n == 0)
        return;
    for (int i = 0; i < rank; i++) {
        box[i] = (uint64_t)m->box_dim[i];
        es[i] = (uint64_t)m->element_stride[i];
    }
    used = (size_t)snprintf(buf, n, "%s rank %d", pg_dtype_name(m->dtype), m->rank);
    list_u64(buf, n, &used, "dims", m->global_dim, rank);
    list_u64(buf, n, &used, "strides", m->global_stride, rank > 0 ? rank - 1 : 0);
    list_u64(buf, n, &used, "box", box, rank);
    list_u64(buf, n, &used, "element_strides", es, rank);
    if (used < n)
        snprintf(buf + used, n - used, " interleave %s swizzle %s l2_promotion %s oob_fill %s",
                 pg_tmap_interleave_name(m->interleave), pg_tmap_swizzle_name(m->swizzle),
                 pg_tmap_l2_name(m->l2_promotion), pg_tmap_oob_name(m->oob_fill));
}
