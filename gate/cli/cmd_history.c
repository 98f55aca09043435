/* `ptxgate history`: many results files (a folder of runs, or files) ordered by their run
 * metadata, written as history.md (tables and mermaid charts) and history.svg. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "cli.h"
#include "options.h"
#include "report/history.h"

static pg_option k_options[] = {
    {"output", "DIR", "Folder for history.md and history.svg (created if missing). Default: reports.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --output folder (or on the way to it) instead of refusing it (exit 2); only together with an explicit --output. A link at a file's own name is refused regardless.", NULL},
    {"by", "time|label|input", "Order of the runs: time (the run's commit time, check --commit-time, else its start time), label (check --label in natural order: v2 before v10), or input (as given). Default: time.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "history",
    "ptxgate history [options] DIR|RESULTS.json...",
    "Speedup vs the vendor library per task, submission and workload across many runs: a "
    "markdown table with mermaid charts (history.md) and an SVG (history.svg).",
    "A DIR stands for DIR/results.json when it exists, else for every DIR/<run>/results.json\n"
    "(run folders in name order). Runs are ordered by --by from their metadata (ptxgate check\n"
    "--label, --commit, --commit-time record it). See docs/history.md.\n"
    "Exit codes: 0 written, 2 usage or input error (the message names the file and the field).",
    "  ptxgate history --output history history-branch/runs\n"
    "  ptxgate history --by label runs/model-v1/results.json runs/model-v2/results.json",
    k_options,
};

/* Append path to the list (growing it); false on out-of-memory or past the maximum. */
static bool add_path(char ***list, size_t *n, const char *path)
{
    if (*n >= PG_HISTORY_MAX_RUNS)
        return false;
    char **grown = realloc(*list, (*n + 1) * sizeof **list);
    if (!grown)
        return false;
    *list = grown;
    if (!((*list)[*n] = strdup(path)))
        return false;
    (*n)++;
    return true;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The results files an argument stands for (see the help). */
static pg_status expand(const char *arg, char ***list, size_t *n, pg_diag *d)
{
    struct stat sb;
    char path[4200];
    if (stat(arg, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return add_path(list, n, arg) ? PG_OK
                                      : pg_diag_set(d, PG_ERR_INPUT, arg, 0, NULL,
                                                    "more than %u results files",
                                                    PG_HISTORY_MAX_RUNS);
    pg_path_join(path, sizeof path, arg, "results.json");
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        return add_path(list, n, path) ? PG_OK
                                       : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                                                     "out of memory");
    DIR *dir = opendir(arg);
    if (!dir)
        return pg_diag_set(d, PG_ERR_INPUT, arg, 0, NULL, "cannot read the folder");
    char **names = NULL;
    size_t nn = 0;
    pg_status st = PG_OK;
    for (struct dirent *e; st == PG_OK && (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char run[4200];
        pg_path_join(run, sizeof run, arg, e->d_name);
        pg_path_join(path, sizeof path, run, "results.json");
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && !add_path(&names, &nn, path))
            st = pg_diag_set(d, PG_ERR_INPUT, arg, 0, NULL, "more than %u runs in the folder",
                             PG_HISTORY_MAX_RUNS);
    }
    closedir(dir);
    if (st == PG_OK && nn == 0)
        st = pg_diag_set(d, PG_ERR_INPUT, arg, 0, NULL,
                         "no results.json in the folder nor in its subfolders");
    if (nn)
        qsort(names, nn, sizeof *names, name_cmp);
    for (size_t i = 0; i < nn; i++) {
        if (st == PG_OK && !add_path(list, n, names[i]))
            st = pg_diag_set(d, PG_ERR_INPUT, arg, 0, NULL, "more than %u results files",
                             PG_HISTORY_MAX_RUNS);
        free(names[i]);
    }
    free(names);
    return st;
}

static pg_status write_set(const pg_outdir *dir, const pg_history_model *model, pg_diag *d)
{
    char *md = NULL, *svg = NULL;
    size_t lens[2] = {0, 0};
    pg_status st = pg_history_markdown(model, &md, &lens[0], d);
    if (st == PG_OK)
        st = pg_history_svg(model, &svg, &lens[1], d);
    static const char *const names[] = {"history.md", "history.svg"};
    const char *data[] = {md, svg};
    if (st == PG_OK)
        st = pg_cli_write_files(dir, 2, names, data, lens, d);
    free(md);
    free(svg);
    return st;
}

int pg_cmd_history(int argc, char **argv)
{
    char **pos = NULL, **files = NULL;
    int npos = 0;
    size_t n = 0;
    json_t **roots = NULL;
    pg_history_model model = {0};
    pg_cli_output where = {.dir.fd = -1, .copy_dir.fd = -1};
    int rc;
    if (!pg_options_parse_cmd(&k_spec, argc, argv, &pos, &npos, &rc))
        return rc;
    rc = 2;
    pg_diag d;
    pg_diag_clear(&d);
    if (npos < 1) {
        fprintf(stderr, "ptxgate history: expected a folder of runs or results files (see "
                        "'ptxgate history --help')\n");
        goto done;
    }
    pg_history_order by = PG_HISTORY_BY_TIME;
    const char *by_text = pg_option_value(&k_spec, "by");
    if (by_text && pg_history_order_parse(by_text, &by, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    const char *out, *no_copy;
    bool follow;
    if (!pg_cli_output_options(&k_spec, "reports", &out, &no_copy, &follow))
        goto done;
    static const char *const names[] = {"history.md", "history.svg", NULL};
    for (int i = 0; i < npos; i++)
        if (expand(pos[i], &files, &n, &d) != PG_OK) {
            rc = pg_cli_fail(&d);
            goto done;
        }
    if (pg_cli_check_inputs_apart(out, names, (const char *const *)files, n, &d) != PG_OK ||
        pg_cli_prepare_output(out, NULL, follow, names, &where, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    roots = calloc(n, sizeof *roots);
    if (!roots) {
        pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        rc = pg_cli_fail(&d);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (pg_cli_load_results(files[i], &roots[i], &d) != PG_OK) {
            rc = pg_cli_fail(&d);
            goto done;
        }
    if (pg_history_build((const json_t *const *)roots, (const char *const *)files, n, by, &model,
                         &d) != PG_OK ||
        write_set(&where.dir, &model, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    printf("history: %zu run%s, %zu series\nreports: %s/history.md, %s/history.svg\n", n,
           n == 1 ? "" : "s", model.n_series, out, out);
    rc = 0;
done:
    for (size_t i = 0; roots && i < n; i++)
        json_decref(roots[i]);
    free(roots);
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    pg_history_model_free(&model);
    pg_cli_close_output(&where);
    free(pos);
    return rc;
}
