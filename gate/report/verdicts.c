/* Verdicts, counts and exit code from the stage records (see verdicts.h). */
#include "verdicts.h"

#include <stdint.h>

#include "results_read.h"

int pg_verdict_rank(pg_res_status s)
{
    switch (s) {
    case PG_RES_FAIL: return 3;
    case PG_RES_ERROR: return 2;
    case PG_RES_PASS: return 1;
    case PG_RES_SKIPPED: return 0;
    }
    return 0;
}

/* The worst of acc and the record's stages; each stage counted by status. */
static pg_res_status fold(const pg_res_fold_rec *r, pg_res_status acc, int64_t counts[4])
{
    for (size_t i = 0; i < r->n_stages; i++) {
        counts[r->stages[i]]++;
        if (pg_verdict_rank(r->stages[i]) > pg_verdict_rank(acc))
            acc = r->stages[i];
    }
    return acc;
}

pg_status pg_results_fold(json_t *results, bool empty_passes, pg_diag *d)
{
    pg_res_fold_view v;
    pg_status st = pg_results_read_fold(results, &v, d);
    if (st != PG_OK)
        return st;
    int64_t counts[4] = {0}; /* by pg_res_status */
    bool any_fail = false, any_error = false;
    for (size_t i = 0; i < v.n_subs; i++) {
        const pg_res_fold_sub *sub = &v.subs[i];
        pg_res_status sv = fold(&sub->sub, PG_RES_SKIPPED, counts);
        for (size_t j = 0; j < sub->n_workloads; j++) {
            pg_res_status wv = fold(&sub->workloads[j], PG_RES_SKIPPED, counts);
            json_object_set_new(sub->workloads[j].json, "verdict",
                                json_string(pg_res_status_name(wv)));
            if (pg_verdict_rank(wv) > pg_verdict_rank(sv))
                sv = wv;
        }
        json_object_set_new(sub->sub.json, "verdict", json_string(pg_res_status_name(sv)));
        any_fail |= sv == PG_RES_FAIL;
        any_error |= sv == PG_RES_ERROR;
    }
    /* An error in one workload must surface even when another failed. */
    any_error |= counts[PG_RES_ERROR] > 0;
    any_fail |= counts[PG_RES_FAIL] > 0;
    /* A run that checked nothing must not pass a CI job (e.g. no ptxas and no GPU). */
    bool nothing_checked =
        !any_fail && !any_error && counts[PG_RES_PASS] == 0 && !(empty_passes && v.n_subs == 0);
    int code = any_error || nothing_checked ? 3 : any_fail ? 1 : 0;
    json_object_set_new(results, "counts",
                        json_pack("{s:I, s:I, s:I, s:I}", "pass", (json_int_t)counts[PG_RES_PASS],
                                  "fail", (json_int_t)counts[PG_RES_FAIL], "error",
                                  (json_int_t)counts[PG_RES_ERROR], "skipped",
                                  (json_int_t)counts[PG_RES_SKIPPED]));
    json_object_set_new(results, "verdict",
                        json_string(code == 0 ? "pass" : code == 1 ? "fail" : "error"));
    json_object_set_new(results, "exit_code", json_integer(code));
    pg_res_fold_view_free(&v);
    return PG_OK;
}
