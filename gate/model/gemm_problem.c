/* The GEMM of a gemm task's workload: operands, element types and strides (gemm_problem.h). */
#include "gemm_problem.h"

#include <string.h>

#include "task_ops.h"

/* Value of symbol sym in w; dflt when the task has no such symbol. */
static int64_t symbol_or(const pg_task *t, const pg_workload *w, const char *sym, int64_t dflt)
{
    int s = pg_task_find_symbol(t, sym);
    return s >= 0 ? w->values[s] : dflt;
}

/* Element stride of the dim named sym of ts (dims in storage order, the last contiguous, dense)
 * for workload w; *found false (and 0) when ts has no such dim. */
static int64_t dim_stride(const pg_task *t, const pg_tensor_spec *ts, const pg_workload *w,
                          const char *sym, bool *found)
{
    int64_t stride = 1;
    for (int i = ts->ndims - 1; i >= 0; i--) {
        if (strcmp(ts->dims[i], sym) == 0) {
            *found = true;
            return stride;
        }
        stride *= symbol_or(t, w, ts->dims[i], 1);
    }
    *found = false;
    return 0;
}

/* Operand `tensor` (-1: none) with logical rows `row` and columns `col`. */
static pg_gemm_operand operand(const pg_task *t, const pg_workload *w, int tensor,
                               const char *row, const char *col, int64_t batch)
{
    pg_gemm_operand x = {.tensor = tensor, .dtype = PG_DTYPE_INVALID};
    if (tensor < 0)
        return x;
    const pg_tensor_spec *ts = &t->tensors[tensor];
    bool found;
    x.dtype = ts->dtype;
    x.row_stride = dim_stride(t, ts, w, row, &found);
    x.col_stride = dim_stride(t, ts, w, col, &found);
    x.batch_stride = batch > 1 ? dim_stride(t, ts, w, "batch", &found) : 0;
    /* the storage order decides, not the strides: they are both 1 when the contiguous extent
     * is 1 */
    x.col_major = ts->ndims >= 2 && strcmp(ts->dims[ts->ndims - 1], row) == 0;
    return x;
}

pg_status pg_gemm_problem_of(const pg_task *t, const pg_workload *w, pg_gemm_problem *out,
                             pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->a.tensor = out->b.tensor = out->c.tensor = out->d.tensor = -1;
    out->scale = (pg_gemm_scaling){.mode = PG_GEMM_SCALE_NONE, .a = -1, .b = -1};
    if (t->op != PG_OP_GEMM)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "operation",
                           "operation %s is not a GEMM (accepted: gemm, gemm_nt)", t->operation);
    pg_gemm_tensors g;
    pg_task_gemm_tensors(t, &g);
    if (g.a < 0 || g.b < 0 || g.out < 0)
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "tensors",
                           "the gemm task lacks tensor %s (it was not validated)",
                           g.a < 0 ? "A" : g.b < 0 ? "B" : "C or D (the output)");
    out->batch = symbol_or(t, w, "batch", 1);
    out->M = symbol_or(t, w, "M", 0);
    out->N = symbol_or(t, w, "N", 0);
    out->K = symbol_or(t, w, "K", 0);
    /* a validated task has a C input exactly when beta != 0; C is never read otherwise */
    out->has_c = g.c >= 0 && t->beta != 0.0;
    out->a = operand(t, w, g.a, "M", "K", out->batch);
    out->b = operand(t, w, g.b, "K", "N", out->batch);
    out->c = operand(t, w, out->has_c ? g.c : -1, "M", "N", out->batch);
    out->d = operand(t, w, g.out, "M", "N", out->batch);
    out->alpha = (float)t->alpha;
    out->beta = (float)t->beta;
    out->compute = strcmp(t->baseline_compute, "tf32") == 0 ? PG_GEMM_COMPUTE_TF32
                                                             : PG_GEMM_COMPUTE_FP32;
    if (g.scale_a >= 0 && g.scale_b >= 0) {
        bool block = t->tensors[g.scale_a].ndims == 2;
        out->scale = (pg_gemm_scaling){.mode = block ? PG_GEMM_SCALE_BLOCK : PG_GEMM_SCALE_TENSOR,
                                       .a = g.scale_a, .b = g.scale_b};
    }
    return PG_OK;
}

int64_t pg_gemm_scale_blocks(int64_t n)
{
    return (n + PG_GEMM_SCALE_BLOCK_EDGE - 1) / PG_GEMM_SCALE_BLOCK_EDGE;
}

bool pg_gemm_operand_col_major(const pg_gemm_operand *x)
{
    return x->col_major;
}

int64_t pg_gemm_operand_ld(const pg_gemm_operand *x)
{
    return x->col_major ? x->col_stride : x->row_stride;
}
