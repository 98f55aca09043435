/* `ptxgate doctor`: which data folders, tools and libraries this installation finds, their
 * versions, and the fix for each missing one. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "cli.h"
#include "device/device.h"
#include "options.h"
#include "ptx/ptxas_log.h"
#include "tool/process.h"
#include "tool/toolchain.h"

static pg_option k_options[] = {
    {"gpu", NULL, "Also require what a GPU run needs (the driver, NVML, cuBLASLt, CUPTI and the metric lists): exit 3 when one is missing.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "doctor",
    "ptxgate doctor [--gpu]",
    "Print the data folders (tasks, PTX -> SASS tables, metric lists, schemas, shipped baselines), "
    "tools (ptxas, nvcc, nvdisasm, cuobjdump, compute-sanitizer) and libraries (driver, NVML, "
    "cuBLASLt, CUPTI, cuDNN) this ptxgate finds, with versions, and the fix for what is missing. "
    "Needs no GPU and creates no CUDA context.",
    "Data folders are looked up as every command does: the environment variable (PTXGATE_TASKS,\n"
    "PTXGATE_ARCH_DATA, PTXGATE_METRICS_DATA, PTXGATE_SCHEMAS, PTXGATE_BASELINES), else the\n"
    "installed share/ptxgate/<name> next to the binary (../share/ptxgate), else the source tree\n"
    "of a build folder; tasks also ./tasks first. Tools as in ptxgate check --help.\n"
    "Exit codes: 0 everything required is found (offline checks: tasks, tables, ptxas; with\n"
    "--gpu also the driver, NVML, cuBLASLt, CUPTI and metric lists); 3 something required is\n"
    "missing (listed with its fix); 2 usage error. Optional pieces (nvcc, a disassembler,\n"
    "compute-sanitizer, cuDNN) never change the exit code.",
    "  ptxgate doctor\n"
    "  ptxgate doctor --gpu",
    k_options,
};

/* Count the *.json files of dir and list up to a few names (without .json) into names. */
static int count_json(const char *dir, char *names, size_t n)
{
    DIR *dp = opendir(dir);
    int count = 0;
    names[0] = '\0';
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        size_t used = strlen(names);
        if (count < 6)
            snprintf(names + used, n - used, "%s%.*s", count ? ", " : "", (int)(len - 5), e->d_name);
        count++;
    }
    closedir(dp);
    return count;
}

/* Count the subfolders of dir holding file (e.g. task.json). */
static int count_subdirs_with(const char *dir, const char *file)
{
    DIR *dp = opendir(dir);
    int count = 0;
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp))) {
        char p[4400];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/%s", dir, e->d_name, file);
        count += stat(p, &st) == 0 && S_ISREG(st.st_mode);
    }
    closedir(dp);
    return count;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One data folder line; returns whether it was found. */
static bool data_line(pg_data_kind k, const char *dir, const char *origin)
{
    char names[512] = "", what[700] = "";
    if (!dir || !is_dir(dir)) {
        printf("  %-18s missing  %s%s%s%s\n               fix: %s\n", pg_data_name(k),
               dir ? dir : "", dir ? " is not a folder (" : "", dir ? origin : "",
               dir ? ")" : "", pg_data_missing_fix(k));
        return false;
    }
    if (k == PG_DATA_TASKS)
        snprintf(what, sizeof what, "%d tasks", count_subdirs_with(dir, "task.json"));
    else if (k == PG_DATA_ARCH || k == PG_DATA_METRICS) {
        int c = count_json(dir, names, sizeof names);
        snprintf(what, sizeof what, "%d: %s", c, names);
    } else if (k == PG_DATA_SCHEMAS) {
        count_json(dir, names, sizeof names);
        snprintf(what, sizeof what, "%s", names);
    } else {
        snprintf(what, sizeof what, "shipped; check reads ./baselines or --baselines");
    }
    printf("  %-18s ok       %s (%s; %s)\n", pg_data_name(k), dir, origin, what);
    return true;
}

/* "<tool> --version" → its version (nvcc style "release 13.0, V13.0.88", or "Version X"). */
static void tool_version(const char *path, char *out, size_t n)
{
    const char *argv[] = {path, "--version", NULL};
    pg_process_result r;
    out[0] = '\0';
    if (pg_process_run(argv, 30.0, 64 * 1024, &r, NULL) == PG_OK && r.exit_code == 0 &&
        !pg_ptxas_parse_version(r.output, out, n)) {
        const char *v = strstr(r.output, "Version ");
        if (v)
            snprintf(out, n, "%.*s", (int)strcspn(v + 8, " \r\n"), v + 8);
    }
    pg_process_result_free(&r);
}

static bool tool_line(const char *tool, const char *fix)
{
    char path[4096], version[64];
    if (!pg_toolchain_find(tool, path, sizeof path)) {
        printf("  %-18s missing  fix: %s\n", tool, fix);
        return false;
    }
    tool_version(path, version, sizeof version);
    printf("  %-18s ok       %s %s\n", tool, path, version[0] ? version : "(version unknown)");
    return true;
}

static bool lib_line(const char *name, const pg_library_probe *p, const char *fix)
{
    if (!p->version[0]) {
        printf("  %-18s missing  %s%s%s\n               fix: %s\n", name, p->path,
               p->path[0] ? ": " : "", p->reason, fix);
        return false;
    }
    printf("  %-18s ok       %s %s\n", name, p->path[0] ? p->path : "(linked)", p->version);
    return true;
}

int pg_cmd_doctor(int argc, char **argv)
{
    int npos = 0, rc;
    if (!pg_options_parse_flags(&k_spec, argc, argv, &npos, &rc))
        return rc;
    if (npos) {
        fprintf(stderr, "ptxgate doctor: takes no arguments (see 'ptxgate doctor --help')\n");
        return 2;
    }
    bool gpu = pg_option_value(&k_spec, "gpu") != NULL;
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = '\0';
    printf("ptxgate %s\nprogram  %s\n\ndata folders\n", PG_VERSION, exe);

    char missing[1024] = "", gpu_missing[1024] = "";
#define MISSING(buf, what) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? ", " : "", what)
    for (int k = 0; k < PG_DATA_KINDS; k++) {
        pg_data_origin o;
        const char *dir = pg_data_dir((pg_data_kind)k, &o);
        const char *origin = pg_data_origin_name(o);
        if (k == PG_DATA_TASKS) {
            const char *cli = pg_cli_default_tasks_dir();
            if (cli && strcmp(cli, "tasks") == 0) {
                dir = cli;
                origin = "the working directory's tasks/";
            }
        }
        bool found = data_line((pg_data_kind)k, dir, origin);
        if (!found && (k == PG_DATA_TASKS || k == PG_DATA_ARCH))
            MISSING(missing, pg_data_name((pg_data_kind)k));
        if (!found && k == PG_DATA_METRICS)
            MISSING(gpu_missing, "metric lists");
    }

    printf("\ntools\n");
    if (!tool_line("ptxas", "install the CUDA toolkit (13.x) at /usr/local/cuda or $CUDA_HOME, "
                            "put its bin/ on PATH, or set PTXGATE_PTXAS"))
        MISSING(missing, "ptxas");
    tool_line("nvcc", "needed only for .cu submissions: the CUDA toolkit's nvcc, or set "
                      "PTXGATE_NVCC");
    tool_line("nvdisasm", "the CUDA toolkit's nvdisasm, or set PTXGATE_NVDISASM (without it and "
                          "cuobjdump the SASS half of the instruction checks is skipped)");
    tool_line("cuobjdump", "the CUDA toolkit's cuobjdump, or set PTXGATE_CUOBJDUMP");
    tool_line("compute-sanitizer", "needed only for check --sanitize: the CUDA toolkit's "
                                   "compute-sanitizer, or set PTXGATE_COMPUTE_SANITIZER");

    pg_libraries_probe libs;
    pg_libraries_probe_run(&libs);
    printf("\nlibraries (GPU runs)\n");
    if (!lib_line("driver", &libs.driver, "install the NVIDIA driver (a GPU runner only; without "
                                           "it check needs --if-no-gpu skip or --no-gpu)"))
        MISSING(gpu_missing, "driver");
    if (!lib_line("NVML", &libs.nvml, "comes with the NVIDIA driver (libnvidia-ml.so.1)"))
        MISSING(gpu_missing, "NVML");
    if (!lib_line("cuBLASLt", &libs.cublaslt, "the CUDA toolkit's libcublasLt.so.13 on the "
                                              "library path"))
        MISSING(gpu_missing, "cuBLASLt");
    if (!lib_line("CUPTI", &libs.cupti, "the CUDA toolkit's libcupti on the library path"))
        MISSING(gpu_missing, "CUPTI");
    lib_line("cuDNN", &libs.cudnn, "needed only for the attention tasks' baseline: cuDNN 9 "
                                   "(libcudnn.so.9 on the library path)");
#undef MISSING

    printf("\n");
    rc = 0;
    if (missing[0]) {
        printf("missing for offline checks: %s\n", missing);
        rc = 3;
    } else {
        printf("offline checks (check --no-gpu): ready\n");
    }
    if (gpu_missing[0]) {
        printf("missing for GPU runs: %s\n", gpu_missing);
        if (gpu)
            rc = 3;
    } else {
        printf("GPU runs: the libraries are there (the GPU itself is opened only by check)\n");
    }
    return rc;
}
