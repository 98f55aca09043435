/* The run's progress line: done/total items and submissions, the elapsed time, and the time
 * left only when the run is estimated to take longer than a minute (mean rate so far). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/check.h"

static void test_short_run_has_no_eta(void **state)
{
    (void)state;
    char b[256];
    /* 2 of 4 items in 10 s: about 20 s in all, no ETA. */
    assert_string_equal(pg_progress_format(b, sizeof b, 2, 4, 1, 2, 10.0),
                        "progress: 2/4 items (1/2 submissions), 10 s");
    assert_string_equal(pg_progress_format(b, sizeof b, 0, 4, 0, 2, 0.2),
                        "progress: 0/4 items (0/2 submissions), 0 s");
}

static void test_long_run_has_eta(void **state)
{
    (void)state;
    char b[256];
    /* 10 of 45 items in 75 s: 7.5 s an item, 35 left = 262.5 s. */
    assert_string_equal(pg_progress_format(b, sizeof b, 10, 45, 2, 9, 75.0),
                        "progress: 10/45 items (2/9 submissions), 1 min 15 s, about 4 min 23 s "
                        "left");
    /* 40 s so far, 30 s more: longer than a minute in all, so the ETA shows. */
    assert_string_equal(pg_progress_format(b, sizeof b, 4, 7, 4, 7, 40.0),
                        "progress: 4/7 items (4/7 submissions), 40 s, about 30 s left");
    /* Hours. */
    assert_string_equal(pg_progress_format(b, sizeof b, 1, 100, 1, 100, 60.0),
                        "progress: 1/100 items (1/100 submissions), 1 min 0 s, about 1 h 39 min "
                        "left");
    /* Done: no ETA. */
    assert_string_equal(pg_progress_format(b, sizeof b, 45, 45, 9, 9, 600.0),
                        "progress: 45/45 items (9/9 submissions), 10 min 0 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_run_has_no_eta),
        cmocka_unit_test(test_long_run_has_eta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
