/* Device buffers and launch descriptions of one workload: task tensors, workspaces, argument
 * blocks with their tensor maps encoded. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int64_t pg_workload_symbol(const pg_task *t, const pg_workload *w, const char *name)
{
    for (int i = 0; i < t->n_symbols; i++)
        if (strcmp(t->symbols[i], name) == 0)
            return w->values[i];
    return 0;
}

pg_status pg_wctx_setup(pg_wctx *c, pg_diag *d)
{
    const pg_task *t = c->s->task;
    const pg_manifest *m = c->s->manifest;
    pg_device *dev = c->run->dev;
    pg_status st;
    for (int i = 0; i < t->n_tensors; i++) {
        if (c->inputs_from && !t->tensors[i].is_output) {
            c->tensors[i] = c->inputs_from->tensors[i];
            c->borrowed[i] = true;
            c->tensor_addr[i] = pg_buffer_address(c->tensors[i]);
            continue;
        }
        size_t bytes = (size_t)c->plan->tensor_elements[i] * pg_dtype_size(t->tensors[i].dtype);
        st = pg_buffer_alloc(dev, bytes ? bytes : 1, &c->tensors[i], d);
        if (st != PG_OK)
            return st;
        c->tensor_addr[i] = pg_buffer_address(c->tensors[i]);
    }
    for (int i = 0; i < m->n_ws; i++) {
        size_t bytes = (size_t)c->plan->workspace_bytes[i];
        st = pg_buffer_alloc(dev, bytes ? bytes : 1, &c->ws[i], d);
        if (st != PG_OK)
            return st;
        c->ws_addr[i] = pg_buffer_address(c->ws[i]);
    }
    int n = c->plan->n_launches;
    c->args = calloc((size_t)n, sizeof *c->args);
    c->launches = calloc((size_t)n, sizeof *c->launches);
    if (!c->args || !c->launches)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (int l = 0; l < n; l++) {
        const pg_launch_values *lv = &c->plan->launches[l];
        if (pg_binding_args(lv, c->tensor_addr, c->ws_addr, &c->args[l]) != PG_OK)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        /* Tensor maps hold their tensor's address: encoded here, once the buffers exist, into
         * the argument slot that every launch of this workload passes by value. */
        for (int i = 0; i < lv->n_params; i++) {
            const pg_param_value *p = &lv->params[i];
            if (p->kind != PG_PARAM_TENSOR_MAP)
                continue;
            st = pg_tensor_map_encode(dev, &p->tmap, c->tensor_addr[p->ref_index],
                                      c->args[l].args[i], d);
            if (st != PG_OK)
                return st;
        }
        pg_launch *L = &c->launches[l];
        L->kernel = c->kernels[l];
        memcpy(L->grid, lv->grid, sizeof L->grid);
        memcpy(L->block, lv->block, sizeof L->block);
        memcpy(L->cluster, lv->cluster, sizeof L->cluster);
        L->dynamic_shared_bytes = lv->dynamic_shared_bytes;
        L->args = c->args[l].args;
    }
    return PG_OK;
}

void pg_wctx_release(pg_wctx *c)
{
    for (int i = 0; i < PG_MAX_TENSORS; i++) {
        if (c->tensors[i] && !c->borrowed[i])
            pg_buffer_free(c->tensors[i]);
        c->tensors[i] = NULL;
    }
    for (int i = 0; i < PG_MAX_WORKSPACES; i++)
        if (c->ws[i])
            pg_buffer_free(c->ws[i]);
    if (c->args)
        for (int l = 0; l < c->plan->n_launches; l++)
            pg_arg_block_free(&c->args[l]);
    free(c->args);
    free(c->launches);
    c->args = NULL;
    c->launches = NULL;
}

pg_status pg_wctx_init_workspaces(pg_wctx *c, pg_diag *d)
{
    for (int i = 0; i < c->s->manifest->n_ws; i++) {
        pg_status st = c->s->manifest->ws[i].poison ? pg_buffer_fill_poison(c->ws[i], d)
                                                    : pg_buffer_zero(c->ws[i], d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

pg_status pg_wctx_enqueue(void *wctx, pg_diag *d)
{
    pg_wctx *c = wctx;
    return pg_device_launch(c->run->dev, c->launches, (size_t)c->plan->n_launches, d);
}
