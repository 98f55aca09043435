/* Running the GPU stages on several GPUs at once (`ptxgate check --devices 0,1,...`,
 * docs/isolation.md): one supervising thread per device, each running whole submissions in
 * worker processes bound to its device, one worker at a time, taking the next submission of the
 * policy's order (model/devices.h) when its previous one is done. All threads share the run
 * under one lock, which a thread gives up only while its worker runs (the status callbacks take
 * it), so the merging code is the single-device code unchanged. Results stay in their
 * submissions' records; the comparisons are registered for Holm after every thread ended, in
 * submission order, so the results do not depend on which device finished first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/devices.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "worker_parent.h"

typedef struct {
    pg_run *run;
    pg_submission *subs;
    const size_t *order; /* hand-out order of the active submissions */
    size_t n_order;
    size_t next;         /* the next position in order (under the lock) */
} pool;

typedef struct {
    pool *p;
    pg_device_slot slot;
    pthread_t thread;
    bool started;
} device_thread;

static void *device_main(void *arg)
{
    device_thread *t = arg;
    pool *p = t->p;
    pthread_mutex_lock(p->run->lock);
    while (p->next < p->n_order) {
        pg_submission *s = &p->subs[p->order[p->next++]];
        s->device = t->slot.ordinal;
        json_object_set_new(s->json, "device", json_integer(s->device));
        pg_worker_stages_gpu_on(p->run, s, &t->slot);
        pg_run_submission_done(p->run, s);
    }
    pthread_mutex_unlock(p->run->lock);
    return NULL;
}

pg_status pg_worker_pool_probe(pg_run *run, pg_diag *d)
{
    const pg_check_options *o = run->o;
    run->dev_tried = true;
    run->dev_infos = calloc((size_t)o->n_devices, sizeof *run->dev_infos);
    if (!run->dev_infos)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (int k = 0; k < o->n_devices; k++) {
        char why[1024];
        if (!pg_worker_probe_device(run, o->devices[k], &run->dev_infos[k], why, sizeof why)) {
            snprintf(run->gpu_skip_reason, sizeof run->gpu_skip_reason, "device %d of --devices: %s",
                     o->devices[k], why);
            free(run->dev_infos);
            run->dev_infos = NULL;
            return PG_OK;
        }
        run->n_dev_infos = k + 1;
        const pg_device_info *a = &run->dev_infos[0], *b = &run->dev_infos[k];
        if (strcmp(a->name, b->name) != 0 || a->cc_major != b->cc_major ||
            a->cc_minor != b->cc_minor || a->sm_count != b->sm_count)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                               "device %d is a %s (compute capability %d.%d, %d SMs) but device "
                               "%d is a %s (compute capability %d.%d, %d SMs): one run times "
                               "on one GPU model; list devices of the same model",
                               o->devices[k], b->name, b->cc_major, b->cc_minor, b->sm_count,
                               o->devices[0], a->name, a->cc_major, a->cc_minor, a->sm_count);
    }
    run->info = run->dev_infos[0];
    run->have_info = true;
    return PG_OK;
}

void pg_worker_pool_run(pg_run *run, pg_submission *subs, size_t n, const bool *active)
{
    const pg_check_options *o = run->o;
    int *cost = calloc(n + 1, sizeof *cost);
    size_t *all = calloc(n + 1, sizeof *all), *order = calloc(n + 1, sizeof *order);
    device_thread *threads = calloc((size_t)o->n_devices, sizeof *threads);
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pool p = {.run = run, .subs = subs, .order = order};
    if (!cost || !all || !order || !threads) {
        for (size_t i = 0; i < n; i++)
            if (active[i])
                pg_gpu_record_not_run(run, &subs[i], "error", "out of memory", false);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        cost[i] = active[i] ? subs[i].n_workloads : 0;
    pg_devices_order(cost, n, all);
    for (size_t k = 0; k < n; k++)
        if (active[all[k]])
            order[p.n_order++] = all[k];
    run->lock = &lock;
    int started = 0;
    for (int k = 0; k < o->n_devices; k++) {
        threads[k] = (device_thread){.p = &p, .slot = {.ordinal = o->devices[k]}};
        threads[k].started = pthread_create(&threads[k].thread, NULL, device_main, &threads[k]) == 0;
        started += threads[k].started;
    }
    if (started == 0) /* no thread could start: the work runs here, on the first device */
        device_main(&threads[0]);
    for (int k = 0; k < o->n_devices; k++)
        if (threads[k].started)
            pthread_join(threads[k].thread, NULL);
    run->lock = NULL;
    /* Holm's registrations in submission order, as a single-device run makes them. */
    for (size_t i = 0; i < n; i++)
        if (active[i])
            pg_worker_flush_perf(run, &subs[i]);
done:
    free(cost);
    free(all);
    free(order);
    free(threads);
}
