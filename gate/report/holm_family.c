/* Holm's step re-applied over the recorded performance comparisons (see holm_family.h). */
#include "holm_family.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_read.h"
#include "stats/comparison.h"

/* The suffix pg_perf_holm_finalize appends to a stage message, up to the comparison's name. */
#define SUFFIX_START " (Holm over the run's "

/* A stage's message as it is now (the reader's, then the one written here). */
typedef struct {
    char **msg;  /* by stage; owned copies, NULL when the stage has none */
} messages;

/* "fail" when the stage's candidate was implausible or any of its members is FAIL. */
static const char *stage_status(const pg_res_holm_family *f, const pg_cmp_result *r,
                                const messages *ms, size_t stage)
{
    const char *msg = ms->msg[stage];
    bool failed = msg && strncmp(msg, "IMPLAUSIBLE:", 12) == 0;
    for (size_t j = 0; j < f->n; j++)
        failed |= f->members[j].stage == stage && r[j].verdict == PG_CMP_FAIL;
    return failed ? "fail" : "pass";
}

/* Write stage k's message (text, n bytes) into its record and our copy. */
static bool set_message(const pg_res_holm_family *f, messages *ms, size_t k, const char *text,
                        size_t n)
{
    char *copy = malloc(n + 1);
    if (!copy)
        return false;
    memcpy(copy, text, n);
    copy[n] = '\0';
    free(ms->msg[k]); /* after the copy: text may be it */
    ms->msg[k] = copy;
    return json_object_set_new(f->stages[k].json, "message", json_stringn(copy, n)) == 0;
}

pg_status pg_results_check_holm(const json_t *results, const char *file, pg_diag *d)
{
    pg_res_holm_family f;
    /* Read only: nothing is written through the family's handles here. */
    pg_status st = pg_results_read_holm_family((json_t *)results, file, &f, d);
    pg_res_holm_family_free(&f);
    return st;
}

pg_status pg_results_reapply_holm(json_t *results, const char *file, double run_alpha, size_t *m,
                                  pg_diag *d)
{
    pg_res_holm_family f;
    pg_status st = pg_results_read_holm_family(results, file, &f, d);
    if (st != PG_OK)
        return st;
    messages ms = {.msg = calloc(f.n_stages ? f.n_stages : 1, sizeof *ms.msg)};
    pg_cmp_result *r = calloc(f.n ? f.n : 1, sizeof *r);
    bool ok = ms.msg && r;
    for (size_t k = 0; ok && k < f.n_stages; k++)
        if (f.stages[k].message && !(ms.msg[k] = strdup(f.stages[k].message)))
            ok = false;
    if (!ok)
        goto oom;
    /* Undo the recorded Holm step: it only swaps FAIL and INCONCLUSIVE. */
    for (size_t k = 0; k < f.n; k++) {
        pg_cmp_verdict v = f.members[k].verdict;
        if (f.members[k].holm_changed)
            v = v == PG_CMP_FAIL ? PG_CMP_INCONCLUSIVE : v == PG_CMP_INCONCLUSIVE ? PG_CMP_FAIL : v;
        r[k].verdict = v;
        r[k].p_fail_seq = f.members[k].p_fail_seq;
    }
    /* Back to the state before any Holm step. */
    for (size_t k = 0; k < f.n; k++) {
        const pg_res_holm_member *mb = &f.members[k];
        if (!mb->holm_changed)
            continue;
        json_object_set_new(mb->json, "verdict", json_string(pg_cmp_verdict_name(r[k].verdict)));
        json_object_del(mb->json, "holm_changed");
        if (f.stages[mb->stage].is_error)
            continue;
        const char *msg = ms.msg[mb->stage];
        const char *cut = msg ? strstr(msg, SUFFIX_START) : NULL;
        if (cut && !set_message(&f, &ms, mb->stage, msg, (size_t)(cut - msg)))
            goto oom;
        json_object_set_new(f.stages[mb->stage].json, "status",
                            json_string(stage_status(&f, r, &ms, mb->stage)));
    }
    pg_cmp_holm_finalize(r, f.n, run_alpha);
    /* As pg_perf_holm_finalize writes it. */
    for (size_t k = 0; k < f.n; k++) {
        const pg_res_holm_member *mb = &f.members[k];
        if (!r[k].holm_changed || f.stages[mb->stage].is_error)
            continue;
        const char *name = mb->name;
        json_object_set_new(mb->json, "verdict", json_string(pg_cmp_verdict_name(r[k].verdict)));
        json_object_set_new(mb->json, "holm_changed", json_true());
        char suffix[256];
        snprintf(suffix, sizeof suffix, SUFFIX_START "%zu comparisons made %s %s)", f.n,
                 name ? name : "?", pg_cmp_verdict_name(r[k].verdict));
        const char *msg = ms.msg[mb->stage];
        size_t a = msg ? strlen(msg) : 0, b = strlen(suffix);
        char *joined = malloc(a + b + 1);
        if (!joined)
            goto oom;
        memcpy(joined, msg ? msg : "", a);
        memcpy(joined + a, suffix, b + 1);
        bool set = set_message(&f, &ms, mb->stage, joined, a + b);
        free(joined);
        if (!set)
            goto oom;
        json_object_set_new(f.stages[mb->stage].json, "status",
                            json_string(stage_status(&f, r, &ms, mb->stage)));
    }
    if (m)
        *m = f.n;
    goto done;
oom:
    st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
done:
    for (size_t k = 0; ms.msg && k < f.n_stages; k++)
        free(ms.msg[k]);
    free(ms.msg);
    free(r);
    pg_res_holm_family_free(&f);
    return st;
}
