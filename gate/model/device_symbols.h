/* Device symbols of manifest expressions (docs/formats.md "Device symbols"): num_sms, l2_bytes
 * and max_dynamic_shared_bytes, their values for one run (the GPU's, or the reference part of
 * the architecture's table when there is no GPU, marked assumed), and which manifests use them. */
#ifndef PG_MODEL_DEVICE_SYMBOLS_H
#define PG_MODEL_DEVICE_SYMBOLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch_table.h"
#include "manifest.h"

#define PG_N_DEVICE_SYMBOLS 3

/* The names, in this order: "num_sms", "l2_bytes", "max_dynamic_shared_bytes". Static. */
extern const char *const pg_device_symbol_names[PG_N_DEVICE_SYMBOLS];

/* Values in the order of pg_device_symbol_names: SMs, bytes of L2, bytes of dynamic shared
 * memory one block may have with the opt-in (the kernel's static shared memory comes out of
 * the same budget). assumed: values of the table's reference part, not of a GPU at hand;
 * source says which ("NVIDIA H200" or "assumed: data/arch/sm_90a.json reference_device H200
 * SXM"). */
typedef struct {
    int64_t values[PG_N_DEVICE_SYMBOLS];
    bool assumed;
    char source[320];
} pg_device_symbols;

/* Whether any launch, workspace or parameter expression of m (struct fields included) names a
 * device symbol. */
bool pg_manifest_uses_device_symbols(const pg_manifest *m);

/* Values from the GPU: sm_count, l2_bytes, max_shared_per_block_optin of cuDeviceGetAttribute;
 * name is the device's name. */
void pg_device_symbols_from_device(int sm_count, long long l2_bytes, int max_shared_optin,
                                   const char *name, pg_device_symbols *out);

/* Values from table t's "reference_device" and "launch_limits" (assumed). Errors: PG_ERR_INPUT
 * (file and field left for the caller) when t lacks either. */
pg_status pg_device_symbols_from_arch(const pg_arch_table *t, pg_device_symbols *out,
                                      pg_diag *d);

/* {"num_sms": 132, "l2_bytes": ..., "max_dynamic_shared_bytes": ..., "assumed": bool,
 * "source": "..."}: the values a submission's expressions used (results.json). New reference. */
json_t *pg_device_symbols_json(const pg_device_symbols *s);

#endif
