/* Unit tests of tensor_map bindings (gate/model/tensor_map_spec.h): parsing the JSON object,
 * the cross-check with the task tests/data/model/tasks/gemm_small (A[M,K], B[N,K], C[M,N] bf16)
 * and the map derived for its workloads ("tiny" 4x8x16, "ragged" 257x513x1000, "huge"
 * 65536x65536x8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/tensor_map_spec.h"

#define TASKS PG_TEST_DATA "/model/tasks"
#define FIELD "launches[0].params[2]"

static pg_status parse(const char *text, pg_tensor_map_spec *s, pg_diag *d)
{
    json_error_t e;
    json_t *obj = json_loads(text, JSON_DECODE_ANY, &e);
    if (!obj)
        fail_msg("bad test JSON '%s': %s", text, e.text);
    pg_jctx ctx = {.file = "sub.json"};
    snprintf(ctx.path, sizeof ctx.path, "%s.tensor_map", FIELD);
    pg_diag_clear(d);
    pg_status st = pg_tensor_map_spec_from_json(obj, &ctx, s, d);
    json_decref(obj);
    return st;
}

static void has(const pg_diag *d, const char *field, const char *want)
{
    assert_string_equal(d->file, "sub.json");
    if (strcmp(d->field, field) != 0)
        fail_msg("field '%s', expected '%s' (message: %s)", d->field, field, d->message);
    if (want && !strstr(d->message, want))
        fail_msg("message '%s' lacks '%s'", d->message, want);
}

static void expect_parse_error(const char *text, const char *sub, const char *want)
{
    pg_tensor_map_spec s;
    pg_diag d;
    char field[256];
    assert_int_equal(parse(text, &s, &d), PG_ERR_INPUT);
    snprintf(field, sizeof field, FIELD ".tensor_map%s", sub);
    has(&d, field, want);
}

static pg_task *task(void)
{
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    return t;
}

/* Parse text, check it against gemm_small, build it for workload wl into *out. */
static pg_status build(const char *text, const char *wl, pg_tensor_map_desc *out, pg_diag *d)
{
    pg_tensor_map_spec s;
    pg_task *t = task();
    char buf[4096];
    if (parse(text, &s, d) != PG_OK || pg_tensor_map_spec_check(&s, t, "sub.json", FIELD, d))
        fail_msg("%s: %s", text, pg_diag_format(d, buf, sizeof buf));
    const pg_workload *w = &t->workloads[pg_task_find_workload(t, wl)];
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    pg_task_symtab(t, w, names, &syms);
    pg_status st = pg_tensor_map_spec_build(&s, t, w, &syms, "sub.json", FIELD, out, d);
    pg_task_free(t);
    return st;
}

static void expect_check_error(const char *text, const char *sub, const char *want)
{
    pg_tensor_map_spec s;
    pg_diag d;
    char field[256], buf[4096];
    pg_task *t = task();
    if (parse(text, &s, &d) != PG_OK)
        fail_msg("%s: %s", text, pg_diag_format(&d, buf, sizeof buf));
    assert_int_equal(pg_tensor_map_spec_check(&s, t, "sub.json", FIELD, &d), PG_ERR_INPUT);
    snprintf(field, sizeof field, FIELD ".tensor_map%s", sub);
    has(&d, field, want);
    pg_task_free(t);
}

static void test_parse(void **state)
{
    (void)state;
    pg_tensor_map_spec s;
    pg_diag d;
    assert_int_equal(parse("{\"tensor\": \"B\", \"box\": [64, \"min(N, 256)\"], "
                           "\"element_strides\": [1, 2], \"dims\": [\"K\", \"N\"], "
                           "\"interleave\": \"none\", \"swizzle\": \"128B\", "
                           "\"l2_promotion\": \"256B\", \"oob_fill\": \"nan_request_zero_fma\"}",
                           &s, &d),
                     PG_OK);
    assert_string_equal(s.tensor, "B");
    assert_int_equal(s.n_box, 2);
    assert_string_equal(s.box[0], "64");
    assert_string_equal(s.box[1], "min(N, 256)");
    assert_int_equal(s.n_element_strides, 2);
    assert_int_equal(s.element_strides[1], 2);
    assert_int_equal(s.n_dims, 2);
    assert_string_equal(s.dims[1], "N");
    assert_int_equal(s.swizzle, PG_TMAP_SWIZZLE_128B);
    assert_int_equal(s.l2_promotion, PG_TMAP_L2_256B);
    assert_int_equal(s.oob_fill, PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA);
    /* Defaults. */
    assert_int_equal(parse("{\"tensor\": \"A\", \"box\": [8, 8]}", &s, &d), PG_OK);
    assert_int_equal(s.n_element_strides, 0);
    assert_int_equal(s.n_dims, 0);
    assert_int_equal(s.interleave, PG_TMAP_INTERLEAVE_NONE);
    assert_int_equal(s.swizzle, PG_TMAP_SWIZZLE_NONE);
    assert_int_equal(s.l2_promotion, PG_TMAP_L2_NONE);
    assert_int_equal(s.oob_fill, PG_TMAP_OOB_NONE);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("[1]", "", "expected a tensor map object");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"swizle\": \"128B\"}", ".swizle",
                       "unknown field");
    expect_parse_error("{\"box\": [64, 64]}", ".tensor", "missing");
    expect_parse_error("{\"tensor\": \"A\"}", ".box", "missing");
    expect_parse_error("{\"tensor\": \"A\", \"box\": []}", ".box", "expected 1 to 5 entries");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [1, 1, 1, 1, 1, 1]}", ".box", "found 6");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, \"M+\"]}", ".box[1]", "syntax error");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 1.5]}", ".box[1]", NULL);
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"swizzle\": \"128\"}", ".swizzle",
                       "unknown swizzle '128'; accepted: none, 32B, 64B, 128B");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"interleave\": \"8B\"}",
                       ".interleave", "none, 16B, 32B");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"l2_promotion\": 256}",
                       ".l2_promotion", "string");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"oob_fill\": \"zero\"}",
                       ".oob_fill", "none, nan_request_zero_fma");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"element_strides\": [1, \"2\"]}",
                       ".element_strides[1]", "integer element stride");
    expect_parse_error("{\"tensor\": \"A\", \"box\": [64, 64], \"dims\": [\"K\", 3]}", ".dims[1]",
                       "dimension symbols");
}

static void test_check(void **state)
{
    (void)state;
    expect_check_error("{\"tensor\": \"D\", \"box\": [64, 64]}", ".tensor",
                       "unknown tensor 'D' in task 'gemm_small'");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64]}", ".box",
                       "expected 2 box dimensions (tensor 'A' has dims [M, K]");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, 64], \"element_strides\": [1]}",
                       ".element_strides", "expected 2 element strides");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, 64], \"dims\": [\"K\"]}", ".dims",
                       "expected all 2 dims");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, 64], \"dims\": [\"K\", \"N\"]}",
                       ".dims[1]", "'N' is not a dim of tensor 'A'");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, 64], \"dims\": [\"K\", \"K\"]}",
                       ".dims[1]", "left unused");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, 64], \"dims\": [\"M\", \"K\"]}",
                       ".dims[0]", "dims[0] must be 'K', found 'M'");
    expect_check_error("{\"tensor\": \"A\", \"box\": [64, \"min(Q, 128)\"]}", ".box[1]",
                       "unknown symbol 'Q'");
}

/* A tensor declared col_major: messages list the storage order and say how it was written. */
static void test_check_col_major(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(PG_TEST_DATA "/model/gemm_tasks", "gemm_col_major", &t, &d),
                     PG_OK);
    pg_tensor_map_spec s;
    char field[256];
    assert_int_equal(parse("{\"tensor\": \"A\", \"box\": [64]}", &s, &d), PG_OK);
    assert_int_equal(pg_tensor_map_spec_check(&s, t, "sub.json", FIELD, &d), PG_ERR_INPUT);
    snprintf(field, sizeof field, FIELD ".tensor_map.box");
    has(&d, field, "(tensor 'A' has dims [K, M] (stored order; declared col_major [M, K])");
    pg_task_free(t);
}

static void test_build(void **state)
{
    (void)state;
    pg_tensor_map_desc m;
    pg_diag d;
    /* B[N=513, K=1000]: TMA dim 0 = K (contiguous), dim 1 = N with a 2000-byte stride. */
    assert_int_equal(build("{\"tensor\": \"B\", \"box\": [64, \"min(N, 256)\"], "
                           "\"swizzle\": \"128B\", \"l2_promotion\": \"256B\"}",
                           "ragged", &m, &d),
                     PG_OK);
    assert_int_equal(m.rank, 2);
    assert_int_equal(m.dtype, PG_DTYPE_BF16);
    assert_int_equal(m.tensor_index, 1);
    assert_string_equal(m.tensor, "B");
    assert_int_equal(m.global_dim[0], 1000);
    assert_int_equal(m.global_dim[1], 513);
    assert_int_equal(m.global_stride[0], 2000);
    assert_int_equal(m.box_dim[0], 64);
    assert_int_equal(m.box_dim[1], 256);
    assert_int_equal(m.element_stride[0], 1);
    assert_int_equal(m.element_stride[1], 1);
    assert_string_equal(m.dim_names[0], "K");
    assert_string_equal(m.dim_names[1], "N");
    assert_string_equal(m.field, FIELD ".tensor_map");
    assert_int_equal(m.swizzle, PG_TMAP_SWIZZLE_128B);
    /* The same with explicit dims and element strides; "tiny": N = 8 < 256 → box 8. */
    assert_int_equal(build("{\"tensor\": \"B\", \"box\": [16, \"min(N, 256)\"], \"dims\": "
                           "[\"K\", \"N\"], \"element_strides\": [1, 2]}",
                           "tiny", &m, &d),
                     PG_OK);
    assert_int_equal(m.global_dim[0], 16);
    assert_int_equal(m.global_dim[1], 8);
    assert_int_equal(m.global_stride[0], 32);
    assert_int_equal(m.box_dim[1], 8);
    assert_int_equal(m.element_stride[1], 2);
}

static void test_build_errors(void **state)
{
    (void)state;
    pg_tensor_map_desc m;
    pg_diag d;
    /* "huge": K = 8 → rows of 16 bytes (fine); box [64 ...] with 128B swizzle is fine too. A box
     * of 12 elements (24 bytes) breaks the 16-byte rule. */
    assert_int_equal(build("{\"tensor\": \"A\", \"box\": [12, 64]}", "huge", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.box[0]", "workload 'huge': the inner box dimension is 12");
    /* A box expression that evaluates out of range names the workload and the box entry. */
    assert_int_equal(build("{\"tensor\": \"A\", \"box\": [64, \"M\"]}", "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.box[1]", "workload 'ragged': box dimension 1 (M) is 257");
    assert_int_equal(build("{\"tensor\": \"A\", \"box\": [64, \"M / (K - K)\"]}", "ragged", &m,
                           &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.box[1]", "division by zero");
    /* C[M, N=513] bf16: rows of 1026 bytes, not a multiple of 16. */
    assert_int_equal(build("{\"tensor\": \"C\", \"box\": [64, 64]}", "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.tensor", "stride of dimension 1 of tensor 'C' (M) is 1026 bytes");
    assert_int_equal(build("{\"tensor\": \"C\", \"box\": [64, 64], \"swizzle\": \"64B\"}", "tiny",
                           &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.box[0]", "64-byte span of swizzle 64B");
}

/* Views: explicit global dims and byte strides over a task tensor ("ragged": A[257, 1000] bf16,
 * 514000 bytes). */
static void test_view(void **state)
{
    (void)state;
    pg_tensor_map_desc m;
    pg_diag d;
    char buf[4096];
    /* The rank-3 {64, M, K/64} view of row-major A[M, K]: 64-element column blocks. */
    const char *r3 = "{\"tensor\": \"A\", \"global_dims\": [64, \"M\", \"K / 64\"], "
                     "\"global_strides_bytes\": [\"K * 2\", 128], \"box\": [64, 128, 1], "
                     "\"swizzle\": \"128B\"}";
    if (build(r3, "ragged", &m, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    assert_true(m.view);
    assert_int_equal(m.rank, 3);
    assert_int_equal(m.global_dim[0], 64);
    assert_int_equal(m.global_dim[1], 257);
    assert_int_equal(m.global_dim[2], 15);
    assert_int_equal(m.global_stride[0], 2000);
    assert_int_equal(m.global_stride[1], 128);
    assert_int_equal(m.box_dim[1], 128);
    assert_string_equal(m.dim_names[2], "K / 64");
    /* A rank-1 view of the whole buffer needs no strides. */
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [\"M * K\"], \"box\": [256]}",
                           "ragged", &m, &d),
                     PG_OK);
    assert_int_equal(m.rank, 1);
    /* One column block too many: only the far corner of all three leaves the buffer. */
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [64, \"M\", \"ceil_div(K, 64)\"], "
                           "\"global_strides_bytes\": [\"K * 2\", 128], \"box\": [64, 128, 1]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_dims",
        "workload 'ragged': the view reaches outside tensor 'A': its element at [63, 256, 15] "
        "(innermost first) ends at byte 514048 but the tensor holds 514000 bytes (257000 "
        "elements of 2)");
    /* One row too many: the corner named is the smallest one outside. */
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"M + 1\"], "
                           "\"global_strides_bytes\": [\"K * 2\"], \"box\": [64, 64]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_dims", "its element at [0, 257] (innermost first) ends "
                                             "at byte 514002");
    /* Strides so large that the corner's offset overflows 64 bits are outside too. */
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [8, 4294967296, 4294967296], "
                           "\"global_strides_bytes\": [1099511627760, 1099511627760], "
                           "\"box\": [8, 1, 1]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_dims", "ends at byte above");
    /* Driver rules name the view's own fields. */
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [64, \"M\"], "
                           "\"global_strides_bytes\": [\"K * 2 + 2\"], \"box\": [64, 64]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_strides_bytes[0]", "is 2002 bytes");
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [64, \"M - 257\"], "
                           "\"global_strides_bytes\": [\"K * 2\"], \"box\": [64, 64]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_dims[1]", "'M - 257' = 0 is out of range");
    assert_int_equal(build("{\"tensor\": \"A\", \"global_dims\": [64, 8589934592], "
                           "\"global_strides_bytes\": [16], \"box\": [64, 64]}",
                           "ragged", &m, &d),
                     PG_ERR_INPUT);
    has(&d, FIELD ".tensor_map.global_dims[1]", "must be 1 to 2^32");
}

static void test_view_errors(void **state)
{
    (void)state;
    expect_parse_error("{\"tensor\": \"A\", \"global_strides_bytes\": [16], \"box\": [8, 8]}",
                       ".global_strides_bytes", "needs global_dims");
    expect_parse_error("{\"tensor\": \"A\", \"global_dims\": [1, 1, 1, 1, 1], "
                       "\"global_strides_bytes\": [16, 16, 16, 16, 16], \"box\": [8, 8]}",
                       ".global_strides_bytes", "at most 4 byte strides");
    expect_parse_error("{\"tensor\": \"A\", \"global_dims\": [1, 1, 1, 1, 1, 1], \"box\": [8]}",
                       ".global_dims", "expected 1 to 5 entries");
    expect_check_error("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"M\"], \"dims\": [\"K\", "
                       "\"M\"], \"global_strides_bytes\": [16], \"box\": [8, 8]}",
                       ".dims", "use one or the other");
    expect_check_error("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"M\", 1], "
                       "\"global_strides_bytes\": [16], \"box\": [8, 8, 1]}",
                       ".global_strides_bytes", "expected 2 byte strides for the 3 global_dims");
    expect_check_error("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"M\"], "
                       "\"global_strides_bytes\": [16], \"box\": [8]}",
                       ".box", "expected 2 box dimensions (one per entry of global_dims)");
    expect_check_error("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"Q\"], "
                       "\"global_strides_bytes\": [16], \"box\": [8, 8]}",
                       ".global_dims[1]", "Q");
    expect_check_error("{\"tensor\": \"A\", \"global_dims\": [\"K\", \"M\"], "
                       "\"global_strides_bytes\": [\"Z * 2\"], \"box\": [8, 8]}",
                       ".global_strides_bytes[0]", "Z");
    expect_check_error("{\"tensor\": \"Nope\", \"global_dims\": [\"K\"], \"box\": [8]}",
                       ".tensor", "unknown tensor 'Nope'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_check),     cmocka_unit_test(test_check_col_major),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_build_errors), cmocka_unit_test(test_view),
        cmocka_unit_test(test_view_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
