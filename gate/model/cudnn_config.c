/* cuDNN engine configurations as text and JSON (see cudnn_config.h). */
#include "cudnn_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"

static const char *const k_graph_ids[PG_DNN_GRAPH_COUNT] = {
    "fused_sdpa_fwd", "composite_fwd", "composite_bwd", "composite_bwd_io_k_view"};

bool pg_dnn_graph_is_backward(pg_dnn_graph_kind k)
{
    return k == PG_DNN_GRAPH_BWD_COMPOSITE || k == PG_DNN_GRAPH_BWD_COMPOSITE_IO;
}

const char *pg_dnn_graph_id(pg_dnn_graph_kind k)
{
    return (int)k >= 0 && k < PG_DNN_GRAPH_COUNT ? k_graph_ids[k] : NULL;
}

bool pg_dnn_graph_from_id(const char *id, pg_dnn_graph_kind *out)
{
    for (int k = 0; k < PG_DNN_GRAPH_COUNT; k++)
        if (id && strcmp(id, k_graph_ids[k]) == 0) {
            *out = (pg_dnn_graph_kind)k;
            return true;
        }
    return false;
}

const char *pg_cudnn_knob_name(int type)
{
    /* cudnnBackendKnobType_t, in the order of cuDNN 9's cudnn_graph.h. */
    static const char *const names[] = {
        "SPLIT_K",     "SWIZZLE",     "TILE_SIZE",   "USE_TEX",      "EDGE",
        "KBLOCK",      "LDGA",        "LDGB",        "CHUNK_K",      "SPLIT_H",
        "WINO_TILE",   "MULTIPLY",    "SPLIT_K_BUF", "TILEK",        "STAGES",
        "REDUCTION_MODE", "CTA_SPLIT_K_MODE", "SPLIT_K_SLC", "IDX_MODE", "SLICED",
        "SPLIT_RS",    "SINGLEBUFFER", "LDGC",       "SPECFILT",     "KERNEL_CFG",
        "WORKSPACE",   "TILE_CGA",    "TILE_CGA_M",  "TILE_CGA_N",   "BLOCK_SIZE",
        "OCCUPANCY",   "ARRAY_SIZE_PER_THREAD", "NUM_C_PER_BLOCK", "SPLIT_COLS", "TILE_ROWS",
        "TILE_COLS",   "LOAD_SIZE",   "CTA_COUNT",   "STREAM_K",     "SPLIT_P_SLC",
        "TILE_M",      "TILE_N",      "WARP_SPEC_CFG", "SWAP_AB"};
    return type >= 0 && (size_t)type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

void pg_cudnn_config_sort(pg_cudnn_config *c)
{
    /* Insertion sort: a few dozen entries at most. */
    for (int i = 1; i < c->n_knobs; i++) {
        int32_t t = c->knob_type[i];
        int64_t v = c->knob_value[i];
        int j = i;
        for (; j > 0 && c->knob_type[j - 1] > t; j--) {
            c->knob_type[j] = c->knob_type[j - 1];
            c->knob_value[j] = c->knob_value[j - 1];
        }
        c->knob_type[j] = t;
        c->knob_value[j] = v;
    }
}

char *pg_cudnn_config_format(const pg_cudnn_config *c, char *out, size_t n)
{
    if (n == 0)
        return out;
    size_t used = (size_t)snprintf(out, n, "engine %lld", (long long)c->engine_id);
    for (int i = 0; i < c->n_knobs && used < n; i++) {
        const char *name = pg_cudnn_knob_name(c->knob_type[i]);
        if (name)
            used += (size_t)snprintf(out + used, n - used, "%s%s=%lld", i ? " " : "; ", name,
                                     (long long)c->knob_value[i]);
        else
            used += (size_t)snprintf(out + used, n - used, "%sKNOB%d=%lld", i ? " " : "; ",
                                     (int)c->knob_type[i], (long long)c->knob_value[i]);
    }
    if (used >= n && n >= 4) /* cut: say so */
        memcpy(out + n - 4, "...", 4);
    return out;
}

json_t *pg_cudnn_config_to_json(const pg_cudnn_config *c)
{
    json_t *knobs = json_array();
    for (int i = 0; i < c->n_knobs; i++) {
        const char *name = pg_cudnn_knob_name(c->knob_type[i]);
        json_array_append_new(knobs, json_pack("{s:i, s:o, s:I}", "type", (int)c->knob_type[i],
                                               "name", name ? json_string(name) : json_null(),
                                               "value", (json_int_t)c->knob_value[i]));
    }
    const char *graph = pg_dnn_graph_id(c->graph);
    return json_pack("{s:s, s:I, s:o}", "graph", graph ? graph : "", "engine_id",
                     (json_int_t)c->engine_id, "knobs", knobs);
}

static pg_status bad(const pg_jctx *ctx, const char *key, pg_diag *d, const char *what,
                     long long got)
{
    char f[512];
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                       "expected %s, got %lld", what, got);
}

static pg_status load_knob(const json_t *o, const pg_jctx *kc, pg_cudnn_config *out, pg_diag *d)
{
    static const char *const keys[] = {"type", "name", "value", NULL};
    int64_t type = 0, value = 0;
    pg_status st = pg_jcheck_keys(o, kc, keys, d);
    if (st == PG_OK)
        st = pg_jget_int(o, kc, "type", true, &type, d);
    if (st == PG_OK && (type < 0 || type > INT32_MAX))
        st = bad(kc, "type", d, "a knob type from 0 to 2147483647", (long long)type);
    if (st == PG_OK)
        st = pg_jget_int(o, kc, "value", true, &value, d);
    const json_t *name = json_object_get(o, "name");
    if (st == PG_OK && !json_is_string(name) && !json_is_null(name)) {
        char f[512];
        st = pg_diag_set(d, PG_ERR_INPUT, kc->file, 0, pg_jctx_field(kc, "name", f, sizeof f),
                         "expected the knob's name as a string or null, got %s",
                         name ? pg_json_type_name(name) : "nothing");
    }
    /* Informational, but not misleading: a type this table names carries that name (or null),
     * so the file reads as what is pinned and is written back byte for byte. A type it does
     * not name (a newer cuDNN's) may carry any name. */
    const char *known = st == PG_OK ? pg_cudnn_knob_name((int)type) : NULL;
    if (known && json_is_string(name) && strcmp(json_string_value(name), known) != 0) {
        char f[512];
        st = pg_diag_set(d, PG_ERR_INPUT, kc->file, 0, pg_jctx_field(kc, "name", f, sizeof f),
                         "expected \"%s\" (the name of knob type %lld) or null, got '%.*s'",
                         known, (long long)type, PG_UTF8_CUT(json_string_value(name), 64),
                         json_string_value(name));
    }
    for (int i = 0; st == PG_OK && i < out->n_knobs; i++)
        if (out->knob_type[i] == type)
            st = bad(kc, "type", d, "each knob type once, this one repeats", (long long)type);
    if (st == PG_OK) {
        out->knob_type[out->n_knobs] = (int32_t)type;
        out->knob_value[out->n_knobs] = value;
        out->n_knobs++;
    }
    return st;
}

pg_status pg_cudnn_config_from_json(const json_t *obj, const pg_jctx *ctx, pg_cudnn_config *out,
                                    pg_diag *d)
{
    static const char *const keys[] = {"graph", "engine_id", "knobs", NULL};
    memset(out, 0, sizeof *out);
    const char *graph = NULL;
    json_t *knobs = NULL;
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    if (st == PG_OK)
        st = pg_jget_string(obj, ctx, "graph", true, &graph, d);
    if (st == PG_OK && !pg_dnn_graph_from_id(graph, &out->graph)) {
        char f[512];
        st = pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "graph", f, sizeof f),
                         "expected one of fused_sdpa_fwd, composite_fwd, composite_bwd, "
                         "composite_bwd_io_k_view, got '%s'", graph);
    }
    if (st == PG_OK)
        st = pg_jget_int(obj, ctx, "engine_id", true, &out->engine_id, d);
    if (st == PG_OK && out->engine_id < 0)
        st = bad(ctx, "engine_id", d, "an engine index >= 0", (long long)out->engine_id);
    if (st == PG_OK)
        st = pg_jget_array(obj, ctx, "knobs", true, &knobs, d);
    if (st == PG_OK && json_array_size(knobs) > PG_CUDNN_MAX_KNOBS)
        st = bad(ctx, "knobs", d, "at most 64 knob choices", (long long)json_array_size(knobs));
    pg_jctx kl = pg_jctx_member(ctx, "knobs");
    for (size_t i = 0; st == PG_OK && i < json_array_size(knobs); i++) {
        pg_jctx kc = pg_jctx_index(&kl, i);
        const json_t *k = json_array_get(knobs, i);
        if (!json_is_object(k)) {
            char f[512];
            snprintf(f, sizeof f, "%s", kc.path);
            st = pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, f,
                             "expected a knob choice object {type, name, value}, got %s",
                             pg_json_type_name(k));
        } else {
            st = load_knob(k, &kc, out, d);
        }
    }
    if (st == PG_OK)
        pg_cudnn_config_sort(out);
    return st;
}

bool pg_cudnn_config_equal(const pg_cudnn_config *a, const pg_cudnn_config *b)
{
    if (a->graph != b->graph || a->engine_id != b->engine_id || a->n_knobs != b->n_knobs)
        return false;
    for (int i = 0; i < a->n_knobs; i++)
        if (a->knob_type[i] != b->knob_type[i] || a->knob_value[i] != b->knob_value[i])
            return false;
    return true;
}
