/* GPU test of the generalized GEMM (D = alpha·A·B + beta·C, any row/column-major layout,
 * strided batch, fp32/bf16/fp16 operands, fp8 e4m3/e5m2 with per-tensor or block scales;
 * gate/device/device.h):
 *  1. ptxgate's reference GEMM against the CPU on the same (downloaded) inputs: bitwise
 *     against a CPU replay of its documented fp32 chain (fmaf in k order, fl(alpha·acc), one
 *     fmaf for beta·C), which is also the per-element arithmetic of the historic gemm_nt
 *     reference; and within a rigorous error bound of an fp64 product. Elements outside the
 *     output's span (ld padding) must stay unwritten.
 *  2. cuBLASLt (pg_blaslt_gemm_prepare, searched) against the reference: per element within a
 *     bound derived from the error model below; relative L2 and max |err| printed. Type
 *     combinations cuBLASLt does not take, and C stored unlike D, must be refused as input
 *     errors. The gemm_nt problem must get the historic descriptors.
 *  3. The same algorithm pinned (pg_blaslt_gemm_prepare_pinned of the searched configuration),
 *     and the rotated-copies path (pg_blaslt_gemm_enqueue_on) on a second set of buffers with a
 *     C input, against that set's reference; nothing is timed beyond the selection.
 * Prints one table. Exit 0 pass, 1 failure, 77 skipped (no GPU: "SKIP: <reason>").
 *
 * Error model (u = 2^-24, the fp32 unit roundoff; γ_n = n·u/(1 − n·u); S = Σ_k |a_k·b_k|,
 * T = |alpha|·S + |beta·c|; Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * §3.1 and §3.5):
 *  - reference: an fp32 FMA chain over K products has |acc − Σ a·b| <= γ_K·S; then one rounding
 *    for alpha·acc and one for the fmaf with beta·c: |ref − exact| <= (γ_K + 3u)·T (+ 2^-40·S for
 *    the fp64 evaluation of `exact`, + 1e-35 for subnormal products).
 *  - cuBLASLt, fp32 compute: any summation order of K products with separate or fused rounding
 *    stays within γ_{K+2}; tensor-core accumulation is not promised to round to nearest, so the
 *    bound takes a unit roundoff of 2u (truncation) for every operation: E = (γ'_{K+2} + 6u)·T
 *    with γ' of 2u. tf32 compute also rounds A and B to tf32 (10 explicit mantissa bits; by
 *    truncation at worst, 2^-10 relative each): + (2·2^-10 + 2^-20)·T. The result is then
 *    rounded to D's type (u_D = 2^-24, 2^-8 or 2^-11; plus the subnormal spacing of fp16 output,
 *    2^-24, as absolute): |D − ref| <= E·(1 + u_D) + u_D·(|ref| + B_ref) + B_ref + abs_D.
 *    An algorithm that splits K into s parts and reduces them in the output type
 *    (CUBLASLT_REDUCTION_SCHEME_INPLACE or _OUTPUT_TYPE) rounds every partial sum and every
 *    addition of them to D's type: + s·u_D·T.
 * These bound every element, so no tolerance is tuned to the data; the relative L2 error printed
 * shows how far below them the typical error lies. */
#include "device/device.h"
#include "model/gemm_blas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pg_device *g_dev;
static pg_diag g_d;
static bool g_failed;

static void die(pg_status st, const char *what)
{
    char buf[4096];
    printf("FAIL: %s: status %d: %s\n", what, (int)st, pg_diag_format(&g_d, buf, sizeof(buf)));
    exit(1);
}

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK)
        die(st, what);
}

static pg_buffer *alloc(size_t bytes)
{
    pg_buffer *b = NULL;
    ok(pg_buffer_alloc(g_dev, bytes ? bytes : 4, &b, &g_d), "pg_buffer_alloc");
    return b;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    return p;
}

static float bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
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

/* An OCP fp8 byte as float: e4m3 (bias 7, no infinities, S.1111.111 NaN) or e5m2 (bias 15,
 * IEEE-like). */
static float fp8_to_float(uint8_t v, bool e5m2)
{
    int sign = v >> 7, man_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int exp = (v & 0x7f) >> man_bits, man = v & ((1 << man_bits) - 1);
    float r;
    if (exp == 0)
        r = ldexpf((float)man, 1 - bias - man_bits);
    else if (e5m2 && exp == 31)
        r = man ? NAN : INFINITY;
    else if (!e5m2 && exp == 15 && man == 7)
        r = NAN;
    else
        r = ldexpf((float)(man | (1 << man_bits)), exp - bias - man_bits);
    return sign ? -r : r;
}

/* Element i of a downloaded buffer of dtype t, as float. */
static float elem(pg_dtype t, const void *p, int64_t i)
{
    if (t == PG_DTYPE_FP32)
        return ((const float *)p)[i];
    if (pg_dtype_is_fp8(t))
        return fp8_to_float(((const uint8_t *)p)[i], t == PG_DTYPE_E5M2);
    uint16_t h = ((const uint16_t *)p)[i];
    return t == PG_DTYPE_BF16 ? bits_to_float((uint32_t)h << 16) : fp16_to_float(h);
}

/* One test case. Storage, row-major terms: A [M,K] or (a_col) [K,M]; B [K,N] or (b_col) [N,K];
 * C and D [M,N] or (c_col / d_col) [N,M]; every leading dimension padded by `pad` elements;
 * batch outermost. */
typedef struct {
    const char *name;
    int64_t batch, M, N, K;
    pg_dtype ta, tb, tc, td;
    bool a_col, b_col, c_col, d_col;
    int pad;
    bool has_c;
    float alpha, beta;
    bool tf32;
    bool scaled;         /* fp8 with per-tensor scales scale_A, scale_B */
    bool block;          /* fp8 with DeepSeek-V3 block scales (with scaled) */
    bool blaslt_refuses; /* cuBLASLt must refuse it with PG_ERR_INPUT */
    bool rotate;         /* also: pinned preparation and the rotated-copies enqueue */
    bool expect_plain;   /* the historic gemm_nt problem: its descriptors are checked */
} gcase;

typedef struct {
    int64_t rows, cols; /* storage: outer x inner (contiguous), per batch */
    int64_t ld, elements;
} storage;

/* Operand x of logical rows x cols stored row-major (col false) or column-major, padded. */
static storage set_operand(pg_gemm_operand *x, pg_dtype t, int64_t batch, int64_t rows,
                           int64_t cols, bool col, int pad)
{
    storage s = {.rows = col ? cols : rows, .cols = col ? rows : cols};
    s.ld = s.cols + pad;
    s.elements = batch * s.rows * s.ld;
    x->tensor = -1;
    x->dtype = t;
    x->row_stride = col ? 1 : s.ld;
    x->col_stride = col ? s.ld : 1;
    x->batch_stride = batch > 1 ? s.rows * s.ld : 0;
    return s;
}

typedef struct {
    pg_gemm_problem p;
    storage sa, sb, sc, sd;
    pg_buffer *A, *B, *C, *R; /* inputs and the fp32 reference (at D's strides) */
    pg_buffer *SA, *SB;       /* fp8 scales (scaled cases), else NULL */
    float *hsa, *hsb;         /* their downloaded values: 1 each (per-tensor, or {1} when
                                 unscaled) or [ceil(K/128), M] and [ceil(N/128), ceil(K/128)] */
    int64_t kb;               /* ceil(K/128) */
    void *ha, *hb, *hc;       /* downloaded inputs */
    float *hr;                /* downloaded reference */
    double *exact, *bound;    /* per output element (batch-major, i, j): fp64 value, B_ref */
    double *mag;              /* T = |alpha|·S + |beta·c| */
} gset;

static int64_t out_index(const gset *s, int64_t b, int64_t i, int64_t j)
{
    return b * s->p.d.batch_stride + i * s->p.d.row_stride + j * s->p.d.col_stride;
}

static void make_problem(const gcase *c, gset *s)
{
    memset(s, 0, sizeof *s);
    pg_gemm_problem *p = &s->p;
    p->batch = c->batch;
    p->M = c->M;
    p->N = c->N;
    p->K = c->K;
    s->sa = set_operand(&p->a, c->ta, c->batch, c->M, c->K, c->a_col, c->pad);
    s->sb = set_operand(&p->b, c->tb, c->batch, c->K, c->N, c->b_col, c->pad);
    s->sd = set_operand(&p->d, c->td, c->batch, c->M, c->N, c->d_col, c->pad);
    if (c->has_c)
        s->sc = set_operand(&p->c, c->tc, c->batch, c->M, c->N, c->c_col, c->pad);
    else
        p->c = (pg_gemm_operand){.tensor = -1, .dtype = PG_DTYPE_INVALID};
    p->has_c = c->has_c;
    p->alpha = c->alpha;
    p->beta = c->has_c ? c->beta : 0.0f;
    p->compute = c->tf32 ? PG_GEMM_COMPUTE_TF32 : PG_GEMM_COMPUTE_FP32;
    p->scale = (pg_gemm_scaling){.mode = !c->scaled ? PG_GEMM_SCALE_NONE
                                         : c->block ? PG_GEMM_SCALE_BLOCK
                                                    : PG_GEMM_SCALE_TENSOR,
                                 .a = -1, .b = -1};
    s->kb = pg_gemm_scale_blocks(c->K);
}

static pg_gemm_scales set_scales(const gset *s)
{
    return (pg_gemm_scales){s->SA, s->SB};
}

/* Inputs filled (N(0,1), padding too), the reference computed into a poisoned buffer,
 * everything downloaded, and the CPU's fp64 values and bounds. Returns the count of reference
 * elements that differ from the CPU replay of the fp32 chain, and the worst err/bound and
 * |err| against fp64 (NaN when an element is NaN). */
static void run_reference(gset *s, uint64_t seed, long long *mismatch, double *worst_ratio,
                          double *worst_abs, long long *pad_written)
{
    const pg_gemm_problem *p = &s->p;
    size_t ea = pg_dtype_size(p->a.dtype), eb = pg_dtype_size(p->b.dtype);
    size_t ec = p->has_c ? pg_dtype_size(p->c.dtype) : 0;
    s->A = alloc((size_t)s->sa.elements * ea);
    s->B = alloc((size_t)s->sb.elements * eb);
    s->C = p->has_c ? alloc((size_t)s->sc.elements * ec) : NULL;
    s->R = alloc((size_t)s->sd.elements * 4);
    ok(pg_buffer_fill_normal(s->A, p->a.dtype, (size_t)s->sa.elements, seed + 1, &g_d),
       "fill A");
    ok(pg_buffer_fill_normal(s->B, p->b.dtype, (size_t)s->sb.elements, seed + 2, &g_d),
       "fill B");
    if (p->has_c)
        ok(pg_buffer_fill_normal(s->C, p->c.dtype, (size_t)s->sc.elements, seed + 3, &g_d),
           "fill C");
    ok(pg_buffer_fill_poison(s->R, &g_d), "poison the reference");
    bool block = p->scale.mode == PG_GEMM_SCALE_BLOCK;
    size_t na = block ? (size_t)(s->kb * p->M) : 1;
    size_t nb = block ? (size_t)(pg_gemm_scale_blocks(p->N) * s->kb) : 1;
    s->hsa = xmalloc(na * sizeof(float));
    s->hsb = xmalloc(nb * sizeof(float));
    s->hsa[0] = s->hsb[0] = 1.0f;
    if (p->scale.mode != PG_GEMM_SCALE_NONE) {
        s->SA = alloc(na * 4);
        s->SB = alloc(nb * 4);
        ok(pg_buffer_fill_scale(s->SA, na, seed + 4, &g_d), "fill scale_A");
        ok(pg_buffer_fill_scale(s->SB, nb, seed + 5, &g_d), "fill scale_B");
        ok(pg_buffer_download(s->SA, s->hsa, na * 4, &g_d), "download scale_A");
        ok(pg_buffer_download(s->SB, s->hsb, nb * 4, &g_d), "download scale_B");
    }
    pg_gemm_scales scales = set_scales(s);
    ok(pg_reference_gemm(g_dev, p, s->A, s->B, s->C, s->SA ? &scales : NULL, s->R, &g_d),
       "pg_reference_gemm");
    ok(pg_device_sync(g_dev, 120.0, &g_d), "sync after the reference");
    s->ha = xmalloc((size_t)s->sa.elements * ea);
    s->hb = xmalloc((size_t)s->sb.elements * eb);
    s->hc = p->has_c ? xmalloc((size_t)s->sc.elements * ec) : NULL;
    s->hr = xmalloc((size_t)s->sd.elements * 4);
    ok(pg_buffer_download(s->A, s->ha, (size_t)s->sa.elements * ea, &g_d), "download A");
    ok(pg_buffer_download(s->B, s->hb, (size_t)s->sb.elements * eb, &g_d), "download B");
    if (p->has_c)
        ok(pg_buffer_download(s->C, s->hc, (size_t)s->sc.elements * ec, &g_d), "download C");
    ok(pg_buffer_download(s->R, s->hr, (size_t)s->sd.elements * 4, &g_d), "download ref");

    const double u = 0x1p-24;
    const int64_t K = p->K;
    const double gamma = K * u / (1.0 - K * u);
    size_t outs = (size_t)(p->batch * p->M * p->N);
    s->exact = xmalloc(outs * sizeof(double));
    s->bound = xmalloc(outs * sizeof(double));
    s->mag = xmalloc(outs * sizeof(double));
    *mismatch = 0;
    *worst_ratio = 0;
    *worst_abs = 0;
    float *ak = xmalloc((size_t)K * sizeof(float)), *bk = xmalloc((size_t)K * sizeof(float));
    size_t o = 0;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t i = 0; i < p->M; i++)
            for (int64_t j = 0; j < p->N; j++, o++) {
                for (int64_t k = 0; k < K; k++) {
                    /* fp8: the reference's dequantized value, one fp32 rounding */
                    volatile float av = elem(p->a.dtype, s->ha,
                                             b * p->a.batch_stride + i * p->a.row_stride +
                                                 k * p->a.col_stride) *
                                      (block ? s->hsa[(k / 128) * p->M + i] : s->hsa[0]);
                    volatile float bv = elem(p->b.dtype, s->hb,
                                             b * p->b.batch_stride + k * p->b.row_stride +
                                                 j * p->b.col_stride) *
                                      (block ? s->hsb[(j / 128) * s->kb + k / 128] : s->hsb[0]);
                    ak[k] = av;
                    bk[k] = bv;
                }
                float acc = 0.0f;
                double sum = 0.0, abs_sum = 0.0;
                for (int64_t k = 0; k < K; k++) {
                    acc = fmaf(ak[k], bk[k], acc);
                    double prod = (double)ak[k] * (double)bk[k]; /* exact in fp64 */
                    sum += prod;
                    abs_sum += fabs(prod);
                }
                volatile float scaled = p->alpha * acc; /* one fp32 rounding, no contraction */
                float replay = scaled;
                double cval = 0.0;
                if (p->has_c) {
                    float cv = elem(p->c.dtype, s->hc,
                                    b * p->c.batch_stride + i * p->c.row_stride +
                                        j * p->c.col_stride);
                    replay = fmaf(p->beta, cv, replay);
                    cval = cv;
                }
                double exact = (double)p->alpha * sum + (double)p->beta * cval;
                double mag = fabs((double)p->alpha) * abs_sum + fabs((double)p->beta * cval);
                double bound = (gamma + 3 * u) * mag + 0x1p-40 * abs_sum + 1e-35;
                float got = s->hr[out_index(s, b, i, j)];
                if (!(got == replay))
                    (*mismatch)++;
                double err = fabs((double)got - exact);
                double ratio = err / bound;
                if (!(ratio <= *worst_ratio))
                    *worst_ratio = ratio; /* NaN sticks */
                if (!(err <= *worst_abs))
                    *worst_abs = err;
                s->exact[o] = exact;
                s->bound[o] = bound;
                s->mag[o] = mag;
            }
    free(ak);
    free(bk);
    /* The padding of D's storage (columns beyond the contiguous extent) must stay poisoned. */
    *pad_written = 0;
    const uint32_t *raw = (const uint32_t *)s->hr;
    for (int64_t e = 0; e < s->sd.elements; e++)
        if (e % s->sd.ld >= s->sd.cols && raw[e] != 0xFFFFFFFFu)
            (*pad_written)++;
}

static void free_set(gset *s)
{
    pg_buffer_free(s->A);
    pg_buffer_free(s->B);
    if (s->C)
        pg_buffer_free(s->C);
    pg_buffer_free(s->R);
    if (s->SA)
        pg_buffer_free(s->SA);
    if (s->SB)
        pg_buffer_free(s->SB);
    free(s->hsa);
    free(s->hsb);
    free(s->ha);
    free(s->hb);
    free(s->hc);
    free(s->hr);
    free(s->exact);
    free(s->bound);
    free(s->mag);
}

typedef struct {
    double rel_l2, max_abs, worst_ratio;
    long long nonfinite;
} cmp_result;

/* cublasLtReductionScheme_t values that reduce split-K partials in the output type. */
#define PG_TEST_REDUCTION_INPLACE 1
#define PG_TEST_REDUCTION_OUTPUT_TYPE 4

/* D (downloaded from buffer D, dtype of s->p.d) against the reference, with the cuBLASLt
 * bound of the header for the algorithm ch chose. */
static cmp_result compare_blaslt(const gset *s, pg_buffer *D, const pg_blaslt_choice *ch)
{
    bool tf32 = s->p.compute == PG_GEMM_COMPUTE_TF32;
    double splits = ch->config.splitk > 1 &&
                            (ch->config.reduction == PG_TEST_REDUCTION_INPLACE ||
                             ch->config.reduction == PG_TEST_REDUCTION_OUTPUT_TYPE)
                        ? (double)ch->config.splitk
                        : 0.0;
    const pg_gemm_problem *p = &s->p;
    size_t ed = pg_dtype_size(p->d.dtype);
    void *hd = xmalloc((size_t)s->sd.elements * ed);
    ok(pg_buffer_download(D, hd, (size_t)s->sd.elements * ed, &g_d), "download D");
    /* fp8 tensor cores accumulate with fewer bits than fp32 inside a k block (about 14,
     * DeepSeek-V3 report §3.3.2): a unit roundoff of 2^-13 for their sums. */
    const bool fp8 = pg_dtype_is_fp8(p->a.dtype);
    const double u = 0x1p-24, u2 = fp8 ? 0x1p-13 : 0x1p-23;
    const double n = (double)(p->K + 2);
    const double gamma2 = n * u2 / (1.0 - n * u2);
    const double t_in = tf32 ? 2 * 0x1p-10 + 0x1p-20 : 0.0;
    double u_d = p->d.dtype == PG_DTYPE_FP32 ? u : p->d.dtype == PG_DTYPE_BF16 ? 0x1p-8
                                                                                : 0x1p-11;
    double abs_d = p->d.dtype == PG_DTYPE_FP16 ? 0x1p-24 : 1e-30;
    cmp_result r = {0, 0, 0, 0};
    double num = 0, den = 0;
    size_t o = 0;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t i = 0; i < p->M; i++)
            for (int64_t j = 0; j < p->N; j++, o++) {
                int64_t at = out_index(s, b, i, j);
                double ref = s->hr[at];
                double got = elem(p->d.dtype, hd, at);
                if (!isfinite(got))
                    r.nonfinite++;
                double e_pre = (t_in + gamma2 + 6 * u + splits * u_d) * s->mag[o];
                double bound = e_pre * (1 + u_d) + u_d * (fabs(ref) + s->bound[o]) +
                               s->bound[o] + abs_d;
                double err = fabs(got - ref);
                num += err * err;
                den += ref * ref;
                if (!(err <= r.max_abs))
                    r.max_abs = err;
                double ratio = err / bound;
                if (!(ratio <= r.worst_ratio))
                    r.worst_ratio = ratio;
            }
    r.rel_l2 = den > 0 ? sqrt(num / den) : NAN;
    free(hd);
    return r;
}

/* Bitwise differences between two D buffers of the set (valid elements only). */
static long long count_bitwise(const gset *s, pg_buffer *X, pg_buffer *Y)
{
    size_t ed = pg_dtype_size(s->p.d.dtype), bytes = (size_t)s->sd.elements * ed;
    unsigned char *hx = xmalloc(bytes), *hy = xmalloc(bytes);
    ok(pg_buffer_download(X, hx, bytes, &g_d), "download X");
    ok(pg_buffer_download(Y, hy, bytes, &g_d), "download Y");
    long long differ = 0;
    for (int64_t b = 0; b < s->p.batch; b++)
        for (int64_t i = 0; i < s->p.M; i++)
            for (int64_t j = 0; j < s->p.N; j++) {
                size_t at = (size_t)out_index(s, b, i, j) * ed;
                differ += memcmp(hx + at, hy + at, ed) != 0;
            }
    free(hx);
    free(hy);
    return differ;
}

static const char *storage_text(char *buf, size_t n, const gcase *c)
{
    snprintf(buf, n, "A%s B%s %s%s", c->a_col ? "[K,M]" : "[M,K]", c->b_col ? "[N,K]" : "[K,N]",
             c->has_c ? (c->c_col ? "C[N,M] " : "C[M,N] ") : "", c->d_col ? "D[N,M]" : "D[M,N]");
    return buf;
}

static void row_fail(const char *name, const char *why)
{
    printf("    FAIL %s: %s\n", name, why);
    g_failed = true;
}

/* The rotated-copies path and the pinned algorithm for case c (cuBLASLt prepared on set s0). */
static void check_rotation(const gcase *c, gset *s0, pg_blaslt_gemm *g,
                           const pg_blaslt_choice *choice, pg_buffer *D0)
{
    gset s1;
    make_problem(c, &s1);
    long long mism, padw;
    double ratio, abs_err;
    run_reference(&s1, 9000 + (uint64_t)c->M, &mism, &ratio, &abs_err, &padw);
    size_t ed = pg_dtype_size(s1.p.d.dtype);
    pg_buffer *D1 = alloc((size_t)s1.sd.elements * ed);
    ok(pg_buffer_fill_poison(D1, &g_d), "poison D1");
    pg_gemm_scales sc1 = set_scales(&s1);
    ok(pg_blaslt_gemm_enqueue_on(g, s1.A, s1.B, s1.C, s1.SA ? &sc1 : NULL, D1, &g_d),
       "enqueue_on (rotated copy)");
    ok(pg_device_sync(g_dev, 60.0, &g_d), "sync after enqueue_on");
    cmp_result r = compare_blaslt(&s1, D1, choice);
    printf("    rotated copy (enqueue_on, other A/B/%sD): rel L2 %.3g, max |err| %.3g, "
           "err/bound %.3g\n",
           c->has_c ? "C/" : "", r.rel_l2, r.max_abs, r.worst_ratio);
    if (!(r.worst_ratio <= 1.0) || r.nonfinite)
        row_fail(c->name, "rotated copy outside the bound");
    /* Refusals of enqueue_on: a smaller buffer, and a missing C when the problem reads one. */
    pg_buffer *small = alloc(64);
    pg_status st = pg_blaslt_gemm_enqueue_on(g, small, s1.B, s1.C, NULL, D1, &g_d);
    if (st != PG_ERR_INPUT)
        row_fail(c->name, "enqueue_on with a small A buffer was not refused");
    if (c->has_c &&
        pg_blaslt_gemm_enqueue_on(g, s1.A, s1.B, NULL, NULL, D1, &g_d) != PG_ERR_INPUT)
        row_fail(c->name, "enqueue_on without C was not refused");
    pg_buffer_free(small);

    /* The searched configuration pinned: same problem, same buffers as the search. */
    pg_blaslt_gemm *pinned = NULL;
    pg_blaslt_choice pch;
    pg_buffer *D2 = alloc((size_t)s0->sd.elements * ed);
    ok(pg_buffer_fill_poison(D2, &g_d), "poison D2");
    st = pg_blaslt_gemm_prepare_pinned(g_dev, &s0->p, s0->A, s0->B, s0->C, D2, &choice->config,
                                       choice->workspace_bytes, &pinned, &pch, &g_d);
    if (st != PG_OK) {
        char buf[2048];
        printf("    pinned: %s\n", pg_diag_format(&g_d, buf, sizeof buf));
        row_fail(c->name, "the searched configuration could not be pinned");
    } else {
        pg_gemm_scales sc0 = set_scales(s0);
        if (s0->SA)
            ok(pg_blaslt_gemm_set_scales(pinned, &sc0, &g_d), "pinned set_scales");
        ok(pg_blaslt_gemm_enqueue(pinned, &g_d), "pinned enqueue");
        ok(pg_device_sync(g_dev, 60.0, &g_d), "sync after the pinned enqueue");
        cmp_result rp = compare_blaslt(s0, D2, &pch);
        long long differ = count_bitwise(s0, D0, D2);
        printf("    pinned (%s, reproduces %s): err/bound %.3g, %lld elements differ bitwise "
               "from the searched run\n",
               pch.algorithm, pch.config_reproduces ? "yes" : "no", rp.worst_ratio, differ);
        if (!(rp.worst_ratio <= 1.0) || rp.nonfinite)
            row_fail(c->name, "pinned algorithm outside the bound");
        pg_blaslt_gemm_free(pinned);
    }
    pg_buffer_free(D1);
    pg_buffer_free(D2);
    free_set(&s1);
}

static void run_case(const gcase *c, int index)
{
    gset s;
    make_problem(c, &s);
    long long mism, padw;
    double ratio, abs_err;
    run_reference(&s, 1000 * (uint64_t)index, &mism, &ratio, &abs_err, &padw);
    char lay[64], dims[64], types[48], scale[32];
    storage_text(lay, sizeof lay, c);
    snprintf(dims, sizeof dims, "%lldx%lldx%lldx%lld", (long long)c->batch, (long long)c->M,
             (long long)c->N, (long long)c->K);
    snprintf(types, sizeof types, "%s/%s/%s/%s", pg_dtype_name(c->ta), pg_dtype_name(c->tb),
             c->has_c ? pg_dtype_name(c->tc) : "-", pg_dtype_name(c->td));
    snprintf(scale, sizeof scale, "%g/%g", c->alpha, c->has_c ? c->beta : 0.0);
    bool ref_ok = mism == 0 && ratio <= 1.0 && padw == 0;
    char blas[160] = "";
    bool blas_ok = true;
    pg_blaslt_gemm *g = NULL;
    pg_blaslt_choice choice;
    size_t ed = pg_dtype_size(c->td);
    pg_buffer *D = alloc((size_t)s.sd.elements * ed);
    ok(pg_buffer_fill_poison(D, &g_d), "poison D");
    pg_status st = pg_blaslt_gemm_prepare(g_dev, &s.p, s.A, s.B, s.C, D, 8, &g, &choice, &g_d);
    if (c->blaslt_refuses) {
        blas_ok = st == PG_ERR_INPUT;
        snprintf(blas, sizeof blas, "refused as expected: %s", blas_ok ? "yes" : "NO");
    } else if (st != PG_OK) {
        char buf[2048];
        blas_ok = false;
        snprintf(blas, sizeof blas, "prepare failed (status %d)", (int)st);
        printf("    %s: %s\n", c->name, pg_diag_format(&g_d, buf, sizeof buf));
    } else {
        /* The candidates' timing runs wrote D; one plain run on a freshly poisoned D, with
         * the scales (the search multiplied with scale 1). */
        ok(pg_buffer_fill_poison(D, &g_d), "poison D");
        pg_gemm_scales sc = set_scales(&s);
        if (s.SA)
            ok(pg_blaslt_gemm_set_scales(g, &sc, &g_d), "set_scales");
        ok(pg_blaslt_gemm_enqueue(g, &g_d), "cuBLASLt enqueue");
        ok(pg_device_sync(g_dev, 60.0, &g_d), "sync after cuBLASLt");
        cmp_result r = compare_blaslt(&s, D, &choice);
        blas_ok = r.worst_ratio <= 1.0 && r.nonfinite == 0;
        snprintf(blas, sizeof blas, "%-4s %9.3g %9.3g %9.3g", choice.compute, r.rel_l2,
                 r.max_abs, r.worst_ratio);
        if (choice.plain_nt != c->expect_plain) {
            row_fail(c->name, "plain_nt of the choice is not what the case expects");
        }
        if (c->expect_plain) {
            char want[512];
            snprintf(want, sizeof want,
                     "m=%lld n=%lld k=%lld, column-major: A = our B %s %lldx%lld ld %lld op T; "
                     "B = our A %s %lldx%lld ld %lld op N; C = our D %s %lldx%lld ld %lld; "
                     "D = our D %s %lldx%lld ld %lld",
                     (long long)c->N, (long long)c->M, (long long)c->K, pg_dtype_name(c->tb),
                     (long long)c->K, (long long)c->N, (long long)c->K, pg_dtype_name(c->ta),
                     (long long)c->K, (long long)c->M, (long long)c->K, pg_dtype_name(c->td),
                     (long long)c->N, (long long)c->M, (long long)c->N, pg_dtype_name(c->td),
                     (long long)c->N, (long long)c->M, (long long)c->N);
            if (strcmp(want, choice.layouts) != 0) {
                printf("    layouts: %s\n    expected: %s\n", choice.layouts, want);
                row_fail(c->name, "gemm_nt descriptors are not the historic ones");
            }
        }
    }
    printf("%-16s %-28s %-18s %-19s %-9s %6lld %9.3g %8.3g %s  %s\n", c->name, lay, dims, types,
           scale, mism, abs_err, ratio, blas, ref_ok && blas_ok ? "ok" : "FAIL");
    if (st == PG_OK && !c->blaslt_refuses) {
        printf("    cuBLASLt: %s; %s\n", choice.algorithm, choice.layouts);
        if (c->rotate)
            check_rotation(c, &s, g, &choice, D);
    }
    if (!ref_ok) {
        char why[200];
        snprintf(why, sizeof why,
                 "reference: %lld elements differ from the fp32 replay, err/bound %.3g, %lld "
                 "padding elements written",
                 mism, ratio, padw);
        row_fail(c->name, why);
    }
    if (!blas_ok)
        row_fail(c->name, "cuBLASLt outside its bound or not refused as expected");
    pg_blaslt_gemm_free(g);
    pg_buffer_free(D);
    free_set(&s);
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
    printf("device: %s, cuBLASLt %ld\n", in->name, in->cublaslt_version);

    const pg_dtype F32 = PG_DTYPE_FP32, BF = PG_DTYPE_BF16, FH = PG_DTYPE_FP16;
    enum { MAX_CASES = 64 };
    gcase cases[MAX_CASES];
    int n = 0;
    /* Every layout (A, B each row- or column-major), D row- or column-major (column-major with
     * padded leading dimensions), each input type, alpha/beta with C, batch 3, ragged sizes. */
    static char names[MAX_CASES][24];
    const pg_dtype ins[] = {F32, BF, FH};
    for (int t = 0; t < 3; t++)
        for (int l = 0; l < 4; l++)
            for (int dc = 0; dc < 2; dc++) {
                gcase *c = &cases[n];
                snprintf(names[n], sizeof names[n], "%s_%s%s_%s", pg_dtype_name(ins[t]),
                         l & 2 ? "T" : "N", l & 1 ? "T" : "N", dc ? "dcol" : "drow");
                *c = (gcase){.name = names[n], .batch = 3, .M = 37, .N = 53, .K = 29,
                             .ta = ins[t], .tb = ins[t], .tc = ins[t], .td = ins[t],
                             .a_col = (l & 2) != 0, .b_col = (l & 1) != 0, .c_col = dc != 0,
                             .d_col = dc != 0, .pad = dc ? 3 : 0, .has_c = true,
                             .alpha = 1.5f, .beta = -0.5f};
                n++;
            }
    /* The historic gemm_nt problems: plain descriptors, bitwise the historic reference. */
    cases[n++] = (gcase){.name = "gemm_bf16_nt", .batch = 1, .M = 257, .N = 513, .K = 1000,
                         .ta = BF, .tb = BF, .td = BF, .b_col = true, .alpha = 1.0f,
                         .rotate = true, .expect_plain = true};
    cases[n++] = (gcase){.name = "gemm_fp16_nt", .batch = 1, .M = 257, .N = 513, .K = 1000,
                         .ta = FH, .tb = FH, .td = FH, .b_col = true, .alpha = 1.0f,
                         .expect_plain = true};
    /* The shipped-task shapes of the generalized tasks. */
    cases[n++] = (gcase){.name = "sgemm_nn", .batch = 1, .M = 257, .N = 513, .K = 1000,
                         .ta = F32, .tb = F32, .td = F32, .alpha = 1.0f, .rotate = true};
    cases[n++] = (gcase){.name = "tf32_tn", .batch = 1, .M = 257, .N = 513, .K = 1000,
                         .ta = F32, .tb = F32, .td = F32, .b_col = true, .alpha = 1.0f,
                         .tf32 = true, .rotate = true};
    cases[n++] = (gcase){.name = "tf32_nn_beta", .batch = 3, .M = 37, .N = 53, .K = 29,
                         .ta = F32, .tb = F32, .tc = F32, .td = F32, .has_c = true,
                         .alpha = 1.5f, .beta = -0.5f, .tf32 = true};
    cases[n++] = (gcase){.name = "bf16_nn_beta", .batch = 1, .M = 257, .N = 513, .K = 1000,
                         .ta = BF, .tb = BF, .tc = BF, .td = BF, .has_c = true, .alpha = 1.5f,
                         .beta = -0.5f, .rotate = true};
    cases[n++] = (gcase){.name = "bf16_nt_batched", .batch = 3, .M = 130, .N = 200, .K = 64,
                         .ta = BF, .tb = BF, .tc = BF, .td = BF, .b_col = true, .has_c = true,
                         .alpha = 1.0f, .beta = 1.0f, .rotate = true};
    cases[n++] = (gcase){.name = "bf16_tt_tiles", .batch = 2, .M = 300, .N = 260, .K = 333,
                         .ta = BF, .tb = BF, .tc = BF, .td = BF, .a_col = true, .b_col = true,
                         .pad = 5, .has_c = true, .alpha = 0.75f, .beta = 2.0f};
    /* fp32 outputs of 16-bit inputs; no C; alpha alone. */
    cases[n++] = (gcase){.name = "bf16_to_fp32", .batch = 3, .M = 37, .N = 53, .K = 29,
                         .ta = BF, .tb = BF, .tc = F32, .td = F32, .b_col = true, .has_c = true,
                         .alpha = 1.5f, .beta = -0.5f};
    cases[n++] = (gcase){.name = "fp16_to_fp32", .batch = 1, .M = 37, .N = 53, .K = 29,
                         .ta = FH, .tb = FH, .td = F32, .a_col = true, .alpha = 2.0f};
    cases[n++] = (gcase){.name = "fp32_k1", .batch = 1, .M = 37, .N = 53, .K = 1, .ta = F32,
                         .tb = F32, .td = F32, .alpha = 1.0f};
    /* Reference only: combinations cuBLASLt does not take must be refused as input errors. */
    cases[n++] = (gcase){.name = "fp32_to_bf16", .batch = 1, .M = 37, .N = 53, .K = 29,
                         .ta = F32, .tb = F32, .td = BF, .alpha = 1.0f, .blaslt_refuses = true};
    cases[n++] = (gcase){.name = "mixed_bf16_fp16", .batch = 3, .M = 37, .N = 53, .K = 29,
                         .ta = BF, .tb = FH, .tc = F32, .td = F32, .has_c = true,
                         .alpha = 1.5f, .beta = -0.5f, .blaslt_refuses = true};
    cases[n++] = (gcase){.name = "c_unlike_d", .batch = 3, .M = 37, .N = 53, .K = 29,
                         .ta = FH, .tb = FH, .tc = FH, .td = FH, .c_col = true, .has_c = true,
                         .alpha = 1.5f, .beta = -0.5f, .blaslt_refuses = true};
    cases[n++] = (gcase){.name = "tf32_bf16", .batch = 1, .M = 37, .N = 53, .K = 29, .ta = BF,
                         .tb = BF, .td = BF, .alpha = 1.0f, .tf32 = true,
                         .blaslt_refuses = true};
    /* fp8 (K contiguous in A and B: TN), per-tensor scales, the shapes of gemm_e4m3_tn's ragged
     * workload, a mixed e4m3 x e5m2 with C, and no scales; then what cuBLASLt refuses. */
    const pg_dtype E4 = PG_DTYPE_E4M3, E5 = PG_DTYPE_E5M2;
    cases[n++] = (gcase){.name = "e4m3_tn_bf16", .batch = 1, .M = 257, .N = 520, .K = 1024,
                         .ta = E4, .tb = E4, .td = BF, .b_col = true, .alpha = 1.0f,
                         .scaled = true, .rotate = true};
    cases[n++] = (gcase){.name = "e4m3_e5m2_beta", .batch = 2, .M = 64, .N = 48, .K = 96,
                         .ta = E4, .tb = E5, .tc = F32, .td = F32, .b_col = true,
                         .has_c = true, .alpha = 1.5f, .beta = -0.5f, .scaled = true,
                         .rotate = true};
    cases[n++] = (gcase){.name = "e4m3_unscaled", .batch = 1, .M = 40, .N = 64, .K = 64,
                         .ta = E4, .tb = E4, .td = FH, .b_col = true, .alpha = 1.0f};
    /* block scales (DeepSeek-V3: 1 x 128 for A, 128 x 128 for B): a ragged N block (520) */
    cases[n++] = (gcase){.name = "e4m3_block", .batch = 1, .M = 260, .N = 520, .K = 1536,
                         .ta = E4, .tb = E4, .td = BF, .b_col = true, .alpha = 1.0f,
                         .scaled = true, .block = true, .rotate = true};
    cases[n++] = (gcase){.name = "e5m2_e5m2", .batch = 1, .M = 40, .N = 64, .K = 64, .ta = E5,
                         .tb = E5, .td = BF, .b_col = true, .alpha = 1.0f, .scaled = true,
                         .blaslt_refuses = true};
    cases[n++] = (gcase){.name = "e4m3_nn", .batch = 1, .M = 40, .N = 64, .K = 64, .ta = E4,
                         .tb = E4, .td = BF, .alpha = 1.0f, .scaled = true,
                         .blaslt_refuses = true};
    cases[n++] = (gcase){.name = "e4m3_to_e4m3", .batch = 1, .M = 40, .N = 64, .K = 64,
                         .ta = E4, .tb = E4, .td = E4, .b_col = true, .alpha = 1.0f,
                         .scaled = true, .blaslt_refuses = true};

    printf("\nreference: bitwise = elements unlike the CPU replay of the fp32 chain; |err| and "
           "err/bound against fp64 (bound in the source)\n"
           "cuBLASLt: compute, relative L2, max |err| and err/bound against the reference\n\n");
    printf("%-16s %-28s %-18s %-19s %-9s %6s %9s %8s %-4s %9s %9s %9s  %s\n", "case", "storage",
           "batch x M x N x K", "A/B/C/D", "alpha/beta", "bitwise", "ref|err|", "ref/bnd",
           "comp", "rel L2", "max|err|", "err/bnd", "result");
    for (int i = 0; i < n; i++)
        run_case(&cases[i], i);
    bool broken = pg_device_is_broken(g_dev);
    pg_device_close(g_dev);
    if (broken) {
        printf("FAIL: the device is broken after the cases\n");
        return 1;
    }
    printf("\n%s: %d cases\n", g_failed ? "FAIL" : "PASS", n);
    return g_failed ? 1 : 0;
}
