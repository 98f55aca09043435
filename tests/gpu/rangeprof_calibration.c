/* Calibration of the runtime instruction counts (docs/instructions-runtime.md) on an sm_90 GPU:
 * kernels of known instruction counts (rangeprof_kernels.cu, built for sm_90a and embedded) run
 * under pg_device_count_metrics with the metrics of data/metrics/<chip>.json, and the counts,
 * math ops and FLOPs pg_instr_evaluate derives must equal the relations written below:
 *
 *   cal_wgmma, n per warpgroup, wg warpgroups per CTA, g CTAs:
 *       HGMMA count = n * 4 * wg * g               (warp instructions: 4 warps per warpgroup)
 *       bf16 math ops = 2 * n * wg * g * 64 * 16 * 16  (the ops_path counters count FLOPs: 2 per
 *                                       multiply-add; measured on the H200: 983040 for 30
 *                                       warpgroup m64n16k16 = 491520 multiply-adds)
 *       FLOPs = math ops                           (flops_per_math_op = 1), coverage 1 exactly
 *   cal_tma, k loads by one thread per CTA, g CTAs:
 *       UTMALDG count = k * g                      (the SASS-patched counter: the issuing warp)
 *   cal_mma, n per warp, 4 warps per CTA, g CTAs:
 *       HMMA count = LDSM count = n * 4 * g
 *       bf16 math ops = 2 * n * 4 * g * 16 * 8 * 16 (m16n8k16 per warp instruction, 2 per
 *                                       multiply-add: 589824 for 144 HMMA on the H200)
 *   all three in one range: the sums (HMMA by subtraction stays exact with HGMMA present).
 *
 * It also checks the replay contract (restore runs between passes, the in-place counter ends at
 * 1), the wall time of one verification run (<= 2 s) and that a kernel times the same before
 * any profiling and after the profiler was torn down (no overhead left behind).
 *   rangeprof_calibration              the calibration
 *   rangeprof_calibration unavailable  run under a profiler (rangeprof_unavailable.sh runs it
 *                                      under Nsight Compute): chip name and counting must both
 *                                      be PG_ERR_UNAVAILABLE with the fix, never a count
 *   rangeprof_calibration probe        exit 0 when a GPU can be opened, else 77
 * Exit 0 pass, 1 failure, 77 skipped ("SKIP: <reason>": no GPU, not sm_90, profiling
 * unavailable). */
#include "device/device.h"
#include "model/metric_table.h"
#include "stats/instr_counts.h"

#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const unsigned char pg_rangeprof_cubin[];
extern const size_t pg_rangeprof_cubin_size;

/* The chip metric lists: $PTXGATE_METRICS_DATA (a carried build run in another checkout), else
 * the source tree's. */
static const char *metrics_dir(void)
{
    const char *env = getenv("PTXGATE_METRICS_DATA");
    return env && env[0] ? env : PG_SOURCE_DIR "/data/metrics";
}
#define TIMEOUT_S 60.0
/* Issue 3: the verification run costs at most 2 s of wall time per workload. */
#define MAX_RUN_S 2.0
/* A kernel timed after the profiler's teardown may be at most this much slower (median). */
#define MAX_SLOWDOWN 1.05

static pg_device *g_dev;
static pg_diag g_d;
static pg_metric_table *g_table;
static int g_failures;

static void die(const char *what)
{
    char buf[4096];
    printf("FAIL: %s: status %d: %s\n", what, (int)g_d.status,
           pg_diag_format(&g_d, buf, sizeof buf));
    exit(1);
}

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK)
        die(what);
}

static void expect_eq(const char *what, double measured, double expected)
{
    bool good = measured == expected;
    printf("  %-40s measured %14.0f  expected %14.0f  %s\n", what, measured, expected,
           good ? "ok" : "MISMATCH");
    g_failures += !good;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the work of one range: a list of launches ---- */

typedef struct {
    pg_launch launches[4];
    size_t n;
} work;

static pg_status enqueue_work(void *ctx, pg_diag *d)
{
    work *w = ctx;
    return pg_device_launch(g_dev, w->launches, w->n, d);
}

static pg_launch launch_of(pg_kernel *k, unsigned grid, unsigned block, void **args)
{
    pg_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = k;
    l.grid[0] = grid;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = block;
    l.block[1] = l.block[2] = 1;
    l.args = args;
    return l;
}

/* Restore of the in-place counter cal_bump increments: zero it, and count the calls. */
typedef struct {
    pg_buffer *counter;
    int calls;
} restore_ctx;

static pg_status restore_counter(void *ctx, pg_diag *d)
{
    restore_ctx *r = ctx;
    r->calls++;
    return pg_buffer_zero(r->counter, d);
}

/* Count `families` (tensor path bf16) plus `extra` informational metrics over w; evaluate
 * against required_flops. Returns the wall time of the pg_device_count_metrics call. */
static double count(const char *label, const char *const *families, size_t nf,
                    const char *const *extra, size_t n_extra, work *w, restore_ctx *restore,
                    double required_flops, pg_instr_result *r, double *extra_values, int *passes)
{
    const char *metrics[PG_METRIC_MAX_REQUEST];
    size_t n = 0;
    ok(pg_metric_table_request(g_table, families, nf, "bf16", metrics, PG_METRIC_MAX_REQUEST, &n,
                               &g_d),
       "pg_metric_table_request");
    for (size_t i = 0; i < n_extra; i++)
        metrics[n++] = extra[i];
    int expected_passes = 0;
    ok(pg_metrics_host_check(g_table->chip, metrics, n, &expected_passes, &g_d),
       "pg_metrics_host_check");
    double values[PG_METRIC_MAX_REQUEST];
    double t0 = now_s();
    pg_status st = pg_device_count_metrics(g_dev, enqueue_work, w,
                                           restore ? restore_counter : NULL, restore, metrics, n,
                                           TIMEOUT_S, values, passes, NULL, &g_d);
    double wall = now_s() - t0;
    if (st == PG_ERR_UNAVAILABLE) {
        printf("SKIP: range profiler unavailable: %s\n", g_d.message);
        exit(77);
    }
    ok(st, label);
    printf("%s: %d pass(es) (host API expected %d), %.3f s wall\n", label, *passes,
           expected_passes, wall);
    for (size_t i = 0; i < n; i++)
        printf("    %-55s %.0f\n", metrics[i], values[i]);
    if (*passes != expected_passes) {
        printf("  passes differ from the host API's count\n");
        g_failures++;
    }
    if (wall > MAX_RUN_S) {
        printf("  verification run took %.3f s > %.1f s\n", wall, MAX_RUN_S);
        g_failures++;
    }
    ok(pg_instr_evaluate(g_table, families, nf, "bf16", metrics, values, n, required_flops,
                         PG_INSTR_DEFAULT_MIN_COVERAGE, r, &g_d),
       "pg_instr_evaluate");
    for (size_t i = 0; i < n_extra; i++)
        extra_values[i] = values[n - n_extra + i];
    return wall;
}

static const pg_instr_family_result *family(const pg_instr_result *r, const char *name)
{
    for (int i = 0; i < r->n_families; i++)
        if (strcmp(r->families[i].family, name) == 0)
            return &r->families[i];
    printf("FAIL: no result for %s\n", name);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median time (ms) of `reps` launches of w, L2 not flushed (the kernel reads nothing). */
static double time_work(work *w)
{
    enum { WARMUP = 5, REPS = 31 };
    double t[REPS];
    pg_arm arm = {.enqueue = enqueue_work, .ctx = w};
    ok(pg_device_time(g_dev, &arm, 1, WARMUP, REPS, false, TIMEOUT_S, t, &g_d), "pg_device_time");
    qsort(t, REPS, sizeof t[0], cmp_double);
    return t[REPS / 2];
}

/* A 2D bf16 tensor map over a 256 x 256 tensor with a 64 x 32 box, no swizzle (the driver's
 * cuTensorMapEncodeTiled, looked up in the already loaded libcuda). */
static void encode_map(CUtensorMap *map, uint64_t address)
{
    typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                  const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                  const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    encode_fn encode = lib ? (encode_fn)dlsym(lib, "cuTensorMapEncodeTiled") : NULL;
    if (!encode) {
        printf("FAIL: cuTensorMapEncodeTiled not found in libcuda.so.1\n");
        exit(1);
    }
    cuuint64_t dims[2] = {256, 256}, strides[1] = {256 * 2};
    cuuint32_t box[2] = {64, 32}, elem[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)(uintptr_t)address,
                        dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        printf("FAIL: cuTensorMapEncodeTiled returned %d\n", (int)r);
        exit(1);
    }
    dlclose(lib);
}

static pg_status nothing(void *ctx, pg_diag *d)
{
    return PG_OK;
}

/* Under another profiler: both entry points refuse, naming the cause and the fix. */
static int expect_unavailable(void)
{
    char chip[64];
    pg_status st = pg_device_chip_name(g_dev, chip, sizeof chip, &g_d);
    printf("pg_device_chip_name: status %d: %s\n", (int)st, st ? g_d.message : chip);
    int bad = st != PG_ERR_UNAVAILABLE || !strstr(g_d.message, "fix: ");
    const char *m[] = {"sm__cycles_elapsed.max"};
    double v = -1;
    int passes = -1;
    st = pg_device_count_metrics(g_dev, nothing, NULL, NULL, NULL, m, 1, TIMEOUT_S, &v, &passes,
                                 NULL, &g_d);
    printf("pg_device_count_metrics: status %d: %s\n", (int)st, st ? g_d.message : "counted");
    bad |= st != PG_ERR_UNAVAILABLE || !strstr(g_d.message, "fix: ") || passes != 0;
    pg_device_close(g_dev);
    printf(bad ? "FAIL: expected PG_ERR_UNAVAILABLE with a fix from both\n"
               : "PASS: unavailable as expected\n");
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    pg_status st = pg_device_open(0, &g_dev, &g_d);
    if (st != PG_OK) {
        printf("SKIP: %s\n", g_d.message);
        return 77;
    }
    if (strcmp(mode, "probe") == 0) {
        pg_device_close(g_dev);
        return 0;
    }
    if (strcmp(mode, "unavailable") == 0)
        return expect_unavailable();
    const pg_device_info *info = pg_device_get_info(g_dev);
    printf("device: %s, compute capability %d.%d, %d SMs\n", info->name, info->cc_major,
           info->cc_minor, info->sm_count);
    if (info->cc_major != 9 || info->cc_minor != 0) {
        printf("SKIP: the calibration kernels are sm_90a; this device is sm_%d%d\n",
               info->cc_major, info->cc_minor);
        pg_device_close(g_dev);
        return 77;
    }
    pg_module *mod = NULL;
    char log[4096];
    ok(pg_module_load(g_dev, pg_rangeprof_cubin, pg_rangeprof_cubin_size, &mod, log, sizeof log,
                      &g_d),
       "load the calibration cubin");
    pg_kernel *k_wgmma, *k_tma, *k_mma, *k_bump;
    ok(pg_module_get_kernel(mod, "cal_wgmma", &k_wgmma, &g_d), "cal_wgmma");
    ok(pg_module_get_kernel(mod, "cal_tma", &k_tma, &g_d), "cal_tma");
    ok(pg_module_get_kernel(mod, "cal_mma", &k_mma, &g_d), "cal_mma");
    ok(pg_module_get_kernel(mod, "cal_bump", &k_bump, &g_d), "cal_bump");

    enum { MAX_THREADS = 4096 * 256 };
    pg_buffer *out = NULL, *tensor = NULL, *counter = NULL;
    ok(pg_buffer_alloc(g_dev, MAX_THREADS * sizeof(float), &out, &g_d), "alloc out");
    ok(pg_buffer_alloc(g_dev, 256 * 256 * 2, &tensor, &g_d), "alloc tensor");
    ok(pg_buffer_alloc(g_dev, 4, &counter, &g_d), "alloc counter");
    ok(pg_buffer_fill_normal(tensor, PG_DTYPE_BF16, 256 * 256, 7, &g_d), "fill tensor");
    ok(pg_buffer_zero(counter, &g_d), "zero counter");
    uint64_t out_addr = pg_buffer_address(out), counter_addr = pg_buffer_address(counter);
    __attribute__((aligned(64))) CUtensorMap map;
    encode_map(&map, pg_buffer_address(tensor));

    /* Timing before any profiler call in this process: a long wgmma kernel. */
    int long_n = 4096;
    void *long_args[] = {&out_addr, &long_n};
    work long_work = {{launch_of(k_wgmma, 2 * (unsigned)info->sm_count, 256, long_args)}, 1};
    double before_ms = time_work(&long_work);

    char chip[64];
    st = pg_device_chip_name(g_dev, chip, sizeof chip, &g_d);
    if (st == PG_ERR_UNAVAILABLE) {
        printf("SKIP: range profiler unavailable: %s\n", g_d.message);
        return 77;
    }
    ok(st, "pg_device_chip_name");
    printf("chip: %s\n", chip);
    ok(pg_metric_table_load_chip(metrics_dir(), chip, &g_table, &g_d), "metric list of the chip");
    const double fpo = g_table->flops_per_math_op;

    pg_instr_result r;
    int passes = 0;
    double extra_v[4];

    /* 1. wgmma: n = 5 per warpgroup, 2 warpgroups per CTA, 3 CTAs. */
    {
        int n = 5, wg = 2, g = 3;
        void *args[] = {&out_addr, &n};
        work w = {{launch_of(k_wgmma, (unsigned)g, 128 * (unsigned)wg, args)}, 1};
        const char *fams[] = {"HGMMA"};
        const char *extra[] = {"sm__inst_executed_pipe_tensor_op_gmma.sum"};
        double ops = 2.0 * n * wg * g * 64 * 16 * 16;
        count("wgmma m64n16k16 x5, 2 warpgroups, 3 CTAs", fams, 1, extra, 1, &w, NULL,
              fpo * ops, &r, extra_v, &passes);
        expect_eq("HGMMA count (warp instructions)", family(&r, "HGMMA")->count,
                  (double)n * 4 * wg * g);
        expect_eq("HGMMA bf16 math ops", family(&r, "HGMMA")->math_ops, ops);
        expect_eq("HGMMA FLOPs (1 per math op)", family(&r, "HGMMA")->flops, ops);
        printf("  tensor pipe gmma count (hardware, informational) %.0f\n", extra_v[0]);
        printf("  coverage %.6f, verdict %s\n", r.coverage, pg_instr_verdict_name(r.verdict));
        g_failures += r.coverage != 1.0 || r.verdict != PG_INSTR_PASS;
    }
    /* 1b. The same kernel with n = 0: nothing left over from the last range. */
    {
        int n = 0;
        void *args[] = {&out_addr, &n};
        work w = {{launch_of(k_wgmma, 3, 256, args)}, 1};
        const char *fams[] = {"HGMMA"};
        count("wgmma x0 (guarded off)", fams, 1, NULL, 0, &w, NULL, 1e6, &r, extra_v, &passes);
        expect_eq("HGMMA count", family(&r, "HGMMA")->count, 0);
        printf("  verdict %s\n", pg_instr_verdict_name(r.verdict));
        g_failures += r.verdict != PG_INSTR_NEVER_EXECUTED;
    }
    /* 2. TMA: k = 7 loads by thread 0 of each of 5 CTAs (4 warps each). */
    {
        int k = 7, g = 5;
        void *args[] = {&map, &out_addr, &k};
        work w = {{launch_of(k_tma, (unsigned)g, 128, args)}, 1};
        const char *fams[] = {"UTMALDG"};
        const char *extra[] = {"smsp__inst_executed_op_tma_ld.sum",
                               "smsp__inst_executed_op_tma_ld_pred_on_any.sum"};
        count("TMA 2D loads x7, 5 CTAs", fams, 1, extra, 2, &w, NULL, 0, &r, extra_v, &passes);
        expect_eq("UTMALDG count (SASS-patched)", family(&r, "UTMALDG")->count, (double)k * g);
        /* Informational: every warp issues the UTMALDG under a uniform predicate; the plain
         * hardware counter read 4x the loads on the H200 before (one load per 4-warp CTA). */
        printf("  hardware tma_ld %.0f (4 warps per CTA: %d if it counts predicated-off warps), "
               "pred_on_any %.0f\n",
               extra_v[0], 4 * k * g, extra_v[1]);
    }
    /* 3. mma.sync + ldmatrix: n = 9 per warp, 4 warps per CTA, 4 CTAs. */
    {
        int n = 9, g = 4;
        void *args[] = {&out_addr, &n};
        work w = {{launch_of(k_mma, (unsigned)g, 128, args)}, 1};
        const char *fams[] = {"HMMA", "LDSM"};
        double ops = 2.0 * n * 4 * g * 16 * 8 * 16;
        count("mma.sync m16n8k16 + ldmatrix.x4 x9, 4 warps, 4 CTAs", fams, 2, NULL, 0, &w, NULL,
              fpo * ops, &r, extra_v, &passes);
        expect_eq("HMMA count", family(&r, "HMMA")->count, (double)n * 4 * g);
        expect_eq("LDSM count", family(&r, "LDSM")->count, (double)n * 4 * g);
        expect_eq("HMMA bf16 math ops", family(&r, "HMMA")->math_ops, ops);
        g_failures += r.coverage != 1.0;
    }
    /* 4. All in one range, with an in-place counter restored between passes. */
    {
        int n_wg = 5, n_mma = 9, k = 7;
        void *a_wg[] = {&out_addr, &n_wg}, *a_tma[] = {&map, &out_addr, &k},
             *a_mma[] = {&out_addr, &n_mma}, *a_bump[] = {&counter_addr};
        work w = {{launch_of(k_wgmma, 3, 256, a_wg), launch_of(k_tma, 5, 128, a_tma),
                   launch_of(k_mma, 4, 128, a_mma), launch_of(k_bump, 1, 32, a_bump)},
                  4};
        restore_ctx rc = {counter, 0};
        ok(pg_buffer_zero(counter, &g_d), "zero counter");
        const char *fams[] = {"HGMMA", "UTMALDG", "HMMA", "LDSM"};
        double ops = 2.0 * (5.0 * 2 * 3 * 64 * 16 * 16 + 9.0 * 4 * 4 * 16 * 8 * 16);
        count("all four kernels in one range", fams, 4, NULL, 0, &w, &rc, fpo * ops, &r, extra_v,
              &passes);
        expect_eq("HGMMA count", family(&r, "HGMMA")->count, 5.0 * 4 * 2 * 3);
        expect_eq("UTMALDG count", family(&r, "UTMALDG")->count, 7.0 * 5);
        expect_eq("HMMA count (HGMMA subtracted)", family(&r, "HMMA")->count, 9.0 * 4 * 4);
        expect_eq("LDSM count", family(&r, "LDSM")->count, 9.0 * 4 * 4);
        expect_eq("tensor FLOPs (HGMMA + HMMA, bf16)", r.tensor_flops, fpo * ops);
        uint32_t bumps = 0;
        ok(pg_buffer_download(counter, &bumps, sizeof bumps, &g_d), "download counter");
        expect_eq("in-place counter after the run", bumps, 1);
        expect_eq("restore calls", rc.calls, passes - 1);
        if (passes < 2)
            printf("  (one pass only: restore not exercised)\n");
    }

    /* 5. No overhead left behind: the long kernel times the same after the teardown. */
    double after_ms = time_work(&long_work);
    printf("long wgmma kernel: %.4f ms before any profiling, %.4f ms after (ratio %.4f)\n",
           before_ms, after_ms, after_ms / before_ms);
    if (!(after_ms <= before_ms * MAX_SLOWDOWN)) {
        printf("  slower after profiling by more than %.0f %%\n", (MAX_SLOWDOWN - 1) * 100);
        g_failures++;
    }

    pg_metric_table_free(g_table);
    pg_buffer_free(out);
    pg_buffer_free(tensor);
    pg_buffer_free(counter);
    pg_module_unload(mod);
    pg_device_close(g_dev);
    if (g_failures) {
        printf("FAIL: %d calibration check(s) failed\n", g_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
