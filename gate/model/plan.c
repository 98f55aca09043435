/* Launch plans: evaluating a manifest's expressions for one workload (see plan.h). */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_symbols.h"
#include "expr.h"

/* What the plan builder needs at hand for every expression. */
typedef struct {
    const pg_task *t;
    const pg_manifest *m;
    const pg_workload *w;
    pg_symtab syms;
    const char *names[PG_MAX_SYMBOLS + PG_N_DEVICE_SYMBOLS];
    int64_t values[PG_MAX_SYMBOLS + PG_N_DEVICE_SYMBOLS];
    const pg_device_symbols *dev;
    int launch;                 /* the launch whose grid is evaluated */
    pg_launch_values *lv;       /* its values (block already evaluated) */
    pg_diag *d;
} builder;

/* max_active_clusters in a grid of b->launch: the loaded kernel's value (dev->query), else
 * the rule; recorded in b->lv. */
static pg_status clusters_value(void *ctx, int64_t cluster_size, int64_t dynamic_shared_bytes,
                                int64_t *out, char *err, size_t errlen)
{
    builder *b = ctx;
    if (!b->dev) {
        snprintf(err, errlen, "no device values are bound");
        return PG_ERR_INPUT;
    }
    if (b->dev->query) {
        pg_status st = b->dev->query(b->dev->query_ctx, b->launch, b->lv->block, cluster_size,
                                     dynamic_shared_bytes, out, err, errlen);
        if (st != PG_OK)
            return st;
    } else {
        *out = pg_device_symbols_clusters_rule(b->dev, cluster_size, dynamic_shared_bytes);
    }
    b->lv->clusters_used = true;
    b->lv->clusters_size = cluster_size;
    b->lv->clusters_shared_bytes = dynamic_shared_bytes;
    b->lv->clusters_value = *out;
    return PG_OK;
}

/* Evaluate text (field of file) and check lo <= value <= hi. */
static pg_status eval_range(builder *b, const char *file, const char *field, const char *text,
                            int64_t lo, int64_t hi, const char *what, int64_t *out)
{
    char err[1024];
    int64_t v;
    if (pg_expr_eval(text, &b->syms, &v, err, sizeof err) != PG_OK)
        return pg_diag_set(b->d, PG_ERR_INPUT, file, 0, field, "workload '%s': %s", b->w->name,
                           err);
    if (v < lo || v > hi)
        return pg_diag_set(b->d, PG_ERR_INPUT, file, 0, field,
                           "workload '%s': '%s' = %" PRId64 " does not fit %s (%" PRId64
                           "..%" PRId64 ")", b->w->name, text, v, what, lo, hi);
    *out = v;
    return PG_OK;
}

static pg_status eval_dim3(builder *b, const char *launch_field, const char *key,
                           const char text[3][128], int64_t max_x, uint32_t out[3])
{
    char f[256], what[64];
    snprintf(what, sizeof what, "a %s dimension", key);
    for (int i = 0; i < 3; i++) {
        int64_t v;
        snprintf(f, sizeof f, "%s.%s[%d]", launch_field, key, i);
        pg_status st = eval_range(b, b->m->file, f, text[i], 1, i == 0 ? max_x : 65535, what, &v);
        if (st != PG_OK)
            return st;
        out[i] = (uint32_t)v;
    }
    return PG_OK;
}

/* The grid of launch b->launch, with max_active_clusters available (into out->grid). */
static pg_status eval_grid(builder *b, const pg_launch_spec *l, pg_launch_values *out)
{
    pg_symtab plain = b->syms;
    b->lv = out;
    b->syms.clusters = clusters_value;
    b->syms.clusters_ctx = b;
    pg_status st = eval_dim3(b, l->field, "grid", l->grid, INT32_MAX, out->grid);
    b->syms = plain;
    return st;
}

static pg_status eval_param(builder *b, const pg_param_binding *p, pg_param_value *out);

/* The values of the n bindings p, in order, into *out (owned; one element allocated even when n
 * is 0) and *n_out: a launch's parameters or a struct's fields. Stops at the first error. */
static pg_status eval_params(builder *b, const pg_param_binding *p, int n, pg_param_value **out,
                             int *n_out)
{
    *out = calloc(n ? (size_t)n : 1, sizeof **out);
    if (!*out)
        return pg_diag_set(b->d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    *n_out = n;
    pg_status st = PG_OK;
    for (int i = 0; i < n && st == PG_OK; i++)
        st = eval_param(b, &p[i], &(*out)[i]);
    return st;
}

static pg_status eval_param(builder *b, const pg_param_binding *p, pg_param_value *out)
{
    char f[256];
    int64_t v = 0;
    pg_status st = PG_OK;
    out->kind = p->kind;
    out->type = p->type;
    out->ref_index = -1;
    out->offset = p->offset;
    out->bytes = p->kind == PG_PARAM_DEVICE_STRUCT ? p->bytes : pg_param_binding_size(p);
    snprintf(f, sizeof f, "%s.value", p->field);
    switch (p->kind) {
    case PG_PARAM_TENSOR:
        out->ref_index = pg_task_find_tensor(b->t, p->ref);
        if (out->ref_index < 0)
            return pg_diag_set(b->d, PG_ERR_INPUT, b->m->file, 0, p->field,
                               "unknown tensor '%s' in task '%s'", p->ref, b->t->id);
        return PG_OK;
    case PG_PARAM_WORKSPACE:
        for (int i = 0; i < b->m->n_ws; i++)
            if (strcmp(b->m->ws[i].name, p->ref) == 0)
                out->ref_index = i;
        if (out->ref_index < 0)
            return pg_diag_set(b->d, PG_ERR_INPUT, b->m->file, 0, p->field,
                               "unknown workspace '%s'", p->ref);
        return PG_OK;
    case PG_PARAM_SCALAR:
        if (p->type == PG_PTYPE_F32)
            out->v.f32 = (float)p->scalar;
        else
            out->v.f64 = p->scalar;
        return PG_OK;
    case PG_PARAM_VALUE:
        switch (p->type) {
        case PG_PTYPE_U32:
            st = eval_range(b, b->m->file, f, p->expr, 0, UINT32_MAX, "u32", &v);
            out->v.u32 = (uint32_t)v;
            break;
        case PG_PTYPE_S32:
            st = eval_range(b, b->m->file, f, p->expr, INT32_MIN, INT32_MAX, "s32", &v);
            out->v.s32 = (int32_t)v;
            break;
        case PG_PTYPE_U64:
            st = eval_range(b, b->m->file, f, p->expr, 0, INT64_MAX, "u64", &v);
            out->v.u64 = (uint64_t)v;
            break;
        case PG_PTYPE_S64:
            st = eval_range(b, b->m->file, f, p->expr, INT64_MIN, INT64_MAX, "s64", &v);
            out->v.s64 = v;
            break;
        default:
            st = pg_diag_set(b->d, PG_ERR_INPUT, b->m->file, 0, p->field,
                             "type %s is not an integer type", pg_param_type_name(p->type));
        }
        return st;
    case PG_PARAM_ZERO:
        return PG_OK;
    case PG_PARAM_STRUCT:
    case PG_PARAM_DEVICE_STRUCT:
        return eval_params(b, p->fields, p->n_fields, &out->fields, &out->n_fields);
    case PG_PARAM_TENSOR_MAP:
        st = pg_tensor_map_spec_build(&p->tmap, b->t, b->w, &b->syms, b->m->file, p->field,
                                      &out->tmap, b->d);
        out->ref_index = out->tmap.tensor_index;
        return st;
    }
    return pg_diag_set(b->d, PG_ERR_INPUT, b->m->file, 0, p->field, "unknown parameter kind");
}

static pg_status eval_launch(builder *b, const pg_launch_spec *l, pg_launch_values *out)
{
    char f[256];
    int64_t v;
    pg_status st = eval_dim3(b, l->field, "block", l->block, 65535, out->block);
    if (st == PG_OK)
        st = eval_grid(b, l, out);
    if (st == PG_OK && l->has_cluster)
        st = eval_dim3(b, l->field, "cluster", l->cluster, 65535, out->cluster);
    if (st != PG_OK)
        return st;
    snprintf(f, sizeof f, "%s.dynamic_shared_bytes", l->field);
    st = eval_range(b, b->m->file, f, l->dynamic_shared_bytes, 0, UINT32_MAX, "a byte count", &v);
    if (st != PG_OK)
        return st;
    out->dynamic_shared_bytes = (uint32_t)v;
    return eval_params(b, l->params, l->n_params, &out->params, &out->n_params);
}

/* Task symbols first, then the device symbols (task.c refuses a task symbol of the same
 * name). */
static void builder_init(builder *b, const pg_task *t, const pg_manifest *m, const pg_workload *w,
                         const pg_device_symbols *dev, pg_diag *d)
{
    memset(b, 0, sizeof *b);
    b->t = t, b->m = m, b->w = w, b->dev = dev, b->d = d;
    pg_task_symtab(t, w, b->names, &b->syms);
    size_t n = b->syms.count;
    memcpy(b->values, w->values, n * sizeof *b->values);
    for (int i = 0; dev && i < PG_N_DEVICE_SYMBOLS; i++) {
        b->names[n] = pg_device_symbol_names[i];
        b->values[n++] = dev->values[i];
    }
    b->syms.values = b->values;
    b->syms.count = n;
}

pg_status pg_plan_build(const pg_task *t, const pg_manifest *m, const pg_workload *w, pg_plan *out,
                        pg_diag *d)
{
    return pg_plan_build_on(t, m, w, NULL, out, d);
}

pg_status pg_plan_build_on(const pg_task *t, const pg_manifest *m, const pg_workload *w,
                           const pg_device_symbols *dev, pg_plan *out, pg_diag *d)
{
    builder b;
    char f[256];
    int64_t v;
    pg_status st = PG_OK;
    memset(out, 0, sizeof *out);
    builder_init(&b, t, m, w, dev, d);
    st = eval_range(&b, t->file, "flops", t->flops, 0, INT64_MAX, "a non-negative count", &v);
    if (st != PG_OK)
        return st;
    out->flop = (double)v;
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        st = pg_task_tensor_elements(t, i, w, &out->tensor_elements[i], d);
    for (int i = 0; i < m->n_ws && st == PG_OK; i++) {
        snprintf(f, sizeof f, "workspaces.%s.bytes", m->ws[i].name);
        st = eval_range(&b, m->file, f, m->ws[i].bytes, 0, PG_MAX_WORKSPACE_BYTES,
                        "a byte count no larger than any GPU's memory", &v);
        if (st == PG_OK)
            out->workspace_bytes[i] = (uint64_t)v;
    }
    if (st != PG_OK)
        return st;
    out->launches = calloc((size_t)(m->n_launches + m->n_setup), sizeof *out->launches);
    if (!out->launches)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (int i = 0; i < m->n_launches && st == PG_OK; i++) {
        out->n_launches = i + 1; /* counted first so that pg_plan_free frees its params */
        b.launch = i;
        st = eval_launch(&b, &m->launches[i], &out->launches[i]);
    }
    for (int i = 0; i < m->n_setup && st == PG_OK; i++) {
        out->n_setup = i + 1;
        b.launch = m->n_launches + i;
        st = eval_launch(&b, &m->launches[m->n_launches + i], &out->launches[m->n_launches + i]);
    }
    return st;
}

pg_status pg_plan_launch_grid(const pg_task *t, const pg_manifest *m, const pg_workload *w,
                              const pg_device_symbols *dev, int l, pg_launch_values *lv,
                              pg_diag *d)
{
    builder b;
    builder_init(&b, t, m, w, dev, d);
    b.launch = l;
    pg_launch_values copy = *lv;
    pg_status st = eval_grid(&b, &m->launches[l], &copy);
    if (st == PG_OK)
        *lv = copy;
    return st;
}

json_t *pg_plan_clusters_json(const pg_manifest *m, const pg_plan *p)
{
    json_t *a = NULL;
    for (int l = 0; l < p->n_launches + p->n_setup; l++) {
        const pg_launch_values *lv = &p->launches[l];
        if (!lv->clusters_used)
            continue;
        if (!a)
            a = json_array();
        json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I}", "launch",
                                           m->launches[l].field, "cluster_size",
                                           (json_int_t)lv->clusters_size, "dynamic_shared_bytes",
                                           (json_int_t)lv->clusters_shared_bytes, "value",
                                           (json_int_t)lv->clusters_value));
    }
    return a;
}

void pg_plan_free(pg_plan *p)
{
    if (!p)
        return;
    for (int i = 0; p->launches && i < p->n_launches + p->n_setup; i++) {
        for (int j = 0; p->launches[i].params && j < p->launches[i].n_params; j++)
            free(p->launches[i].params[j].fields);
        free(p->launches[i].params);
    }
    free(p->launches);
    memset(p, 0, sizeof *p);
}
