/* The results fixtures (tests/data/results/<name>.json) every report renderer is tested on, and
 * their loader: one list, so a new fixture reaches the JUnit and markdown tests alike. Include
 * after cmocka.h with RESULTS_DIR defined. */
#ifndef PG_TEST_RESULTS_FIXTURES_H
#define PG_TEST_RESULTS_FIXTURES_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/jsonget.h"

static const char *const k_fixtures[] = {"all_pass",    "assemble_fail", "correctness_fail",
                                         "performance_fail", "gpu_skipped", "infra_error",
                                         "hostile",     "multi_task",    "attention",
                                         "instructions_fail", "instructions_runtime", "baseline_drift",
                                         NULL};

/* The fixture's JSON (a new reference); fails the test when it does not load. */
static json_t *load_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, RESULTS_DIR "/%s.json", name);
    pg_diag d;
    json_t *j = NULL;
    pg_status st = pg_json_load(path, &j, &d);
    if (st != PG_OK) {
        char buf[4096];
        print_error("%s\n", pg_diag_format(&d, buf, sizeof buf));
    }
    assert_int_equal(st, PG_OK);
    return j;
}

/* The details of the performance stage of workload w of submission s of results j
 * (borrowed); fails the test when there is none. */
static inline json_t *perf_details(json_t *j, size_t s, size_t w)
{
    json_t *stages = json_object_get(
        json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"), s),
                                       "workloads"),
                       w),
        "stages");
    for (size_t i = 0; i < json_array_size(stages); i++) {
        json_t *st = json_array_get(stages, i);
        if (strcmp(json_string_value(json_object_get(st, "stage")), "performance") == 0)
            return json_object_get(st, "details");
    }
    fail_msg("no performance stage");
    return NULL;
}

#endif
