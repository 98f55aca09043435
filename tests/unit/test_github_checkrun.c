/* The check run's conclusion and title (gate/github/checkrun.h): an infrastructure error is
 * titled INFRASTRUCTURE and fails, a pass with a submission not judged on a GPU concludes
 * action_required (never success or neutral: both would pass a required check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "github/checkrun.h"

static void test_conclusions(void **state)
{
    (void)state;
    assert_string_equal(pg_gh_check_conclusion("pass", 0), "success");
    assert_string_equal(pg_gh_check_conclusion("pass", 2), "action_required");
    assert_string_equal(pg_gh_check_conclusion("fail", 0), "failure");
    assert_string_equal(pg_gh_check_conclusion("fail", 1), "failure");
    assert_string_equal(pg_gh_check_conclusion("error", 0), "failure");
    assert_string_equal(pg_gh_check_conclusion(NULL, 0), "failure");
}

static void test_titles(void **state)
{
    (void)state;
    char buf[512];
    const size_t ok[4] = {3, 0, 0, 0}, bad[4] = {1, 2, 0, 0}, infra[4] = {1, 0, 1, 0};
    assert_string_equal(pg_gh_check_title("pass", ok, 0, NULL, buf, sizeof buf),
                        "PASS: 3 passed, 0 failed, 0 errored, 0 skipped");
    assert_string_equal(pg_gh_check_title("fail", bad, 0, NULL, buf, sizeof buf),
                        "FAIL: 1 passed, 2 failed, 0 errored, 0 skipped");
    assert_string_equal(pg_gh_check_title("error", infra, 0, NULL, buf, sizeof buf),
                        "INFRASTRUCTURE: the gate could not judge 1 submission (not a kernel "
                        "failure) · 1 passed, 0 failed, 1 errored, 0 skipped");
    assert_string_equal(pg_gh_check_title("pass", ok, 3, "GPU stages disabled by --no-gpu", buf,
                                          sizeof buf),
                        "NOT JUDGED ON A GPU: GPU stages disabled by --no-gpu · 3 submissions "
                        "passed the offline stages only · 3 passed, 0 failed, 0 errored, 0 "
                        "skipped");
    assert_string_equal(pg_gh_check_title("fail", bad, 1, "no driver", buf, sizeof buf),
                        "FAIL: 1 passed, 2 failed, 0 errored, 0 skipped · not judged on a GPU: "
                        "no driver");
    /* an untrusted reason stays on one line */
    pg_gh_check_title("pass", ok, 1, "a\nb\rc", buf, sizeof buf);
    assert_null(strchr(buf, '\n'));
    assert_null(strchr(buf, '\r'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conclusions),
        cmocka_unit_test(test_titles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
