/* Tasks (tasks/<task-id>/task.json, docs/formats.md "Task"): loading and validating a task
 * definition, and the lookups the pipeline needs (tensors, workloads, tolerances, symbol tables,
 * tensor sizes). */
#ifndef PG_MODEL_TASK_H
#define PG_MODEL_TASK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "dtype.h"
#include "expr.h"

#define PG_MAX_SYMBOLS 16
#define PG_MAX_TENSORS 16
#define PG_MAX_DIMS 8
#define PG_MAX_ALIASES 4
#define PG_MAX_TOLERANCES 8
/* Most workloads in one task. */
#define PG_MAX_WORKLOADS 256

/* One tensor of the task. dims[i] are symbol names, outermost first. Layout is row_major (the
 * last dim is contiguous); the only layout accepted for now. */
typedef struct {
    char name[32];
    char dims[PG_MAX_DIMS][32];
    int ndims;
    pg_dtype dtype;
    bool is_output;
} pg_tensor_spec;

/* One problem size: a value (> 0) for every task symbol, in the order of pg_task.symbols. */
typedef struct {
    char name[128];
    char aliases[PG_MAX_ALIASES][128];
    int n_aliases;
    int64_t values[PG_MAX_SYMBOLS];
} pg_workload;

/* An element is bad when |out - ref| > atol + rtol*|ref|; the set fails when any element is bad,
 * non-finite, or when ||out - ref||2 / ||ref||2 > max_rel_l2. All >= 0. */
typedef struct {
    double atol, rtol, max_rel_l2;
} pg_tolerance;

typedef struct {
    char file[1024];             /* path of task.json as given */
    char id[128];                /* equals the task's folder name */
    char description[512];       /* one line; "" when absent */
    char operation[64];          /* "gemm_nt" (the only operation accepted for now) */
    char symbols[PG_MAX_SYMBOLS][32];
    int n_symbols;
    pg_tensor_spec tensors[PG_MAX_TENSORS];
    int n_tensors;
    char flops[256];             /* expression: floating-point operations of one run */
    pg_workload *workloads;      /* n_workloads (>= 1) entries, owned */
    int n_workloads;
    struct {
        pg_dtype dtype;
        pg_tolerance tol;
    } tolerances[PG_MAX_TOLERANCES];
    int n_tolerances;
    json_t *targets;             /* owned reference to the raw "targets" object, validated shape:
                                    {arch: {"ptx": [string], "sass": [string]}} */
    char baseline_library[64];   /* "cublaslt" */
    char baseline_compute[16];   /* "fp32" */
    int baseline_max_candidates; /* 1..64, default 16 */
    double min_speedup;          /* > 0 */
    /* gate.nondeterminism: two runs on identical inputs that differ bitwise fail the
     * correctness stage (true, "fail") or pass it with a warning (false, "warn", the default). */
    bool nondeterminism_fails;
    /* gate.sanitizer: compute-sanitizer findings in the submission's kernels fail the sanitize
     * stage (true, "fail", the default) or pass it with a warning (false, "warn"). */
    bool sanitizer_fails;
    char default_arch[32];       /* sm_XX or sm_XXa */
} pg_task;

/* Load tasks_dir/task_id/task.json (see pg_task_load_file). *out is owned by the caller
 * (pg_task_free); NULL on error.
 * Errors: PG_ERR_INPUT; an id that is not a plain folder name, or for which no task.json exists,
 * gives field "task" and "unknown task 'x' (known: a, b)" listing (sorted) the folders of
 * tasks_dir that hold a task.json; d->file is left empty for it (the caller knows where the id
 * came from and may fill it in). Any other error is pg_task_load_file's. */
pg_status pg_task_load(const char *tasks_dir, const char *task_id, pg_task **out, pg_diag *d);

/* Load and validate one task file. *out is owned by the caller (pg_task_free); NULL on error.
 * Validates everything (each error PG_ERR_INPUT naming path, the JSON path of the field and what
 * was expected): unknown keys; schema_version 1; id equals the folder name; operation;
 * symbols (1..PG_MAX_SYMBOLS unique identifiers, not a function name); tensors (unique names,
 * 1..PG_MAX_DIMS dims that are declared symbols, dtype, layout "row_major", role
 * "input"/"output"; for gemm_nt exactly A[M,K], B[N,K] inputs of one dtype and C[M,N] output);
 * flops expression over the symbols; workloads (1..PG_MAX_WORKLOADS, every symbol bound to a
 * positive integer and nothing else, names and aliases unique and made of [A-Za-z0-9_.-]);
 * tolerances (dtype keys, atol/rtol/max_rel_l2 finite >= 0, one for every output dtype);
 * targets shape and arch names; baseline (library "cublaslt", compute "fp32",
 * max_candidates 1..64); gate.min_speedup > 0; gate.nondeterminism "warn" (default) or "fail";
 * gate.sanitizer "fail" (default) or "warn"; default_arch sm_XX[a]. */
pg_status pg_task_load_file(const char *path, pg_task **out, pg_diag *d);

/* Free t and what it owns. t may be NULL. */
void pg_task_free(pg_task *t);

/* Tolerance for an output dtype; NULL if the task has none. Borrowed from t. */
const pg_tolerance *pg_task_tolerance(const pg_task *t, pg_dtype dtype);

/* Index of the tensor named name, or -1. */
int pg_task_find_tensor(const pg_task *t, const char *name);

/* Index of the workload whose name or one of whose aliases is name_or_alias, or -1. */
int pg_task_find_workload(const pg_task *t, const char *name_or_alias);

/* Index of the symbol named name, or -1. */
int pg_task_find_symbol(const pg_task *t, const char *name);

/* Fill *out with the task's symbols bound to w's values. names_storage: caller array of
 * PG_MAX_SYMBOLS pointers that *out refers to (as it does to t and w): keep all three alive while
 * *out is used. */
void pg_task_symtab(const pg_task *t, const pg_workload *w, const char **names_storage,
                    pg_symtab *out);

/* Elements of tensor index `tensor` for workload w (product of its dims' values) into *out.
 * Errors: PG_ERR_INPUT (file = task file, field "tensors[i].dims") when the product overflows
 * 64 bits or tensor is out of range. */
pg_status pg_task_tensor_elements(const pg_task *t, int tensor, const pg_workload *w,
                                  uint64_t *out, pg_diag *d);

/* True when arch is a valid architecture name: "sm_" then 2 or 3 digits, optionally "a"
 * (sm_90, sm_90a, sm_100a). */
bool pg_arch_name_valid(const char *arch);

#endif
