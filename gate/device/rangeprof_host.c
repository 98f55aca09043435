/* The host half of the CUPTI range profiler, which needs no GPU: classifying CUPTI results
 * (unavailable versus broken), building the config image for a chip and a metric list, and
 * pg_metrics_host_check, which CI runs to prove every metric name of data/metrics/ valid. */
#include "rangeprof_internal.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Results after which profiling cannot run in this process or on this device: the stage is
 * unknown, never a pass. The fixes follow NVIDIA's pages for each error
 * (https://developer.nvidia.com/ERR_NVGPUCTRPERM for the permission). */
static const struct {
    CUptiResult r;
    const char *why;
    const char *fix;
} k_unavailable[] = {
    {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
     "access to the GPU performance counters is restricted to administrators",
     "run as root (in a container: --cap-add SYS_ADMIN), or load the NVIDIA kernel module with "
     "NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
     "profiling is not supported on this virtual GPU",
     "run on bare metal, or on a vGPU/passthrough setup that supports profiling"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
     "the hypervisor does not allow profiling on this virtual GPU",
     "enable profiling for this VM's vGPU in the hypervisor, or run on bare metal"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
     "another tool (Nsight Compute, Nsight Systems, compute-sanitizer, cuda-gdb) holds CUPTI in "
     "this process",
     "run ptxgate outside that tool"},
    {CUPTI_ERROR_DISABLED, "CUPTI is disabled by another profiler in this process",
     "run ptxgate outside profilers"},
    {CUPTI_ERROR_HARDWARE_BUSY,
     "the GPU's performance counters are in use by another client (a profiler in another "
     "process, or DCGM profiling metrics)",
     "stop it (DCGM: dcgmi profile --pause) and run again"},
    {CUPTI_ERROR_NOT_SUPPORTED, "profiling is not supported on this device or configuration",
     "run on a GPU of compute capability 7.5 or later, outside MIG, SLI, WSL and confidential "
     "computing"},
    {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "profiling is not supported on a MIG instance",
     "run on a GPU without MIG partitions"},
    {CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
     "profiling is not allowed with confidential computing on", "run without confidential "
                                                                "computing"},
    {CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, "CUPTI does not support crypto-mining processors",
     "run on another GPU"},
    {CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, "profiling is not supported with SLI",
     "disable SLI"},
    {CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, "profiling is not supported on this WSL setup",
     "run on native Linux"},
    {CUPTI_ERROR_INVALID_CHIP_NAME, "this CUPTI does not know the GPU's chip",
     "build ptxgate with the CUDA toolkit (CUPTI) of a release that supports this GPU"},
    {CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED,
     "the legacy CUPTI event/metric API is already in use in this process",
     "do not mix it with ptxgate's range profiler"},
    {CUPTI_ERROR_NOT_INITIALIZED, "CUPTI could not connect to the CUDA driver",
     "use a driver at least as new as the CUDA toolkit ptxgate was built with"},
};

pg_status pg_rp_check(CUptiResult r, const char *call, pg_diag *d)
{
    if (r == CUPTI_SUCCESS)
        return PG_OK;
    const char *name = NULL, *msg = NULL;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
        name = "CUPTI_ERROR_(unnamed)";
    for (size_t i = 0; i < sizeof k_unavailable / sizeof k_unavailable[0]; i++)
        if (k_unavailable[i].r == r)
            return pg_diag_set(d, PG_ERR_UNAVAILABLE, NULL, 0, NULL, "%s in %s: %s; fix: %s",
                               name, call, k_unavailable[i].why, k_unavailable[i].fix);
    if (cuptiGetErrorMessage(r, &msg) != CUPTI_SUCCESS || !msg)
        msg = "no description";
    char text[512];
    snprintf(text, sizeof text, "%s", msg);
    /* CUPTI's messages end in a newline or a space. */
    for (size_t n = strlen(text); n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ');)
        text[--n] = '\0';
    return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s (CUptiResult %d) in %s: %s", name,
                       (int)r, call, text);
}

void pg_rp_host_release(pg_rp_host *h)
{
    if (h->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = h->host;
        cuptiProfilerHostDeinitialize(&p);
    }
    free(h->config);
    memset(h, 0, sizeof *h);
}

/* The config refused the list: find the metric the chip does not know, to name it. */
static pg_status name_bad_metric(CUpti_Profiler_Host_Object *host, const char *chip,
                                 const char *const *metrics, size_t n, pg_status st, pg_diag *d)
{
    for (size_t i = 0; i < n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params p = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
        p.pHostObject = host;
        p.pMetricName = metrics[i];
        CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
        if (r != CUPTI_SUCCESS) {
            const char *name = NULL;
            cuptiGetResultString(r, &name);
            char field[32];
            snprintf(field, sizeof field, "metrics[%zu]", i);
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, field,
                               "metric '%s' is not known for chip %s (%s in "
                               "cuptiProfilerHostGetMetricProperties)",
                               metrics[i], chip, name ? name : "error");
        }
    }
    return st;
}

pg_status pg_rp_host_setup(const char *chip, const uint8_t *availability,
                           const char *const *metrics, size_t n, pg_rp_host *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    CUpti_Profiler_Host_Initialize_Params ip = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip;
    ip.pCounterAvailabilityImage = availability;
    pg_status st = pg_rp_check(cuptiProfilerHostInitialize(&ip), "cuptiProfilerHostInitialize", d);
    if (st != PG_OK)
        return st;
    out->host = ip.pHostObject;

    CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    ap.pHostObject = out->host;
    ap.ppMetricNames = (const char **)metrics; /* read only */
    ap.numMetrics = n;
    st = pg_rp_check(cuptiProfilerHostConfigAddMetrics(&ap), "cuptiProfilerHostConfigAddMetrics",
                     d);
    if (st != PG_OK) {
        st = name_bad_metric(out->host, chip, metrics, n, st, d);
        goto done;
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sp.pHostObject = out->host;
    st = pg_rp_check(cuptiProfilerHostGetConfigImageSize(&sp),
                     "cuptiProfilerHostGetConfigImageSize", d);
    if (st != PG_OK)
        goto done;
    out->config = malloc(sp.configImageSize ? sp.configImageSize : 1);
    if (!out->config) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory (config image)");
        goto done;
    }
    out->config_size = sp.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params gp = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gp.pHostObject = out->host;
    gp.configImageSize = out->config_size;
    gp.pConfigImage = out->config;
    st = pg_rp_check(cuptiProfilerHostGetConfigImage(&gp), "cuptiProfilerHostGetConfigImage", d);
    if (st != PG_OK)
        goto done;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = out->config_size;
    np.pConfigImage = out->config;
    st = pg_rp_check(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses", d);
    if (st != PG_OK)
        goto done;
    out->passes = np.numOfPasses;
done:
    if (st != PG_OK)
        pg_rp_host_release(out);
    return st;
}

pg_status pg_metrics_host_check(const char *chip, const char *const *metrics, size_t n,
                                int *passes, pg_diag *d)
{
    if (!chip || !metrics || n == 0 || n > PG_RANGEPROF_MAX_METRICS)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "metrics",
                           "expected a chip name and 1 to %d metrics", PG_RANGEPROF_MAX_METRICS);
    pg_rp_host h;
    pg_status st = pg_rp_host_setup(chip, NULL, metrics, n, &h, d);
    if (st != PG_OK)
        return st;
    if (passes)
        *passes = (int)h.passes;
    pg_rp_host_release(&h);
    return PG_OK;
}
