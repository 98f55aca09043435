/* A launch plan against the launch limits, checked before anything runs so that a launch the GPU
 * cannot take is an input error naming the manifest field, not a kernel fault. One rule for every
 * path: before anything runs with a GPU the limits are the device's (cuDeviceGetAttribute),
 * without one the architecture's (data/arch/<arch>.json, "launch_limits"), and the messages are
 * the same; at each launch the device layer applies the same rule (pg_launch_limits_fit) to the
 * launch with the kernel's static shared memory added (device/launch.c), in its own words. */
#ifndef PG_MODEL_LAUNCH_LIMITS_H
#define PG_MODEL_LAUNCH_LIMITS_H

#include <stdbool.h>

#include "../base/diag.h"
#include "arch_table.h"
#include "manifest.h"
#include "plan.h"
#include "task.h"

/* Limits as the driver reports them (cuDeviceGetAttribute), or as the architecture's table gives
 * them. */
typedef struct {
    char target[64];                /* what messages say the limits are of: the submission's
                                       architecture ("sm_90a"), on both paths */
    int max_threads_per_block;      /* 1024 on sm_90 */
    int max_block_dim[3];           /* 1024, 1024, 64 */
    int max_grid_dim[3];            /* 2^31 − 1, 65535, 65535 */
    int max_shared_per_block_optin; /* bytes of dynamic + static shared memory with opt-in */
    int cc_major;                   /* thread block clusters need compute capability >= 9 */
    int max_cluster_blocks_portable; /* 8; for the message only */
    int max_cluster_blocks;         /* blocks per cluster with the non-portable opt-in (16 on
                                       sm_90, which ptxgate sets); 0: not checked */
} pg_launch_limits;

/* One launch's shape, as the rule sees it. */
typedef struct {
    unsigned grid[3], block[3];
    unsigned cluster[3];           /* {0,0,0} or {1,1,1}: no cluster */
    unsigned long long shared_bytes; /* dynamic shared memory, plus the kernel's static shared
                                        memory where it is known (on the GPU) */
} pg_launch_shape;

/* The limit a launch breaks, in the order the rule checks them. */
typedef enum {
    PG_LIMIT_NONE,             /* the launch fits */
    PG_LIMIT_BLOCK_DIM,        /* block[axis] is 0 or above max_block_dim[axis] */
    PG_LIMIT_GRID_DIM,         /* grid[axis] is 0 or above max_grid_dim[axis] (after the block
                                  of the same axis) */
    PG_LIMIT_THREADS,          /* block x * y * z above max_threads_per_block */
    PG_LIMIT_SHARED,           /* shared_bytes above max_shared_per_block_optin */
    PG_LIMIT_CLUSTER_CC,       /* a cluster below compute capability 9 */
    PG_LIMIT_CLUSTER_ZERO,     /* cluster[axis] is 0 while another dimension is not */
    PG_LIMIT_CLUSTER_MULTIPLE, /* grid[axis] is not a multiple of cluster[axis] */
    PG_LIMIT_CLUSTER_BLOCKS,   /* cluster x * y * z above max_cluster_blocks (when that is > 0) */
} pg_limit_kind;

/* What the rule found: the first limit broken, the axis (0, 1, 2 for x, y, z; 0 for the kinds
 * without one), the launch's value (a dimension, threads, bytes or blocks per cluster) and the
 * limit it breaks (PG_LIMIT_CLUSTER_MULTIPLE: the cluster dimension; PG_LIMIT_CLUSTER_CC: the
 * compute capability's major number; PG_LIMIT_CLUSTER_ZERO: 0). */
typedef struct {
    pg_limit_kind kind;
    int axis;
    unsigned long long value;
    long long limit;
} pg_launch_violation;

/* The launch-limit rule itself, on plain numbers: does launch s fit lim? Checks, in this order
 * (the first broken limit is reported): per axis x, y, z the block then the grid dimension
 * (1..max), threads per block, shared memory against the opt-in maximum, and for a cluster
 * (any dimension other than all 0 or all 1) compute capability 9 or newer, per axis a cluster
 * dimension of at least 1 dividing the grid, and blocks per cluster (when
 * lim->max_cluster_blocks > 0). Limits: CUDA C++ Programming Guide, "Compute Capabilities" and
 * "Thread Block Clusters". Returns true and v->kind PG_LIMIT_NONE when it fits; false with *v
 * filled otherwise. v must not be NULL. */
bool pg_launch_limits_fit(const pg_launch_shape *s, const pg_launch_limits *lim,
                          pg_launch_violation *v);

/* The limits of the architecture's table (a->present must be true), for target arch. */
void pg_launch_limits_from_arch(const pg_arch_launch_limits *a, const char *arch,
                                pg_launch_limits *out);

/* Check every launch of plan p (manifest m, workload w) against lim by pg_launch_limits_fit:
 * each block and grid dimension, threads per block, dynamic shared memory against the opt-in
 * maximum (the kernel's static shared memory is added on the GPU, device/launch.c), clusters
 * (compute capability, grid a multiple of the cluster, blocks per cluster).
 * Errors: PG_ERR_INPUT, file = m->file, field = "launches[i].block" / ".grid" /
 * ".dynamic_shared_bytes" / ".cluster", message "workload 'W': <value and limit> on <target>",
 * e.g. "workload 'big': 300000 bytes of dynamic shared memory exceed the opt-in limit of 232448
 * bytes on sm_90a". */
pg_status pg_launch_limits_check(const pg_manifest *m, const pg_workload *w, const pg_plan *p,
                                 const pg_launch_limits *lim, pg_diag *d);

#endif
