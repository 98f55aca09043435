/* The GitHub client's retry rules as plain numbers: retry-after first, then
 * x-ratelimit-remaining 0 with x-ratelimit-reset, then a doubling minute for rate limits without
 * a time; 5xx and dropped connections doubling from a second for repeatable requests only (an
 * uncertain POST is never repeated blindly); attempt and waiting budgets; permission 403s final.
 * And the Link header's rel="next". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "github/retry.h"

static pg_gh_retry_out decide(long status, bool idem, const char *ra, const char *rem,
                              const char *reset, int attempt, double waited)
{
    pg_gh_retry_policy p = pg_gh_retry_default();
    pg_gh_retry_in in = {status, idem, ra, rem, reset, attempt, waited, 1000.0, false};
    return pg_gh_retry_decide(&p, &in);
}

static void test_success_and_client_errors_are_final(void **st)
{
    (void)st;
    assert_int_equal(decide(200, true, NULL, NULL, NULL, 1, 0).action, PG_GH_DONE);
    assert_int_equal(decide(201, false, NULL, NULL, NULL, 1, 0).action, PG_GH_DONE);
    assert_int_equal(decide(404, true, NULL, NULL, NULL, 1, 0).action, PG_GH_DONE);
    assert_int_equal(decide(422, false, NULL, NULL, NULL, 1, 0).action, PG_GH_DONE);
    /* A 403 without rate-limit headers is a permission problem: final. */
    assert_int_equal(decide(403, true, NULL, "4999", "2000", 1, 0).action, PG_GH_DONE);
    assert_int_equal(decide(403, true, "", "", "", 1, 0).action, PG_GH_DONE);
}

static void test_retry_after_comes_first(void **st)
{
    (void)st;
    pg_gh_retry_out o = decide(403, false, "12", "0", "5000", 1, 0);
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_true(o.rate_limited);
    assert_true(o.delay_s == 12.0);
    o = decide(429, true, "0", NULL, NULL, 2, 0);
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_true(o.delay_s == 0.0);
}

static void test_reset_time_when_remaining_is_zero(void **st)
{
    (void)st;
    pg_gh_retry_out o = decide(403, true, NULL, "0", "1042", 1, 0); /* now = 1000 */
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_true(o.delay_s == 43.0);
    o = decide(403, true, NULL, "0", "900", 1, 0); /* reset already past: a second */
    assert_true(o.delay_s == 1.0);
}

static pg_gh_retry_out decide_secondary(long status, int attempt, double waited)
{
    pg_gh_retry_policy p = pg_gh_retry_default();
    pg_gh_retry_in in = {status, false, NULL, NULL, NULL, attempt, waited, 1000.0, true};
    return pg_gh_retry_decide(&p, &in);
}

static void test_secondary_limit_without_headers(void **st)
{
    (void)st;
    /* A 403 whose body says "secondary rate limit", no headers: a minute, then doubling, even
     * for a POST (GitHub did not act on it); bounded by the 300 s budget. */
    pg_gh_retry_out o = decide_secondary(403, 1, 0);
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_true(o.rate_limited);
    assert_true(o.delay_s == 60.0);
    assert_non_null(strstr(o.reason, "secondary rate limit (HTTP 403)"));
    assert_true(decide_secondary(403, 2, 60).delay_s == 120.0);
    assert_int_equal(decide_secondary(403, 3, 180).action, PG_GH_GIVE_UP);
    assert_int_equal(decide_secondary(429, 5, 0).action, PG_GH_GIVE_UP);
    /* the body test */
    assert_true(pg_gh_secondary_limit("{\"message\": \"You have exceeded a secondary rate limit. "
                                      "Please wait a few minutes before you try again.\"}"));
    assert_true(pg_gh_secondary_limit("SECONDARY RATE LIMIT"));
    assert_false(pg_gh_secondary_limit("{\"message\": \"Resource not accessible by integration\"}"));
    assert_false(pg_gh_secondary_limit("secondary rate limi"));
    assert_false(pg_gh_secondary_limit(NULL));
    /* a 403 without the text stays final */
    pg_gh_retry_policy p = pg_gh_retry_default();
    pg_gh_retry_in in = {403, true, NULL, NULL, NULL, 1, 0, 1000.0, false};
    assert_int_equal(pg_gh_retry_decide(&p, &in).action, PG_GH_DONE);
}

static void test_rate_limit_without_time_backs_off_from_a_minute(void **st)
{
    (void)st;
    assert_true(decide(429, true, NULL, NULL, NULL, 1, 0).delay_s == 60.0);
    assert_true(decide(429, true, NULL, NULL, NULL, 2, 0).delay_s == 120.0);
    /* 240 s more would pass the 300 s budget after 180 s of waiting. */
    pg_gh_retry_out o = decide(429, true, NULL, NULL, NULL, 3, 180);
    assert_int_equal(o.action, PG_GH_GIVE_UP);
    assert_non_null(strstr(o.reason, "budget"));
}

static void test_server_errors_double_from_a_second(void **st)
{
    (void)st;
    double want[] = {1, 2, 4, 8};
    for (int a = 1; a <= 4; a++) {
        pg_gh_retry_out o = decide(502, true, NULL, NULL, NULL, a, 0);
        assert_int_equal(o.action, PG_GH_RETRY);
        assert_true(o.delay_s == want[a - 1]);
        assert_false(o.rate_limited);
    }
    pg_gh_retry_out o = decide(500, true, NULL, NULL, NULL, 5, 15);
    assert_int_equal(o.action, PG_GH_GIVE_UP);
    assert_non_null(strstr(o.reason, "5 attempts"));
    o = decide(0, true, NULL, NULL, NULL, 1, 0); /* no response at all */
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_non_null(strstr(o.reason, "no response"));
}

static void test_uncertain_post_is_not_repeated(void **st)
{
    (void)st;
    pg_gh_retry_out o = decide(502, false, NULL, NULL, NULL, 1, 0);
    assert_int_equal(o.action, PG_GH_UNCERTAIN);
    assert_non_null(strstr(o.reason, "HTTP 502"));
    o = decide(0, false, NULL, NULL, NULL, 1, 0);
    assert_int_equal(o.action, PG_GH_UNCERTAIN);
    assert_non_null(strstr(o.reason, "no response"));
}

static void test_waits_are_bounded(void **st)
{
    (void)st;
    /* An hour-long reset is not waited for. */
    pg_gh_retry_out o = decide(403, true, NULL, "0", "4600", 1, 0);
    assert_int_equal(o.action, PG_GH_GIVE_UP);
    pg_gh_retry_policy p = pg_gh_retry_default();
    p.max_total_wait_s = 0;
    pg_gh_retry_in in = {503, true, NULL, NULL, NULL, 1, 0, 0, false};
    assert_int_equal(pg_gh_retry_decide(&p, &in).action, PG_GH_GIVE_UP);
    /* Garbage headers read as absent. */
    o = decide(429, true, "soon", "x", "-5", 1, 0);
    assert_int_equal(o.action, PG_GH_RETRY);
    assert_true(o.delay_s == 60.0);
}

static void test_link_next(void **st)
{
    (void)st;
    char url[256];
    assert_true(pg_gh_link_next("<https://api.github.com/repos/o/r/issues/1/comments?page=2>; "
                                "rel=\"next\", <https://api.github.com/x?page=5>; rel=\"last\"",
                                url, sizeof url));
    assert_string_equal(url, "https://api.github.com/repos/o/r/issues/1/comments?page=2");
    assert_true(pg_gh_link_next("<https://a/x?page=1>; rel=\"prev\", <https://a/x?page=3>; "
                                "rel=\"next\"", url, sizeof url));
    assert_string_equal(url, "https://a/x?page=3");
    assert_false(pg_gh_link_next("<https://a/x?page=1>; rel=\"prev\"", url, sizeof url));
    assert_false(pg_gh_link_next("", url, sizeof url));
    assert_false(pg_gh_link_next("garbage", url, sizeof url));
    assert_false(pg_gh_link_next("<https://a/very-long>; rel=\"next\"", url, 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_success_and_client_errors_are_final),
        cmocka_unit_test(test_retry_after_comes_first),
        cmocka_unit_test(test_reset_time_when_remaining_is_zero),
        cmocka_unit_test(test_rate_limit_without_time_backs_off_from_a_minute),
        cmocka_unit_test(test_secondary_limit_without_headers),
        cmocka_unit_test(test_server_errors_double_from_a_second),
        cmocka_unit_test(test_uncertain_post_is_not_repeated),
        cmocka_unit_test(test_waits_are_bounded),
        cmocka_unit_test(test_link_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
