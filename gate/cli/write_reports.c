/* Writing the report set of a run (see cli.h). */
#include <errno.h>
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

pg_status pg_cli_prepare_output(const char *dir, const char *const *names, pg_diag *d)
{
    char buf[4096];
    if (!dir[0])
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--output", "expected a folder, got ''");
    if (strlen(dir) >= sizeof buf - 32)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--output", "the path is too long");
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--output", "cannot create the output folder: %s",
                           strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--output", "the output path is not a folder");
    if (access(buf, W_OK | X_OK) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--output", "the output folder is not writable");
    for (size_t i = 0; names && names[i]; i++) {
        char path[4200];
        pg_status s = pg_file_check_replaceable(pg_path_join(path, sizeof path, dir, names[i]), d);
        if (s != PG_OK)
            return s;
    }
    return PG_OK;
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

void pg_cli_remove_outputs(const char *dir, const char *const *names)
{
    for (size_t i = 0; names[i]; i++) {
        char path[4200];
        unlink(pg_path_join(path, sizeof path, dir, names[i]));
    }
}

pg_status pg_cli_write_reports(const char *out_dir, const char *json_text, const char *results_file,
                               bool write_json, pg_diag *d)
{
    char *junit = NULL, *md = NULL;
    size_t junit_len = 0, md_len = 0;
    char path[4200];
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
    if (st == PG_OK)
        st = pg_cli_prepare_output(out_dir, pg_cli_report_names + (write_json ? 0 : 1), d);
    if (st != PG_OK)
        goto done;
    set = pg_fileset_new();
    if (!set) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    if (write_json)
        st = pg_fileset_stage(set, pg_path_join(path, sizeof path, out_dir, "results.json"),
                              json_text, strlen(json_text), d);
    if (st == PG_OK)
        st = pg_fileset_stage(set, pg_path_join(path, sizeof path, out_dir, "junit.xml"), junit,
                              junit_len, d);
    if (st == PG_OK)
        st = pg_fileset_stage(set, pg_path_join(path, sizeof path, out_dir, "summary.md"), md,
                              md_len, d);
    if (st == PG_OK)
        st = pg_fileset_commit(set, d);
done:
    pg_fileset_free(set);
    free(junit);
    free(md);
    json_decref(results);
    return st;
}
