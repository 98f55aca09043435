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

static bool has_cluster(const unsigned c[3])
{
    bool zero = !c[0] && !c[1] && !c[2];
    bool one = c[0] == 1 && c[1] == 1 && c[2] == 1;
    return !zero && !one;
}

static bool broken(pg_launch_violation *v, pg_limit_kind kind, int axis, unsigned long long value,
                   long long limit)
{
    *v = (pg_launch_violation){.kind = kind, .axis = axis, .value = value, .limit = limit};
    return false;
}

bool pg_launch_limits_fit(const pg_launch_shape *s, const pg_launch_limits *lim,
                          pg_launch_violation *v)
{
    for (int i = 0; i < 3; i++) {
        if (s->block[i] == 0 || s->block[i] > (unsigned)lim->max_block_dim[i])
            return broken(v, PG_LIMIT_BLOCK_DIM, i, s->block[i], lim->max_block_dim[i]);
        if (s->grid[i] == 0 || s->grid[i] > (unsigned)lim->max_grid_dim[i])
            return broken(v, PG_LIMIT_GRID_DIM, i, s->grid[i], lim->max_grid_dim[i]);
    }
    /* Each factor is at most max_block_dim here: no overflow. */
    unsigned long long threads = (unsigned long long)s->block[0] * s->block[1] * s->block[2];
    if (threads > (unsigned long long)lim->max_threads_per_block)
        return broken(v, PG_LIMIT_THREADS, 0, threads, lim->max_threads_per_block);
    if (s->shared_bytes > (unsigned long long)lim->max_shared_per_block_optin)
        return broken(v, PG_LIMIT_SHARED, 0, s->shared_bytes, lim->max_shared_per_block_optin);
    if (has_cluster(s->cluster)) {
        if (lim->cc_major < 9)
            return broken(v, PG_LIMIT_CLUSTER_CC, 0, (unsigned long long)lim->cc_major, 9);
        for (int i = 0; i < 3; i++) {
            if (s->cluster[i] == 0)
                return broken(v, PG_LIMIT_CLUSTER_ZERO, i, 0, 0);
            if (s->grid[i] % s->cluster[i] != 0)
                return broken(v, PG_LIMIT_CLUSTER_MULTIPLE, i, s->grid[i], s->cluster[i]);
        }
        unsigned long long blocks =
            (unsigned long long)s->cluster[0] * s->cluster[1] * s->cluster[2];
        if (lim->max_cluster_blocks > 0 && blocks > (unsigned long long)lim->max_cluster_blocks)
            return broken(v, PG_LIMIT_CLUSTER_BLOCKS, 0, blocks, lim->max_cluster_blocks);
    }
    *v = (pg_launch_violation){.kind = PG_LIMIT_NONE};
    return true;
}

/* The message of v for launch l of the plan ("block x = 2048 exceeds the limit 1024"), into
 * msg; returns the field under the launch it is about ("block"). */
static const char *describe(const pg_launch_violation *v, const pg_launch_values *l,
                            const pg_launch_limits *lim, char *msg, size_t n)
{
    static const char axis[3] = {'x', 'y', 'z'};
    char c = axis[v->axis];
    switch (v->kind) {
    case PG_LIMIT_BLOCK_DIM:
    case PG_LIMIT_GRID_DIM: {
        const char *what = v->kind == PG_LIMIT_BLOCK_DIM ? "block" : "grid";
        if (v->value == 0) /* the plan's dimensions are at least 1; said plainly if not */
            snprintf(msg, n, "%s %c = 0 is below the minimum 1", what, c);
        else
            snprintf(msg, n, "%s %c = %llu exceeds the limit %lld", what, c, v->value, v->limit);
        return what;
    }
    case PG_LIMIT_THREADS:
        snprintf(msg, n, "%llu threads per block exceed the limit %lld", v->value, v->limit);
        return "block";
    case PG_LIMIT_SHARED:
        snprintf(msg, n,
                 "%llu bytes of dynamic shared memory exceed the opt-in limit of %lld bytes",
                 v->value, v->limit);
        return "dynamic_shared_bytes";
    case PG_LIMIT_CLUSTER_CC:
        snprintf(msg, n, "thread block clusters need compute capability 9.0 or newer");
        return "cluster";
    case PG_LIMIT_CLUSTER_ZERO:
    case PG_LIMIT_CLUSTER_MULTIPLE:
        snprintf(msg, n, "grid %c = %u is not a multiple of cluster %c = %u", c, l->grid[v->axis],
                 c, l->cluster[v->axis]);
        return "cluster";
    case PG_LIMIT_CLUSTER_BLOCKS:
        snprintf(msg, n,
                 "a cluster of %u x %u x %u = %llu blocks exceeds the limit of %lld blocks "
                 "(%d portable, more with the non-portable opt-in, which ptxgate sets)",
                 l->cluster[0], l->cluster[1], l->cluster[2], v->value, v->limit,
                 lim->max_cluster_blocks_portable);
        return "cluster";
    case PG_LIMIT_NONE:
        break;
    }
    snprintf(msg, n, "fits");
    return "";
}

pg_status pg_launch_limits_check(const pg_manifest *m, const pg_workload *w, const pg_plan *p,
                                 const pg_launch_limits *lim, pg_diag *d)
{
    char msg[512];
    for (int l = 0; l < p->n_launches + p->n_setup; l++) {
        const pg_launch_values *lv = &p->launches[l];
        pg_launch_shape s = {.shared_bytes = lv->dynamic_shared_bytes};
        for (int i = 0; i < 3; i++) {
            s.grid[i] = lv->grid[i];
            s.block[i] = lv->block[i];
            s.cluster[i] = lv->cluster[i];
        }
        pg_launch_violation v;
        if (!pg_launch_limits_fit(&s, lim, &v)) {
            const char *what = describe(&v, lv, lim, msg, sizeof msg);
            return too_big(m, &m->launches[l], what, w, msg, lim, d);
        }
    }
    return PG_OK;
}
