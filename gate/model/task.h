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
/* Most named selections ("selections", e.g. "ptxbench") one workload belongs to. */
#define PG_MAX_SELECTIONS 8
#define PG_MAX_TOLERANCES 8
/* Most workloads in one task. */
#define PG_MAX_WORKLOADS 256

/* One tensor of the task. dims[i] are symbol names in storage order, outermost first, the last
 * one contiguous (dense row-major over dims), whatever the task file's "layout" said: "layout":
 * "col_major" (gemm tasks only, docs/formats.md "Task") is sugar for dims written in logical
 * order, and the loader swaps the last two of them so that dims is the storage order here too;
 * col_major_declared records that (for reports and messages: the logical order is dims with the
 * last two swapped back). */
typedef struct {
    char name[32];
    char dims[PG_MAX_DIMS][32];
    int ndims;
    pg_dtype dtype;
    bool is_output;
    bool col_major_declared;
} pg_tensor_spec;

/* One problem size: a value (> 0) for every task symbol, in the order of pg_task.symbols. */
typedef struct {
    char name[128];
    char aliases[PG_MAX_ALIASES][128];
    int n_aliases;
    /* The named selections it belongs to (--workloads @NAME, model/workload_filter.h). */
    char selections[PG_MAX_SELECTIONS][64];
    int n_selections;
    /* "required": a submission may not decline it ("supports" of a manifest); false when
     * absent. */
    bool required;
    int64_t values[PG_MAX_SYMBOLS];
} pg_workload;

/* An element is bad when |out - ref| > atol + rtol*|ref|; the set fails when any element is bad,
 * non-finite, or when ||out - ref||2 / ||ref||2 > max_rel_l2. All >= 0. */
typedef struct {
    double atol, rtol, max_rel_l2;
} pg_tolerance;

/* The operations a task may name (docs/formats.md "Task"); each fixes the task's tensors, its
 * reference and its vendor baseline (task_ops.h). */
typedef enum {
    PG_OP_GEMM,    /* "gemm" and its alias "gemm_nt": D = alpha·A·B + beta·C, A [M,K], B [K,N]
                      in either storage order, optional strided batch; baseline cuBLASLt
                      (model/gemm_problem.h) */
    PG_OP_MHA_FWD, /* attention forward: O, LSE from Q, K, V [B,H,S,D]; baseline cuDNN */
    PG_OP_MHA_BWD, /* attention backward: dQ, dK, dV from Q, K, V, O, dO, LSE; baseline cuDNN */
    /* The operation's older name, kept for code written against it: the same value. */
    PG_OP_GEMM_NT = PG_OP_GEMM
} pg_operation;

typedef struct {
    char file[1024];             /* path of task.json as given */
    char id[128];                /* equals the task's folder name */
    char description[512];       /* one line; "" when absent */
    char operation[64];          /* "gemm", "gemm_nt", "mha_fwd" or "mha_bwd", as written in
                                    the task file (reports show it unchanged) */
    pg_operation op;             /* the same, parsed ("gemm" and "gemm_nt": PG_OP_GEMM) */
    bool causal;                 /* mha_*: query i attends keys j <= i only; false otherwise */
    double alpha, beta;          /* gemm "parameters": D = alpha·A·B + beta·C; 1 and 0 when
                                    absent (model/gemm_problem.h); finite, within fp32 range;
                                    beta != 0 exactly when the task has a C input */
    /* mha_* "parameters" (model/mha_problem.h): softmax_scale > 0 (finite, fp32 range; 0 when
     * absent: 1/√D per workload); the LSE convention: lse_base "2" (lse_log2) and lse_scores
     * "unscaled" (lse_unscaled), defaults "e" and "scaled" (false). */
    double softmax_scale;
    bool lse_log2, lse_unscaled;
    char symbols[PG_MAX_SYMBOLS][32];
    int n_symbols;               /* all symbols: the n_free_symbols a workload binds, then the
                                    derived ones */
    int n_free_symbols;
    /* "derived_symbols": derived[i] (i >= n_free_symbols) is the expression over the free
     * symbols whose value symbol i takes in every workload, e.g. "ceil_div(K, 128)" (a block
     * count for a scale tensor's dims); "" for a free symbol. */
    char derived[PG_MAX_SYMBOLS][128];
    pg_tensor_spec tensors[PG_MAX_TENSORS];
    int n_tensors;
    char flops[256];             /* expression: floating-point operations of one run */
    char coverage_flops[256];    /* expression: matrix FLOPs a correct kernel must execute on the
                                    target instructions (work coverage); "" when absent */
    pg_workload *workloads;      /* n_workloads (>= 1) entries, owned */
    int n_workloads;
    struct {
        pg_dtype dtype;          /* the key is a dtype name (tensor[0] == '\0') ... */
        char tensor[32];         /* ... or the name of one output tensor */
        pg_tolerance tol;
    } tolerances[PG_MAX_TOLERANCES];
    int n_tolerances;
    json_t *targets;             /* owned reference to the raw "targets" object, validated shape:
                                    {arch: {"ptx": [string], "sass": [string]}} */
    char baseline_library[64];   /* "cublaslt" (gemm) or "cudnn" (mha_fwd, mha_bwd) */
    char baseline_compute[16];   /* "fp32", or "tf32" (gemm with fp32 A and B only: the
                                    baseline computes with CUBLAS_COMPUTE_32F_FAST_TF32) */
    int baseline_max_candidates; /* 1..64, default 16: cuBLASLt algorithms timed, or cuDNN engine
                                    configurations tried until one finalizes */
    /* baseline.optional (default false): when the vendor library refuses the workload's
     * configuration on the GPU in use (cuDNN NOT_SUPPORTED), the performance stage is judged
     * against the accepted kernel alone, or recorded skipped without one (details.baseline.status
     * NOT_SUPPORTED), instead of failing the run as an infrastructure error. */
    bool baseline_optional;
    double min_speedup;          /* > 0 */
    char timing_mode[16];        /* gate.timing_mode: primary timing mode, "cold" (default) or
                                    "sustained" (docs/performance.md) */
    char accepted_kernel[1024];  /* gate.accepted_kernel: manifest of the task's accepted kernel,
                                    relative to the task folder; "" when none */
    double regression_tolerance; /* gate.regression_tolerance δ for candidate vs accepted kernel,
                                    in (0, 1); 0 = by kernel duration (pg_cmp_default_delta) */
    char instructions[16];       /* gate.instructions: "require" (default), "warn" or "off":
                                    whether a failed instruction stage fails the submission
                                    (docs/instructions.md) */
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
 * was expected): unknown keys; schema_version 1; id equals the folder name; operation
 * (gemm, gemm_nt, mha_fwd, mha_bwd) and causal (a boolean, attention only); symbols
 * (1..PG_MAX_SYMBOLS unique identifiers, not a function name); derived_symbols (optional: an
 * object of new unique identifiers to expressions over the symbols, at most PG_MAX_SYMBOLS
 * symbols in all; each workload's value of one is its expression's, which must be >= 1);
 * tensors (unique names that are
 * not dtype names, 1..PG_MAX_DIMS dims that are declared symbols, dtype, layout "row_major" or,
 * for gemm tensors of 2 or more dims, "col_major" (the last two dims swapped into storage
 * order), role "input"/"output"); parameters (gemm only: an object of finite numbers alpha and
 * beta within fp32 range, defaults 1 and 0); the operation's contract (task_ops.h); flops and
 * coverage_flops
 * expressions over the symbols; workloads (1..PG_MAX_WORKLOADS, every symbol that is not
 * derived bound to a positive integer and nothing else (a derived one is computed), names and aliases unique and made of [A-Za-z0-9_.-], and
 * the operation's per-workload rules); tolerances (keys are dtypes or output tensor names,
 * atol/rtol/max_rel_l2 finite >= 0, a tolerance for every output by name or dtype); targets
 * shape and arch names; baseline (library "cublaslt" for gemm, "cudnn" for attention,
 * compute "fp32", or "tf32" for a gemm with fp32 A and B, max_candidates 1..64);
 * gate.min_speedup > 0, gate.timing_mode
 * "cold"/"sustained", gate.accepted_kernel a relative path, gate.regression_tolerance in
 * (0, 1); gate.instructions require|warn|off (optional); gate.nondeterminism "warn" (default)
 * or "fail"; gate.sanitizer "fail" (default) or "warn"; default_arch sm_XX[a]. Targets
 * are checked against the per-architecture instruction tables separately (model/targets.h),
 * since those live outside the task. */
pg_status pg_task_load_file(const char *path, pg_task **out, pg_diag *d);

/* True for the timing modes of the performance stage: "cold" and "sustained". */
bool pg_timing_mode_valid(const char *mode);

/* Free t and what it owns. t may be NULL. */
void pg_task_free(pg_task *t);

/* Tolerance keyed by dtype; NULL if the task has none. Borrowed from t. */
const pg_tolerance *pg_task_tolerance(const pg_task *t, pg_dtype dtype);

/* Tolerance of output tensor index `tensor`: the one keyed by its name, else the one keyed by
 * its dtype; NULL when neither exists (never for a loaded task's outputs). Borrowed from t. */
const pg_tolerance *pg_task_output_tolerance(const pg_task *t, int tensor);

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

/* The most bytes one tensor may take: 2^40 (1 TiB, above any GPU's memory; the bound of a
 * workspace too, plan.h PG_MAX_WORKSPACE_BYTES). */
#define PG_MAX_TENSOR_BYTES ((int64_t)1 << 40)

/* Elements of tensor index `tensor` for workload w (product of its dims' values) into *out.
 * Errors: PG_ERR_INPUT (file = task file, field "tensors[i].dims") when the product overflows
 * 64 bits, the tensor would take more than PG_MAX_TENSOR_BYTES, or tensor is out of range. */
pg_status pg_task_tensor_elements(const pg_task *t, int tensor, const pg_workload *w,
                                  uint64_t *out, pg_diag *d);

/* True when arch is a valid architecture name: "sm_" then 2 or 3 digits, optionally "a"
 * (sm_90, sm_90a, sm_100a). */
bool pg_arch_name_valid(const char *arch);

#endif
