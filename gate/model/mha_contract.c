/* The contract of attention tasks and its per-workload rules (mha_problem.h "The contract"). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mha_problem.h"

/* The symbols a task uses for the problem's sizes: S_q/S_kv are "S" when the task has one
 * sequence length, H_kv "H" without KV heads of its own, D_v "D" without a head dim of V. */
typedef struct {
    const char *sq, *skv, *hkv, *dv;
} mha_symbols;

/* One tensor of the contract: [B, heads, seq, dim] or [B, seq, heads, dim] (dim NULL: the LSE,
 * [B, heads, seq] fp32). */
typedef struct {
    const char *name, *heads, *seq, *dim;
    bool output, optional;
} want_tensor;

static bool has_symbol(const pg_task *t, const char *name)
{
    return pg_task_find_symbol(t, name) >= 0;
}

static void contract_text(const pg_task *t, const mha_symbols *s, char *buf, size_t n)
{
    bool fwd = t->op == PG_OP_MHA_FWD;
    char o[64], outs[96];
    snprintf(o, sizeof o, "[B,H,%s,%s]", s->sq, s->dv);
    if (fwd)
        snprintf(outs, sizeof outs, "O %s", o);
    else
        snprintf(outs, sizeof outs, "dQ, dK, dV like Q, K, V");
    snprintf(buf, n,
             "operation %s expects symbols B, H, D and S (or both S_q and S_kv), optionally H_kv "
             "and D_v, and exactly the tensors Q [B,H,%s,D], K [B,%s,%s,D], V [B,%s,%s,%s]%s%s "
             "(inputs), %s (output%s), each also accepted in BSHD order ([B,%s,H,D] for Q), all "
             "of one dtype (bf16 or fp16), and LSE [B,H,%s] (fp32, %s)",
             t->operation, s->sq, s->hkv, s->skv, s->hkv, s->skv, s->dv, fwd ? "" : ", O and dO ",
             fwd ? "" : o, outs, fwd ? "" : "s", s->sq, s->sq,
             fwd ? "an optional output" : "an input");
}

/* Tensor k against w: role and dims in either order. */
static bool tensor_matches(const pg_tensor_spec *ts, const want_tensor *w)
{
    if (ts->is_output != w->output)
        return false;
    if (!w->dim)
        return ts->ndims == 3 && strcmp(ts->dims[0], "B") == 0 &&
               strcmp(ts->dims[1], w->heads) == 0 && strcmp(ts->dims[2], w->seq) == 0;
    if (ts->ndims != 4 || strcmp(ts->dims[0], "B") != 0 || strcmp(ts->dims[3], w->dim) != 0)
        return false;
    bool bhsd = strcmp(ts->dims[1], w->heads) == 0 && strcmp(ts->dims[2], w->seq) == 0;
    bool bshd = strcmp(ts->dims[1], w->seq) == 0 && strcmp(ts->dims[2], w->heads) == 0;
    return bhsd || bshd;
}

/* "[B,H,S,D]" of a tensor's dims as written. */
static void dims_text(const pg_tensor_spec *ts, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "[");
    for (int j = 0; j < ts->ndims && used < n; j++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", j ? "," : "", ts->dims[j]);
    if (used < n)
        snprintf(buf + used, n - used, "]");
}

/* Tensor k does not match w: what it has, what is expected, then the contract. */
static pg_status tensor_error(const pg_task *t, int k, const want_tensor *w, const char *expect,
                              pg_diag *d)
{
    const pg_tensor_spec *ts = &t->tensors[k];
    char f[64], has[192], want[160];
    snprintf(f, sizeof f, "tensors[%d]", k);
    if (ts->is_output != w->output)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "tensor '%s' has role \"%s\"; %s %s it (role \"%s\"); %s",
                           ts->name, ts->is_output ? "output" : "input", t->operation,
                           w->output ? "writes" : "reads", w->output ? "output" : "input",
                           expect);
    dims_text(ts, has, sizeof has);
    if (w->dim)
        snprintf(want, sizeof want, "[B,%s,%s,%s] or [B,%s,%s,%s]", w->heads, w->seq, w->dim,
                 w->seq, w->heads, w->dim);
    else
        snprintf(want, sizeof want, "[B,%s,%s]", w->heads, w->seq);
    return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                       "tensor '%s' has dims %s, expected %s (from the task's symbols); %s",
                       ts->name, has, want, expect);
}

static pg_status check_symbols(const pg_task *t, const char *expect, pg_diag *d)
{
    static const char *const required[] = {"B", "H", "D"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!has_symbol(t, required[i]))
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols", "%s; no symbol '%s'",
                               expect, required[i]);
    static const char *const known[] = {"B", "H", "H_kv", "S", "S_q", "S_kv", "D", "D_v"};
    for (int i = 0; i < t->n_free_symbols; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(known[k], t->symbols[i]) != 0)
            k++;
        if (k == sizeof known / sizeof known[0])
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols",
                               "unknown symbol '%s' for %s: accepted B, H, H_kv, S, S_q, S_kv, "
                               "D, D_v (a misspelt one would leave its default silently; %s)",
                               t->symbols[i], t->operation, expect);
    }
    bool s = has_symbol(t, "S"), sq = has_symbol(t, "S_q"), skv = has_symbol(t, "S_kv");
    if (s && (sq || skv))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols",
                           "%s; symbol S (one length for queries and keys) and %s cannot both "
                           "be declared", expect, sq ? "S_q" : "S_kv");
    if (!s && !(sq && skv))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols",
                           "%s; no symbol S, and not both of S_q and S_kv", expect);
    return PG_OK;
}

pg_status pg_mha_check_contract(const pg_task *t, pg_diag *d)
{
    /* one of S_q, S_kv declared: the task means two lengths, so the message names both */
    bool two_lengths = has_symbol(t, "S_q") || has_symbol(t, "S_kv");
    mha_symbols s = {two_lengths ? "S_q" : "S", two_lengths ? "S_kv" : "S",
                     has_symbol(t, "H_kv") ? "H_kv" : "H", has_symbol(t, "D_v") ? "D_v" : "D"};
    char expect[1024];
    contract_text(t, &s, expect, sizeof expect);
    pg_status st = check_symbols(t, expect, d);
    if (st != PG_OK)
        return st;
    bool fwd = t->op == PG_OP_MHA_FWD;
    const want_tensor want[] = {
        {"Q", "H", s.sq, "D", false, false},
        {"K", s.hkv, s.skv, "D", false, false},
        {"V", s.hkv, s.skv, s.dv, false, false},
        {"O", "H", s.sq, s.dv, fwd, false},
        {"LSE", "H", s.sq, NULL, fwd, fwd},
        {"dO", "H", s.sq, s.dv, false, false},
        {"dQ", "H", s.sq, "D", true, false},
        {"dK", s.hkv, s.skv, "D", true, false},
        {"dV", s.hkv, s.skv, s.dv, true, false},
    };
    const int n_want = fwd ? 5 : 9;
    char f[64];
    for (int k = 0; k < t->n_tensors; k++) {
        int i = 0;
        while (i < n_want && strcmp(want[i].name, t->tensors[k].name) != 0)
            i++;
        snprintf(f, sizeof f, "tensors[%d]", k);
        if (i == n_want)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; unexpected tensor '%s'",
                               expect, t->tensors[k].name);
        if (!tensor_matches(&t->tensors[k], &want[i]))
            return tensor_error(t, k, &want[i], expect, d);
    }
    pg_dtype element = PG_DTYPE_INVALID;
    int first = -1;
    for (int i = 0; i < n_want; i++) {
        int k = pg_task_find_tensor(t, want[i].name);
        if (k < 0 && want[i].optional)
            continue;
        if (k < 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors", "%s; no tensor '%s'",
                               expect, want[i].name);
        const pg_tensor_spec *ts = &t->tensors[k];
        snprintf(f, sizeof f, "tensors[%d]", k);
        if (!want[i].dim) {
            if (ts->dtype != PG_DTYPE_FP32)
                return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; tensor '%s' is %s",
                                   expect, ts->name, pg_dtype_name(ts->dtype));
        } else if (element == PG_DTYPE_INVALID) {
            element = ts->dtype;
            first = k;
            if (element != PG_DTYPE_BF16 && element != PG_DTYPE_FP16)
                return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                                   "%s; tensor '%s' is %s", expect, ts->name,
                                   pg_dtype_name(element));
        } else if (ts->dtype != element) {
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' is %s, tensor '%s' %s", expect, ts->name,
                               pg_dtype_name(ts->dtype), t->tensors[first].name,
                               pg_dtype_name(element));
        }
    }
    return PG_OK;
}

/* The field of symbol name in workload wi: "workloads[wi].symbols.<name>", or
 * "derived_symbols.<name>" when the task computes it (the workload does not write it). */
static const char *symbol_field(const pg_task *t, int wi, const char *name, char *buf, size_t n)
{
    int i = pg_task_find_symbol(t, name);
    if (i >= t->n_free_symbols)
        snprintf(buf, n, "derived_symbols.%s", name);
    else
        snprintf(buf, n, "workloads[%d].symbols.%s", wi, name);
    return buf;
}

pg_status pg_mha_check_workload(const pg_task *t, int wi, pg_diag *d)
{
    const pg_workload *w = &t->workloads[wi];
    pg_mha_problem p; /* the sizes, with S_q/S_kv, H_kv and D_v from their defaults */
    pg_status st = pg_mha_problem_of(t, w, &p, d);
    if (st != PG_OK)
        return st;
    char f[128];
    const char *dims[] = {"D", "D_v"};
    const int64_t dim_values[] = {p.D, p.D_v};
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !has_symbol(t, "D_v"))
            break;
        int64_t v = dim_values[i];
        if (v % 8 == 0)
            continue;
        symbol_field(t, wi, dims[i], f, sizeof f);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': %s = %" PRId64 " is not a multiple of 8; rows of Q, "
                           "K, V and O must be a multiple of 16 bytes (TMA global strides and "
                           "cuDNN attention require it)", w->name, dims[i], v);
    }
    if (p.H % p.H_kv != 0) {
        symbol_field(t, wi, has_symbol(t, "H_kv") ? "H_kv" : "H", f, sizeof f);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': H = %" PRId64 " is not a multiple of H_kv = %" PRId64
                           "; each KV head serves H / H_kv query heads (GQA; MQA: H_kv = 1)",
                           w->name, p.H, p.H_kv);
    }
    int64_t Sq = p.S_q, Skv = p.S_kv, Smax = Sq > Skv ? Sq : Skv;
    const char *seq = !has_symbol(t, "S_q") ? "S" : Sq >= Skv ? "S_q" : "S_kv";
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !has_symbol(t, "D_v"))
            break;
        int64_t v = dim_values[i];
        if (v <= PG_MHA_MAX_HEAD_DIM)
            continue;
        symbol_field(t, wi, dims[i], f, sizeof f);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': %s = %" PRId64 " is above %d, the largest head dim "
                           "ptxgate's reference takes", w->name, dims[i], v, PG_MHA_MAX_HEAD_DIM);
    }
    symbol_field(t, wi, seq, f, sizeof f);
    if (Smax > PG_MHA_MAX_SEQ || (Smax > 0 && Sq > PG_MHA_MAX_SCORES / Skv))
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': S_q = %" PRId64 ", S_kv = %" PRId64 " exceed the "
                           "reference's limits (each at most 2^23, and one head's fp32 scores "
                           "S_q·S_kv·4 bytes at most 1 GiB: S_q·S_kv <= 2^28)",
                           w->name, Sq, Skv);
    if (p.B > ((int64_t)1 << 31) / p.H || p.B * p.H > (((int64_t)1 << 31) - 1) / Smax)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': B·H·max(S_q, S_kv) = %" PRId64 "·%" PRId64 "·%" PRId64
                           " is not below 2^31, the rows ptxgate's reference and cuDNN's "
                           "attention index", w->name, p.B, p.H, Smax);
    if (t->causal && has_symbol(t, "S_q") && Sq > Skv) {
        symbol_field(t, wi, "S_q", f, sizeof f);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': S_q = %" PRId64 " > S_kv = %" PRId64 " in a causal "
                           "task: with the diagonal aligned bottom-right the first %" PRId64
                           " queries would see no key (cuDNN refuses it too); supported: "
                           "S_q <= S_kv", w->name, Sq, Skv, Sq - Skv);
    }
    return PG_OK;
}
