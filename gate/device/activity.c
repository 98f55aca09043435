/* GPU time from CUPTI activity records: one process-wide collector of concurrent-kernel
 * records (durations summed, kernels counted, for one device's context), and the
 * pg_activity_begin/end window built on it. */
#include "device_internal.h"

#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Activity buffers handed to CUPTI: 4 MiB holds ~10^4 kernel records (~300 bytes each). */
#define PG_ACT_BUFFER_BYTES ((size_t)4 << 20)
#define PG_ACT_BUFFER_ALIGN 8
/* Kernel spans kept for pg_act_take_spans: at most 2^20 (16 MiB). */
#define PG_ACT_MAX_SPANS ((size_t)1 << 20)

/* CUPTI's buffer callbacks are process-wide and carry no user pointer, so the collector is a
 * global. The lock guards the totals against the thread CUPTI delivers buffers on; it is never
 * held across a CUPTI call (a flush may deliver on the calling thread). */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    bool registered;     /* buffer callbacks registered (once per process) */
    int depth;           /* nested starts; the kind is enabled while > 0 */
    pg_device *owner;    /* the device being collected for while depth > 0 */
    uint32_t context_id; /* CUPTI's id of owner's context: records of others are ignored */
    uint64_t ns, kernels;
    uint64_t incomplete;      /* records with no end timestamp */
    uint64_t buffers_missing; /* buffer requests we could not serve (records dropped) */
    bool keep_spans;          /* also keep each kernel's (start, end) */
    pg_act_span *spans;
    size_t n_spans, cap_spans;
    bool spans_overflow;      /* a span could not be kept (cap or host memory) */
} g;

/* Called with g_mu held. */
static void keep_span(uint64_t start, uint64_t end)
{
    if (g.n_spans == g.cap_spans) {
        size_t cap = g.cap_spans ? g.cap_spans * 2 : 4096;
        pg_act_span *grown = cap <= PG_ACT_MAX_SPANS ? realloc(g.spans, cap * sizeof(*grown))
                                                     : NULL;
        if (!grown) {
            g.spans_overflow = true;
            return;
        }
        g.spans = grown;
        g.cap_spans = cap;
    }
    g.spans[g.n_spans].start = start;
    g.spans[g.n_spans].end = end;
    g.n_spans++;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(PG_ACT_BUFFER_ALIGN, PG_ACT_BUFFER_BYTES);
    *size = *buffer ? PG_ACT_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
    if (!*buffer) {
        pthread_mutex_lock(&g_mu);
        g.buffers_missing++;
        pthread_mutex_unlock(&g_mu);
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    uint64_t ns = 0, kernels = 0, incomplete = 0;
    pthread_mutex_lock(&g_mu);
    uint32_t want = g.context_id;
    bool keep = g.keep_spans;
    pthread_mutex_unlock(&g_mu);
    CUpti_Activity *rec = NULL;
    while (buffer && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        /* The fields read here sit at the same offsets in every CUpti_ActivityKernelN. */
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        if (k->contextId != want)
            continue;
        if (k->start == 0 || k->end < k->start) {
            incomplete++;
        } else {
            ns += k->end - k->start;
            if (keep) {
                pthread_mutex_lock(&g_mu);
                keep_span(k->start, k->end);
                pthread_mutex_unlock(&g_mu);
            }
        }
        kernels++;
    }
    free(buffer);
    pthread_mutex_lock(&g_mu);
    g.ns += ns;
    g.kernels += kernels;
    g.incomplete += incomplete;
    pthread_mutex_unlock(&g_mu);
}

static pg_status cupti_check(CUptiResult r, const char *call, pg_diag *d)
{
    if (r == CUPTI_SUCCESS)
        return PG_OK;
    const char *name = NULL;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUptiResult";
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s (CUptiResult %d) (%s)", name, (int)r,
                       call);
}

pg_status pg_act_start(pg_device *dev, pg_diag *d)
{
    /* A profiler or sanitizer injected into the process owns CUPTI, and its instrumentation
     * would distort every time we take. */
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "CUPTI activity: refused in a profiled process "
                           "(CUDA_INJECTION64_PATH=%s)",
                           inj);
    pthread_mutex_lock(&g_mu);
    int depth = g.depth;
    pg_device *owner = g.owner;
    bool registered = g.registered;
    pthread_mutex_unlock(&g_mu);
    if (depth > 0) {
        if (owner != dev)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "CUPTI activity: already collecting for another device");
        pthread_mutex_lock(&g_mu);
        g.depth++;
        pthread_mutex_unlock(&g_mu);
        return PG_OK;
    }
    pg_status st = PG_OK;
    if (!registered) {
        st = cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                         "cuptiActivityRegisterCallbacks", d);
        if (st != PG_OK)
            return st;
        pthread_mutex_lock(&g_mu);
        g.registered = true;
        pthread_mutex_unlock(&g_mu);
    }
    uint32_t id = 0;
    st = cupti_check(cuptiGetContextId(dev->ctx, &id), "cuptiGetContextId", d);
    if (st != PG_OK)
        return st;
    /* Records a previous session left undelivered go to the old totals, not ours. */
    st = cupti_check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                     "cuptiActivityFlushAll", d);
    if (st != PG_OK)
        return st;
    pthread_mutex_lock(&g_mu);
    g.owner = dev;
    g.context_id = id;
    g.ns = g.kernels = g.incomplete = g.buffers_missing = 0;
    g.depth = 1;
    pthread_mutex_unlock(&g_mu);
    st = cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                     "cuptiActivityEnable(CONCURRENT_KERNEL)", d);
    if (st != PG_OK) {
        pthread_mutex_lock(&g_mu);
        g.depth = 0;
        g.owner = NULL;
        pthread_mutex_unlock(&g_mu);
    }
    return st;
}

pg_status pg_act_read(pg_device *dev, uint64_t *kernel_ns, uint64_t *kernels, pg_diag *d)
{
    /* Forced: after the caller's wait every record is complete, and a buffer CUPTI is still
     * filling must come back too. Incomplete records would show as such below. */
    pg_status st = cupti_check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                               "cuptiActivityFlushAll", d);
    if (st != PG_OK)
        return st;
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(dev->ctx, 0, &dropped) != CUPTI_SUCCESS)
        dropped = 0;
    pthread_mutex_lock(&g_mu);
    *kernel_ns = g.ns;
    *kernels = g.kernels;
    uint64_t incomplete = g.incomplete, missing = g.buffers_missing;
    pthread_mutex_unlock(&g_mu);
    if (dropped || missing)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "CUPTI activity: %zu kernel records dropped, %llu activity buffers "
                           "not allocated (host memory)",
                           dropped, (unsigned long long)missing);
    if (incomplete)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "CUPTI activity: %llu kernel records delivered without an end "
                           "timestamp (read before the GPU finished?)",
                           (unsigned long long)incomplete);
    return PG_OK;
}

pg_status pg_act_stop(pg_device *dev, pg_diag *d)
{
    pthread_mutex_lock(&g_mu);
    bool last = g.depth == 1 && g.owner == dev;
    if (g.depth > 0 && g.owner == dev)
        g.depth--;
    pthread_mutex_unlock(&g_mu);
    if (!last)
        return PG_OK;
    pg_status st = cupti_check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                               "cuptiActivityDisable(CONCURRENT_KERNEL)", d);
    pthread_mutex_lock(&g_mu);
    g.owner = NULL;
    pthread_mutex_unlock(&g_mu);
    return st;
}

pg_status pg_act_now(uint64_t *ts, pg_diag *d)
{
    *ts = 0;
    return cupti_check(cuptiGetTimestamp(ts), "cuptiGetTimestamp", d);
}

void pg_act_keep_spans(bool on)
{
    pthread_mutex_lock(&g_mu);
    g.keep_spans = on;
    if (on) {
        g.n_spans = 0;
        g.spans_overflow = false;
    }
    pthread_mutex_unlock(&g_mu);
}

pg_status pg_act_take_spans(pg_act_span **spans, size_t *n, pg_diag *d)
{
    pthread_mutex_lock(&g_mu);
    bool overflow = g.spans_overflow;
    *spans = g.spans;
    *n = g.n_spans;
    g.spans = NULL;
    g.n_spans = g.cap_spans = 0;
    g.spans_overflow = false;
    pthread_mutex_unlock(&g_mu);
    if (!overflow)
        return PG_OK;
    free(*spans);
    *spans = NULL;
    *n = 0;
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                       "CUPTI activity: more than %zu kernel spans, or out of host memory",
                       PG_ACT_MAX_SPANS);
}

pg_status pg_activity_begin(pg_device *dev, pg_diag *d)
{
    if (dev->activity_open)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "CUPTI activity: a window is already open on this device");
    pg_status st = pg_dev_enter(dev, d);
    if (st == PG_OK)
        st = pg_dev_wait(dev, NULL, pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S,
                         PG_DEVICE_SAFETY_TIMEOUT_S, d);
    if (st != PG_OK)
        return st;
    st = pg_act_start(dev, d);
    if (st != PG_OK)
        return st;
    st = pg_act_read(dev, &dev->activity_ns0, &dev->activity_kernels0, d);
    if (st != PG_OK) {
        pg_act_stop(dev, NULL);
        return st;
    }
    dev->activity_open = true;
    return PG_OK;
}

pg_status pg_activity_end(pg_device *dev, double *gpu_ms, int *kernels, pg_diag *d)
{
    *gpu_ms = 0;
    *kernels = 0;
    if (!dev->activity_open)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "CUPTI activity: no window is open on this device");
    dev->activity_open = false;
    uint64_t ns = 0, n = 0;
    pg_status st = pg_dev_enter(dev, d);
    if (st == PG_OK)
        st = pg_dev_wait(dev, NULL, pg_dev_now() + PG_DEVICE_SAFETY_TIMEOUT_S,
                         PG_DEVICE_SAFETY_TIMEOUT_S, d);
    if (st == PG_OK)
        st = pg_act_read(dev, &ns, &n, d);
    if (st == PG_OK) {
        *gpu_ms = (double)(ns - dev->activity_ns0) * 1e-6;
        *kernels = (int)(n - dev->activity_kernels0);
    }
    /* Disabled on every path; its own error only when nothing failed before. */
    pg_status stop = pg_act_stop(dev, st == PG_OK ? d : NULL);
    return st != PG_OK ? st : stop;
}

void pg_activity_release(pg_device *dev)
{
    if (dev->activity_open)
        pg_act_stop(dev, NULL);
    dev->activity_open = false;
}
