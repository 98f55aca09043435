/* The offline preparation of a run's submissions in parallel (issue 18): validating a manifest
 * and compiling its .cu (nvcc -M, then nvcc -ptx: seconds each, single-threaded) is independent
 * per submission, so up to one thread per CPU core runs them side by side. Each thread prepares
 * its own submissions in place; the run's shared state they read is set up before the threads
 * start (the allowed include folders) and is not written by them, except the device's
 * fingerprint, which the first manifest with device symbols asks for under a lock. Accepted kernels, which the
 * run shares between submissions, are prepared afterwards in command-line order (check.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "run.h"
#include "submission.h"

/* More threads than this gain nothing for nvcc, whose runs also read the same headers. */
#define PG_PREPARE_MAX_THREADS 16

typedef struct {
    pg_run *run;
    const char *const *manifests;
    size_t n;
    pg_submission *subs;
    pg_status *status;
    pg_diag *diags;
    atomic_size_t next;
} prepare_pool;

static void *prepare_thread(void *arg)
{
    prepare_pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        pg_diag_clear(&p->diags[i]);
        p->status[i] = pg_submission_prepare(p->run, p->manifests[i], (int)i, &p->subs[i],
                                             &p->diags[i]);
    }
}

void pg_prepare_all(pg_run *run, const char *const *manifests, size_t n, pg_submission *subs,
                    pg_status *status, pg_diag *diags)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cpus > 0 ? (size_t)cpus : 1;
    if (threads > PG_PREPARE_MAX_THREADS)
        threads = PG_PREPARE_MAX_THREADS;
    if (threads > n)
        threads = n;
    prepare_pool p = {.run = run, .manifests = manifests, .n = n, .subs = subs,
                      .status = status, .diags = diags};
    atomic_init(&p.next, 0);
    /* What the threads share, made before they start: the allowed include folders (a .cu's
     * includes are checked against them), and jansson's hash seed. */
    pg_cu_include_roots_ready(run);
    json_object_seed(0);
    bool saved = run->defer_accepted;
    run->defer_accepted = true;
    /* A manifest with device symbols asks for the GPU's values (submission.c): one thread at a
     * time opens or probes the device. */
    pthread_mutex_t info_lock = PTHREAD_MUTEX_INITIALIZER;
    run->info_lock = &info_lock;
    pthread_t tid[PG_PREPARE_MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < threads; t++) /* this thread is the first worker */
        if (pthread_create(&tid[started], NULL, prepare_thread, &p) == 0)
            started++;
    prepare_thread(&p);
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    run->info_lock = NULL;
    pthread_mutex_destroy(&info_lock);
    run->defer_accepted = saved;
}
