/* A manifest's "compile" object (docs/formats.md "compile"): the C++ standard, nvcc flags,
 * include folders and ptxas flags a kernel needs, each flag checked against an allowlist so
 * that a pull request can never make a tool write elsewhere, run a program, change the target
 * architecture or read include paths outside the submission root. */
#ifndef PG_MODEL_COMPILE_OPTIONS_H
#define PG_MODEL_COMPILE_OPTIONS_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/diag.h"
#include "../base/jsonget.h"

#define PG_COMPILE_MAX_FLAGS 32
#define PG_COMPILE_MAX_INCLUDE_DIRS 16
#define PG_COMPILE_FLAG_MAX 256 /* bytes of one flag, NUL included */

/* The object as written. std: "" (nvcc's default) or "c++11", "c++14", "c++17", "c++20".
 * flags: nvcc flags, each one argument ("-DBM=128", "--expt-relaxed-constexpr").
 * include_dirs: folders relative to the manifest's folder, resolved and checked against the
 * submission root by the pipeline. ptxas_flags: ptxas arguments ("-maxrregcount=168"). */
typedef struct {
    char std[8];
    char flags[PG_COMPILE_MAX_FLAGS][PG_COMPILE_FLAG_MAX];
    int n_flags;
    char include_dirs[PG_COMPILE_MAX_INCLUDE_DIRS][1024];
    int n_include_dirs;
    char ptxas_flags[PG_COMPILE_MAX_FLAGS][PG_COMPILE_FLAG_MAX];
    int n_ptxas_flags;
} pg_compile_options;

/* Read obj (ctx at "compile") into *out (zeroed first). Keys: "std", "flags", "include_dirs",
 * "ptxas_flags", all optional. Errors (PG_ERR_INPUT naming ctx->file and the field, e.g.
 * "compile.flags[2]"): not an object, unknown keys, wrong types, more than the limits above, an
 * unknown std, an empty include folder or one that is absolute, and any flag
 * pg_compile_nvcc_flag_check / pg_compile_ptxas_flag_check refuses. */
pg_status pg_compile_options_from_json(const json_t *obj, const pg_jctx *ctx,
                                       pg_compile_options *out, pg_diag *d);

/* Whether nvcc may take flag (one argument). Accepted (the allowlist, docs/formats.md):
 * -D<NAME>[=<value>] and -U<NAME> (NAME an identifier, value of [A-Za-z0-9_.+-]),
 * --expt-relaxed-constexpr, --expt-extended-lambda, --extended-lambda, -use_fast_math /
 * --use_fast_math, -ftz=, -prec-div=, -prec-sqrt=, -fmad= (true or false), --restrict,
 * -w, --display-error-number, --diag-suppress=<numbers>, -Wno-deprecated-gpu-targets,
 * -Wno-deprecated-declarations. Refused, with why in why (n bytes): output files (-o,
 * --output-file, -odir, --keep, --keep-dir, -MF, ...), running programs (-run, -ccbin,
 * --compiler-bindir, -Xcompiler, -Xlinker, -Xptxas, ...), the target architecture (-arch,
 * -gencode, -code, ...), include paths (-I, -isystem, --include-path, -include: use
 * include_dirs) and everything else. */
bool pg_compile_nvcc_flag_check(const char *flag, char *why, size_t n);

/* The same for ptxas: -maxrregcount=N / --maxrregcount=N (N 16..255), -O0..-O3,
 * --allow-expensive-optimizations=true|false, -dlcm=ca|cg|cv|cs, -dscm=wb|cg|cs|wt,
 * --warn-on-local-memory-usage, --warn-on-double-precision-use. Refused: output files (-o,
 * --output-file), the architecture (-arch, --gpu-name) and everything else. */
bool pg_compile_ptxas_flag_check(const char *flag, char *why, size_t n);

#endif
