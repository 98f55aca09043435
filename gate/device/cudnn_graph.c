/* Building cuDNN backend graphs from C: tensors and operations with one sticky first error,
 * the operation graph, engine heuristics to an execution plan, variant packs (see
 * cudnn_internal.h). Attribute names and types follow cudnn_graph.h. */
#include "cudnn_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pg_dnn_graph_init(pg_dnn_graph *g, const pg_dnn_api *api)
{
    memset(g, 0, sizeof *g);
    g->api = api;
    g->status = CUDNN_STATUS_SUCCESS;
}

void pg_dnn_graph_release(pg_dnn_graph *g)
{
    /* In reverse: operations and plans before the tensors they refer to. */
    for (int i = g->n_descs - 1; i >= 0; i--)
        if (g->descs[i])
            g->api->DestroyDescriptor(g->descs[i]);
    g->n_descs = 0;
    g->n_ops = 0;
}

const char *pg_dnn_graph_error(const pg_dnn_graph *g, char *buf, size_t n)
{
    snprintf(buf, n, "%s: %s", g->failed_step, g->failed_text);
    return buf;
}

/* Record s as the graph's failure (the first one only) with the step it happened in. */
static bool failed(pg_dnn_graph *g, cudnnStatus_t s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool failed(pg_dnn_graph *g, cudnnStatus_t s, const char *fmt, ...)
{
    if (s == CUDNN_STATUS_SUCCESS)
        return false;
    if (g->status == CUDNN_STATUS_SUCCESS) {
        g->status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->failed_step, sizeof g->failed_step, fmt, ap);
        va_end(ap);
        pg_dnn_describe(g->api, s, g->failed_text, sizeof g->failed_text);
    }
    return true;
}

static cudnnBackendDescriptor_t create(pg_dnn_graph *g, cudnnBackendDescriptorType_t type,
                                       const char *what)
{
    if (g->status != CUDNN_STATUS_SUCCESS)
        return NULL;
    if (g->n_descs >= PG_DNN_MAX_DESCS) {
        failed(g, CUDNN_STATUS_BAD_PARAM, "create %s: more than %d descriptors in one graph",
               what, PG_DNN_MAX_DESCS);
        return NULL;
    }
    cudnnBackendDescriptor_t desc = NULL;
    if (failed(g, g->api->CreateDescriptor(type, &desc), "create %s", what))
        return NULL;
    g->descs[g->n_descs++] = desc;
    return desc;
}

/* Set one attribute unless the graph already failed; false on failure. */
static bool set(pg_dnn_graph *g, cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name,
                cudnnBackendAttributeType_t type, int64_t count, const void *value,
                const char *what)
{
    if (g->status != CUDNN_STATUS_SUCCESS || !desc)
        return false;
    return !failed(g, g->api->SetAttribute(desc, name, type, count, value),
                   "set attribute %d of %s", (int)name, what);
}

static bool finalize(pg_dnn_graph *g, cudnnBackendDescriptor_t desc, const char *what)
{
    if (g->status != CUDNN_STATUS_SUCCESS || !desc)
        return false;
    return !failed(g, g->api->Finalize(desc), "finalize %s", what);
}

static void add_op(pg_dnn_graph *g, cudnnBackendDescriptor_t op, const char *what)
{
    if (!finalize(g, op, what))
        return;
    if (g->n_ops >= PG_DNN_MAX_OPS) {
        failed(g, CUDNN_STATUS_BAD_PARAM, "%s: more than %d operations", what, PG_DNN_MAX_OPS);
        return;
    }
    g->ops[g->n_ops++] = op;
}

cudnnBackendDescriptor_t pg_dnn_tensor(pg_dnn_graph *g, int64_t uid, cudnnDataType_t type, int nd,
                                       const int64_t *dims, const int64_t *strides,
                                       bool is_virtual, bool by_value)
{
    char what[64];
    snprintf(what, sizeof what, "tensor %lld", (long long)uid);
    cudnnBackendDescriptor_t t = create(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, what);
    const int64_t alignment = 16;
    set(g, t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, what);
    set(g, t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims, what);
    set(g, t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides, what);
    set(g, t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, what);
    set(g, t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment, what);
    if (is_virtual)
        set(g, t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual, what);
    if (by_value)
        set(g, t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value, what);
    return finalize(g, t, what) ? t : NULL;
}

void pg_dnn_matmul(pg_dnn_graph *g, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                   cudnnBackendDescriptor_t c, const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "matmul '%s'", name);
    cudnnBackendDescriptor_t mm = create(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, what);
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    set(g, mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute, what);
    finalize(g, mm, what);
    cudnnBackendDescriptor_t op = create(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, what);
    set(g, op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a, what);
    set(g, op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b, what);
    set(g, op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c, what);
    set(g, op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm, what);
    add_op(g, op, what);
}

void pg_dnn_pointwise(pg_dnn_graph *g, cudnnPointwiseMode_t mode, cudnnDataType_t precision,
                      cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                      cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y, int64_t axis,
                      const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "pointwise mode %d '%s'", (int)mode, name);
    cudnnBackendDescriptor_t pw = create(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, what);
    set(g, pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, what);
    set(g, pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision, what);
    if (axis >= 0)
        set(g, pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis, what);
    finalize(g, pw, what);
    cudnnBackendDescriptor_t op = create(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, what);
    set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw,
        what);
    set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, what);
    if (b)
        set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b,
            what);
    if (t)
        set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t,
            what);
    set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, what);
    add_op(g, op, what);
}

void pg_dnn_reduction(pg_dnn_graph *g, cudnnReduceTensorOp_t rop, cudnnBackendDescriptor_t x,
                      cudnnBackendDescriptor_t y, const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "reduction %d '%s'", (int)rop, name);
    cudnnBackendDescriptor_t red = create(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, what);
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    set(g, red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &rop, what);
    set(g, red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute, what);
    finalize(g, red, what);
    cudnnBackendDescriptor_t op = create(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, what);
    set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, what);
    set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, what);
    set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &red, what);
    add_op(g, op, what);
}

void pg_dnn_reshape(pg_dnn_graph *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y,
                    const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "reshape '%s'", name);
    cudnnBackendDescriptor_t op = create(g, CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, what);
    set(g, op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, what);
    set(g, op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, what);
    add_op(g, op, what);
}

void pg_dnn_sdpa_fwd(pg_dnn_graph *g, cudnnBackendDescriptor_t q, cudnnBackendDescriptor_t k,
                     cudnnBackendDescriptor_t v, cudnnBackendDescriptor_t o,
                     cudnnBackendDescriptor_t stats, cudnnBackendDescriptor_t scale)
{
    const char *what = "operation SDPA_FWD";
    cudnnBackendDescriptor_t op = create(g, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, what);
    const cudnnBackendAttributeType_t d = CUDNN_TYPE_BACKEND_DESCRIPTOR;
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, d, 1, &q, what);
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, d, 1, &k, what);
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, d, 1, &v, what);
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, d, 1, &o, what);
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, d, 1, &stats, what);
    set(g, op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, d, 1, &scale, what);
    add_op(g, op, what);
}

/* Engine id and knob choices of an engine configuration into info->config (graph left as it
 * is); best effort: an engine it cannot read stays -1, a knob it cannot read is left out. */
static void describe_config(const pg_dnn_api *api, cudnnBackendDescriptor_t cfg,
                            pg_cudnn_sdpa_info *info)
{
    pg_cudnn_config *out = &info->config;
    out->engine_id = -1;
    out->n_knobs = 0;
    cudnnBackendDescriptor_t engine = NULL;
    int64_t count = 0;
    if (api->CreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) == CUDNN_STATUS_SUCCESS) {
        if (api->GetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                              &count, &engine) == CUDNN_STATUS_SUCCESS &&
            count == 1) {
            int64_t id = -1;
            if (api->GetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                  &count, &id) == CUDNN_STATUS_SUCCESS)
                out->engine_id = id;
        }
        api->DestroyDescriptor(engine);
    }
    enum { MAX_KNOBS = CUDNN_KNOB_TYPE_COUNTS < PG_CUDNN_MAX_KNOBS ? CUDNN_KNOB_TYPE_COUNTS
                                                                   : PG_CUDNN_MAX_KNOBS };
    cudnnBackendDescriptor_t knobs[MAX_KNOBS];
    int made = 0;
    for (; made < MAX_KNOBS; made++)
        if (api->CreateDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knobs[made]) !=
            CUDNN_STATUS_SUCCESS)
            break;
    count = 0;
    if (made == MAX_KNOBS &&
        api->GetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                          MAX_KNOBS, &count, knobs) == CUDNN_STATUS_SUCCESS) {
        for (int64_t i = 0; i < count && i < MAX_KNOBS; i++) {
            cudnnBackendKnobType_t type;
            int64_t value = 0, c = 0;
            if (api->GetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                  CUDNN_TYPE_KNOB_TYPE, 1, &c, &type) != CUDNN_STATUS_SUCCESS ||
                api->GetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64,
                                  1, &c, &value) != CUDNN_STATUS_SUCCESS)
                continue;
            out->knob_type[out->n_knobs] = (int32_t)type;
            out->knob_value[out->n_knobs] = value;
            out->n_knobs++;
        }
    }
    for (int i = 0; i < made; i++)
        api->DestroyDescriptor(knobs[i]);
    pg_cudnn_config_sort(out);
}

/* The engine configuration pin names, re-created for opgraph: the engine by its global index,
 * then its knob choices. Owned by g; NULL with g's failure set when cuDNN refuses a step. */
static cudnnBackendDescriptor_t pinned_config(pg_dnn_graph *g, cudnnBackendDescriptor_t opgraph,
                                              const pg_cudnn_config *pin)
{
    const char *what = "pinned engine";
    cudnnBackendDescriptor_t engine = create(g, CUDNN_BACKEND_ENGINE_DESCRIPTOR, what);
    int64_t index = pin->engine_id;
    set(g, engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opgraph,
        what);
    set(g, engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index, what);
    if (!finalize(g, engine, what))
        return NULL;
    cudnnBackendDescriptor_t knobs[PG_CUDNN_MAX_KNOBS];
    for (int i = 0; i < pin->n_knobs; i++) {
        what = "pinned knob choice";
        knobs[i] = create(g, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, what);
        cudnnBackendKnobType_t type = (cudnnBackendKnobType_t)pin->knob_type[i];
        int64_t value = pin->knob_value[i];
        set(g, knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type, what);
        set(g, knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value, what);
        if (!finalize(g, knobs[i], what))
            return NULL;
    }
    what = "pinned engine configuration";
    cudnnBackendDescriptor_t cfg = create(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, what);
    set(g, cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine, what);
    if (pin->n_knobs > 0)
        set(g, cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
            pin->n_knobs, knobs, what);
    return finalize(g, cfg, what) ? cfg : NULL;
}

/* An execution plan of cfg for handle, or NULL with g's failure set. Owned by g. */
static cudnnBackendDescriptor_t make_plan(pg_dnn_graph *g, cudnnHandle_t handle,
                                          cudnnBackendDescriptor_t cfg)
{
    cudnnBackendDescriptor_t p = create(g, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
                                        "execution plan");
    set(g, p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, "execution plan");
    set(g, p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg,
        "execution plan");
    return finalize(g, p, "execution plan") ? p : NULL;
}

/* The configurations heuristics `mode` offers, at most max; first the count, then the list.
 * The configuration descriptors are owned by g. */
static int heuristics(pg_dnn_graph *g, cudnnBackendDescriptor_t opgraph,
                      cudnnBackendHeurMode_t mode, int max, cudnnBackendDescriptor_t *cfgs,
                      int *returned)
{
    const char *what = mode == CUDNN_HEUR_MODE_A ? "engine heuristics (mode A)"
                                                 : "engine heuristics (fallback)";
    *returned = 0;
    cudnnBackendDescriptor_t heur = create(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, what);
    set(g, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &opgraph, what);
    set(g, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, what);
    if (!finalize(g, heur, what))
        return 0;
    int64_t count = 0;
    if (failed(g, g->api->GetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL),
               "count the results of %s", what))
        return 0;
    *returned = (int)count;
    int n = count < max ? (int)count : max;
    for (int i = 0; i < n; i++)
        if (!(cfgs[i] = create(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine configuration")))
            return 0;
    int64_t got = 0;
    if (n > 0 && failed(g, g->api->GetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &got, cfgs),
                        "read the results of %s", what))
        return 0;
    return (int)(got < n ? got : n);
}

/* The workspace size of a finalized plan into info. */
static pg_status plan_workspace(pg_dnn_graph *g, cudnnBackendDescriptor_t plan,
                                pg_cudnn_sdpa_info *info, pg_diag *d)
{
    int64_t ws = 0, c = 0;
    cudnnStatus_t s = g->api->GetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                           CUDNN_TYPE_INT64, 1, &c, &ws);
    if (s != CUDNN_STATUS_SUCCESS || ws < 0) {
        char err[640];
        pg_dnn_describe(g->api, s, err, sizeof err);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "reading the plan's workspace size: %s", err);
    }
    info->workspace_bytes = (size_t)ws;
    return PG_OK;
}

/* The pinned configuration's plan. PG_ERR_INPUT naming the configuration when cuDNN refuses
 * it (the caller may search instead). */
static pg_status plan_pinned(pg_dnn_graph *g, cudnnHandle_t handle,
                             cudnnBackendDescriptor_t opgraph, const pg_cudnn_config *pin,
                             cudnnBackendDescriptor_t *plan, pg_cudnn_sdpa_info *info,
                             pg_diag *d)
{
    cudnnBackendDescriptor_t cfg = pinned_config(g, opgraph, pin);
    if (cfg)
        *plan = make_plan(g, handle, cfg);
    if (!*plan) {
        char err[1024], text[600];
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "cuDNN refused the pinned configuration (%s): %s",
                           pg_cudnn_config_format(pin, text, sizeof text),
                           pg_dnn_graph_error(g, err, sizeof err));
    }
    info->configs_returned = 0;
    info->configs_tried = 1;
    snprintf(info->heuristics, sizeof info->heuristics, "pinned");
    info->config.engine_id = pin->engine_id;
    info->config.n_knobs = pin->n_knobs;
    memcpy(info->config.knob_type, pin->knob_type, sizeof pin->knob_type);
    memcpy(info->config.knob_value, pin->knob_value, sizeof pin->knob_value);
    return plan_workspace(g, *plan, info, d);
}

pg_status pg_dnn_plan(pg_dnn_graph *g, cudnnHandle_t handle, int max_configs,
                      const pg_cudnn_config *pin, cudnnBackendDescriptor_t *plan,
                      pg_cudnn_sdpa_info *info, pg_diag *d)
{
    char err[1024];
    *plan = NULL;
    const char *what = "operation graph";
    cudnnBackendDescriptor_t opgraph = create(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, what);
    set(g, opgraph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->n_ops, g->ops,
        what);
    set(g, opgraph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, what);
    finalize(g, opgraph, what);
    if (g->status != CUDNN_STATUS_SUCCESS)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s",
                           pg_dnn_graph_error(g, err, sizeof err));
    if (pin)
        return plan_pinned(g, handle, opgraph, pin, plan, info, d);
    if (max_configs < 1)
        max_configs = 1;
    if (max_configs > 64)
        max_configs = 64;
    static const cudnnBackendHeurMode_t modes[] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    char last[640] = "no engine configuration was offered";
    int tried = 0;
    for (int m = 0; m < 2 && !*plan; m++) {
        cudnnBackendDescriptor_t cfgs[64];
        int returned = 0;
        int n = heuristics(g, opgraph, modes[m], max_configs, cfgs, &returned);
        if (g->status != CUDNN_STATUS_SUCCESS) {
            /* A mode that fails (e.g. no fallback list) leaves the other one to try. */
            pg_dnn_graph_error(g, last, sizeof last);
            g->status = CUDNN_STATUS_SUCCESS;
            continue;
        }
        for (int i = 0; i < n && !*plan; i++) {
            tried++;
            cudnnBackendDescriptor_t p = make_plan(g, handle, cfgs[i]);
            if (p) {
                *plan = p;
                info->configs_returned = returned;
                snprintf(info->heuristics, sizeof info->heuristics, "%s",
                         m == 0 ? "mode A" : "fallback");
                describe_config(g->api, cfgs[i], info);
            } else {
                snprintf(last, sizeof last, "configuration %d of %s: %s", i,
                         m == 0 ? "mode A" : "fallback", g->failed_text);
                g->status = CUDNN_STATUS_SUCCESS; /* try the next configuration */
            }
        }
    }
    info->configs_tried = tried;
    if (!*plan)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "no engine configuration finalized (%d tried; last: %s)", tried, last);
    return plan_workspace(g, *plan, info, d);
}

pg_status pg_dnn_variant_pack(const pg_dnn_api *api, const int64_t *uids, void *const *ptrs,
                              int n, void *workspace, cudnnBackendDescriptor_t *out, pg_diag *d)
{
    char err[640];
    cudnnBackendDescriptor_t vp = NULL;
    *out = NULL;
    cudnnStatus_t s = api->CreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->SetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->SetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n,
                              ptrs);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->SetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                              &workspace);
    if (s == CUDNN_STATUS_SUCCESS)
        s = api->Finalize(vp);
    if (s != CUDNN_STATUS_SUCCESS) {
        pg_dnn_describe(api, s, err, sizeof err);
        if (vp)
            api->DestroyDescriptor(vp);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cuDNN variant pack: %s", err);
    }
    *out = vp;
    return PG_OK;
}
