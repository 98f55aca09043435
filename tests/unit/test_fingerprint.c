/* Unit tests of environment fingerprints (gate/model/fingerprint.h): JSON both ways, strict
 * reading, and the field-by-field comparison used at check time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/fingerprint.h"

static void h200(pg_fingerprint *f)
{
    pg_fingerprint_init(f);
    snprintf(f->gpu_name, sizeof f->gpu_name, "NVIDIA H200");
    snprintf(f->compute_capability, sizeof f->compute_capability, "9.0");
    f->sm_count = 132;
    snprintf(f->driver_version, sizeof f->driver_version, "580.159.04");
    f->cuda_driver_api_version = 13000;
    snprintf(f->ptxas_version, sizeof f->ptxas_version, "13.0.88");
    f->cublaslt_version = 130100;
    f->cudnn_version = 91400;
    f->max_sm_clock_mhz = 1980;
    f->max_memory_clock_mhz = 3201;
    f->power_limit_w = 700.0;
    f->ecc = 1;
}

static void test_json_round_trip(void **state)
{
    pg_fingerprint a, b;
    h200(&a);
    json_t *j = pg_fingerprint_to_json(&a);
    assert_int_equal(json_object_size(j), PG_FINGERPRINT_FIELDS);
    assert_true(json_is_true(json_object_get(j, "ecc")));
    assert_int_equal(json_integer_value(json_object_get(j, "cublaslt_version")), 130100);
    assert_int_equal(json_integer_value(json_object_get(j, "cudnn_version")), 91400);
    pg_jctx c = {.file = "f.json", .path = "environment"};
    pg_diag d;
    assert_int_equal(pg_fingerprint_from_json(j, &c, &b, &d), PG_OK);
    pg_fingerprint_change ch[PG_FINGERPRINT_FIELDS];
    assert_int_equal(pg_fingerprint_diff(&a, &b, ch), 0);
    json_decref(j);
}

static void test_unknown_is_null(void **state)
{
    pg_fingerprint a, b;
    pg_fingerprint_init(&a);
    json_t *j = pg_fingerprint_to_json(&a);
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) assert_true(json_is_null(v));
    pg_jctx c = {.file = "f.json", .path = "environment"};
    pg_diag d;
    assert_int_equal(pg_fingerprint_from_json(j, &c, &b, &d), PG_OK);
    assert_int_equal(b.ecc, -1);
    assert_string_equal(b.driver_version, "");
    json_decref(j);
}

static void expect_bad(const char *key, json_t *value, const char *msg)
{
    pg_fingerprint a, b;
    h200(&a);
    json_t *j = pg_fingerprint_to_json(&a);
    if (value)
        json_object_set_new(j, key, value);
    else
        json_object_del(j, key);
    pg_jctx c = {.file = "f.json", .path = "environment"};
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_fingerprint_from_json(j, &c, &b, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "f.json");
    char field[128];
    snprintf(field, sizeof field, "environment.%s", key);
    assert_string_equal(d.field, field);
    if (!strstr(d.message, msg))
        fail_msg("%s: message '%s' lacks '%s'", key, d.message, msg);
    json_decref(j);
}

static void test_strict_reading(void **state)
{
    expect_bad("driver_version", NULL, "required field is missing");
    expect_bad("sm_count", json_integer(0), "positive integer");
    expect_bad("cudnn_version", NULL, "required field is missing");
    expect_bad("cudnn_version", json_string("9.14.0"), "positive integer");
    expect_bad("sm_count", json_string("132"), "positive integer");
    expect_bad("ecc", json_string("on"), "true, false or null");
    expect_bad("power_limit_w", json_real(-1), "positive number of watts");
    expect_bad("power_limit_w", json_real(1e308), "below 1e6");
    expect_bad("gpu_name", json_string(""), "non-empty string");
    expect_bad("compute_capability", json_string("nine"), "MAJOR.MINOR");
    expect_bad("uuid", json_string("GPU-1"), "unknown field");
}

static void test_diff(void **state)
{
    pg_fingerprint stored, live;
    h200(&stored);
    h200(&live);
    snprintf(live.driver_version, sizeof live.driver_version, "580.95.05");
    live.cublaslt_version = 130000;
    live.power_limit_w = 700.3; /* within 0.5 W: the same */
    live.ecc = -1;              /* unknown now */
    pg_fingerprint_change ch[PG_FINGERPRINT_FIELDS];
    int n = pg_fingerprint_diff(&stored, &live, ch);
    assert_int_equal(n, 3);
    assert_string_equal(ch[0].field, "driver_version");
    assert_string_equal(ch[0].stored, "580.159.04");
    assert_string_equal(ch[0].live, "580.95.05");
    assert_false(ch[0].gpu);
    assert_string_equal(ch[1].field, "cublaslt_version");
    assert_string_equal(ch[1].stored, "130100");
    assert_string_equal(ch[1].live, "130000");
    assert_string_equal(ch[2].field, "ecc");
    assert_string_equal(ch[2].stored, "on");
    assert_string_equal(ch[2].live, "unknown");
    assert_false(pg_fingerprint_same_cublaslt(&stored, &live));
    assert_true(pg_fingerprint_same_cudnn(&stored, &live));
    /* Another cuDNN: its own field, and no pinning of cuDNN configurations. */
    h200(&live);
    live.cudnn_version = 91900;
    n = pg_fingerprint_diff(&stored, &live, ch);
    assert_int_equal(n, 1);
    assert_string_equal(ch[0].field, "cudnn_version");
    assert_string_equal(ch[0].stored, "91400");
    assert_string_equal(ch[0].live, "91900");
    assert_false(pg_fingerprint_same_cudnn(&stored, &live));
    assert_true(pg_fingerprint_same_cublaslt(&stored, &live));
    /* Another GPU is marked as such. */
    h200(&live);
    snprintf(live.gpu_name, sizeof live.gpu_name, "NVIDIA H100 80GB HBM3");
    live.power_limit_w = 500;
    n = pg_fingerprint_diff(&stored, &live, ch);
    assert_int_equal(n, 2);
    assert_true(ch[0].gpu);
    assert_string_equal(ch[1].stored, "700.0 W");
    assert_string_equal(ch[1].live, "500.0 W");
    assert_true(pg_fingerprint_same_cublaslt(&stored, &live));
    /* Unknown on both sides is no difference, but never a cuBLASLt match. */
    pg_fingerprint_init(&stored);
    pg_fingerprint_init(&live);
    assert_int_equal(pg_fingerprint_diff(&stored, &live, ch), 0);
    assert_false(pg_fingerprint_same_cublaslt(&stored, &live));
    assert_false(pg_fingerprint_same_cudnn(&stored, &live));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_unknown_is_null),
        cmocka_unit_test(test_strict_reading),
        cmocka_unit_test(test_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
