/* GPU test of the attention reference and the cuDNN baseline (docs/attention.md), run by
 * tests/gpu/test_attention_baseline.sh:
 *   1. self-check: ptxgate's GPU reference (forward and backward, causal and not) against a
 *      double-precision CPU computation on small ragged shapes;
 *   2. per attention task (default all four) on one workload (default PTXBench's
 *      b4_h48_s4096_d128): cuDNN's forward or backward against the GPU reference with the task's
 *      own per-output tolerances (this validates the reference and the cuDNN graph against each
 *      other), then cuDNN timed (L2 flushed, 10 warm-up, 50 timed launches, median) in TFLOP/s by
 *      the task's FLOP count, with the required rate on the PTXBench workload of an H200-class
 *      GPU (compute capability 9.0): >= 500 TFLOP/s forward, >= 400 backward, non-causal.
 * usage: attention_baseline ROOT [--tasks a,b] [--workload NAME] [--no-selfcheck] [--no-timing]
 * Exit 0 pass, 1 failure, 77 skipped (no GPU, no cuDNN: "SKIP: <reason>"). */
#include "device/device.h"
#include "model/expr.h"
#include "model/task.h"
#include "model/task_ops.h"
#include "stats/accuracy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pg_device *g_dev;
static pg_diag g_d;
static int g_failures;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK) {
        char buf[4096];
        printf("FAIL: %s: %s\n", what, pg_diag_format(&g_d, buf, sizeof buf));
        exit(1);
    }
}

static pg_buffer *alloc(size_t bytes)
{
    pg_buffer *b = NULL;
    ok(pg_buffer_alloc(g_dev, bytes, &b, &g_d), "pg_buffer_alloc");
    return b;
}

static void *download(pg_buffer *b, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    if (!h) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    ok(pg_buffer_download(b, h, bytes, &g_d), "pg_buffer_download");
    return h;
}

/* Compare out (dtype) with ref (fp32 on the GPU) under tol; prints one line; false on failure. */
static bool compare(const char *what, pg_buffer *out, pg_dtype dt, pg_buffer *ref, size_t n,
                    const pg_tolerance *tol)
{
    void *ho = download(out, n * pg_dtype_size(dt));
    float *hr = download(ref, n * 4);
    pg_accuracy_tolerance at = {tol->atol, tol->rtol, tol->max_rel_l2};
    pg_accuracy a;
    pg_accuracy_compare(ho, dt, hr, n, &at, &a);
    printf("  %-34s max |err| %.3g, max rel err %.3g, rel L2 %.3g, bad %zu of %zu (atol %g, rtol "
           "%g, L2 limit %g): %s\n",
           what, a.max_absolute_error, a.max_relative_error, a.relative_l2_error, a.bad_elements,
           n, tol->atol, tol->rtol, tol->max_rel_l2, a.pass ? "ok" : "FAIL");
    free(ho);
    free(hr);
    g_failures += !a.pass;
    return a.pass;
}

/* ---- 1. the GPU reference against the CPU ------------------------------------------------ */

/* Forward in double: o [B,H,S,D], lse [B,H,S]. */
static void cpu_forward(const float *q, const float *k, const float *v, const pg_mha_shape *s,
                        double *o, double *lse)
{
    const int64_t S = s->S, D = s->D;
    const double scale = (double)pg_mha_scale(D);
    double *p = malloc((size_t)S * sizeof *p);
    for (int64_t bh = 0; bh < s->B * s->H; bh++) {
        const float *Q = q + bh * S * D, *K = k + bh * S * D, *V = v + bh * S * D;
        for (int64_t i = 0; i < S; i++) {
            int64_t n = s->causal ? i + 1 : S;
            double m = -INFINITY, l = 0;
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t d = 0; d < D; d++)
                    acc += (double)Q[i * D + d] * K[j * D + d];
                p[j] = acc * scale;
                m = fmax(m, p[j]);
            }
            for (int64_t j = 0; j < n; j++)
                l += (p[j] = exp(p[j] - m));
            lse[bh * S + i] = m + log(l);
            for (int64_t d = 0; d < D; d++) {
                double acc = 0;
                for (int64_t j = 0; j < n; j++)
                    acc += p[j] / l * V[j * D + d];
                o[(bh * S + i) * D + d] = acc;
            }
        }
    }
    free(p);
}

/* Backward in double from the given o (the one the GPU backward read) and lse; dq, dk, dv
 * start zeroed. */
static void cpu_backward(const float *q, const float *k, const float *v, const double *o,
                         const float *dout, const double *lse, const pg_mha_shape *s, double *dq,
                         double *dk, double *dv)
{
    const int64_t S = s->S, D = s->D;
    const double scale = (double)pg_mha_scale(D);
    for (int64_t bh = 0; bh < s->B * s->H; bh++) {
        const int64_t base = bh * S * D;
        for (int64_t i = 0; i < S; i++) {
            int64_t n = s->causal ? i + 1 : S;
            double delta = 0;
            for (int64_t d = 0; d < D; d++)
                delta += (double)dout[base + i * D + d] * o[base + i * D + d];
            for (int64_t j = 0; j < n; j++) {
                double sc = 0, dp = 0;
                for (int64_t d = 0; d < D; d++) {
                    sc += (double)q[base + i * D + d] * k[base + j * D + d];
                    dp += (double)dout[base + i * D + d] * v[base + j * D + d];
                }
                double p = exp(sc * scale - lse[bh * S + i]);
                double ds = p * (dp - delta) * scale;
                for (int64_t d = 0; d < D; d++) {
                    dv[base + j * D + d] += p * dout[base + i * D + d];
                    dq[base + i * D + d] += ds * k[base + j * D + d];
                    dk[base + j * D + d] += ds * q[base + i * D + d];
                }
            }
        }
    }
}

static float *to_floats(pg_buffer *b, size_t n)
{
    uint16_t *h = download(b, n * 2);
    float *f = malloc(n * sizeof *f);
    for (size_t i = 0; i < n; i++)
        f[i] = pg_bf16_to_float(h[i]);
    free(h);
    return f;
}

static void selfcheck_one(int64_t B, int64_t H, int64_t S, int64_t D, bool causal)
{
    pg_mha_shape s = {B, H, S, D, causal};
    size_t n = (size_t)(B * H * S * D), rows = (size_t)(B * H * S);
    pg_buffer *q = alloc(n * 2), *k = alloc(n * 2), *v = alloc(n * 2), *dout = alloc(n * 2),
              *o16 = alloc(n * 2), *o = alloc(n * 4), *lse = alloc(rows * 4), *dq = alloc(n * 4),
              *dk = alloc(n * 4), *dv = alloc(n * 4);
    ok(pg_buffer_fill_normal(q, PG_DTYPE_BF16, n, 11, &g_d), "fill Q");
    ok(pg_buffer_fill_normal(k, PG_DTYPE_BF16, n, 12, &g_d), "fill K");
    ok(pg_buffer_fill_normal(v, PG_DTYPE_BF16, n, 13, &g_d), "fill V");
    ok(pg_buffer_fill_normal(dout, PG_DTYPE_BF16, n, 14, &g_d), "fill dO");
    ok(pg_reference_mha_fwd(g_dev, PG_DTYPE_BF16, &s, q, k, v, o, lse, 300, &g_d), "ref fwd");
    ok(pg_buffer_convert(o16, PG_DTYPE_BF16, o, n, &g_d), "convert O");
    ok(pg_reference_mha_bwd(g_dev, PG_DTYPE_BF16, &s, q, k, v, o16, dout, lse, dq, dk, dv, 300,
                            &g_d),
       "ref bwd");
    float *fq = to_floats(q, n), *fk = to_floats(k, n), *fv = to_floats(v, n),
          *fd = to_floats(dout, n), *fo16 = to_floats(o16, n);
    double *co = calloc(n, 8), *cl = calloc(rows, 8), *cdq = calloc(n, 8), *cdk = calloc(n, 8),
           *cdv = calloc(n, 8), *co16 = calloc(n, 8);
    cpu_forward(fq, fk, fv, &s, co, cl);
    for (size_t i = 0; i < n; i++)
        co16[i] = fo16[i];
    cpu_backward(fq, fk, fv, co16, fd, cl, &s, cdq, cdk, cdv);
    /* fp32 GPU against double CPU: they differ by fp32 rounding only (~1e-6 relative); 1e-4 is
     * far above that and far below any indexing, stride or masking mistake. */
    const pg_accuracy_tolerance tight = {1e-4, 1e-4, 1e-5};
    const struct {
        const char *name;
        pg_buffer *gpu;
        const double *cpu;
        size_t n;
    } outs[] = {{"O", o, co, n}, {"LSE", lse, cl, rows}, {"dQ", dq, cdq, n}, {"dK", dk, cdk, n},
                {"dV", dv, cdv, n}};
    printf("self-check B=%lld H=%lld S=%lld D=%lld%s\n", (long long)B, (long long)H, (long long)S,
           (long long)D, causal ? " causal" : "");
    float *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        for (size_t e = 0; e < outs[i].n; e++)
            want[e] = (float)outs[i].cpu[e];
        float *got = download(outs[i].gpu, outs[i].n * 4);
        pg_accuracy a;
        pg_accuracy_compare(got, PG_DTYPE_FP32, want, outs[i].n, &tight, &a);
        printf("  reference %-3s vs CPU (double)      max |err| %.3g, rel L2 %.3g, bad %zu of "
               "%zu: %s\n",
               outs[i].name, a.max_absolute_error, a.relative_l2_error, a.bad_elements,
               outs[i].n, a.pass ? "ok" : "FAIL");
        g_failures += !a.pass;
        free(got);
    }
    free(want);
    free(fq), free(fk), free(fv), free(fd), free(fo16);
    free(co), free(cl), free(cdq), free(cdk), free(cdv), free(co16);
    pg_buffer *all[] = {q, k, v, dout, o16, o, lse, dq, dk, dv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_buffer_free(all[i]);
}

/* ---- 2. cuDNN against the reference, then timed ------------------------------------------ */

typedef struct {
    pg_buffer *t[PG_MAX_TENSORS]; /* the task's tensors (the cuDNN outputs for outputs) */
    pg_buffer *ref[PG_MAX_TENSORS];
    size_t n[PG_MAX_TENSORS];
} buffers;

static pg_status enqueue_sdpa(void *ctx, pg_diag *d)
{
    return pg_cudnn_sdpa_enqueue(ctx, d);
}

/* A stored baseline's pin: the chosen configuration re-created from its graph, engine and
 * knobs (no heuristics) gives the same configuration and workspace; an engine index cuDNN does
 * not have is refused as PG_ERR_INPUT (the gate then searches). */
static void check_pinning(const pg_sdpa_args *a, const pg_cudnn_sdpa_info *chosen)
{
    pg_sdpa_args pinned = *a;
    pinned.pin = &chosen->config;
    pg_cudnn_sdpa *p = NULL;
    pg_cudnn_sdpa_info info;
    pg_diag d;
    pg_diag_clear(&d);
    double t0 = now_s();
    pg_status st = pg_cudnn_sdpa_prepare(g_dev, &pinned, &p, &info, &d);
    bool same = st == PG_OK && pg_cudnn_config_equal(&info.config, &chosen->config) &&
                info.workspace_bytes == chosen->workspace_bytes &&
                strcmp(info.heuristics, "pinned") == 0;
    printf("  pinned re-creation: %s (%s, workspace %zu B, %.2f s)%s%s\n", same ? "ok" : "FAIL",
           st == PG_OK ? info.heuristics : "refused", st == PG_OK ? info.workspace_bytes : 0,
           now_s() - t0, st == PG_OK ? "" : ": ", st == PG_OK ? "" : d.message);
    g_failures += !same;
    pg_cudnn_sdpa_free(p);
    pg_cudnn_config bogus = chosen->config;
    bogus.engine_id = 100000;
    pinned.pin = &bogus;
    p = NULL;
    pg_diag_clear(&d);
    st = pg_cudnn_sdpa_prepare(g_dev, &pinned, &p, &info, &d);
    printf("  pin of engine 100000: %s (%s)\n", st == PG_ERR_INPUT ? "refused, ok" : "FAIL",
           d.message);
    g_failures += st != PG_ERR_INPUT;
    pg_cudnn_sdpa_free(p);
}

static void run_task(const char *root, const char *id, const char *workload, bool timing)
{
    char dir[4096], buf[4096];
    snprintf(dir, sizeof dir, "%s/tasks", root);
    pg_task *t = NULL;
    pg_diag_clear(&g_d);
    ok(pg_task_load(dir, id, &t, &g_d), "load task");
    int wi = pg_task_find_workload(t, workload);
    if (wi < 0) {
        printf("FAIL: task %s has no workload %s\n", id, workload);
        exit(1);
    }
    const pg_workload *w = &t->workloads[wi];
    pg_mha_tensors m;
    pg_task_mha_tensors(t, &m);
    bool bwd = t->op == PG_OP_MHA_BWD;
    pg_mha_shape s = {w->values[pg_task_find_symbol(t, "B")], w->values[pg_task_find_symbol(t, "H")],
                      w->values[pg_task_find_symbol(t, "S")], w->values[pg_task_find_symbol(t, "D")],
                      t->causal};
    pg_dtype dt = t->tensors[m.q].dtype;
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    pg_task_symtab(t, w, names, &syms);
    int64_t flop = 0;
    char err[256];
    if (pg_expr_eval(t->flops, &syms, &flop, err, sizeof err) != PG_OK) {
        printf("FAIL: flops: %s\n", err);
        exit(1);
    }
    printf("%s [%s]: B=%lld H=%lld S=%lld D=%lld%s, %.4g FLOP\n", id, w->name, (long long)s.B,
           (long long)s.H, (long long)s.S, (long long)s.D, s.causal ? " causal" : "", (double)flop);
    buffers b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < t->n_tensors; i++) {
        uint64_t n;
        ok(pg_task_tensor_elements(t, i, w, &n, &g_d), "tensor elements");
        b.n[i] = (size_t)n;
        b.t[i] = alloc((size_t)n * pg_dtype_size(t->tensors[i].dtype));
        if (t->tensors[i].is_output)
            b.ref[i] = alloc((size_t)n * 4);
        else if (!(bwd && (i == m.o || i == m.lse)))
            ok(pg_buffer_fill_normal(b.t[i], t->tensors[i].dtype, (size_t)n, 2026 + (uint64_t)i,
                                     &g_d),
               "fill");
    }
    double t0 = now_s();
    if (bwd) {
        pg_buffer *o32 = alloc(b.n[m.o] * 4);
        ok(pg_reference_mha_fwd(g_dev, dt, &s, b.t[m.q], b.t[m.k], b.t[m.v], o32, b.t[m.lse], 600,
                                &g_d),
           "reference forward (backward inputs)");
        ok(pg_buffer_convert(b.t[m.o], dt, o32, b.n[m.o], &g_d), "convert O");
        ok(pg_device_sync(g_dev, 600, &g_d), "sync");
        pg_buffer_free(o32);
        t0 = now_s();
        ok(pg_reference_mha_bwd(g_dev, dt, &s, b.t[m.q], b.t[m.k], b.t[m.v], b.t[m.o], b.t[m.d_o],
                                b.t[m.lse], b.ref[m.dq], b.ref[m.dk], b.ref[m.dv], 600, &g_d),
           "reference backward");
    } else {
        ok(pg_reference_mha_fwd(g_dev, dt, &s, b.t[m.q], b.t[m.k], b.t[m.v], b.ref[m.o],
                                b.ref[m.lse], 600, &g_d),
           "reference forward");
    }
    printf("  reference: %.3f s\n", now_s() - t0);

    pg_sdpa_args a = {.backward = bwd, .dtype = dt, .shape = s,
                      .max_configs = t->baseline_max_candidates, .Q = b.t[m.q], .K = b.t[m.k],
                      .V = b.t[m.v], .O = b.t[m.o], .LSE = b.t[m.lse],
                      .dO = bwd ? b.t[m.d_o] : NULL, .dQ = bwd ? b.t[m.dq] : NULL,
                      .dK = bwd ? b.t[m.dk] : NULL, .dV = bwd ? b.t[m.dv] : NULL};
    pg_cudnn_sdpa *p = NULL;
    pg_cudnn_sdpa_info info;
    t0 = now_s();
    pg_diag_clear(&g_d);
    if (pg_cudnn_sdpa_prepare(g_dev, &a, &p, &info, &g_d) != PG_OK) {
        printf("  FAIL: cuDNN prepare: %s\n", pg_diag_format(&g_d, buf, sizeof buf));
        g_failures++;
        goto done;
    }
    char config[600];
    printf("  cuDNN %ld (headers %ld): %s, %s, heuristics %s (%d returned, %d "
           "tried), workspace %zu B, scratch %zu B, plan %.2f s\n",
           info.version, info.header_version, info.graph,
           pg_cudnn_config_format(&info.config, config, sizeof config), info.heuristics,
           info.configs_returned, info.configs_tried, info.workspace_bytes, info.scratch_bytes,
           now_s() - t0);
    check_pinning(&a, &info);
    /* poison the outputs so an unwritten element shows */
    for (int i = 0; i < t->n_tensors; i++)
        if (t->tensors[i].is_output)
            ok(pg_buffer_fill_poison(b.t[i], &g_d), "poison");
    ok(pg_cudnn_sdpa_enqueue(p, &g_d), "cuDNN execute");
    ok(pg_device_sync(g_dev, 600, &g_d), "sync cuDNN");
    for (int i = 0; i < t->n_tensors; i++) {
        if (!t->tensors[i].is_output)
            continue;
        char what[64];
        snprintf(what, sizeof what, "cuDNN %s vs reference", t->tensors[i].name);
        compare(what, b.t[i], t->tensors[i].dtype, b.ref[i], b.n[i],
                pg_task_output_tolerance(t, i));
    }
    if (timing) {
        pg_arm arm = {.enqueue = enqueue_sdpa, .ctx = p};
        enum { WARMUP = 10, REPS = 50 };
        double ms[REPS];
        ok(pg_device_time(g_dev, &arm, 1, WARMUP, REPS, true, 600, ms, &g_d), "time cuDNN");
        double sorted[REPS];
        memcpy(sorted, ms, sizeof ms);
        for (int i = 1; i < REPS; i++)
            for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
                double x = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = x;
            }
        double med = (sorted[REPS / 2 - 1] + sorted[REPS / 2]) / 2;
        double tflops = (double)flop / (med * 1e-3) / 1e12;
        printf("  cuDNN time: median %.4f ms (min %.4f, max %.4f) = %.1f TFLOP/s\n", med,
               sorted[0], sorted[REPS - 1], tflops);
        const pg_device_info *di = pg_device_get_info(g_dev);
        double need = bwd ? 400.0 : 500.0;
        if (!s.causal && strcmp(w->name, "b4_h48_s4096_d128") == 0 && di->cc_major == 9 &&
            di->cc_minor == 0) {
            bool pass = tflops >= need;
            printf("  required on the PTXBench workload: >= %.0f TFLOP/s: %s\n", need,
                   pass ? "ok" : "FAIL");
            g_failures += !pass;
        }
    }
done:
    pg_cudnn_sdpa_free(p);
    for (int i = 0; i < PG_MAX_TENSORS; i++) {
        if (b.t[i])
            pg_buffer_free(b.t[i]);
        if (b.ref[i])
            pg_buffer_free(b.ref[i]);
    }
    pg_task_free(t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ROOT [--tasks a,b] [--workload NAME] [--no-selfcheck] "
                        "[--no-timing]\n", argv[0]);
        return 2;
    }
    const char *root = argv[1];
    const char *tasks = "mha_fwd_d128,mha_fwd_d128_causal,mha_bwd_d128,mha_bwd_d128_causal";
    const char *workload = "b4_h48_s4096_d128";
    bool selfcheck = true, timing = true;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--tasks") == 0 && i + 1 < argc)
            tasks = argv[++i];
        else if (strcmp(argv[i], "--workload") == 0 && i + 1 < argc)
            workload = argv[++i];
        else if (strcmp(argv[i], "--no-selfcheck") == 0)
            selfcheck = false;
        else if (strcmp(argv[i], "--no-timing") == 0)
            timing = false;
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    pg_diag_clear(&g_d);
    if (pg_device_open(0, &g_dev, &g_d) != PG_OK) {
        printf("SKIP: %s\n", g_d.message);
        return 77;
    }
    char reason[512] = "";
    long v = pg_cudnn_version(reason, sizeof reason);
    const pg_device_info *di = pg_device_get_info(g_dev);
    printf("device: %s, cc %d.%d, %d SMs; cuDNN runtime %ld\n", di->name, di->cc_major,
           di->cc_minor, di->sm_count, v);
    if (selfcheck) {
        selfcheck_one(2, 3, 150, 72, false);
        selfcheck_one(2, 3, 150, 72, true);
        selfcheck_one(1, 2, 257, 128, true);
    }
    if (!v) {
        printf("SKIP: %s (the reference self-check above ran: %d failure(s))\n", reason,
               g_failures);
        pg_device_close(g_dev);
        return g_failures ? 1 : 77;
    }
    char *list = strdup(tasks);
    for (char *save = NULL, *id = strtok_r(list, ",", &save); id; id = strtok_r(NULL, ",", &save))
        run_task(root, id, workload, timing);
    free(list);
    pg_device_close(g_dev);
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
