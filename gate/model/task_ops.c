/* Operation contracts of tasks: names, baselines, required tensors, workload rules
 * (see task_ops.h). */
#include "task_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const k_names[] = {
    [PG_OP_GEMM_NT] = "gemm_nt",
    [PG_OP_MHA_FWD] = "mha_fwd",
    [PG_OP_MHA_BWD] = "mha_bwd",
};

bool pg_operation_parse(const char *name, pg_operation *out)
{
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
    return "gemm_nt, mha_fwd, mha_bwd";
}

bool pg_operation_is_attention(pg_operation op)
{
    return op == PG_OP_MHA_FWD || op == PG_OP_MHA_BWD;
}

const char *pg_operation_baseline(pg_operation op)
{
    return pg_operation_is_attention(op) ? "cudnn" : "cublaslt";
}

/* How a contract constrains a tensor's dtype: the task's one element type, fp32, or any. */
typedef enum { DT_ELEMENT, DT_FP32, DT_ANY } want_dtype;

/* One tensor of a contract: name, dims (symbol names), role, dtype rule. */
typedef struct {
    const char *name;
    const char *dims[4];
    int ndims;
    bool output;
    want_dtype dtype;
} want_tensor;

static pg_status check_tensors(const pg_task *t, const char *const *symbols, int n_symbols,
                               const want_tensor *want, int n_want, const char *expect,
                               pg_diag *d)
{
    for (int i = 0; i < n_symbols; i++)
        if (pg_task_find_symbol(t, symbols[i]) < 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "symbols", "%s; no symbol '%s'",
                               expect, symbols[i]);
    if (t->n_tensors != n_want)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors", "%s; found %d tensors", expect,
                           t->n_tensors);
    pg_dtype element = PG_DTYPE_INVALID;
    for (int i = 0; i < n_want; i++) {
        int k = pg_task_find_tensor(t, want[i].name);
        if (k < 0)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors", "%s; no tensor '%s'",
                               expect, want[i].name);
        const pg_tensor_spec *ts = &t->tensors[k];
        char f[64];
        snprintf(f, sizeof f, "tensors[%d]", k);
        bool same = ts->ndims == want[i].ndims && ts->is_output == want[i].output;
        for (int j = 0; same && j < ts->ndims; j++)
            same = strcmp(ts->dims[j], want[i].dims[j]) == 0;
        if (!same)
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' differs (dims or role)", expect, ts->name);
        if (want[i].dtype == DT_FP32) {
            if (ts->dtype != PG_DTYPE_FP32)
                return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; tensor '%s' is %s",
                                   expect, ts->name, pg_dtype_name(ts->dtype));
        } else if (want[i].dtype == DT_ANY) {
            continue;
        } else if (element == PG_DTYPE_INVALID) {
            element = ts->dtype;
        } else if (ts->dtype != element) {
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                               "%s; tensor '%s' is %s, tensor '%s' %s", expect, ts->name,
                               pg_dtype_name(ts->dtype), want[0].name, pg_dtype_name(element));
        }
    }
    return PG_OK;
}

static pg_status check_gemm_nt(const pg_task *t, pg_diag *d)
{
    static const char *const symbols[] = {"M", "N", "K"};
    /* C may have its own dtype; A and B share one. */
    static const want_tensor want[] = {{"A", {"M", "K"}, 2, false, DT_ELEMENT},
                                       {"B", {"N", "K"}, 2, false, DT_ELEMENT},
                                       {"C", {"M", "N"}, 2, true, DT_ANY}};
    const char *expect = "operation gemm_nt expects symbols M, N, K and exactly the tensors "
                         "A [M,K] (input), B [N,K] (input, same dtype as A), C [M,N] (output)";
    return check_tensors(t, symbols, 3, want, 3, expect, d);
}

#define BHSD {"B", "H", "S", "D"}
#define BHS {"B", "H", "S"}

static pg_status check_mha(const pg_task *t, pg_diag *d)
{
    static const char *const symbols[] = {"B", "H", "S", "D"};
    static const want_tensor fwd[] = {
        {"Q", BHSD, 4, false, DT_ELEMENT}, {"K", BHSD, 4, false, DT_ELEMENT},
        {"V", BHSD, 4, false, DT_ELEMENT}, {"O", BHSD, 4, true, DT_ELEMENT},
        {"LSE", BHS, 3, true, DT_FP32}};
    static const want_tensor bwd[] = {
        {"Q", BHSD, 4, false, DT_ELEMENT},  {"K", BHSD, 4, false, DT_ELEMENT},
        {"V", BHSD, 4, false, DT_ELEMENT},  {"O", BHSD, 4, false, DT_ELEMENT},
        {"dO", BHSD, 4, false, DT_ELEMENT}, {"LSE", BHS, 3, false, DT_FP32},
        {"dQ", BHSD, 4, true, DT_ELEMENT},  {"dK", BHSD, 4, true, DT_ELEMENT},
        {"dV", BHSD, 4, true, DT_ELEMENT}};
    const char *expect_fwd =
        "operation mha_fwd expects symbols B, H, S, D and exactly the tensors Q, K, V [B,H,S,D] "
        "(inputs), O [B,H,S,D] (output), all of one dtype (bf16 or fp16), and LSE [B,H,S] "
        "(output, fp32)";
    const char *expect_bwd =
        "operation mha_bwd expects symbols B, H, S, D and exactly the tensors Q, K, V, O, dO "
        "[B,H,S,D] and LSE [B,H,S] (fp32) as inputs and dQ, dK, dV [B,H,S,D] as outputs, the "
        "[B,H,S,D] tensors of one dtype (bf16 or fp16)";
    bool is_fwd = t->op == PG_OP_MHA_FWD;
    const char *expect = is_fwd ? expect_fwd : expect_bwd;
    pg_status st = check_tensors(t, symbols, 4, is_fwd ? fwd : bwd, is_fwd ? 5 : 9, expect, d);
    if (st != PG_OK)
        return st;
    int q = pg_task_find_tensor(t, "Q");
    pg_dtype dt = t->tensors[q].dtype;
    if (dt != PG_DTYPE_BF16 && dt != PG_DTYPE_FP16) {
        char f[64];
        snprintf(f, sizeof f, "tensors[%d]", q);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f, "%s; found %s", expect,
                           pg_dtype_name(dt));
    }
    return PG_OK;
}

pg_status pg_task_check_operation(const pg_task *t, pg_diag *d)
{
    return pg_operation_is_attention(t->op) ? check_mha(t, d) : check_gemm_nt(t, d);
}

pg_status pg_task_check_workload_op(const pg_task *t, int wi, pg_diag *d)
{
    if (!pg_operation_is_attention(t->op))
        return PG_OK;
    int s = pg_task_find_symbol(t, "D");
    int64_t v = t->workloads[wi].values[s];
    if (v % 8 != 0) {
        char f[128];
        snprintf(f, sizeof f, "workloads[%d].symbols.D", wi);
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, f,
                           "workload '%s': D = %" PRId64 " is not a multiple of 8; rows of Q, K, "
                           "V and O must be a multiple of 16 bytes (TMA global strides and cuDNN "
                           "attention require it)",
                           t->workloads[wi].name, v);
    }
    return PG_OK;
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
