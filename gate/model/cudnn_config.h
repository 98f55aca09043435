/* A cuDNN engine configuration in a stable, serialisable form: which SDPA graph ptxgate built,
 * the engine's global index (CUDNN_ATTR_ENGINE_GLOBAL_INDEX) and its knob choices
 * (CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE / _KNOB_VALUE, cudnnBackendKnobType_t in cudnn_graph.h).
 * The engine configuration descriptor itself is opaque; these are the attributes the backend
 * API takes to re-create it. CUDA-free: the device layer converts. */
#ifndef PG_MODEL_CUDNN_CONFIG_H
#define PG_MODEL_CUDNN_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../base/jsonget.h"

/* Knob choices one configuration carries at most (cuDNN 9 defines 44 knob types). */
#define PG_CUDNN_MAX_KNOBS 64

/* The SDPA graphs of the device layer (device.h "cuDNN scaled-dot-product attention"). */
typedef enum {
    PG_DNN_GRAPH_FWD_FUSED,        /* "fused_sdpa_fwd": the SDPA_FWD operation */
    PG_DNN_GRAPH_FWD_COMPOSITE,    /* "composite_fwd" */
    PG_DNN_GRAPH_BWD_COMPOSITE,    /* "composite_bwd" */
    PG_DNN_GRAPH_BWD_COMPOSITE_IO, /* "composite_bwd_io_k_view" */
    PG_DNN_GRAPH_COUNT
} pg_dnn_graph_kind;

typedef struct {
    pg_dnn_graph_kind graph;
    int64_t engine_id;                          /* >= 0 */
    int n_knobs;                                /* 0..PG_CUDNN_MAX_KNOBS, sorted by type */
    int32_t knob_type[PG_CUDNN_MAX_KNOBS];      /* cudnnBackendKnobType_t values, ascending */
    int64_t knob_value[PG_CUDNN_MAX_KNOBS];
} pg_cudnn_config;

/* True for the backward graphs (composite_bwd, composite_bwd_io_k_view). */
bool pg_dnn_graph_is_backward(pg_dnn_graph_kind k);

/* "fused_sdpa_fwd", ...; NULL for a value out of range. */
const char *pg_dnn_graph_id(pg_dnn_graph_kind k);
/* The kind of an id; false when the id is none of them. */
bool pg_dnn_graph_from_id(const char *id, pg_dnn_graph_kind *out);

/* The cudnnBackendKnobType_t name without its prefix ("STAGES" for CUDNN_KNOB_TYPE_STAGES,
 * cuDNN 9 cudnn_graph.h order), or NULL for a type this table does not name. */
const char *pg_cudnn_knob_name(int type);

/* Sort the knob choices by type (cuDNN returns them in its own order), so equal
 * configurations compare and serialise equal. */
void pg_cudnn_config_sort(pg_cudnn_config *c);

/* Bytes that always hold pg_cudnn_config_format's text (64 knobs of the longest name and
 * value: about 2.9 KB), with room for a prefix such as "graph composite_bwd_io_k_view, ". */
#define PG_CUDNN_CONFIG_TEXT_MAX 4096

/* "engine 7; STAGES=3 TILE_M=128" (knobs by name, "KNOB<type>" when unnamed) into out (n
 * bytes, always NUL-terminated; a text cut to fit ends in "..."). Returns out. */
char *pg_cudnn_config_format(const pg_cudnn_config *c, char *out, size_t n);

/* {"graph": "composite_fwd", "engine_id": 7, "knobs": [{"type": 14, "name": "STAGES",
 * "value": 3}, ...]} with name null for an unnamed type. New reference. */
json_t *pg_cudnn_config_to_json(const pg_cudnn_config *c);

/* Read what pg_cudnn_config_to_json writes: every key required, no other key; graph one of the
 * ids; engine_id >= 0; at most PG_CUDNN_MAX_KNOBS knobs with distinct types in 0..INT32_MAX
 * (name: string or null, informational; for a type pg_cudnn_knob_name names, that name or null).
 * The result is sorted. Errors: PG_ERR_INPUT naming the
 * file and the JSON path (ctx) of the bad field. */
pg_status pg_cudnn_config_from_json(const json_t *obj, const pg_jctx *ctx, pg_cudnn_config *out,
                                    pg_diag *d);

/* Same graph, engine and knob choices (both sorted). */
bool pg_cudnn_config_equal(const pg_cudnn_config *a, const pg_cudnn_config *b);

#endif
