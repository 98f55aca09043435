/* ptxgate's attention reference (device.h "Attention reference"): heads in chunks whose fp32
 * score matrices fit a fixed budget; per chunk batched fp32 GEMMs and row passes of
 * kernels/attention.cuh. */
#include "device_internal.h"

#include <math.h>
#include <stdio.h>

/* Bytes of fp32 score matrices one chunk may hold (all its heads, all its score buffers). At
 * S = 4096 a head's scores take 64 MiB: 16 heads per chunk forward, 8 backward. */
#define PG_REF_MHA_SCORE_BYTES (1ull << 30)
/* Threads per CTA of the row passes (must match attention.cuh). */
#define PG_REF_ROW_THREADS 256
#define PG_REF_BG_TILE 128
#define PG_REF_BG_THREADS 256

float pg_mha_scale(int64_t D)
{
    return D > 0 ? (float)(1.0 / sqrt((double)D)) : 0.0f;
}

/* One batched GEMM launch (attention.cuh pg_bgemm): batches n, C[b][m][n] = alpha · Σ_k
 * A(b,m,k)·B(b,n,k) with the given element strides; a, b, c are device addresses. */
typedef struct {
    int which;
    uint64_t a, b, c;
    int64_t M, N, K;
    int64_t sAb, sAm, sAk, sBb, sBn, sBk, sCb, sCm;
    float alpha;
    int64_t batches;
} bgemm;

static pg_status run_bgemm(pg_device *dev, const bgemm *g, pg_diag *d)
{
    unsigned long long pa = g->a, pb = g->b, pc = g->c;
    long long M = g->M, N = g->N, K = g->K, sAb = g->sAb, sAm = g->sAm, sAk = g->sAk,
              sBb = g->sBb, sBn = g->sBn, sBk = g->sBk, sCb = g->sCb, sCm = g->sCm;
    float alpha = g->alpha;
    void *args[] = {&pa, &pb, &pc, &M, &N, &K, &sAb, &sAm, &sAk, &sBb, &sBn, &sBk, &sCb, &sCm,
                    &alpha};
    unsigned gx = (unsigned)((N + PG_REF_BG_TILE - 1) / PG_REF_BG_TILE);
    unsigned gy = (unsigned)((M + PG_REF_BG_TILE - 1) / PG_REF_BG_TILE);
    return pg_ref_launch(dev, g->which, gx, gy, (unsigned)g->batches, PG_REF_BG_THREADS, args, d);
}

/* Shared checks of both passes: dtype, sizes and the buffers' sizes and device. need[i] is the
 * byte count buffer i must hold. */
static pg_status check_args(pg_device *dev, pg_dtype dtype, const pg_mha_shape *s,
                            const pg_buffer *const *bufs, const char *const *names,
                            const size_t *need, int n, const char *what, pg_diag *d)
{
    if (dtype != PG_DTYPE_BF16 && dtype != PG_DTYPE_FP16)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "attention reference %s takes bf16 or fp16 tensors, not %s", what,
                           pg_dtype_name(dtype));
    /* Bounds keep every index below 2^62 and every grid dimension in range. */
    const int64_t lim = (int64_t)1 << 30;
    if (s->B < 1 || s->H < 1 || s->S < 1 || s->D < 1 || s->B > lim || s->H > lim ||
        s->S > 8 * 1024 * 1024 || s->D > 65536 || s->B * s->H > lim ||
        s->B * s->H * s->S > ((int64_t)1 << 31) - 1)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "attention reference %s: B=%lld H=%lld S=%lld D=%lld out of range "
                           "(each >= 1, S <= 2^23, D <= 65536, B*H*S < 2^31)",
                           what, (long long)s->B, (long long)s->H, (long long)s->S,
                           (long long)s->D);
    for (int i = 0; i < n; i++) {
        if (pg_buffer_device(bufs[i]) != dev)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "attention reference %s: buffer %s belongs to another device", what,
                               names[i]);
        if (pg_buffer_bytes(bufs[i]) < need[i])
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "attention reference %s: buffer %s holds %zu bytes, needs %zu",
                               what, names[i], pg_buffer_bytes(bufs[i]), need[i]);
    }
    return PG_OK;
}

/* Heads per chunk for `buffers` fp32 S x S score matrices per head. */
static int64_t chunk_heads(const pg_mha_shape *s, int buffers)
{
    uint64_t per_head = (uint64_t)s->S * (uint64_t)s->S * 4u * (uint64_t)buffers;
    uint64_t hc = PG_REF_MHA_SCORE_BYTES / per_head;
    if (hc < 1)
        hc = 1;
    if (hc > (uint64_t)(s->B * s->H))
        hc = (uint64_t)(s->B * s->H);
    if (hc > 65535) /* grid z */
        hc = 65535;
    /* rows of a chunk are CTAs of the forward row pass (grid x) */
    while (hc > 1 && hc * (uint64_t)s->S > 0x7fffffffu)
        hc--;
    return (int64_t)hc;
}

/* Wait for the work enqueued so far (so scratch can be freed), keeping the first error. */
static pg_status finish(pg_device *dev, pg_status st, double timeout_s, pg_diag *d)
{
    pg_diag wd;
    pg_diag_clear(&wd);
    pg_status ws = pg_device_sync(dev, timeout_s, &wd);
    if (st == PG_OK && ws != PG_OK) {
        if (d)
            *d = wd;
        return ws;
    }
    return st;
}

pg_status pg_reference_mha_fwd(pg_device *dev, pg_dtype dtype, const pg_mha_shape *s,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               pg_buffer *O, pg_buffer *LSE, double timeout_s, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    size_t esz = pg_dtype_size(dtype);
    size_t elems = (size_t)(s->B * s->H * s->S) * (size_t)s->D, rows = (size_t)(s->B * s->H * s->S);
    const pg_buffer *bufs[] = {Q, K, V, O, LSE};
    const char *names[] = {"Q", "K", "V", "O", "LSE"};
    size_t need[] = {elems * esz, elems * esz, elems * esz, elems * 4, rows * 4};
    st = check_args(dev, dtype, s, bufs, names, need, 5, "forward", d);
    if (st != PG_OK)
        return st;
    const int64_t S = s->S, D = s->D, BH = s->B * s->H, hc = chunk_heads(s, 1);
    pg_buffer *scores = NULL;
    st = pg_buffer_alloc(dev, (size_t)hc * (size_t)S * (size_t)S * 4, &scores, d);
    if (st != PG_OK)
        return st;
    bool bf = dtype == PG_DTYPE_BF16;
    uint64_t sc = pg_buffer_address(scores);
    for (int64_t h0 = 0; h0 < BH && st == PG_OK; h0 += hc) {
        int64_t n = BH - h0 < hc ? BH - h0 : hc;
        uint64_t head = (uint64_t)h0 * (uint64_t)(S * D);
        /* scores = scale · Q · Kᵀ */
        bgemm g1 = {bf ? PG_REF_BGEMM_BF16_KK : PG_REF_BGEMM_FP16_KK,
                    pg_buffer_address(Q) + head * esz, pg_buffer_address(K) + head * esz, sc,
                    S, S, D, S * D, D, 1, S * D, D, 1, S * S, S, pg_mha_scale(D), n};
        st = run_bgemm(dev, &g1, d);
        /* row pass: LSE, P */
        if (st == PG_OK) {
            unsigned long long pS = sc, pL = pg_buffer_address(LSE) + (uint64_t)h0 * S * 4;
            long long SS = S;
            int causal = s->causal;
            void *args[] = {&pS, &pL, &SS, &causal};
            st = pg_ref_launch(dev, PG_REF_MHA_SOFTMAX_FWD, (unsigned)(n * S), 1, 1,
                               PG_REF_ROW_THREADS, args, d);
        }
        /* O = P · V */
        bgemm g2 = {bf ? PG_REF_BGEMM_F32_BF16_KN : PG_REF_BGEMM_F32_FP16_KN, sc,
                    pg_buffer_address(V) + head * esz, pg_buffer_address(O) + head * 4,
                    S, D, S, S * S, S, 1, S * D, 1, D, S * D, D, 1.0f, n};
        if (st == PG_OK)
            st = run_bgemm(dev, &g2, d);
    }
    st = finish(dev, st, timeout_s, d);
    pg_buffer_free(scores);
    return st;
}

/* Δ = rowsum(dO ⊙ O) over all B·H·S rows, into delta (fp32). */
static pg_status rowdot(pg_device *dev, bool bf, const pg_buffer *dO, const pg_buffer *O,
                        pg_buffer *delta, int64_t rows, int64_t D, pg_diag *d)
{
    unsigned long long a = pg_buffer_address(dO), b = pg_buffer_address(O),
                       c = pg_buffer_address(delta);
    long long r = rows, dd = D;
    void *args[] = {&a, &b, &c, &r, &dd};
    return pg_ref_launch(dev, bf ? PG_REF_MHA_ROWDOT_BF16 : PG_REF_MHA_ROWDOT_FP16,
                         (unsigned)((rows + 7) / 8), 1, 1, 256, args, d);
}

pg_status pg_reference_mha_bwd(pg_device *dev, pg_dtype dtype, const pg_mha_shape *s,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               const pg_buffer *O, const pg_buffer *dO, const pg_buffer *LSE,
                               pg_buffer *dQ, pg_buffer *dK, pg_buffer *dV, double timeout_s,
                               pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    size_t esz = pg_dtype_size(dtype);
    size_t elems = (size_t)(s->B * s->H * s->S) * (size_t)s->D, rows = (size_t)(s->B * s->H * s->S);
    const pg_buffer *bufs[] = {Q, K, V, O, dO, LSE, dQ, dK, dV};
    const char *names[] = {"Q", "K", "V", "O", "dO", "LSE", "dQ", "dK", "dV"};
    size_t need[] = {elems * esz, elems * esz, elems * esz, elems * esz, elems * esz,
                     rows * 4,    elems * 4,   elems * 4,   elems * 4};
    st = check_args(dev, dtype, s, bufs, names, need, 9, "backward", d);
    if (st != PG_OK)
        return st;
    const int64_t S = s->S, D = s->D, BH = s->B * s->H, hc = chunk_heads(s, 2);
    const float scale = pg_mha_scale(D);
    pg_buffer *sbuf = NULL, *dpbuf = NULL, *delta = NULL;
    size_t chunk_bytes = (size_t)hc * (size_t)S * (size_t)S * 4;
    st = pg_buffer_alloc(dev, chunk_bytes, &sbuf, d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, chunk_bytes, &dpbuf, d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, rows * 4, &delta, d);
    bool bf = dtype == PG_DTYPE_BF16;
    if (st == PG_OK)
        st = rowdot(dev, bf, dO, O, delta, (int64_t)rows, D, d);
    uint64_t ps = sbuf ? pg_buffer_address(sbuf) : 0, pdp = dpbuf ? pg_buffer_address(dpbuf) : 0;
    int kk = bf ? PG_REF_BGEMM_BF16_KK : PG_REF_BGEMM_FP16_KK;
    int kn = bf ? PG_REF_BGEMM_F32_BF16_KN : PG_REF_BGEMM_F32_FP16_KN;
    int mn = bf ? PG_REF_BGEMM_F32_BF16_MN : PG_REF_BGEMM_F32_FP16_MN;
    for (int64_t h0 = 0; h0 < BH && st == PG_OK; h0 += hc) {
        int64_t n = BH - h0 < hc ? BH - h0 : hc;
        uint64_t head = (uint64_t)h0 * (uint64_t)(S * D);
        uint64_t q = pg_buffer_address(Q) + head * esz, k = pg_buffer_address(K) + head * esz,
                 v = pg_buffer_address(V) + head * esz, dout = pg_buffer_address(dO) + head * esz;
        /* S = scale · Q·Kᵀ and dP = dO·Vᵀ ([query i][key j]) */
        bgemm gs = {kk, q, k, ps, S, S, D, S * D, D, 1, S * D, D, 1, S * S, S, scale, n};
        bgemm gp = {kk, dout, v, pdp, S, S, D, S * D, D, 1, S * D, D, 1, S * S, S, 1.0f, n};
        st = run_bgemm(dev, &gs, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gp, d);
        /* P = exp(S − LSE), dS = P ⊙ (dP − Δ) · scale, in place */
        if (st == PG_OK) {
            unsigned long long a = ps, b = pdp,
                               l = pg_buffer_address(LSE) + (uint64_t)h0 * (uint64_t)S * 4,
                               dl = pg_buffer_address(delta) + (uint64_t)h0 * (uint64_t)S * 4;
            long long r = n * S, SS = S;
            int causal = s->causal;
            float sc = scale;
            void *args[] = {&a, &b, &l, &dl, &r, &SS, &causal, &sc};
            unsigned long long elems = (unsigned long long)(n * S) * (unsigned long long)S;
            unsigned long long blocks = (elems + 255) / 256;
            unsigned long long cap = (unsigned long long)dev->info.sm_count * 32;
            st = pg_ref_launch(dev, PG_REF_MHA_SOFTMAX_BWD, (unsigned)(blocks < cap ? blocks : cap),
                               1, 1, 256, args, d);
        }
        /* dV = Pᵀ·dO, dQ = dS·K, dK = dSᵀ·Q ([key or query][d]) */
        bgemm gv = {mn, ps, dout, pg_buffer_address(dV) + head * 4, S, D, S, S * S, 1, S, S * D,
                    1, D, S * D, D, 1.0f, n};
        bgemm gq = {kn, pdp, k, pg_buffer_address(dQ) + head * 4, S, D, S, S * S, S, 1, S * D,
                    1, D, S * D, D, 1.0f, n};
        bgemm gk = {mn, pdp, q, pg_buffer_address(dK) + head * 4, S, D, S, S * S, 1, S, S * D,
                    1, D, S * D, D, 1.0f, n};
        if (st == PG_OK)
            st = run_bgemm(dev, &gv, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gq, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gk, d);
    }
    if (sbuf || dpbuf || delta)
        st = finish(dev, st, timeout_s, d);
    pg_buffer_free(sbuf);
    pg_buffer_free(dpbuf);
    pg_buffer_free(delta);
    return st;
}

pg_status pg_buffer_convert(pg_buffer *dst, pg_dtype dtype, const pg_buffer *src, size_t count,
                            pg_diag *d)
{
    pg_device *dev = pg_buffer_device(dst);
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (pg_buffer_device(src) != dev)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "conversion: the buffers belong to different devices");
    int which;
    if (dtype == PG_DTYPE_BF16)
        which = PG_REF_CONVERT_F32_BF16;
    else if (dtype == PG_DTYPE_FP16)
        which = PG_REF_CONVERT_F32_FP16;
    else
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "conversion from fp32 to %s is not available (bf16, fp16)",
                           pg_dtype_name(dtype));
    if (count > pg_buffer_bytes(src) / 4 || count > pg_buffer_bytes(dst) / pg_dtype_size(dtype))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "conversion of %zu elements: buffers hold %zu (fp32) and %zu (%s) bytes",
                           count, pg_buffer_bytes(src), pg_buffer_bytes(dst), pg_dtype_name(dtype));
    if (count == 0)
        return PG_OK;
    unsigned long long in = pg_buffer_address(src), out = pg_buffer_address(dst), n = count;
    void *args[] = {&in, &out, &n};
    unsigned long long blocks = (count + 255) / 256;
    unsigned long long cap = (unsigned long long)dev->info.sm_count * 16;
    return pg_ref_launch(dev, which, (unsigned)(blocks < cap ? blocks : cap), 1, 1, 256, args, d);
}
