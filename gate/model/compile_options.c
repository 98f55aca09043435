/* A manifest's compile options: reading them and the flag allowlists (see compile_options.h). */
#include "compile_options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_ident(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

static bool all_of(const char *s, const char *set)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(set, *s))
            return false;
    return true;
}

static bool is_bool_value(const char *s)
{
    return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
}

/* -DNAME, -DNAME=value, -UNAME. */
static bool macro_flag(const char *flag)
{
    if (!starts(flag, "-D") && !starts(flag, "-U"))
        return false;
    const char *name = flag + 2, *eq = strchr(name, '=');
    if (flag[1] == 'U')
        return is_ident(name, strlen(name));
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    return is_ident(name, n) && (!eq || all_of(eq + 1, "_.+-"));
}

/* One of the refused families: why it is refused, or NULL. prefixes end a family's list with
 * NULL; "=" forms and joined values ("-ofoo") match by prefix. */
static const char *refused_family(const char *flag, bool ptxas)
{
    static const char *const output[] = {"-o",    "--output-file", "-odir", "--output-directory",
                                         "--keep", "-keep",        "--keep-dir", "-MF", "-MD",
                                         "-MMD",   "--dependency-output", "-save-temps", NULL};
    static const char *const run[] = {"-run", "--run", "-ccbin", "--compiler-bindir",
                                      "-Xcompiler", "--compiler-options", "-Xlinker",
                                      "--linker-options", "-Xptxas", "--ptxas-options",
                                      "-Xnvlink", "--nvlink-options", "-Xarchive",
                                      "--archive-options", "--dryrun", "-dryrun", "-optf",
                                      "--options-file", "-E", "-M", NULL};
    static const char *const target[] = {"-arch", "--gpu-architecture", "-gencode",
                                         "--generate-code", "-code", "--gpu-code", "--gpu-name",
                                         "-m32", "-m64", "--machine", NULL};
    static const char *const include[] = {"-I", "--include-path", "-isystem", "--system-include",
                                          "-include", "--pre-include", "-L", "--library-path",
                                          "-l", "--library", NULL};
    static const struct {
        const char *const *list;
        const char *why;
    } families[] = {
        {output, "it names output files (ptxgate chooses every file a tool writes)"},
        {run, "it runs or configures other programs (host compilers, linkers, option files)"},
        {target, "it changes the target architecture (the task's default_arch or the "
                 "manifest's \"arch\" chooses it)"},
        {include, "it adds include or library paths: list include folders under "
                  "\"compile.include_dirs\", which must lie inside the submission root"},
    };
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        if (ptxas && families[f].list == include)
            continue;
        for (const char *const *p = families[f].list; *p; p++) {
            size_t n = strlen(*p);
            /* "-o" matches "-o", "-ofile" and "-o=x" but "-odir" is listed on its own; single
             * letters match joined values, long names exact or with "=". */
            if (strncmp(flag, *p, n) == 0 &&
                (flag[n] == '\0' || flag[n] == '=' || (n == 2 && (*p)[0] == '-')))
                return families[f].why;
        }
    }
    return NULL;
}

bool pg_compile_nvcc_flag_check(const char *flag, char *why, size_t n)
{
    static const char *const exact[] = {"-lineinfo", "--expt-relaxed-constexpr",
                                        "--expt-extended-lambda",
                                        "--extended-lambda",        "-use_fast_math",
                                        "--use_fast_math",          "--restrict",
                                        "-w",                       "--display-error-number",
                                        "-Wno-deprecated-gpu-targets",
                                        "-Wno-deprecated-declarations", NULL};
    static const char *const bool_opts[] = {"-ftz=", "-prec-div=", "-prec-sqrt=", "-fmad=",
                                            "--ftz=", "--prec-div=", "--prec-sqrt=", "--fmad=",
                                            NULL};
    for (const char *const *p = exact; *p; p++)
        if (strcmp(flag, *p) == 0)
            return true;
    for (const char *const *p = bool_opts; *p; p++)
        if (starts(flag, *p) && is_bool_value(flag + strlen(*p)))
            return true;
    if (macro_flag(flag))
        return true;
    if (starts(flag, "--diag-suppress=") && flag[16] && all_of(flag + 16, ","))
        return true;
    const char *fam = refused_family(flag, false);
    snprintf(why, n, "%s",
             fam ? fam
                 : starts(flag, "-D") || starts(flag, "-U")
                     ? "a macro must be -DNAME, -DNAME=value (letters, digits, _ . + -) or -UNAME"
                     : "it is not on the allowlist of nvcc flags (docs/formats.md, compile)");
    return false;
}

bool pg_compile_ptxas_flag_check(const char *flag, char *why, size_t n)
{
    static const char *const exact[] = {"-O0", "-O1", "-O2", "-O3",
                                        "--warn-on-local-memory-usage",
                                        "--warn-on-double-precision-use",
                                        "--allow-expensive-optimizations=true",
                                        "--allow-expensive-optimizations=false",
                                        "-dlcm=ca", "-dlcm=cg", "-dlcm=cv", "-dlcm=cs",
                                        "-dscm=wb", "-dscm=cg", "-dscm=cs", "-dscm=wt", NULL};
    for (const char *const *p = exact; *p; p++)
        if (strcmp(flag, *p) == 0)
            return true;
    const char *v = starts(flag, "-maxrregcount=")    ? flag + 14
                    : starts(flag, "--maxrregcount=") ? flag + 15
                                                      : NULL;
    if (v && *v && strlen(v) <= 3 && all_of(v, "") && atoi(v) >= 16 && atoi(v) <= 255)
        return true;
    const char *fam = refused_family(flag, true);
    snprintf(why, n, "%s",
             fam ? fam
             : v ? "-maxrregcount takes a register count from 16 to 255"
                 : "it is not on the allowlist of ptxas flags (docs/formats.md, compile)");
    return false;
}

/* obj[key], when present: an array of at most max strings, each checked by check (NULL: none)
 * and copied into out[i] (width bytes). */
static pg_status get_strings(const json_t *obj, const pg_jctx *ctx, const char *key, int max,
                             char *out, size_t width, int *count,
                             bool (*check)(const char *, char *, size_t), pg_diag *d)
{
    json_t *arr = NULL;
    pg_status st = pg_jget_array(obj, ctx, key, false, &arr, d);
    if (st != PG_OK || !arr)
        return st;
    pg_jctx ac = pg_jctx_member(ctx, key);
    if (json_array_size(arr) > (size_t)max)
        return pg_diag_set(d, PG_ERR_INPUT, ac.file, 0, ac.path, "expected at most %d entries, found %zu",
                           max, json_array_size(arr));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        pg_jctx c = pg_jctx_index(&ac, i);
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) >= width || strlen(json_string_value(v)) != json_string_length(v))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a non-empty string of at most %zu characters, found %s",
                               width - 1, json_is_string(v) ? "another string" : pg_json_type_name(v));
        const char *s = json_string_value(v);
        char why[256];
        if (check && !check(s, why, sizeof why))
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path, "refused flag '%s': %s", s,
                               why);
        snprintf(out + i * width, width, "%s", s);
        *count = (int)i + 1;
    }
    return PG_OK;
}

pg_status pg_compile_options_from_json(const json_t *obj, const pg_jctx *ctx,
                                       pg_compile_options *out, pg_diag *d)
{
    static const char *const keys[] = {"std", "flags", "include_dirs", "ptxas_flags", NULL};
    static const char *const stds[] = {"c++11", "c++14", "c++17", "c++20", NULL};
    char f[300];
    memset(out, 0, sizeof *out);
    if (!json_is_object(obj))
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected a compile object {\"std\", \"flags\", \"include_dirs\", "
                           "\"ptxas_flags\"}, found %s", pg_json_type_name(obj));
    pg_status st = pg_jcheck_keys(obj, ctx, keys, d);
    const char *std = NULL;
    if (st == PG_OK)
        st = pg_jget_string(obj, ctx, "std", false, &std, d);
    if (st != PG_OK)
        return st;
    if (std) {
        bool known = false;
        for (const char *const *p = stds; *p && !known; p++)
            known = strcmp(std, *p) == 0;
        if (!known)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, "std", f, sizeof f),
                               "unknown std '%s'; accepted: c++11, c++14, c++17, c++20", std);
        snprintf(out->std, sizeof out->std, "%s", std);
    }
    st = get_strings(obj, ctx, "flags", PG_COMPILE_MAX_FLAGS, out->flags[0], sizeof out->flags[0],
                     &out->n_flags, pg_compile_nvcc_flag_check, d);
    if (st == PG_OK)
        st = get_strings(obj, ctx, "include_dirs", PG_COMPILE_MAX_INCLUDE_DIRS,
                         out->include_dirs[0], sizeof out->include_dirs[0], &out->n_include_dirs,
                         NULL, d);
    if (st == PG_OK)
        st = get_strings(obj, ctx, "ptxas_flags", PG_COMPILE_MAX_FLAGS, out->ptxas_flags[0],
                         sizeof out->ptxas_flags[0], &out->n_ptxas_flags,
                         pg_compile_ptxas_flag_check, d);
    for (int i = 0; st == PG_OK && i < out->n_include_dirs; i++)
        if (out->include_dirs[i][0] == '/' || out->include_dirs[i][0] == '-') {
            pg_jctx ic = pg_jctx_member(ctx, "include_dirs");
            pg_jctx c = pg_jctx_index(&ic, (size_t)i);
            return pg_diag_set(d, PG_ERR_INPUT, c.file, 0, c.path,
                               "expected a folder relative to the manifest's folder, found '%s'",
                               out->include_dirs[i]);
        }
    return st;
}
