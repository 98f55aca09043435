/* Device memory: allocation, byte fills (poison, zero) enqueued on the device stream, and the
 * synchronous download. (The N(0,1) fill runs a kernel and lives in reference.c.) */
#include "device_internal.h"

#include "base/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_buffer {
    pg_device *dev;
    CUdeviceptr ptr;
    size_t bytes;
    /* Guarded buffers (pg_buffer_alloc_guarded). */
    bool guarded, vmm;
    CUdeviceptr base;  /* start of the reservation (VMM) or of the cuMemAlloc allocation */
    size_t reserve_bytes;
    CUmemGenericAllocationHandle handle;
    CUdeviceptr map;   /* start of the mapping (VMM) = start of the front canary */
    size_t map_bytes;
    size_t front, back, guard;
};

/* The record of a new buffer of bytes on dev, entered, in *b (*out cleared first): the first
 * steps of both allocations. Errors: pg_dev_enter's; PG_ERR_INFRA when out of host memory. */
static pg_status new_record(pg_device *dev, size_t bytes, pg_buffer **out, pg_buffer **b,
                            pg_diag *d)
{
    *out = NULL;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    *b = calloc(1, sizeof(**b));
    if (!*b)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    (*b)->dev = dev;
    (*b)->bytes = bytes;
    return PG_OK;
}

/* An infrastructure error's message ends in " allocating <what><bytes> bytes". */
static void say_allocating(pg_status st, const char *what, size_t bytes, pg_diag *d)
{
    if (d && st == PG_ERR_INFRA) {
        char more[96];
        snprintf(more, sizeof(more), " allocating %s%zu bytes", what, bytes);
        strncat(d->message, more, sizeof(d->message) - strlen(d->message) - 1);
    }
}

pg_status pg_buffer_alloc(pg_device *dev, size_t bytes, pg_buffer **out, pg_diag *d)
{
    pg_buffer *b;
    pg_status st = new_record(dev, bytes, out, &b, d);
    if (st != PG_OK)
        return st;
    /* cuMemAlloc refuses 0 bytes; an empty tensor still gets a valid, unique address. */
    CUresult r = dev->cu->MemAlloc(&b->ptr, bytes ? bytes : 256);
    if (r != CUDA_SUCCESS) {
        st = pg_dev_check(dev, r, PG_ERR_INFRA, "cuMemAlloc", d);
        say_allocating(st, "", bytes, d);
        free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

/* Release what a guarded allocation holds; every step tolerates the ones before failing. */
static void guarded_release(pg_buffer *b)
{
    const pg_cu_api *cu = b->dev->cu;
    if (!b->vmm) {
        if (b->base)
            cu->MemFree(b->base);
        return;
    }
    if (b->map)
        cu->MemUnmap(b->map, b->map_bytes);
    if (b->handle)
        cu->MemRelease(b->handle);
    if (b->base)
        cu->MemAddressFree(b->base, b->reserve_bytes);
}

void pg_buffer_free(pg_buffer *b)
{
    if (!b)
        return;
    /* A hung context is left alone (see pg_device_close); a broken one still frees. */
    if (!b->dev->hung && b->dev->cu->CtxSetCurrent(b->dev->ctx) == CUDA_SUCCESS) {
        if (b->guarded)
            guarded_release(b);
        else
            b->dev->cu->MemFree(b->ptr);
    }
    free(b);
}

pg_status pg_buffer_rearm_canaries(pg_buffer *b, pg_diag *d)
{
    pg_device *dev = b->dev;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK || !b->guarded)
        return st;
    if (b->front)
        st = pg_dev_check(dev, dev->cu->MemsetD8Async(b->ptr - b->front, PG_CANARY_BYTE, b->front,
                                                      dev->stream),
                          PG_ERR_INFRA, "cuMemsetD8Async(front canary)", d);
    if (st == PG_OK && b->back)
        st = pg_dev_check(dev, dev->cu->MemsetD8Async(b->ptr + b->bytes, PG_CANARY_BYTE, b->back,
                                                      dev->stream),
                          PG_ERR_INFRA, "cuMemsetD8Async(back canary)", d);
    return st;
}

/* The VMM layout of gate/base/guard.h: reserve, create, map, grant access. */
static pg_status guarded_vmm(pg_buffer *b, size_t gran, pg_diag *d)
{
    pg_device *dev = b->dev;
    const pg_cu_api *cu = dev->cu;
    pg_guard_layout l;
    if (!pg_guard_plan(b->bytes, gran, PG_GUARD_BYTES, &l))
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "cannot lay out a guarded buffer of %zu bytes (granularity %zu)",
                           b->bytes, gran);
    b->vmm = true;
    b->reserve_bytes = l.reserve_bytes;
    b->map_bytes = l.map_bytes;
    b->front = l.front_bytes;
    b->back = l.back_bytes;
    b->guard = l.guard_bytes;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)dev->device;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUdeviceptr base = 0;
    pg_status st = pg_dev_check(dev, cu->MemAddressReserve(&base, l.reserve_bytes, 0, 0, 0),
                                PG_ERR_INFRA, "cuMemAddressReserve", d);
    if (st != PG_OK)
        return st;
    b->base = base;
    CUmemGenericAllocationHandle h = 0;
    st = pg_dev_check(dev, cu->MemCreate(&h, l.map_bytes, &prop, 0), PG_ERR_INFRA, "cuMemCreate",
                      d);
    if (st != PG_OK)
        return st;
    b->handle = h;
    st = pg_dev_check(dev, cu->MemMap(base + l.guard_bytes, l.map_bytes, 0, h, 0), PG_ERR_INFRA,
                      "cuMemMap", d);
    if (st != PG_OK)
        return st;
    b->map = base + l.guard_bytes;
    st = pg_dev_check(dev, cu->MemSetAccess(b->map, l.map_bytes, &access, 1), PG_ERR_INFRA,
                      "cuMemSetAccess", d);
    b->ptr = b->map + l.front_bytes;
    return st;
}

/* Without VMM: one cuMemAlloc with canaries on both sides, no unmapped guard. */
static pg_status guarded_plain(pg_buffer *b, pg_diag *d)
{
    pg_device *dev = b->dev;
    b->front = PG_CANARY_FALLBACK_BYTES;
    b->back = (PG_GUARD_ALIGN - b->bytes % PG_GUARD_ALIGN) % PG_GUARD_ALIGN +
              PG_CANARY_FALLBACK_BYTES;
    CUdeviceptr base = 0;
    pg_status st = pg_dev_check(dev, dev->cu->MemAlloc(&base, b->front + b->bytes + b->back),
                                PG_ERR_INFRA, "cuMemAlloc", d);
    if (st != PG_OK)
        return st;
    b->base = base;
    b->ptr = base + b->front;
    return PG_OK;
}

pg_status pg_buffer_alloc_guarded(pg_device *dev, size_t bytes, pg_buffer **out, pg_diag *d)
{
    pg_buffer *b;
    pg_status st = new_record(dev, bytes ? bytes : 1, out, &b, d);
    if (st != PG_OK)
        return st;
    b->guarded = true;
    int vmm = 0;
    size_t gran = 0;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)dev->device;
    if (dev->cu->DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                    dev->device) != CUDA_SUCCESS ||
        dev->cu->MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
            CUDA_SUCCESS)
        vmm = 0;
    st = vmm ? guarded_vmm(b, gran, d) : guarded_plain(b, d);
    if (st == PG_OK)
        st = pg_buffer_rearm_canaries(b, d);
    if (st != PG_OK) {
        say_allocating(st, "a guarded buffer of ", bytes, d);
        guarded_release(b);
        free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

void pg_buffer_guard_info(const pg_buffer *b, pg_buffer_guard *out)
{
    memset(out, 0, sizeof *out);
    out->guarded = b->guarded;
    out->vmm = b->vmm;
    out->front_canary_bytes = b->front;
    out->back_canary_bytes = b->back;
    out->guard_bytes = b->guard;
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

/* Copy n bytes at src into host memory. Waits for the stream first, with a deadline: a copy to
 * pageable memory blocks the thread without one, and the work before it may be a kernel that
 * never ends. The copy itself then runs alone and is waited for the same way. */
static pg_status copy_out(pg_device *dev, CUdeviceptr src, void *host, size_t n, pg_diag *d)
{
    double deadline = pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S;
    pg_status st = pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
    if (st != PG_OK || n == 0)
        return st;
    st = pg_dev_check(dev, dev->cu->MemcpyDtoHAsync(host, src, n, dev->stream), PG_ERR_INFRA,
                      "cuMemcpyDtoHAsync", d);
    if (st != PG_OK)
        return st;
    return pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
}

/* The first steps of a copy of bytes between b and the host: the device entered and bytes
 * within the buffer ("download of 8 bytes from a buffer of 4 bytes": PG_ERR_INPUT). */
static pg_status check_copy(pg_buffer *b, size_t bytes, const char *verb, const char *prep,
                            pg_diag *d)
{
    pg_status st = pg_dev_enter(b->dev, d);
    if (st != PG_OK)
        return st;
    if (bytes > b->bytes)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "%s of %zu bytes %s a buffer of %zu bytes", verb, bytes, prep,
                           b->bytes);
    return PG_OK;
}

pg_status pg_buffer_download(pg_buffer *b, void *host, size_t bytes, pg_diag *d)
{
    pg_device *dev = b->dev;
    pg_status st = check_copy(b, bytes, "download", "from", d);
    if (st != PG_OK || bytes == 0)
        return st;
    return copy_out(dev, b->ptr, host, bytes, d);
}

pg_status pg_buffer_upload(pg_buffer *b, const void *host, size_t bytes, pg_diag *d)
{
    pg_device *dev = b->dev;
    pg_status st = check_copy(b, bytes, "upload", "into", d);
    if (st != PG_OK || bytes == 0)
        return st;
    /* Wait first, with a deadline (see copy_out); the copy from pageable memory then runs
     * alone and is waited for the same way. */
    double deadline = pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S;
    st = pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->MemcpyHtoDAsync(b->ptr, host, bytes, dev->stream),
                          PG_ERR_INFRA, "cuMemcpyHtoDAsync", d);
    if (st == PG_OK)
        st = pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
    return st;
}

pg_status pg_buffer_check_canaries(pg_buffer *b, pg_canary_report *r, pg_diag *d)
{
    memset(r, 0, sizeof *r);
    pg_device *dev = b->dev;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK || !b->guarded)
        return st;
    size_t n = b->front > b->back ? b->front : b->back;
    unsigned char *host = malloc(n ? n : 1);
    if (!host)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    size_t first = 0, last = 0;
    if (b->front && (st = copy_out(dev, b->ptr - b->front, host, b->front, d)) == PG_OK) {
        r->front_changed = pg_canary_scan(host, b->front, PG_CANARY_BYTE, &first, &last);
        if (r->front_changed)
            r->front_nearest = b->front - last;
    }
    if (st == PG_OK && b->back && (st = copy_out(dev, b->ptr + b->bytes, host, b->back, d)) == PG_OK) {
        r->back_changed = pg_canary_scan(host, b->back, PG_CANARY_BYTE, &first, &last);
        if (r->back_changed) {
            r->back_first = first;
            r->back_last = last;
        }
    }
    free(host);
    return st;
}

