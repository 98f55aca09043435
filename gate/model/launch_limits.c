/* Launch plans against device limits (see launch_limits.h). */
#include "launch_limits.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pg_status too_big(const pg_manifest *m, const pg_launch_spec *ls, const char *what,
                         const pg_workload *w, const char *detail, const pg_launch_limits *lim,
                         pg_diag *d)
{
    char field[200];
    snprintf(field, sizeof field, "%s.%s", ls->field, what);
    return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, field, "workload '%s': %s on %s", w->name,
                       detail, lim->target);
}

void pg_launch_limits_from_arch(const pg_arch_launch_limits *a, const char *arch,
                                pg_launch_limits *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->target, sizeof out->target, "%s", arch);
    out->max_threads_per_block = a->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        out->max_block_dim[i] = a->max_block_dim[i];
        out->max_grid_dim[i] = a->max_grid_dim[i];
    }
    out->max_shared_per_block_optin = a->max_shared_per_block_optin;
    /* sm_XY is compute capability X.Y, sm_XYZ is XY.Z. */
    out->cc_major = arch && strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) / 10 : 0;
    out->max_cluster_blocks_portable = a->max_cluster_blocks_portable;
    out->max_cluster_blocks = a->max_cluster_blocks;
}

pg_status pg_launch_limits_check(const pg_manifest *m, const pg_workload *w, const pg_plan *p,
                                 const pg_launch_limits *lim, pg_diag *d)
{
    static const char axis[3] = {'x', 'y', 'z'};
    char msg[512];
    for (int l = 0; l < p->n_launches + p->n_setup; l++) {
        const pg_launch_values *lv = &p->launches[l];
        const pg_launch_spec *ls = &m->launches[l];
        unsigned long long threads = 1;
        for (int i = 0; i < 3; i++) {
            threads *= lv->block[i];
            if (lv->block[i] > (unsigned)lim->max_block_dim[i]) {
                snprintf(msg, sizeof msg, "block %c = %u exceeds the limit %d", axis[i],
                         lv->block[i], lim->max_block_dim[i]);
                return too_big(m, ls, "block", w, msg, lim, d);
            }
            if (lv->grid[i] > (unsigned)lim->max_grid_dim[i]) {
                snprintf(msg, sizeof msg, "grid %c = %u exceeds the limit %d", axis[i],
                         lv->grid[i], lim->max_grid_dim[i]);
                return too_big(m, ls, "grid", w, msg, lim, d);
            }
        }
        if (threads > (unsigned long long)lim->max_threads_per_block) {
            snprintf(msg, sizeof msg, "%llu threads per block exceed the limit %d", threads,
                     lim->max_threads_per_block);
            return too_big(m, ls, "block", w, msg, lim, d);
        }
        if (lv->dynamic_shared_bytes > (unsigned)lim->max_shared_per_block_optin) {
            snprintf(msg, sizeof msg,
                     "%u bytes of dynamic shared memory exceed the opt-in limit of %d bytes",
                     lv->dynamic_shared_bytes, lim->max_shared_per_block_optin);
            return too_big(m, ls, "dynamic_shared_bytes", w, msg, lim, d);
        }
        bool cluster = lv->cluster[0] > 1 || lv->cluster[1] > 1 || lv->cluster[2] > 1;
        if (cluster && lim->cc_major < 9) {
            snprintf(msg, sizeof msg, "thread block clusters need compute capability 9.0 or newer");
            return too_big(m, ls, "cluster", w, msg, lim, d);
        }
        for (int i = 0; cluster && i < 3; i++)
            if (lv->cluster[i] == 0 || lv->grid[i] % lv->cluster[i] != 0) {
                snprintf(msg, sizeof msg, "grid %c = %u is not a multiple of cluster %c = %u",
                         axis[i], lv->grid[i], axis[i], lv->cluster[i]);
                return too_big(m, ls, "cluster", w, msg, lim, d);
            }
        unsigned long long blocks =
            (unsigned long long)lv->cluster[0] * lv->cluster[1] * lv->cluster[2];
        if (cluster && lim->max_cluster_blocks > 0 &&
            blocks > (unsigned long long)lim->max_cluster_blocks) {
            snprintf(msg, sizeof msg,
                     "a cluster of %u x %u x %u = %llu blocks exceeds the limit of %d blocks "
                     "(%d portable, more with the non-portable opt-in, which ptxgate sets)",
                     lv->cluster[0], lv->cluster[1], lv->cluster[2], blocks,
                     lim->max_cluster_blocks, lim->max_cluster_blocks_portable);
            return too_big(m, ls, "cluster", w, msg, lim, d);
        }
    }
    return PG_OK;
}
