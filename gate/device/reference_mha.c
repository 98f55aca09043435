/* ptxgate's attention reference (device.h "Attention reference"): heads in chunks whose fp32
 * score matrices fit a fixed budget; per chunk batched fp32 GEMMs and row passes of
 * kernels/attention.cuh. Every tensor is read and written at its own strides (BHSD or BSHD) and
 * KV heads through the GQA group, so no layout is ever copied. */
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

/* One operand of a batched GEMM launch: device address, head offset (s_b, s_h, group; group 0:
 * chunk-local, z·s_b) and the strides of its two indices (attention.cuh pg_bgemm). */
typedef struct {
    uint64_t ptr;
    int64_t s_b, s_h, group, s_row, s_k;
} bg_operand;

/* One batched GEMM launch over the chunk's heads head0 .. head0 + n − 1: C_z = alpha · A_z·B_zᵀ
 * with A_z [M][K], B_z [N][K] (as strided views) and C_z [M][N]. */
typedef struct {
    int which;
    bg_operand a, b, c; /* c.s_k unused (n contiguous) */
    int64_t M, N, K;
    float alpha;
    int64_t head0, n, H;
} bgemm;

static pg_status run_bgemm(pg_device *dev, const bgemm *g, pg_diag *d)
{
    unsigned long long pa = g->a.ptr, pb = g->b.ptr, pc = g->c.ptr;
    long long M = g->M, N = g->N, K = g->K, sAb = g->a.s_b, sAh = g->a.s_h, gA = g->a.group,
              sAm = g->a.s_row, sAk = g->a.s_k, sBb = g->b.s_b, sBh = g->b.s_h, gB = g->b.group,
              sBn = g->b.s_row, sBk = g->b.s_k, sCb = g->c.s_b, sCh = g->c.s_h, gC = g->c.group,
              sCm = g->c.s_row, head0 = g->head0, H = g->H;
    float alpha = g->alpha;
    void *args[] = {&pa,  &pb,  &pc,  &M,   &N,   &K,   &sAb, &sAh, &gA,    &sAm,   &sAk, &sBb,
                    &sBh, &gB,  &sBn, &sBk, &sCb, &sCh, &gC,  &sCm, &alpha, &head0, &H};
    unsigned gx = (unsigned)((N + PG_REF_BG_TILE - 1) / PG_REF_BG_TILE);
    unsigned gy = (unsigned)((M + PG_REF_BG_TILE - 1) / PG_REF_BG_TILE);
    return pg_ref_launch(dev, g->which, gx, gy, (unsigned)g->n, PG_REF_BG_THREADS, args, d);
}

/* A tensor of the problem as a GEMM operand: its heads through group (1: query heads, H/H_kv:
 * KV heads), rows along the positions (s_row = x.s, s_k = 1) or, transposed, along d. */
static bg_operand tensor_rows(const pg_buffer *b, pg_mha_strides x, int64_t group)
{
    return (bg_operand){pg_buffer_address(b), x.b, x.h, group, x.s, 1};
}
static bg_operand tensor_cols(const pg_buffer *b, pg_mha_strides x, int64_t group)
{
    return (bg_operand){pg_buffer_address(b), x.b, x.h, group, 1, x.s};
}
/* A chunk-local [n][rows][cols] fp32 buffer, by rows or transposed. */
static bg_operand chunk_rows(uint64_t ptr, int64_t rows, int64_t cols)
{
    return (bg_operand){ptr, rows * cols, 0, 0, cols, 1};
}
static bg_operand chunk_cols(uint64_t ptr, int64_t rows, int64_t cols)
{
    return (bg_operand){ptr, rows * cols, 0, 0, 1, cols};
}

/* Shared checks of both passes: dtype, sizes and the buffers' sizes and device. need[i] is the
 * byte count buffer i must hold (buffers may be NULL where need is 0). */
static pg_status check_args(pg_device *dev, pg_dtype dtype, const pg_mha_problem *p,
                            const pg_buffer *const *bufs, const char *const *names,
                            const uint64_t *need, int n, const char *what, pg_diag *d)
{
    if (dtype != PG_DTYPE_BF16 && dtype != PG_DTYPE_FP16)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "attention reference %s takes bf16 or fp16 tensors, not %s", what,
                           pg_dtype_name(dtype));
    /* Bounds keep every index below 2^62 and every grid dimension in range. */
    const int64_t lim = (int64_t)1 << 30;
    int64_t S = p->S_q > p->S_kv ? p->S_q : p->S_kv, D = p->D > p->D_v ? p->D : p->D_v;
    if (p->B < 1 || p->H < 1 || p->H_kv < 1 || p->H % p->H_kv != 0 || p->S_q < 1 ||
        p->S_kv < 1 || p->D < 1 || p->D_v < 1 || p->B > lim || p->H > lim ||
        S > 8 * 1024 * 1024 || D > 65536 || p->B * p->H > lim ||
        p->B * p->H * S > ((int64_t)1 << 31) - 1)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "attention reference %s: B=%lld H=%lld H_kv=%lld S_q=%lld S_kv=%lld "
                           "D=%lld D_v=%lld out of range (each >= 1, H a multiple of H_kv, "
                           "S <= 2^23, D <= 65536, B*H*S < 2^31)",
                           what, (long long)p->B, (long long)p->H, (long long)p->H_kv,
                           (long long)p->S_q, (long long)p->S_kv, (long long)p->D,
                           (long long)p->D_v);
    for (int i = 0; i < n; i++) {
        if (need[i] == 0)
            continue;
        if (!bufs[i] || pg_buffer_device(bufs[i]) != dev)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "attention reference %s: buffer %s is missing or belongs to "
                               "another device", what, names[i]);
        if (pg_buffer_bytes(bufs[i]) < need[i])
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "attention reference %s: buffer %s holds %zu bytes, needs %llu",
                               what, names[i], pg_buffer_bytes(bufs[i]),
                               (unsigned long long)need[i]);
    }
    return PG_OK;
}

/* Heads per chunk for `buffers` fp32 S_q x S_kv score matrices per head. */
static int64_t chunk_heads(const pg_mha_problem *p, int buffers)
{
    uint64_t per_head = (uint64_t)p->S_q * (uint64_t)p->S_kv * 4u * (uint64_t)buffers;
    uint64_t hc = PG_REF_MHA_SCORE_BYTES / per_head;
    if (hc < 1)
        hc = 1;
    if (hc > (uint64_t)(p->B * p->H))
        hc = (uint64_t)(p->B * p->H);
    if (hc > 65535) /* grid z */
        hc = 65535;
    /* rows of a chunk are CTAs of the forward row pass (grid x) */
    while (hc > 1 && hc * (uint64_t)p->S_q > 0x7fffffffu)
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

/* Grid-stride launches: blocks for `elems` elements of 256 threads, at most 32 per SM. */
static unsigned stride_blocks(const pg_device *dev, uint64_t elems)
{
    uint64_t blocks = (elems + 255) / 256, cap = (uint64_t)dev->info.sm_count * 32;
    return (unsigned)(blocks < cap ? blocks : cap);
}

pg_status pg_reference_mha_fwd(pg_device *dev, pg_dtype dtype, const pg_mha_problem *p,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               pg_buffer *O, pg_buffer *LSE, double timeout_s, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    size_t esz = pg_dtype_size(dtype);
    uint64_t rows = (uint64_t)(p->B * p->H * p->S_q);
    const pg_buffer *bufs[] = {Q, K, V, O, LSE};
    const char *names[] = {"Q", "K", "V", "O", "LSE"};
    uint64_t need[] = {pg_mha_tensor_bytes(p, p->H, p->S_q, p->D, esz),
                       pg_mha_tensor_bytes(p, p->H_kv, p->S_kv, p->D, esz),
                       pg_mha_tensor_bytes(p, p->H_kv, p->S_kv, p->D_v, esz),
                       pg_mha_tensor_bytes(p, p->H, p->S_q, p->D_v, 4), LSE ? rows * 4 : 0};
    st = check_args(dev, dtype, p, bufs, names, need, 5, "forward", d);
    if (st != PG_OK)
        return st;
    const int64_t Sq = p->S_q, Skv = p->S_kv, BH = p->B * p->H, G = p->H / p->H_kv,
                  hc = chunk_heads(p, 1);
    pg_buffer *scores = NULL, *own_lse = NULL;
    st = pg_buffer_alloc(dev, (size_t)hc * (size_t)Sq * (size_t)Skv * 4, &scores, d);
    if (st == PG_OK && !LSE)
        st = pg_buffer_alloc(dev, rows * 4, &own_lse, d);
    if (st != PG_OK) {
        pg_buffer_free(scores);
        return st;
    }
    pg_buffer *lse = LSE ? LSE : own_lse;
    bool bf = dtype == PG_DTYPE_BF16;
    uint64_t sc = pg_buffer_address(scores);
    for (int64_t h0 = 0; h0 < BH && st == PG_OK; h0 += hc) {
        int64_t n = BH - h0 < hc ? BH - h0 : hc;
        /* scores = scale · Q · Kᵀ */
        bgemm g1 = {bf ? PG_REF_BGEMM_BF16_KK : PG_REF_BGEMM_FP16_KK, tensor_rows(Q, p->q, 1),
                    tensor_rows(K, p->k, G), chunk_rows(sc, Sq, Skv), Sq, Skv, p->D,
                    p->scale, h0, n, p->H};
        st = run_bgemm(dev, &g1, d);
        /* row pass: LSE, P */
        if (st == PG_OK) {
            unsigned long long pS = sc, pL = pg_buffer_address(lse) + (uint64_t)h0 * Sq * 4;
            long long sq = Sq, skv = Skv;
            int causal = p->causal;
            float f = (float)pg_mha_lse_factor(p);
            void *args[] = {&pS, &pL, &sq, &skv, &causal, &f};
            st = pg_ref_launch(dev, PG_REF_MHA_SOFTMAX_FWD, (unsigned)(n * Sq), 1, 1,
                               PG_REF_ROW_THREADS, args, d);
        }
        /* O = P · V */
        bgemm g2 = {bf ? PG_REF_BGEMM_F32_BF16_KN : PG_REF_BGEMM_F32_FP16_KN,
                    chunk_rows(sc, Sq, Skv), tensor_cols(V, p->v, G),
                    tensor_rows(O, p->o, 1), Sq, p->D_v, Skv, 1.0f, h0, n, p->H};
        if (st == PG_OK)
            st = run_bgemm(dev, &g2, d);
    }
    st = finish(dev, st, timeout_s, d);
    pg_buffer_free(scores);
    pg_buffer_free(own_lse);
    return st;
}

/* Δ = rowsum(dO ⊙ O) over all B·H·S_q rows, into delta (fp32 [B,H,S_q]). */
static pg_status rowdot(pg_device *dev, bool bf, const pg_mha_problem *p, const pg_buffer *dO,
                        const pg_buffer *O, pg_buffer *delta, pg_diag *d)
{
    unsigned long long a = pg_buffer_address(dO), b = pg_buffer_address(O),
                       c = pg_buffer_address(delta);
    long long rows = p->B * p->H * p->S_q, D = p->D_v, H = p->H, Sq = p->S_q, dob = p->d_o.b,
              doh = p->d_o.h, dos = p->d_o.s, ob = p->o.b, oh = p->o.h, os = p->o.s;
    void *args[] = {&a, &b, &c, &rows, &D, &H, &Sq, &dob, &doh, &dos, &ob, &oh, &os};
    return pg_ref_launch(dev, bf ? PG_REF_MHA_ROWDOT_BF16 : PG_REF_MHA_ROWDOT_FP16,
                         (unsigned)((rows + 7) / 8), 1, 1, 256, args, d);
}

/* GQA: out (KV-head gradient, fp32 at strides x) += the chunk's per-head part [n][S][Dx]. */
static pg_status group_sum(pg_device *dev, const pg_mha_problem *p, uint64_t part, pg_buffer *out,
                           pg_mha_strides x, int64_t Dx, int64_t h0, int64_t n, pg_diag *d)
{
    unsigned long long src = part, dst = pg_buffer_address(out);
    long long nn = n, head0 = h0, H = p->H, group = p->H / p->H_kv, S = p->S_kv, D = Dx,
              ob = x.b, oh = x.h, os = x.s;
    void *args[] = {&src, &dst, &nn, &head0, &H, &group, &S, &D, &ob, &oh, &os};
    return pg_ref_launch(dev, PG_REF_MHA_GROUP_SUM,
                         stride_blocks(dev, (uint64_t)n * (uint64_t)S * (uint64_t)D), 1, 1, 256,
                         args, d);
}

pg_status pg_reference_mha_bwd(pg_device *dev, pg_dtype dtype, const pg_mha_problem *p,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               const pg_buffer *O, const pg_buffer *dO, const pg_buffer *LSE,
                               pg_buffer *dQ, pg_buffer *dK, pg_buffer *dV, double timeout_s,
                               pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    size_t esz = pg_dtype_size(dtype);
    uint64_t rows = (uint64_t)(p->B * p->H * p->S_q);
    uint64_t q_el = pg_mha_tensor_bytes(p, p->H, p->S_q, p->D, 1),
             k_el = pg_mha_tensor_bytes(p, p->H_kv, p->S_kv, p->D, 1),
             v_el = pg_mha_tensor_bytes(p, p->H_kv, p->S_kv, p->D_v, 1),
             o_el = pg_mha_tensor_bytes(p, p->H, p->S_q, p->D_v, 1);
    const pg_buffer *bufs[] = {Q, K, V, O, dO, LSE, dQ, dK, dV};
    const char *names[] = {"Q", "K", "V", "O", "dO", "LSE", "dQ", "dK", "dV"};
    uint64_t need[] = {q_el * esz, k_el * esz, v_el * esz, o_el * esz, o_el * esz,
                       rows * 4,   q_el * 4,   k_el * 4,   v_el * 4};
    st = check_args(dev, dtype, p, bufs, names, need, 9, "backward", d);
    if (st != PG_OK)
        return st;
    const int64_t Sq = p->S_q, Skv = p->S_kv, BH = p->B * p->H, G = p->H / p->H_kv,
                  hc = chunk_heads(p, 2);
    pg_buffer *sbuf = NULL, *dpbuf = NULL, *delta = NULL, *dk_part = NULL, *dv_part = NULL;
    size_t chunk_bytes = (size_t)hc * (size_t)Sq * (size_t)Skv * 4;
    st = pg_buffer_alloc(dev, chunk_bytes, &sbuf, d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, chunk_bytes, &dpbuf, d);
    if (st == PG_OK)
        st = pg_buffer_alloc(dev, rows * 4, &delta, d);
    /* GQA: per-query-head dK and dV of a chunk, summed into the KV heads after it */
    if (st == PG_OK && G > 1)
        st = pg_buffer_alloc(dev, (size_t)hc * (size_t)Skv * (size_t)p->D * 4, &dk_part, d);
    if (st == PG_OK && G > 1)
        st = pg_buffer_alloc(dev, (size_t)hc * (size_t)Skv * (size_t)p->D_v * 4, &dv_part, d);
    if (st == PG_OK && G > 1)
        st = pg_buffer_zero(dK, d);
    if (st == PG_OK && G > 1)
        st = pg_buffer_zero(dV, d);
    bool bf = dtype == PG_DTYPE_BF16;
    if (st == PG_OK)
        st = rowdot(dev, bf, p, dO, O, delta, d);
    uint64_t ps = sbuf ? pg_buffer_address(sbuf) : 0, pdp = dpbuf ? pg_buffer_address(dpbuf) : 0;
    int kk = bf ? PG_REF_BGEMM_BF16_KK : PG_REF_BGEMM_FP16_KK;
    int kn = bf ? PG_REF_BGEMM_F32_BF16_KN : PG_REF_BGEMM_F32_FP16_KN;
    int mn = bf ? PG_REF_BGEMM_F32_BF16_MN : PG_REF_BGEMM_F32_FP16_MN;
    /* dK, dV straight into the outputs without GQA, else into the chunk's parts */
    bg_operand dk_out = G > 1 ? chunk_rows(pg_buffer_address(dk_part), Skv, p->D)
                              : tensor_rows(dK, p->dk, 1);
    bg_operand dv_out = G > 1 ? chunk_rows(pg_buffer_address(dv_part), Skv, p->D_v)
                              : tensor_rows(dV, p->dv, 1);
    for (int64_t h0 = 0; h0 < BH && st == PG_OK; h0 += hc) {
        int64_t n = BH - h0 < hc ? BH - h0 : hc;
        /* S = scale · Q·Kᵀ and dP = dO·Vᵀ ([query i][key j]) */
        bgemm gs = {kk, tensor_rows(Q, p->q, 1), tensor_rows(K, p->k, G),
                    chunk_rows(ps, Sq, Skv), Sq, Skv, p->D, p->scale, h0, n, p->H};
        bgemm gp = {kk, tensor_rows(dO, p->d_o, 1), tensor_rows(V, p->v, G),
                    chunk_rows(pdp, Sq, Skv), Sq, Skv, p->D_v, 1.0f, h0, n, p->H};
        st = run_bgemm(dev, &gs, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gp, d);
        /* P = exp(S − LSE), dS = P ⊙ (dP − Δ) · scale, in place */
        if (st == PG_OK) {
            unsigned long long a = ps, b = pdp,
                               l = pg_buffer_address(LSE) + (uint64_t)h0 * (uint64_t)Sq * 4,
                               dl = pg_buffer_address(delta) + (uint64_t)h0 * (uint64_t)Sq * 4;
            long long r = n * Sq, sq = Sq, skv = Skv;
            int causal = p->causal;
            float sc = p->scale, inv = (float)(1.0 / pg_mha_lse_factor(p));
            void *args[] = {&a, &b, &l, &dl, &r, &sq, &skv, &causal, &sc, &inv};
            st = pg_ref_launch(dev, PG_REF_MHA_SOFTMAX_BWD,
                               stride_blocks(dev, (uint64_t)(n * Sq) * (uint64_t)Skv), 1, 1, 256,
                               args, d);
        }
        /* dV = Pᵀ·dO, dQ = dS·K, dK = dSᵀ·Q ([key or query][d]) */
        bgemm gv = {mn, chunk_cols(ps, Sq, Skv), tensor_cols(dO, p->d_o, 1), dv_out, Skv,
                    p->D_v, Sq, 1.0f, h0, n, p->H};
        bgemm gq = {kn, chunk_rows(pdp, Sq, Skv), tensor_cols(K, p->k, G),
                    tensor_rows(dQ, p->dq, 1), Sq, p->D, Skv, 1.0f, h0, n, p->H};
        bgemm gk = {mn, chunk_cols(pdp, Sq, Skv), tensor_cols(Q, p->q, 1), dk_out, Skv,
                    p->D, Sq, 1.0f, h0, n, p->H};
        if (st == PG_OK)
            st = run_bgemm(dev, &gv, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gq, d);
        if (st == PG_OK)
            st = run_bgemm(dev, &gk, d);
        if (st == PG_OK && G > 1)
            st = group_sum(dev, p, pg_buffer_address(dk_part), dK, p->dk, p->D, h0, n, d);
        if (st == PG_OK && G > 1)
            st = group_sum(dev, p, pg_buffer_address(dv_part), dV, p->dv, p->D_v, h0, n, d);
    }
    if (sbuf || dpbuf || delta)
        st = finish(dev, st, timeout_s, d);
    pg_buffer_free(sbuf);
    pg_buffer_free(dpbuf);
    pg_buffer_free(delta);
    pg_buffer_free(dk_part);
    pg_buffer_free(dv_part);
    return st;
}

pg_status pg_buffer_scale_f32(pg_buffer *x, size_t count, float factor, pg_diag *d)
{
    pg_device *dev = pg_buffer_device(x);
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (count > pg_buffer_bytes(x) / 4)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "scaling %zu fp32 elements: the buffer holds %zu bytes", count,
                           pg_buffer_bytes(x));
    if (count == 0)
        return PG_OK;
    unsigned long long px = pg_buffer_address(x), n = count;
    void *args[] = {&px, &factor, &n};
    return pg_ref_launch(dev, PG_REF_SCALE_F32, stride_blocks(dev, count), 1, 1, 256, args, d);
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
