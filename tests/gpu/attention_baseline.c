/* GPU test of the attention reference and the cuDNN baseline (docs/attention.md), run by
 * tests/gpu/test_attention_baseline.sh:
 *   1. self-check: ptxgate's GPU reference (forward and backward, causal and not, GQA/MQA,
 *      BSHD and mixed layouts, S_q != S_kv bottom-right causal, D_v != D, D = 256, both LSE
 *      conventions) against a double-precision CPU computation on small ragged shapes, then
 *      cuDNN's forward and backward on the same problems against the reference;
 *   2. per attention task (default the shipped ten, each on its largest workload; "id@workload"
 *      names another) on one workload (default PTXBench's b4_h48_s4096_d128): cuDNN's forward or backward against the GPU reference with the task's
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

/* Element offsets of (b, h, s, d) in a tensor with strides x. */
static size_t at(pg_mha_strides x, int64_t b, int64_t h, int64_t s, int64_t d)
{
    return (size_t)(b * x.b + h * x.h + s * x.s + d * x.d);
}

/* Forward in double: o at p->o's strides, lse [B,H,S_q] natural (the convention is applied by
 * the caller). Query head h reads KV head h / (H / H_kv); causal keys j < visible_keys(i). */
static void cpu_forward(const float *q, const float *k, const float *v, const pg_mha_problem *p,
                        double *o, double *lse)
{
    const int64_t G = p->H / p->H_kv;
    double *sc = malloc((size_t)p->S_kv * sizeof *sc);
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->H; h++)
            for (int64_t i = 0; i < p->S_q; i++) {
                int64_t n = pg_mha_visible_keys(p, i), hk = h / G;
                double m = -INFINITY, l = 0;
                for (int64_t j = 0; j < n; j++) {
                    double acc = 0;
                    for (int64_t d = 0; d < p->D; d++)
                        acc += (double)q[at(p->q, b, h, i, d)] * k[at(p->k, b, hk, j, d)];
                    sc[j] = acc * (double)p->scale;
                    m = fmax(m, sc[j]);
                }
                for (int64_t j = 0; j < n; j++)
                    l += (sc[j] = exp(sc[j] - m));
                lse[(b * p->H + h) * p->S_q + i] = m + log(l);
                for (int64_t d = 0; d < p->D_v; d++) {
                    double acc = 0;
                    for (int64_t j = 0; j < n; j++)
                        acc += sc[j] / l * v[at(p->v, b, hk, j, d)];
                    o[at(p->o, b, h, i, d)] = acc;
                }
            }
    free(sc);
}

/* Backward in double from the given o (the one the GPU backward read) and the natural lse; dq,
 * dk, dv (at their strides) start zeroed; dK, dV of a KV head sum over its query heads. */
static void cpu_backward(const float *q, const float *k, const float *v, const double *o,
                         const float *dout, const double *lse, const pg_mha_problem *p,
                         double *dq, double *dk, double *dv)
{
    const int64_t G = p->H / p->H_kv;
    const double scale = (double)p->scale;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->H; h++)
            for (int64_t i = 0; i < p->S_q; i++) {
                int64_t n = pg_mha_visible_keys(p, i), hk = h / G;
                double delta = 0;
                for (int64_t d = 0; d < p->D_v; d++)
                    delta += (double)dout[at(p->d_o, b, h, i, d)] * o[at(p->o, b, h, i, d)];
                for (int64_t j = 0; j < n; j++) {
                    double sc = 0, dp = 0;
                    for (int64_t d = 0; d < p->D; d++)
                        sc += (double)q[at(p->q, b, h, i, d)] * k[at(p->k, b, hk, j, d)];
                    for (int64_t d = 0; d < p->D_v; d++)
                        dp += (double)dout[at(p->d_o, b, h, i, d)] * v[at(p->v, b, hk, j, d)];
                    double pr = exp(sc * scale - lse[(b * p->H + h) * p->S_q + i]);
                    double ds = pr * (dp - delta) * scale;
                    for (int64_t d = 0; d < p->D_v; d++)
                        dv[at(p->dv, b, hk, j, d)] += pr * dout[at(p->d_o, b, h, i, d)];
                    for (int64_t d = 0; d < p->D; d++) {
                        dq[at(p->dq, b, h, i, d)] += ds * k[at(p->k, b, hk, j, d)];
                        dk[at(p->dk, b, hk, j, d)] += ds * q[at(p->q, b, h, i, d)];
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

/* A problem of the self-check: sizes, per-tensor layout (BSHD when true), mask, scale (0:
 * 1/√D) and LSE convention. */
typedef struct {
    const char *name;
    int64_t B, H, H_kv, S_q, S_kv, D, D_v;
    bool causal, bshd_q, bshd_kv, bshd_o;
    float scale;
    bool lse_log2, lse_unscaled;
} problem_spec;

static void make_problem(const problem_spec *c, pg_mha_problem *p)
{
    pg_mha_problem_bhsd(c->B, c->H, c->S_q, c->D, c->causal, p);
    p->H_kv = c->H_kv;
    p->S_kv = c->S_kv;
    p->D_v = c->D_v;
    if (c->scale > 0)
        p->scale = c->scale;
    p->lse_log2 = c->lse_log2;
    p->lse_unscaled = c->lse_unscaled;
    p->q = p->dq = pg_mha_dense_strides(c->H, c->S_q, c->D, c->bshd_q);
    p->k = p->dk = pg_mha_dense_strides(c->H_kv, c->S_kv, c->D, c->bshd_kv);
    p->v = p->dv = pg_mha_dense_strides(c->H_kv, c->S_kv, c->D_v, c->bshd_kv);
    p->o = p->d_o = pg_mha_dense_strides(c->H, c->S_q, c->D_v, c->bshd_o);
}

/* A self-check problem's bf16 inputs (random from seed), the reference forward (O fp32 and its
 * bf16 rounding o16, LSE) and, when backward, the reference gradients (fp32). */
typedef struct {
    pg_mha_problem s;
    size_t nq, nk, nv, no, rows;
    pg_buffer *q, *k, *v, *dout, *o16, *o, *lse, *dq, *dk, *dv;
} ref_run;

static void ref_run_make(const problem_spec *c, uint64_t seed, bool backward, ref_run *r)
{
    make_problem(c, &r->s);
    const pg_mha_problem *s = &r->s;
    r->nq = (size_t)(s->B * s->H * s->S_q * s->D);
    r->nk = (size_t)(s->B * s->H_kv * s->S_kv * s->D);
    r->nv = (size_t)(s->B * s->H_kv * s->S_kv * s->D_v);
    r->no = (size_t)(s->B * s->H * s->S_q * s->D_v);
    r->rows = (size_t)(s->B * s->H * s->S_q);
    r->q = alloc(r->nq * 2), r->k = alloc(r->nk * 2), r->v = alloc(r->nv * 2);
    r->dout = alloc(r->no * 2), r->o16 = alloc(r->no * 2), r->o = alloc(r->no * 4);
    r->lse = alloc(r->rows * 4), r->dq = alloc(r->nq * 4), r->dk = alloc(r->nk * 4);
    r->dv = alloc(r->nv * 4);
    ok(pg_buffer_fill_normal(r->q, PG_DTYPE_BF16, r->nq, seed, &g_d), "fill Q");
    ok(pg_buffer_fill_normal(r->k, PG_DTYPE_BF16, r->nk, seed + 1, &g_d), "fill K");
    ok(pg_buffer_fill_normal(r->v, PG_DTYPE_BF16, r->nv, seed + 2, &g_d), "fill V");
    ok(pg_buffer_fill_normal(r->dout, PG_DTYPE_BF16, r->no, seed + 3, &g_d), "fill dO");
    ok(pg_reference_mha_fwd(g_dev, PG_DTYPE_BF16, s, r->q, r->k, r->v, r->o, r->lse, 300, &g_d),
       "ref fwd");
    ok(pg_buffer_convert(r->o16, PG_DTYPE_BF16, r->o, r->no, &g_d), "convert O");
    if (backward)
        ok(pg_reference_mha_bwd(g_dev, PG_DTYPE_BF16, s, r->q, r->k, r->v, r->o16, r->dout,
                                r->lse, r->dq, r->dk, r->dv, 300, &g_d),
           "ref bwd");
}

static void ref_run_free(ref_run *r)
{
    pg_buffer *all[] = {r->q, r->k, r->v, r->dout, r->o16, r->o, r->lse, r->dq, r->dk, r->dv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_buffer_free(all[i]);
}

static void selfcheck_one(const problem_spec *c)
{
    ref_run r;
    ref_run_make(c, 11, true, &r);
    const pg_mha_problem s = r.s;
    size_t nq = r.nq, nk = r.nk, nv = r.nv, no = r.no, rows = r.rows;
    pg_buffer *q = r.q, *k = r.k, *v = r.v, *dout = r.dout, *o16 = r.o16, *o = r.o, *lse = r.lse,
              *dq = r.dq, *dk = r.dk, *dv = r.dv;
    float *fq = to_floats(q, nq), *fk = to_floats(k, nk), *fv = to_floats(v, nv),
          *fd = to_floats(dout, no), *fo16 = to_floats(o16, no);
    double *co = calloc(no, 8), *cl = calloc(rows, 8), *cdq = calloc(nq, 8), *cdk = calloc(nk, 8),
           *cdv = calloc(nv, 8), *co16 = calloc(no, 8), *clse = calloc(rows, 8);
    cpu_forward(fq, fk, fv, &s, co, cl);
    for (size_t i = 0; i < no; i++)
        co16[i] = fo16[i];
    cpu_backward(fq, fk, fv, co16, fd, cl, &s, cdq, cdk, cdv);
    double f = pg_mha_lse_factor(&s);
    for (size_t i = 0; i < rows; i++)
        clse[i] = cl[i] * f; /* the stored convention */
    /* fp32 GPU against double CPU: they differ by fp32 rounding only (~1e-6 relative); 1e-4 is
     * far above that and far below any indexing, stride or masking mistake. */
    const pg_accuracy_tolerance tight = {1e-4, 1e-4, 1e-5};
    const struct {
        const char *name;
        pg_buffer *gpu;
        const double *cpu;
        size_t n;
    } outs[] = {{"O", o, co, no},   {"LSE", lse, clse, rows}, {"dQ", dq, cdq, nq},
                {"dK", dk, cdk, nk}, {"dV", dv, cdv, nv}};
    printf("self-check %s: B=%lld H=%lld H_kv=%lld S_q=%lld S_kv=%lld D=%lld D_v=%lld%s, Q %s, "
           "K/V %s, O %s, scale %g, LSE factor %g\n",
           c->name, (long long)s.B, (long long)s.H, (long long)s.H_kv, (long long)s.S_q,
           (long long)s.S_kv, (long long)s.D, (long long)s.D_v, s.causal ? " causal" : "",
           c->bshd_q ? "BSHD" : "BHSD", c->bshd_kv ? "BSHD" : "BHSD", c->bshd_o ? "BSHD" : "BHSD",
           (double)s.scale, f);
    size_t most = nq > nk ? nq : nk;
    most = most > nv ? most : nv;
    most = most > no ? most : no;
    float *want = malloc(most * sizeof *want);
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
    free(co), free(cl), free(cdq), free(cdk), free(cdv), free(co16), free(clse);
    ref_run_free(&r);
}

/* cuDNN on a self-check problem against the reference (bf16 outputs; the shipped tasks'
 * tolerances: O 0.004/0.01, gradients 0.08/0.02). A configuration cuDNN refuses is reported
 * NOT_SUPPORTED (PG_ERR_UNAVAILABLE) and counts as a failure only when `must_run`. */
static void cudnn_problem(const problem_spec *c, bool backward, bool must_run)
{
    ref_run r;
    ref_run_make(c, 21, backward, &r);
    const pg_mha_problem s = r.s;
    size_t nq = r.nq, nk = r.nk, nv = r.nv, no = r.no;
    pg_buffer *q = r.q, *k = r.k, *v = r.v, *dout = r.dout, *o16 = r.o16, *o = r.o, *lse = r.lse,
              *dq = r.dq, *dk = r.dk, *dv = r.dv, *cq = alloc(nq * 2), *ck = alloc(nk * 2),
              *cv = alloc(nv * 2), *co = alloc(no * 2);
    pg_sdpa_args a = {.backward = backward, .dtype = PG_DTYPE_BF16, .problem = s,
                      .max_configs = 16, .Q = q, .K = k, .V = v, .O = backward ? o16 : co,
                      .LSE = backward ? lse : NULL, .dO = backward ? dout : NULL,
                      .dQ = backward ? cq : NULL, .dK = backward ? ck : NULL,
                      .dV = backward ? cv : NULL};
    pg_cudnn_sdpa *p = NULL;
    pg_cudnn_sdpa_info info;
    pg_diag_clear(&g_d);
    pg_status st = pg_cudnn_sdpa_prepare(g_dev, &a, &p, &info, &g_d);
    printf("cuDNN %s on %s: ", backward ? "backward" : "forward", c->name);
    if (st != PG_OK) {
        bool refused = st == PG_ERR_UNAVAILABLE;
        printf("%s: %s%s\n", refused ? "NOT_SUPPORTED" : "error", g_d.message,
               refused && !must_run ? " (allowed)" : "");
        g_failures += must_run || !refused;
    } else {
        printf("%s\n", info.graph);
        ok(pg_cudnn_sdpa_enqueue(p, &g_d), "cuDNN execute");
        ok(pg_device_sync(g_dev, 300, &g_d), "sync cuDNN");
        const pg_tolerance to = {0.004, 0.01, 0.01}, tg = {0.08, 0.02, 0.02};
        if (backward) {
            compare("cuDNN dQ vs reference", cq, PG_DTYPE_BF16, dq, nq, &tg);
            compare("cuDNN dK vs reference", ck, PG_DTYPE_BF16, dk, nk, &tg);
            compare("cuDNN dV vs reference", cv, PG_DTYPE_BF16, dv, nv, &tg);
        } else {
            compare("cuDNN O vs reference", co, PG_DTYPE_BF16, o, no, &to);
        }
    }
    pg_cudnn_sdpa_free(p);
    pg_buffer *mine[] = {cq, ck, cv, co};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        pg_buffer_free(mine[i]);
    ref_run_free(&r);
}

/* The self-check problems: the historic BHSD ones, then GQA/MQA, BSHD and mixed layouts,
 * S_q != S_kv with the bottom-right causal mask, D_v != D, D = 256, a softmax scale of the
 * task's and both LSE conventions. */
static const problem_spec k_problems[] = {
    {"bhsd", 2, 3, 3, 150, 150, 72, 72, false, false, false, false, 0, false, false},
    {"bhsd_causal", 2, 3, 3, 150, 150, 72, 72, true, false, false, false, 0, false, false},
    {"bhsd_causal_257", 1, 2, 2, 257, 257, 128, 128, true, false, false, false, 0, false, false},
    {"gqa_bshd", 2, 4, 2, 130, 130, 64, 64, false, true, true, true, 0, false, false},
    {"mqa_mixed", 1, 6, 1, 97, 97, 64, 64, false, false, true, true, 0, true, false},
    {"sq_lt_skv_causal", 2, 4, 2, 100, 170, 64, 48, true, true, false, true, 0.1f, true, true},
    {"d256", 1, 2, 2, 80, 80, 256, 256, false, false, false, false, 0, false, true},
};
#define N_PROBLEMS (sizeof k_problems / sizeof k_problems[0])

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

/* id is a task id, or "id@workload" for another workload than the default. */
static void run_task(const char *root, const char *id_at, const char *workload, bool timing)
{
    char id[256];
    snprintf(id, sizeof id, "%s", id_at);
    char *at_sign = strchr(id, '@');
    if (at_sign) {
        *at_sign = '\0';
        workload = at_sign + 1;
    }
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
    pg_mha_problem s;
    ok(pg_mha_problem_of(t, w, &s, &g_d), "problem");
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
    printf("%s [%s]: B=%lld H=%lld H_kv=%lld S_q=%lld S_kv=%lld D=%lld D_v=%lld%s, %.4g FLOP\n",
           id, w->name, (long long)s.B, (long long)s.H, (long long)s.H_kv, (long long)s.S_q,
           (long long)s.S_kv, (long long)s.D, (long long)s.D_v, s.causal ? " causal" : "",
           (double)flop);
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
                                m.lse >= 0 ? b.ref[m.lse] : NULL, 600, &g_d),
           "reference forward");
    }
    printf("  reference: %.3f s\n", now_s() - t0);

    pg_sdpa_args a = {.backward = bwd, .dtype = dt, .problem = s,
                      .max_configs = t->baseline_max_candidates, .Q = b.t[m.q], .K = b.t[m.k],
                      .V = b.t[m.v], .O = b.t[m.o], .LSE = m.lse >= 0 ? b.t[m.lse] : NULL,
                      .dO = bwd ? b.t[m.d_o] : NULL, .dQ = bwd ? b.t[m.dq] : NULL,
                      .dK = bwd ? b.t[m.dk] : NULL, .dV = bwd ? b.t[m.dv] : NULL};
    pg_cudnn_sdpa *p = NULL;
    pg_cudnn_sdpa_info info;
    t0 = now_s();
    pg_diag_clear(&g_d);
    pg_status pst = pg_cudnn_sdpa_prepare(g_dev, &a, &p, &info, &g_d);
    if (pst != PG_OK) {
        bool allowed = pst == PG_ERR_UNAVAILABLE && t->baseline_optional;
        printf("  %s: cuDNN prepare: %s%s\n", allowed ? "NOT_SUPPORTED" : "FAIL",
               pg_diag_format(&g_d, buf, sizeof buf),
               allowed ? " (the task's baseline is optional)" : "");
        g_failures += !allowed;
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
    const char *tasks = "mha_fwd_d128,mha_fwd_d128_causal,mha_bwd_d128,mha_bwd_d128_causal,"
                        "mha_fwd_bshd_d128_o@b4_s4096_h48_d128,"
                        "mha_fwd_gqa_d128@b4_h32_hkv8_s4096_d128,"
                        "mha_fwd_gqa_d128@b4_h32_hkv1_s2048_d128,"
                        "mha_fwd_d256@b4_h16_s4096_d256,"
                        "mha_bwd_gqa_d128@b4_h32_hkv8_s4096_d128,"
                        "mha_bwd_gqa_d128@b4_h32_hkv1_s2048_d128";
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
    if (selfcheck)
        for (size_t i = 0; i < N_PROBLEMS; i++)
            selfcheck_one(&k_problems[i]);
    if (!v) {
        printf("SKIP: %s (the reference self-check above ran: %d failure(s))\n", reason,
               g_failures);
        pg_device_close(g_dev);
        return g_failures ? 1 : 77;
    }
    /* cuDNN on every self-check problem, forward and backward: the generalized graphs (strides,
     * GQA reduction, bottom-right mask, D_v) against the reference. D = 256 backward and the
     * mask with S_q != S_kv may be refused by an older cuDNN: reported, not failed. */
    if (selfcheck)
        for (size_t i = 0; i < N_PROBLEMS; i++) {
            const problem_spec *c = &k_problems[i];
            bool optional = c->D > 128 || c->S_q != c->S_kv || c->D_v != c->D;
            cudnn_problem(c, false, !optional);
            cudnn_problem(c, true, !optional);
        }
    char *list = strdup(tasks);
    for (char *save = NULL, *id = strtok_r(list, ",", &save); id; id = strtok_r(NULL, ",", &save))
        run_task(root, id, workload, timing);
    free(list);
    pg_device_close(g_dev);
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
