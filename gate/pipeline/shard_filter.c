/* `check --shard i/n`: keep the shard's work items (model/shard.h) and record which they are.
 * Runs after every submission was validated (input errors are the same in every shard) and
 * after Holm's m was counted over all items (so every comparison is run at the level of the
 * unsharded run, and merged shards reach the same verdicts). */
#include <stdlib.h>
#include <string.h>

#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "model/shard.h"

/* Drop workloads w with keep[w] false from s. Its accepted kernel is the run's, shared by every
 * submission of the task (accepted.c), which may keep other workloads in this shard: it stays
 * whole, and pg_accepted_plan finds its plan of each workload s keeps by task workload. A
 * submission that is its own accepted kernel is compacted once, as the candidate. */
static void compact(pg_submission *s, const bool *keep)
{
    int kept = 0;
    for (int w = 0; w < s->n_workloads; w++) {
        if (!keep[w]) {
            pg_plan_free(&s->plans[w]);
            continue;
        }
        s->workloads[kept] = s->workloads[w];
        s->plans[kept] = s->plans[w];
        kept++;
    }
    s->n_workloads = kept;
}

/* The shard record's entry of one item: workload_index is its position among the
 * submission's workload records in the unsharded run. */
static json_t *item_json(const pg_work_item *it, size_t sub_index, int workload_index)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:I, s:I}", "task", pg_jstr(it->task), "submission",
                     pg_jstr(it->submission), "manifest", pg_jstr(it->manifest), "workload",
                     pg_jstr(it->workload), "submission_index", (json_int_t)sub_index,
                     "workload_index", (json_int_t)workload_index);
}

pg_status pg_run_select_shard(pg_run *run, pg_submission *subs, size_t n, json_t **record,
                              pg_diag *d)
{
    const pg_check_options *o = run->o;
    *record = NULL;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (size_t)subs[i].n_workloads;
    pg_work_item *items = calloc(total ? total : 1, sizeof *items);
    int *shard_of = calloc(total ? total : 1, sizeof *shard_of);
    bool *keep = calloc(total ? total : 1, sizeof *keep);
    pg_status st = items && shard_of && keep
                       ? PG_OK
                       : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    size_t k = 0;
    for (size_t i = 0; st == PG_OK && i < n; i++)
        for (int w = 0; w < subs[i].n_workloads; w++, k++)
            items[k] = (pg_work_item){subs[i].task->id, subs[i].manifest->name,
                                      subs[i].task->workloads[subs[i].workloads[w]].name,
                                      subs[i].manifest->file};
    if (st == PG_OK)
        st = pg_shard_assign(items, total, o->shard_count, shard_of, d);
    json_t *list = json_array();
    size_t declined_total = 0;
    k = 0;
    for (size_t i = 0; st == PG_OK && i < n; i++) {
        pg_submission *s = &subs[i];
        /* Workloads the manifest declines cost no GPU time: the shard of the submission's
         * first workload lists their records, after its own (where the unsharded run has
         * them), so that merged shards hold every record of the unsharded run. */
        bool owns_declined = s->n_workloads > 0 && shard_of[k] == o->shard_index;
        int n_run = s->n_workloads;
        for (int w = 0; w < n_run; w++, k++) {
            keep[w] = shard_of[k] == o->shard_index;
            if (keep[w])
                json_array_append_new(list, item_json(&items[k], i, w));
        }
        for (int j = 0; owns_declined && j < s->n_declined; j++) {
            pg_work_item it = items[k - (size_t)n_run];
            it.workload = s->task->workloads[s->declined[j]].name;
            json_array_append_new(list, item_json(&it, i, n_run + j));
        }
        declined_total += (size_t)s->n_declined;
        if (!owns_declined)
            s->n_declined = 0;
        compact(s, keep);
    }
    if (st == PG_OK)
        *record = json_pack("{s:i, s:i, s:I, s:o}", "index", o->shard_index, "count",
                            o->shard_count, "items_total", (json_int_t)(total + declined_total),
                            "items", list);
    else
        json_decref(list);
    free(items);
    free(shard_of);
    free(keep);
    return st;
}
