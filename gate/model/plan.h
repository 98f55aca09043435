/* Launch plans: a manifest's expressions evaluated for one workload of its task (launch geometry,
 * shared memory, kernel parameter values, workspace and tensor sizes, floating-point operations).
 * Only value ranges are checked here; device limits are checked later by the device layer. */
#ifndef PG_MODEL_PLAN_H
#define PG_MODEL_PLAN_H

#include <stdint.h>

#include "../base/diag.h"
#include "manifest.h"
#include "task.h"
#include "device_symbols.h"
#include "tensor_map.h"

/* One parameter value. kind and type are the binding's. ref_index: tensor index (TENSOR and
 * TENSOR_MAP) or workspace index (WORKSPACE), else -1. v: the member named by type holds the
 * value (u32, s32, u64, s64 for VALUE; f32, f64 for SCALAR); unused for addresses (the caller
 * binds them). tmap (TENSOR_MAP only): the validated map without its address; the device layer
 * encodes it once the tensor's buffer exists. A STRUCT holds the values of its fields, each with
 * its offset; a ZERO field has no value (its bytes stay zero). */
typedef struct pg_param_value {
    pg_param_kind kind;
    pg_param_type type;
    int ref_index;
    union {
        uint64_t u64;
        int64_t s64;
        uint32_t u32;
        int32_t s32;
        float f32;
        double f64;
    } v;
    pg_tensor_map_desc tmap;
    uint32_t offset;                /* struct fields: byte offset in the struct, else 0 */
    uint32_t bytes;                 /* STRUCT / DEVICE_STRUCT / ZERO: the struct's (padding's)
                                       size in bytes, else the type's size */
    struct pg_param_value *fields;  /* STRUCT / DEVICE_STRUCT: its fields' values (owned) */
    int n_fields;
} pg_param_value;

/* One launch: geometry in CTAs / threads, cluster {0,0,0} = no cluster; dynamic shared memory in
 * bytes; n_params values in the manifest's order (owned by the plan). */
typedef struct {
    uint32_t grid[3], block[3], cluster[3];
    uint32_t dynamic_shared_bytes;
    pg_param_value *params;
    int n_params;
    /* The last max_active_clusters call of the grid (clusters_used false: none): its
     * arguments and the value it took. */
    bool clusters_used;
    int64_t clusters_size, clusters_shared_bytes, clusters_value;
} pg_launch_values;

/* Largest workspace a manifest may ask for: 1 TiB, above the memory of any GPU ptxgate targets
 * (H200 141 GB, B200 180 GB), so a runaway size expression is an input error before any GPU
 * work. */
#define PG_MAX_WORKSPACE_BYTES ((int64_t)1 << 40)

/* launches: n_launches entries in manifest order (owned). workspace_bytes[i]: bytes of workspace
 * m->ws[i]. tensor_elements[i]: elements of task tensor i. flop: floating-point operations of one
 * run (the task's flops expression). */
typedef struct {
    pg_launch_values *launches; /* n_launches, then the n_setup setup launches */
    int n_launches;
    int n_setup;
    uint64_t workspace_bytes[PG_MAX_WORKSPACES];
    uint64_t tensor_elements[PG_MAX_TENSORS];
    double flop;
} pg_plan;

/* Evaluate every expression of m (checked with pg_manifest_check_task) and of t for workload w
 * into *out (zeroed first; release with pg_plan_free, also after an error).
 * Errors (PG_ERR_INPUT): file = m->file and field = the manifest field ("launches[0].grid[0]",
 * "launches[0].params[3].value", "workspaces.ws.bytes"), or file = t->file and field "flops" /
 * "tensors[i].dims": an expression error (division by zero, overflow, unknown symbol), a value that
 * does not fit (grid x 1..2^31-1; grid y/z, block and cluster dims 1..65535; dynamic_shared_bytes
 * 0..UINT32_MAX; u32 0..UINT32_MAX, s32 INT32_MIN..INT32_MAX, u64 >= 0), negative workspace sizes
 * or flops, a tensor param naming no task tensor or a workspace param naming no workspace. Each
 * message names the workload. */
pg_status pg_plan_build(const pg_task *t, const pg_manifest *m, const pg_workload *w, pg_plan *out,
                        pg_diag *d);

/* The same with the device symbols (device_symbols.h) bound to dev's values; dev NULL: none
 * (an expression naming one is then an unknown symbol). Grid expressions may call
 * max_active_clusters (dev->query's value, else dev's rule; without dev an error naming the
 * grid field); the block is evaluated before the grid. pg_plan_build is this with NULL. */
pg_status pg_plan_build_on(const pg_task *t, const pg_manifest *m, const pg_workload *w,
                           const pg_device_symbols *dev, pg_plan *out, pg_diag *d);

/* Evaluate the grid of launch index l (into m->launches) of workload w again into lv->grid
 * (and lv->clusters_*), with dev's values: the GPU worker calls it once the launch's kernel
 * is loaded, dev->query set, so that max_active_clusters takes the kernel's own value. lv
 * holds the launch's block from pg_plan_build_on. Errors: those of pg_plan_build_on for the
 * grid fields, lv unchanged. */
pg_status pg_plan_launch_grid(const pg_task *t, const pg_manifest *m, const pg_workload *w,
                              const pg_device_symbols *dev, int l, pg_launch_values *lv,
                              pg_diag *d);

/* [{"launch": "launches[0]", "cluster_size": 2, "dynamic_shared_bytes": 214064,
 * "value": 66}, ...] for the launches of p whose grid called max_active_clusters; NULL when
 * none did. New reference. */
json_t *pg_plan_clusters_json(const pg_manifest *m, const pg_plan *p);

/* Free what p owns and zero it. p may be NULL. */
void pg_plan_free(pg_plan *p);

#endif
