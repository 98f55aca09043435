/* Launching submitted kernels: each launch checked against the device's limits first (an input
 * error naming the limit), shared-memory opt-in and cluster launches handled, driver
 * refusals reported as kernel failures. */
#include "device_internal.h"

#include "../model/launch_limits.h"

#include <stdio.h>
#include <string.h>

static const char k_axis[3] = {'x', 'y', 'z'};

static bool has_cluster(const pg_launch *l)
{
    bool zero = !l->cluster[0] && !l->cluster[1] && !l->cluster[2];
    bool one = l->cluster[0] == 1 && l->cluster[1] == 1 && l->cluster[2] == 1;
    return !zero && !one;
}

/* The device's limits for the launch-limit rule (model/launch_limits.h). Blocks per cluster
 * are left to the driver (no device attribute gives them): 0, not checked. */
static void device_limits(const pg_device_info *in, pg_launch_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    snprintf(lim->target, sizeof lim->target, "%s", in->name);
    lim->max_threads_per_block = in->max_threads_per_block;
    for (int j = 0; j < 3; j++) {
        lim->max_block_dim[j] = in->max_block_dim[j];
        lim->max_grid_dim[j] = in->max_grid_dim[j];
    }
    lim->max_shared_per_block_optin = in->max_shared_per_block_optin;
    lim->cc_major = in->cc_major;
}

/* Launch i broke the limit v names: PG_ERR_INPUT in the device's words. */
static pg_status refuse(const pg_device_info *in, const pg_launch *l, size_t i,
                        const pg_launch_violation *v, int static_shared, pg_diag *d)
{
    char c = k_axis[v->axis];
    switch (v->kind) {
    case PG_LIMIT_BLOCK_DIM:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: block.%c = %u is outside 1..%d, the device's "
                           "maximum block dimension %c",
                           i, c, l->block[v->axis], in->max_block_dim[v->axis], c);
    case PG_LIMIT_GRID_DIM:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: grid.%c = %u is outside 1..%d, the device's maximum "
                           "grid dimension %c",
                           i, c, l->grid[v->axis], in->max_grid_dim[v->axis], c);
    case PG_LIMIT_THREADS:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: block of %u x %u x %u = %llu threads is above the "
                           "device's maximum of %d threads per block",
                           i, l->block[0], l->block[1], l->block[2], v->value,
                           in->max_threads_per_block);
    case PG_LIMIT_CLUSTER_CC:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: thread block clusters need compute capability 9.0; "
                           "the device has %d.%d",
                           i, in->cc_major, in->cc_minor);
    case PG_LIMIT_CLUSTER_ZERO:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: cluster.%c = 0 (a cluster dimension is at "
                           "least 1, or all three are 0 for no cluster)",
                           i, c);
    case PG_LIMIT_CLUSTER_MULTIPLE:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: grid.%c = %u is not a multiple of cluster.%c = %u",
                           i, c, l->grid[v->axis], c, l->cluster[v->axis]);
    case PG_LIMIT_SHARED:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: dynamic shared memory %u bytes (+ %d bytes static) is "
                           "above the device's opt-in maximum of %d bytes per block",
                           i, l->dynamic_shared_bytes, static_shared,
                           in->max_shared_per_block_optin);
    case PG_LIMIT_CLUSTER_BLOCKS: /* not checked here (device_limits) */
    case PG_LIMIT_NONE:
        break;
    }
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "launch %zu: above the device's limits",
                       i);
}

/* Above the limits → PG_ERR_INPUT naming the limit and the value, by the launch-limit rule
 * (model/launch_limits.h) with the device's limits; *static_shared receives the kernel's static
 * shared memory, which counts against the same per-block budget. The shape is checked first
 * without shared memory, so the driver is asked for the static size only for a launch whose
 * dimensions and cluster fit. */
static pg_status validate(pg_device *dev, CUfunction f, const pg_launch *l, size_t i,
                          int *static_shared, pg_diag *d)
{
    pg_launch_limits lim;
    device_limits(&dev->info, &lim);
    pg_launch_shape shape = {.shared_bytes = 0};
    for (int j = 0; j < 3; j++) {
        shape.grid[j] = l->grid[j];
        shape.block[j] = l->block[j];
        shape.cluster[j] = l->cluster[j];
    }
    pg_launch_violation v;
    if (!pg_launch_limits_fit(&shape, &lim, &v))
        return refuse(&dev->info, l, i, &v, 0, d);
    pg_status st = pg_dev_check(dev,
                                dev->cu->FuncGetAttribute(static_shared,
                                                          CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
                                PG_ERR_INFRA, "cuFuncGetAttribute(SHARED_SIZE_BYTES)", d);
    if (st != PG_OK)
        return st;
    shape.shared_bytes = (unsigned long long)*static_shared + l->dynamic_shared_bytes;
    if (!pg_launch_limits_fit(&shape, &lim, &v))
        return refuse(&dev->info, l, i, &v, *static_shared, d);
    return PG_OK;
}

/* A refusal for resources says little by itself; the kernel's register count explains it. */
static void explain_resources(pg_device *dev, CUfunction f, pg_diag *d)
{
    int regs = 0, max_threads = 0;
    if (!d || dev->cu->FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f) != CUDA_SUCCESS ||
        dev->cu->FuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) !=
            CUDA_SUCCESS)
        return;
    char more[160];
    snprintf(more, sizeof(more),
             "; the kernel uses %d registers per thread, so at most %d threads per block", regs,
             max_threads);
    strncat(d->message, more, sizeof(d->message) - strlen(d->message) - 1);
}

/* The attributes a launch of f with l's shared memory and cluster needs, set on f (failures
 * are fail): the dynamic shared-memory opt-in when static + dynamic is above 48 KiB, and the
 * non-portable cluster permission above 8 blocks. */
static pg_status set_attributes(pg_device *dev, CUfunction f, const pg_launch *l, size_t i,
                                int static_shared, pg_status fail, pg_diag *d)
{
    const pg_cu_api *cu = dev->cu;
    char what[96];
    pg_status st = PG_OK;
    /* Without the opt-in, static + dynamic shared memory is capped at 48 KiB per block. */
    if ((unsigned long long)static_shared + l->dynamic_shared_bytes >
        (unsigned long long)dev->info.max_shared_per_block) {
        snprintf(what, sizeof(what), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), launch %zu",
                 i);
        st = pg_dev_check(dev,
                          cu->FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               (int)l->dynamic_shared_bytes),
                          fail, what, d);
    }
    /* Clusters above the portable size of 8 blocks need the kernel's permission. */
    if (st == PG_OK && has_cluster(l) &&
        (unsigned long long)l->cluster[0] * l->cluster[1] * l->cluster[2] > 8) {
        snprintf(what, sizeof(what),
                 "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED), launch %zu", i);
        st = pg_dev_check(dev,
                          cu->FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                               1),
                          fail, what, d);
    }
    return st;
}

static pg_status launch_one(pg_device *dev, const pg_launch *l, size_t i, pg_diag *d)
{
    const pg_cu_api *cu = dev->cu;
    if (!l->kernel)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "launch %zu: no kernel", i);
    pg_device *owner = NULL;
    CUfunction f = pg_kernel_function(l->kernel, &owner);
    if (owner != dev)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "launch %zu: the kernel belongs to another device", i);
    int static_shared = 0;
    pg_status st = validate(dev, f, l, i, &static_shared, d);
    if (st != PG_OK)
        return st;

    char what[96];
    st = set_attributes(dev, f, l, i, static_shared, PG_FAIL_KERNEL, d);
    if (st != PG_OK)
        return st;

    CUresult r;
    if (has_cluster(l)) {
        CUlaunchAttribute attr;
        memset(&attr, 0, sizeof(attr));
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = l->cluster[0];
        attr.value.clusterDim.y = l->cluster[1];
        attr.value.clusterDim.z = l->cluster[2];
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof(cfg));
        cfg.gridDimX = l->grid[0];
        cfg.gridDimY = l->grid[1];
        cfg.gridDimZ = l->grid[2];
        cfg.blockDimX = l->block[0];
        cfg.blockDimY = l->block[1];
        cfg.blockDimZ = l->block[2];
        cfg.sharedMemBytes = l->dynamic_shared_bytes;
        cfg.hStream = dev->stream;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        r = cu->LaunchKernelEx(&cfg, f, l->args, NULL);
        snprintf(what, sizeof(what), "cuLaunchKernelEx, launch %zu", i);
    } else {
        r = cu->LaunchKernel(f, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                             l->block[2], l->dynamic_shared_bytes, dev->stream, l->args, NULL);
        snprintf(what, sizeof(what), "cuLaunchKernel, launch %zu", i);
    }
    st = pg_dev_check(dev, r, PG_FAIL_KERNEL, what, d);
    if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        explain_resources(dev, f, d);
    return st;
}

pg_status pg_kernel_max_active_clusters(pg_kernel *k, const unsigned block[3],
                                        unsigned cluster_size, unsigned dynamic_shared_bytes,
                                        int *out, pg_diag *d)
{
    pg_device *dev = NULL;
    CUfunction f = pg_kernel_function(k, &dev);
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    int static_shared = 0;
    st = pg_dev_check(dev, dev->cu->FuncGetAttribute(&static_shared,
                                                     CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
                      PG_ERR_INFRA, "cuFuncGetAttribute(SHARED_SIZE_BYTES)", d);
    /* One cluster's worth of grid: the occupancy query only looks at its shape. */
    pg_launch l = {.kernel = k, .grid = {cluster_size, 1, 1},
                   .block = {block[0], block[1], block[2]}, .cluster = {cluster_size, 1, 1},
                   .dynamic_shared_bytes = dynamic_shared_bytes};
    if (st == PG_OK)
        st = set_attributes(dev, f, &l, 0, static_shared, PG_ERR_INPUT, d);
    if (st != PG_OK)
        return st;
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster_size;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.gridDimX = cluster_size;
    cfg.gridDimY = 1;
    cfg.gridDimZ = 1;
    cfg.blockDimX = block[0];
    cfg.blockDimY = block[1];
    cfg.blockDimZ = block[2];
    cfg.sharedMemBytes = dynamic_shared_bytes;
    cfg.hStream = dev->stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    st = pg_dev_check(dev, dev->cu->OccupancyMaxActiveClusters(&n, f, &cfg), PG_ERR_INPUT,
                      "cuOccupancyMaxActiveClusters", d);
    if (st == PG_OK)
        *out = n;
    return st;
}

pg_status pg_device_launch(pg_device *dev, const pg_launch *launches, size_t n, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    for (size_t i = 0; i < n && st == PG_OK; i++)
        st = launch_one(dev, &launches[i], i, d);
    return st;
}
