/* Timing one arm beyond pg_device_time: cold launch groups with both timers (CUDA events and
 * CUPTI kernel time, L2 flushed before each), and sustained mode (CUDA graphs of back-to-back
 * launches captured from the device stream). */
#include "device_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Launches in the probe that sizes the graph. */
#define PG_SUSTAINED_PROBE 3
/* Captures at most: the first, then up to two with a larger k when the graph ran short of
 * min_graph_ms (the eager probe overestimates tiny kernels by their launch overhead). */
#define PG_SUSTAINED_CAPTURES 3
/* Aim this much above min_graph_ms when re-sizing, so one re-capture suffices. */
#define PG_SUSTAINED_MARGIN 1.1
#define PG_SUSTAINED_MAX_GRAPH_MS 10000.0

static pg_status record(pg_device *dev, int i, pg_diag *d)
{
    return pg_dev_check(dev, dev->cu->EventRecord(dev->events[i], dev->stream), PG_ERR_INFRA,
                        "cuEventRecord", d);
}

/* Wait for event 1, then the time from event 0 to event 1 in ms. */
static pg_status elapsed(pg_device *dev, double deadline, double timeout_s, double *ms,
                         pg_diag *d)
{
    pg_status st = pg_dev_wait(dev, dev->events[1], deadline, timeout_s, d);
    float f = 0;
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->EventElapsedTime(&f, dev->events[0], dev->events[1]),
                          PG_ERR_INFRA, "cuEventElapsedTime", d);
    *ms = f;
    return st;
}

/* Between steps the GPU is idle: running out of time is a TIMEOUT that leaves the device
 * usable, as in pg_device_time. */
static pg_status check_deadline(double deadline, double timeout_s, const char *what, pg_diag *d)
{
    if (pg_dev_now() < deadline)
        return PG_OK;
    return pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL,
                       "TIMEOUT: timing did not finish within %.3g s (%s)", timeout_s, what);
}

/* Give each timed group the kernels that started in it. bounds[r] (CUPTI clock) was taken
 * before group r was enqueued, after group r-1 was waited for, so every kernel of group r
 * starts at or after bounds[r] and ends before bounds[r+1]; bounds[reps] closes the last one.
 * A kernel that starts in one group and ends past the next boundary means the CUPTI and host
 * clocks disagree: an infrastructure error rather than a silently misattributed time. */
static pg_status attribute(const pg_act_span *spans, size_t n, const uint64_t *bounds, int reps,
                           double *gpu_ms, pg_diag *d)
{
    for (int r = 0; r < reps; r++)
        gpu_ms[r] = 0;
    for (size_t i = 0; i < n; i++) {
        if (spans[i].start < bounds[0] || spans[i].start >= bounds[reps])
            continue; /* a warm-up group's kernel, or earlier work */
        int lo = 0, hi = reps - 1; /* the last r with bounds[r] <= start */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (bounds[mid] <= spans[i].start)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (spans[i].end > bounds[lo + 1])
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                               "CUPTI activity: a kernel of timed group %d ends %.3f us after "
                               "the next group began (CUPTI and host clocks disagree)",
                               lo, (double)(spans[i].end - bounds[lo + 1]) * 1e-3);
        gpu_ms[lo] += (double)(spans[i].end - spans[i].start) * 1e-6;
    }
    return PG_OK;
}

pg_status pg_device_time_arm(pg_device *dev, const pg_arm *arm, int warmup, int reps,
                             bool flush_l2, double timeout_s, double *events_ms, double *gpu_ms,
                             pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (!arm || !arm->enqueue || warmup < 0 || reps < 0 || (reps > 0 && !events_ms) ||
        !(timeout_s > 0))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "timing one arm: arm %s, warmup %d, reps %d, timeout %g s: out of "
                           "range",
                           arm && arm->enqueue ? "given" : "missing", warmup, reps, timeout_s);
    double deadline = pg_dev_now() + timeout_s;
    bool cupti = gpu_ms != NULL && reps > 0, started = false;
    uint64_t *bounds = NULL, ns = 0, kernels = 0;
    pg_act_span *spans = NULL;
    size_t n_spans = 0;
    st = pg_tm_ensure_events(dev, 2, d);
    if (st == PG_OK && cupti) {
        bounds = malloc(((size_t)reps + 1) * sizeof(*bounds));
        if (!bounds)
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    }
    if (st == PG_OK && cupti) {
        st = pg_act_start(dev, d);
        started = st == PG_OK;
        /* Deliver what is pending now, never inside the loop: with a forced flush after every
         * group, the event times of the H200 GEMM and copy arms grew by 200 and 320 us (the
         * launch after a flush presumably pays CUPTI's buffer hand-over). Inside the loop
         * CUPTI is only asked for its clock; records are attributed to groups afterwards. */
        if (st == PG_OK)
            st = pg_act_read(dev, &ns, &kernels, d);
        if (st == PG_OK)
            pg_act_keep_spans(true);
    }
    for (int round = 0; st == PG_OK && round < warmup + reps; round++) {
        bool timed = round >= warmup;
        /* The preparation may launch kernels (fills): finished before the group's CUPTI bound,
         * they are never counted as the arm's. */
        if (arm->prepare)
            st = arm->prepare(arm->ctx, d);
        if (st == PG_OK && arm->prepare && cupti)
            st = pg_dev_wait(dev, NULL, deadline, timeout_s, d);
        if (st == PG_OK && cupti && timed)
            st = pg_act_now(&bounds[round - warmup], d);
        if (st == PG_OK && flush_l2)
            st = pg_tm_flush_l2(dev, d);
        if (st == PG_OK)
            st = record(dev, 0, d);
        if (st == PG_OK)
            st = arm->enqueue(arm->ctx, d);
        if (st == PG_OK)
            st = record(dev, 1, d);
        double ms = 0;
        /* Waiting each group keeps one group in flight, finds a hang in its own group, and
         * separates the groups in time for the CUPTI attribution. */
        if (st == PG_OK)
            st = elapsed(dev, deadline, timeout_s, &ms, d);
        if (st == PG_OK && timed)
            events_ms[round - warmup] = ms;
        if (st == PG_OK && round + 1 < warmup + reps)
            st = check_deadline(deadline, timeout_s, "one arm", d);
    }
    if (st == PG_OK && cupti)
        st = pg_act_now(&bounds[reps], d);
    if (st == PG_OK && cupti)
        st = pg_act_read(dev, &ns, &kernels, d);
    if (started) {
        pg_act_keep_spans(false);
        pg_status took = pg_act_take_spans(&spans, &n_spans, st == PG_OK ? d : NULL);
        if (st == PG_OK)
            st = took;
        /* The flush memset is no kernel record: it never enters gpu_ms. */
        if (st == PG_OK)
            st = attribute(spans, n_spans, bounds, reps, gpu_ms, d);
        pg_status stop = pg_act_stop(dev, st == PG_OK ? d : NULL);
        if (st == PG_OK)
            st = stop;
    }
    free(spans);
    free(bounds);
    return st;
}

struct pg_sgraph {
    pg_device *dev;
    CUgraph graph;
    CUgraphExec exec;
    int launches;
};
typedef struct pg_sgraph pg_graph;

static void graph_free(pg_device *dev, pg_graph *g)
{
    if (g->exec)
        dev->cu->GraphExecDestroy(g->exec);
    if (g->graph)
        dev->cu->GraphDestroy(g->graph);
    g->exec = NULL;
    g->graph = NULL;
}
/* Capture k launches (rotations 0..k-1) from the device stream, instantiate and upload. The
 * capture is ended on every path, so a failing arm leaves the stream usable. Thread-local
 * mode: only this thread's unsafe calls (allocation, synchronisation) invalidate it, never a
 * watch thread's. */
static pg_status capture(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx, int k,
                         pg_graph *g, pg_diag *d)
{
    const pg_cu_api *cu = dev->cu;
    g->launches = k;
    pg_status st = pg_dev_check(dev,
                                cu->StreamBeginCapture(dev->stream,
                                                       CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                                PG_ERR_INFRA, "cuStreamBeginCapture", d);
    if (st != PG_OK)
        return st;
    for (int i = 0; i < k && st == PG_OK; i++)
        st = enqueue(ctx, i, d);
    CUgraph graph = NULL;
    CUresult r = cu->StreamEndCapture(dev->stream, &graph);
    g->graph = graph;
    if (st != PG_OK)
        return st; /* the arm's own error explains more than the invalidated capture */
    st = pg_dev_check(dev, r, PG_ERR_INFRA, "cuStreamEndCapture", d);
    if (st == PG_OK)
        st = pg_dev_check(dev, cu->GraphInstantiateWithFlags(&g->exec, g->graph, 0),
                          PG_ERR_INFRA, "cuGraphInstantiateWithFlags", d);
    /* Uploaded now, so the warm-up launch times execution rather than the upload. */
    if (st == PG_OK)
        st = pg_dev_check(dev, cu->GraphUpload(g->exec, dev->stream), PG_ERR_INFRA,
                          "cuGraphUpload", d);
    return st;
}

static pg_status time_graph(pg_device *dev, const pg_graph *g, double deadline,
                            double timeout_s, double *ms, pg_diag *d)
{
    pg_status st = record(dev, 0, d);
    if (st == PG_OK)
        st = pg_dev_check(dev, dev->cu->GraphLaunch(g->exec, dev->stream), PG_FAIL_KERNEL,
                          "cuGraphLaunch", d);
    if (st == PG_OK)
        st = record(dev, 1, d);
    if (st == PG_OK)
        st = elapsed(dev, deadline, timeout_s, ms, d);
    return st;
}

static int launches_for(double min_graph_ms, double per_launch_ms)
{
    double k = ceil(min_graph_ms / (per_launch_ms > 1e-4 ? per_launch_ms : 1e-4));
    return k < 1 ? 1 : k > PG_SUSTAINED_MAX_LAUNCHES ? PG_SUSTAINED_MAX_LAUNCHES : (int)k;
}

/* One untimed launch (module loading, attributes, cuBLASLt's first-call work all happen
 * outside any capture), then PG_SUSTAINED_PROBE launches back to back between events. */
static pg_status probe(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx, double deadline,
                       double timeout_s, double *per_launch_ms, pg_diag *d)
{
    pg_status st = enqueue(ctx, 0, d);
    if (st == PG_OK)
        st = pg_dev_wait(dev, NULL, deadline, timeout_s, d);
    if (st == PG_OK)
        st = record(dev, 0, d);
    for (int i = 1; i <= PG_SUSTAINED_PROBE && st == PG_OK; i++)
        st = enqueue(ctx, i, d);
    if (st == PG_OK)
        st = record(dev, 1, d);
    double ms = 0;
    if (st == PG_OK)
        st = elapsed(dev, deadline, timeout_s, &ms, d);
    *per_launch_ms = ms / PG_SUSTAINED_PROBE;
    return st;
}

/* Probe, capture and size one graph of at least min_graph_ms (see pg_sgraph_build); the
 * warm-up launch's time goes to *graph_ms. */
static pg_status build(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx, double min_graph_ms,
                       double deadline, double timeout_s, pg_graph *g, double *graph_ms,
                       pg_diag *d)
{
    double estimate = 0;
    pg_status st = pg_tm_ensure_events(dev, 2, d);
    if (st == PG_OK)
        st = probe(dev, enqueue, ctx, deadline, timeout_s, &estimate, d);
    int k = launches_for(min_graph_ms, estimate);
    for (int attempt = 0; st == PG_OK && attempt < PG_SUSTAINED_CAPTURES; attempt++) {
        st = capture(dev, enqueue, ctx, k, g, d);
        if (st == PG_OK)
            st = time_graph(dev, g, deadline, timeout_s, graph_ms, d); /* warm-up */
        if (st != PG_OK || *graph_ms >= min_graph_ms || k == PG_SUSTAINED_MAX_LAUNCHES ||
            attempt + 1 == PG_SUSTAINED_CAPTURES)
            break;
        k = launches_for(min_graph_ms * PG_SUSTAINED_MARGIN, *graph_ms / k);
        graph_free(dev, g);
        st = check_deadline(deadline, timeout_s, "sizing the graph", d);
    }
    return st;
}

static pg_status check_args(pg_enqueue_rot_fn enqueue, double min_graph_ms, double timeout_s,
                            pg_diag *d)
{
    if (!enqueue || !(min_graph_ms > 0 && min_graph_ms <= PG_SUSTAINED_MAX_GRAPH_MS) ||
        !(timeout_s > 0))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "sustained timing: min_graph_ms %g (0..%g], timeout %g s, enqueue "
                           "given: out of range",
                           min_graph_ms, PG_SUSTAINED_MAX_GRAPH_MS, timeout_s);
    return PG_OK;
}

pg_status pg_device_time_sustained(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx,
                                   double min_graph_ms, int reps, double timeout_s,
                                   double *per_launch_ms, int *launches_per_graph, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if ((st = check_args(enqueue, min_graph_ms, timeout_s, d)) != PG_OK)
        return st;
    if (reps < 1 || !per_launch_ms || !launches_per_graph)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "sustained timing: reps %d (>= 1) and outputs given: out of range",
                           reps);
    *launches_per_graph = 0;
    double deadline = pg_dev_now() + timeout_s;
    pg_graph g = {0};
    double graph_ms = 0;
    st = build(dev, enqueue, ctx, min_graph_ms, deadline, timeout_s, &g, &graph_ms, d);
    for (int r = 0; st == PG_OK && r < reps; r++) {
        st = check_deadline(deadline, timeout_s, "sustained graph launches", d);
        if (st == PG_OK)
            st = time_graph(dev, &g, deadline, timeout_s, &graph_ms, d);
        if (st == PG_OK)
            per_launch_ms[r] = graph_ms / g.launches;
    }
    if (st == PG_OK)
        *launches_per_graph = g.launches;
    if (!dev->hung)
        graph_free(dev, &g);
    return st;
}

pg_status pg_sgraph_build(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx,
                          double min_graph_ms, double timeout_s, pg_sgraph **out, pg_diag *d)
{
    *out = NULL;
    pg_status st = pg_dev_enter(dev, d);
    if (st == PG_OK)
        st = check_args(enqueue, min_graph_ms, timeout_s, d);
    if (st != PG_OK)
        return st;
    pg_graph *g = calloc(1, sizeof *g);
    if (!g)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    g->dev = dev;
    double graph_ms = 0;
    st = build(dev, enqueue, ctx, min_graph_ms, pg_dev_now() + timeout_s, timeout_s, g, &graph_ms,
               d);
    if (st != PG_OK) {
        pg_sgraph_free(g);
        return st;
    }
    *out = g;
    return PG_OK;
}

int pg_sgraph_launches(const pg_sgraph *g)
{
    return g ? g->launches : 0;
}

pg_status pg_sgraph_enqueue(void *graph, pg_diag *d)
{
    pg_graph *g = graph;
    pg_status st = pg_dev_enter(g->dev, d);
    if (st != PG_OK)
        return st;
    return pg_dev_check(g->dev, g->dev->cu->GraphLaunch(g->exec, g->dev->stream), PG_FAIL_KERNEL,
                        "cuGraphLaunch", d);
}

void pg_sgraph_free(pg_sgraph *g)
{
    if (!g)
        return;
    if (!g->dev->hung)
        graph_free(g->dev, g);
    free(g);
}
