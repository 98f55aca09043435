/* The typed state of one workload's results (wl_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "submission.h"
#include "wl_state.h"

void pg_wl_state_init(pg_wl_state *w, int task_index, const char *name, json_t *json,
                      json_t *stages, const char *ptxbench)
{
    pg_wl_state_release(w);
    w->task_index = task_index;
    w->name = name;
    w->json = json_incref(json);
    pg_ledger_init(&w->stages, stages);
    snprintf(w->ptxbench, sizeof w->ptxbench, "%s", ptxbench ? ptxbench : "");
}

void pg_wl_state_release(pg_wl_state *w)
{
    pg_ledger_release(&w->stages);
    json_decref(w->json);
    memset(w, 0, sizeof *w);
}

void pg_wl_set_ptxbench(pg_wl_state *w, const char *status)
{
    snprintf(w->ptxbench, sizeof w->ptxbench, "%s", status);
    json_object_set_new(w->json, "status", json_string(status));
}

bool pg_wl_timing_completed(const pg_wl_state *w)
{
    const pg_stage_entry *perf = pg_ledger_last(&w->stages);
    return pg_stage_is(perf, PG_STAGE_PERFORMANCE, PG_RES_PASS) ||
           (pg_stage_is(perf, PG_STAGE_PERFORMANCE, PG_RES_FAIL) &&
            strncmp(perf->message, "kernel failed", 13) != 0);
}

/* Declared in submission.h: the submission's typed results state lives with its workloads'. */
void pg_submission_results_init(pg_submission *s, json_t *obj)
{
    pg_submission_results_release(s);
    s->json = obj;
    if (!obj)
        return;
    json_t *stages = json_array();
    s->workloads_json = json_array();
    json_object_set(obj, "stages", stages);
    json_object_set(obj, "workloads", s->workloads_json);
    pg_ledger_init(&s->stages, stages);
    json_decref(stages);
}

void pg_submission_results_release(pg_submission *s)
{
    for (int i = 0; s->wl && i < s->n_workloads; i++)
        pg_wl_state_release(&s->wl[i]);
    free(s->wl);
    s->wl = NULL;
    pg_ledger_release(&s->stages);
    json_decref(s->workloads_json);
    s->workloads_json = NULL;
}
