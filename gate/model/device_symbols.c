/* Device symbols of manifest expressions: names, values and which manifests use them (see
 * device_symbols.h). */
#include "device_symbols.h"

#include <stdio.h>
#include <string.h>

#include "expr.h"

const char *const pg_device_symbol_names[PG_N_DEVICE_SYMBOLS] = {"num_sms", "l2_bytes",
                                                                 "max_dynamic_shared_bytes"};

static bool names_any(const char *text)
{
    if (pg_expr_names_function(text, PG_CLUSTERS_FUNCTION))
        return true;
    for (int i = 0; i < PG_N_DEVICE_SYMBOLS; i++)
        if (pg_expr_names_symbol(text, pg_device_symbol_names[i]))
            return true;
    return false;
}

static bool binding_uses(const pg_param_binding *p)
{
    if (p->kind == PG_PARAM_VALUE)
        return names_any(p->expr);
    for (int i = 0; i < p->n_fields; i++)
        if (binding_uses(&p->fields[i]))
            return true;
    return false;
}

bool pg_manifest_uses_device_symbols(const pg_manifest *m)
{
    for (int w = 0; w < m->n_ws; w++)
        if (names_any(m->ws[w].bytes))
            return true;
    for (int l = 0; l < m->n_launches + m->n_setup; l++) {
        const pg_launch_spec *ls = &m->launches[l];
        for (int i = 0; i < 3; i++)
            if (names_any(ls->grid[i]) || names_any(ls->block[i]) ||
                (ls->has_cluster && names_any(ls->cluster[i])))
                return true;
        if (names_any(ls->dynamic_shared_bytes))
            return true;
        for (int p = 0; p < ls->n_params; p++)
            if (binding_uses(&ls->params[p]))
                return true;
    }
    return false;
}

void pg_device_symbols_from_device(int sm_count, long long l2_bytes, int max_shared_optin,
                                   const char *name, pg_device_symbols *out)
{
    memset(out, 0, sizeof *out);
    out->values[0] = sm_count;
    out->values[1] = l2_bytes;
    out->values[2] = max_shared_optin;
    out->cluster_sms = sm_count;
    snprintf(out->source, sizeof out->source, "%s", name && name[0] ? name : "the GPU in use");
}

pg_status pg_device_symbols_from_arch(const pg_arch_table *t, pg_device_symbols *out,
                                      pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!t->ref.present || !t->launch.present)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "the architecture table %s has no %s, so device symbols have no value "
                           "without a GPU", t->file,
                           t->ref.present ? "launch_limits" : "reference_device");
    out->values[0] = t->ref.num_sms;
    out->values[1] = t->ref.l2_bytes;
    out->values[2] = t->launch.max_shared_per_block_optin;
    out->cluster_sms = t->ref.cluster_sms;
    out->assumed = true;
    snprintf(out->source, sizeof out->source, "assumed: reference_device %s of the %s table",
             t->ref.name, t->arch);
    return PG_OK;
}

int64_t pg_device_symbols_clusters_rule(const pg_device_symbols *s, int64_t cluster_size,
                                        int64_t dynamic_shared_bytes)
{
    if (cluster_size < 1 || dynamic_shared_bytes > s->values[2])
        return 0;
    return s->cluster_sms / cluster_size;
}

json_t *pg_device_symbols_json(const pg_device_symbols *s)
{
    json_t *j = json_object();
    for (int i = 0; i < PG_N_DEVICE_SYMBOLS; i++)
        json_object_set_new(j, pg_device_symbol_names[i], json_integer((json_int_t)s->values[i]));
    json_object_set_new(j, "assumed", json_boolean(s->assumed));
    json_object_set_new(j, "source", json_string(s->source));
    return j;
}
