/* The --workloads filter: parsing the list and applying it to each task of a run (see
 * workload_filter.h). */
#include <stdio.h>
#include <string.h>

#include "model/workload_filter.h"

pg_status pg_workload_filter_parse(const char *list, pg_workload_filter *f, pg_diag *d)
{
    memset(f, 0, sizeof *f);
    const char *p = list;
    if (!list || !list[0])
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads", "expected a value, got an "
                                                                    "empty string");
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[400];
        /* Empty names (",", "a,,b") are mistakes: a run must never quietly select nothing. */
        if (len == 0)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "empty workload name in '%s'", list);
        if (len >= sizeof item)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "an item is too long (%zu bytes)", len);
        if (f->n == PG_WORKLOAD_FILTER_MAX)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads", "more than %d items",
                               PG_WORKLOAD_FILTER_MAX);
        memcpy(item, p, len);
        item[len] = '\0';
        pg_workload_filter_item *it = &f->items[f->n];
        const char *name = item;
        char *colon = strchr(item, ':');
        if (colon) {
            *colon = '\0';
            name = colon + 1;
            if (strchr(name, ':') || !item[0] || !name[0])
                return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                                   "expected TASK:WORKLOAD with both parts given, got '%.*s'",
                                   (int)len, p);
            if (strlen(item) >= sizeof it->task)
                return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                                   "task name too long in '%.*s'", (int)len, p);
            snprintf(it->task, sizeof it->task, "%s", item);
        } else if (name[0] == '@') {
            it->selection = true;
            name++;
            if (!name[0])
                return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                                   "expected a selection name after '@' in '%s'", list);
        }
        if (strlen(name) >= sizeof it->name)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "workload name too long in '%.*s'", (int)len, p);
        snprintf(it->name, sizeof it->name, "%s", name);
        f->n++;
        p += len;
        if (!*p)
            break;
        p++; /* the ',' */
        if (!*p)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "empty workload name in '%s'", list);
    }
    return PG_OK;
}

static void add_unique(int *out, int *n, int wi)
{
    for (int i = 0; i < *n; i++)
        if (out[i] == wi)
            return;
    out[(*n)++] = wi;
}

static bool in_selection(const pg_workload *w, const char *sel)
{
    for (int s = 0; s < w->n_selections; s++)
        if (strcmp(w->selections[s], sel) == 0)
            return true;
    return false;
}

void pg_workload_filter_apply(pg_workload_filter *f, const pg_task *t, int *out, int *n)
{
    *n = 0;
    for (int i = 0; i < f->n; i++) {
        pg_workload_filter_item *it = &f->items[i];
        if (it->selection) {
            for (int w = 0; w < t->n_workloads; w++)
                if (in_selection(&t->workloads[w], it->name)) {
                    add_unique(out, n, w);
                    it->used = true;
                }
            continue;
        }
        if (it->task[0]) {
            if (strcmp(it->task, t->id) != 0)
                continue;
            it->task_seen = true;
        }
        int w = pg_task_find_workload(t, it->name);
        if (w >= 0) {
            add_unique(out, n, w);
            it->used = true;
        }
    }
}

/* "a, b, c" into buf: the run's distinct task ids. */
static void task_list(const pg_task *const *tasks, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= strcmp(tasks[j]->id, tasks[i]->id) == 0;
        if (!dup)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "",
                                     tasks[i]->id);
    }
}

static void workload_list(const pg_task *t, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->n_workloads && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "",
                                 t->workloads[i].name);
}

/* Whether name already appears among the selections seen before (task ti, workload wi, slot si). */
static bool seen_before(const pg_task *const *tasks, int ti, int wi, int si, const char *name)
{
    for (int i = 0; i <= ti; i++)
        for (int w = 0; w < tasks[i]->n_workloads; w++)
            for (int s = 0; s < tasks[i]->workloads[w].n_selections; s++) {
                if (i == ti && w == wi && s == si)
                    return false;
                if (strcmp(tasks[i]->workloads[w].selections[s], name) == 0)
                    return true;
            }
    return false;
}

/* The distinct selection names of the run's tasks ("@a, @b"), or "none". */
static void selection_list(const pg_task *const *tasks, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        for (int w = 0; w < tasks[i]->n_workloads; w++)
            for (int s = 0; s < tasks[i]->workloads[w].n_selections; s++) {
                const char *name = tasks[i]->workloads[w].selections[s];
                if (used < cap && !seen_before(tasks, i, w, s, name))
                    used += (size_t)snprintf(buf + used, cap - used, "%s@%s", used ? ", " : "",
                                             name);
            }
    if (!buf[0])
        snprintf(buf, cap, "none");
}

pg_status pg_workload_filter_check_used(const pg_workload_filter *f, const pg_task *const *tasks,
                                        int n_tasks, pg_diag *d)
{
    char known[2048], ids[1024];
    for (int i = 0; i < f->n; i++) {
        const pg_workload_filter_item *it = &f->items[i];
        if (it->used)
            continue;
        task_list(tasks, n_tasks, ids, sizeof ids);
        if (it->selection) {
            selection_list(tasks, n_tasks, known, sizeof known);
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "no workload of this run's tasks (%s) is in selection '@%s' "
                               "(their selections: %s)", ids, it->name, known);
        }
        const pg_task *t = NULL;
        for (int k = 0; k < n_tasks && !t; k++)
            if (it->task[0] ? strcmp(tasks[k]->id, it->task) == 0 : n_tasks > 0)
                t = tasks[k];
        if (it->task[0] && !t)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "'%s:%s': no submission of this run is for task '%s' (tasks: %s)",
                               it->task, it->name, it->task, ids);
        bool one_task = it->task[0] || strchr(ids, ',') == NULL;
        if (t && one_task) {
            workload_list(t, known, sizeof known);
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                               "task '%s' has no workload '%s' (known: %s)", t->id, it->name,
                               known);
        }
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                           "no task of this run (%s) has a workload '%s'; TASK:WORKLOAD names "
                           "one task's", ids, it->name);
    }
    return PG_OK;
}
