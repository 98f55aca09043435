/* A launch plan against the launch limits, checked before anything runs so that a launch the GPU
 * cannot take is an input error naming the manifest field, not a kernel fault. One rule for both
 * paths: with a GPU the limits are the device's (cuDeviceGetAttribute), without one the
 * architecture's (data/arch/<arch>.json, "launch_limits"), and the messages are the same. */
#ifndef PG_MODEL_LAUNCH_LIMITS_H
#define PG_MODEL_LAUNCH_LIMITS_H

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

/* The limits of the architecture's table (a->present must be true), for target arch. */
void pg_launch_limits_from_arch(const pg_arch_launch_limits *a, const char *arch,
                                pg_launch_limits *out);

/* Check every launch of plan p (manifest m, workload w) against lim: each block and grid
 * dimension, threads per block, dynamic shared memory against the opt-in maximum (the kernel's
 * static shared memory is added on the GPU, device/launch.c), clusters (compute capability,
 * grid a multiple of the cluster, blocks per cluster).
 * Errors: PG_ERR_INPUT, file = m->file, field = "launches[i].block" / ".grid" /
 * ".dynamic_shared_bytes" / ".cluster", message "workload 'W': <value and limit> on <target>",
 * e.g. "workload 'big': 300000 bytes of dynamic shared memory exceed the opt-in limit of 232448
 * bytes on sm_90a". */
pg_status pg_launch_limits_check(const pg_manifest *m, const pg_workload *w, const pg_plan *p,
                                 const pg_launch_limits *lim, pg_diag *d);

#endif
