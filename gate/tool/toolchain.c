/* Finding the CUDA command-line tools (see toolchain.h). */
#include "toolchain.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ptx/ptxas_log.h"
#include "process.h"

static const struct {
    const char *tool, *env;
    bool beside_ptxas;
    bool in_tools_venv; /* scripts/sass-tools.sh links it into the tools venv's bin */
} tools[] = {
    {"ptxas", "PTXGATE_PTXAS", false, false},
    {"nvcc", "PTXGATE_NVCC", false, false},
    {"nvdisasm", "PTXGATE_NVDISASM", true, true},
    {"cuobjdump", "PTXGATE_CUOBJDUMP", true, true},
    {"compute-sanitizer", "PTXGATE_COMPUTE_SANITIZER", true, false},
};

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* dir/tool into out when that is an executable file. */
static bool try_dir(const char *dir, size_t dir_len, const char *tool, char *out, size_t n)
{
    if (dir_len == 0) /* an empty $PATH element means the current folder */
        return false;
    int w = snprintf(out, n, "%.*s/%s", (int)dir_len, dir, tool);
    return w > 0 && (size_t)w < n && is_executable_file(out);
}

static bool try_path_list(const char *list, const char *tool, char *out, size_t n)
{
    while (list && *list) {
        const char *colon = strchr(list, ':');
        size_t len = colon ? (size_t)(colon - list) : strlen(list);
        if (try_dir(list, len, tool, out, n))
            return true;
        list = colon ? colon + 1 : NULL;
    }
    return false;
}

/* dir/tool, or for compute-sanitizer also dir/../compute-sanitizer/compute-sanitizer (where
 * the CUDA toolkit keeps the real program). */
static bool try_toolkit_dir(const char *dir, size_t len, const char *tool, char *out, size_t n)
{
    if (try_dir(dir, len, tool, out, n))
        return true;
    if (strcmp(tool, "compute-sanitizer") != 0)
        return false;
    char sub[PATH_MAX];
    int w = snprintf(sub, sizeof sub, "%.*s/../compute-sanitizer", (int)len, dir);
    return w > 0 && (size_t)w < sizeof sub && try_dir(sub, strlen(sub), tool, out, n);
}

/* The folder of the ptxas that would be used, and of its real path. */
static bool try_beside_ptxas(const char *tool, char *out, size_t n)
{
    char ptxas[PATH_MAX], real[PATH_MAX];
    if (!pg_toolchain_find("ptxas", ptxas, sizeof ptxas))
        return false;
    const char *slash = strrchr(ptxas, '/');
    if (slash && try_toolkit_dir(ptxas, (size_t)(slash - ptxas), tool, out, n))
        return true;
    if (!realpath(ptxas, real))
        return false;
    slash = strrchr(real, '/');
    return slash && try_toolkit_dir(real, (size_t)(slash - real), tool, out, n);
}

bool pg_toolchain_tools_venv_bin(char *out, size_t n)
{
    const char *venv = getenv("PTXGATE_TOOLS_VENV"), *cache = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int w = -1;
    if (venv && venv[0])
        w = snprintf(out, n, "%s/bin", venv);
    else if (cache && cache[0])
        w = snprintf(out, n, "%s/ptxgate/tools-venv/bin", cache);
    else if (home && home[0])
        w = snprintf(out, n, "%s/.cache/ptxgate/tools-venv/bin", home);
    if (w > 0 && (size_t)w < n)
        return true;
    if (n > 0)
        out[0] = '\0';
    return false;
}

static bool try_tools_venv(const char *tool, char *out, size_t n)
{
    char bin[PATH_MAX];
    return pg_toolchain_tools_venv_bin(bin, sizeof bin) && try_dir(bin, strlen(bin), tool, out, n);
}

bool pg_toolchain_find(const char *tool, char *path_out, size_t n)
{
    bool found = false;
    if (n == 0)
        return false;
    path_out[0] = '\0';
    for (size_t i = 0; tool && i < sizeof tools / sizeof tools[0] && !found; i++) {
        if (strcmp(tool, tools[i].tool) != 0)
            continue;
        const char *env = getenv(tools[i].env);
        if (env && env[0]) {
            found = is_executable_file(env) && strlen(env) < n;
            if (found)
                snprintf(path_out, n, "%s", env);
            break;
        }
        const char *cuda_home = getenv("CUDA_HOME");
        char home_bin[PATH_MAX];
        snprintf(home_bin, sizeof home_bin, "%s/bin", cuda_home ? cuda_home : "");
        found = try_path_list(getenv("PATH"), tool, path_out, n) ||
                (cuda_home && cuda_home[0] &&
                 try_toolkit_dir(home_bin, strlen(home_bin), tool, path_out, n)) ||
                try_toolkit_dir("/usr/local/cuda/bin", 19, tool, path_out, n) ||
                (tools[i].beside_ptxas && try_beside_ptxas(tool, path_out, n)) ||
                (tools[i].in_tools_venv && try_tools_venv(tool, path_out, n));
    }
    if (!found)
        path_out[0] = '\0';
    return found;
}

/* "<tool> --version" (30 s limit) parsed like ptxas's ("Cuda compilation tools, release 13.2,
 * V13.2.86": every CUDA command-line tool prints that line). */
static bool tool_version(const char *tool, char *out, size_t n)
{
    char path[PATH_MAX];
    pg_process_result r;
    bool ok = false;
    if (n > 0)
        out[0] = '\0';
    if (!pg_toolchain_find(tool, path, sizeof path))
        return false;
    const char *argv[] = {path, "--version", NULL};
    if (pg_process_run(argv, 30.0, 64 * 1024, &r, NULL) == PG_OK && r.exit_code == 0)
        ok = pg_ptxas_parse_version(r.output, out, n);
    pg_process_result_free(&r);
    return ok;
}

bool pg_toolchain_ptxas_version(char *out, size_t n)
{
    return tool_version("ptxas", out, n);
}

bool pg_toolchain_disassembler(char *tool_out, size_t tool_n, char *version_out, size_t version_n)
{
    char path[PATH_MAX];
    const char *tool = pg_toolchain_find("nvdisasm", path, sizeof path) ? "nvdisasm"
                       : pg_toolchain_find("cuobjdump", path, sizeof path) ? "cuobjdump"
                                                                          : NULL;
    if (version_n > 0)
        version_out[0] = '\0';
    snprintf(tool_out, tool_n, "%s", tool ? tool : "");
    if (tool)
        tool_version(tool, version_out, version_n);
    return tool != NULL;
}
