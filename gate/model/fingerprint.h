/* The environment fingerprint a stored baseline was measured in (docs/baselines.md): the GPU,
 * the software that shapes its numbers (driver, CUDA, ptxas, cuBLASLt, cuDNN) and the settings that
 * shape its clocks (maximum clocks, power limit, ECC). No UUID, host name or bus id: a
 * fingerprint describes a kind of runner, not one machine. Pure: filled by the pipeline from
 * the device, compared here. */
#ifndef PG_MODEL_FINGERPRINT_H
#define PG_MODEL_FINGERPRINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"
#include "../base/jsonget.h"

/* Strings are "" and numbers 0 when unknown; ecc is -1 when unknown. */
typedef struct {
    char gpu_name[256];          /* "NVIDIA H200" */
    char compute_capability[16]; /* "9.0" */
    int sm_count;
    char driver_version[64];     /* NVML, "580.159.04" */
    int cuda_driver_api_version; /* cuDriverGetVersion, 13000 = CUDA 13.0 */
    char ptxas_version[64];      /* "13.0.88" */
    long cublaslt_version;       /* cublasLtGetVersion, 130100 = 13.1.0 */
    long cudnn_version;          /* cudnnGetVersion, 91400 = 9.14.0 */
    int max_sm_clock_mhz;        /* NVML maximum SM clock */
    int max_memory_clock_mhz;    /* NVML maximum memory clock */
    double power_limit_w;        /* NVML enforced power limit, W */
    int ecc;                     /* NVML current ECC mode: 1 on, 0 off, -1 unknown */
} pg_fingerprint;

/* A cleared fingerprint: everything unknown. */
void pg_fingerprint_init(pg_fingerprint *f);

/* Every field as a key; unknown values are null. New reference. */
json_t *pg_fingerprint_to_json(const pg_fingerprint *f);

/* Read what pg_fingerprint_to_json writes: every key required (null allowed), no other key,
 * strings within their field's size, numbers >= 0 (compute_capability "N.N"). Errors:
 * PG_ERR_INPUT naming the file and the JSON path (ctx) of the bad field. */
pg_status pg_fingerprint_from_json(const json_t *obj, const pg_jctx *ctx, pg_fingerprint *out,
                                   pg_diag *d);

/* One field that differs between a stored and a live fingerprint. */
typedef struct {
    const char *field;  /* the JSON key, e.g. "driver_version" */
    char stored[64];    /* the value as text, "unknown" when unknown */
    char live[64];
    bool gpu;           /* a field of the GPU itself (name, compute capability, SMs) */
} pg_fingerprint_change;

#define PG_FINGERPRINT_FIELDS 12

/* Compare field by field (strings exactly, power limits within 0.5 W); an unknown value on one
 * side only is a difference, unknown on both sides is not. Writes at most PG_FINGERPRINT_FIELDS
 * changes into out (caller-owned) in the order of the struct and returns their count. */
int pg_fingerprint_diff(const pg_fingerprint *stored, const pg_fingerprint *live,
                        pg_fingerprint_change out[PG_FINGERPRINT_FIELDS]);

/* True when both cuBLASLt versions are known and equal: a stored algorithm may then be pinned. */
bool pg_fingerprint_same_cublaslt(const pg_fingerprint *stored, const pg_fingerprint *live);

/* True when both cuDNN versions are known and equal: a stored engine configuration may then be
 * pinned. */
bool pg_fingerprint_same_cudnn(const pg_fingerprint *stored, const pg_fingerprint *live);

#endif
