/* Operation contracts of tasks: names, baselines, required tensors, workload rules
 * (see task_ops.h). */
#include "task_ops.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gemm_problem.h"
#include "mha_problem.h"

static const char *const k_names[] = {
    [PG_OP_GEMM] = "gemm",
    [PG_OP_MHA_FWD] = "mha_fwd",
    [PG_OP_MHA_BWD] = "mha_bwd",
};

bool pg_operation_parse(const char *name, pg_operation *out)
{
    if (strcmp(name, "gemm_nt") == 0) { /* the older name of gemm */
        *out = PG_OP_GEMM;
        return true;
    }
    for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++)
        if (strcmp(name, k_names[i]) == 0) {
            *out = (pg_operation)i;
            return true;
        }
    return false;
}

const char *pg_operation_name(pg_operation op)
{
    return (unsigned)op < sizeof k_names / sizeof k_names[0] ? k_names[op] : "invalid";
}

const char *pg_operation_accepted(void)
{
    return "gemm, gemm_nt (the same operation), mha_fwd, mha_bwd";
}

bool pg_operation_is_attention(pg_operation op)
{
    return op == PG_OP_MHA_FWD || op == PG_OP_MHA_BWD;
}

const char *pg_operation_baseline(pg_operation op)
{
    return pg_operation_is_attention(op) ? "cudnn" : "cublaslt";
}

/* ---- gemm ---------------------------------------------------------------------------------- */

/* The gemm contract, for the start of every gemm contract message. */
static void gemm_expect(const pg_task *t, char *buf, size_t n)
{
    snprintf(buf, n,
             "operation %s expects symbols M, N, K (and optionally batch, then the outermost dim "
             "of every tensor) and the tensors A [M,K] or [K,M] (input), B [K,N] or [N,K] "
             "(input) and either the output C or D [M,N] or [N,M] (parameters.beta "
             "0, the default) or, with parameters.beta != 0, C [M,N] or [N,M] (input) and the "
             "output D [M,N] or [N,M] (C's dtype); dims in storage order (layout row_major) or "
             "logical order (layout col_major); A and B %s; C and the output %s; with fp8 A "
             "and B: both stored with K contiguous (A [M,K], B [N,K]), optionally fp32 input "
             "scales scale_A and scale_B, both per-tensor (dims []) or both block scales "
             "(scale_A [KB, M], scale_B [NB, KB])",
             t->operation, pg_gemm_dtypes_accepted(), "fp32, bf16 or fp16");
}

const char *pg_gemm_dtypes_accepted(void)
{
    return "both fp32, both bf16, both fp16, or fp8 (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3)";
}

/* The JSON index of storage dim j of ts (col_major swaps the last two back). */
static int written_index(const pg_tensor_spec *ts, int j)
{
    if (ts->col_major_declared && j >= ts->ndims - 2)
        return j == ts->ndims - 1 ? ts->ndims - 2 : ts->ndims - 1;
    return j;
}

/* Append the text of fmt to buf (n bytes) at *used, cut at the end of buf. */
static void append(char *buf, size_t n, size_t *used, const char *fmt, const char *arg)
{
    if (*used + 1 >= n)
        return;
    int k = snprintf(buf + *used, n - *used, fmt, arg);
    if (k > 0)
        *used = *used + (size_t)k < n ? *used + (size_t)k : n - 1;
}

/* ts's dims as written in the task file, e.g. "[M, K]" or "[M, K] (col_major; stored [K, M])". */
static void dims_text(const pg_tensor_spec *ts, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int pass = 0; pass < (ts->col_major_declared ? 2 : 1); pass++) {
        append(buf, n, &used, "%s", pass ? " (col_major; stored [" : "[");
        for (int j = 0; j < ts->ndims; j++) {
            /* pass 0: as written (the swap is its own inverse); pass 1: storage order */
            int k = pass == 0 ? written_index(ts, j) : j;
            if (j)
                append(buf, n, &used, "%s", ", ");
            append(buf, n, &used, "%s", ts->dims[k]);
        }
        append(buf, n, &used, "%s", pass ? "])" : "]");
    }
}

static bool gemm_dtype_ok(pg_dtype dt)
{
    return dt == PG_DTYPE_FP32 || dt == PG_DTYPE_BF16 || dt == PG_DTYPE_FP16;
}

/* True when dims[last] of tensor k (storage order) is the symbol sym. */
static bool contiguous_dim_is(const pg_task *t, int k, const char *sym)
{
    const pg_tensor_spec *ts = &t->tensors[k];
    return ts->ndims >= 1 && strcmp(ts->dims[ts->ndims - 1], sym) == 0;
}

/* Block scales: when KB and NB are derived symbols, their expressions must be ceil_div(K, 128)
 * and ceil_div(N, 128) at probe sizes where the two differ (the per-workload check cannot tell
 * them apart when K and N round to the same block count). */
static pg_status check_block_symbols(const pg_task *t, const char *kb, const char *nb,
                                     const char *expect, pg_diag *d)
{
    const int64_t probe_m = 384, probe_n = 2560 + 1, probe_k = 1280 + 1; /* KB 11, NB 21 */
    const char *names[PG_MAX_SYMBOLS];
    int64_t values[PG_MAX_SYMBOLS] = {0};
    for (int i = 0; i < t->n_free_symbols; i++) {
        names[i] = t->symbols[i];
        values[i] = strcmp(names[i], "M") == 0   ? probe_m
                    : strcmp(names[i], "N") == 0 ? probe_n
                    : strcmp(names[i], "K") == 0 ? probe_k
                                                 : 1;
    }
    pg_symtab syms = {.names = names, .values = values, .count = (size_t)t->n_free_symbols};
    const char *sym[2] = {kb, nb};
    const int64_t want[2] = {pg_gemm_scale_blocks(probe_k), pg_gemm_scale_blocks(probe_n)};
    const char *what[2] = {"ceil_div(K, 128)", "ceil_div(N, 128)"};
    for (int i = 0; i < 2; i++) {
        int k = pg_task_find_symbol(t, sym[i]);
        int64_t v = 0;
        char err[256];
        if (k < t->n_free_symbols || !t->derived[k][0])
            continue; /* a free symbol: the workloads' values are checked */
        if (pg_expr_eval(t->derived[k], &syms, &v, err, sizeof err) == PG_OK && v == want[i])
            continue;
        char f[300];
        snprintf(f, sizeof f, "derived_symbols.%s", sym[i]);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; %s = %s is the block count of scale tensors' dims, so it must "
                           "equal %s (at M=%lld, N=%lld, K=%lld it is %lld, not %lld)", expect,
                           sym[i], t->derived[k], what[i], (long long)probe_m, (long long)probe_n,
                           (long long)probe_k, (long long)v, (long long)want[i]);
    }
    return PG_OK;
}

/* fp8 A and B: the pairs cuBLASLt runs (no e5m2 x e5m2), K contiguous in both (the only
 * operand layout of fp8 wgmma and of cuBLASLt's fp8 kernels: "TN"), and the optional scalar
 * scales scale_A and scale_B (both or neither: inputs, fp32, dims []). */
static pg_status check_gemm_fp8(const pg_task *t, const pg_gemm_tensors *g, const char *expect,
                                pg_diag *d)
{
    char f[64], dims[256];
    const pg_tensor_spec *a = &t->tensors[g->a], *b = &t->tensors[g->b];
    if (a->dtype == PG_DTYPE_E5M2 && b->dtype == PG_DTYPE_E5M2) {
        snprintf(f, sizeof f, "tensors[%d].dtype", g->b);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; A and B are both e5m2, which cuBLASLt (the baseline) does not "
                           "multiply: use e4m3 for one of them", expect);
    }
    const int ops[2] = {g->a, g->b};
    for (int i = 0; i < 2; i++) {
        if (contiguous_dim_is(t, ops[i], "K"))
            continue;
        const pg_tensor_spec *ts = &t->tensors[ops[i]];
        dims_text(ts, dims, sizeof dims);
        snprintf(f, sizeof f, "tensors[%d].dims", ops[i]);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor '%s' is %s with dims %s, so K is not its contiguous dim: "
                           "fp8 GEMMs read A and B with K contiguous (A [M,K], B [N,K], "
                           "row_major), the only layout of fp8 wgmma and of cuBLASLt's fp8 "
                           "kernels", expect, ts->name, pg_dtype_name(ts->dtype), dims);
    }
    if ((g->scale_a >= 0) != (g->scale_b >= 0))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors",
                           "%s; tensor '%s' without '%s': give both per-tensor scales or "
                           "neither", expect, g->scale_a >= 0 ? "scale_A" : "scale_B",
                           g->scale_a >= 0 ? "scale_B" : "scale_A");
    if (g->scale_a < 0)
        return PG_OK;
    /* per-tensor: both []; block (DeepSeek-V3): scale_A [KB, M] (M contiguous), scale_B
     * [NB, KB], KB one symbol in both and NB another; their values are checked per workload
     * (check_gemm_workload) */
    const pg_tensor_spec *sa = &t->tensors[g->scale_a], *sb = &t->tensors[g->scale_b];
    const char *shapes = "per-tensor scales (both dims []) or block scales, scale_A [KB, M] "
                         "(one per row and 128 of K, M contiguous) and scale_B [NB, KB] (one "
                         "per 128 x 128 block), KB and NB two symbols of the values "
                         "ceil_div(K, 128) and ceil_div(N, 128) (derived_symbols)";
    const int scales[2] = {g->scale_a, g->scale_b};
    for (int i = 0; i < 2; i++) {
        const pg_tensor_spec *ts = &t->tensors[scales[i]];
        bool shape_ok = ts->ndims == 0 || ts->ndims == 2;
        if (ts->is_output || ts->dtype != PG_DTYPE_FP32 || !shape_ok) {
            snprintf(f, sizeof f, "tensors[%d]", scales[i]);
            dims_text(ts, dims, sizeof dims);
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' is %s %s with dims %s, expected an fp32 input: "
                               "%s", expect, ts->name, ts->is_output ? "an output" : "an input",
                               pg_dtype_name(ts->dtype), dims, shapes);
        }
    }
    bool block = sa->ndims == 2;
    const char *why = NULL;
    int blame = g->scale_b;
    if (sa->ndims != sb->ndims)
        why = block ? "scale_A is a block scale, so scale_B must be one too ([NB, KB])"
                    : "scale_A is a per-tensor scale (dims []), so scale_B must be one too";
    else if (block && strcmp(sa->dims[1], "M") != 0)
        why = "scale_A's contiguous dim must be M ([KB, M])", blame = g->scale_a;
    else if (block && (strcmp(sb->dims[1], sa->dims[0]) != 0 ||
                       strcmp(sb->dims[0], sb->dims[1]) == 0 || strcmp(sb->dims[0], "M") == 0))
        why = "scale_B must be [NB, KB]: its contiguous dim the symbol of scale_A's first "
              "(KB), its first another one (NB)";
    if (why) {
        snprintf(f, sizeof f, "tensors[%d].dims", blame);
        dims_text(&t->tensors[blame], dims, sizeof dims);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; tensor '%s' has dims %s: %s",
                           expect, t->tensors[blame].name, dims, why);
    }
    if (block) {
        pg_status st = check_block_symbols(t, sa->dims[0], sb->dims[0], expect, d);
        if (st != PG_OK)
            return st;
    }
    if (block && !contiguous_dim_is(t, g->out, "N")) {
        snprintf(f, sizeof f, "tensors[%d].dims", g->out);
        dims_text(&t->tensors[g->out], dims, sizeof dims);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; with block scales the output is row-major [M, N] (N contiguous: "
                           "the orientation cuBLASLt's block-scaled GEMM is set up for), found "
                           "dims %s", expect, dims);
    }
    if (block && pg_task_find_symbol(t, "batch") >= 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols",
                           "%s; block scales (scale_A [KB, M], scale_B [NB, KB]) take no batch: "
                           "drop the symbol batch or use per-tensor scales", expect);
    return PG_OK;
}

/* Tensor index k of t: dims [batch?, r, c] or [batch?, c, r] (storage order). */
static pg_status check_gemm_dims(const pg_task *t, int k, const char *r, const char *c,
                                 const char *expect, pg_diag *d)
{
    const pg_tensor_spec *ts = &t->tensors[k];
    bool batch = pg_task_find_symbol(t, "batch") >= 0;
    char f[64], dims[256];
    dims_text(ts, dims, sizeof dims);
    for (int j = 1; batch && j < ts->ndims; j++)
        if (strcmp(ts->dims[j], "batch") == 0) {
            snprintf(f, sizeof f, "tensors[%d].dims[%d]", k, written_index(ts, j));
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' has dims %s: batch must be its outermost dim "
                               "(dims[0])", expect, ts->name, dims);
        }
    snprintf(f, sizeof f, "tensors[%d].dims", k);
    int lead = batch ? 1 : 0;
    if (batch && (ts->ndims < 1 || strcmp(ts->dims[0], "batch") != 0))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor '%s' has dims %s, without the batch dim first (the task "
                           "declares the symbol batch, so every tensor is [batch, ...])", expect,
                           ts->name, dims);
    bool ok = ts->ndims == lead + 2 &&
              ((strcmp(ts->dims[lead], r) == 0 && strcmp(ts->dims[lead + 1], c) == 0) ||
               (strcmp(ts->dims[lead], c) == 0 && strcmp(ts->dims[lead + 1], r) == 0));
    if (!ok)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor '%s' has dims %s, expected %s[%s,%s] or %s[%s,%s]", expect,
                           ts->name, dims, batch ? "batch + " : "", r, c, batch ? "batch + " : "",
                           c, r);
    return PG_OK;
}

static pg_status gemm_role(const pg_task *t, int k, bool output, const char *why,
                           const char *expect, pg_diag *d)
{
    if (t->tensors[k].is_output == output)
        return PG_OK;
    char f[64];
    snprintf(f, sizeof f, "tensors[%d].role", k);
    return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; tensor '%s' must be %s%s", expect,
                       t->tensors[k].name, output ? "the output" : "an input", why);
}

static pg_status check_gemm(const pg_task *t, pg_diag *d)
{
    static const char *const symbols[] = {"M", "N", "K"};
    char expect[1024], f[64];
    gemm_expect(t, expect, sizeof expect);
    for (int i = 0; i < 3; i++)
        if (pg_task_find_symbol(t, symbols[i]) < 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols", "%s; no symbol '%s'",
                               expect, symbols[i]);
    for (int i = 0; i < t->n_tensors; i++) {
        const char *n = t->tensors[i].name;
        if (strcmp(n, "A") != 0 && strcmp(n, "B") != 0 && strcmp(n, "C") != 0 &&
            strcmp(n, "D") != 0 && strcmp(n, "scale_A") != 0 && strcmp(n, "scale_B") != 0) {
            snprintf(f, sizeof f, "tensors[%d].name", i);
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' is none of A, B, C, D, scale_A, scale_B", expect,
                               n);
        }
    }
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    int a = g.a, b = g.b, c = pg_task_find_tensor(t, "C"), dd = pg_task_find_tensor(t, "D");
    if (a < 0 || b < 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors", "%s; no tensor '%s'", expect,
                           a < 0 ? "A" : "B");
    if (c < 0 && dd < 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors",
                           "%s; no output tensor (C or D)", expect);
    pg_status st = gemm_role(t, a, false, "", expect, d);
    if (st == PG_OK)
        st = gemm_role(t, b, false, "", expect, d);
    if (st == PG_OK && dd >= 0)
        st = gemm_role(t, dd, true, "", expect, d);
    if (st == PG_OK && dd >= 0 && c >= 0)
        st = gemm_role(t, c, false, " when D is the output", expect, d);
    if (st == PG_OK && dd < 0)
        st = gemm_role(t, c, true, " when there is no D", expect, d);
    if (st != PG_OK)
        return st;
    /* beta != 0 exactly when C is read */
    bool c_input = g.c >= 0;
    if (t->beta != 0.0 && !c_input)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "parameters.beta",
                           "%s; parameters.beta is %g, which reads C: the task needs a tensor C "
                           "with role input and the output D", expect, t->beta);
    if (c_input && t->beta == 0.0) {
        snprintf(f, sizeof f, "tensors[%d].role", c);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor 'C' is an input, but parameters.beta is 0 (the default "
                           "when absent), so C would never be read: give parameters.beta a "
                           "non-zero value, or drop the input C", expect);
    }
    st = check_gemm_dims(t, a, "M", "K", expect, d);
    if (st == PG_OK)
        st = check_gemm_dims(t, b, "K", "N", expect, d);
    if (st == PG_OK && c_input)
        st = check_gemm_dims(t, g.c, "M", "N", expect, d);
    if (st == PG_OK)
        st = check_gemm_dims(t, g.out, "M", "N", expect, d);
    if (st != PG_OK)
        return st;
    pg_dtype da = t->tensors[a].dtype, db = t->tensors[b].dtype;
    bool fp8 = pg_dtype_is_fp8(da) && pg_dtype_is_fp8(db);
    if (!fp8 && da != db) {
        snprintf(f, sizeof f, "tensors[%d].dtype", b);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor 'B' is %s, tensor 'A' %s (A and B share one dtype, "
                           "unless both are fp8)", expect, pg_dtype_name(db), pg_dtype_name(da));
    }
    /* A and B are fine now (every dtype is one of the accepted ones); C and the output: */
    const int outs[] = {g.c, g.out};
    for (int i = 0; i < 2; i++) {
        int k = outs[i];
        if (k < 0)
            continue;
        const pg_tensor_spec *ts = &t->tensors[k];
        snprintf(f, sizeof f, "tensors[%d].dtype", k);
        if (!gemm_dtype_ok(ts->dtype))
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' is %s, which a GEMM task does not accept here "
                               "(A and B: %s; C and the output: fp32, bf16 or fp16)", expect,
                               ts->name, pg_dtype_name(ts->dtype), pg_gemm_dtypes_accepted());
    }
    if (c_input && t->tensors[g.c].dtype != t->tensors[g.out].dtype) {
        snprintf(f, sizeof f, "tensors[%d].dtype", g.c);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor 'C' is %s, the output D %s (C has the output's dtype)",
                           expect, pg_dtype_name(t->tensors[g.c].dtype),
                           pg_dtype_name(t->tensors[g.out].dtype));
    }
    if (fp8)
        return check_gemm_fp8(t, &g, expect, d);
    if (g.scale_a >= 0 || g.scale_b >= 0) {
        int k = g.scale_a >= 0 ? g.scale_a : g.scale_b;
        snprintf(f, sizeof f, "tensors[%d].name", k);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "%s; tensor '%s' scales an fp8 operand, and A and B are %s and %s",
                           expect, t->tensors[k].name, pg_dtype_name(da), pg_dtype_name(db));
    }
    return PG_OK;
}

void pg_task_gemm_tensors(const pg_task *t, pg_gemm_tensors *out)
{
    out->a = pg_task_find_tensor(t, "A");
    out->b = pg_task_find_tensor(t, "B");
    out->scale_a = pg_task_find_tensor(t, "scale_A");
    out->scale_b = pg_task_find_tensor(t, "scale_B");
    out->c = -1;
    out->out = -1;
    int c = pg_task_find_tensor(t, "C"), dd = pg_task_find_tensor(t, "D");
    if (dd >= 0 && t->tensors[dd].is_output) {
        out->out = dd;
        if (c >= 0 && !t->tensors[c].is_output)
            out->c = c;
    } else if (c >= 0 && t->tensors[c].is_output) {
        out->out = c;
    }
}

pg_status pg_task_check_operation(const pg_task *t, pg_diag *d)
{
    return pg_operation_is_attention(t->op) ? pg_mha_check_contract(t, d) : check_gemm(t, d);
}

/* The value of dim j of tensor k in workload w. */
static int64_t dim_value(const pg_task *t, const pg_workload *w, int k, int j)
{
    return w->values[pg_task_find_symbol(t, t->tensors[k].dims[j])];
}

/* Block scales in workload wi: scale_A [ceil(K/128), M] and scale_B [ceil(N/128),
 * ceil(K/128)], and the layout cuBLASLt's VEC128_32F / BLK128x128_32F scales need (M and
 * ceil(K/128) multiples of 4: 16-byte aligned scale rows). */
static pg_status check_block_scales(const pg_task *t, int wi, const pg_gemm_tensors *g,
                                    pg_diag *d)
{
    const pg_workload *w = &t->workloads[wi];
    int64_t M = w->values[pg_task_find_symbol(t, "M")];
    int64_t N = w->values[pg_task_find_symbol(t, "N")];
    int64_t K = w->values[pg_task_find_symbol(t, "K")];
    int64_t kb = pg_gemm_scale_blocks(K), nb = pg_gemm_scale_blocks(N);
    struct {
        int tensor, dim;
        int64_t want;
        const char *what;
    } want[] = {{g->scale_a, 0, kb, "ceil_div(K, 128)"},
                {g->scale_b, 0, nb, "ceil_div(N, 128)"},
                {g->scale_b, 1, kb, "ceil_div(K, 128)"}};
    char f[128];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int64_t v = dim_value(t, w, want[i].tensor, want[i].dim);
        if (v == want[i].want)
            continue;
        snprintf(f, sizeof f, "tensors[%d].dims[%d]", want[i].tensor, want[i].dim);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': dim %s of %s is %" PRId64 ", expected %s = %" PRId64
                           " (block scales: one per 128 of K for A, per 128 x 128 for B)",
                           w->name, t->tensors[want[i].tensor].dims[want[i].dim],
                           t->tensors[want[i].tensor].name, v, want[i].what, want[i].want);
    }
    if (M % 4 != 0 || kb % 4 != 0) {
        snprintf(f, sizeof f, "workloads[%d].symbols.%s", wi, M % 4 != 0 ? "M" : "K");
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': M = %" PRId64 " and ceil_div(K, 128) = %" PRId64
                           " must be multiples of 4 with block scales: cuBLASLt reads scale_A "
                           "rows of M and scale_B rows of ceil_div(K, 128) fp32 values 16-byte "
                           "aligned", w->name, M, kb);
    }
    return PG_OK;
}

/* gemm: the batch count fits cuBLASLt's int32 (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT); with fp8
 * A and B, K and the output's (and C's) leading dimension are 16-byte multiples. */
static pg_status check_gemm_workload(const pg_task *t, int wi, pg_diag *d)
{
    const pg_workload *w = &t->workloads[wi];
    char f[128];
    int sb = pg_task_find_symbol(t, "batch");
    if (sb >= 0 && w->values[sb] > INT32_MAX) {
        snprintf(f, sizeof f, "workloads[%d].symbols.batch", wi);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': batch = %" PRId64 " is above %d, the most cuBLASLt's "
                           "batch count (int32) holds", w->name, w->values[sb], INT32_MAX);
    }
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    if (!pg_dtype_is_fp8(t->tensors[g.a].dtype))
        return PG_OK;
    int64_t K = w->values[pg_task_find_symbol(t, "K")];
    if (g.scale_a >= 0 && t->tensors[g.scale_a].ndims == 2) {
        pg_status st = check_block_scales(t, wi, &g, d);
        if (st != PG_OK)
            return st;
    }
    if (K % 16 != 0) {
        snprintf(f, sizeof f, "workloads[%d].symbols.K", wi);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': K = %" PRId64 " is not a multiple of 16; rows of fp8 "
                           "A and B must be whole 16-byte chunks (cuBLASLt's fp8 GEMMs and TMA "
                           "require it)", w->name, K);
    }
    const int outs[2] = {g.out, g.c};
    for (int i = 0; i < 2; i++) {
        if (outs[i] < 0)
            continue;
        const pg_tensor_spec *ts = &t->tensors[outs[i]];
        const char *inner = ts->dims[ts->ndims - 1];
        int64_t v = w->values[pg_task_find_symbol(t, inner)];
        size_t bytes = pg_dtype_size(ts->dtype);
        if (((uint64_t)v * bytes) % 16 != 0) {
            snprintf(f, sizeof f, "workloads[%d].symbols.%s", wi, inner);
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "workload '%s': %s = %" PRId64 " makes a row of %s (%s, %s "
                               "contiguous) %" PRIu64 " bytes, not a multiple of 16; cuBLASLt's "
                               "fp8 GEMMs need 16-byte aligned leading dimensions", w->name,
                               inner, v, ts->name, pg_dtype_name(ts->dtype), inner,
                               (uint64_t)v * bytes);
        }
    }
    return PG_OK;
}

pg_status pg_task_check_workload_op(const pg_task *t, int wi, pg_diag *d)
{
    return pg_operation_is_attention(t->op) ? pg_mha_check_workload(t, wi, d)
                                            : check_gemm_workload(t, wi, d);
}

void pg_task_mha_tensors(const pg_task *t, pg_mha_tensors *out)
{
    out->q = pg_task_find_tensor(t, "Q");
    out->k = pg_task_find_tensor(t, "K");
    out->v = pg_task_find_tensor(t, "V");
    out->o = pg_task_find_tensor(t, "O");
    out->lse = pg_task_find_tensor(t, "LSE");
    out->d_o = pg_task_find_tensor(t, "dO");
    out->dq = pg_task_find_tensor(t, "dQ");
    out->dk = pg_task_find_tensor(t, "dK");
    out->dv = pg_task_find_tensor(t, "dV");
}
