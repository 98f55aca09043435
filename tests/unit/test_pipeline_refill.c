/* Unit tests of two pieces the isolated and in-process runs share without a GPU: which inputs a
 * timed launch gets anew (pg_refrun_refillable: every input of GEMM and attention forward, only
 * dO of attention backward, never an output), and the stored-baseline notes a worker reports
 * and its parent adds (pg_baselines_events_since / pg_baselines_add_events). Links the pipeline
 * library; the tasks are the repository's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/baseline_check.h"
#include "pipeline/reference_run.h"
#include "pipeline/run.h"
#include "pipeline/submission.h"

#define TASKS PG_TEST_DATA "/../../tasks"

static pg_task *load(const char *id)
{
    pg_task *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_task_load(TASKS, id, &t, &d), PG_OK);
    return t;
}

/* The names of the refillable tensors of task id, comma-separated. */
static void refillable(const char *id, char *out, size_t n)
{
    pg_task *t = load(id);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < t->n_tensors; i++)
        if (pg_refrun_refillable(t, i))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "",
                                     t->tensors[i].name);
    pg_task_free(t);
}

static void test_refillable_inputs(void **state)
{
    (void)state;
    char names[256];
    refillable("gemm_bf16_nt", names, sizeof names);
    assert_string_equal(names, "A,B");
    refillable("mha_fwd_d128", names, sizeof names);
    assert_string_equal(names, "Q,K,V");
    refillable("mha_fwd_d128_causal", names, sizeof names);
    assert_string_equal(names, "Q,K,V");
    /* O and LSE are the reference forward of Q, K, V: those three stay, dO changes. */
    refillable("mha_bwd_d128", names, sizeof names);
    assert_string_equal(names, "dO");
    refillable("mha_bwd_d128_causal", names, sizeof names);
    assert_string_equal(names, "dO");
}

static void test_baseline_events_cross(void **state)
{
    (void)state;
    pg_check_options o;
    pg_check_options_init(&o);
    pg_run worker = {.o = &o}, parent = {.o = &o};
    pg_submission s;
    memset(&s, 0, sizeof s);
    s.task = load("gemm_bf16_nt");
    pg_diag d;
    pg_diag_clear(&d);
    /* No baselines folder: every task still gets its record, and its notes. */
    assert_int_equal(pg_baselines_resolve(&worker, &s, 1, &d), PG_OK);
    assert_int_equal(pg_baselines_resolve(&parent, &s, 1, &d), PG_OK);
    size_t sent = 0;
    json_t *none = pg_baselines_events_since(&worker, "gemm_bf16_nt", &sent);
    assert_int_equal(json_array_size(none), 0);
    json_decref(none);

    /* Two notes, then one more: each is reported exactly once. */
    json_t *notes = json_pack("[s, s]", "m257_n513_k1000: searched", "m2048_n2048_k2048: drift");
    pg_baselines_add_events(&worker, "gemm_bf16_nt", notes);
    json_decref(notes);
    json_t *first = pg_baselines_events_since(&worker, "gemm_bf16_nt", &sent);
    assert_int_equal(json_array_size(first), 2);
    assert_int_equal(sent, 2);
    notes = json_pack("[s, i]", "m4096_n4096_k4096: refused", 7); /* a non-string is dropped */
    pg_baselines_add_events(&worker, "gemm_bf16_nt", notes);
    json_decref(notes);
    json_t *second = pg_baselines_events_since(&worker, "gemm_bf16_nt", &sent);
    assert_int_equal(json_array_size(second), 1);
    assert_string_equal(json_string_value(json_array_get(second, 0)),
                        "m4096_n4096_k4096: refused");

    /* The parent appends them to its own record; an unknown task changes nothing. */
    pg_baselines_add_events(&parent, "gemm_bf16_nt", first);
    pg_baselines_add_events(&parent, "gemm_bf16_nt", second);
    pg_baselines_add_events(&parent, "no_such_task", second);
    json_t *j = pg_baselines_json(&parent);
    json_t *events = json_object_get(json_array_get(json_object_get(j, "tasks"), 0), "events");
    assert_int_equal(json_array_size(events), 3);
    assert_string_equal(json_string_value(json_array_get(events, 2)),
                        "m4096_n4096_k4096: refused");
    json_t *list = json_object_get(j, "notes");
    bool found = false;
    for (size_t i = 0; i < json_array_size(list); i++)
        found |= strcmp(json_string_value(json_array_get(list, i)),
                        "gemm_bf16_nt/m2048_n2048_k2048: drift") == 0;
    assert_true(found);
    json_decref(j);
    json_decref(first);
    json_decref(second);
    pg_baselines_release(&worker);
    pg_baselines_release(&parent);
    pg_task_free(s.task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refillable_inputs),
        cmocka_unit_test(test_baseline_events_cross),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
