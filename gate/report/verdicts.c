/* Verdicts, counts and exit code from the stage records (see verdicts.h). */
#include "verdicts.h"

#include <string.h>

/* Worst status: fail > error > pass > skipped. */
static int rank(const char *status)
{
    if (!status)
        return 0;
    if (strcmp(status, "fail") == 0)
        return 3;
    if (strcmp(status, "error") == 0)
        return 2;
    if (strcmp(status, "pass") == 0)
        return 1;
    return 0;
}

static const char *fold(json_t *stages, const char *acc, json_t *counts)
{
    size_t i;
    json_t *st;
    json_array_foreach(stages, i, st) {
        const char *s = json_string_value(json_object_get(st, "status"));
        if (!s || !json_object_get(counts, s))
            continue;
        json_object_set_new(counts, s, json_integer(json_integer_value(json_object_get(counts, s)) + 1));
        if (rank(s) > rank(acc))
            acc = s;
    }
    return acc;
}

void pg_results_fold(json_t *results, bool empty_passes)
{
    json_t *counts = json_pack("{s:i, s:i, s:i, s:i}", "pass", 0, "fail", 0, "error", 0,
                               "skipped", 0);
    bool any_fail = false, any_error = false;
    size_t i, j;
    json_t *sub, *wl;
    json_t *subs = json_object_get(results, "submissions");
    json_array_foreach(subs, i, sub) {
        const char *sv = fold(json_object_get(sub, "stages"), "skipped", counts);
        json_array_foreach(json_object_get(sub, "workloads"), j, wl) {
            const char *wv = fold(json_object_get(wl, "stages"), "skipped", counts);
            json_object_set_new(wl, "verdict", json_string(wv));
            if (rank(wv) > rank(sv))
                sv = wv;
        }
        json_object_set_new(sub, "verdict", json_string(sv));
        any_fail |= strcmp(sv, "fail") == 0;
        any_error |= strcmp(sv, "error") == 0;
    }
    /* An error in one workload must surface even when another failed. */
    any_error |= json_integer_value(json_object_get(counts, "error")) > 0;
    any_fail |= json_integer_value(json_object_get(counts, "fail")) > 0;
    /* A run that checked nothing must not pass a CI job (e.g. no ptxas and no GPU). */
    bool nothing_checked = !any_fail && !any_error &&
                           json_integer_value(json_object_get(counts, "pass")) == 0 &&
                           !(empty_passes && json_array_size(subs) == 0);
    int code = any_error || nothing_checked ? 3 : any_fail ? 1 : 0;
    json_object_set_new(results, "counts", counts);
    json_object_set_new(results, "verdict",
                        json_string(code == 0 ? "pass" : code == 1 ? "fail" : "error"));
    json_object_set_new(results, "exit_code", json_integer(code));
}
