/* The environment watch: a thread that samples NVML (SM clock, clock-event reasons,
 * temperature, power) every ~2 ms while a measurement runs, plus the energy counter at both
 * ends and the other compute processes at the start. NVML is loaded with dlopen and optional. */
#include "device_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* About 2 ms between samples: a 100 us kernel block of a few ms gets a handful, and the
 * thread stays well below one core (each sample is four NVML calls). */
#define PG_ENVWATCH_PERIOD_NS 2000000L
/* Clock samples kept for the median: 2^20 (about 35 minutes at 2 ms, 4 MiB). Beyond it only
 * min/max/reasons/temperature/power keep accumulating. */
#define PG_ENVWATCH_MAX_SAMPLES (1 << 20)
/* Processes listed at begin; with more, NVML answers INSUFFICIENT_SIZE: unknown (-1). */
#define PG_ENVWATCH_MAX_PROCESSES 64

/* The few NVML declarations used (no nvml.h on the build machine). nvmlReturn_t and the
 * enums are C enums, passed as int. */
typedef struct pg_nvml_device *pg_nvml_device_t;
typedef struct {
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
} pg_nvml_process; /* nvmlProcessInfo_t of the _v2 and _v3 process queries */
#define PG_NVML_SUCCESS 0
#define PG_NVML_CLOCK_SM 1
#define PG_NVML_TEMPERATURE_GPU 0

typedef struct {
    int (*init)(void);
    int (*by_uuid)(const char *uuid, pg_nvml_device_t *device);
    int (*clock)(pg_nvml_device_t, int type, unsigned int *mhz);
    int (*reasons)(pg_nvml_device_t, unsigned long long *reasons);
    int (*temperature)(pg_nvml_device_t, int sensor, unsigned int *c);
    int (*power)(pg_nvml_device_t, unsigned int *mw);
    int (*energy)(pg_nvml_device_t, unsigned long long *mj);
    int (*processes)(pg_nvml_device_t, unsigned int *count, pg_nvml_process *infos);
} pg_nvml_api;

/* NVML is loaded and initialised once per process and stays so (like the driver): a watch per
 * arm per block must not pay nvmlInit each time. NULL entries are queries this NVML lacks. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pg_nvml_api g_nvml;
static bool g_nvml_ok;

static void *sym(void *lib, const char *name, const char *fallback)
{
    void *p = dlsym(lib, name);
    return p || !fallback ? p : dlsym(lib, fallback);
}

static void load_once(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    g_nvml.init = (int (*)(void))sym(lib, "nvmlInit_v2", NULL);
    g_nvml.by_uuid = (int (*)(const char *, pg_nvml_device_t *))sym(
        lib, "nvmlDeviceGetHandleByUUID", NULL);
    g_nvml.clock = (int (*)(pg_nvml_device_t, int, unsigned int *))sym(
        lib, "nvmlDeviceGetClockInfo", NULL);
    /* Renamed in NVML 12.2; the old name stays as an alias. */
    g_nvml.reasons = (int (*)(pg_nvml_device_t, unsigned long long *))sym(
        lib, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    g_nvml.temperature = (int (*)(pg_nvml_device_t, int, unsigned int *))sym(
        lib, "nvmlDeviceGetTemperature", NULL);
    g_nvml.power = (int (*)(pg_nvml_device_t, unsigned int *))sym(
        lib, "nvmlDeviceGetPowerUsage", NULL);
    g_nvml.energy = (int (*)(pg_nvml_device_t, unsigned long long *))sym(
        lib, "nvmlDeviceGetTotalEnergyConsumption", NULL);
    g_nvml.processes = (int (*)(pg_nvml_device_t, unsigned int *, pg_nvml_process *))sym(
        lib, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
    if (!g_nvml.init || !g_nvml.by_uuid || g_nvml.init() != PG_NVML_SUCCESS) {
        dlclose(lib);
        memset(&g_nvml, 0, sizeof(g_nvml));
        return;
    }
    g_nvml_ok = true; /* never dlclosed nor shut down: later watches reuse it */
}

struct pg_envwatch {
    pg_nvml_device_t nd; /* NULL: NVML unavailable, nothing sampled */
    double t0;
    unsigned long long energy0_mj;
    bool energy0_ok;
    int others;

    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled to stop; uses CLOCK_MONOTONIC */
    bool stop;

    /* Written by the sampling thread only, read after it is joined. */
    int *clocks;
    size_t n_clocks, cap_clocks;
    int clock_min, clock_max;
    unsigned long long reasons;
    int temp_max;
    double power_sum_w;
    int power_n;
};

static void sample(struct pg_envwatch *w)
{
    unsigned int v = 0;
    if (g_nvml.clock && g_nvml.clock(w->nd, PG_NVML_CLOCK_SM, &v) == PG_NVML_SUCCESS) {
        int mhz = (int)v;
        if (w->n_clocks == 0 || mhz < w->clock_min)
            w->clock_min = mhz;
        if (w->n_clocks == 0 || mhz > w->clock_max)
            w->clock_max = mhz;
        if (w->n_clocks == w->cap_clocks && w->cap_clocks < PG_ENVWATCH_MAX_SAMPLES) {
            size_t cap = w->cap_clocks ? w->cap_clocks * 2 : 1024;
            int *grown = realloc(w->clocks, cap * sizeof(*grown));
            if (grown) {
                w->clocks = grown;
                w->cap_clocks = cap;
            }
        }
        if (w->n_clocks < w->cap_clocks)
            w->clocks[w->n_clocks++] = mhz;
    }
    unsigned long long r = 0;
    if (g_nvml.reasons && g_nvml.reasons(w->nd, &r) == PG_NVML_SUCCESS)
        w->reasons |= r;
    if (g_nvml.temperature &&
        g_nvml.temperature(w->nd, PG_NVML_TEMPERATURE_GPU, &v) == PG_NVML_SUCCESS &&
        (int)v > w->temp_max)
        w->temp_max = (int)v;
    if (g_nvml.power && g_nvml.power(w->nd, &v) == PG_NVML_SUCCESS) {
        w->power_sum_w += v / 1000.0;
        w->power_n++;
    }
}

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

/* Sample now (so even a short watch has one sample), then on a fixed 2 ms grid; a sample that
 * overran the grid starts a new one from now rather than catching up in a burst. */
static void *sampler(void *arg)
{
    struct pg_envwatch *w = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        sample(w);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        add_ns(&next, PG_ENVWATCH_PERIOD_NS);
        if (next.tv_sec < now.tv_sec || (next.tv_sec == now.tv_sec && next.tv_nsec < now.tv_nsec))
            next = now;
        pthread_mutex_lock(&w->mu);
        while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu, &next) != ETIMEDOUT) {
        }
        bool stop = w->stop;
        pthread_mutex_unlock(&w->mu);
        if (stop)
            return NULL;
    }
}

static int count_others(pg_nvml_device_t nd)
{
    if (!g_nvml.processes)
        return -1;
    pg_nvml_process infos[PG_ENVWATCH_MAX_PROCESSES];
    unsigned int n = PG_ENVWATCH_MAX_PROCESSES;
    int r = g_nvml.processes(nd, &n, infos);
    if (r != PG_NVML_SUCCESS)
        return -1;
    /* We hold a context on this GPU, so a listing that can be trusted contains our own pid
     * (it did in the H200 test container). Without it (NVML reporting pids of another PID
     * namespace, or hiding processes) the count is unknown, never a reassuring 0. */
    unsigned int self = (unsigned int)getpid();
    int others = 0;
    bool found_self = false;
    for (unsigned int i = 0; i < n && i < PG_ENVWATCH_MAX_PROCESSES; i++) {
        if (infos[i].pid == self)
            found_self = true;
        else
            others++;
    }
    return found_self ? others : -1;
}

static void stop_sampler(struct pg_envwatch *w)
{
    if (!w->thread_started)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    w->thread_started = false;
}

static void free_watch(struct pg_envwatch *w)
{
    stop_sampler(w);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->clocks);
    free(w);
}

pg_status pg_envwatch_begin(pg_device *dev, pg_diag *d)
{
    if (dev->envwatch)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "environment watch: one is already open on this device");
    struct pg_envwatch *w = calloc(1, sizeof(*w));
    if (!w)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    w->temp_max = -1;
    w->others = -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);

    pthread_once(&g_once, load_once);
    if (g_nvml_ok && dev->info.uuid[0] &&
        g_nvml.by_uuid(dev->info.uuid, &w->nd) != PG_NVML_SUCCESS)
        w->nd = NULL;
    if (w->nd) {
        w->others = count_others(w->nd);
        w->energy0_ok =
            g_nvml.energy && g_nvml.energy(w->nd, &w->energy0_mj) == PG_NVML_SUCCESS;
    }
    w->t0 = pg_dev_now();
    if (w->nd) {
        int e = pthread_create(&w->thread, NULL, sampler, w);
        if (e != 0) {
            free_watch(w);
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                               "environment watch: cannot start the sampling thread: %s",
                               strerror(e));
        }
        w->thread_started = true;
    }
    dev->envwatch = w;
    return PG_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

pg_status pg_envwatch_end(pg_device *dev, pg_env_watch *out, pg_diag *d)
{
    memset(out, 0, sizeof(*out));
    out->temperature_c_max = -1;
    out->power_w_mean = -1;
    out->energy_j = -1;
    out->other_compute_processes = -1;
    struct pg_envwatch *w = dev->envwatch;
    if (!w)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "environment watch: none is open on this device");
    dev->envwatch = NULL;
    stop_sampler(w);
    out->wall_s = pg_dev_now() - w->t0;
    if (w->nd) {
        out->available = true;
        out->other_compute_processes = w->others;
        unsigned long long e1 = 0;
        if (w->energy0_ok && g_nvml.energy(w->nd, &e1) == PG_NVML_SUCCESS && e1 >= w->energy0_mj)
            out->energy_j = (double)(e1 - w->energy0_mj) / 1000.0;
        out->samples = (int)w->n_clocks;
        if (w->n_clocks) {
            qsort(w->clocks, w->n_clocks, sizeof(int), cmp_int);
            size_t n = w->n_clocks;
            out->sm_clock_mhz_median =
                n % 2 ? w->clocks[n / 2] : 0.5 * (w->clocks[n / 2 - 1] + w->clocks[n / 2]);
            out->sm_clock_mhz_min = w->clock_min;
            out->sm_clock_mhz_max = w->clock_max;
        }
        out->clock_event_reasons = w->reasons;
        out->hw_slowdown = (w->reasons & (PG_CLOCK_EVENT_HW_SLOWDOWN | PG_CLOCK_EVENT_HW_THERMAL |
                                          PG_CLOCK_EVENT_HW_POWER_BRAKE)) != 0;
        out->thermal_slowdown =
            (w->reasons & (PG_CLOCK_EVENT_SW_THERMAL | PG_CLOCK_EVENT_HW_THERMAL)) != 0;
        out->power_cap = (w->reasons & PG_CLOCK_EVENT_SW_POWER_CAP) != 0;
        out->temperature_c_max = w->temp_max;
        if (w->power_n)
            out->power_w_mean = w->power_sum_w / w->power_n;
    }
    free_watch(w);
    return PG_OK;
}

void pg_envwatch_release(pg_device *dev)
{
    if (dev->envwatch)
        free_watch(dev->envwatch);
    dev->envwatch = NULL;
}
