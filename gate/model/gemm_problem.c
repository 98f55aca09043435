/* The GEMM of a gemm task's workload: operands, element types and strides (gemm_problem.h). */
#include "gemm_problem.h"

#include <string.h>

/* Element stride of dimension `dim` of tensor ts (dims in storage order, the last contiguous)
 * for workload w; 0 when ts has no dimension named sym. */
static int64_t dim_stride(const pg_task *t, const pg_tensor_spec *ts, const pg_workload *w,
                          const char *sym)
{
    int64_t stride = 1;
    for (int i = ts->ndims - 1; i >= 0; i--) {
        if (strcmp(ts->dims[i], sym) == 0)
            return stride;
        int s = pg_task_find_symbol(t, ts->dims[i]);
        stride *= s >= 0 ? w->values[s] : 1;
    }
    return 0;
}

static int64_t symbol_or(const pg_task *t, const pg_workload *w, const char *sym, int64_t dflt)
{
    int s = pg_task_find_symbol(t, sym);
    return s >= 0 ? w->values[s] : dflt;
}

/* Operand `tensor` with logical rows `row` and columns `col`. */
static pg_gemm_operand operand(const pg_task *t, const pg_workload *w, int tensor,
                               const char *row, const char *col)
{
    pg_gemm_operand x = {.tensor = tensor, .dtype = PG_DTYPE_INVALID};
    if (tensor < 0)
        return x;
    const pg_tensor_spec *ts = &t->tensors[tensor];
    x.dtype = ts->dtype;
    x.row_stride = dim_stride(t, ts, w, row);
    x.col_stride = dim_stride(t, ts, w, col);
    x.batch_stride = dim_stride(t, ts, w, "batch");
    return x;
}

pg_status pg_gemm_problem_of(const pg_task *t, const pg_workload *w, pg_gemm_problem *out,
                             pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (t->op != PG_OP_GEMM_NT)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "operation",
                           "operation %s is not a GEMM", t->operation);
    int out_tensor = -1, c_in = -1;
    for (int i = 0; i < t->n_tensors; i++) {
        if (t->tensors[i].is_output)
            out_tensor = i;
        else if (strcmp(t->tensors[i].name, "C") == 0)
            c_in = i;
    }
    out->batch = symbol_or(t, w, "batch", 1);
    out->M = symbol_or(t, w, "M", 0);
    out->N = symbol_or(t, w, "N", 0);
    out->K = symbol_or(t, w, "K", 0);
    out->a = operand(t, w, pg_task_find_tensor(t, "A"), "M", "K");
    out->b = operand(t, w, pg_task_find_tensor(t, "B"), "K", "N");
    out->c = operand(t, w, c_in, "M", "N");
    out->d = operand(t, w, out_tensor, "M", "N");
    out->has_c = c_in >= 0 && t->beta != 0.0;
    out->alpha = (float)t->alpha;
    out->beta = (float)t->beta;
    out->compute = strcmp(t->baseline_compute, "tf32") == 0 ? PG_GEMM_COMPUTE_TF32
                                                             : PG_GEMM_COMPUTE_FP32;
    return PG_OK;
}

bool pg_gemm_operand_col_major(const pg_gemm_operand *x)
{
    return x->row_stride == 1 && x->col_stride > 1;
}

int64_t pg_gemm_operand_ld(const pg_gemm_operand *x)
{
    return pg_gemm_operand_col_major(x) ? x->col_stride : x->row_stride;
}
