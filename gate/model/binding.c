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
    unsigned want = pg_param_type_size(b->type);
    const char *label = b->name[0] ? b->name : p->name;
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
    for (int l = 0; l < m->n_launches; l++) {
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

pg_status pg_binding_args(const pg_launch_values *lv, const uint64_t *tensor_addr,
                       const uint64_t *ws_addr, pg_arg_block *out)
{
    /* Every slot is 128 bytes and 128-byte aligned: big enough for a tensor map and aligned
     * for any PTX .param. */
    out->storage = aligned_alloc(128, (size_t)(lv->n_params ? lv->n_params : 1) * 128);
    out->args = calloc((size_t)lv->n_params + 1, sizeof(void *));
    if (!out->storage || !out->args) {
        pg_arg_block_free(out);
        return PG_ERR_INFRA;
    }
    memset(out->storage, 0, (size_t)(lv->n_params ? lv->n_params : 1) * 128);
    for (int i = 0; i < lv->n_params; i++) {
        const pg_param_value *p = &lv->params[i];
        unsigned char *slot = out->storage + (size_t)i * 128;
        uint64_t addr;
        switch (p->kind) {
        case PG_PARAM_TENSOR:
            addr = tensor_addr[p->ref_index];
            memcpy(slot, &addr, 8);
            break;
        case PG_PARAM_WORKSPACE:
            addr = ws_addr[p->ref_index];
            memcpy(slot, &addr, 8);
            break;
        case PG_PARAM_TENSOR_MAP:
            break; /* left zeroed: the device layer encodes the map into the slot */
        default:
            memcpy(slot, &p->v, pg_param_type_size(p->type) <= 8 ? pg_param_type_size(p->type) : 8);
            break;
        }
        out->args[i] = slot;
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
