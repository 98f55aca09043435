/* `ptxgate baseline refresh|show`: re-measure stored baselines on this GPU, or list them
 * (docs/baselines.md). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/datadir.h"
#include "cli.h"
#include "model/baseline.h"
#include "model/baseline_text.h"
#include "options.h"
#include "pipeline/refresh.h"

static pg_option k_refresh_options[] = {
    {"baselines", "DIR", "Folder to write <gpu-key>/<task>.json into (created if missing). Default: baselines.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --baselines folder (or on the way to it) instead of refusing it (exit 2); only together with an explicit --baselines. A link at a file's own name is refused regardless.", NULL},
    {"tasks", "DIR", "Folder of task definitions. Default: as for ptxgate check.", NULL},
    {"root", "DIR", "Submission root, as for ptxgate check: the tasks' accepted kernels are read from the tasks folder or this folder, and a .cu may include only files in them, the CUDA toolkit's and the host compiler's include folders. Default: the repository's top level (the nearest folder above the current one holding .git), else the current folder.", NULL},
    {"gpu-key", "KEY", "GPU key of the files. Default: derived from the device name (\"NVIDIA H200\" -> h200-sxm).", NULL},
    {"workloads", "LIST", "Comma-separated workload names or aliases to re-measure; the other stored entries are kept when the environment is unchanged. Default: all of each task's.", NULL},
    {"device", "N", "CUDA device ordinal. Default: 0.", NULL},
    {"timeout", "S", "Seconds allowed for one tool run or one GPU wait. Default: 60.", NULL},
    {"quiet", NULL, "No progress lines on stderr.", NULL},
    {0},
};

static pg_command_spec k_refresh = {
    "baseline refresh",
    "ptxgate baseline refresh [options] [TASK ...]",
    "Re-measure the stored baselines of the tasks (default: every task) on this GPU and write "
    "them, printing what changed (old -> new medians with intervals, configuration changes).",
    "Each task's accepted kernel (gate.accepted_kernel) runs through correctness and performance\n"
    "as in ptxgate check, with the vendor library's configuration searched (cuBLASLt's algorithm\n"
    "for GEMM tasks, cuDNN's engine configuration for attention tasks); the file stores that\n"
    "configuration, the library's median with its interval, the environment fingerprint and the\n"
    "accepted kernel's hashes and speedup. See docs/baselines.md.\n"
    "Exit codes: 0 all written, 1 an accepted kernel failed a stage, 2 usage or input error,\n"
    "3 no GPU or an infrastructure error (a task not measured keeps its old file).",
    "  ptxgate baseline refresh --baselines baselines\n"
    "  ptxgate baseline refresh --workloads m4096_n4096_k4096 --baselines /tmp/b gemm_bf16_nt",
    k_refresh_options,
};

static pg_option k_show_options[] = {
    {"baselines", "DIR", "Folder of stored baselines. Default: $PTXGATE_BASELINES, else ./baselines when it exists, else the shipped ones (the installed share/ptxgate/baselines, or the source tree's).", NULL},
    {"gpu-key", "KEY", "Only this GPU key's files. Default: every GPU key in the folder.", NULL},
    {0},
};

static pg_command_spec k_show = {
    "baseline show",
    "ptxgate baseline show [options] [TASK ...]",
    "Print stored baselines readably (no GPU needed): environment, accepted kernel, and per "
    "workload the vendor library's median with its interval, the pinned configuration and the "
    "accepted kernel's speedup.",
    "A file that does not validate is an input error naming the file and the field (exit 2).",
    "  ptxgate baseline show\n"
    "  ptxgate baseline show --gpu-key h200-sxm gemm_bf16_nt",
    k_show_options,
};

static void progress(void *ctx, const char *task, const char *sub, const char *workload,
                     const char *stage, const char *status, const char *message)
{
    if (!status)
        return;
    fprintf(stderr, "[%s/%s] %s%s%s: %s%s%s\n", task, sub, stage, workload ? " " : "",
            workload ? workload : "", status, message && message[0] ? " — " : "",
            message ? message : "");
}

static int refresh(int argc, char **argv)
{
    char **pos = NULL;
    int npos = 0;
    int rc;
    if (!pg_options_parse_cmd(&k_refresh, argc, argv, &pos, &npos, &rc))
        return rc;
    pg_refresh_options o = {
        .tasks_dir = pg_option_value(&k_refresh, "tasks") ? pg_option_value(&k_refresh, "tasks")
                                                          : pg_cli_default_tasks_dir(),
        .arch_dir = pg_cli_default_arch_dir(),
        .baselines_dir = pg_option_value(&k_refresh, "baselines")
                             ? pg_option_value(&k_refresh, "baselines")
                             : "baselines",
        .gpu_key = pg_option_value(&k_refresh, "gpu-key"),
        .root = pg_option_value(&k_refresh, "root"),
        .workloads = pg_option_value(&k_refresh, "workloads"),
        .timeout_s = 60.0,
        .progress = pg_option_value(&k_refresh, "quiet") ? NULL : progress,
    };
    o.follow_links = pg_option_value(&k_refresh, "follow-output-link") != NULL;
    if (o.follow_links && !pg_option_value(&k_refresh, "baselines")) {
        fprintf(stderr, "ptxgate baseline refresh: --follow-output-link: follows a symbolic link "
                        "only where --baselines names it; give --baselines DIR\n");
        free(pos);
        return 2;
    }
    long dev = 0;
    if (!pg_option_int(&k_refresh, "device", 0, 1024, &dev) ||
        !pg_option_double(&k_refresh, "timeout", 0.1, 86400, &o.timeout_s)) {
        free(pos);
        return 2;
    }
    o.device_ordinal = (int)dev;
    pg_refresh_result r;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_baseline_refresh(&o, (const char *const *)pos, (size_t)npos, &r, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        pg_refresh_result_free(&r);
        free(pos);
        return rc;
    }
    printf("GPU %s: baselines under %s/%s\n", r.gpu_name, o.baselines_dir, r.gpu_key);
    int written = 0, worst = 0;
    for (size_t i = 0; i < r.n; i++) {
        const pg_refresh_task *t = &r.tasks[i];
        if (t->updated) {
            char *text = pg_baseline_diff_text(t->old, t->updated, t->path);
            fputs(text ? text : "(out of memory)\n", stdout);
            free(text);
            if (t->dropped)
                printf("  %d stored entr%s not re-measured and dropped (measured under another "
                       "environment or accepted kernel, or sizes changed)\n",
                       t->dropped, t->dropped == 1 ? "y" : "ies");
            written++;
        } else {
            printf("%s: NOT written (exit %d)\n", t->task, t->exit_code);
        }
        if (t->message[0])
            printf("  note: %s\n", t->message);
        worst = t->exit_code == 3 || worst == 3 ? 3 : t->exit_code > worst ? t->exit_code : worst;
    }
    printf("wrote %d of %zu baseline file%s\n", written, r.n, r.n == 1 ? "" : "s");
    pg_refresh_result_free(&r);
    free(pos);
    return worst;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entries of dir (owned strings in *out, *n of them): with want_dirs, its folders (the
 * GPU keys; plain files such as a README are skipped; an entry that cannot be read, such as a
 * symbolic link loop, is PG_ERR_INPUT naming it), else the names ending in ".json" (the stored
 * baselines, checked by the caller with pg_baseline_exists). Hidden entries are skipped. */
static pg_status list_dir(const char *dir, bool want_dirs, char ***out, size_t *n, pg_diag *d)
{
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    *out = NULL;
    DIR *dp = opendir(dir);
    if (!dp)
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, NULL, "cannot open the folder: %s",
                           strerror(errno));
    pg_status st = PG_OK;
    struct dirent *e;
    while (st == PG_OK && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(e->d_name);
        bool json = len >= 6 && strcmp(e->d_name + len - 5, ".json") == 0;
        if (!want_dirs && !json)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (want_dirs && stat(path, &sb) != 0)
            st = pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot read: %s", strerror(errno));
        if (st != PG_OK || (want_dirs && !S_ISDIR(sb.st_mode)))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            char **g = realloc(v, cap * sizeof *g);
            if (!g) {
                st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
                break;
            }
            v = g;
        }
        if (!(v[*n] = strdup(e->d_name))) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            break;
        }
        (*n)++;
    }
    closedir(dp);
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    *out = v;
    return st;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static bool wanted(char **tasks, int n, const char *task)
{
    if (n == 0)
        return true;
    for (int i = 0; i < n; i++)
        if (strcmp(tasks[i], task) == 0)
            return true;
    return false;
}

static int show(int argc, char **argv)
{
    char **pos = NULL;
    int npos = 0;
    int rc;
    if (!pg_options_parse_cmd(&k_show, argc, argv, &pos, &npos, &rc))
        return rc;
    const char *dir = pg_option_value(&k_show, "baselines");
    if (!dir)
        dir = pg_cli_default_baselines_dir();
    if (!dir) /* the shipped baselines, installed or in the source tree (gate/base/datadir.h) */
        dir = pg_data_dir(PG_DATA_BASELINES, NULL);
    if (!dir)
        dir = "baselines";
    const char *only_key = pg_option_value(&k_show, "gpu-key");
    if (only_key && !pg_gpu_key_valid(only_key)) {
        fprintf(stderr, "ptxgate baseline show: --gpu-key: expected 1-63 characters of "
                        "[a-z0-9._-] starting with a letter or digit, got '%s'\n", only_key);
        free(pos);
        return 2;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "ptxgate baseline show: %s: no such folder of stored baselines\n", dir);
        free(pos);
        return 2;
    }
    size_t nkeys = 0, shown = 0;
    char **keys = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    int *found = calloc((size_t)npos + 1, sizeof *found);
    rc = 0;
    if (!found) {
        pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        rc = pg_cli_fail(&d);
    }
    if (rc == 0 && list_dir(dir, true, &keys, &nkeys, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    for (size_t k = 0; rc == 0 && k < nkeys; k++) {
        if (only_key && strcmp(keys[k], only_key) != 0)
            continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", dir, keys[k]);
        size_t nfiles = 0;
        char **files = NULL;
        if (list_dir(sub, false, &files, &nfiles, &d) != PG_OK)
            rc = pg_cli_fail(&d);
        for (size_t f = 0; rc == 0 && f < nfiles; f++) {
            char task[256];
            snprintf(task, sizeof task, "%.*s", (int)(strlen(files[f]) - 5), files[f]);
            if (!wanted(pos, npos, task))
                continue;
            for (int i = 0; i < npos; i++)
                found[i] |= strcmp(pos[i], task) == 0;
            char path[4700];
            snprintf(path, sizeof path, "%s/%s", sub, files[f]);
            pg_baseline *b = NULL;
            bool exists = false;
            if (pg_baseline_exists(path, &exists, &d) != PG_OK) {
                rc = pg_cli_fail(&d);
                break;
            }
            if (!exists) /* removed meanwhile */
                continue;
            if (pg_baseline_load_file(path, task, keys[k], &b, &d) != PG_OK) {
                rc = pg_cli_fail(&d);
                break;
            }
            char *text = pg_baseline_show_text(b);
            printf("%s%s", shown++ ? "\n" : "", text ? text : "(out of memory)\n");
            free(text);
            pg_baseline_free(b);
        }
        free_list(files, nfiles);
    }
    for (int i = 0; rc == 0 && i < npos; i++)
        if (!found[i]) {
            fprintf(stderr, "ptxgate baseline show: no stored baseline for task '%s' under %s%s%s\n",
                    pos[i], dir, only_key ? "/" : "", only_key ? only_key : "");
            rc = 2;
        }
    if (rc == 0 && shown == 0)
        printf("no stored baselines under %s%s%s\n", dir, only_key ? "/" : "",
               only_key ? only_key : "");
    free(found);
    free_list(keys, nkeys);
    free(pos);
    return rc;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: ptxgate baseline <refresh|show> [options] [TASK ...]\n\n"
                "Stored vendor baselines per GPU and task (docs/baselines.md).\n\n"
                "subcommands:\n"
                "  refresh  Re-measure the stored baselines on this GPU and write them.\n"
                "  show     Print stored baselines (no GPU needed).\n\n"
                "'ptxgate baseline <subcommand> --help' explains its options.\n");
}

int pg_cmd_baseline(int argc, char **argv)
{
    int help = pg_options_subcommand_help(argc, argv, usage);
    if (help >= 0)
        return help;
    if (strcmp(argv[1], "refresh") == 0)
        return refresh(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    fprintf(stderr, "ptxgate baseline: unknown subcommand '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
