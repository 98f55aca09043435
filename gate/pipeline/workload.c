/* Device buffers and launch descriptions of one workload: task tensors and workspaces in guarded
 * allocations, argument blocks with their tensor maps encoded, the per-launch preparation
 * (poison, workspace init, new inputs), and the guard checks after launches (canaries, input
 * checksums). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/task_ops.h"
#include "reference_run.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission.h"

pg_gemm_scales pg_wctx_gemm_scales(const pg_wctx *c)
{
    pg_gemm_scales s = {NULL, NULL};
    if (c->is_gemm && c->gemm.scale.mode != PG_GEMM_SCALE_NONE) {
        s.a = c->tensors[c->gemm.scale.a];
        s.b = c->tensors[c->gemm.scale.b];
    }
    return s;
}

int64_t pg_workload_symbol(const pg_task *t, const pg_workload *w, const char *name)
{
    for (int i = 0; i < t->n_symbols; i++)
        if (strcmp(t->symbols[i], name) == 0)
            return w->values[i];
    return 0;
}

/* Guarded buffers, except under compute-sanitizer: its bounds checks see the exact
 * allocation of a plain one. */
static pg_status alloc(pg_wctx *c, size_t bytes, pg_buffer **out, pg_diag *d)
{
    return c->run->sanitize_mode ? pg_buffer_alloc(c->run->dev, bytes, out, d)
                                 : pg_buffer_alloc_guarded(c->run->dev, bytes, out, d);
}

/* Encode the tensor map of p, or of each tensor-map field of struct p, into its bytes at slot. */
static pg_status encode_tensor_maps(pg_wctx *c, const pg_param_value *p, void *slot, pg_diag *d)
{
    if (p->kind == PG_PARAM_TENSOR_MAP)
        return pg_tensor_map_encode(c->run->dev, &p->tmap, c->tensor_addr[p->ref_index], slot, d);
    bool packed = p->kind == PG_PARAM_STRUCT || p->kind == PG_PARAM_DEVICE_STRUCT;
    for (int i = 0; packed && i < p->n_fields; i++) {
        pg_status st = encode_tensor_maps(c, &p->fields[i],
                                          (unsigned char *)slot + p->fields[i].offset, d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

/* A device_struct parameter: its bytes packed on the host (tensor maps encoded in place), a
 * guarded device buffer written with them, and its address in the argument slot. */
static pg_status setup_device_struct(pg_wctx *c, const pg_param_value *p, const char *field,
                                     void *slot, pg_diag *d)
{
    if (c->n_dstruct >= PG_MAX_DEVICE_STRUCTS)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "too many device_struct parameters");
    int k = c->n_dstruct++;
    /* 128-byte aligned host copy: tensor maps are encoded into it at 64-byte aligned offsets. */
    c->dstruct_host[k] = aligned_alloc(128, ((size_t)p->bytes + 127) / 128 * 128);
    if (!c->dstruct_host[k])
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    c->dstruct_bytes[k] = p->bytes;
    c->dstruct_field[k] = field;
    pg_binding_pack_struct(p, c->tensor_addr, c->ws_addr, c->dstruct_host[k]);
    pg_status st = encode_tensor_maps(c, p, c->dstruct_host[k], d);
    if (st == PG_OK)
        st = alloc(c, p->bytes, &c->dstruct[k], d);
    if (st == PG_OK)
        st = pg_buffer_upload(c->dstruct[k], c->dstruct_host[k], p->bytes, d);
    if (st != PG_OK)
        return st;
    uint64_t addr = pg_buffer_address(c->dstruct[k]);
    memcpy(slot, &addr, sizeof addr);
    return PG_OK;
}

static pg_status init_workspace(pg_wctx *c, int i, pg_diag *d)
{
    return c->s->manifest->ws[i].poison ? pg_buffer_fill_poison(c->ws[i], d)
                                        : pg_buffer_zero(c->ws[i], d);
}

/* The manifest's setup launches, once for this buffer set and outside every timed region: the
 * workspaces they bind initialised (zero or poison) first, then the launches and a wait with
 * the run's timeout. A setup launch that faults or hangs is PG_FAIL_KERNEL, like the kernel's
 * own failure, its message saying it was the setup. */
static pg_status run_setup(pg_wctx *c, pg_diag *d)
{
    const pg_manifest *m = c->s->manifest;
    pg_status st = PG_OK;
    for (int i = 0; i < m->n_ws && st == PG_OK; i++)
        if (m->ws[i].setup)
            st = init_workspace(c, i, d);
    if (st == PG_OK)
        st = pg_device_launch(c->run->dev, c->launches + c->plan->n_launches,
                              (size_t)c->plan->n_setup, d);
    if (st == PG_OK)
        st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    if (st == PG_FAIL_KERNEL) {
        char msg[sizeof d->message];
        snprintf(msg, sizeof msg, "%s", d->message);
        /* The CUDA error name stays first ("TIMEOUT: ...", "CUDA_ERROR_...: ..."). */
        pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL, "%s (in the setup launches)", msg);
    }
    return st;
}

/* max_active_clusters of the loaded kernel of launch l (a pg_clusters_query_fn). */
static pg_status kernel_clusters(void *ctx, int l, const uint32_t block[3], int64_t cluster_size,
                                 int64_t dynamic_shared_bytes, int64_t *out, char *err,
                                 size_t errlen)
{
    pg_wctx *c = ctx;
    pg_diag d;
    pg_diag_clear(&d);
    int n = 0;
    const unsigned b[3] = {block[0], block[1], block[2]};
    if (cluster_size > UINT32_MAX || dynamic_shared_bytes > UINT32_MAX) {
        snprintf(err, errlen, "an argument does not fit 32 bits");
        return PG_ERR_INPUT;
    }
    pg_status st = pg_kernel_max_active_clusters(c->kernels[l], b, (unsigned)cluster_size,
                                                 (unsigned)dynamic_shared_bytes, &n, &d);
    if (st != PG_OK) {
        snprintf(err, errlen, "%s", d.message);
        return st;
    }
    *out = n;
    return PG_OK;
}

/* The grid of launch l evaluated again now that its kernel is loaded, so that
 * max_active_clusters is the GPU's value for this kernel (cuOccupancyMaxActiveClusters); the
 * value goes into the workload's record (workloads[].max_active_clusters). */
static pg_status kernel_grid(pg_wctx *c, int l, unsigned grid[3], pg_diag *d)
{
    const pg_submission *s = c->s;
    pg_device_symbols dev = s->device_symbols;
    dev.query = kernel_clusters;
    dev.query_ctx = c;
    pg_launch_values lv = c->plan->launches[l];
    pg_status st = pg_plan_launch_grid(s->task, s->manifest, c->w, &dev, l, &lv, d);
    if (st != PG_OK)
        return st;
    memcpy(grid, lv.grid, sizeof lv.grid);
    pg_wl_state *wl = c->wl;
    if (!wl || s->is_accepted || l < 0 || l >= (int)(sizeof wl->clusters_of))
        return PG_OK; /* an accepted kernel's launches are not the candidate's */
    if (!wl->clusters) {
        wl->clusters = json_array();
        json_object_set_new(wl->json, "max_active_clusters", wl->clusters);
    }
    for (int j = 0; j < (int)sizeof wl->clusters_of; j++)
        if (wl->clusters_of[j] &&
            strcmp(s->manifest->launches[j].field, s->manifest->launches[l].field) == 0)
            return PG_OK; /* recorded by an earlier phase: the same kernel, the same value */
    wl->clusters_of[l] = true;
    json_t *rec = wl->clusters;
    json_array_append_new(rec, json_pack("{s:s, s:I, s:I, s:I, s:[I, I, I], s:s}", "launch",
                                         s->manifest->launches[l].field, "cluster_size",
                                         (json_int_t)lv.clusters_size, "dynamic_shared_bytes",
                                         (json_int_t)lv.clusters_shared_bytes, "value",
                                         (json_int_t)lv.clusters_value, "grid",
                                         (json_int_t)grid[0], (json_int_t)grid[1],
                                         (json_int_t)grid[2], "source",
                                         "cuOccupancyMaxActiveClusters"));
    return PG_OK;
}

/* c's problem fields: the GEMM of its workload when the task is a GEMM, the attention problem
 * when it is attention. */
static void problem_fields(pg_wctx *c)
{
    pg_diag ignored;
    pg_diag_clear(&ignored);
    c->is_gemm = pg_gemm_problem_of(c->s->task, c->w, &c->gemm, &ignored) == PG_OK;
    c->a = c->is_gemm ? c->gemm.a.tensor : -1;
    c->b = c->is_gemm ? c->gemm.b.tensor : -1;
    c->c_in = c->is_gemm && c->gemm.has_c ? c->gemm.c.tensor : -1;
    c->d_out = c->is_gemm ? c->gemm.d.tensor : -1;
    if (pg_operation_is_attention(c->s->task->op))
        pg_mha_problem_of(c->s->task, c->w, &c->mha, &ignored);
    else
        memset(&c->mha, 0, sizeof c->mha);
}

pg_status pg_wctx_setup(pg_wctx *c, pg_diag *d)
{
    const pg_task *t = c->s->task;
    const pg_manifest *m = c->s->manifest;
    pg_status st;
    problem_fields(c);
    for (int i = 0; i < t->n_tensors; i++) {
        if (c->inputs_from && !t->tensors[i].is_output) {
            c->tensors[i] = c->inputs_from->tensors[i];
            c->borrowed[i] = true;
            c->tensor_addr[i] = pg_buffer_address(c->tensors[i]);
            continue;
        }
        size_t bytes = (size_t)c->plan->tensor_elements[i] * pg_dtype_size(t->tensors[i].dtype);
        st = alloc(c, bytes ? bytes : 1, &c->tensors[i], d);
        if (st != PG_OK)
            return st;
        c->tensor_addr[i] = pg_buffer_address(c->tensors[i]);
    }
    for (int i = 0; i < m->n_ws; i++) {
        size_t bytes = (size_t)c->plan->workspace_bytes[i];
        st = alloc(c, bytes ? bytes : 1, &c->ws[i], d);
        if (st != PG_OK)
            return st;
        c->ws_addr[i] = pg_buffer_address(c->ws[i]);
    }
    /* The submission's launches, then its setup launches (run once below). */
    int n = c->plan->n_launches + c->plan->n_setup;
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
            if (lv->params[i].kind == PG_PARAM_DEVICE_STRUCT)
                st = setup_device_struct(c, &lv->params[i], m->launches[l].params[i].field,
                                         c->args[l].args[i], d);
            else
                st = encode_tensor_maps(c, &lv->params[i], c->args[l].args[i], d);
            if (st != PG_OK)
                return st;
        }
        pg_launch *L = &c->launches[l];
        L->kernel = c->kernels[l];
        memcpy(L->grid, lv->grid, sizeof L->grid);
        if (lv->clusters_used) {
            st = kernel_grid(c, l, L->grid, d);
            if (st != PG_OK)
                return st;
        }
        memcpy(L->block, lv->block, sizeof L->block);
        memcpy(L->cluster, lv->cluster, sizeof L->cluster);
        L->dynamic_shared_bytes = lv->dynamic_shared_bytes;
        L->args = c->args[l].args;
    }
    return c->plan->n_setup ? run_setup(c, d) : PG_OK;
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
    for (int k = 0; k < c->n_dstruct; k++) {
        if (c->dstruct[k])
            pg_buffer_free(c->dstruct[k]);
        free(c->dstruct_host[k]);
        c->dstruct[k] = NULL;
        c->dstruct_host[k] = NULL;
    }
    c->n_dstruct = 0;
    if (c->args)
        for (int l = 0; l < c->plan->n_launches + c->plan->n_setup; l++)
            pg_arg_block_free(&c->args[l]);
    free(c->args);
    free(c->launches);
    c->args = NULL;
    c->launches = NULL;
}

pg_status pg_wctx_init_workspaces(pg_wctx *c, pg_diag *d)
{
    for (int i = 0; i < c->s->manifest->n_ws; i++) {
        if (c->s->manifest->ws[i].setup)
            continue; /* a setup launch wrote it once: it keeps its contents */
        pg_status st = init_workspace(c, i, d);
        if (st != PG_OK)
            return st;
    }
    /* Device structs are written again with the workspaces: a kernel that changed its
     * descriptors never sees its own changes in the next run. */
    for (int k = 0; k < c->n_dstruct; k++) {
        pg_status st = pg_buffer_upload(c->dstruct[k], c->dstruct_host[k], c->dstruct_bytes[k], d);
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

pg_status pg_wctx_run_once(pg_wctx *c, pg_diag *d)
{
    double t0 = pg_now_s();
    pg_status st = pg_wctx_enqueue(c, d);
    if (st == PG_OK)
        st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    pg_phase_add(c, PG_PHASE_KERNEL, t0);
    return st;
}

uint64_t pg_wctx_refill_seed(const pg_wctx *c)
{
    return c->timing_seed + 64u * (uint64_t)c->refills;
}

pg_status pg_wctx_prepare_launch(void *wctx, pg_diag *d)
{
    pg_wctx *c = wctx;
    const pg_task *t = c->s->task;
    pg_status st = PG_OK;
    if (c->refresh_inputs) {
        c->refills++;
        st = pg_refrun_refill(c, pg_wctx_refill_seed(c), d);
    }
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (t->tensors[i].is_output)
            st = pg_buffer_fill_poison(c->tensors[i], d);
    return st == PG_OK ? pg_wctx_init_workspaces(c, d) : st;
}

pg_status pg_wctx_fill_inputs(pg_wctx *c, uint64_t seed, pg_diag *d)
{
    const pg_task *t = c->s->task;
    double t0 = pg_now_s();
    pg_status st = pg_refrun_fill_inputs(c, seed, d);
    if (st == PG_OK)
        st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    pg_phase_add(c, PG_PHASE_FILL, t0);
    t0 = pg_now_s();
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!t->tensors[i].is_output)
            st = pg_buffer_checksum(c->tensors[i], &c->input_sum[i], d);
    pg_phase_add(c, PG_PHASE_CHECKSUM, t0);
    return st;
}

/* One buffer's canaries: a line into why when they changed. */
static pg_status check_canaries(pg_buffer *b, const char *kind, const char *name, char *why,
                                size_t n, size_t *used, pg_diag *d)
{
    pg_canary_report r;
    pg_status st = pg_buffer_check_canaries(b, &r, d);
    if (st != PG_OK || (!r.front_changed && !r.back_changed))
        return st;
    if (r.back_changed && *used < n)
        *used += (size_t)snprintf(why + *used, n - *used,
                                  "%swrote past the end of %s %s: %zu guard bytes changed, at "
                                  "+%zu..+%zu bytes after its end",
                                  *used ? "; " : "", kind, name, r.back_changed, r.back_first,
                                  r.back_last);
    if (r.front_changed && *used < n)
        *used += (size_t)snprintf(why + *used, n - *used,
                                  "%swrote before the start of %s %s: %zu guard bytes changed, "
                                  "the nearest %zu bytes before it",
                                  *used ? "; " : "", kind, name, r.front_changed, r.front_nearest);
    return pg_buffer_rearm_canaries(b, d);
}

pg_status pg_wctx_check_guards(pg_wctx *c, char *why, size_t n, pg_diag *d)
{
    const pg_task *t = c->s->task;
    const pg_manifest *m = c->s->manifest;
    size_t used = 0;
    why[0] = '\0';
    pg_status st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    double t0 = pg_now_s();
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!c->borrowed[i])
            st = check_canaries(c->tensors[i], "tensor", t->tensors[i].name, why, n, &used, d);
    for (int i = 0; i < m->n_ws && st == PG_OK; i++)
        st = check_canaries(c->ws[i], "workspace", m->ws[i].name, why, n, &used, d);
    for (int k = 0; k < c->n_dstruct && st == PG_OK; k++)
        st = check_canaries(c->dstruct[k], "device_struct", c->dstruct_field[k], why, n, &used, d);
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++) {
        if (t->tensors[i].is_output)
            continue;
        uint64_t sum = 0;
        st = pg_buffer_checksum(c->tensors[i], &sum, d);
        if (st == PG_OK && sum != c->input_sum[i] && used < n)
            used += (size_t)snprintf(why + used, n - used,
                                     "%sinput %s was modified by the kernel (checksum %016llx, "
                                     "expected %016llx)",
                                     used ? "; " : "", t->tensors[i].name,
                                     (unsigned long long)sum,
                                     (unsigned long long)c->input_sum[i]);
    }
    pg_phase_add(c, PG_PHASE_GUARDS, t0);
    return st;
}

static json_t *hex(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return json_string(buf);
}

json_t *pg_wctx_addresses_json(const pg_wctx *c)
{
    json_t *j = json_object();
    for (int i = 0; i < c->s->task->n_tensors; i++)
        json_object_set_new(j, c->s->task->tensors[i].name, hex(c->tensor_addr[i]));
    for (int i = 0; i < c->s->manifest->n_ws; i++)
        json_object_set_new(j, c->s->manifest->ws[i].name, hex(c->ws_addr[i]));
    return j;
}

static json_t *guard_json(const pg_buffer *b)
{
    pg_buffer_guard g;
    pg_buffer_guard_info(b, &g);
    return json_pack("{s:b, s:I, s:I, s:I}", "vmm", g.vmm, "front_canary_bytes",
                     (json_int_t)g.front_canary_bytes, "back_canary_bytes",
                     (json_int_t)g.back_canary_bytes, "guard_bytes", (json_int_t)g.guard_bytes);
}

json_t *pg_wctx_guards_json(const pg_wctx *c)
{
    json_t *j = json_object();
    for (int i = 0; i < c->s->task->n_tensors; i++)
        if (c->tensors[i])
            json_object_set_new(j, c->s->task->tensors[i].name, guard_json(c->tensors[i]));
    for (int i = 0; i < c->s->manifest->n_ws; i++)
        if (c->ws[i])
            json_object_set_new(j, c->s->manifest->ws[i].name, guard_json(c->ws[i]));
    return j;
}
