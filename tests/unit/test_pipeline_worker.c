/* Unit tests of what crosses the worker boundary and the options of isolation: pg_cmp_result and
 * pg_device_info survive a trip through JSON text exactly (non-finite numbers included), broken
 * input is refused; watchdog limits by name; --sanitize tool lists. Links the pipeline library
 * (no GPU is touched). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/settings.h"
#include "pipeline/worker_json.h"

/* Through text, as the status channel carries it. */
static json_t *trip(json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    json_t *back = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(back);
    return back;
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void test_cmp_result_round_trip(void **state)
{
    (void)state;
    pg_cmp_result r;
    memset(&r, 0, sizeof r);
    r.verdict = PG_CMP_INCONCLUSIVE;
    r.blocks = 32;
    r.look = 1;
    r.alpha_look = 0.01 / 3.0 / 7.0;
    r.mean_log_ratio = log(1.2345678901234567);
    r.sd_log_ratio = 0.0013;
    r.acf1_log_ratio = NAN;
    r.skew_log_ratio = -0.25;
    r.ratio_estimate = 1.2345678901234567;
    r.ratio_ci_low = 1.1;
    r.ratio_ci_high = 1.3;
    r.p_fail = 1e-300;
    r.p_pass = 1.0;
    r.p_fast = 0.5;
    r.p_fail_seq = 0.0091;
    r.mde_ratio = INFINITY;
    r.assignments = 4294967296ull;
    r.exact = true;
    r.holm_changed = false;
    json_t *j = trip(pg_cmp_result_to_json(&r));
    pg_cmp_result b;
    assert_true(pg_cmp_result_from_json(j, &b));
    assert_int_equal(b.verdict, r.verdict);
    assert_int_equal(b.blocks, r.blocks);
    assert_int_equal(b.look, r.look);
    assert_int_equal(b.assignments, r.assignments);
    assert_true(b.exact && !b.holm_changed);
    assert_true(same(b.alpha_look, r.alpha_look) && same(b.mean_log_ratio, r.mean_log_ratio) &&
                same(b.sd_log_ratio, r.sd_log_ratio) && same(b.acf1_log_ratio, r.acf1_log_ratio) &&
                same(b.skew_log_ratio, r.skew_log_ratio) && same(b.ratio_estimate, r.ratio_estimate) &&
                same(b.ratio_ci_low, r.ratio_ci_low) && same(b.ratio_ci_high, r.ratio_ci_high) &&
                same(b.p_fail, r.p_fail) && same(b.p_pass, r.p_pass) && same(b.p_fast, r.p_fast) &&
                same(b.p_fail_seq, r.p_fail_seq) && same(b.mde_ratio, r.mde_ratio));
    /* Broken: a missing field, an unknown verdict, a string that is no number. */
    json_object_del(j, "p_fail_seq");
    assert_false(pg_cmp_result_from_json(j, &b));
    json_object_set_new(j, "p_fail_seq", json_string("lots"));
    assert_false(pg_cmp_result_from_json(j, &b));
    json_object_set_new(j, "p_fail_seq", json_real(0.5));
    json_object_set_new(j, "verdict", json_integer(7));
    assert_false(pg_cmp_result_from_json(j, &b));
    json_decref(j);
    assert_false(pg_cmp_result_from_json(NULL, &b));
}

static void test_device_info_round_trip(void **state)
{
    (void)state;
    pg_device_info i;
    memset(&i, 0, sizeof i);
    snprintf(i.name, sizeof i.name, "NVIDIA H200");
    snprintf(i.uuid, sizeof i.uuid, "GPU-0123");
    snprintf(i.pci_bus_id, sizeof i.pci_bus_id, "0000:19:00.0");
    snprintf(i.driver_version, sizeof i.driver_version, "580.159.04");
    i.ordinal = 1;
    i.cc_major = 9;
    i.sm_count = 132;
    i.l2_bytes = 62914560;
    i.memory_bytes = 150754820096LL;
    i.cublaslt_version = 130100;
    i.cudnn_version = 91400;
    i.max_threads_per_block = 1024;
    i.max_block_dim[2] = 64;
    i.max_grid_dim[0] = 2147483647;
    i.max_shared_per_block_optin = 232448;
    i.max_memory_clock_mhz = 3201;
    i.power_limit_w = 700.0;
    i.ecc = -1;
    json_t *j = trip(pg_device_info_to_json(&i));
    pg_device_info b;
    assert_true(pg_device_info_from_json(j, &b));
    assert_memory_equal(&b, &i, sizeof i);
    /* An unknown power limit travels as NaN-free 0; a non-number is refused. */
    json_object_set_new(j, "power_limit_w", json_string("high"));
    assert_false(pg_device_info_from_json(j, &b));
    json_object_set_new(j, "power_limit_w", json_real(0.0));
    json_object_set_new(j, "max_grid_dim", json_pack("[i, i]", 1, 2));
    assert_false(pg_device_info_from_json(j, &b));
    json_decref(j);
}

static void test_watchdog_and_sanitize_options(void **state)
{
    (void)state;
    pg_check_options o;
    pg_check_options_init(&o);
    assert_true(pg_watchdog_limit(&o.watchdog, "correctness") == 900);
    assert_true(pg_watchdog_limit(&o.watchdog, "sanitize") == 3600);
    assert_true(pg_watchdog_limit(&o.watchdog, "worker") == o.watchdog.startup_s);
    assert_true(pg_watchdog_set(&o.watchdog, "verify", 12.5));
    assert_true(o.watchdog.verify_s == 12.5);
    assert_false(pg_watchdog_set(&o.watchdog, "compile", 1));
    assert_true(o.max_ptx_bytes == (size_t)64 << 20);
    assert_true(pg_sanitize_tools_valid("memcheck"));
    assert_true(pg_sanitize_tools_valid("memcheck,racecheck,synccheck,initcheck"));
    assert_false(pg_sanitize_tools_valid(""));
    assert_false(pg_sanitize_tools_valid("memcheck,"));
    assert_false(pg_sanitize_tools_valid(",memcheck"));
    assert_false(pg_sanitize_tools_valid("memcheck,memcheck"));
    assert_false(pg_sanitize_tools_valid("leakcheck"));
    assert_false(pg_sanitize_tools_valid("memcheck racecheck"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmp_result_round_trip),
        cmocka_unit_test(test_device_info_round_trip),
        cmocka_unit_test(test_watchdog_and_sanitize_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
