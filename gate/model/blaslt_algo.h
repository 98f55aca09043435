/* A cuBLASLt matmul algorithm in a stable, serialisable form. cublasLtMatmulAlgo_t itself is
 * opaque (8 × uint64 of library-private data); what can be stored and re-created with
 * cublasLtMatmulAlgoInit + cublasLtMatmulAlgoConfigSetAttribute are its configuration attributes
 * (cublasLtMatmulAlgoConfigAttributes_t in cublasLt.h). CUDA-free: the device layer converts. */
#ifndef PG_MODEL_BLASLT_ALGO_H
#define PG_MODEL_BLASLT_ALGO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../base/jsonget.h"

/* The configuration attributes, with the types cublasLt.h gives them. */
typedef struct {
    int32_t algo_id;        /* CUBLASLT_ALGO_CONFIG_ID (read-only: set by AlgoInit) */
    uint32_t tile;          /* CUBLASLT_ALGO_CONFIG_TILE_ID (cublasLtMatmulTile_t) */
    uint32_t stages;        /* CUBLASLT_ALGO_CONFIG_STAGES_ID (cublasLtMatmulStages_t) */
    int32_t splitk;         /* CUBLASLT_ALGO_CONFIG_SPLITK_NUM (>= 1) */
    uint32_t reduction;     /* CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME */
    uint32_t swizzle;       /* CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING */
    uint32_t custom;        /* CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION */
    uint16_t inner_shape;   /* CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID */
    uint16_t cluster_shape; /* CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID */
} pg_blaslt_algo;

/* "algo_id=6 tile=20 stages=8 splitk=1 reduction=0 swizzle=0 custom=0 inner_shape=0
 * cluster_shape=2" (one line, the order above) into out (n bytes, always NUL-terminated). This
 * is the `baseline.algorithm` text of the performance stage. Returns out. */
char *pg_blaslt_algo_format(const pg_blaslt_algo *a, char *out, size_t n);

/* {"algo_id": .., "tile": .., ...}: every attribute as a JSON integer. New reference. */
json_t *pg_blaslt_algo_to_json(const pg_blaslt_algo *a);

/* Read the object written by pg_blaslt_algo_to_json: every key required, no other key, each an
 * integer in its C type's range (algo_id >= 0, splitk >= 1). Errors: PG_ERR_INPUT naming the
 * file and JSON path of the bad field (ctx). */
pg_status pg_blaslt_algo_from_json(const json_t *obj, const pg_jctx *ctx, pg_blaslt_algo *out,
                                   pg_diag *d);

bool pg_blaslt_algo_equal(const pg_blaslt_algo *a, const pg_blaslt_algo *b);

#endif
