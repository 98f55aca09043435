/* Unit tests of the serialisable cuBLASLt algorithm configuration (gate/model/blaslt_algo.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model/blaslt_algo.h"

static const pg_blaslt_algo k_algo = {.algo_id = 66, .tile = 20, .stages = 35, .splitk = 1,
                                      .reduction = 0, .swizzle = 1, .custom = 2,
                                      .inner_shape = 3, .cluster_shape = 13};

static void test_format(void **state)
{
    char text[256];
    assert_string_equal(pg_blaslt_algo_format(&k_algo, text, sizeof text),
                        "algo_id=66 tile=20 stages=35 splitk=1 reduction=0 swizzle=1 custom=2 "
                        "inner_shape=3 cluster_shape=13");
    char small[8];
    pg_blaslt_algo_format(&k_algo, small, sizeof small);
    assert_string_equal(small, "algo_id");
}

static void test_json_round_trip(void **state)
{
    json_t *j = pg_blaslt_algo_to_json(&k_algo);
    assert_int_equal(json_object_size(j), 9);
    pg_blaslt_algo b;
    pg_jctx c = {.file = "b.json", .path = "vendor.algorithm"};
    pg_diag d;
    assert_int_equal(pg_blaslt_algo_from_json(j, &c, &b, &d), PG_OK);
    assert_true(pg_blaslt_algo_equal(&k_algo, &b));
    b.cluster_shape = 2;
    assert_false(pg_blaslt_algo_equal(&k_algo, &b));
    json_decref(j);
}

static void expect_bad(const char *key, json_t *value, const char *msg)
{
    json_t *j = pg_blaslt_algo_to_json(&k_algo);
    if (value)
        json_object_set_new(j, key, value);
    else
        json_object_del(j, key);
    pg_blaslt_algo b;
    pg_jctx c = {.file = "b.json", .path = "vendor.algorithm"};
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_blaslt_algo_from_json(j, &c, &b, &d), PG_ERR_INPUT);
    char field[128];
    snprintf(field, sizeof field, "vendor.algorithm.%s", key);
    assert_string_equal(d.field, field);
    if (!strstr(d.message, msg))
        fail_msg("%s: '%s' lacks '%s'", key, d.message, msg);
    json_decref(j);
}

static void test_ranges(void **state)
{
    expect_bad("splitk", json_integer(0), "from 1 to");
    expect_bad("inner_shape", json_integer(65536), "from 0 to 65535");
    expect_bad("tile", json_integer(-1), "from 0 to 4294967295");
    expect_bad("algo_id", json_real(1.5), "integer");
    expect_bad("stages", NULL, "required field is missing");
    expect_bad("epilogue", json_integer(0), "unknown field");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
