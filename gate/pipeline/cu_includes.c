/* What a pull request's .cu may make nvcc read (issue 14): the submission root, the task
 * folder's shared headers, the CUDA toolkit's include folders and the host compiler's system
 * include folders. Before a .cu is compiled, "nvcc -M" lists every file its preprocessing opens
 * (with the compile's flags); one outside those folders is an assemble failure naming it and the
 * file that included it, and the compile never runs. nvcc's diagnostics are kept in reports
 * only for lines of files in those folders (tool/diag_filter.h). */
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "run.h"
#include "submission.h"
#include "tool/cu_deps.h"
#include "tool/diag_filter.h"
#include "tool/process.h"
#include "tool/toolchain.h"

/* Largest dependency file read (a rule naming every header of the toolkit is ~100 KiB). */
#define PG_DEPFILE_MAX (16u << 20)

/* <toolkit>/include and <toolkit>/targets/<any>/include, the toolkit of the nvcc that runs. */
static void add_toolkit_dirs(pg_dirset *set)
{
    char tool[PG_PATH_MAX], real[PATH_MAX];
    if (!pg_toolchain_find("nvcc", tool, sizeof tool) || !realpath(tool, real))
        return;
    char top[PG_PATH_MAX], dir[PG_PATH_MAX + 64];
    snprintf(top, sizeof top, "%s", real);
    char *bin = dirname(top); /* <toolkit>/bin */
    snprintf(dir, sizeof dir, "%s/../include", bin);
    pg_dirset_add(set, dir);
    snprintf(dir, sizeof dir, "%s/../targets", bin);
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        if (e->d_name[0] == '.')
            continue;
        char inc[PG_PATH_MAX * 2];
        snprintf(inc, sizeof inc, "%s/%s/include", dir, e->d_name);
        pg_dirset_add(set, inc);
    }
    if (dp)
        closedir(dp);
}

/* The host compiler's system include folders: what nvcc's preprocessor (gcc -E -x c++) searches,
 * as "gcc -xc++ -E -v -" lists them. nvcc's host compiler is gcc on PATH unless NVCC_CCBIN names
 * another (a compiler, or a folder holding gcc). */
static void add_host_dirs(const pg_run *run, pg_dirset *set)
{
    char cc[PG_PATH_MAX] = "gcc";
    const char *ccbin = getenv("NVCC_CCBIN");
    struct stat sb;
    if (ccbin && ccbin[0])
        snprintf(cc, sizeof cc, stat(ccbin, &sb) == 0 && S_ISDIR(sb.st_mode) ? "%s/gcc" : "%s",
                 ccbin);
    const char *argv[] = {cc, "-xc++", "-E", "-v", "-", NULL};
    pg_process_result r;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_process_run(argv, run->o->timeout_s, 1u << 20, &r, &d) == PG_OK && r.exit_code == 0) {
        pg_strlist dirs;
        if (pg_cc_search_dirs_parse(r.output, &dirs) == PG_OK) {
            for (int i = 0; i < dirs.n; i++)
                pg_dirset_add(set, dirs.items[i]);
            pg_strlist_free(&dirs);
        }
    }
    pg_process_result_free(&r);
}

static pg_dirset *include_roots(pg_run *run)
{
    if (!run->include_roots_ready) {
        run->include_roots_ready = true;
        pg_dirset_add_resolved(&run->include_roots, run->root);
        if (run->tasks_root[0])
            pg_dirset_add_resolved(&run->include_roots, run->tasks_root);
        add_toolkit_dirs(&run->include_roots);
        add_host_dirs(run, &run->include_roots);
    }
    return &run->include_roots;
}

void pg_cu_include_roots_ready(pg_run *run)
{
    include_roots(run);
}

static bool allowed(const char *path, void *ctx)
{
    char real[PATH_MAX];
    return realpath(path, real) && pg_dirset_find(ctx, real) != NULL;
}

void pg_cu_display_path(const pg_run *run, const char *path, char *out, size_t n)
{
    char real[PATH_MAX];
    size_t k = strlen(run->root);
    if (realpath(path, real) && pg_path_is_inside(run->root, real) && strlen(real) > k + 1 &&
        strcmp(run->root, "/") != 0)
        snprintf(out, n, "%s", real + k + 1);
    else
        snprintf(out, n, "%s", path);
}

pg_status pg_cu_filter_log(pg_run *run, pg_assemble_result *r, int *dropped, pg_diag *d)
{
    *dropped = 0;
    if (!r->raw_output)
        return PG_OK;
    char *kept = NULL;
    if (pg_diag_filter(r->raw_output, allowed, include_roots(run), &kept, dropped) != PG_OK)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory filtering nvcc's output");
    free(r->raw_output);
    r->raw_output = kept;
    pg_ptxas_log_free(&r->log);
    if (pg_ptxas_log_parse(r->raw_output, &r->log) != PG_OK)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory parsing nvcc's output");
    return PG_OK;
}

/* "kernel.cu:3" (or "kernel.cu") for the file that included dep, from the -H tree. parent_of
 * is the main source when the tree names none. */
static void who_included(pg_run *run, const pg_submission *s, const char *tree, const char *dep,
                         char *out, size_t n)
{
    char parent[PG_PATH_MAX];
    if (!pg_include_tree_parent(tree, dep, parent, sizeof parent) || !parent[0])
        snprintf(parent, sizeof parent, "%s", s->manifest->source);
    char shown[PG_PATH_MAX];
    pg_cu_display_path(run, parent, shown, sizeof shown);
    int line = 0;
    char *text = NULL;
    size_t len = 0;
    pg_diag d;
    /* The including file is read only when it is one a report may quote. */
    if (allowed(parent, include_roots(run)) &&
        pg_file_read(parent, run->o->max_ptx_bytes, &text, &len, &d) == PG_OK) {
        char name[PG_PATH_MAX];
        snprintf(name, sizeof name, "%s", dep);
        line = pg_include_line_find(text, basename(name));
    }
    free(text);
    if (line > 0)
        snprintf(out, n, "%s:%d", shown, line);
    else
        snprintf(out, n, "%s", shown);
}

pg_status pg_cu_check_includes(pg_run *run, pg_submission *s, int index, pg_diag *d)
{
    char dep_path[PG_PATH_MAX];
    snprintf(dep_path, sizeof dep_path, "%s/submission%d.d", run->tmpdir, index);
    pg_assemble_result r;
    pg_status st = pg_list_cu_includes(s->manifest->source, s->arch, dep_path, s->nvcc_extra,
                                       run->o->timeout_s,
                                       &r, d);
    if (st == PG_ERR_INPUT) {
        pg_assemble_result_free(&r);
        return st; /* e.g. a malformed arch string */
    }
    pg_diag_clear(d);
    pg_dirset *roots = include_roots(run);
    char *tree = r.raw_output ? strdup(r.raw_output) : NULL;
    int dropped = 0;
    st = pg_cu_filter_log(run, &r, &dropped, d);
    if (st != PG_OK)
        goto done;
    if (!r.ok) {
        /* nvcc missing, or preprocessing failed: nothing is compiled. */
        s->cu_result = r;
        memset(&r, 0, sizeof r);
        s->cu_dropped = dropped;
        if (s->cu_result.tool_found)
            snprintf(s->include_error, sizeof s->include_error,
                     s->cu_result.timed_out
                         ? "nvcc -M (listing the files the source includes) did not finish "
                           "within --timeout"
                         : "nvcc -M (listing the files the source includes) failed");
        goto done;
    }
    char *text = NULL;
    size_t len = 0;
    pg_strlist deps = {0};
    if (pg_file_read(dep_path, PG_DEPFILE_MAX, &text, &len, d) != PG_OK ||
        pg_depfile_parse(text, &deps) != PG_OK) {
        pg_diag_clear(d);
        snprintf(s->include_error, sizeof s->include_error,
                 "cannot read the list of included files nvcc -M wrote");
    }
    free(text);
    int outside = 0;
    for (int i = 0; i < deps.n; i++) {
        char real[PATH_MAX];
        bool resolved = realpath(deps.items[i], real) != NULL;
        if (resolved && pg_dirset_find(roots, real))
            continue;
        if (outside++ > 0)
            continue;
        char by[PG_PATH_MAX + 32];
        who_included(run, s, tree ? tree : "", deps.items[i], by, sizeof by);
        if (!resolved)
            snprintf(s->include_error, sizeof s->include_error,
                     "%s includes '%.512s', which cannot be resolved", by, deps.items[i]);
        else
            snprintf(s->include_error, sizeof s->include_error,
                     "%s includes '%.512s' (resolved: %.1024s), outside the submission root "
                     "(%.512s), the task folder, the CUDA toolkit's and the host compiler's "
                     "include folders: nvcc was not run",
                     by, deps.items[i], real, run->root);
    }
    if (outside > 1) {
        size_t k = strlen(s->include_error);
        snprintf(s->include_error + k, sizeof s->include_error - k,
                 " (%d more files outside those folders)", outside - 1);
    }
    s->includes_checked = deps.n;
    s->includes_wall_s = r.wall_s;
    pg_strlist_free(&deps);
    s->includes_ok = !s->include_error[0];
    if (s->include_error[0]) {
        s->cu_result = r; /* the -M run, its output filtered, stands for nvcc's */
        memset(&r, 0, sizeof r);
        s->cu_dropped = dropped;
    }
done:
    free(tree);
    pg_assemble_result_free(&r);
    return st;
}
