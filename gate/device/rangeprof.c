/* Executed-instruction counts from the CUPTI range profiler: one user range around the work a
 * callback enqueues, replayed by us once per counter pass (user replay), then the profiler torn
 * down. The call order is the one that worked on the H200 with CUPTI 13.0
 * (docs/instructions-runtime.md); NVBench's cupti_profiler.cxx follows the same sequence. */
#include "device_internal.h"
#include "rangeprof_internal.h"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_RP_RANGE_NAME "ptxgate"

/* A tool injected into the process (ncu, nsys, compute-sanitizer) owns CUPTI; CUPTI would say
 * MULTIPLE_SUBSCRIBERS at some later call, or the tool would count our replays. */
static pg_status refuse_injected(pg_diag *d)
{
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj)
        return pg_diag_set(d, PG_ERR_UNAVAILABLE, NULL, 0, NULL,
                           "CUDA_INJECTION64_PATH is set (%s): another tool is injected into "
                           "this process and holds CUPTI; fix: run ptxgate outside Nsight "
                           "Compute, Nsight Systems or compute-sanitizer",
                           inj);
    return PG_OK;
}

static pg_status profiler_initialize(pg_diag *d)
{
    CUpti_Profiler_Initialize_Params p = {
        .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    return pg_rp_check(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize", d);
}

static void profiler_deinitialize(void)
{
    CUpti_Profiler_DeInitialize_Params p = {
        .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    cuptiProfilerDeInitialize(&p);
}

/* "arch=unsupported vGPU=disabled" for the flags cuptiProfilerDeviceSupported did not pass. */
static void append_flag(char *buf, size_t n, const char *name, CUpti_Profiler_Support_Level l)
{
    if (l == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return;
    const char *v = l == CUPTI_PROFILER_CONFIGURATION_DISABLED      ? "disabled"
                    : l == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED ? "unsupported"
                                                                    : "unknown";
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", name, v);
}

/* After initialize: a device or configuration the range profiler cannot use is named here,
 * before any counter is touched. */
static pg_status check_supported(pg_device *dev, pg_diag *d)
{
    CUpti_Profiler_DeviceSupported_Params p = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    p.cuDevice = dev->device;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    pg_status st = pg_rp_check(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported",
                               d);
    if (st != PG_OK)
        return st;
    if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
        p.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return PG_OK;
    char flags[256] = "";
    append_flag(flags, sizeof flags, "architecture", p.architecture);
    append_flag(flags, sizeof flags, "vGPU", p.vGpu);
    append_flag(flags, sizeof flags, "SLI", p.sli);
    append_flag(flags, sizeof flags, "confidential_compute", p.confidentialCompute);
    append_flag(flags, sizeof flags, "CMP", p.cmp);
    append_flag(flags, sizeof flags, "WSL", p.wsl);
    return pg_diag_set(d, PG_ERR_UNAVAILABLE, NULL, 0, NULL,
                       "profiling not supported on this device (cuptiProfilerDeviceSupported: "
                       "%s); fix: run on a bare-metal GPU of compute capability 7.5 or later "
                       "with profiling enabled (vGPU: enable it in the hypervisor; no SLI, "
                       "confidential computing or WSL)",
                       flags[0] ? flags : "not supported");
}

/* cuptiDeviceGetChipName crashed when called before cuptiProfilerInitialize: call it after.
 * The name is kept in the device: a device's chip does not change. */
static pg_status read_chip(pg_device *dev, char *out, size_t len, pg_diag *d)
{
    if (dev->chip[0]) {
        if (strlen(dev->chip) >= len)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "chip name '%s' does not fit in %zu bytes", dev->chip, len);
        snprintf(out, len, "%s", dev->chip);
        return PG_OK;
    }
    CUpti_Device_GetChipName_Params p = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    p.deviceIndex = (size_t)dev->info.ordinal;
    pg_status st = pg_rp_check(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName", d);
    if (st != PG_OK)
        return st;
    if (!p.pChipName || !p.pChipName[0])
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "cuptiDeviceGetChipName returned no name for device %d",
                           dev->info.ordinal);
    if (strlen(p.pChipName) >= len)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "chip name '%s' does not fit in %zu bytes", p.pChipName, len);
    snprintf(out, len, "%s", p.pChipName);
    if (strlen(p.pChipName) < sizeof dev->chip)
        snprintf(dev->chip, sizeof dev->chip, "%s", p.pChipName);
    return PG_OK;
}

pg_status pg_device_chip_name(pg_device *dev, char *out, size_t len, pg_diag *d)
{
    if (!dev || !out || len == 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "chip name: no device or buffer");
    out[0] = '\0';
    pg_status st = pg_dev_enter(dev, d);
    if (st == PG_OK)
        st = refuse_injected(d);
    if (st == PG_OK && dev->chip[0])
        return read_chip(dev, out, len, d); /* known: no profiler start-up for it */
    if (st == PG_OK)
        st = profiler_initialize(d);
    if (st != PG_OK)
        return st;
    st = read_chip(dev, out, len, d);
    profiler_deinitialize();
    return st;
}

/* Counter availability, asked twice (size, then fill). Without profiling permission the
 * failure may first show here (or at range start). *out is owned by the caller (free()). */
static pg_status counter_availability(pg_device *dev, uint8_t **out, pg_diag *d)
{
    *out = NULL;
    CUpti_Profiler_GetCounterAvailability_Params p = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    p.ctx = dev->ctx;
    pg_status st = pg_rp_check(cuptiProfilerGetCounterAvailability(&p),
                               "cuptiProfilerGetCounterAvailability", d);
    if (st != PG_OK)
        return st;
    *out = malloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1);
    if (!*out)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory (availability)");
    p.pCounterAvailabilityImage = *out;
    st = pg_rp_check(cuptiProfilerGetCounterAvailability(&p),
                     "cuptiProfilerGetCounterAvailability", d);
    if (st != PG_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* The profiler object of one call: what teardown releases. */
typedef struct {
    CUpti_RangeProfiler_Object *obj;
    uint8_t *counter_data;
    size_t counter_data_size;
} rp_session;

static pg_status counter_data_setup(rp_session *s, const char *const *metrics, size_t n,
                                    pg_diag *d)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = s->obj;
    sp.pMetricNames = (const char **)metrics; /* read only */
    sp.numMetrics = n;
    sp.maxNumOfRanges = 1;
    sp.maxNumRangeTreeNodes = 1;
    pg_status st = pg_rp_check(cuptiRangeProfilerGetCounterDataSize(&sp),
                               "cuptiRangeProfilerGetCounterDataSize", d);
    if (st != PG_OK)
        return st;
    s->counter_data = malloc(sp.counterDataSize ? sp.counterDataSize : 1);
    if (!s->counter_data)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory (counter data)");
    s->counter_data_size = sp.counterDataSize;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = s->obj;
    ip.counterDataSize = s->counter_data_size;
    ip.pCounterData = s->counter_data;
    return pg_rp_check(cuptiRangeProfilerCounterDataImageInitialize(&ip),
                       "cuptiRangeProfilerCounterDataImageInitialize", d);
}

static pg_status set_config(rp_session *s, const pg_rp_host *h, pg_diag *d)
{
    CUpti_RangeProfiler_SetConfig_Params p = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = s->obj;
    p.configSize = h->config_size;
    p.pConfig = h->config;
    p.counterDataImageSize = s->counter_data_size;
    p.pCounterDataImage = s->counter_data;
    p.range = CUPTI_UserRange;
    p.replayMode = CUPTI_UserReplay;
    p.maxRangesPerPass = 1;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    return pg_rp_check(cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig", d);
}

/* One pass: the range around the callback's work, waited for before the range closes so the
 * counters hold all of it. On a callback failure the range is still closed (errors of the
 * closing calls are then ignored: the callback's error is the one to report). */
static pg_status run_pass(pg_device *dev, rp_session *s, pg_enqueue_fn enqueue, void *ctx,
                          double timeout_s, bool *all_submitted, pg_diag *d)
{
    CUpti_RangeProfiler_Start_Params sp = {
        .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = s->obj;
    pg_status st = pg_rp_check(cuptiRangeProfilerStart(&sp), "cuptiRangeProfilerStart", d);
    if (st != PG_OK)
        return st;
    CUpti_RangeProfiler_PushRange_Params pp = {
        .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pp.pRangeProfilerObject = s->obj;
    pp.pRangeName = PG_RP_RANGE_NAME;
    st = pg_rp_check(cuptiRangeProfilerPushRange(&pp), "cuptiRangeProfilerPushRange", d);
    bool pushed = st == PG_OK;
    if (st == PG_OK)
        st = enqueue(ctx, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, timeout_s, d);
    pg_diag ignored;
    /* A kernel still running after the timeout: closing the range would wait for it. */
    if (dev->hung)
        return st;
    if (pushed) {
        CUpti_RangeProfiler_PopRange_Params op = {
            .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        op.pRangeProfilerObject = s->obj;
        pg_status pst = pg_rp_check(cuptiRangeProfilerPopRange(&op),
                                    "cuptiRangeProfilerPopRange", st == PG_OK ? d : &ignored);
        if (st == PG_OK)
            st = pst;
    }
    CUpti_RangeProfiler_Stop_Params tp = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    tp.pRangeProfilerObject = s->obj;
    pg_status tst = pg_rp_check(cuptiRangeProfilerStop(&tp), "cuptiRangeProfilerStop",
                                st == PG_OK ? d : &ignored);
    if (st == PG_OK)
        st = tst;
    *all_submitted = tp.isAllPassSubmitted != 0;
    return st;
}

/* Decode the passes into the counter-data image and evaluate the one range. */
static pg_status read_values(rp_session *s, const pg_rp_host *h, const char *const *metrics,
                             size_t n, double *values, pg_diag *d)
{
    CUpti_RangeProfiler_DecodeData_Params dp = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = s->obj;
    pg_status st = pg_rp_check(cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData",
                               d);
    if (st != PG_OK)
        return st;
    if (dp.numOfRangeDropped != 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "the range profiler dropped %zu range(s)", dp.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ip.pCounterDataImage = s->counter_data;
    ip.counterDataImageSize = s->counter_data_size;
    st = pg_rp_check(cuptiRangeProfilerGetCounterDataInfo(&ip),
                     "cuptiRangeProfilerGetCounterDataInfo", d);
    if (st != PG_OK)
        return st;
    if (ip.numTotalRanges != 1)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "the range profiler recorded %zu ranges, expected 1",
                           ip.numTotalRanges);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ep.pHostObject = h->host;
    ep.pCounterDataImage = s->counter_data;
    ep.counterDataImageSize = s->counter_data_size;
    ep.rangeIndex = 0;
    ep.ppMetricNames = (const char **)metrics; /* read only */
    ep.numMetrics = n;
    ep.pMetricValues = values;
    return pg_rp_check(cuptiProfilerHostEvaluateToGpuValues(&ep),
                       "cuptiProfilerHostEvaluateToGpuValues", d);
}

static pg_status check_args(pg_device *dev, pg_enqueue_fn enqueue, const char *const *metrics,
                            size_t n, double timeout_s, const double *values, pg_diag *d)
{
    if (!dev || !enqueue || !metrics || !values)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "count metrics: device, enqueue, metrics and values are required");
    if (n == 0 || n > PG_RANGEPROF_MAX_METRICS)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "metrics",
                           "expected 1 to %d metrics, found %zu", PG_RANGEPROF_MAX_METRICS, n);
    for (size_t i = 0; i < n; i++)
        if (!metrics[i] || !metrics[i][0])
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "metrics", "metric %zu is empty", i);
    if (!(timeout_s > 0))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "count metrics: timeout must be positive, got %g s", timeout_s);
    if (dev->activity_open)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "count metrics: a CUPTI activity window is open on this device; "
                           "verification runs apart from timing");
    return PG_OK;
}

pg_status pg_device_count_metrics(pg_device *dev, pg_enqueue_fn enqueue, void *ctx,
                                  pg_enqueue_fn restore, void *restore_ctx,
                                  const char *const *metrics, size_t n, double timeout_s,
                                  double *values, int *passes, pg_rp_times *times,
                                  pg_diag *d)
{
    pg_rp_times own;
    if (!times)
        times = &own;
    memset(times, 0, sizeof *times);
    if (passes)
        *passes = 0;
    double t = pg_dev_now();
    pg_status st = check_args(dev, enqueue, metrics, n, timeout_s, values, d);
    if (st == PG_OK)
        st = refuse_injected(d);
    if (st == PG_OK)
        st = pg_dev_enter(dev, d);
    /* Earlier work (fills, uploads) must not run inside the range. */
    if (st == PG_OK)
        st = pg_device_sync(dev, timeout_s, d);
    if (st == PG_OK)
        st = profiler_initialize(d);
    if (st != PG_OK)
        return st;

    uint8_t *availability = NULL;
    pg_rp_host host = {0};
    rp_session s = {0};
    char chip[64];
    int pass = 0;
    CUpti_RangeProfiler_Enable_Params ep = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    st = check_supported(dev, d);
    if (st == PG_OK)
        st = read_chip(dev, chip, sizeof chip, d);
    if (st == PG_OK)
        st = counter_availability(dev, &availability, d);
    times->init_s = pg_dev_now() - t;
    t = pg_dev_now();
    if (st == PG_OK)
        st = pg_rp_host_setup(chip, availability, metrics, n, &host, d);
    times->config_s = pg_dev_now() - t;
    t = pg_dev_now();
    if (st != PG_OK)
        goto done;
    ep.ctx = dev->ctx;
    st = pg_rp_check(cuptiRangeProfilerEnable(&ep), "cuptiRangeProfilerEnable", d);
    if (st != PG_OK)
        goto done;
    s.obj = ep.pRangeProfilerObject;
    st = counter_data_setup(&s, metrics, n, d);
    if (st == PG_OK)
        st = set_config(&s, &host, d);
    times->enable_s = pg_dev_now() - t;
    t = pg_dev_now();
    if (st != PG_OK)
        goto done;

    for (bool all_submitted = false; !all_submitted;) {
        if (pass == PG_RANGEPROF_MAX_PASSES) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                             "the range profiler wanted more than %d passes (%zu expected)",
                             PG_RANGEPROF_MAX_PASSES, host.passes);
            goto done;
        }
        if (pass > 0 && restore) {
            st = restore(restore_ctx, d);
            if (st == PG_OK)
                st = pg_device_sync(dev, timeout_s, d);
            if (st != PG_OK)
                goto done;
        }
        st = run_pass(dev, &s, enqueue, ctx, timeout_s, &all_submitted, d);
        if (st != PG_OK)
            goto done;
        pass++;
    }
    times->passes_s = pg_dev_now() - t;
    t = pg_dev_now();
    st = read_values(&s, &host, metrics, n, values, d);
    if (st == PG_OK && passes)
        *passes = pass;
    times->read_s = pg_dev_now() - t;
done:
    t = pg_dev_now();
    /* Teardown on every path, in reverse order: nothing of the profiler may stay enabled for
     * the timing runs that follow in this process. A hung kernel (TIMEOUT) leaves the device
     * unusable and CUPTI's teardown would wait for it: the process must end instead. */
    if (dev->hung) {
        /* s.counter_data stays allocated: the enabled profiler still points at it. */
        pg_rp_host_release(&host);
        free(availability);
        return st;
    }
    if (s.obj) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dp.pRangeProfilerObject = s.obj;
        pg_diag ignored;
        pg_status dst = pg_rp_check(cuptiRangeProfilerDisable(&dp), "cuptiRangeProfilerDisable",
                                    st == PG_OK ? d : &ignored);
        if (st == PG_OK)
            st = dst;
    }
    free(s.counter_data);
    pg_rp_host_release(&host);
    free(availability);
    profiler_deinitialize();
    times->teardown_s = pg_dev_now() - t;
    return st;
}
