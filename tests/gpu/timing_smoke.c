/* GPU smoke test of the measurement primitives: the environment watch (NVML), CUPTI activity
 * windows, one arm with both timers (events vs CUPTI) and sustained CUDA-graph timing, on a
 * 4096^3 bf16 cuBLASLt GEMM and a ~40 us memory-bound copy kernel. Prints one table.
 * Exit 0 pass, 1 failure, 77 skipped (no GPU: "SKIP: <reason>"). */
#include "device/device.h"
#include "model/gemm_blas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dst[i] = src[i] in 16-byte vectors, one per thread. */
static const char k_copy_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry pg_copy16(.param .u64 dst, .param .u64 src, .param .u64 n16)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [dst];\n"
    "  ld.param.u64 %rd2, [src];\n"
    "  ld.param.u64 %rd3, [n16];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mul.wide.u32 %rd4, %r1, %r2;\n"
    "  cvt.u64.u32 %rd5, %r3;\n"
    "  add.u64 %rd4, %rd4, %rd5;\n"
    "  setp.ge.u64 %p, %rd4, %rd3;\n"
    "  @%p bra DONE;\n"
    "  shl.b64 %rd4, %rd4, 4;\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  cvta.to.global.u64 %rd2, %rd2;\n"
    "  add.u64 %rd6, %rd2, %rd4;\n"
    "  add.u64 %rd7, %rd1, %rd4;\n"
    "  ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd6];\n"
    "  st.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* 80 MiB in, 80 MiB out: about 40 us at the H200's ~4 TB/s copy bandwidth. */
#define COPY_BYTES ((size_t)80 << 20)
/* Rotated copies for sustained mode: 4 x 160 MiB, far above 3x the 60 MB L2. */
#define COPY_ROTATIONS 4

static pg_device *g_dev;
static pg_diag g_d;

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK) {
        char buf[4096];
        printf("FAIL: %s: status %d: %s\n", what, (int)st, pg_diag_format(&g_d, buf, sizeof(buf)));
        exit(1);
    }
}

/* A failure that still lets the remaining measurements run; main then exits 1. */
static bool g_failed;
static bool soft_ok(pg_status st, const char *what)
{
    if (st == PG_OK)
        return true;
    char buf[4096];
    printf("FAIL (continuing): %s: status %d: %s\n", what, (int)st,
           pg_diag_format(&g_d, buf, sizeof(buf)));
    g_failed = true;
    return false;
}

static void expect(bool cond, const char *what)
{
    if (!cond) {
        printf("FAIL: %s\n", what);
        exit(1);
    }
}

static pg_buffer *alloc(size_t bytes)
{
    pg_buffer *b = NULL;
    ok(pg_buffer_alloc(g_dev, bytes, &b, &g_d), "pg_buffer_alloc");
    return b;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof(*s));
    memcpy(s, v, (size_t)n * sizeof(*s));
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

typedef struct {
    pg_kernel *k;
    pg_buffer *src[COPY_ROTATIONS], *dst[COPY_ROTATIONS];
    uint64_t n16;
    int last_rotation;
    int fail_at; /* rotation at which enqueue fails (-1: never) */
} copy_arm;

static pg_status copy_enqueue_rot(void *ctx, int rotation, pg_diag *d)
{
    copy_arm *c = ctx;
    c->last_rotation = rotation;
    if (rotation == c->fail_at)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "injected failure at rotation %d",
                           rotation);
    int r = rotation % COPY_ROTATIONS;
    uint64_t dst = pg_buffer_address(c->dst[r]), src = pg_buffer_address(c->src[r]);
    void *args[] = {&dst, &src, &c->n16};
    pg_launch l;
    memset(&l, 0, sizeof(l));
    l.kernel = c->k;
    l.grid[0] = (unsigned)((c->n16 + 255) / 256);
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = 256;
    l.block[1] = l.block[2] = 1;
    l.args = args;
    return pg_device_launch(g_dev, &l, 1, d);
}

static pg_status copy_enqueue(void *ctx, pg_diag *d)
{
    return copy_enqueue_rot(ctx, 0, d);
}

static pg_status gemm_enqueue(void *ctx, pg_diag *d)
{
    return pg_blaslt_gemm_enqueue(ctx, d);
}

static pg_status gemm_enqueue_rot(void *ctx, int rotation, pg_diag *d)
{
    return pg_blaslt_gemm_enqueue(ctx, d);
}

static pg_status empty_enqueue(void *ctx, pg_diag *d)
{
    return PG_OK;
}

static void print_watch(const char *label, const pg_env_watch *w)
{
    if (!w->available) {
        printf("  %-22s NVML unavailable (%.3f s)\n", label, w->wall_s);
        return;
    }
    printf("  %-22s %.3f s, %d samples, SM clock median %.0f MHz (min %d, max %d), reasons "
           "0x%llx%s%s%s, max %d C, mean %.0f W, energy %.2f J, other processes %d\n",
           label, w->wall_s, w->samples, w->sm_clock_mhz_median, w->sm_clock_mhz_min,
           w->sm_clock_mhz_max, w->clock_event_reasons, w->hw_slowdown ? " HW-SLOWDOWN" : "",
           w->thermal_slowdown ? " THERMAL" : "", w->power_cap ? " POWER-CAP" : "",
           w->temperature_c_max, w->power_w_mean, w->energy_j, w->other_compute_processes);
}

/* One arm with both timers (in its own watch), then without CUPTI, with or without the L2
 * flush. Prints a table row: events with CUPTI on, CUPTI, events with CUPTI off. */
static void cold_row(const char *label, pg_arm arm, bool flush, int kernels_per_launch,
                     pg_env_watch *w)
{
    enum { WARMUP = 10, REPS = 30 };
    double ev[REPS], gpu[REPS], off[REPS];
    ok(pg_envwatch_begin(g_dev, &g_d), "envwatch begin");
    bool timed = soft_ok(pg_device_time_arm(g_dev, &arm, WARMUP, REPS, flush, 120.0, ev, gpu,
                                            &g_d),
                         "pg_device_time_arm");
    ok(pg_envwatch_end(g_dev, w, &g_d), "envwatch end");
    if (!timed)
        return;
    ok(pg_device_time_arm(g_dev, &arm, WARMUP, REPS, flush, 120.0, off, NULL, &g_d),
       "pg_device_time_arm without CUPTI");
    double me = median(ev, REPS), mg = median(gpu, REPS), mo = median(off, REPS);
    double lo = gpu[0], hi = gpu[0];
    for (int r = 0; r < REPS; r++) {
        lo = fmin(lo, gpu[r]);
        hi = fmax(hi, gpu[r]);
        expect(gpu[r] > 0, "CUPTI time of a timed group is 0");
        /* Events bracket the launch too: never less than the kernels' own time (0.5 us
         * event resolution). */
        expect(ev[r] >= gpu[r] - 0.001, "event time below the CUPTI kernel time");
    }
    printf("| %-26s | %-17s | %9.4f | %9.4f | %9.4f | %8.2f | %d |\n", label,
           flush ? "cold (L2 flushed)" : "warm (no flush)", me, mg, mo, (mo - mg) * 1000.0,
           kernels_per_launch);
    printf("  CUPTI spread %.4f .. %.4f ms; events (CUPTI on) - CUPTI = %.2f us\n", lo, hi,
           (me - mg) * 1000.0);
    print_watch("watch:", w);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pg_status st = pg_device_open(0, &g_dev, &g_d);
    if (st == PG_ERR_INFRA) {
        printf("SKIP: %s\n", g_d.message);
        return 77;
    }
    ok(st, "pg_device_open");
    const pg_device_info *in = pg_device_get_info(g_dev);
    printf("device: %s, %d SMs, L2 %lld B, driver %s, SM clock %d MHz (max %d)\n", in->name,
           in->sm_count, in->l2_bytes, in->driver_version, in->sm_clock_mhz,
           in->max_sm_clock_mhz);

    /* Misuse is an input error. */
    pg_env_watch w;
    expect(pg_envwatch_end(g_dev, &w, &g_d) == PG_ERR_INPUT, "envwatch end without begin");
    ok(pg_envwatch_begin(g_dev, &g_d), "envwatch begin");
    expect(pg_envwatch_begin(g_dev, &g_d) == PG_ERR_INPUT, "envwatch begin twice");
    ok(pg_envwatch_end(g_dev, &w, &g_d), "envwatch end");
    print_watch("idle watch:", &w);
    expect(!w.available || w.samples >= 1, "an NVML watch took no sample");
    double gms = 0;
    int nk = 0;
    expect(pg_activity_end(g_dev, &gms, &nk, &g_d) == PG_ERR_INPUT, "activity end without begin");

    /* The copy kernel and its buffers. */
    char log[4096];
    pg_module *m = NULL;
    copy_arm copy;
    memset(&copy, 0, sizeof(copy));
    copy.fail_at = -1;
    ok(pg_module_load(g_dev, k_copy_ptx, sizeof(k_copy_ptx), &m, log, sizeof(log), &g_d),
       "load copy PTX");
    ok(pg_module_get_kernel(m, "pg_copy16", &copy.k, &g_d), "get pg_copy16");
    copy.n16 = COPY_BYTES / 16;
    for (int r = 0; r < COPY_ROTATIONS; r++) {
        copy.src[r] = alloc(COPY_BYTES);
        copy.dst[r] = alloc(COPY_BYTES);
        ok(pg_buffer_fill_normal(copy.src[r], PG_DTYPE_FP32, COPY_BYTES / 4, 100 + r, &g_d),
           "fill copy source");
    }

    /* The cuBLASLt GEMM. */
    const int64_t M = 4096, N = 4096, K = 4096;
    pg_buffer *A = alloc((size_t)(M * K * 2)), *B = alloc((size_t)(N * K * 2)),
              *C = alloc((size_t)(M * N * 2));
    ok(pg_buffer_fill_normal(A, PG_DTYPE_BF16, (size_t)(M * K), 1, &g_d), "fill A");
    ok(pg_buffer_fill_normal(B, PG_DTYPE_BF16, (size_t)(N * K), 2, &g_d), "fill B");
    pg_blaslt_gemm *gemm = NULL;
    pg_blaslt_choice choice;
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_BF16, PG_DTYPE_BF16, M, N, K);
    ok(pg_blaslt_gemm_prepare(g_dev, &p, A, B, NULL, C, 8, &gemm, &choice, &g_d),
       "cuBLASLt prepare");
    printf("cuBLASLt 4096^3 bf16: %s\n", choice.algorithm);
    ok(pg_device_sync(g_dev, 60.0, &g_d), "sync after setup");

    /* Events before CUPTI was ever enabled in this process, to compare with after. */
    enum { REPS = 30 };
    double pre_gemm[REPS], pre_copy[REPS];
    pg_arm gemm_arm = {.enqueue = gemm_enqueue, .ctx = gemm};
    pg_arm copy_arm_ = {.enqueue = copy_enqueue, .ctx = &copy};
    ok(pg_device_time(g_dev, &gemm_arm, 1, 10, REPS, true, 120.0, pre_gemm, &g_d),
       "pg_device_time GEMM before CUPTI");
    ok(pg_device_time(g_dev, &copy_arm_, 1, 10, REPS, true, 120.0, pre_copy, &g_d),
       "pg_device_time copy before CUPTI");

    /* Activity windows: memsets are not kernels; counts add up. */
    ok(pg_activity_begin(g_dev, &g_d), "activity begin (memsets)");
    expect(pg_activity_begin(g_dev, &g_d) == PG_ERR_INPUT, "activity begin twice");
    for (int i = 0; i < 3; i++)
        ok(pg_buffer_zero(copy.dst[0], &g_d), "memset");
    ok(pg_activity_end(g_dev, &gms, &nk, &g_d), "activity end (memsets)");
    printf("activity window, 3 memsets: %d kernels, %.4f ms\n", nk, gms);
    expect(nk == 0 && gms == 0, "memsets counted as kernels");
    int gemm_kernels = 0;
    ok(pg_activity_begin(g_dev, &g_d), "activity begin (1 GEMM)");
    ok(pg_blaslt_gemm_enqueue(gemm, &g_d), "GEMM");
    ok(pg_activity_end(g_dev, &gms, &gemm_kernels, &g_d), "activity end (1 GEMM)");
    printf("activity window, 1 GEMM: %d kernels, %.4f ms\n", gemm_kernels, gms);
    expect(gemm_kernels >= 1, "a GEMM ran no kernel");
    ok(pg_activity_begin(g_dev, &g_d), "activity begin (mix)");
    for (int i = 0; i < 5; i++)
        ok(copy_enqueue(&copy, &g_d), "copy");
    ok(pg_blaslt_gemm_enqueue(gemm, &g_d), "GEMM");
    ok(pg_blaslt_gemm_enqueue(gemm, &g_d), "GEMM");
    ok(pg_activity_end(g_dev, &gms, &nk, &g_d), "activity end (mix)");
    printf("activity window, 5 copies + 2 GEMMs: %d kernels, %.4f ms\n", nk, gms);
    expect(nk == 5 + 2 * gemm_kernels, "kernel count of the mixed window");

    /* An arm of nothing but the flush: CUPTI must see no kernel time. */
    double ev0[5], gpu0[5];
    pg_arm empty = {.enqueue = empty_enqueue, .ctx = NULL};
    ok(pg_device_time_arm(g_dev, &empty, 1, 5, true, 60.0, ev0, gpu0, &g_d), "time empty arm");
    for (int r = 0; r < 5; r++)
        expect(gpu0[r] == 0, "the L2 flush memset counted as kernel time");
    printf("empty arm with L2 flush: events median %.4f ms, CUPTI %.4f ms\n", median(ev0, 5),
           median(gpu0, 5));

    printf("\n| arm                        | mode              | events ms (CUPTI on) | CUPTI ms "
           "| events ms (CUPTI off) | off-CUPTI us | kernels/launch |\n");
    printf("|---|---|---|---|---|---|---|\n");
    pg_env_watch wg, wc, wsg, wsc;
    cold_row("cuBLASLt 4096^3 bf16", gemm_arm, true, gemm_kernels, &wg);
    cold_row("copy 80 MiB (memory-bound)", copy_arm_, true, 1, &wc);
    cold_row("cuBLASLt 4096^3 bf16", gemm_arm, false, gemm_kernels, &wg);
    cold_row("copy 80 MiB (memory-bound)", copy_arm_, false, 1, &wc);

    /* Events inside an open activity window (a block under CUPTI), against outside. */
    {
        double in_w[REPS];
        ok(pg_activity_begin(g_dev, &g_d), "activity begin (events inside)");
        ok(pg_device_time(g_dev, &copy_arm_, 1, 10, REPS, true, 120.0, in_w, &g_d),
           "pg_device_time inside a window");
        ok(pg_activity_end(g_dev, &gms, &nk, &g_d), "activity end (events inside)");
        printf("  copy, pg_device_time inside an activity window: events median %.4f ms; "
               "window: %d kernels, %.4f ms of kernels (%.4f ms each)\n",
               median(in_w, REPS), nk, gms, gms / nk);
        expect(nk == 10 + REPS, "kernel count of the window around pg_device_time");
    }

    /* Independent events loops (pg_device_time) before and after CUPTI was used, and
     * time_arm without CUPTI. */
    double ind[REPS], evs[REPS];
    ok(pg_device_time(g_dev, &gemm_arm, 1, 10, REPS, true, 120.0, ind, &g_d), "pg_device_time");
    ok(pg_device_time_arm(g_dev, &gemm_arm, 10, REPS, true, 120.0, evs, NULL, &g_d),
       "pg_device_time_arm without CUPTI");
    printf("  GEMM events medians: pg_device_time before CUPTI %.4f ms, after %.4f ms; "
           "time_arm without CUPTI %.4f ms\n",
           median(pre_gemm, REPS), median(ind, REPS), median(evs, REPS));
    ok(pg_device_time(g_dev, &copy_arm_, 1, 10, REPS, true, 120.0, ind, &g_d), "pg_device_time");
    ok(pg_device_time_arm(g_dev, &copy_arm_, 10, REPS, true, 120.0, evs, NULL, &g_d),
       "pg_device_time_arm without CUPTI");
    printf("  copy events medians: pg_device_time before CUPTI %.4f ms, after %.4f ms; "
           "time_arm without CUPTI %.4f ms\n",
           median(pre_copy, REPS), median(ind, REPS), median(evs, REPS));

    /* Sustained. */
    enum { SREPS = 25 };
    double per[SREPS];
    int k = 0;
    ok(pg_envwatch_begin(g_dev, &g_d), "envwatch begin");
    ok(pg_device_time_sustained(g_dev, gemm_enqueue_rot, gemm, 20.0, SREPS, 120.0, per, &k,
                                &g_d),
       "sustained GEMM");
    ok(pg_envwatch_end(g_dev, &wsg, &g_d), "envwatch end");
    double pm = median(per, SREPS);
    printf("| %-26s | sustained k=%-5d | %9.4f | - | - | - | %d |\n", "cuBLASLt 4096^3 bf16",
           k, pm, gemm_kernels);
    printf("  per-launch %.4f .. %.4f ms, graph %.2f ms, %.1f TFLOP/s\n", per[0], per[SREPS - 1],
           pm * k, 2.0 * (double)M * (double)N * (double)K / (pm * 1e-3) / 1e12);
    print_watch("watch:", &wsg);
    expect(k >= 1 && (pm * k >= 20.0 * 0.9 || k == PG_SUSTAINED_MAX_LAUNCHES),
           "sustained GEMM graph shorter than asked");

    ok(pg_envwatch_begin(g_dev, &g_d), "envwatch begin");
    ok(pg_device_time_sustained(g_dev, copy_enqueue_rot, &copy, 20.0, SREPS, 120.0, per, &k,
                                &g_d),
       "sustained copy");
    ok(pg_envwatch_end(g_dev, &wsc, &g_d), "envwatch end");
    pm = median(per, SREPS);
    printf("| %-26s | sustained k=%-5d | %9.4f | - | - | - | 1 |\n", "copy 80 MiB, 4 rotations",
           k, pm);
    printf("  per-launch %.4f .. %.4f ms, graph %.2f ms, %.0f GB/s\n", per[0], per[SREPS - 1],
           pm * k, 2.0 * (double)COPY_BYTES / (pm * 1e-3) / 1e9);
    print_watch("watch:", &wsc);
    expect(copy.last_rotation == k - 1, "rotation indices did not run 0..k-1");
    expect(k >= 1 && (pm * k >= 20.0 * 0.9 || k == PG_SUSTAINED_MAX_LAUNCHES),
           "sustained copy graph shorter than asked");

    /* A failing arm during capture: its error comes back and the stream stays usable. */
    copy.fail_at = 5;
    st = pg_device_time_sustained(g_dev, copy_enqueue_rot, &copy, 20.0, 2, 60.0, per, &k, &g_d);
    printf("arm failing inside the capture: status %d: %s\n", (int)st, g_d.message);
    expect(st == PG_ERR_INPUT && strstr(g_d.message, "injected"), "the arm's error is returned");
    expect(!pg_device_is_broken(g_dev), "device broken after a failed capture");
    copy.fail_at = -1;
    ok(copy_enqueue(&copy, &g_d), "launch after a failed capture");
    ok(pg_device_sync(g_dev, 60.0, &g_d), "sync after a failed capture");

    /* Energy over a longer window: about 1 s of back-to-back GEMMs. */
    pg_env_watch wl;
    double per_long[50];
    ok(pg_envwatch_begin(g_dev, &g_d), "envwatch begin");
    ok(pg_device_time_sustained(g_dev, gemm_enqueue_rot, gemm, 20.0, 50, 120.0, per_long, &k,
                                &g_d),
       "sustained GEMM, 50 graphs");
    ok(pg_envwatch_end(g_dev, &wl, &g_d), "envwatch end");
    double plm = median(per_long, 50);
    printf("sustained GEMM x50 graphs: per-launch median %.4f ms (first %.4f, last %.4f)\n", plm,
           per_long[0], per_long[49]);
    print_watch("watch (~1 s):", &wl);
    if (wl.available && wl.energy_j > 0)
        /* Probe (4) + warm-up graph + 50 timed graphs, when the first capture sufficed. */
        printf("  energy per GEMM launch: ~%.3f J (~%d launches)\n", wl.energy_j / (51.0 * k + 4),
               51 * k + 4);

    pg_blaslt_gemm_free(gemm);
    pg_buffer_free(A);
    pg_buffer_free(B);
    pg_buffer_free(C);
    for (int r = 0; r < COPY_ROTATIONS; r++) {
        pg_buffer_free(copy.src[r]);
        pg_buffer_free(copy.dst[r]);
    }
    pg_module_unload(m);
    expect(!pg_device_is_broken(g_dev), "device broken at the end");
    pg_device_close(g_dev);
    if (g_failed) {
        printf("FAIL: see the failures above\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
