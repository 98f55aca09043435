/* The device's life: open (driver, primary context, stream, fingerprint, embedded kernels),
 * close, and its health (the broken flag every call checks, CUDA error classification). */
#include "device_internal.h"

#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

pg_status pg_device_open(int ordinal, pg_device **out, pg_diag *d)
{
    *out = NULL;
    const pg_cu_api *cu = NULL;
    pg_status st = pg_cu_load(&cu, d);
    if (st != PG_OK)
        return st;

    int count = 0;
    CUresult r = cu->DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "no CUDA device: cuDeviceGetCount returned %d device(s), result %d",
                           count, (int)r);
    if (ordinal < 0 || ordinal >= count)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "no CUDA device: ordinal %d not present (%d device(s))", ordinal,
                           count);

    pg_device *dev = calloc(1, sizeof(*dev));
    if (!dev)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    dev->cu = cu;

    st = pg_dev_check(dev, cu->DeviceGet(&dev->device, ordinal), PG_ERR_INFRA, "cuDeviceGet", d);
    if (st != PG_OK)
        goto done;
    /* The primary context, because cuBLASLt (the CUDA runtime inside it) binds to the context
     * current on the thread, or else to the primary one: both are then ours. */
    CUcontext ctx = NULL;
    st = pg_dev_check(dev, cu->DevicePrimaryCtxRetain(&ctx, dev->device), PG_ERR_INFRA,
                      "cuDevicePrimaryCtxRetain", d);
    if (st != PG_OK)
        goto done;
    dev->ctx = ctx;
    st = pg_dev_check(dev, cu->CtxSetCurrent(ctx), PG_ERR_INFRA, "cuCtxSetCurrent", d);
    if (st != PG_OK)
        goto done;
    /* Non-blocking: work that anything else puts on the legacy default stream (the runtime
     * inside cuBLASLt, for one) cannot insert implicit waits into our timed sequences. */
    st = pg_dev_check(dev, cu->StreamCreate(&dev->stream, CU_STREAM_NON_BLOCKING), PG_ERR_INFRA,
                      "cuStreamCreate", d);
    if (st != PG_OK)
        goto done;
    /* Launch hygiene (device.h): bounded printf output, no persisting L2 lines. The printf
     * limit must be set before any kernel that prints is launched. */
    st = pg_dev_check(dev, cu->CtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, PG_PRINTF_FIFO_BYTES),
                      PG_ERR_INFRA, "cuCtxSetLimit(PRINTF_FIFO_SIZE)", d);
    if (st != PG_OK)
        goto done;
    st = pg_device_reset_l2_persistence(dev, d);
    if (st != PG_OK)
        goto done;
    st = pg_fingerprint_read(dev, ordinal, d);
    if (st != PG_OK)
        goto done;
    st = pg_ref_load(dev, d);
    if (st != PG_OK)
        goto done;
    /* A constant of the library; no GPU work, no runtime initialisation. */
    dev->info.cublaslt_version = (long)cublasLtGetVersion();
    /* cuDNN is optional: 0 when it cannot be loaded (its baseline then says why). */
    dev->info.cudnn_version = pg_cudnn_version(NULL, 0);
done:
    if (st != PG_OK) {
        /* Open failing is an infrastructure problem whatever the CUDA error was. */
        if (d && st != PG_ERR_INFRA)
            d->status = PG_ERR_INFRA;
        st = PG_ERR_INFRA;
        pg_device_close(dev);
        return st;
    }
    *out = dev;
    return PG_OK;
}

void pg_device_close(pg_device *dev)
{
    if (!dev)
        return;
    /* An open environment watch or CUPTI window ends with the device (threads and buffers). */
    pg_envwatch_release(dev);
    pg_activity_release(dev);
    /* A kernel that never ended may still run: destroying the context would wait for it
     * forever. Leave it to process exit, which is the only thing that stops it. */
    if (!dev->hung && dev->ctx) {
        const pg_cu_api *cu = dev->cu;
        cu->CtxSetCurrent(dev->ctx);
        pg_cudnn_release(dev);
        pg_blaslt_release(dev);
        pg_timing_release(dev);
        pg_ref_unload(dev);
        if (dev->stream)
            cu->StreamDestroy(dev->stream);
        cu->CtxSetCurrent(NULL);
        cu->DevicePrimaryCtxRelease(dev->device);
    }
    free(dev->events);
    free(dev);
}

pg_status pg_device_reset_l2_persistence(pg_device *dev, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    /* Devices without persisting L2 (before compute capability 8.0) refuse the limit: then
     * there is nothing to reset either. */
    CUresult r = dev->cu->CtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);
    if (r == CUDA_ERROR_UNSUPPORTED_LIMIT || r == CUDA_ERROR_NOT_SUPPORTED)
        return PG_OK;
    st = pg_dev_check(dev, r, PG_ERR_INFRA, "cuCtxSetLimit(PERSISTING_L2_CACHE_SIZE, 0)", d);
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->CtxResetPersistingL2Cache(), PG_ERR_INFRA,
                          "cuCtxResetPersistingL2Cache", d);
    return st;
}

const pg_device_info *pg_device_get_info(const pg_device *dev)
{
    return &dev->info;
}

bool pg_device_is_broken(const pg_device *dev)
{
    return dev->broken;
}

pg_status pg_dev_enter(pg_device *dev, pg_diag *d)
{
    if (dev->broken)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "device unusable after: %s",
                           dev->broken_reason);
    /* Cheap (a thread-local store), and it lets any thread drive the device. */
    return pg_dev_check(dev, dev->cu->CtxSetCurrent(dev->ctx), PG_ERR_INFRA, "cuCtxSetCurrent",
                        d);
}

void pg_dev_mark_broken(pg_device *dev, bool hung, const char *reason)
{
    if (!dev->broken)
        snprintf(dev->broken_reason, sizeof(dev->broken_reason), "%s", reason);
    dev->broken = true;
    dev->hung = dev->hung || hung;
}

pg_status pg_dev_check(pg_device *dev, CUresult r, pg_status fail, const char *what, pg_diag *d)
{
    if (r == CUDA_SUCCESS)
        return PG_OK;
    char text[512];
    pg_cu_describe(dev->cu, r, text, sizeof(text));
    if (pg_cu_is_sticky(r)) {
        pg_dev_mark_broken(dev, false, text);
        return pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL, "%s (reported by %s)", text, what);
    }
    return pg_diag_set(d, fail, NULL, 0, NULL, "%s (%s)", text, what);
}

double pg_dev_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
