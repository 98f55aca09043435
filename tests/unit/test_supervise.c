/* Tests for the worker supervisor: status lines delivered in order while the child runs, lines
 * written just before exit kept, the watchdog deadline moved by the lines and the group killed
 * when it passes (attributed to the last announced step), output captured and bounded, spawn
 * failures. Children are /bin/sh scripts that write to the FIFO path given as $1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool/supervise.h"

typedef struct {
    char lines[16][128];
    int n;
    double limit_s;     /* per announced step */
    double step_start;  /* when the last line arrived */
} watch;

static void on_line(void *ctx, const char *line, size_t len)
{
    watch *w = ctx;
    assert_int_equal(strlen(line), len);
    if (w->n < 16)
        snprintf(w->lines[w->n++], sizeof w->lines[0], "%s", line);
    w->step_start = pg_supervise_now();
}

static double deadline(void *ctx)
{
    watch *w = ctx;
    return w->limit_s > 0 ? w->step_start + w->limit_s : 0;
}

static char g_fifo[256];

static int setup(void **state)
{
    (void)state;
    snprintf(g_fifo, sizeof g_fifo, "%s/supervise.%d.fifo", PG_TEST_TMP, (int)getpid());
    unlink(g_fifo);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(g_fifo);
    return 0;
}

static void run(const char *script, watch *w, size_t max_output, pg_supervise_result *r)
{
    const char *argv[] = {"/bin/sh", "-c", script, "sh", g_fifo, NULL};
    pg_supervise_hooks h = {on_line, deadline, w};
    w->step_start = pg_supervise_now();
    pg_diag d;
    assert_int_equal(pg_supervise_run(argv, g_fifo, &h, max_output, r, &d), PG_OK);
    unlink(g_fifo);
}

static void test_lines_in_order_and_output(void **state)
{
    (void)state;
    watch w = {.limit_s = 0};
    pg_supervise_result r;
    run("echo stage-load >\"$1\"; echo hello; echo err >&2; printf 'a\\nb\\n' >\"$1\"; exit 4",
        &w, 1 << 20, &r);
    assert_int_equal(r.exit_code, 4);
    assert_false(r.watchdog_killed);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.lines[0], "stage-load");
    assert_string_equal(w.lines[1], "a");
    assert_string_equal(w.lines[2], "b");
    assert_int_equal(r.lines, 3);
    assert_non_null(strstr(r.output, "hello\n"));
    assert_non_null(strstr(r.output, "err\n"));
    assert_true(r.pid > 0);
    pg_supervise_result_free(&r);
}

static void test_watchdog_kills_hung_step(void **state)
{
    (void)state;
    /* Each line restarts a 0.6 s limit: quick steps pass, the hung one is killed. */
    watch w = {.limit_s = 0.6};
    pg_supervise_result r;
    run("echo load >\"$1\"; sleep 0.2; echo correctness >\"$1\"; sleep 0.2; "
        "echo performance >\"$1\"; sleep 30",
        &w, 1 << 20, &r);
    assert_true(r.watchdog_killed);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.lines[w.n - 1], "performance");
    assert_true(r.wall_s >= 0.9 && r.wall_s < 10.0);
    pg_supervise_result_free(&r);
}

static void test_watchdog_kills_whole_group(void **state)
{
    (void)state;
    /* A grandchild that keeps the output pipe open must not outlive the kill. */
    watch w = {.limit_s = 0.4};
    pg_supervise_result r;
    run("sleep 30 & echo started >\"$1\"; wait", &w, 1 << 20, &r);
    assert_true(r.watchdog_killed);
    assert_true(r.wall_s < 5.0);
    pg_supervise_result_free(&r);
}

static void test_partial_last_line_and_quick_exit(void **state)
{
    (void)state;
    watch w = {0};
    pg_supervise_result r;
    /* The last line has no newline: it is not a line and is not delivered. */
    run("printf 'one\\ntwo\\nthr' >\"$1\"", &w, 1 << 20, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(w.n, 2);
    assert_string_equal(w.lines[1], "two");
    pg_supervise_result_free(&r);
}

static void test_output_bounded(void **state)
{
    (void)state;
    watch w = {0};
    pg_supervise_result r;
    run("head -c 100000 /dev/zero | tr '\\0' x", &w, 1000, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.output_len, 1000);
    assert_true(r.output_truncated);
    pg_supervise_result_free(&r);
}

static void test_spawn_failure(void **state)
{
    (void)state;
    const char *argv[] = {"/nonexistent/ptxgate-worker", NULL};
    pg_supervise_result r;
    pg_diag d;
    assert_int_equal(pg_supervise_run(argv, g_fifo, NULL, 1024, &r, &d), PG_ERR_INFRA);
    assert_true(r.spawn_failed);
    assert_non_null(strstr(d.message, "cannot start"));
    pg_supervise_result_free(&r);
}

static void test_existing_fifo_path_refused(void **state)
{
    (void)state;
    FILE *f = fopen(g_fifo, "w");
    assert_non_null(f);
    fclose(f);
    const char *argv[] = {"true", NULL};
    pg_supervise_result r;
    pg_diag d;
    assert_int_equal(pg_supervise_run(argv, g_fifo, NULL, 1024, &r, &d), PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "FIFO"));
    pg_supervise_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lines_in_order_and_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watchdog_kills_hung_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watchdog_kills_whole_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_last_line_and_quick_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spawn_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_existing_fifo_path_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
