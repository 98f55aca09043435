/* GPU smoke test of gate/device: opens GPU 0, prints the fingerprint, checks fills, byte fills,
 * module loading and launch validation, the reference GEMM against the CPU, cuBLASLt against
 * the reference, and prints cuBLASLt and reference GEMM throughput.
 *   device_smoke         the whole smoke test
 *   device_smoke fault   a kernel that faults: PG_FAIL_KERNEL, CUDA_ERROR_ILLEGAL_ADDRESS, broken
 *   device_smoke hang    a kernel that never ends: TIMEOUT after 1 s, broken
 * Exit 0 pass, 1 failure, 77 skipped (no GPU: "SKIP: <reason>"). */
#include "device/device.h"
#include "model/gemm_blas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char k_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry pg_smoke_iota(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %r<5>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.u32 %r2, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p, %r2, %r1;\n"
    "  @%p bra DONE;\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mul.wide.u32 %rd2, %r2, 4;\n"
    "  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r2;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry pg_smoke_fault(.param .u64 p)\n"
    "{\n"
    "  .reg .b32 %r1;\n"
    "  .reg .b64 %rd1;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  mov.u32 %r1, 7;\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry pg_smoke_spin(.param .u64 flag)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %r1;\n"
    "  .reg .b64 %rd1;\n"
    "  ld.param.u64 %rd1, [flag];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "LOOP:\n"
    "  ld.volatile.global.u32 %r1, [%rd1];\n"
    "  setp.eq.u32 %p, %r1, 0;\n"
    "  @%p bra LOOP;\n"
    "  ret;\n"
    "}\n";

static const char k_bad_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                ".visible .entry bad()\n{\n  add.u32 %r9, %r9, 1;\n  ret;\n}\n";

static pg_device *g_dev;
static pg_diag g_d;

static void fail(const char *what)
{
    char buf[4096];
    printf("FAIL: %s: status %d: %s\n", what, (int)g_d.status, pg_diag_format(&g_d, buf, sizeof(buf)));
    exit(1);
}

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK)
        fail(what);
}

static void expect(bool cond, const char *fmt, const char *detail)
{
    if (!cond) {
        printf("FAIL: ");
        printf(fmt, detail);
        printf("\n");
        exit(1);
    }
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static float fp16_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 1024), exp - 25);
    return sign ? -v : v;
}

static float to_float(pg_dtype t, const uint16_t *p, size_t i)
{
    return t == PG_DTYPE_BF16 ? bf16_to_float(p[i]) : fp16_to_float(p[i]);
}

static pg_buffer *alloc(size_t bytes)
{
    pg_buffer *b = NULL;
    ok(pg_buffer_alloc(g_dev, bytes, &b, &g_d), "pg_buffer_alloc");
    return b;
}

static void *download(pg_buffer *b, size_t bytes)
{
    void *h = malloc(bytes);
    if (!h) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    ok(pg_buffer_download(b, h, bytes, &g_d), "pg_buffer_download");
    return h;
}

static void sync_ok(const char *what)
{
    ok(pg_device_sync(g_dev, 300.0, &g_d), what);
}

static void print_info(const pg_device_info *in)
{
    printf("device: %s (%s, bus %s), cc %d.%d, %d SMs, L2 %lld B, memory %lld B\n", in->name,
           in->uuid, in->pci_bus_id, in->cc_major, in->cc_minor, in->sm_count, in->l2_bytes,
           in->memory_bytes);
    printf("clocks: SM %d MHz (max %d), memory %d MHz\n", in->sm_clock_mhz, in->max_sm_clock_mhz,
           in->memory_clock_mhz);
    printf("software: driver %s (API %d), cuBLASLt %ld\n", in->driver_version,
           in->driver_api_version, in->cublaslt_version);
    printf("limits: %d threads/block, block %d x %d x %d, grid %d x %d x %d, shared %d B (opt-in "
           "%d B)\n",
           in->max_threads_per_block, in->max_block_dim[0], in->max_block_dim[1],
           in->max_block_dim[2], in->max_grid_dim[0], in->max_grid_dim[1], in->max_grid_dim[2],
           in->max_shared_per_block, in->max_shared_per_block_optin);
}

/* Mean and standard deviation of a fill, no zeros, and the same bits for the same seed. */
static void check_fill(pg_dtype t, size_t n)
{
    size_t esz = pg_dtype_size(t);
    pg_buffer *a = alloc(n * esz), *b = alloc(n * esz);
    ok(pg_buffer_fill_normal(a, t, n, 1234, &g_d), "fill a");
    ok(pg_buffer_fill_normal(b, t, n, 1234, &g_d), "fill b");
    sync_ok("sync after fill");
    unsigned char *ha = download(a, n * esz), *hb = download(b, n * esz);
    expect(!memcmp(ha, hb, n * esz), "%s fill differs for the same seed", pg_dtype_name(t));
    ok(pg_buffer_fill_normal(b, t, n, 1235, &g_d), "fill b, other seed");
    free(hb);
    hb = download(b, n * esz);
    expect(memcmp(ha, hb, n * esz) != 0, "%s fill equal for different seeds", pg_dtype_name(t));
    double sum = 0, sum2 = 0;
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        double x;
        if (t == PG_DTYPE_FP32) {
            float f;
            memcpy(&f, ha + 4 * i, 4);
            x = f;
        } else {
            uint16_t h;
            memcpy(&h, ha + 2 * i, 2);
            x = t == PG_DTYPE_BF16 ? bf16_to_float(h) : fp16_to_float(h);
        }
        zeros += x == 0;
        sum += x;
        sum2 += x * x;
    }
    double mean = sum / (double)n, sd = sqrt(sum2 / (double)n - mean * mean);
    printf("fill %s: n=%zu mean=%.5f std=%.5f zeros=%zu\n", pg_dtype_name(t), n, mean, sd, zeros);
    expect(fabs(mean) < 0.01 && fabs(sd - 1) < 0.01 && zeros == 0,
           "%s fill is not N(0,1) without zeros", pg_dtype_name(t));
    free(ha);
    free(hb);
    pg_buffer_free(a);
    pg_buffer_free(b);
}

static void check_byte_fills(void)
{
    size_t n = 1 << 20;
    pg_buffer *b = alloc(n);
    ok(pg_buffer_fill_poison(b, &g_d), "poison");
    unsigned char *h = download(b, n);
    for (size_t i = 0; i < n; i++)
        expect(h[i] == PG_POISON_BYTE, "%s", "poison byte is not 0xFF");
    free(h);
    ok(pg_buffer_zero(b, &g_d), "zero");
    h = download(b, n);
    for (size_t i = 0; i < n; i++)
        expect(h[i] == 0, "%s", "zeroed byte is not 0");
    free(h);
    pg_buffer_free(b);
    printf("byte fills: ok\n");
}

static pg_launch one_launch(pg_kernel *k, unsigned grid, unsigned block, void **args)
{
    pg_launch l;
    memset(&l, 0, sizeof(l));
    l.kernel = k;
    l.grid[0] = grid;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = block;
    l.block[1] = l.block[2] = 1;
    l.args = args;
    return l;
}

static void check_iota(pg_buffer *out, unsigned n)
{
    uint32_t *h = download(out, n * 4);
    for (unsigned i = 0; i < n; i++)
        expect(h[i] == i, "%s", "iota kernel wrote a wrong value");
    free(h);
}

static void check_modules_and_launches(void)
{
    char log[8192];
    pg_module *m = NULL;
    pg_status st = pg_module_load(g_dev, k_bad_ptx, sizeof(k_bad_ptx), &m, log, sizeof(log), &g_d);
    expect(st == PG_FAIL_KERNEL && !strncmp(g_d.message, "CUDA_ERROR_", 11) && log[0],
           "bad PTX: want PG_FAIL_KERNEL, a CUDA_ERROR_ message and a log; got: %s", g_d.message);
    printf("bad PTX: %s\n", g_d.message);

    /* Text without its NUL: the layer must terminate it. */
    ok(pg_module_load(g_dev, k_ptx, strlen(k_ptx), &m, log, sizeof(log), &g_d), "load PTX");
    pg_kernel *k = NULL;
    st = pg_module_get_kernel(m, "no_such_entry", &k, &g_d);
    expect(st == PG_ERR_INPUT, "missing entry: want PG_ERR_INPUT, got: %s", g_d.message);
    ok(pg_module_get_kernel(m, "pg_smoke_iota", &k, &g_d), "get pg_smoke_iota");

    const unsigned n = 1000;
    pg_buffer *out = alloc(n * 4);
    uint64_t p = pg_buffer_address(out);
    unsigned nn = n;
    void *args[] = {&p, &nn};

    pg_launch l = one_launch(k, 4, 256, args);
    ok(pg_buffer_zero(out, &g_d), "zero");
    ok(pg_device_launch(g_dev, &l, 1, &g_d), "launch iota");
    sync_ok("sync iota");
    check_iota(out, n);

    /* Dynamic shared memory above 48 KiB: the opt-in attribute is set on the way. */
    l.dynamic_shared_bytes = 100 * 1024;
    ok(pg_buffer_zero(out, &g_d), "zero");
    ok(pg_device_launch(g_dev, &l, 1, &g_d), "launch iota with 100 KiB dynamic shared");
    sync_ok("sync iota 100 KiB");
    check_iota(out, n);

    const pg_device_info *in = pg_device_get_info(g_dev);
    if (in->cc_major >= 9) {
        l.dynamic_shared_bytes = 0;
        l.cluster[0] = 2;
        l.cluster[1] = l.cluster[2] = 1;
        ok(pg_buffer_zero(out, &g_d), "zero");
        ok(pg_device_launch(g_dev, &l, 1, &g_d), "launch iota in clusters of 2");
        sync_ok("sync iota clusters");
        check_iota(out, n);
        l.grid[0] = 3;
        st = pg_device_launch(g_dev, &l, 1, &g_d);
        expect(st == PG_ERR_INPUT, "grid 3 with cluster 2: want PG_ERR_INPUT, got: %s",
               g_d.message);
        printf("cluster check: %s\n", g_d.message);
    }

    pg_launch bad = one_launch(k, 4, 2048, args);
    st = pg_device_launch(g_dev, &bad, 1, &g_d);
    expect(st == PG_ERR_INPUT, "block 2048: want PG_ERR_INPUT, got: %s", g_d.message);
    printf("block check: %s\n", g_d.message);
    bad = one_launch(k, 4, 256, args);
    bad.dynamic_shared_bytes = (unsigned)in->max_shared_per_block_optin + 1;
    st = pg_device_launch(g_dev, &bad, 1, &g_d);
    expect(st == PG_ERR_INPUT, "shared above opt-in: want PG_ERR_INPUT, got: %s", g_d.message);
    printf("shared check: %s\n", g_d.message);
    expect(!pg_device_is_broken(g_dev), "%s", "device broken after input errors");

    pg_buffer_free(out);
    pg_module_unload(m);
    printf("modules and launches: ok\n");
}

/* Reference GEMM on a ragged shape against fp64 on the CPU from the same (downloaded) inputs. */
static void check_reference_small(pg_dtype t, int64_t M, int64_t N, int64_t K)
{
    pg_buffer *A = alloc((size_t)(M * K * 2)), *B = alloc((size_t)(N * K * 2)),
              *C = alloc((size_t)(M * N * 4));
    ok(pg_buffer_fill_normal(A, t, (size_t)(M * K), 11, &g_d), "fill A");
    ok(pg_buffer_fill_normal(B, t, (size_t)(N * K), 12, &g_d), "fill B");
    ok(pg_buffer_fill_poison(C, &g_d), "poison C");
    ok(pg_reference_gemm_nt(g_dev, t, A, B, C, M, N, K, &g_d), "reference GEMM");
    sync_ok("sync reference GEMM");
    uint16_t *ha = download(A, (size_t)(M * K * 2)), *hb = download(B, (size_t)(N * K * 2));
    float *hc = download(C, (size_t)(M * N * 4));
    double worst = 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double s = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                double p = (double)to_float(t, ha, (size_t)(m * K + k)) *
                           (double)to_float(t, hb, (size_t)(n * K + k));
                s += p;
                mag += fabs(p);
            }
            double err = fabs((double)hc[m * N + n] - s) / (mag + 1e-30);
            if (!(err <= worst))
                worst = err; /* NaN (an element never written) sticks */
        }
    printf("reference GEMM %s %lldx%lldx%lld vs CPU fp64: worst |err|/sum|a*b| = %.3g\n",
           pg_dtype_name(t), (long long)M, (long long)N, (long long)K, worst);
    expect(worst < 1e-5, "%s", "reference GEMM disagrees with the CPU");
    free(ha);
    free(hb);
    free(hc);
    pg_buffer_free(A);
    pg_buffer_free(B);
    pg_buffer_free(C);
}

static pg_status enqueue_blaslt(void *ctx, pg_diag *d)
{
    return pg_blaslt_gemm_enqueue(ctx, d);
}

typedef struct {
    pg_dtype t;
    const pg_buffer *A, *B;
    pg_buffer *C;
    int64_t M, N, K;
} ref_job;

static pg_status enqueue_reference(void *ctx, pg_diag *d)
{
    ref_job *j = ctx;
    return pg_reference_gemm_nt(g_dev, j->t, j->A, j->B, j->C, j->M, j->N, j->K, d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* cuBLASLt (bf16 out) against the reference (fp32), relative L2; optionally its throughput. */
static void check_blaslt(int64_t M, int64_t N, int64_t K, bool time_it)
{
    pg_dtype t = PG_DTYPE_BF16;
    size_t mn = (size_t)(M * N);
    pg_buffer *A = alloc((size_t)(M * K * 2)), *B = alloc((size_t)(N * K * 2)),
              *C = alloc(mn * 2), *R = alloc(mn * 4);
    ok(pg_buffer_fill_normal(A, t, (size_t)(M * K), 21, &g_d), "fill A");
    ok(pg_buffer_fill_normal(B, t, (size_t)(N * K), 22, &g_d), "fill B");
    pg_blaslt_gemm *g = NULL;
    pg_blaslt_choice choice;
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, t, t, M, N, K);
    ok(pg_blaslt_gemm_prepare(g_dev, &p, A, B, NULL, C, 8, &g, &choice, &g_d),
       "cuBLASLt prepare");
    printf("cuBLASLt %lldx%lldx%lld: %d candidates, %d timed, chose #%d (%.4f ms): %s\n",
           (long long)M, (long long)N, (long long)K, choice.candidates_returned,
           choice.candidates_timed, choice.chosen_index, choice.chosen_median_ms,
           choice.algorithm);
    ok(pg_buffer_fill_poison(C, &g_d), "poison C");
    ok(pg_blaslt_gemm_enqueue(g, &g_d), "cuBLASLt enqueue");
    ok(pg_reference_gemm_nt(g_dev, t, A, B, R, M, N, K, &g_d), "reference");
    sync_ok("sync cuBLASLt + reference");
    uint16_t *hc = download(C, mn * 2);
    float *hr = download(R, mn * 4);
    double num = 0, den = 0;
    for (size_t i = 0; i < mn; i++) {
        double diff = (double)bf16_to_float(hc[i]) - (double)hr[i];
        num += diff * diff;
        den += (double)hr[i] * hr[i];
    }
    double rel = sqrt(num / den);
    printf("cuBLASLt vs reference: relative L2 = %.3g\n", rel);
    expect(rel < 1e-2, "%s", "cuBLASLt and the reference GEMM disagree (relative L2 >= 1e-2)");

    if (time_it) {
        enum { WARMUP = 10, REPS = 30 };
        double times[REPS];
        pg_arm arm = {.enqueue = enqueue_blaslt, .ctx = g};
        ok(pg_device_time(g_dev, &arm, 1, WARMUP, REPS, true, 120.0, times, &g_d),
           "time cuBLASLt");
        qsort(times, REPS, sizeof(times[0]), cmp_double);
        double med = times[REPS / 2];
        printf("cuBLASLt %lldx%lldx%lld bf16: median %.4f ms (min %.4f, max %.4f) = %.1f "
               "TFLOP/s\n",
               (long long)M, (long long)N, (long long)K, med, times[0], times[REPS - 1],
               2.0 * (double)M * (double)N * (double)K / (med * 1e-3) / 1e12);
    }
    free(hc);
    free(hr);
    pg_blaslt_gemm_free(g);
    pg_buffer_free(A);
    pg_buffer_free(B);
    pg_buffer_free(C);
    pg_buffer_free(R);
}

static void time_reference(int64_t M, int64_t N, int64_t K)
{
    pg_dtype t = PG_DTYPE_BF16;
    pg_buffer *A = alloc((size_t)(M * K * 2)), *B = alloc((size_t)(N * K * 2)),
              *C = alloc((size_t)(M * N * 4));
    ok(pg_buffer_fill_normal(A, t, (size_t)(M * K), 31, &g_d), "fill A");
    ok(pg_buffer_fill_normal(B, t, (size_t)(N * K), 32, &g_d), "fill B");
    ref_job job = {t, A, B, C, M, N, K};
    pg_arm arm = {.enqueue = enqueue_reference, .ctx = &job};
    double ms = 0;
    ok(pg_device_time(g_dev, &arm, 1, 0, 1, true, 300.0, &ms, &g_d), "time reference GEMM");
    printf("reference GEMM %lldx%lldx%lld bf16: %.2f ms = %.1f TFLOP/s (fp32 FMA)\n",
           (long long)M, (long long)N, (long long)K, ms,
           2.0 * (double)M * (double)N * (double)K / (ms * 1e-3) / 1e12);
    pg_buffer_free(A);
    pg_buffer_free(B);
    pg_buffer_free(C);
}

/* A kernel that faults or never ends must come back as PG_FAIL_KERNEL and break the device. */
static int run_failing(const char *entry, const char *want)
{
    char log[4096];
    pg_module *m = NULL;
    pg_kernel *k = NULL;
    ok(pg_module_load(g_dev, k_ptx, sizeof(k_ptx), &m, log, sizeof(log), &g_d), "load PTX");
    ok(pg_module_get_kernel(m, entry, &k, &g_d), "get kernel");
    pg_buffer *flag = alloc(4);
    ok(pg_buffer_zero(flag, &g_d), "zero flag");
    /* The fault kernel stores to address 16, which is never mapped. */
    uint64_t p = strcmp(entry, "pg_smoke_fault") ? pg_buffer_address(flag) : 16;
    void *args[] = {&p};
    pg_launch l = one_launch(k, 1, 32, args);
    ok(pg_device_launch(g_dev, &l, 1, &g_d), "launch");
    pg_status st = pg_device_sync(g_dev, 1.0, &g_d);
    printf("%s: status %d: %s\n", entry, (int)st, g_d.message);
    expect(st == PG_FAIL_KERNEL && !strncmp(g_d.message, want, strlen(want)),
           "want PG_FAIL_KERNEL starting with %s", want);
    expect(pg_device_is_broken(g_dev), "%s", "device not marked broken");
    st = pg_buffer_zero(flag, &g_d);
    expect(st == PG_ERR_INFRA, "after the failure: want PG_ERR_INFRA, got: %s", g_d.message);
    printf("later call: %s\n", g_d.message);
    pg_buffer_free(flag);
    pg_module_unload(m);
    pg_device_close(g_dev);
    printf("PASS\n");
    return 0;
}


/* The checks that run on the GPU (gate/device/checks.c) against their host definitions: the
 * tolerance comparison against gate/stats/accuracy.c on a bf16 output with crafted elements
 * (poison, Inf, NaN, out of tolerance), the keyed checksum's sensitivity to one changed byte,
 * and the determinism difference count. */
static void check_gpu_checks(void)
{
    const size_t n = (1u << 20) + 17;
    pg_buffer *out = alloc(n * 2), *ref = alloc(n * 4), *copy = alloc(n * 2);
    ok(pg_buffer_fill_normal(out, PG_DTYPE_BF16, n, 11, &g_d), "fill out");
    ok(pg_buffer_fill_normal(ref, PG_DTYPE_FP32, n, 11, &g_d), "fill ref");
    sync_ok("fills");
    uint16_t *h = download(out, n * 2);
    h[5] = 0xFFFF;          /* poison: unwritten */
    h[77] = 0x7F80;         /* +Inf */
    h[1000] = 0x7FC1;       /* NaN */
    h[n - 1] = 0x42C8;      /* 100.0: far out of tolerance */
    ok(pg_buffer_upload(out, h, n * 2, &g_d), "upload");
    float *r = download(ref, n * 4);
    pg_accuracy_tolerance tol = {0.01, 0.01, 0.02};
    pg_accuracy host, gpu;
    pg_accuracy_compare(h, PG_DTYPE_BF16, r, n, &tol, &host);
    pg_accuracy_sums sums;
    ok(pg_buffer_compare_accuracy(out, PG_DTYPE_BF16, ref, n, tol.atol, tol.rtol, &sums, &g_d),
       "pg_buffer_compare_accuracy");
    pg_accuracy_from_sums(&sums, n, &tol, &gpu);
    printf("gpu compare: bad %zu (host %zu), nan/inf %zu (%zu), unwritten %zu (%zu), first bad "
           "%lld (%lld), max abs %.9g (%.9g), rel L2 %.12g (%.12g)\n",
           gpu.bad_elements, host.bad_elements, gpu.nan_or_inf_elements, host.nan_or_inf_elements,
           gpu.unwritten_elements, host.unwritten_elements, gpu.first_bad_index,
           host.first_bad_index, gpu.max_absolute_error, host.max_absolute_error,
           gpu.relative_l2_error, host.relative_l2_error);
    expect(gpu.bad_elements == host.bad_elements && gpu.bad_elements >= 4, "%s", "bad elements");
    expect(gpu.nan_or_inf_elements == 3 && host.nan_or_inf_elements == 3, "%s", "nan/inf");
    expect(gpu.unwritten_elements == 1 && host.unwritten_elements == 1, "%s", "unwritten");
    expect(gpu.first_bad_index == host.first_bad_index, "%s", "first bad index");
    expect(gpu.max_absolute_error == host.max_absolute_error, "%s", "max abs (exact)");
    expect(gpu.max_relative_error == host.max_relative_error, "%s", "max rel (exact)");
    expect(fabs(gpu.relative_l2_error - host.relative_l2_error) <=
               1e-12 * host.relative_l2_error, "%s", "relative L2 (to 1e-12)");
    expect(gpu.pass == host.pass, "%s", "pass");

    uint64_t s1 = 0, s2 = 0, s3 = 0;
    ok(pg_buffer_checksum(out, &s1, &g_d), "checksum");
    ok(pg_buffer_checksum(out, &s2, &g_d), "checksum again");
    expect(s1 == s2, "%s", "checksum repeatable");
    h[n / 2] ^= 1;
    ok(pg_buffer_upload(out, h, n * 2, &g_d), "upload one changed bit");
    ok(pg_buffer_checksum(out, &s3, &g_d), "checksum changed");
    expect(s3 != s1, "%s", "checksum sees one changed bit");
    h[n / 2] ^= 1;
    ok(pg_buffer_upload(out, h, n * 2, &g_d), "upload restored");
    ok(pg_buffer_checksum(out, &s3, &g_d), "checksum restored");
    expect(s3 == s1, "%s", "checksum restored");

    ok(pg_buffer_copy(copy, out, n * 2, &g_d), "copy");
    uint64_t differ = 99;
    ok(pg_buffer_count_differences(copy, out, n, 2, &differ, &g_d), "differences");
    expect(differ == 0, "%s", "copy identical");
    h[3] ^= 0x8000;
    h[n - 2] ^= 1;
    ok(pg_buffer_upload(out, h, n * 2, &g_d), "upload two changes");
    ok(pg_buffer_count_differences(copy, out, n, 2, &differ, &g_d), "differences");
    expect(differ == 2, "%s", "two elements differ");
    printf("gpu checks: checksum %016llx, differences %llu: ok\n", (unsigned long long)s1,
           (unsigned long long)differ);
    free(h);
    free(r);
    pg_buffer_free(out);
    pg_buffer_free(ref);
    pg_buffer_free(copy);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pg_status st = pg_device_open(0, &g_dev, &g_d);
    if (st == PG_ERR_INFRA) {
        printf("SKIP: %s\n", g_d.message);
        return 77;
    }
    ok(st, "pg_device_open");
    print_info(pg_device_get_info(g_dev));

    if (argc > 1 && !strcmp(argv[1], "fault"))
        return run_failing("pg_smoke_fault", "CUDA_ERROR_ILLEGAL_ADDRESS");
    if (argc > 1 && !strcmp(argv[1], "hang"))
        return run_failing("pg_smoke_spin", "TIMEOUT");

    check_fill(PG_DTYPE_BF16, 1 << 20);
    check_fill(PG_DTYPE_FP16, 1 << 20);
    check_fill(PG_DTYPE_FP32, 1 << 20);
    check_byte_fills();
    check_gpu_checks();
    check_modules_and_launches();
    check_reference_small(PG_DTYPE_BF16, 67, 45, 40);
    check_reference_small(PG_DTYPE_FP16, 67, 45, 40);
    check_reference_small(PG_DTYPE_BF16, 300, 257, 33);
    check_reference_small(PG_DTYPE_BF16, 1, 1, 1);
    check_blaslt(4096, 4096, 4096, true);
    check_blaslt(1531, 777, 1001, false);
    time_reference(8192, 7168, 5120);

    expect(!pg_device_is_broken(g_dev), "%s", "device broken at the end");
    pg_device_close(g_dev);
    printf("PASS\n");
    return 0;
}
