/* The results fixtures (tests/data/results/<name>.json) every report renderer is tested on, and
 * their loader: one list, so a new fixture reaches the JUnit and markdown tests alike. Include
 * after cmocka.h with RESULTS_DIR defined. */
#ifndef PG_TEST_RESULTS_FIXTURES_H
#define PG_TEST_RESULTS_FIXTURES_H

#include <jansson.h>
#include <stdio.h>

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

#endif
