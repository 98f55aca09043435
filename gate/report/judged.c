/* Judged on a GPU or not (see judged.h). */
#include "judged.h"

#include "../base/names.h"

/* The stages that run the kernel on a GPU (docs/results.md). "load" is left out: it only loads
 * the module, and "instructions" has an offline half. */
static bool gpu_stage(const char *name)
{
    static const char *const k_names[] = {"correctness", "performance", "verify", "sanitize",
                                          NULL};
    return pg_name_among(name, k_names);
}

bool pg_res_not_judged_on_gpu(const pg_results *r, const pg_res_submission *s,
                              const char **reason)
{
    if (reason)
        *reason = NULL;
    if ((s->verdict != PG_RES_PASS && s->verdict != PG_RES_SKIPPED) || s->n_workloads == 0)
        return false;
    const char *first_skip = NULL;
    for (size_t w = 0; w < s->n_workloads; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (!gpu_stage(st->stage))
                continue;
            if (st->status == PG_RES_PASS || st->status == PG_RES_FAIL)
                return false;
            if (st->status == PG_RES_SKIPPED && !first_skip && st->message[0])
                first_skip = st->message;
        }
    if (reason) {
        if (!r->env.has_gpu && r->env.gpu_skip_reason && r->env.gpu_skip_reason[0])
            *reason = r->env.gpu_skip_reason;
        else
            *reason = first_skip ? first_skip : "no GPU stage ran";
    }
    return true;
}

size_t pg_res_count_not_judged_on_gpu(const pg_results *r, const char **reason)
{
    size_t n = 0;
    if (reason)
        *reason = NULL;
    for (size_t i = 0; i < r->n_subs; i++) {
        const char *why = NULL;
        if (pg_res_not_judged_on_gpu(r, &r->subs[i], &why)) {
            if (n++ == 0 && reason)
                *reason = why;
        }
    }
    return n;
}
