/* Unit tests of the serialisable cuDNN engine configuration (gate/model/cudnn_config.h): text,
 * JSON round trip, sorting, equality, and each defect refused with the JSON path named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/cudnn_config.h"

/* Knob types as cuDNN 9's cudnn_graph.h numbers them: 14 STAGES, 40 TILE_M, 41 TILE_N. */
static pg_cudnn_config sample(void)
{
    pg_cudnn_config c = {.graph = PG_DNN_GRAPH_FWD_COMPOSITE, .engine_id = 7, .n_knobs = 3};
    c.knob_type[0] = 41, c.knob_value[0] = 128;
    c.knob_type[1] = 14, c.knob_value[1] = 3;
    c.knob_type[2] = 99, c.knob_value[2] = -1;
    return c;
}

static void test_names_and_ids(void **state)
{
    assert_string_equal(pg_cudnn_knob_name(14), "STAGES");
    assert_string_equal(pg_cudnn_knob_name(0), "SPLIT_K");
    assert_string_equal(pg_cudnn_knob_name(43), "SWAP_AB");
    assert_null(pg_cudnn_knob_name(44));
    assert_null(pg_cudnn_knob_name(-1));
    for (int k = 0; k < PG_DNN_GRAPH_COUNT; k++) {
        pg_dnn_graph_kind back;
        assert_true(pg_dnn_graph_from_id(pg_dnn_graph_id((pg_dnn_graph_kind)k), &back));
        assert_int_equal(back, k);
    }
    assert_false(pg_dnn_graph_is_backward(PG_DNN_GRAPH_FWD_FUSED));
    assert_false(pg_dnn_graph_is_backward(PG_DNN_GRAPH_FWD_COMPOSITE));
    assert_true(pg_dnn_graph_is_backward(PG_DNN_GRAPH_BWD_COMPOSITE));
    assert_true(pg_dnn_graph_is_backward(PG_DNN_GRAPH_BWD_COMPOSITE_IO));
    pg_dnn_graph_kind x;
    assert_false(pg_dnn_graph_from_id("fused", &x));
    assert_null(pg_dnn_graph_id(PG_DNN_GRAPH_COUNT));
}

static void test_sort_and_format(void **state)
{
    pg_cudnn_config c = sample();
    pg_cudnn_config_sort(&c);
    assert_int_equal(c.knob_type[0], 14);
    assert_int_equal(c.knob_value[0], 3);
    assert_int_equal(c.knob_type[2], 99);
    char text[256];
    assert_string_equal(pg_cudnn_config_format(&c, text, sizeof text),
                        "engine 7; STAGES=3 TILE_N=128 KNOB99=-1");
    pg_cudnn_config none = {.graph = PG_DNN_GRAPH_BWD_COMPOSITE, .engine_id = 0};
    assert_string_equal(pg_cudnn_config_format(&none, text, sizeof text), "engine 0");
    char small[6];
    pg_cudnn_config_format(&c, small, sizeof small);
    assert_string_equal(small, "en..."); /* a cut text says so */
    /* The longest configuration fits PG_CUDNN_CONFIG_TEXT_MAX whole. */
    pg_cudnn_config big = {.engine_id = INT64_MIN, .n_knobs = PG_CUDNN_MAX_KNOBS};
    for (int i = 0; i < PG_CUDNN_MAX_KNOBS; i++) {
        big.knob_type[i] = i < 44 ? i : INT32_MAX - i; /* every name, then long numbers */
        big.knob_value[i] = INT64_MIN;
    }
    static char whole[PG_CUDNN_CONFIG_TEXT_MAX];
    pg_cudnn_config_format(&big, whole, sizeof whole);
    assert_true(strlen(whole) < sizeof whole - 40);
    assert_null(strstr(whole, "..."));
    assert_non_null(strstr(whole, "ARRAY_SIZE_PER_THREAD=-9223372036854775808"));
}

static void test_json_round_trip(void **state)
{
    pg_cudnn_config c = sample();
    pg_cudnn_config_sort(&c);
    json_t *j = pg_cudnn_config_to_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "graph")), "composite_fwd");
    json_t *k0 = json_array_get(json_object_get(j, "knobs"), 0);
    assert_string_equal(json_string_value(json_object_get(k0, "name")), "STAGES");
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "knobs"), 2),
                                             "name")));
    /* Knobs in another order read back sorted and equal. */
    json_array_insert(json_object_get(j, "knobs"), 0,
                      json_array_get(json_object_get(j, "knobs"), 2));
    json_array_remove(json_object_get(j, "knobs"), 3);
    pg_cudnn_config b;
    pg_jctx ctx = {.file = "b.json", .path = "vendor.configuration"};
    pg_diag d;
    assert_int_equal(pg_cudnn_config_from_json(j, &ctx, &b, &d), PG_OK);
    assert_true(pg_cudnn_config_equal(&c, &b));
    b.knob_value[1] = 256;
    assert_false(pg_cudnn_config_equal(&c, &b));
    b = c;
    b.graph = PG_DNN_GRAPH_FWD_FUSED;
    assert_false(pg_cudnn_config_equal(&c, &b));
    json_decref(j);
}

/* Names are informational: null for any type, and any name for a type the table does not know
 * (a newer cuDNN's), are read; only a known type's wrong name is refused (test below). */
static void test_knob_names_informational(void **state)
{
    pg_cudnn_config c = sample();
    pg_cudnn_config_sort(&c);
    json_t *j = pg_cudnn_config_to_json(&c);
    json_t *k = json_object_get(j, "knobs");
    json_object_set_new(json_array_get(k, 0), "name", json_null());          /* 14 STAGES */
    json_object_set_new(json_array_get(k, 2), "name", json_string("FUTURE")); /* 99 */
    pg_cudnn_config b;
    pg_jctx ctx = {.file = "b.json", .path = "vendor.configuration"};
    pg_diag d;
    assert_int_equal(pg_cudnn_config_from_json(j, &ctx, &b, &d), PG_OK);
    assert_true(pg_cudnn_config_equal(&c, &b));
    json_decref(j);
}

/* Apply edit to the sample's JSON and expect a refusal naming field with msg. */
static void expect_bad(const char *what, void (*edit)(json_t *), const char *field,
                       const char *msg)
{
    pg_cudnn_config c = sample();
    pg_cudnn_config_sort(&c);
    json_t *j = pg_cudnn_config_to_json(&c);
    edit(j);
    pg_cudnn_config b;
    pg_jctx ctx = {.file = "b.json", .path = "vendor.configuration"};
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_cudnn_config_from_json(j, &ctx, &b, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "b.json");
    if (strcmp(d.field, field) != 0 || !strstr(d.message, msg))
        fail_msg("%s: field '%s' message '%s'; expected '%s' with '%s'", what, d.field,
                 d.message, field, msg);
    json_decref(j);
}

static void bad_graph(json_t *j) { json_object_set_new(j, "graph", json_string("fused")); }
static void no_engine(json_t *j) { json_object_del(j, "engine_id"); }
static void negative_engine(json_t *j) { json_object_set_new(j, "engine_id", json_integer(-2)); }
static void extra_key(json_t *j) { json_object_set_new(j, "plan", json_true()); }
static void knob_not_object(json_t *j)
{
    json_array_set_new(json_object_get(j, "knobs"), 1, json_integer(3));
}
static void knob_repeated(json_t *j)
{
    json_t *k = json_object_get(j, "knobs");
    json_array_append(k, json_array_get(k, 0));
}
static void knob_bad_name(json_t *j)
{
    json_object_set_new(json_array_get(json_object_get(j, "knobs"), 0), "name", json_integer(1));
}
static void knob_wrong_name(json_t *j)
{
    /* knobs[0] is type 14, STAGES (sorted): another knob's name would misdescribe the pin. */
    json_object_set_new(json_array_get(json_object_get(j, "knobs"), 0), "name",
                        json_string("KERNEL_CFG"));
}
static void knob_negative_type(json_t *j)
{
    json_object_set_new(json_array_get(json_object_get(j, "knobs"), 0), "type", json_integer(-1));
}
static void too_many_knobs(json_t *j)
{
    json_t *k = json_array();
    for (int i = 0; i <= PG_CUDNN_MAX_KNOBS; i++)
        json_array_append_new(k, json_pack("{s:i, s:n, s:i}", "type", i, "name", "value", 1));
    json_object_set_new(j, "knobs", k);
}

static void test_defects_are_located(void **state)
{
    expect_bad("graph", bad_graph, "vendor.configuration.graph", "composite_fwd");
    expect_bad("engine missing", no_engine, "vendor.configuration.engine_id", "missing");
    expect_bad("engine < 0", negative_engine, "vendor.configuration.engine_id", ">= 0");
    expect_bad("unknown key", extra_key, "vendor.configuration.plan", "");
    expect_bad("knob not object", knob_not_object, "vendor.configuration.knobs[1]",
               "knob choice object");
    expect_bad("knob twice", knob_repeated, "vendor.configuration.knobs[3].type", "once");
    expect_bad("knob name", knob_bad_name, "vendor.configuration.knobs[0].name", "string or null");
    expect_bad("knob name of another type", knob_wrong_name, "vendor.configuration.knobs[0].name",
               "\"STAGES\" (the name of knob type 14) or null, got 'KERNEL_CFG'");
    expect_bad("knob type", knob_negative_type, "vendor.configuration.knobs[0].type", "knob type");
    expect_bad("65 knobs", too_many_knobs, "vendor.configuration.knobs", "at most 64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_ids),
        cmocka_unit_test(test_sort_and_format),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_knob_names_informational),
        cmocka_unit_test(test_defects_are_located),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
