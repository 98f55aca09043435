/* Submission manifests: parsing, validation and the cross-check with the task (see manifest.h). */
#include "manifest.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/fileio.h"
#include "../base/jsonget.h"
#include "device_symbols.h"
#include "expr.h"

static const char *const k_type_names[] = {"u32", "s32", "u64", "s64",  "f32",
                                           "f64", "ptr", "tensor_map", "bytes"};
static const unsigned k_type_sizes[] = {4, 4, 8, 8, 4, 8, 8, 128, 0};

unsigned pg_param_type_size(pg_param_type t)
{
    return (unsigned)t < sizeof k_type_sizes / sizeof k_type_sizes[0] ? k_type_sizes[t] : 0;
}

unsigned pg_param_binding_size(const pg_param_binding *b)
{
    return b->type == PG_PTYPE_BYTES ? b->bytes : pg_param_type_size(b->type);
}

const char *pg_param_type_name(pg_param_type t)
{
    return (unsigned)t < sizeof k_type_names / sizeof k_type_names[0] ? k_type_names[t] : "invalid";
}

/* PTX identifier: [A-Za-z_$%][A-Za-z0-9_$]* (a '%' or '_' start needs a following char). */
static bool is_ptx_identifier(const char *s)
{
    bool first_special = *s == '_' || *s == '$' || *s == '%';
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || first_special))
        return false;
    if (first_special && !s[1])
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '$'))
            return false;
    return true;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- sections ------------------------------------------------------------------------------ */

static pg_status parse_source(pg_manifest *m, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    struct stat sb;
    pg_status st = pg_jget_string_copy(root, ctx, "source", true, true, m->source_field_value,
                              sizeof m->source_field_value, d);
    if (st != PG_OK)
        return st;
    const char *src = m->source_field_value;
    if (!ends_with(src, ".ptx") && !ends_with(src, ".cu"))
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "source",
                           "expected a kernel source ending in .ptx or .cu, found '%s'", src);
    pg_path_join(m->source, sizeof m->source, m->dir, src);
    if (stat(m->source, &sb) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "source",
                           "source file '%s' cannot be found (looked for '%s': %s)", src,
                           m->source, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "source",
                           "source '%s' ('%s') is not a regular file", src, m->source);
    return PG_OK;
}

/* "compile": nvcc's part only for a .cu (a .ptx is never compiled by nvcc). */
static pg_status parse_compile(pg_manifest *m, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *obj = json_object_get(root, "compile");
    if (!obj)
        return PG_OK;
    pg_jctx c = pg_jctx_member(ctx, "compile");
    pg_status st = pg_compile_options_from_json(obj, &c, &m->compile, d);
    if (st != PG_OK || ends_with(m->source, ".cu"))
        return st;
    const char *key = m->compile.std[0]          ? "std"
                      : m->compile.n_flags        ? "flags"
                      : m->compile.n_include_dirs ? "include_dirs"
                                                  : NULL;
    if (key) {
        char f[300];
        return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, key, f, sizeof f),
                           "'%s' is PTX, which nvcc never compiles: only ptxas_flags apply to it",
                           m->source_field_value);
    }
    return PG_OK;
}

static pg_status parse_workspaces(pg_manifest *m, const json_t *root, const pg_jctx *ctx,
                                  pg_diag *d)
{
    static const char *const keys[] = {"bytes", "init", NULL};
    json_t *obj = NULL;
    pg_status st = pg_jget_object(root, ctx, "workspaces", false, &obj, d);
    if (st != PG_OK || !obj)
        return st;
    pg_jctx oc = pg_jctx_member(ctx, "workspaces");
    if (json_object_size(obj) > PG_MAX_WORKSPACES)
        return pg_diag_set(d, PG_ERR_INPUT, oc.file, 0, oc.path,
                           "expected at most %d workspaces, found %zu", PG_MAX_WORKSPACES,
                           json_object_size(obj));
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        pg_jctx c = pg_jctx_member(&oc, key);
        pg_workspace_spec *ws = &m->ws[m->n_ws];
        const char *init = "zero";
        if (!pg_is_identifier(key) || strlen(key) >= sizeof ws->name)
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a workspace name ([A-Za-z_][A-Za-z0-9_]*, at most %zu "
                               "characters)", sizeof ws->name - 1);
        if (!json_is_object(v))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a workspace object {\"bytes\": expr, \"init\": "
                               "\"zero\"|\"poison\"}, found %s", pg_json_type_name(v));
        snprintf(ws->name, sizeof ws->name, "%s", key);
        st = pg_jcheck_keys(v, &c, keys, d);
        if (st == PG_OK)
            st = pg_expr_from_json(v, &c, "bytes", true, ws->bytes, sizeof ws->bytes, d);
        if (st == PG_OK)
            st = pg_jget_string(v, &c, "init", false, &init, d);
        if (st != PG_OK)
            return st;
        if (strcmp(init, "zero") != 0 && strcmp(init, "poison") != 0) {
            char f[300];
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, pg_jctx_field(&c, "init", f, sizeof f),
                               "unknown init '%s'; accepted: zero, poison", init);
        }
        ws->poison = strcmp(init, "poison") == 0;
        m->n_ws++;
    }
    return PG_OK;
}

static int find_workspace(const pg_manifest *m, const char *name)
{
    for (int i = 0; i < m->n_ws; i++)
        if (strcmp(m->ws[i].name, name) == 0)
            return i;
    return -1;
}

/* Type of a value/scalar param from its "type" key. */
static pg_status parse_param_type(const json_t *obj, const pg_jctx *ctx, pg_param_binding *p,
                                  pg_diag *d)
{
    bool scalar = p->kind == PG_PARAM_SCALAR;
    const char *accepted = scalar ? "f32, f64" : "u32, s32, u64, s64";
    const char *s = NULL;
    char f[300];
    pg_jctx_field(ctx, "type", f, sizeof f);
    if (!json_object_get(obj, "type"))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, f,
                           "required field is missing: a %s parameter needs a type (%s)",
                           scalar ? "scalar" : "value", accepted);
    pg_status st = pg_jget_string(obj, ctx, "type", true, &s, d);
    if (st != PG_OK)
        return st;
    int first = scalar ? PG_PTYPE_F32 : PG_PTYPE_U32, last = scalar ? PG_PTYPE_F64 : PG_PTYPE_S64;
    for (int t = first; t <= last; t++)
        if (strcmp(s, k_type_names[t]) == 0) {
            p->type = (pg_param_type)t;
            return PG_OK;
        }
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, f,
                       "unknown type '%s' for a %s parameter; accepted: %s", s,
                       scalar ? "scalar" : "value", accepted);
}

static pg_status parse_param(const pg_manifest *m, pg_param_binding *p, const json_t *obj,
                             const pg_jctx *ctx, bool in_struct, pg_diag *d);

/* A byte count or offset of a struct: a JSON integer in lo..hi. */
static pg_status get_struct_int(const json_t *obj, const pg_jctx *ctx, const char *key,
                                int64_t lo, int64_t hi, uint32_t *out, pg_diag *d)
{
    int64_t v = 0;
    char f[300];
    pg_status st = pg_jget_int(obj, ctx, key, true, &v, d);
    if (st != PG_OK)
        return st;
    if (v < lo || v > hi)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected an integer from %lld to %lld, found %lld", (long long)lo,
                           (long long)hi, (long long)v);
    *out = (uint32_t)v;
    return PG_OK;
}

/* Where a field must start: its size for integers, floats and addresses (a C compiler's natural
 * alignment), 64 for a tensor map, 1 for zero padding. */
static uint32_t field_align(const pg_param_binding *f)
{
    if (f->kind == PG_PARAM_TENSOR_MAP)
        return PG_TMAP_FIELD_ALIGN;
    if (f->kind == PG_PARAM_ZERO)
        return 1;
    return pg_param_type_size(f->type);
}

/* {"size", "align", "fields"} of a struct param (ctx at ".../struct"). */
static pg_status parse_struct(const pg_manifest *m, pg_param_binding *p, const json_t *obj,
                              const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"size", "align", "fields", NULL};
    char f[300];
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a struct object {\"size\": bytes, \"align\": bytes, "
                           "\"fields\": [...]}, found %s", pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = get_struct_int(obj, ctx, "size", 1, PG_MAX_STRUCT_BYTES, &p->bytes, d);
    if (st == PG_OK)
        st = get_struct_int(obj, ctx, "align", 1, 128, &p->align, d);
    if (st != PG_OK)
        return st;
    if (p->align & (p->align - 1))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "align", f, sizeof f),
                           "expected a power of two (1, 2, 4, ... 128), found %u", p->align);
    if (p->bytes % p->align)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "size", f, sizeof f),
                           "%u bytes is not a multiple of the struct's align %u (a C struct's "
                           "size always is: sizeof includes the tail padding)",
                           p->bytes, p->align);
    json_t *arr;
    st = pg_jget_array(obj, ctx, "fields", true, &arr, d);
    if (st != PG_OK)
        return st;
    pg_jctx fc = pg_jctx_member(ctx, "fields");
    size_t n = json_array_size(arr);
    if (n < 1 || n > PG_MAX_STRUCT_FIELDS)
        return pg_diag_set(d, PG_ERR_INPUT, fc.file, 0, fc.path,
                           "expected 1 to %d fields, found %zu", PG_MAX_STRUCT_FIELDS, n);
    p->fields = calloc(n, sizeof *p->fields);
    if (!p->fields)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        pg_jctx c = pg_jctx_index(&fc, i);
        pg_param_binding *q = &p->fields[i];
        p->n_fields = (int)i + 1; /* counted first so that the free path sees it */
        st = parse_param(m, q, json_array_get(arr, i), &c, true, d);
        if (st != PG_OK)
            return st;
        uint32_t size = pg_param_binding_size(q), align = field_align(q);
        pg_jctx_field(&c, "offset", f, sizeof f);
        if ((uint64_t)q->offset + size > p->bytes)
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, f,
                               "the field's %u bytes at offset %u run past the end of the "
                               "%u-byte struct", size, q->offset, p->bytes);
        if (q->offset % align)
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, f,
                               "offset %u is not a multiple of %u: %s must be %u-byte aligned%s",
                               q->offset, align,
                               q->kind == PG_PARAM_TENSOR_MAP ? "a tensor map"
                                                              : pg_param_type_name(q->type),
                               align,
                               q->kind == PG_PARAM_TENSOR_MAP
                                   ? " (CUtensorMap is declared alignas(64))"
                                   : " (its natural alignment, as a C compiler places it)");
        if (q->kind == PG_PARAM_TENSOR_MAP && p->align < PG_TMAP_FIELD_ALIGN)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                               pg_jctx_field(ctx, "align", f, sizeof f),
                               "the struct holds a tensor map (%s) and so must be at least "
                               "64-byte aligned, found %u", c.path, p->align);
        for (size_t j = 0; j < i; j++) {
            const pg_param_binding *o = &p->fields[j];
            uint32_t osize = pg_param_binding_size(o);
            if (q->offset < o->offset + osize && o->offset < q->offset + size)
                return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, f,
                                   "bytes %u..%u overlap %s (bytes %u..%u)", q->offset,
                                   q->offset + size - 1, o->field, o->offset,
                                   o->offset + osize - 1);
        }
    }
    return PG_OK;
}

static pg_status parse_param(const pg_manifest *m, pg_param_binding *p, const json_t *obj,
                             const pg_jctx *ctx, bool in_struct, pg_diag *d)
{
    static const char *const all_keys[] = {"tensor", "value", "scalar", "workspace",
                                           "tensor_map", "struct", "zero", "device_struct",
                                           "name", "type", "offset", NULL};
    /* kinds[] follows pg_param_kind's order */
    static const char *const kinds[] = {"tensor",     "value",  "scalar", "workspace",
                                        "tensor_map", "struct", "zero",   "device_struct"};
    static const char *const ref_keys[] = {"tensor", "workspace", "name", "offset", NULL};
    const char *one_of = in_struct ? "tensor, value, scalar, workspace, tensor_map, zero"
                                   : "tensor, value, scalar, workspace, tensor_map, struct, "
                                     "device_struct";
    char f[300];
    snprintf(p->field, sizeof p->field, "%s", ctx->path);
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a %s object, found %s", in_struct ? "field" : "parameter",
                           pg_json_type_name(obj));
    /* Layouts belong to the task: a kernel gets the task's tensors dense in their storage
     * order (row-major over pg_tensor_spec.dims). */
    static const char *const layout_keys[] = {"layout", "strides", "stride", "transpose"};
    for (size_t k = 0; k < sizeof layout_keys / sizeof layout_keys[0]; k++)
        if (json_object_get(obj, layout_keys[k]))
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                               pg_jctx_field(ctx, layout_keys[k], f, sizeof f),
                               "a manifest cannot choose a tensor's layout: every tensor is "
                               "passed dense in the storage order the task declares (row-major "
                               "over its dims, the last dim contiguous, e.g. BHSD with D "
                               "contiguous; a gemm task's col_major tensor has its last two "
                               "dims swapped); remove '%s'",
                               layout_keys[k]);
    pg_status st = pg_jcheck_keys(obj, ctx, all_keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, ctx, "name", false, true, p->name, sizeof p->name, d);
    if (st != PG_OK)
        return st;
    if (in_struct) {
        st = get_struct_int(obj, ctx, "offset", 0, PG_MAX_STRUCT_BYTES - 1, &p->offset, d);
        if (st != PG_OK)
            return st;
    } else if (json_object_get(obj, "offset")) {
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "offset", f, sizeof f),
                           "only a field of a struct parameter has an offset");
    }
    int found = -1;
    for (int k = 0; k < 8; k++) {
        if (!json_object_get(obj, kinds[k]))
            continue;
        if (found >= 0)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                               "has both '%s' and '%s'; expected exactly one of %s", kinds[found],
                               kinds[k], one_of);
        found = k;
    }
    if (found < 0)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path, "expected exactly one of %s",
                           one_of);
    p->kind = (pg_param_kind)found;
    if (p->kind == PG_PARAM_DEVICE_STRUCT && in_struct)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                           pg_jctx_field(ctx, "device_struct", f, sizeof f),
                           "a struct field cannot be a device_struct: pass the device struct as "
                           "a parameter of its own");
    if (p->kind == PG_PARAM_STRUCT && in_struct)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "struct", f, sizeof f),
                           "a struct field cannot be a struct: give the inner struct's fields "
                           "offsets in the outer one (offsetof(Outer, inner) + offsetof(Inner, "
                           "field))");
    if (p->kind == PG_PARAM_ZERO && !in_struct)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "zero", f, sizeof f),
                           "\"zero\" is padding inside a struct parameter, not a parameter of "
                           "its own");
    if ((p->kind == PG_PARAM_STRUCT || p->kind == PG_PARAM_ZERO ||
         p->kind == PG_PARAM_DEVICE_STRUCT ||
         p->kind == PG_PARAM_TENSOR_MAP) && json_object_get(obj, "type"))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "type", f, sizeof f),
                           "a %s %s takes no type (%s)", kinds[found],
                           in_struct ? "field" : "parameter",
                           p->kind == PG_PARAM_TENSOR_MAP ? "it is always a 128-byte tensor map"
                           : p->kind == PG_PARAM_ZERO     ? "it is raw zero bytes"
                           : p->kind == PG_PARAM_STRUCT   ? "its size is the struct's"
                                                          : "it is always an 8-byte address");
    switch (p->kind) {
    case PG_PARAM_TENSOR_MAP: {
        static const char *const tmap_keys[] = {"tensor_map", "name", "offset", NULL};
        p->type = PG_PTYPE_TMAP;
        st = pg_jcheck_keys(obj, ctx, tmap_keys, d);
        if (st != PG_OK)
            return st;
        pg_jctx tc = pg_jctx_member(ctx, "tensor_map");
        return pg_tensor_map_spec_from_json(json_object_get(obj, "tensor_map"), &tc, &p->tmap, d);
    }
    case PG_PARAM_STRUCT: {
        static const char *const struct_keys[] = {"struct", "name", NULL};
        p->type = PG_PTYPE_BYTES;
        st = pg_jcheck_keys(obj, ctx, struct_keys, d);
        if (st != PG_OK)
            return st;
        pg_jctx sc = pg_jctx_member(ctx, "struct");
        return parse_struct(m, p, json_object_get(obj, "struct"), &sc, d);
    }
    case PG_PARAM_DEVICE_STRUCT: {
        static const char *const dstruct_keys[] = {"device_struct", "name", NULL};
        st = pg_jcheck_keys(obj, ctx, dstruct_keys, d);
        if (st != PG_OK)
            return st;
        pg_jctx sc = pg_jctx_member(ctx, "device_struct");
        st = parse_struct(m, p, json_object_get(obj, "device_struct"), &sc, d);
        p->type = PG_PTYPE_PTR; /* the kernel gets the buffer's address */
        return st;
    }
    case PG_PARAM_ZERO: {
        static const char *const zero_keys[] = {"zero", "name", "offset", NULL};
        p->type = PG_PTYPE_BYTES;
        st = pg_jcheck_keys(obj, ctx, zero_keys, d);
        if (st == PG_OK)
            st = get_struct_int(obj, ctx, "zero", 1, PG_MAX_STRUCT_BYTES, &p->bytes, d);
        return st;
    }
    case PG_PARAM_TENSOR:
    case PG_PARAM_WORKSPACE: {
        const char *key = kinds[found];
        p->type = PG_PTYPE_PTR;
        if (json_object_get(obj, "type"))
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                               pg_jctx_field(ctx, "type", f, sizeof f),
                               "a %s parameter takes no type (it is always an 8-byte address)",
                               key);
        st = pg_jcheck_keys(obj, ctx, ref_keys, d);
        if (st == PG_OK)
            st = pg_jget_string_copy(obj, ctx, key, true, true, p->ref, sizeof p->ref, d);
        if (st != PG_OK)
            return st;
        if (p->kind == PG_PARAM_WORKSPACE && find_workspace(m, p->ref) < 0)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                               "unknown workspace '%s'; declare it under \"workspaces\"%s",
                               p->ref, m->n_ws ? "" : " (none is declared)");
        return PG_OK;
    }
    case PG_PARAM_VALUE:
        st = parse_param_type(obj, ctx, p, d);
        if (st == PG_OK)
            st = pg_expr_from_json(obj, ctx, "value", true, p->expr, sizeof p->expr, d);
        return st;
    case PG_PARAM_SCALAR:
        st = parse_param_type(obj, ctx, p, d);
        if (st == PG_OK)
            st = pg_jget_number(obj, ctx, "scalar", true, &p->scalar, d);
        if (st != PG_OK)
            return st;
        if (!isfinite(p->scalar) || (p->type == PG_PTYPE_F32 && fabs(p->scalar) > FLT_MAX))
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                               pg_jctx_field(ctx, "scalar", f, sizeof f),
                               "%g does not fit %s", p->scalar, pg_param_type_name(p->type));
        return PG_OK;
    }
    return PG_OK;
}

/* "grid"/"block"/"cluster": an array of 3 expressions. */
static pg_status parse_dim3(const json_t *obj, const pg_jctx *ctx, const char *key,
                            char out[3][128], pg_diag *d)
{
    json_t *arr;
    pg_status st = pg_jget_array(obj, ctx, key, true, &arr, d);
    if (st != PG_OK)
        return st;
    pg_jctx ac = pg_jctx_member(ctx, key);
    if (json_array_size(arr) != 3)
        return pg_diag_set(d, PG_ERR_INPUT, ac.file, 0, ac.path,
                           "expected 3 expressions [x, y, z], found %zu elements",
                           json_array_size(arr));
    for (size_t i = 0; i < 3; i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        st = pg_expr_from_json_value(json_array_get(arr, i), &c, out[i], 128, d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

static pg_status parse_launch(const pg_manifest *m, const char *key, int li, pg_launch_spec *l,
                              const json_t *obj, const pg_jctx *ctx, pg_diag *d)
{
    static const char *const keys[] = {"entry", "grid", "block", "dynamic_shared_bytes",
                                       "cluster", "params", NULL};
    char f[300];
    snprintf(l->field, sizeof l->field, "%s[%d]", key, li);
    snprintf(l->dynamic_shared_bytes, sizeof l->dynamic_shared_bytes, "0");
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a launch object, found %s", pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(obj, ctx, "entry", true, true, l->entry, sizeof l->entry, d);
    if (st != PG_OK)
        return st;
    if (!is_ptx_identifier(l->entry))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "entry", f, sizeof f),
                           "expected a PTX entry name ([A-Za-z_$%%][A-Za-z0-9_$]*), found '%s'",
                           l->entry);
    st = parse_dim3(obj, ctx, "grid", l->grid, d);
    if (st == PG_OK)
        st = parse_dim3(obj, ctx, "block", l->block, d);
    if (st == PG_OK && json_object_get(obj, "cluster")) {
        l->has_cluster = true;
        st = parse_dim3(obj, ctx, "cluster", l->cluster, d);
    }
    if (st == PG_OK)
        st = pg_expr_from_json(obj, ctx, "dynamic_shared_bytes", false, l->dynamic_shared_bytes,
                               sizeof l->dynamic_shared_bytes, d);
    json_t *params;
    if (st == PG_OK)
        st = pg_jget_array(obj, ctx, "params", true, &params, d);
    if (st != PG_OK)
        return st;
    pg_jctx pc = pg_jctx_member(ctx, "params");
    size_t np = json_array_size(params);
    if (np > PG_MAX_PARAMS)
        return pg_diag_set(d, PG_ERR_INPUT, pc.file, 0, pc.path,
                           "expected at most %d parameters, found %zu", PG_MAX_PARAMS, np);
    l->params = calloc(np ? np : 1, sizeof *l->params);
    if (!l->params)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < np; i++) {
        pg_jctx c = pg_jctx_index(&pc, i);
        l->n_params = (int)i + 1; /* counted first so that pg_manifest_free frees its fields */
        st = parse_param(m, &l->params[i], json_array_get(params, i), &c, false, d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

static pg_status parse_launches(pg_manifest *m, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    json_t *arr, *setup = NULL;
    pg_status st = pg_jget_array(root, ctx, "launches", true, &arr, d);
    if (st == PG_OK)
        st = pg_jget_array(root, ctx, "setup", false, &setup, d);
    if (st != PG_OK)
        return st;
    size_t n = json_array_size(arr), k = setup ? json_array_size(setup) : 0;
    if (n < 1 || n > PG_MAX_LAUNCHES)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "launches",
                           "expected 1 to %d launches, found %zu", PG_MAX_LAUNCHES, n);
    if (k > PG_MAX_LAUNCHES)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "setup",
                           "expected at most %d setup launches, found %zu", PG_MAX_LAUNCHES, k);
    m->launches = calloc(n + k, sizeof *m->launches);
    if (!m->launches)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_jctx ac = pg_jctx_member(ctx, "launches");
    for (size_t i = 0; i < n; i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        m->n_launches = (int)i + 1; /* count it now so that pg_manifest_free frees its params */
        st = parse_launch(m, "launches", (int)i, &m->launches[i], json_array_get(arr, i), &c, d);
        if (st != PG_OK)
            return st;
    }
    pg_jctx sc = pg_jctx_member(ctx, "setup");
    for (size_t i = 0; i < k; i++) {
        pg_jctx c = pg_jctx_index(&sc, i);
        m->n_setup = (int)i + 1;
        st = parse_launch(m, "setup", (int)i, &m->launches[n + i], json_array_get(setup, i), &c,
                          d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

static bool binding_names(const pg_param_binding *p, pg_param_kind kind, const char *name);

/* A setup binding (or a field of it) that names a task tensor: the setup launches see only
 * symbols, scalars and workspaces, so nothing they compute can depend on the inputs. */
static pg_status check_setup_binding(const pg_manifest *m, const pg_param_binding *p, pg_diag *d)
{
    if (p->kind == PG_PARAM_TENSOR || p->kind == PG_PARAM_TENSOR_MAP) {
        char f[300];
        snprintf(f, sizeof f, "%s.%s", p->field,
                 p->kind == PG_PARAM_TENSOR ? "tensor" : "tensor_map");
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, f,
                           "a setup launch cannot take task tensor '%s': setup launches see "
                           "only symbols, scalars and workspaces, so that nothing they compute "
                           "can depend on the inputs",
                           p->kind == PG_PARAM_TENSOR ? p->ref : p->tmap.tensor);
    }
    for (int i = 0; i < p->n_fields; i++) {
        pg_status st = check_setup_binding(m, &p->fields[i], d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

/* Setup launches name no task tensor; the workspaces they bind are marked setup. */
static pg_status check_setup(pg_manifest *m, pg_diag *d)
{
    for (int l = m->n_launches; l < m->n_launches + m->n_setup; l++)
        for (int p = 0; p < m->launches[l].n_params; p++) {
            pg_status st = check_setup_binding(m, &m->launches[l].params[p], d);
            if (st != PG_OK)
                return st;
        }
    for (int w = 0; w < m->n_ws; w++)
        for (int l = m->n_launches; l < m->n_launches + m->n_setup; l++)
            for (int p = 0; p < m->launches[l].n_params; p++)
                if (binding_names(&m->launches[l].params[p], PG_PARAM_WORKSPACE, m->ws[w].name))
                    m->ws[w].setup = true;
    return PG_OK;
}

static pg_status parse_header(pg_manifest *m, const json_t *root, const pg_jctx *ctx, pg_diag *d)
{
    int64_t version = 0;
    pg_status st = pg_jget_int(root, ctx, "schema_version", true, &version, d);
    if (st != PG_OK)
        return st;
    if (version != 1)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "schema_version",
                           "unsupported schema_version %lld; accepted: 1", (long long)version);
    st = pg_jget_string_copy(root, ctx, "task", true, true, m->task, sizeof m->task, d);
    if (st == PG_OK)
        st = pg_jget_string_copy(root, ctx, "arch", false, true, m->arch, sizeof m->arch, d);
    if (st != PG_OK)
        return st;
    if (m->arch[0] && !pg_arch_name_valid(m->arch))
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "arch",
                           "expected an architecture name like sm_90 or sm_90a, found '%s'",
                           m->arch);
    st = pg_jget_string_copy(root, ctx, "description", false, false, m->description,
                    sizeof m->description, d);
    return st;
}

/* p, or a field of struct p, is a `kind` binding of name (a TENSOR_MAP binding names its
 * tensor). */
static bool binding_names(const pg_param_binding *p, pg_param_kind kind, const char *name)
{
    if (p->kind == PG_PARAM_STRUCT || p->kind == PG_PARAM_DEVICE_STRUCT) {
        for (int i = 0; i < p->n_fields; i++)
            if (binding_names(&p->fields[i], kind, name))
                return true;
        return false;
    }
    if (p->kind != kind)
        return false;
    return strcmp(kind == PG_PARAM_TENSOR_MAP ? p->tmap.tensor : p->ref, name) == 0;
}

static bool manifest_binds(const pg_manifest *m, pg_param_kind kind, const char *name)
{
    for (int l = 0; l < m->n_launches + m->n_setup; l++)
        for (int p = 0; p < m->launches[l].n_params; p++)
            if (binding_names(&m->launches[l].params[p], kind, name))
                return true;
    return false;
}

/* Each device_struct is a device buffer per workload: a bounded number of them. */
static pg_status check_device_struct_count(const pg_manifest *m, pg_diag *d)
{
    int n = 0;
    for (int l = 0; l < m->n_launches + m->n_setup; l++)
        for (int p = 0; p < m->launches[l].n_params; p++)
            if (m->launches[l].params[p].kind == PG_PARAM_DEVICE_STRUCT &&
                ++n > PG_MAX_DEVICE_STRUCTS)
                return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, m->launches[l].params[p].field,
                                   "expected at most %d device_struct parameters in one "
                                   "manifest", PG_MAX_DEVICE_STRUCTS);
    return PG_OK;
}

/* Every declared workspace is passed to at least one launch: one that is not is a mistake (a
 * typo'd name, a launch forgotten), never silently allocated. */
static pg_status check_workspaces_used(const pg_manifest *m, pg_diag *d)
{
    for (int w = 0; w < m->n_ws; w++) {
        if (!manifest_binds(m, PG_PARAM_WORKSPACE, m->ws[w].name)) {
            char f[128];
            snprintf(f, sizeof f, "workspaces.%s", m->ws[w].name);
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, f,
                               "workspace '%s' is declared but no launch parameter uses it",
                               m->ws[w].name);
        }
    }
    return PG_OK;
}

/* ---- public -------------------------------------------------------------------------------- */

pg_status pg_manifest_load(const char *path, pg_manifest **out, pg_diag *d)
{
    static const char *const keys[] = {"schema_version", "task",       "source",
                                       "arch",           "description", "supports",
                                       "compile",        "workspaces",  "launches",
                                       "setup",          NULL};
    json_t *root = NULL;
    pg_manifest *m = NULL;
    pg_jctx ctx = {.file = path, .path = ""};
    *out = NULL;
    pg_status st;
    m = pg_json_load_new(path, &root, sizeof *m, &st, d);
    if (!m)
        goto done;
    snprintf(m->file, sizeof m->file, "%s", path);
    pg_path_dirname(m->dir, sizeof m->dir, path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t blen = strlen(base);
    if (ends_with(base, ".json"))
        blen -= 5;
    snprintf(m->name, sizeof m->name, "%.*s", (int)blen, base);
    st = pg_jcheck_keys(root, &ctx, keys, d);
    if (st == PG_OK)
        st = parse_header(m, root, &ctx, d);
    if (st == PG_OK)
        st = pg_expr_from_json(root, &ctx, "supports", false, m->supports, sizeof m->supports, d);
    if (st == PG_OK)
        st = parse_source(m, root, &ctx, d);
    if (st == PG_OK)
        st = parse_compile(m, root, &ctx, d);
    if (st == PG_OK)
        st = parse_workspaces(m, root, &ctx, d);
    if (st == PG_OK)
        st = parse_launches(m, root, &ctx, d);
    if (st == PG_OK)
        st = check_setup(m, d);
    if (st == PG_OK)
        st = check_device_struct_count(m, d);
    if (st == PG_OK)
        st = check_workspaces_used(m, d);
done:
    json_decref(root);
    if (st != PG_OK) {
        pg_manifest_free(m);
        m = NULL;
    }
    *out = m;
    return st;
}

/* Symbols of expression text at field are task symbols. */
static pg_status check_expr(const pg_manifest *m, const char *text, const char *field,
                            const char *const *names, size_t count, pg_diag *d)
{
    char err[1024];
    if (pg_expr_check(text, names, count, err, sizeof err) != PG_OK)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, field, "%s", err);
    return PG_OK;
}

/* One binding (or, for a struct, each of its fields) against the task. */
static pg_status check_binding(const pg_manifest *m, const pg_task *t, const pg_param_binding *p,
                               const char *const *names, size_t count, pg_diag *d)
{
    char f[320];
    if (p->kind == PG_PARAM_STRUCT || p->kind == PG_PARAM_DEVICE_STRUCT) {
        for (int i = 0; i < p->n_fields; i++) {
            pg_status st = check_binding(m, t, &p->fields[i], names, count, d);
            if (st != PG_OK)
                return st;
        }
        return PG_OK;
    }
    if (p->kind == PG_PARAM_VALUE) {
        snprintf(f, sizeof f, "%s.value", p->field);
        return check_expr(m, p->expr, f, names, count, d);
    }
    if (p->kind == PG_PARAM_TENSOR_MAP)
        return pg_tensor_map_spec_check(&p->tmap, t, m->file, p->field, d);
    if (p->kind == PG_PARAM_TENSOR && pg_task_find_tensor(t, p->ref) < 0) {
        char known[512] = "";
        size_t used = 0;
        for (int i = 0; i < t->n_tensors && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     t->tensors[i].name);
        snprintf(f, sizeof f, "%s.tensor", p->field);
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, f, "unknown tensor '%s'; task '%s' has %s",
                           p->ref, t->id, known);
    }
    return PG_OK;
}

pg_status pg_manifest_check_task(const pg_manifest *m, const pg_task *t, pg_diag *d)
{
    const char *names[PG_MAX_SYMBOLS + PG_N_DEVICE_SYMBOLS];
    static const char *const dims[] = {"grid", "block", "cluster"};
    char f[320];
    size_t count = (size_t)t->n_symbols;
    pg_status st = PG_OK;
    if (strcmp(m->task, t->id) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "task",
                           "the manifest is for task '%s' but the task loaded is '%s'", m->task,
                           t->id);
    for (int i = 0; i < t->n_symbols; i++)
        names[i] = t->symbols[i];
    /* The device symbols too (task.c refuses a task symbol of the same name). */
    for (int i = 0; i < PG_N_DEVICE_SYMBOLS; i++)
        names[count++] = pg_device_symbol_names[i];
    /* supports: task symbols only, so that a workload is declined the same way with a GPU or
     * without one. */
    if (m->supports[0])
        st = check_expr(m, m->supports, "supports", names, (size_t)t->n_symbols, d);
    for (int w = 0; w < m->n_ws && st == PG_OK; w++) {
        snprintf(f, sizeof f, "workspaces.%s.bytes", m->ws[w].name);
        st = check_expr(m, m->ws[w].bytes, f, names, count, d);
    }
    for (int li = 0; li < m->n_launches + m->n_setup && st == PG_OK; li++) {
        const pg_launch_spec *l = &m->launches[li];
        for (int k = 0; k < 3 && st == PG_OK; k++) {
            const char(*v)[128] = k == 0 ? l->grid : k == 1 ? l->block : l->cluster;
            if (k == 2 && !l->has_cluster)
                break;
            for (int i = 0; i < 3 && st == PG_OK; i++) {
                snprintf(f, sizeof f, "%s.%s[%d]", l->field, dims[k], i);
                st = check_expr(m, v[i], f, names, count, d);
            }
        }
        if (st == PG_OK) {
            snprintf(f, sizeof f, "%s.dynamic_shared_bytes", l->field);
            st = check_expr(m, l->dynamic_shared_bytes, f, names, count, d);
        }
        for (int pi = 0; pi < l->n_params && st == PG_OK; pi++)
            st = check_binding(m, t, &l->params[pi], names, count, d);
    }
    /* Every output must reach a kernel: one that no parameter binds could never be written. */
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++) {
        if (!t->tensors[i].is_output)
            continue;
        if (!manifest_binds(m, PG_PARAM_TENSOR, t->tensors[i].name) &&
            !manifest_binds(m, PG_PARAM_TENSOR_MAP, t->tensors[i].name))
            st = pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "launches",
                             "output tensor '%s' of task '%s' is bound to no kernel parameter, so "
                             "no launch can write it; add {\"tensor\": \"%s\"} (or a tensor_map "
                             "over it, for TMA stores) to a launch's params",
                             t->tensors[i].name, t->id, t->tensors[i].name);
    }
    return st;
}

pg_status pg_manifest_supports(const pg_manifest *m, const pg_task *t, const pg_workload *w,
                               bool *out, pg_diag *d)
{
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    char err[1024];
    int64_t v = 1;
    *out = true;
    if (!m->supports[0])
        return PG_OK;
    pg_task_symtab(t, w, names, &syms);
    if (pg_expr_eval(m->supports, &syms, &v, err, sizeof err) != PG_OK)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "supports", "workload '%s': %s", w->name,
                           err);
    *out = v != 0;
    return PG_OK;
}

void pg_manifest_free(pg_manifest *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n_launches + m->n_setup; i++) {
        for (int p = 0; p < m->launches[i].n_params; p++)
            free(m->launches[i].params[p].fields);
        free(m->launches[i].params);
    }
    free(m->launches);
    free(m);
}

void pg_manifest_task_of_unloadable(const char *path, char *out, size_t n)
{
    json_t *j = NULL;
    pg_diag ld;
    pg_diag_clear(&ld);
    if (pg_json_load(path, &j, &ld) != PG_OK) /* bounded, as the manifest loader reads it */
        j = NULL;
    const char *t = json_string_value(json_object_get(j, "task"));
    bool plain = t && t[0] && strlen(t) < 128 && strlen(t) < n;
    for (const char *c = t; plain && *c; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                *c == '_' || *c == '-' || *c == '.';
    snprintf(out, n, "%s", plain ? t : "unknown");
    json_decref(j);
}
