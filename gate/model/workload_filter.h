/* The --workloads filter of a run (docs/formats.md "Workload selection"): a comma-separated list
 * whose items are a workload name or alias (applied to every task of the run that has it),
 * TASK:NAME (that task's workload only) or @SELECTION (every workload whose task.json entry lists
 * SELECTION in its "selections", e.g. @ptxbench for PTXBench's headline workloads). One filter
 * serves every task of a run; an item that matches no task of the run is an input error. */
#ifndef PG_MODEL_WORKLOAD_FILTER_H
#define PG_MODEL_WORKLOAD_FILTER_H

#include <stdbool.h>

#include "base/diag.h"
#include "model/task.h"

/* Most items in one --workloads list. */
#define PG_WORKLOAD_FILTER_MAX 256

typedef struct {
    char task[128];  /* TASK of TASK:NAME; "" for the other forms */
    char name[128];  /* the workload name or alias, or the selection's name without '@' */
    bool selection;  /* @SELECTION */
    bool used;       /* set by pg_workload_filter_apply when the item selected something */
    bool task_seen;  /* TASK:NAME only: a task of that id was given to apply */
} pg_workload_filter_item;

typedef struct {
    pg_workload_filter_item items[PG_WORKLOAD_FILTER_MAX];
    int n;
} pg_workload_filter;

/* Parse list (non-empty). Errors: PG_ERR_INPUT naming --workloads for an empty item (",",
 * "a,,b", "task:"), an item with more than one ':', an empty task or selection name, a name
 * longer than 127 bytes, more than PG_WORKLOAD_FILTER_MAX items. */
pg_status pg_workload_filter_parse(const char *list, pg_workload_filter *f, pg_diag *d);

/* The workloads of t the filter selects, as indices into t->workloads in the order of the list
 * (a selection's workloads in task order, each workload once), into out
 * (room for t->n_workloads) and *n (0 when none applies: the caller decides). Marks the items
 * that selected something (used) and the TASK:NAME items whose task is t (task_seen). Pure. */
void pg_workload_filter_apply(pg_workload_filter *f, const pg_task *t, int *out, int *n);

/* After applying the filter to every task of the run: PG_ERR_INPUT naming --workloads for the
 * first item that selected nothing, with what the run's tasks know (tasks[0..n_tasks), borrowed;
 * the same task may appear more than once): "task 'X' has no workload 'Y' (known: ...)" for
 * TASK:NAME (or "no submission of this run is for task 'X'"), "no task of this run (X, Y) has
 * a workload 'Y'" for a plain name (with the known names when the run has one task), "no
 * workload of the run's tasks is in selection 'S' (selections: ...)" for @S. PG_OK when every
 * item selected something. */
pg_status pg_workload_filter_check_used(const pg_workload_filter *f, const pg_task *const *tasks,
                                        int n_tasks, pg_diag *d);

#endif
