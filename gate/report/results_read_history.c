/* The parts of results that history, check's summary and the GitHub check run read beyond
 * pg_results: the run record, declined workloads, status words (see results_read.h, "history
 * and GitHub's view"). */
#include "results_read.h"

#include <stdio.h>
#include <string.h>

bool pg_res_status_parse(const char *word, pg_res_status *out)
{
    static const pg_res_status all[] = {PG_RES_PASS, PG_RES_FAIL, PG_RES_ERROR, PG_RES_SKIPPED};
    for (size_t i = 0; word && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(word, pg_res_status_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

pg_status pg_results_read_run(const pg_results *r, pg_res_run *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    const json_t *run = json_object_get(r->root, "run");
    if (!run || json_is_null(run))
        return PG_OK;
    if (!json_is_object(run))
        return pg_diag_set(d, PG_ERR_INPUT, r->file, 0, "run", "expected an object, found %s",
                           pg_json_type_name(run));
    static const char *const keys[] = {"label", "commit", "commit_time_utc"};
    const char **fields[] = {&out->label, &out->commit, &out->commit_time_utc};
    for (size_t i = 0; i < 3; i++) {
        const json_t *x = json_object_get(run, keys[i]);
        if (x && !json_is_null(x) && !json_is_string(x)) {
            char f[64];
            snprintf(f, sizeof f, "run.%s", keys[i]);
            memset(out, 0, sizeof *out);
            return pg_diag_set(d, PG_ERR_INPUT, r->file, 0, f,
                               "expected a string or null, found %s", pg_json_type_name(x));
        }
        *fields[i] = json_string_value(x);
    }
    out->has = true;
    return PG_OK;
}

bool pg_res_workload_declined(const pg_res_workload *w, const char **constraint)
{
    const json_t *na = json_object_get(w->json, "not_applicable");
    if (constraint)
        *constraint = json_string_value(json_object_get(na, "constraint"));
    return json_is_object(na);
}
