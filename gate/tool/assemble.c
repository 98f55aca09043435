/* ptxas and nvcc runs (see assemble.h): check the inputs, find the tool, run it, parse its
 * output, and decide ok from the exit status and the produced file. */
#include "assemble.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"
#include "toolchain.h"
#include "../base/utf8.h"

#define MAX_ARGS 96

/* "sm_" + 2 or 3 digits + optional 'a' or 'f'. */
static bool arch_is_valid(const char *a)
{
    if (!a || strncmp(a, "sm_", 3) != 0)
        return false;
    size_t digits = 0;
    while (isdigit((unsigned char)a[3 + digits]))
        digits++;
    const char *rest = a + 3 + digits;
    if (*rest == 'a' || *rest == 'f')
        rest++;
    return digits >= 2 && digits <= 3 && *rest == '\0';
}

static pg_status check_inputs(const char *in_path, const char *arch, const char *out_path,
                              pg_diag *d)
{
    const char *paths[] = {in_path, out_path};
    if (!arch_is_valid(arch))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "arch",
                           "'%.*s' is not an architecture; expected sm_ and 2 or 3 digits with "
                           "an optional 'a' or 'f' (sm_90a, sm_100a)",
                           PG_UTF8_CUT(arch ? arch : "", 64), arch ? arch : "");
    for (int i = 0; i < 2; i++) {
        if (!paths[i] || !paths[i][0])
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "empty %s path",
                               i == 0 ? "input" : "output");
        if (paths[i][0] == '-')
            return pg_diag_set(d, PG_ERR_INPUT, paths[i], 0, NULL,
                               "a path starting with '-' would be read as an option; write "
                               "./%s",
                               paths[i]);
    }
    return PG_OK;
}

/* Append s to out (n bytes, used so far *used), single-quoted when it holds shell characters. */
static void append_quoted(char *out, size_t n, size_t *used, const char *s)
{
    bool plain = s[0] != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./=:+,-%@", *p);
    char piece[1200];
    size_t k = 0;
    if (plain) {
        k = (size_t)snprintf(piece, sizeof piece, "%s", s);
    } else {
        piece[k++] = '\'';
        for (const char *p = s; *p && k + 6 < sizeof piece; p++) {
            if (*p == '\'') {
                memcpy(piece + k, "'\\''", 4);
                k += 4;
            } else {
                piece[k++] = *p;
            }
        }
        piece[k++] = '\'';
        piece[k] = '\0';
    }
    if (*used < n)
        *used += (size_t)snprintf(out + *used, n - *used, "%s%s", *used ? " " : "", piece);
}

static void format_command(char *out, size_t n, const char *const argv[])
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; argv[i]; i++)
        append_quoted(out, n, &used, argv[i]);
}

/* Find tool, run it with args (NULL-terminated, without argv[0]) and fill out. out_path: the file
 * the run must produce. */
static pg_status run_tool(const char *tool, const char *env, const char *const args[],
                          const char *out_path, double timeout_s, pg_assemble_result *out,
                          pg_diag *d)
{
    const char *argv[MAX_ARGS + 2];
    pg_process_result r;
    struct stat sb;
    pg_status st;
    memset(&r, 0, sizeof r);
    if (!pg_toolchain_find(tool, out->tool_path, sizeof out->tool_path)) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                         "%s not found: set %s, put it on PATH, or set CUDA_HOME", tool, env);
        goto done;
    }
    out->tool_found = true;
    int argc = 0;
    argv[argc++] = out->tool_path;
    for (int i = 0; args[i] && argc < MAX_ARGS + 1; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    format_command(out->command, sizeof out->command, argv);
    if (unlink(out_path) != 0 && errno != ENOENT) {
        st = pg_diag_set(d, PG_ERR_INPUT, out_path, 0, NULL, "cannot remove the old output: %s",
                         strerror(errno));
        goto done;
    }
    if ((st = pg_process_run(argv, timeout_s, PG_ASSEMBLE_MAX_OUTPUT, &r, d)) != PG_OK)
        goto done;
    out->raw_output = r.output;
    r.output = NULL;
    out->exit_code = r.exit_code;
    out->timed_out = r.timed_out;
    out->wall_s = r.wall_s;
    if ((st = pg_ptxas_log_parse(out->raw_output, &out->log)) != PG_OK) {
        st = pg_diag_set(d, st, NULL, 0, NULL, "out of memory parsing the %s output", tool);
        goto done;
    }
    out->ok = !r.timed_out && r.exit_code == 0 && stat(out_path, &sb) == 0 &&
              S_ISREG(sb.st_mode) && sb.st_size > 0;
done:
    pg_process_result_free(&r);
    return st;
}

/* base (NULL-terminated) with extra (NULL-terminated, may be NULL) inserted before its last
 * `tail` entries, into args (MAX_ARGS + 1 entries). */
static void with_extra(const char *const *base, int tail, const char *const *extra,
                       const char **args)
{
    int nb = 0, k = 0;
    while (base[nb])
        nb++;
    for (int i = 0; i < nb - tail && k < MAX_ARGS; i++)
        args[k++] = base[i];
    for (int i = 0; extra && extra[i] && k < MAX_ARGS; i++)
        args[k++] = extra[i];
    for (int i = nb - tail; i < nb && k < MAX_ARGS; i++)
        args[k++] = base[i];
    args[k] = NULL;
}

/* The three runs of a toolkit tool: ptxas PTX -> cubin, nvcc .cu -> PTX, nvcc's include list. */
typedef enum { STEP_PTXAS, STEP_CU_TO_PTX, STEP_CU_INCLUDES } tool_step;

/* One run of step: *out reset, in_path, arch and produced (the file it writes) checked, then the
 * tool with extra inserted before the base arguments' tail (the output and input operands). */
static pg_status run_step(tool_step step, const char *in_path, const char *arch,
                          const char *produced, const char *const *extra, double timeout_s,
                          pg_assemble_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    pg_status st = check_inputs(in_path, arch, produced, d);
    if (st != PG_OK)
        return st;
    char arch_flag[32];
    snprintf(arch_flag, sizeof arch_flag, "-arch=%s", arch);
    const char *ptxas[] = {arch_flag, "-v", "-lineinfo", "--warn-on-spills", "-o", produced,
                           in_path, NULL};
    const char *ptx[] = {"-ptx", arch_flag, "-lineinfo", "-o", produced, in_path, NULL};
    /* The compile's own flags, so the same passes (device and host preprocessing) and macros
     * pick the same headers; -H prints the include tree for naming who included what. */
    const char *deps[] = {"-ptx", arch_flag, "-lineinfo", "-M", "-MF", produced,
                          "-Xcompiler", "-H", in_path, NULL};
    const char *args[MAX_ARGS + 1];
    if (step == STEP_PTXAS) {
        with_extra(ptxas, 3, extra, args);
        return run_tool("ptxas", "PTXGATE_PTXAS", args, produced, timeout_s, out, d);
    }
    with_extra(step == STEP_CU_TO_PTX ? ptx : deps, step == STEP_CU_TO_PTX ? 3 : 6, extra, args);
    return run_tool("nvcc", "PTXGATE_NVCC", args, produced, timeout_s, out, d);
}

pg_status pg_assemble_ptx(const char *ptx_path, const char *arch, const char *cubin_path,
                          const char *const *extra, double timeout_s, pg_assemble_result *out,
                          pg_diag *d)
{
    return run_step(STEP_PTXAS, ptx_path, arch, cubin_path, extra, timeout_s, out, d);
}

pg_status pg_compile_cu_to_ptx(const char *cu_path, const char *arch, const char *ptx_path,
                               const char *const *extra, double timeout_s,
                               pg_assemble_result *out, pg_diag *d)
{
    return run_step(STEP_CU_TO_PTX, cu_path, arch, ptx_path, extra, timeout_s, out, d);
}

pg_status pg_list_cu_includes(const char *cu_path, const char *arch, const char *dep_path,
                              const char *const *extra, double timeout_s,
                              pg_assemble_result *out, pg_diag *d)
{
    return run_step(STEP_CU_INCLUDES, cu_path, arch, dep_path, extra, timeout_s, out, d);
}

void pg_assemble_result_free(pg_assemble_result *r)
{
    if (!r)
        return;
    pg_ptxas_log_free(&r->log);
    free(r->raw_output);
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
}
