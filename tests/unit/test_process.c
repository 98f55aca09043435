/* Tests for the child process runner: captured output, exit status, signals, the timeout kill,
 * output truncation, leftover processes and spawn failures. Uses only /bin/sh and coreutils. */
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

#include "tool/process.h"

static void test_echo_output(void **state)
{
    (void)state;
    const char *argv[] = {"echo", "hello", "world", NULL};
    pg_process_result r;
    pg_diag d;
    assert_int_equal(pg_process_run(argv, 10.0, 1 << 20, &r, &d), PG_OK);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.term_signal, 0);
    assert_false(r.timed_out);
    assert_false(r.spawn_failed);
    assert_false(r.output_truncated);
    assert_string_equal(r.output, "hello world\n");
    assert_int_equal(r.output_len, 12);
    assert_true(r.wall_s >= 0.0 && r.wall_s < 5.0);
    pg_process_result_free(&r);
    assert_null(r.output);
}

static void test_stderr_and_nonzero_exit(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    pg_process_result r;
    pg_diag d;
    assert_int_equal(pg_process_run(argv, 10.0, 1 << 20, &r, &d), PG_OK);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.output, "out\nerr\n");
    pg_process_result_free(&r);
}

static void test_no_output_is_empty_string(void **state)
{
    (void)state;
    const char *argv[] = {"true", NULL};
    pg_process_result r;
    assert_int_equal(pg_process_run(argv, 10.0, 1 << 20, &r, NULL), PG_OK);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.output);
    assert_string_equal(r.output, "");
    pg_process_result_free(&r);
}

static void test_killed_by_signal(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    pg_process_result r;
    assert_int_equal(pg_process_run(argv, 10.0, 1 << 20, &r, NULL), PG_OK);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_false(r.timed_out);
    pg_process_result_free(&r);
}

static void test_timeout_kills_group(void **state)
{
    (void)state;
    const char *argv[] = {"sleep", "10", NULL};
    pg_process_result r;
    assert_int_equal(pg_process_run(argv, 0.5, 1 << 20, &r, NULL), PG_OK);
    assert_true(r.timed_out);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_s >= 0.45);
    assert_true(r.wall_s < 1.5);
    pg_process_result_free(&r);

    /* the shell's child holds the pipe; it must die with the group, output so far is kept */
    const char *sh[] = {"/bin/sh", "-c", "echo before; sleep 10; echo after", NULL};
    assert_int_equal(pg_process_run(sh, 0.5, 1 << 20, &r, NULL), PG_OK);
    assert_true(r.timed_out);
    assert_true(r.wall_s < 1.5);
    assert_string_equal(r.output, "before\n");
    pg_process_result_free(&r);
}

static void test_leftover_background_process(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo started", NULL};
    pg_process_result r;
    assert_int_equal(pg_process_run(argv, 20.0, 1 << 20, &r, NULL), PG_OK);
    assert_false(r.timed_out);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.output, "started\n");
    assert_true(r.wall_s < 2.0);
    pg_process_result_free(&r);
}

static void test_output_truncation(void **state)
{
    (void)state;
    const char *argv[] = {"seq", "1", "200000", NULL}; /* about 1.3 MB */
    pg_process_result r;
    assert_int_equal(pg_process_run(argv, 20.0, 1000, &r, NULL), PG_OK);
    assert_int_equal(r.exit_code, 0); /* the rest was read and dropped, seq got no SIGPIPE */
    assert_true(r.output_truncated);
    assert_int_equal(r.output_len, 1000);
    assert_int_equal(strlen(r.output), 1000);
    assert_memory_equal(r.output, "1\n2\n3\n", 6);
    pg_process_result_free(&r);

    assert_int_equal(pg_process_run(argv, 20.0, 0, &r, NULL), PG_OK);
    assert_true(r.output_truncated);
    assert_string_equal(r.output, "");
    pg_process_result_free(&r);
}

static void test_missing_program(void **state)
{
    (void)state;
    pg_process_result r;
    pg_diag d;
    const char *abs[] = {"/nonexistent/ptxgate-no-such-program", NULL};
    pg_diag_clear(&d);
    assert_int_equal(pg_process_run(abs, 5.0, 1024, &r, &d), PG_ERR_INFRA);
    assert_true(r.spawn_failed);
    assert_int_equal(r.exit_code, -1);
    assert_null(r.output);
    assert_int_equal(d.status, PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "ptxgate-no-such-program"));
    assert_non_null(strstr(d.message, "No such file or directory"));
    pg_process_result_free(&r);

    const char *on_path[] = {"ptxgate-no-such-program-on-path", NULL};
    assert_int_equal(pg_process_run(on_path, 5.0, 1024, &r, &d), PG_ERR_INFRA);
    assert_true(r.spawn_failed);
    pg_process_result_free(&r);

    const char *empty[] = {NULL};
    assert_int_equal(pg_process_run(empty, 5.0, 1024, &r, &d), PG_ERR_INFRA);
    pg_process_result_free(&r);
}

/* Children get the TMPDIR set for them, the rest of the parent's environment, and the parent's
 * TMPDIR again once it is unset. (The parent-death signal's effect is what
 * tests/cases/kill_cleanup checks.) */
static void test_tmpdir_for_children(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "printf '%s|%s' \"$TMPDIR\" \"$PG_TEST_KEEP\"", NULL};
    pg_process_result r;
    pg_diag d;
    setenv("TMPDIR", "/parent/tmp", 1);
    setenv("PG_TEST_KEEP", "kept", 1);
    pg_process_set_tmpdir("/run/private/tmp");
    assert_int_equal(pg_process_run(argv, 10.0, 1024, &r, &d), PG_OK);
    assert_string_equal(r.output, "/run/private/tmp|kept");
    pg_process_result_free(&r);
    pg_process_set_tmpdir(NULL);
    assert_int_equal(pg_process_run(argv, 10.0, 1024, &r, &d), PG_OK);
    assert_string_equal(r.output, "/parent/tmp|kept");
    pg_process_result_free(&r);
    unsetenv("TMPDIR");
    unsetenv("PG_TEST_KEEP");
}

/* A file that is not executable is refused with EACCES, as execve does. */
static void test_not_executable(void **state)
{
    (void)state;
    char path[] = "/tmp/pg_test_noexec.XXXXXX";
    int fd = mkstemp(path); /* mode 0600 */
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\necho no\n", 19), 19);
    close(fd);
    const char *argv[] = {path, NULL};
    pg_process_result r;
    pg_diag d;
    assert_int_equal(pg_process_run(argv, 5.0, 1024, &r, &d), PG_ERR_INFRA);
    assert_true(r.spawn_failed);
    assert_non_null(strstr(d.message, "Permission denied"));
    pg_process_result_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_echo_output),
        cmocka_unit_test(test_stderr_and_nonzero_exit),
        cmocka_unit_test(test_no_output_is_empty_string),
        cmocka_unit_test(test_killed_by_signal),
        cmocka_unit_test(test_timeout_kills_group),
        cmocka_unit_test(test_leftover_background_process),
        cmocka_unit_test(test_output_truncation),
        cmocka_unit_test(test_missing_program),
        cmocka_unit_test(test_tmpdir_for_children),
        cmocka_unit_test(test_not_executable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
