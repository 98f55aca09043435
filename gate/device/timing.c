/* Timing arms with CUDA events: rounds of all arms in alternating order, each timed launch
 * preceded by an L2 flush outside its events, one wait per round under a deadline for the
 * whole call. */
#include "device_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* A hard bound on arms per call (2 events each). */
#define PG_TIME_MAX_ARMS 64
/* Flush with a buffer of at least this many bytes, or twice L2 when that is larger: a buffer
 * >= 2x L2 made a small copy kernel's time repeatable across processes on the H200 (7.9 % ->
 * 0.29 % spread, measurements on the H200 test machine). */
#define PG_FLUSH_MIN_BYTES ((size_t)256 << 20)

size_t pg_flush_bytes_for_l2(long long l2_bytes)
{
    size_t twice_l2 = l2_bytes > 0 ? (size_t)l2_bytes * 2 : 0;
    return twice_l2 > PG_FLUSH_MIN_BYTES ? twice_l2 : PG_FLUSH_MIN_BYTES;
}

size_t pg_device_flush_bytes(const pg_device *dev)
{
    return pg_flush_bytes_for_l2(dev->info.l2_bytes);
}

/* Events are created once per device and reused (creating them in the loop costs host time
 * between launches); the L2 flush writes a new value every time, so no layer can treat the
 * memset as redundant. Shared with sustained.c. */
pg_status pg_tm_ensure_events(pg_device *dev, size_t n, pg_diag *d)
{
    if (dev->n_events >= n)
        return PG_OK;
    CUevent *grown = realloc(dev->events, n * sizeof(*grown));
    if (!grown)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    dev->events = grown;
    while (dev->n_events < n) {
        pg_status st = pg_dev_check(dev,
                                    dev->cu->EventCreate(&dev->events[dev->n_events],
                                                         CU_EVENT_DEFAULT),
                                    PG_ERR_INFRA, "cuEventCreate", d);
        if (st != PG_OK)
            return st;
        dev->n_events++;
    }
    return PG_OK;
}

pg_status pg_tm_flush_l2(pg_device *dev, pg_diag *d)
{
    size_t bytes = pg_device_flush_bytes(dev);
    if (!dev->flush) {
        CUdeviceptr p = 0;
        pg_status st = pg_dev_check(dev, dev->cu->MemAlloc(&p, bytes), PG_ERR_INFRA,
                                    "cuMemAlloc(L2 flush buffer)", d);
        if (st != PG_OK)
            return st;
        dev->flush = p;
    }
    dev->flush_value++; /* a new value each time, so no layer can skip the memset */
    return pg_dev_check(dev,
                        dev->cu->MemsetD32Async(dev->flush, dev->flush_value, bytes / 4,
                                                dev->stream),
                        PG_ERR_INFRA, "cuMemsetD32Async(L2 flush)", d);
}

static pg_status ensure_flush(pg_device *dev, pg_diag *d)
{
    if (dev->flush)
        return PG_OK;
    CUdeviceptr p = 0;
    pg_status st = pg_dev_check(dev, dev->cu->MemAlloc(&p, pg_device_flush_bytes(dev)),
                                PG_ERR_INFRA, "cuMemAlloc(L2 flush buffer)", d);
    if (st == PG_OK)
        dev->flush = p;
    return st;
}

static pg_status record(pg_device *dev, CUevent ev, pg_diag *d)
{
    return pg_dev_check(dev, dev->cu->EventRecord(ev, dev->stream), PG_ERR_INFRA, "cuEventRecord",
                        d);
}

/* One round: every arm once, in forward order on even rounds and backward on odd ones. When
 * timed, arm a is bracketed by events 2a and 2a+1, and *last is the round's final event. */
static pg_status run_round(pg_device *dev, const pg_arm *arms, size_t n_arms, int round,
                           bool timed, bool flush, CUevent *last, pg_diag *d)
{
    pg_status st = PG_OK;
    for (size_t j = 0; j < n_arms && st == PG_OK; j++) {
        size_t a = round % 2 == 0 ? j : n_arms - 1 - j;
        if (arms[a].prepare)
            st = arms[a].prepare(arms[a].ctx, d);
        if (st == PG_OK && flush)
            st = pg_tm_flush_l2(dev, d);
        if (st == PG_OK && timed)
            st = record(dev, dev->events[2 * a], d);
        if (st == PG_OK)
            st = arms[a].enqueue(arms[a].ctx, d);
        if (st == PG_OK && timed) {
            st = record(dev, dev->events[2 * a + 1], d);
            *last = dev->events[2 * a + 1];
        }
    }
    return st;
}

pg_status pg_device_time(pg_device *dev, const pg_arm *arms, size_t n_arms, int warmup, int reps,
                         bool flush_l2_on, double timeout_s, double *times_ms, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (n_arms == 0 || n_arms > PG_TIME_MAX_ARMS || warmup < 0 || reps < 0 ||
        (reps > 0 && !times_ms) || !(timeout_s > 0))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "timing: %zu arms (1..%d), warmup %d, reps %d, timeout %g s: out of "
                           "range",
                           n_arms, PG_TIME_MAX_ARMS, warmup, reps, timeout_s);
    double deadline = pg_dev_now() + timeout_s;
    st = pg_tm_ensure_events(dev, 2 * n_arms, d);
    if (st == PG_OK && flush_l2_on)
        st = ensure_flush(dev, d);
    for (int round = 0; st == PG_OK && round < warmup + reps; round++) {
        bool timed = round >= warmup;
        CUevent last = NULL;
        st = run_round(dev, arms, n_arms, round, timed, flush_l2_on, &last, d);
        /* Waiting each round keeps the host at most one round ahead, so the deadline is checked
         * often and a hung kernel is found within the round it hangs in. */
        if (st == PG_OK)
            st = pg_dev_wait(dev, last, deadline, timeout_s, d);
        if (st == PG_OK && timed) {
            int r = round - warmup;
            for (size_t a = 0; a < n_arms && st == PG_OK; a++) {
                float ms = 0;
                st = pg_dev_check(dev,
                                  dev->cu->EventElapsedTime(&ms, dev->events[2 * a],
                                                            dev->events[2 * a + 1]),
                                  PG_ERR_INFRA, "cuEventElapsedTime", d);
                times_ms[a * (size_t)reps + (size_t)r] = ms;
            }
        }
        if (st == PG_OK && round + 1 < warmup + reps && pg_dev_now() >= deadline)
            /* The GPU is idle here: nothing hangs, the work just took longer than allowed. */
            st = pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL,
                             "TIMEOUT: timing did not finish within %.3g s (%d of %d rounds done)",
                             timeout_s, round + 1, warmup + reps);
    }
    return st;
}

void pg_timing_release(pg_device *dev)
{
    for (size_t i = 0; i < dev->n_events; i++)
        dev->cu->EventDestroy(dev->events[i]);
    dev->n_events = 0;
    if (dev->flush)
        dev->cu->MemFree(dev->flush);
    dev->flush = 0;
}
