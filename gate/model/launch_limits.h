/* A launch plan against the device's launch limits, checked before anything runs so that a
 * launch the GPU cannot take is an input error naming the manifest field, not a kernel fault. */
#ifndef PG_MODEL_LAUNCH_LIMITS_H
#define PG_MODEL_LAUNCH_LIMITS_H

#include "../base/diag.h"
#include "manifest.h"
#include "plan.h"
#include "task.h"

/* Limits as the driver reports them (cuDeviceGetAttribute). */
typedef struct {
    char device_name[256];
    int max_threads_per_block;      /* 1024 on sm_90 */
    int max_block_dim[3];           /* 1024, 1024, 64 */
    int max_grid_dim[3];            /* 2^31 − 1, 65535, 65535 */
    int max_shared_per_block_optin; /* bytes of dynamic + static shared memory with opt-in */
    int cc_major;                   /* thread block clusters need compute capability >= 9 */
} pg_launch_limits;

/* Check every launch of plan p (manifest m, workload w) against lim.
 * Errors: PG_ERR_INPUT, file = m->file, field = "launches[i].block" / ".grid" /
 * ".dynamic_shared_bytes" / ".cluster", message naming the workload, the value and the limit. */
pg_status pg_launch_limits_check(const pg_manifest *m, const pg_workload *w, const pg_plan *p,
                                 const pg_launch_limits *lim, pg_diag *d);

#endif
