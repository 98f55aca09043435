/* Writing the report set of a run (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "cli.h"
#include "report/junit.h"
#include "report/markdown.h"

const char *const pg_cli_report_names[] = {"results.json", "junit.xml", "summary.md", NULL};

bool pg_cli_output_check(const char *command, const char *output, const char *junit_copy,
                         bool follow)
{
    if (follow && !output) {
        fprintf(stderr, "ptxgate %s: --follow-output-link: follows a symbolic link only where "
                        "--output names it; give --output DIR\n",
                command);
        return false;
    }
    if (junit_copy && !junit_copy[0]) {
        fprintf(stderr, "ptxgate %s: --junit-copy: expected a file path, got ''\n", command);
        return false;
    }
    return true;
}

bool pg_cli_output_options(const pg_command_spec *spec, const char *default_dir,
                           const char **dir, const char **junit_copy, bool *follow)
{
    const char *given = pg_option_value(spec, "output");
    *dir = given ? given : default_dir;
    *junit_copy = pg_option_value(spec, "junit-copy");
    *follow = pg_option_value(spec, "follow-output-link") != NULL;
    return pg_cli_output_check(spec->name, given, *junit_copy, *follow);
}

/* Whether the JUnit copy is another report of the set in the output folder (junit.xml itself
 * is fine: the same bytes). */
static bool copy_is_other_report(const pg_cli_output *out, const char *const *names)
{
    struct stat a, b;
    if (fstat(out->dir.fd, &a) != 0 || fstat(out->copy_dir.fd, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino)
        return false;
    for (size_t i = 0; names && names[i]; i++)
        if (strcmp(names[i], out->copy_name) == 0 && strcmp(names[i], "junit.xml") != 0)
            return true;
    return false;
}

/* Open the JUnit copy's folder and check its name (see pg_cli_prepare_output). */
static pg_status prepare_copy(const char *path, bool follow, const char *const *names,
                              pg_cli_output *out, pg_diag *d)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    snprintf(out->copy_path, sizeof out->copy_path, "%s", path);
    if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) > 255)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, "--junit-copy",
                           "expected a file path, not a folder");
    snprintf(out->copy_name, sizeof out->copy_name, "%s", name);
    pg_status st = pg_outdir_open(&out->copy_dir, pg_path_dirname(dir, sizeof dir, path),
                                  PG_OUTDIR_CREATE | (follow ? PG_OUTDIR_FOLLOW_LINKS : 0),
                                  "--junit-copy", d);
    if (st == PG_OK && faccessat(out->copy_dir.fd, ".", W_OK | X_OK, 0) != 0)
        st = pg_diag_set(d, PG_ERR_INPUT, out->copy_dir.path, 0, "--junit-copy",
                         "the folder is not writable");
    if (st == PG_OK && copy_is_other_report(out, names))
        st = pg_diag_set(d, PG_ERR_INPUT, path, 0, "--junit-copy",
                         "is %s/%s, another report this command writes; give another path",
                         out->dir.path, name);
    if (st == PG_OK)
        st = pg_outdir_check_replaceable(&out->copy_dir, name, d);
    return st;
}

pg_status pg_cli_prepare_output(const char *dir, const char *junit_copy, bool follow,
                                const char *const *names, pg_cli_output *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->dir.fd = out->copy_dir.fd = -1;
    if (strlen(dir) >= sizeof out->dir.path - 300)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--output", "the path is too long");
    pg_status st = pg_outdir_open(&out->dir, dir,
                                  PG_OUTDIR_CREATE | (follow ? PG_OUTDIR_FOLLOW_LINKS : 0),
                                  "--output", d);
    if (st != PG_OK)
        return st;
    if (faccessat(out->dir.fd, ".", W_OK | X_OK, 0) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--output", "the output folder is not writable");
    for (size_t i = 0; names && names[i]; i++)
        if ((st = pg_outdir_check_replaceable(&out->dir, names[i], d)) != PG_OK)
            return st;
    return junit_copy ? prepare_copy(junit_copy, follow, names, out, d) : PG_OK;
}

void pg_cli_close_output(pg_cli_output *out)
{
    pg_outdir_close(&out->dir);
    pg_outdir_close(&out->copy_dir);
}

pg_status pg_cli_check_inputs_apart(const char *dir, const char *const *names,
                                    const char *const *inputs, size_t n, pg_diag *d)
{
    for (size_t i = 0; names[i]; i++) {
        char path[4200];
        struct stat out_st, in_st;
        if (stat(pg_path_join(path, sizeof path, dir, names[i]), &out_st) != 0)
            continue;
        for (size_t k = 0; k < n; k++)
            if (stat(inputs[k], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
                in_st.st_ino == out_st.st_ino)
                return pg_diag_set(d, PG_ERR_INPUT, inputs[k], 0, "--output",
                                   "is %s, a file this command writes in its output folder; "
                                   "give another --output folder",
                                   path);
    }
    return PG_OK;
}

void pg_cli_remove_outputs(const pg_cli_output *out, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        pg_outdir_remove(&out->dir, names[i]);
    if (out->copy_dir.fd >= 0)
        pg_outdir_remove(&out->copy_dir, out->copy_name);
}

pg_status pg_cli_write_files(const pg_outdir *dir, size_t n, const char *const *names,
                             const char *const *data, const size_t *lens, pg_diag *d)
{
    pg_fileset *set = pg_fileset_new();
    pg_status st = set ? PG_OK : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; st == PG_OK && i < n; i++)
        st = pg_fileset_stage(set, dir, names[i], data[i], lens[i], d);
    if (st == PG_OK)
        st = pg_fileset_commit(set, d);
    pg_fileset_free(set);
    return st;
}

pg_status pg_cli_write_reports(const pg_cli_output *out, const char *json_text,
                               const char *results_file, bool write_json, pg_diag *d)
{
    char *junit = NULL, *md = NULL;
    size_t junit_len = 0, md_len = 0;
    pg_fileset *set = NULL;
    json_error_t jerr;
    const char *start;
    pg_status st = pg_json_text_start(results_file, json_text, NULL, &start, d);
    if (st != PG_OK)
        return st;
    json_t *results = json_loads(start, JSON_REJECT_DUPLICATES, &jerr);
    if (!results)
        return pg_diag_set(d, PG_ERR_INPUT, results_file, jerr.line,
                           NULL, "malformed JSON at line %d column %d: %s", jerr.line, jerr.column,
                           jerr.text);
    if (!json_is_object(results)) {
        st = pg_diag_set(d, PG_ERR_INPUT, results_file, 1, NULL,
                         "expected a JSON object at the top level");
        goto done;
    }
    st = pg_report_junit(results, results_file, &junit, &junit_len, d);
    if (st == PG_OK)
        st = pg_report_markdown(results, results_file, &md, &md_len, d);
    if (st != PG_OK)
        goto done;
    set = pg_fileset_new();
    if (!set) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    if (write_json)
        st = pg_fileset_stage(set, &out->dir, "results.json", json_text, strlen(json_text), d);
    if (st == PG_OK)
        st = pg_fileset_stage(set, &out->dir, "junit.xml", junit, junit_len, d);
    if (st == PG_OK)
        st = pg_fileset_stage(set, &out->dir, "summary.md", md, md_len, d);
    if (st == PG_OK && out->copy_dir.fd >= 0)
        st = pg_fileset_stage(set, &out->copy_dir, out->copy_name, junit, junit_len, d);
    if (st == PG_OK)
        st = pg_fileset_commit(set, d);
done:
    pg_fileset_free(set);
    free(junit);
    free(md);
    json_decref(results);
    return st;
}
