/* The data-folder resolver: environment, then the installed share/ptxgate next to the binary,
 * then the source tree a build folder names (gate/base/datadir.h). */
#include "datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *env, *name, *source_subdir;
} k_kinds[PG_DATA_KINDS] = {
    [PG_DATA_TASKS] = {"PTXGATE_TASKS", "tasks", "tasks"},
    [PG_DATA_ARCH] = {"PTXGATE_ARCH_DATA", "arch", "data/arch"},
    [PG_DATA_METRICS] = {"PTXGATE_METRICS_DATA", "metrics", "data/metrics"},
    [PG_DATA_SCHEMAS] = {"PTXGATE_SCHEMAS", "schemas", "schemas"},
    [PG_DATA_BASELINES] = {"PTXGATE_BASELINES", "baselines", "baselines"},
};

const char *pg_data_env_name(pg_data_kind k)
{
    return k < PG_DATA_KINDS ? k_kinds[k].env : "";
}

const char *pg_data_name(pg_data_kind k)
{
    return k < PG_DATA_KINDS ? k_kinds[k].name : "";
}

const char *pg_data_origin_name(pg_data_origin o)
{
    switch (o) {
    case PG_DATA_FROM_ENV: return "environment";
    case PG_DATA_FROM_ARCH_ENV: return "next to $PTXGATE_ARCH_DATA";
    case PG_DATA_FROM_INSTALL: return "installed";
    case PG_DATA_FROM_SOURCE: return "source tree";
    default: return "not found";
    }
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The source root named in <exe dir>/ptxgate-source-root (first line), "" when absent. */
static void source_root(const char *exe_dir, char *out, size_t n)
{
    char marker[4200];
    out[0] = '\0';
    snprintf(marker, sizeof marker, "%s/ptxgate-source-root", exe_dir);
    FILE *f = fopen(marker, "r");
    if (!f)
        return;
    if (fgets(out, (int)n, f))
        out[strcspn(out, "\r\n")] = '\0';
    else
        out[0] = '\0';
    fclose(f);
}

pg_data_origin pg_data_resolve(pg_data_kind k, const char *exe, char *out, size_t n)
{
    out[0] = '\0';
    if (k >= PG_DATA_KINDS || n == 0)
        return PG_DATA_NOT_FOUND;
    const char *env = getenv(k_kinds[k].env);
    if (env && env[0]) {
        snprintf(out, n, "%s", env);
        return PG_DATA_FROM_ENV;
    }
    if (k == PG_DATA_METRICS) {
        const char *arch = getenv(k_kinds[PG_DATA_ARCH].env);
        char p[4200];
        snprintf(p, sizeof p, "%s/../metrics", arch ? arch : "");
        if (arch && arch[0] && is_dir(p)) {
            snprintf(out, n, "%s", p);
            return PG_DATA_FROM_ARCH_ENV;
        }
    }
    if (!exe || exe[0] != '/')
        return PG_DATA_NOT_FOUND;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", exe);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    char p[4400];
    snprintf(p, sizeof p, "%s/../share/ptxgate/%s", dir[0] ? dir : "", k_kinds[k].name);
    if (is_dir(p)) {
        snprintf(out, n, "%s", p);
        return PG_DATA_FROM_INSTALL;
    }
    char root[4096];
    source_root(dir[0] ? dir : "/", root, sizeof root);
    if (root[0] == '/') {
        snprintf(p, sizeof p, "%s/%s", root, k_kinds[k].source_subdir);
        if (is_dir(p)) {
            snprintf(out, n, "%s", p);
            return PG_DATA_FROM_SOURCE;
        }
    }
    return PG_DATA_NOT_FOUND;
}

const char *pg_data_dir(pg_data_kind k, pg_data_origin *origin)
{
    static char dirs[PG_DATA_KINDS][4096];
    static pg_data_origin origins[PG_DATA_KINDS];
    static bool done[PG_DATA_KINDS];
    if (k >= PG_DATA_KINDS) {
        if (origin)
            *origin = PG_DATA_NOT_FOUND;
        return NULL;
    }
    if (!done[k]) {
        char exe[4096];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[len > 0 ? len : 0] = '\0';
        origins[k] = pg_data_resolve(k, exe, dirs[k], sizeof dirs[k]);
        done[k] = true;
    }
    if (origin)
        *origin = origins[k];
    return origins[k] == PG_DATA_NOT_FOUND ? NULL : dirs[k];
}

const char *pg_data_missing_fix(pg_data_kind k)
{
    switch (k) {
    case PG_DATA_TASKS:
        return "set PTXGATE_TASKS or pass --tasks DIR, or install ptxgate (cmake --install, or "
               "the release package) so that share/ptxgate/tasks is next to bin/ptxgate";
    case PG_DATA_ARCH:
        return "set PTXGATE_ARCH_DATA to the folder of <arch>.json tables, or install ptxgate "
               "so that share/ptxgate/arch is next to bin/ptxgate";
    case PG_DATA_METRICS:
        return "set PTXGATE_METRICS_DATA, or install ptxgate so that share/ptxgate/metrics is "
               "next to bin/ptxgate";
    case PG_DATA_SCHEMAS:
        return "set PTXGATE_SCHEMAS, or install ptxgate so that share/ptxgate/schemas is next "
               "to bin/ptxgate";
    case PG_DATA_BASELINES:
        return "pass --baselines DIR or set PTXGATE_BASELINES (only needed to pin stored vendor "
               "configurations)";
    default:
        return "";
    }
}
