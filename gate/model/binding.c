/* Manifest bindings versus PTX .entry signatures (count, size, alignment, integer versus
 * floating type), checked before anything runs, and kernel argument blocks for cuLaunchKernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

static bool ptx_type_is_float(const char *t)
{
    return t[0] == '.' && t[1] == 'f';
}

static bool binding_is_float(pg_param_type t)
{
    return t == PG_PTYPE_F32 || t == PG_PTYPE_F64;
}

static void list_entries(const pg_ptx_module_info *sig, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < sig->n_entries && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", sig->entries[i].name);
    if (sig->n_entries == 0)
        snprintf(buf, n, "none");
}

/* Where PTX line `line` is: "k.ptx line 15", or for PTX nvcc generated from a .cu
 * "PTX line 15 (generated from k.cu)": never a line of the .cu. */
static const char *ptx_at(const char *ptx_file, bool generated, int line, char *buf, size_t n)
{
    if (generated)
        snprintf(buf, n, "PTX line %d (generated from %s)", line, ptx_file);
    else
        snprintf(buf, n, "%s line %d", ptx_file, line);
    return buf;
}

static pg_status check_param(const pg_manifest *m, const pg_param_binding *b,
                             const pg_ptx_param *p, int index, const char *ptx_file,
                             bool generated, pg_diag *d)
{
    char at[1200];
    unsigned want = pg_param_binding_size(b);
    const char *label = b->name[0] ? b->name : p->name;
    if (b->kind == PG_PARAM_STRUCT) {
        if (p->size_bytes != want)
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, b->field,
                               "parameter %d ('%s') is bound as a struct of %u bytes but %s "
                               "declares '%s' as %s%s (%u bytes)",
                               index, label, want,
                               ptx_at(ptx_file, generated, p->line, at, sizeof at), p->name,
                               p->type, p->array_len ? "[]" : "", p->size_bytes);
        if (p->align_bytes < b->align)
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, b->field,
                               "parameter %d ('%s') is bound as a struct with align %u but %s "
                               "declares '%s' with .align %u (the kernel's struct is less "
                               "aligned than the manifest says: check alignas and the field "
                               "types)",
                               index, label, b->align,
                               ptx_at(ptx_file, generated, p->line, at, sizeof at), p->name,
                               p->align_bytes);
        return PG_OK;
    }
    if (p->size_bytes != want)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, b->field,
                           "parameter %d ('%s') is bound as %s (%u bytes) but %s declares "
                           "'%s' as %s%s (%u bytes)",
                           index, label, pg_param_type_name(b->type), want,
                           ptx_at(ptx_file, generated, p->line, at, sizeof at),
                           p->name, p->type, p->array_len ? "[]" : "", p->size_bytes);
    if (b->type == PG_PTYPE_TMAP && p->align_bytes < PG_TMAP_ALIGN)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, b->field,
                           "parameter %d ('%s') is a tensor map: %s must declare it as "
                           ".param .align %d .b8 %s[128] (or .align 128); found .align %u",
                           index, label, ptx_at(ptx_file, generated, p->line, at, sizeof at),
                           PG_TMAP_ALIGN, p->name,
                           p->align_bytes);
    if (b->type != PG_PTYPE_TMAP && p->array_len == 0 &&
        binding_is_float(b->type) != ptx_type_is_float(p->type) && p->type[1] != 'b')
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, b->field,
                           "parameter %d ('%s') is bound as %s but %s declares '%s' as %s",
                           index, label, pg_param_type_name(b->type),
                           ptx_at(ptx_file, generated, p->line, at, sizeof at), p->name,
                           p->type);
    return PG_OK;
}

pg_status pg_binding_check(const pg_manifest *m, const pg_ptx_module_info *sig, const char *ptx_file,
                        bool generated, pg_diag *d)
{
    char at[1200];
    for (int l = 0; l < m->n_launches + m->n_setup; l++) {
        const pg_launch_spec *ls = &m->launches[l];
        const pg_ptx_entry *e = pg_ptx_find_entry(sig, ls->entry);
        char field[200];
        if (!e) {
            char names[1024];
            list_entries(sig, names, sizeof names);
            snprintf(field, sizeof field, "%s.entry", ls->field);
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, field,
                               "no .entry '%s' in %s%s (entries found: %s)", ls->entry,
                               generated ? "the PTX generated from " : "", ptx_file, names);
        }
        if (e->n_params != ls->n_params) {
            snprintf(field, sizeof field, "%s.params", ls->field);
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, field,
                               "binds %d parameters but .entry '%s' (%s) declares %d",
                               ls->n_params, e->name,
                               ptx_at(ptx_file, generated, e->line, at, sizeof at), e->n_params);
        }
        for (int i = 0; i < e->n_params; i++) {
            pg_status st =
                check_param(m, &ls->params[i], &e->params[i], i, ptx_file, generated, d);
            if (st != PG_OK)
                return st;
        }
    }
    return PG_OK;
}

/* Bytes of parameter slot p: 128 for every parameter up to a tensor map, a struct's size
 * rounded up to 128 above that, so that every slot starts 128-byte aligned. */
static size_t slot_bytes(const pg_param_value *p)
{
    size_t n = p->kind == PG_PARAM_STRUCT ? p->bytes : 128;
    return (n + 127) / 128 * 128;
}

/* One scalar, address or value at dst (the tensor-map slot and zero padding stay zero). */
static void put_value(const pg_param_value *p, const uint64_t *tensor_addr,
                      const uint64_t *ws_addr, unsigned char *dst)
{
    uint64_t addr;
    switch (p->kind) {
    case PG_PARAM_TENSOR:
        addr = tensor_addr[p->ref_index];
        memcpy(dst, &addr, 8);
        break;
    case PG_PARAM_WORKSPACE:
        addr = ws_addr[p->ref_index];
        memcpy(dst, &addr, 8);
        break;
    case PG_PARAM_TENSOR_MAP:
    case PG_PARAM_ZERO:
    case PG_PARAM_DEVICE_STRUCT:
        break; /* left zeroed: the device layer encodes a map in place, and writes a device
                  struct's buffer address */
    case PG_PARAM_STRUCT:
        pg_binding_pack_struct(p, tensor_addr, ws_addr, dst);
        break;
    default:
        memcpy(dst, &p->v, pg_param_type_size(p->type) <= 8 ? pg_param_type_size(p->type) : 8);
        break;
    }
}

void pg_binding_pack_struct(const pg_param_value *sv, const uint64_t *tensor_addr,
                            const uint64_t *ws_addr, unsigned char *out)
{
    memset(out, 0, sv->bytes);
    for (int i = 0; i < sv->n_fields; i++)
        put_value(&sv->fields[i], tensor_addr, ws_addr, out + sv->fields[i].offset);
}

pg_status pg_binding_args(const pg_launch_values *lv, const uint64_t *tensor_addr,
                       const uint64_t *ws_addr, pg_arg_block *out)
{
    /* Every slot is 128-byte aligned and at least 128 bytes: big enough for a tensor map and
     * aligned for any PTX .param. */
    size_t total = 0;
    for (int i = 0; i < lv->n_params; i++)
        total += slot_bytes(&lv->params[i]);
    if (total == 0)
        total = 128;
    out->storage = aligned_alloc(128, total);
    out->args = calloc((size_t)lv->n_params + 1, sizeof(void *));
    if (!out->storage || !out->args) {
        pg_arg_block_free(out);
        return PG_ERR_INFRA;
    }
    memset(out->storage, 0, total);
    size_t at = 0;
    for (int i = 0; i < lv->n_params; i++) {
        unsigned char *slot = out->storage + at;
        put_value(&lv->params[i], tensor_addr, ws_addr, slot);
        out->args[i] = slot;
        at += slot_bytes(&lv->params[i]);
    }
    return PG_OK;
}

void pg_arg_block_free(pg_arg_block *b)
{
    free(b->storage);
    free(b->args);
    b->storage = NULL;
    b->args = NULL;
}
