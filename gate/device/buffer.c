/* Device memory: allocation, byte fills (poison, zero) enqueued on the device stream, and the
 * synchronous download. (The N(0,1) fill runs a kernel and lives in reference.c.) */
#include "device_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_buffer {
    pg_device *dev;
    CUdeviceptr ptr;
    size_t bytes;
};

pg_status pg_buffer_alloc(pg_device *dev, size_t bytes, pg_buffer **out, pg_diag *d)
{
    *out = NULL;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    pg_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    b->dev = dev;
    b->bytes = bytes;
    /* cuMemAlloc refuses 0 bytes; an empty tensor still gets a valid, unique address. */
    CUresult r = dev->cu->MemAlloc(&b->ptr, bytes ? bytes : 256);
    if (r != CUDA_SUCCESS) {
        st = pg_dev_check(dev, r, PG_ERR_INFRA, "cuMemAlloc", d);
        if (d && st == PG_ERR_INFRA) {
            char more[80];
            snprintf(more, sizeof(more), " allocating %zu bytes", bytes);
            strncat(d->message, more, sizeof(d->message) - strlen(d->message) - 1);
        }
        free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

void pg_buffer_free(pg_buffer *b)
{
    if (!b)
        return;
    /* A hung context is left alone (see pg_device_close); a broken one still frees. */
    if (!b->dev->hung && b->dev->cu->CtxSetCurrent(b->dev->ctx) == CUDA_SUCCESS)
        b->dev->cu->MemFree(b->ptr);
    free(b);
}

uint64_t pg_buffer_address(const pg_buffer *b)
{
    return (uint64_t)b->ptr;
}

size_t pg_buffer_bytes(const pg_buffer *b)
{
    return b->bytes;
}

pg_device *pg_buffer_device(const pg_buffer *b)
{
    return b->dev;
}

static pg_status fill_bytes(pg_buffer *b, unsigned char value, pg_diag *d)
{
    pg_status st = pg_dev_enter(b->dev, d);
    if (st != PG_OK || b->bytes == 0)
        return st;
    return pg_dev_check(b->dev, b->dev->cu->MemsetD8Async(b->ptr, value, b->bytes, b->dev->stream),
                        PG_ERR_INFRA, "cuMemsetD8Async", d);
}

pg_status pg_buffer_fill_poison(pg_buffer *b, pg_diag *d)
{
    return fill_bytes(b, PG_POISON_BYTE, d);
}

pg_status pg_buffer_zero(pg_buffer *b, pg_diag *d)
{
    return fill_bytes(b, 0, d);
}

pg_status pg_buffer_download(pg_buffer *b, void *host, size_t bytes, pg_diag *d)
{
    pg_device *dev = b->dev;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (bytes > b->bytes)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "download of %zu bytes from a buffer of %zu bytes", bytes, b->bytes);
    if (bytes == 0)
        return PG_OK;
    /* Wait for the stream first, with a deadline: a copy to pageable memory blocks the thread
     * without one, and the work before it may be a kernel that never ends. The copy itself
     * then runs alone and is waited for the same way. */
    double deadline = pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S;
    st = pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
    if (st != PG_OK)
        return st;
    st = pg_dev_check(dev, dev->cu->MemcpyDtoHAsync(host, b->ptr, bytes, dev->stream),
                      PG_ERR_INFRA, "cuMemcpyDtoHAsync", d);
    if (st != PG_OK)
        return st;
    return pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
}
