/* The checks that run on the GPU after a submission's launches (kernels/checks.cuh): the keyed
 * input checksum, the tolerance comparison against the fp32 reference and the determinism
 * difference count. Results come back as a few bytes per block and are combined here in block
 * order, so a result depends only on the data and the grid, never on timing. */
#include "device_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Must match kernels/checks.cuh. */
#define PG_CHECK_THREADS 256
/* Blocks per SM of the checks' grid-stride loops: enough to stream at full bandwidth. */
#define PG_CHECK_BLOCKS_PER_SM 4

/* The per-process checksum key: random, drawn once (a kernel that never sees it cannot keep
 * an input's checksum while changing the input, kernels/checks.cuh). */
static uint64_t checksum_key(void)
{
    static uint64_t key;
    static bool have;
    if (!have) {
        if (getrandom(&key, sizeof key, 0) != (ssize_t)sizeof key)
            key = (uint64_t)(uintptr_t)&key ^ (uint64_t)pg_dev_now() * 0x9E3779B97F4A7C15ull;
        have = true;
    }
    return key;
}

static unsigned grid_for(const pg_device *dev, unsigned long long items)
{
    unsigned long long blocks = (items + PG_CHECK_THREADS - 1) / PG_CHECK_THREADS;
    unsigned long long cap = (unsigned long long)dev->info.sm_count * PG_CHECK_BLOCKS_PER_SM;
    if (blocks > cap)
        blocks = cap;
    return blocks ? (unsigned)blocks : 1u;
}

/* The stream idle: the submission's work is over before its buffers are read. */
static pg_status wait_idle(pg_device *dev, pg_diag *d)
{
    return pg_dev_wait(dev, NULL, pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S,
                       PG_DEVICE_SAFETY_TIMEOUT_S, d);
}

/* A small device result area for one check: allocated, zeroed, freed by the caller. */
static pg_status scratch_alloc(pg_device *dev, size_t bytes, CUdeviceptr *p, pg_diag *d)
{
    pg_status st = pg_dev_check(dev, dev->cu->MemAlloc(p, bytes), PG_ERR_INFRA, "cuMemAlloc", d);
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->MemsetD8Async(*p, 0, bytes, dev->stream), PG_ERR_INFRA,
                          "cuMemsetD8Async", d);
    return st;
}

/* Launch, wait and copy `bytes` of results back (the stream is idle afterwards). */
static pg_status run_check(pg_device *dev, int which, unsigned grid, void **args,
                           CUdeviceptr result, void *host, size_t bytes, pg_diag *d)
{
    double deadline = pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S;
    pg_status st = pg_ref_launch(dev, which, grid, 1, 1, PG_CHECK_THREADS, args, d);
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->MemcpyDtoHAsync(host, result, bytes, dev->stream),
                          PG_ERR_INFRA, "cuMemcpyDtoHAsync", d);
    if (st == PG_OK)
        st = pg_dev_wait(dev, NULL, deadline, PG_DEVICE_SAFETY_TIMEOUT_S, d);
    return st;
}

pg_status pg_buffer_checksum(pg_buffer *b, uint64_t *sum, pg_diag *d)
{
    pg_device *dev = pg_buffer_device(b);
    *sum = 0;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    st = wait_idle(dev, d);
    if (st != PG_OK)
        return st;
    CUdeviceptr acc = 0;
    unsigned long long bytes = pg_buffer_bytes(b), key = checksum_key(), h = 0;
    unsigned long long ptr = pg_buffer_address(b);
    st = scratch_alloc(dev, sizeof h, &acc, d);
    if (st == PG_OK && bytes > 0) {
        unsigned long long res = acc;
        void *args[] = {&ptr, &bytes, &key, &res};
        st = run_check(dev, PG_REF_CHECK_CHECKSUM, grid_for(dev, (bytes + 7) / 8), args, acc, &h,
                       sizeof h, d);
    }
    if (acc)
        dev->cu->MemFree(acc);
    /* The length and a final avalanche (the splitmix64 finalizer), as gate/base/hash.c ends. */
    h ^= bytes * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    *sum = h ^ (h >> 31);
    return st;
}

static int dtype_code(pg_dtype dt)
{
    switch (dt) {
    case PG_DTYPE_BF16: return 0;
    case PG_DTYPE_FP16: return 1;
    case PG_DTYPE_FP32: return 2;
    case PG_DTYPE_E4M3: return 3;
    case PG_DTYPE_E5M2: return 4;
    default: return -1;
    }
}

pg_status pg_buffer_compare_accuracy(pg_buffer *out, pg_dtype dtype, pg_buffer *ref,
                                     size_t count, double atol, double rtol,
                                     pg_accuracy_sums *sums, pg_diag *d)
{
    pg_device *dev = pg_buffer_device(out);
    *sums = (pg_accuracy_sums){0, 0, 0, 0, 0, 0, 0, -1};
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    int code = dtype_code(dtype);
    if (code < 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "no comparison for dtype %s",
                           pg_dtype_name(dtype));
    if (count > pg_buffer_bytes(out) / pg_dtype_size(dtype) || count > pg_buffer_bytes(ref) / 4)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "comparison of %zu elements: the output holds %zu bytes, the "
                           "reference %zu",
                           count, pg_buffer_bytes(out), pg_buffer_bytes(ref));
    if (count == 0)
        return PG_OK;
    st = wait_idle(dev, d);
    if (st != PG_OK)
        return st;
    unsigned grid = grid_for(dev, count);
    pg_accuracy_sums *parts = calloc(grid, sizeof *parts);
    if (!parts)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    CUdeviceptr dparts = 0;
    st = scratch_alloc(dev, grid * sizeof *parts, &dparts, d);
    if (st == PG_OK) {
        unsigned long long o = pg_buffer_address(out), r = pg_buffer_address(ref), n = count,
                           p = dparts;
        void *args[] = {&o, &code, &r, &n, &atol, &rtol, &p};
        st = run_check(dev, PG_REF_CHECK_ACCURACY, grid, args, dparts, parts,
                       grid * sizeof *parts, d);
    }
    for (unsigned i = 0; st == PG_OK && i < grid; i++)
        pg_accuracy_sums_add(sums, &parts[i]);
    if (dparts)
        dev->cu->MemFree(dparts);
    free(parts);
    return st;
}

pg_status pg_buffer_count_differences(pg_buffer *a, pg_buffer *b, size_t count,
                                      size_t elem_size, uint64_t *differ, pg_diag *d)
{
    pg_device *dev = pg_buffer_device(a);
    *differ = 0;
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (elem_size == 0 || count > pg_buffer_bytes(a) / elem_size ||
        count > pg_buffer_bytes(b) / elem_size)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "difference count of %zu elements of %zu bytes: buffers hold %zu and "
                           "%zu bytes",
                           count, elem_size, pg_buffer_bytes(a), pg_buffer_bytes(b));
    if (count == 0)
        return PG_OK;
    st = wait_idle(dev, d);
    if (st != PG_OK)
        return st;
    CUdeviceptr acc = 0;
    unsigned long long n = 0;
    st = scratch_alloc(dev, sizeof n, &acc, d);
    if (st == PG_OK) {
        unsigned long long pa = pg_buffer_address(a), pb = pg_buffer_address(b), c = count,
                           res = acc;
        unsigned es = (unsigned)elem_size;
        void *args[] = {&pa, &pb, &c, &es, &res};
        st = run_check(dev, PG_REF_CHECK_DIFFERENCES, grid_for(dev, count), args, acc, &n,
                       sizeof n, d);
    }
    if (acc)
        dev->cu->MemFree(acc);
    *differ = n;
    return st;
}

pg_status pg_buffer_copy(pg_buffer *dst, pg_buffer *src, size_t bytes, pg_diag *d)
{
    pg_device *dev = pg_buffer_device(dst);
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (bytes > pg_buffer_bytes(dst) || bytes > pg_buffer_bytes(src))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "copy of %zu bytes between buffers of %zu and %zu bytes", bytes,
                           pg_buffer_bytes(src), pg_buffer_bytes(dst));
    if (bytes == 0)
        return PG_OK;
    return pg_dev_check(dev,
                        dev->cu->MemcpyDtoDAsync(pg_buffer_address(dst), pg_buffer_address(src),
                                                 bytes, dev->stream),
                        PG_ERR_INFRA, "cuMemcpyDtoDAsync", d);
}
