/* Sharding a run (gate/pipeline/shard_filter.c): each submission keeps the workloads of its
 * shard; an accepted kernel shared by the submissions of a task (accepted.c) stays whole, and
 * each submission is given that kernel's plans of its own kept workloads, however those differ
 * between the submissions of the shard; a submission that is its own accepted kernel is
 * compacted once; the shard record lists the kept items. Hand-built submissions: a plan's flop
 * count names the workload and the kernel it belongs to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/run.h"
#include "pipeline/submission.h"

#define N_WORKLOADS 3

/* Task "t" with workloads w0, w1, w2 (each submission owns its copy, as a prepared one does). */
static pg_task *new_task(void)
{
    pg_task *t = calloc(1, sizeof *t);
    assert_non_null(t);
    snprintf(t->id, sizeof t->id, "t");
    t->workloads = calloc(N_WORKLOADS, sizeof *t->workloads);
    assert_non_null(t->workloads);
    for (int w = 0; w < N_WORKLOADS; w++)
        snprintf(t->workloads[w].name, sizeof t->workloads[w].name, "w%d", w);
    t->n_workloads = N_WORKLOADS;
    return t;
}

/* Submission `name` with every workload; plan w has flop = flop0 + w. */
static void init_submission(pg_submission *s, const char *name, double flop0)
{
    memset(s, 0, sizeof *s);
    s->task = new_task();
    s->manifest = calloc(1, sizeof *s->manifest);
    assert_non_null(s->manifest);
    snprintf(s->manifest->name, sizeof s->manifest->name, "%s", name);
    snprintf(s->manifest->file, sizeof s->manifest->file, "%s.json", name);
    s->workloads = calloc(N_WORKLOADS, sizeof *s->workloads);
    s->plans = calloc(N_WORKLOADS, sizeof *s->plans);
    assert_non_null(s->workloads);
    assert_non_null(s->plans);
    for (int w = 0; w < N_WORKLOADS; w++) {
        s->workloads[w] = w;
        s->plans[w].flop = flop0 + w;
    }
    s->n_workloads = N_WORKLOADS;
}

/* Two submissions a and b of task t sharing the accepted kernel A (plans 100, 101, 102), cut
 * into shard index of 2. The items sort as (a,w0) (a,w1) (a,w2) (b,w0) (b,w1) (b,w2) and go
 * round-robin (model/shard.h): shard 1 keeps a's w0, w2 and b's w1; shard 2 the others. */
static void two_submissions_one_accepted(int index, const int *kept_a, int n_a,
                                         const int *kept_b, int n_b)
{
    pg_check_options o = {.shard_index = index, .shard_count = 2};
    pg_run run = {.o = &o};
    pg_submission *acc = calloc(1, sizeof *acc);
    assert_non_null(acc);
    init_submission(acc, "accepted", 100.0);
    acc->is_accepted = true;
    pg_submission subs[2];
    init_submission(&subs[0], "a", 0.0);
    init_submission(&subs[1], "b", 10.0);
    for (int i = 0; i < 2; i++) {
        subs[i].accepted.kernel = acc;
        subs[i].accepted.shared = true;
        /* Before the split the kernel's plans line up with the submission's. */
        assert_ptr_equal(pg_accepted_plan(&subs[i], 1), &acc->plans[1]);
    }
    json_t *record = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_run_select_shard(&run, subs, 2, &record, &d), PG_OK);
    const int *kept[2] = {kept_a, kept_b};
    int n_kept[2] = {n_a, n_b};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(subs[i].n_workloads, n_kept[i]);
        for (int k = 0; k < n_kept[i]; k++) {
            int w = kept[i][k];
            assert_int_equal(subs[i].workloads[k], w);
            assert_true(subs[i].plans[k].flop == 10.0 * i + w);
            /* The shared kernel's plan of the same workload, not of the same position. */
            assert_true(pg_accepted_plan(&subs[i], k)->flop == 100.0 + w);
        }
        assert_ptr_equal(subs[i].accepted.kernel, acc);
    }
    /* The shared kernel itself stays whole for every submission that shares it. */
    assert_int_equal(acc->n_workloads, N_WORKLOADS);
    for (int w = 0; w < N_WORKLOADS; w++) {
        assert_int_equal(acc->workloads[w], w);
        assert_true(acc->plans[w].flop == 100.0 + w);
    }
    assert_int_equal(json_integer_value(json_object_get(record, "items_total")), 2 * N_WORKLOADS);
    json_t *items = json_object_get(record, "items");
    assert_int_equal(json_array_size(items), (size_t)(n_a + n_b));
    for (size_t k = 0; k < json_array_size(items); k++) {
        json_t *it = json_array_get(items, k);
        int i = (int)json_integer_value(json_object_get(it, "submission_index"));
        int w = (int)json_integer_value(json_object_get(it, "workload_index"));
        char name[8];
        snprintf(name, sizeof name, "w%d", w);
        assert_string_equal(json_string_value(json_object_get(it, "workload")), name);
        assert_string_equal(json_string_value(json_object_get(it, "submission")),
                            i == 0 ? "a" : "b");
    }
    json_decref(record);
    /* The submissions release what they borrowed, the run its shared kernel (in that order,
     * as pg_check_run does): no leak, no double free (valgrind/ASan builds catch either). */
    for (int i = 0; i < 2; i++)
        pg_submission_release(&subs[i]);
    pg_submission_release(acc);
    free(acc);
}

static void test_shard_1_kept_workloads_differ(void **state)
{
    (void)state;
    static const int a[] = {0, 2}, b[] = {1};
    two_submissions_one_accepted(1, a, 2, b, 1);
}

static void test_shard_2_kept_workloads_differ(void **state)
{
    (void)state;
    static const int a[] = {1}, b[] = {0, 2};
    two_submissions_one_accepted(2, a, 1, b, 2);
}

/* Either manifest's `supports` may decline workloads: the accepted kernel's plan is the one of
 * the same task workload, and there is none for a workload the accepted kernel declines. */
static void test_plans_matched_by_task_workload(void **state)
{
    (void)state;
    pg_submission acc, s;
    init_submission(&acc, "accepted", 100.0);
    init_submission(&s, "a", 0.0);
    /* The candidate declined w0 (keeps w1, w2); the accepted kernel declined w1 (keeps w0, w2). */
    s.workloads[0] = 1;
    s.workloads[1] = 2;
    s.n_workloads = 2;
    acc.workloads[1] = 2;
    acc.plans[1].flop = 102.0;
    acc.n_workloads = 2;
    s.accepted.kernel = &acc;
    s.accepted.shared = true;
    assert_null(pg_accepted_plan(&s, 0));
    assert_true(pg_accepted_plan(&s, 1)->flop == 102.0);
    s.accepted.kernel = NULL;
    assert_null(pg_accepted_plan(&s, 1));
    s.n_workloads = N_WORKLOADS; /* release frees every plan it allocated */
    acc.n_workloads = N_WORKLOADS;
    pg_submission_release(&s);
    pg_submission_release(&acc);
}

/* A submission that is its own accepted kernel (accepted.c's self shortcut, kept in shards):
 * compacted once, its accepted plans are its own kept ones. */
static void test_self_accepted_compacted_once(void **state)
{
    (void)state;
    pg_check_options o = {.shard_index = 1, .shard_count = 2};
    pg_run run = {.o = &o};
    pg_submission s;
    init_submission(&s, "a", 0.0);
    s.accepted.kernel = &s;
    s.accepted.shared = true;
    s.accepted.self = true;
    json_t *record = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_run_select_shard(&run, &s, 1, &record, &d), PG_OK);
    /* (a,w0) (a,w1) (a,w2) → shards 1, 2, 1. */
    assert_int_equal(s.n_workloads, 2);
    assert_int_equal(s.workloads[0], 0);
    assert_int_equal(s.workloads[1], 2);
    assert_true(s.plans[1].flop == 2.0);
    assert_ptr_equal(pg_accepted_plan(&s, 0), &s.plans[0]);
    assert_ptr_equal(pg_accepted_plan(&s, 1), &s.plans[1]);
    json_decref(record);
    pg_submission_release(&s);
}

/* A submission outside the shard keeps nothing and borrows nothing it would have to free. */
static void test_submission_outside_the_shard(void **state)
{
    (void)state;
    pg_check_options o = {.shard_index = 3, .shard_count = 3};
    pg_run run = {.o = &o};
    pg_submission *acc = calloc(1, sizeof *acc);
    assert_non_null(acc);
    init_submission(acc, "accepted", 100.0);
    pg_submission s;
    init_submission(&s, "a", 0.0);
    s.workloads[1] = s.workloads[2] = 0; /* one workload only: (a,w0) → shard 1 */
    s.n_workloads = 1;
    pg_plan_free(&s.plans[1]);
    pg_plan_free(&s.plans[2]);
    s.accepted.kernel = acc;
    s.accepted.shared = true;
    json_t *record = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_run_select_shard(&run, &s, 1, &record, &d), PG_OK);
    assert_int_equal(s.n_workloads, 0);
    assert_int_equal(json_array_size(json_object_get(record, "items")), 0);
    assert_int_equal(acc->n_workloads, N_WORKLOADS);
    json_decref(record);
    pg_submission_release(&s);
    pg_submission_release(acc);
    free(acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shard_1_kept_workloads_differ),
        cmocka_unit_test(test_shard_2_kept_workloads_differ),
        cmocka_unit_test(test_self_accepted_compacted_once),
        cmocka_unit_test(test_plans_matched_by_task_workload),
        cmocka_unit_test(test_submission_outside_the_shard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
