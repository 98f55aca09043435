/* Device symbols of manifest expressions (docs/formats.md "Device symbols"): num_sms, l2_bytes,
 * max_dynamic_shared_bytes and the function max_active_clusters, their values for one run (the GPU's, or the reference part of
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
/* The GPU's max_active_clusters for launch (index into the manifest's launches) with block
 * threads per block, clusters of cluster_size blocks along x and dynamic_shared_bytes: what
 * cuOccupancyMaxActiveClusters gives for the launch's loaded kernel. Errors: PG_ERR_INPUT or
 * PG_ERR_INFRA with the message in err. */
typedef pg_status (*pg_clusters_query_fn)(void *ctx, int launch, const uint32_t block[3],
                                          int64_t cluster_size, int64_t dynamic_shared_bytes,
                                          int64_t *out, char *err, size_t errlen);

/* cluster_sms: SMs that clusters can fill, for max_active_clusters without a loaded kernel
 * (the rule: cluster_sms / cluster size clusters, 0 when dynamic_shared_bytes exceeds
 * max_dynamic_shared_bytes; one block per SM assumed). query (with query_ctx): the loaded
 * kernels' values instead (the GPU worker sets it); NULL: the rule. */
typedef struct {
    int64_t values[PG_N_DEVICE_SYMBOLS];
    bool assumed;
    char source[320];
    int64_t cluster_sms;
    pg_clusters_query_fn query;
    void *query_ctx;
} pg_device_symbols;

/* "max_active_clusters": the device function (docs/formats.md). */
#define PG_CLUSTERS_FUNCTION "max_active_clusters"

/* max_active_clusters(cluster_size, dynamic_shared_bytes) by the rule of pg_device_symbols
 * (cluster_size >= 1, dynamic_shared_bytes >= 0). */
int64_t pg_device_symbols_clusters_rule(const pg_device_symbols *s, int64_t cluster_size,
                                        int64_t dynamic_shared_bytes);

/* Whether any launch, workspace or parameter expression of m (struct fields included) names a
 * device symbol or calls max_active_clusters. */
bool pg_manifest_uses_device_symbols(const pg_manifest *m);

/* Values from the GPU: sm_count, l2_bytes, max_shared_per_block_optin of cuDeviceGetAttribute;
 * name is the device's name; cluster_sms = sm_count (query NULL). */
void pg_device_symbols_from_device(int sm_count, long long l2_bytes, int max_shared_optin,
                                   const char *name, pg_device_symbols *out);

/* Values from table t's "reference_device" (cluster_sms too) and "launch_limits" (assumed). Errors: PG_ERR_INPUT
 * (file and field left for the caller) when t lacks either. */
pg_status pg_device_symbols_from_arch(const pg_arch_table *t, pg_device_symbols *out,
                                      pg_diag *d);

/* {"num_sms": 132, "l2_bytes": ..., "max_dynamic_shared_bytes": ..., "assumed": bool,
 * "source": "..."}: the values a submission's expressions used (results.json). New reference. */
json_t *pg_device_symbols_json(const pg_device_symbols *s);

#endif
