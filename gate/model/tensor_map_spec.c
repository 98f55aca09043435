/* tensor_map bindings of a manifest: parsing, the task cross-check and the map for one workload
 * (see tensor_map_spec.h). */
#include "tensor_map_spec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- parsing ------------------------------------------------------------------------------- */

/* An optional enumeration string obj[key] parsed with parse() into *out. */
static pg_status parse_enum(const json_t *obj, const pg_jctx *ctx, const char *key,
                            int (*parse)(const char *), const char *accepted, int *out,
                            pg_diag *d)
{
    const char *s = NULL;
    char f[300];
    pg_status st = pg_jget_string(obj, ctx, key, false, &s, d);
    if (st != PG_OK || !s)
        return st;
    int v = parse(s);
    if (v < 0)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "unknown %s '%s'; accepted: %s", key, s, accepted);
    *out = v;
    return PG_OK;
}

/* obj[key], when present, is an array of 1..PG_TMAP_MAX_RANK entries: *arr and its context. */
static pg_status get_rank_array(const json_t *obj, const pg_jctx *ctx, const char *key,
                                bool required, json_t **arr, pg_jctx *ac, pg_diag *d)
{
    *arr = NULL;
    pg_status st = pg_jget_array(obj, ctx, key, required, arr, d);
    if (st != PG_OK || !*arr)
        return st;
    *ac = pg_jctx_member(ctx, key);
    size_t n = json_array_size(*arr);
    if (n < 1 || n > PG_TMAP_MAX_RANK)
        return pg_diag_set(d, PG_ERR_INPUT, ac->file, 0, ac->path,
                           "expected 1 to %d entries (one per tensor map dimension, innermost "
                           "first), found %zu", PG_TMAP_MAX_RANK, n);
    return PG_OK;
}

static pg_status parse_arrays(const json_t *obj, const pg_jctx *ctx, pg_tensor_map_spec *out,
                              pg_diag *d)
{
    json_t *arr;
    pg_jctx ac;
    pg_status st = get_rank_array(obj, ctx, "box", true, &arr, &ac, d);
    for (size_t i = 0; st == PG_OK && i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        st = pg_expr_from_json_value(json_array_get(arr, i), &c, out->box[i], sizeof out->box[i],
                                     d);
        out->n_box = (int)i + 1;
    }
    if (st == PG_OK)
        st = get_rank_array(obj, ctx, "element_strides", false, &arr, &ac, d);
    for (size_t i = 0; st == PG_OK && arr && i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected an integer element stride (1 to %d), found %s",
                               PG_TMAP_MAX_ELEMENT_STRIDE, pg_json_type_name(v));
        out->element_strides[i] = (int64_t)json_integer_value(v);
        out->n_element_strides = (int)i + 1;
    }
    if (st == PG_OK)
        st = get_rank_array(obj, ctx, "dims", false, &arr, &ac, d);
    for (size_t i = 0; st == PG_OK && arr && i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v) || !pg_is_identifier(json_string_value(v)) ||
            strlen(json_string_value(v)) >= sizeof out->dims[i])
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected the name of one of the tensor's dimension symbols, "
                               "found %s", json_is_string(v) ? "an invalid name"
                                                             : pg_json_type_name(v));
        snprintf(out->dims[i], sizeof out->dims[i], "%s", json_string_value(v));
        out->n_dims = (int)i + 1;
    }
    if (st == PG_OK)
        st = get_rank_array(obj, ctx, "global_dims", false, &arr, &ac, d);
    for (size_t i = 0; st == PG_OK && arr && i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        st = pg_expr_from_json_value(json_array_get(arr, i), &c, out->global_dims[i],
                                     sizeof out->global_dims[i], d);
        out->n_global_dims = (int)i + 1;
    }
    arr = NULL;
    if (st == PG_OK)
        st = pg_jget_array(obj, ctx, "global_strides_bytes", false, &arr, d);
    if (st == PG_OK && arr) {
        ac = pg_jctx_member(ctx, "global_strides_bytes");
        if (json_array_size(arr) > PG_TMAP_MAX_RANK - 1)
            return pg_diag_set(d, PG_ERR_INPUT, ac.file, 0, ac.path,
                               "expected at most %d byte strides (those of dimensions 1 and up, "
                               "innermost first; dimension 0's is the element size), found %zu",
                               PG_TMAP_MAX_RANK - 1, json_array_size(arr));
        for (size_t i = 0; st == PG_OK && i < json_array_size(arr); i++) {
            pg_jctx c = pg_jctx_index(&ac, i);
            st = pg_expr_from_json_value(json_array_get(arr, i), &c, out->global_strides[i],
                                         sizeof out->global_strides[i], d);
            out->n_global_strides = (int)i + 1;
        }
        if (st == PG_OK && !json_object_get(obj, "global_dims"))
            return pg_diag_set(d, PG_ERR_INPUT, ac.file, 0, ac.path,
                               "global_strides_bytes needs global_dims (a view gives both)");
    }
    return st;
}

pg_status pg_tensor_map_spec_from_json(const json_t *obj, const pg_jctx *ctx,
                                       pg_tensor_map_spec *out, pg_diag *d)
{
    static const char *const keys[] = {"tensor",     "box",          "element_strides",
                                       "dims",       "global_dims",  "global_strides_bytes",
                                       "interleave", "swizzle",      "l2_promotion",
                                       "oob_fill",   NULL};
    memset(out, 0, sizeof *out);
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a tensor map object {\"tensor\": name, \"box\": [...], ...}, "
                           "found %s", pg_json_type_name(obj));
    int iv = 0, sv = 0, lv = 0, ov = 0;
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, ctx, "tensor", true, true, out->tensor, sizeof out->tensor,
                                 d);
    if (st == PG_OK)
        st = parse_arrays(obj, ctx, out, d);
    if (st == PG_OK)
        st = parse_enum(obj, ctx, "interleave", pg_tmap_interleave_parse,
                        pg_tmap_interleave_accepted(), &iv, d);
    if (st == PG_OK)
        st = parse_enum(obj, ctx, "swizzle", pg_tmap_swizzle_parse, pg_tmap_swizzle_accepted(),
                        &sv, d);
    if (st == PG_OK)
        st = parse_enum(obj, ctx, "l2_promotion", pg_tmap_l2_parse, pg_tmap_l2_accepted(), &lv,
                        d);
    if (st == PG_OK)
        st = parse_enum(obj, ctx, "oob_fill", pg_tmap_oob_parse, pg_tmap_oob_accepted(), &ov, d);
    out->interleave = (pg_tmap_interleave)iv;
    out->swizzle = (pg_tmap_swizzle)sv;
    out->l2_promotion = (pg_tmap_l2)lv;
    out->oob_fill = (pg_tmap_oob)ov;
    return st;
}

/* ---- the task cross-check ------------------------------------------------------------------ */

/* TMA dimension order of s for tensor ts: order[i] = the tensor dim index of TMA dim i.
 * Returns -1 when fine, else the index in s->dims that matches no unused tensor dim. */
static int dim_order(const pg_tensor_map_spec *s, const pg_tensor_spec *ts, int order[])
{
    bool used[PG_MAX_DIMS] = {false};
    if (s->n_dims == 0) {
        for (int i = 0; i < ts->ndims; i++)
            order[i] = ts->ndims - 1 - i;
        return -1;
    }
    for (int i = 0; i < s->n_dims; i++) {
        order[i] = -1;
        /* Innermost first, so a repeated symbol matches its innermost unused occurrence. */
        for (int k = ts->ndims - 1; k >= 0 && order[i] < 0; k--)
            if (!used[k] && strcmp(ts->dims[k], s->dims[i]) == 0) {
                used[k] = true;
                order[i] = k;
            }
        if (order[i] < 0)
            return i;
    }
    return -1;
}

/* ts's dims in storage order, "[K, M]"; for a tensor declared col_major also how it was
 * written, "[K, M] (stored order; declared col_major [M, K])", since tensor maps list storage
 * order. */
static void dims_list(const pg_tensor_spec *ts, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ts->ndims && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", ts->dims[i]);
    if (used < n)
        used += (size_t)snprintf(buf + used, n - used, "]");
    if (!ts->col_major_declared || ts->ndims < 2 || used >= n)
        return;
    used += (size_t)snprintf(buf + used, n - used, " (stored order; declared col_major [");
    for (int i = 0; i < ts->ndims && used < n; i++) {
        int k = i < ts->ndims - 2 ? i : i == ts->ndims - 2 ? ts->ndims - 1 : ts->ndims - 2;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", ts->dims[k]);
    }
    if (used < n)
        snprintf(buf + used, n - used, "])");
}

/* An expression array of the map (key at field) uses task symbols only. */
static pg_status check_exprs(const char (*texts)[128], int n, const char *key,
                             const char *const *names, const pg_task *t, const char *file,
                             const char *field, pg_diag *d)
{
    char f[320], err[1024];
    for (int i = 0; i < n; i++)
        if (pg_expr_check(texts[i], names, (size_t)t->n_symbols, err, sizeof err) != PG_OK) {
            snprintf(f, sizeof f, "%s.tensor_map.%s[%d]", field, key, i);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "%s", err);
        }
    return PG_OK;
}

/* The task cross-check of a view: its rank is that of global_dims, whatever the tensor's. */
static pg_status check_view(const pg_tensor_map_spec *s, const pg_task *t,
                            const char *const *names, const char *file, const char *field,
                            pg_diag *d)
{
    char f[320];
    int rank = s->n_global_dims;
    if (s->n_dims) {
        snprintf(f, sizeof f, "%s.tensor_map.dims", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "dims reorders the tensor's own dims; a view gives global_dims and "
                           "global_strides_bytes instead: use one or the other");
    }
    if (s->n_global_strides != rank - 1) {
        snprintf(f, sizeof f, "%s.tensor_map.global_strides_bytes", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "expected %d byte strides for the %d global_dims (those of "
                           "dimensions 1 to %d, innermost first; dimension 0's is the element "
                           "size), found %d", rank - 1, rank, rank - 1, s->n_global_strides);
    }
    if (s->n_box != rank) {
        snprintf(f, sizeof f, "%s.tensor_map.box", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "expected %d box dimensions (one per entry of global_dims), found %d",
                           rank, s->n_box);
    }
    if (s->n_element_strides && s->n_element_strides != rank) {
        snprintf(f, sizeof f, "%s.tensor_map.element_strides", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "expected %d element strides (one per entry of global_dims), found %d",
                           rank, s->n_element_strides);
    }
    pg_status st = check_exprs(s->global_dims, rank, "global_dims", names, t, file, field, d);
    if (st == PG_OK)
        st = check_exprs(s->global_strides, rank - 1, "global_strides_bytes", names, t, file,
                         field, d);
    if (st == PG_OK)
        st = check_exprs(s->box, rank, "box", names, t, file, field, d);
    return st;
}

pg_status pg_tensor_map_spec_check(const pg_tensor_map_spec *s, const pg_task *t,
                                   const char *file, const char *field, pg_diag *d)
{
    char f[320], dims[512], err[1024];
    int ti = pg_task_find_tensor(t, s->tensor);
    snprintf(f, sizeof f, "%s.tensor_map.tensor", field);
    if (ti < 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "unknown tensor '%s' in task '%s'",
                           s->tensor, t->id);
    const pg_tensor_spec *ts = &t->tensors[ti];
    const char *names[PG_MAX_SYMBOLS];
    for (int i = 0; i < t->n_symbols; i++)
        names[i] = t->symbols[i];
    if (s->n_global_dims)
        return check_view(s, t, names, file, field, d);
    int rank = ts->ndims;
    dims_list(ts, dims, sizeof dims);
    if (rank < 1 || rank > PG_TMAP_MAX_RANK)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "tensor '%s' has %d dims %s; a tensor map has rank 1 to %d",
                           s->tensor, rank, dims, PG_TMAP_MAX_RANK);
    if (s->n_box != rank) {
        snprintf(f, sizeof f, "%s.tensor_map.box", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "expected %d box dimensions (tensor '%s' has dims %s; innermost "
                           "first), found %d", rank, s->tensor, dims, s->n_box);
    }
    if (s->n_element_strides && s->n_element_strides != rank) {
        snprintf(f, sizeof f, "%s.tensor_map.element_strides", field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "expected %d element strides (one per dimension of tensor '%s'), "
                           "found %d", rank, s->tensor, s->n_element_strides);
    }
    if (s->n_dims) {
        int order[PG_MAX_DIMS];
        snprintf(f, sizeof f, "%s.tensor_map.dims", field);
        if (s->n_dims != rank)
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                               "expected all %d dims of tensor '%s' (%s) innermost first, "
                               "found %d", rank, s->tensor, dims, s->n_dims);
        int bad = dim_order(s, ts, order);
        if (bad >= 0) {
            snprintf(f, sizeof f, "%s.tensor_map.dims[%d]", field, bad);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                               "'%s' is not a dim of tensor '%s' (%s) left unused by the "
                               "entries before it", s->dims[bad], s->tensor, dims);
        }
        if (order[0] != rank - 1) {
            snprintf(f, sizeof f, "%s.tensor_map.dims[0]", field);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                               "tensor map dimension 0 must be the contiguous one: tensor '%s' "
                               "is stored over %s, so dims[0] must be '%s', found '%s'",
                               s->tensor, dims, ts->dims[rank - 1], s->dims[0]);
        }
    }
    for (int i = 0; i < s->n_box; i++)
        if (pg_expr_check(s->box[i], names, (size_t)t->n_symbols, err, sizeof err) != PG_OK) {
            snprintf(f, sizeof f, "%s.tensor_map.box[%d]", field, i);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "%s", err);
        }
    return PG_OK;
}

/* ---- the map for one workload -------------------------------------------------------------- */

/* Evaluate view expression text (key[i]) into lo..hi. */
static pg_status eval_view(const char *text, const char *key, int i, int64_t lo, int64_t hi,
                           const pg_workload *w, const pg_symtab *syms, const char *file,
                           const pg_tensor_map_desc *out, int64_t *v, pg_diag *d)
{
    char f[320], err[1024];
    snprintf(f, sizeof f, "%s.%s[%d]", out->field, key, i);
    if (pg_expr_eval(text, syms, v, err, sizeof err) != PG_OK)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "workload '%s': %s", w->name, err);
    if (*v < lo || *v > hi)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                           "workload '%s': '%s' = %" PRId64 " is out of range (%" PRId64
                           "..%" PRId64 ")", w->name, text, *v, lo, hi);
    return PG_OK;
}

/* The view's last byte at a corner (coordinate i at 0 or global_dim[i] - 1, by bit i of
 * corner) exceeds `bytes`? *end: one past that byte (saturated at UINT64_MAX). */
static bool corner_outside(const pg_tensor_map_desc *m, unsigned corner, uint64_t bytes,
                           uint64_t esize, uint64_t *end)
{
    uint64_t off = esize;
    bool ovf = false;
    for (int i = 0; i < m->rank; i++) {
        if (!(corner & (1u << i)))
            continue;
        uint64_t stride = i == 0 ? esize : m->global_stride[i - 1], part;
        ovf |= __builtin_mul_overflow(m->global_dim[i] - 1, stride, &part);
        ovf |= __builtin_add_overflow(off, part, &off);
    }
    *end = ovf ? UINT64_MAX : off;
    return ovf || off > bytes;
}

/* A view over tensor out->tensor_index: dims, strides and box from the manifest's expressions,
 * validated, then proven inside the tensor's buffer. */
static pg_status build_view(const pg_tensor_map_spec *s, const pg_task *t, const pg_workload *w,
                            const pg_symtab *syms, const char *file, pg_tensor_map_desc *out,
                            pg_diag *d)
{
    char f[320], err[1024];
    int rank = s->n_global_dims;
    uint64_t esize = pg_dtype_size(out->dtype), elements = 0;
    out->view = true;
    out->rank = rank;
    if (s->n_box != rank || s->n_global_strides != rank - 1)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, out->field,
                           "workload '%s': the view does not match its box (the manifest was "
                           "not checked against the task)", w->name);
    for (int i = 0; i < rank; i++) {
        int64_t v;
        /* Ranges a little wider than the driver's, so that pg_tensor_map_validate names the
         * driver's rule for values just outside it. */
        pg_status st = eval_view(s->global_dims[i], "global_dims", i, 1, INT64_MAX, w, syms,
                                 file, out, &v, d);
        if (st != PG_OK)
            return st;
        out->global_dim[i] = (uint64_t)v;
        snprintf(out->dim_names[i], sizeof out->dim_names[i], "%s", s->global_dims[i]);
        if (i > 0) {
            st = eval_view(s->global_strides[i - 1], "global_strides_bytes", i - 1, 1, INT64_MAX,
                           w, syms, file, out, &v, d);
            if (st != PG_OK)
                return st;
            out->global_stride[i - 1] = (uint64_t)v;
        }
        out->element_stride[i] = s->n_element_strides ? s->element_strides[i] : 1;
        if (pg_expr_eval(s->box[i], syms, &out->box_dim[i], err, sizeof err) != PG_OK) {
            snprintf(f, sizeof f, "%s.box[%d]", out->field, i);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "workload '%s': %s", w->name, err);
        }
    }
    pg_status st = pg_tensor_map_validate(out, file, w->name, d);
    if (st != PG_OK)
        return st;
    if (pg_task_tensor_elements(t, out->tensor_index, w, &elements, d) != PG_OK)
        return PG_ERR_INPUT;
    uint64_t bytes = elements * esize; /* below 2^63: the tensor's strides were checked */
    /* Corners in order of how many coordinates sit at their far end, fewest first, so that the
     * corner named is the smallest one that leaves the buffer. */
    for (int far = 1; far <= rank; far++)
        for (unsigned corner = 0; corner < (1u << rank); corner++) {
            uint64_t end;
            if (__builtin_popcount(corner) != far || !corner_outside(out, corner, bytes, esize,
                                                                     &end))
                continue;
            char at[256];
            size_t used = 0;
            for (int i = 0; i < rank && used < sizeof at; i++)
                used += (size_t)snprintf(at + used, sizeof at - used, "%s%" PRIu64, i ? ", " : "",
                                         corner & (1u << i) ? out->global_dim[i] - 1 : 0);
            snprintf(f, sizeof f, "%s.global_dims", out->field);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                               "workload '%s': the view reaches outside tensor '%s': its element "
                               "at [%s] (innermost first) ends at byte %s%" PRIu64
                               " but the tensor holds %" PRIu64 " bytes (%" PRIu64
                               " elements of %" PRIu64 ")",
                               w->name, out->tensor, at, end == UINT64_MAX ? "above " : "",
                               end, bytes, elements, esize);
        }
    return PG_OK;
}

pg_status pg_tensor_map_spec_build(const pg_tensor_map_spec *s, const pg_task *t,
                                   const pg_workload *w, const pg_symtab *syms, const char *file,
                                   const char *field, pg_tensor_map_desc *out, pg_diag *d)
{
    char f[320], err[1024];
    int order[PG_MAX_DIMS];
    memset(out, 0, sizeof *out);
    snprintf(out->field, sizeof out->field, "%s.tensor_map", field);
    out->tensor_index = pg_task_find_tensor(t, s->tensor);
    if (out->tensor_index < 0) {
        snprintf(f, sizeof f, "%s.tensor", out->field);
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "workload '%s': unknown tensor '%s'",
                           w->name, s->tensor);
    }
    const pg_tensor_spec *ts = &t->tensors[out->tensor_index];
    int rank = ts->ndims;
    snprintf(out->tensor, sizeof out->tensor, "%s", ts->name);
    out->dtype = ts->dtype;
    out->rank = rank;
    out->interleave = s->interleave;
    out->swizzle = s->swizzle;
    out->l2_promotion = s->l2_promotion;
    out->oob_fill = s->oob_fill;
    if (s->n_global_dims)
        return build_view(s, t, w, syms, file, out, d);
    if (rank < 1 || rank > PG_TMAP_MAX_RANK)
        return pg_tensor_map_validate(out, file, w->name, d); /* fails on the rank rule */
    if (s->n_box != rank || dim_order(s, ts, order) >= 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, out->field,
                           "workload '%s': the tensor map does not match tensor '%s' (the "
                           "manifest was not checked against the task)", w->name, s->tensor);
    /* Row-major byte strides of the tensor's own dims, innermost outwards. */
    uint64_t stride[PG_MAX_DIMS], size = pg_dtype_size(ts->dtype);
    for (int k = rank - 1; k >= 0; k--) {
        int si = pg_task_find_symbol(t, ts->dims[k]);
        uint64_t v = si >= 0 ? (uint64_t)w->values[si] : 0;
        stride[k] = size;
        if (v && size > UINT64_MAX / 2 / v) {
            snprintf(f, sizeof f, "%s.tensor", out->field);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f,
                               "workload '%s': tensor '%s' is too large for a tensor map (its "
                               "byte strides overflow 63 bits)", w->name, ts->name);
        }
        size *= v;
    }
    for (int i = 0; i < rank; i++) {
        int k = order[i], si = pg_task_find_symbol(t, ts->dims[k]);
        out->global_dim[i] = si >= 0 ? (uint64_t)w->values[si] : 0;
        snprintf(out->dim_names[i], sizeof out->dim_names[i], "%s", ts->dims[k]);
        if (i > 0)
            out->global_stride[i - 1] = stride[k];
        out->element_stride[i] = s->n_element_strides ? s->element_strides[i] : 1;
        if (pg_expr_eval(s->box[i], syms, &out->box_dim[i], err, sizeof err) != PG_OK) {
            snprintf(f, sizeof f, "%s.box[%d]", out->field, i);
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, f, "workload '%s': %s", w->name, err);
        }
    }
    return pg_tensor_map_validate(out, file, w->name, d);
}
