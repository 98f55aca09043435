/* Unit tests of ptxgate's own check of the cuTensorMapEncodeTiled rules (gate/model/tensor_map.h):
 * one good map (the A operand of a bf16 GEMM, 128B swizzle) and, per rule, a map breaking only
 * that rule, which must fail naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/tensor_map.h"

/* A[M=257, K=1000] bf16 row-major, box 64 (K) x 128 (M), 128B swizzle: the wgmma example's map. */
static pg_tensor_map_desc good(void)
{
    pg_tensor_map_desc m;
    memset(&m, 0, sizeof m);
    m.dtype = PG_DTYPE_BF16;
    m.rank = 2;
    m.global_dim[0] = 1000;
    m.global_dim[1] = 257;
    m.global_stride[0] = 2000;
    m.box_dim[0] = 64;
    m.box_dim[1] = 128;
    m.element_stride[0] = m.element_stride[1] = 1;
    m.swizzle = PG_TMAP_SWIZZLE_128B;
    m.l2_promotion = PG_TMAP_L2_256B;
    snprintf(m.field, sizeof m.field, "launches[0].params[0].tensor_map");
    snprintf(m.tensor, sizeof m.tensor, "A");
    snprintf(m.dim_names[0], sizeof m.dim_names[0], "K");
    snprintf(m.dim_names[1], sizeof m.dim_names[1], "M");
    return m;
}

/* A rank-3 map that interleave may be used with: [C/8=4][H*W=100][8] fp16 (16 bytes inner). */
static pg_tensor_map_desc good_rank3(void)
{
    pg_tensor_map_desc m = good();
    m.dtype = PG_DTYPE_FP16;
    m.rank = 3;
    m.global_dim[0] = 8;
    m.global_dim[1] = 100;
    m.global_dim[2] = 4;
    m.global_stride[0] = 16;
    m.global_stride[1] = 1600;
    m.box_dim[0] = 8;
    m.box_dim[1] = 32;
    m.box_dim[2] = 2;
    m.element_stride[2] = 1;
    m.swizzle = PG_TMAP_SWIZZLE_NONE;
    snprintf(m.dim_names[2], sizeof m.dim_names[2], "G");
    return m;
}

static void expect_ok(const pg_tensor_map_desc *m)
{
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_tensor_map_validate(m, "sub.json", "w1", &d) != PG_OK)
        fail_msg("expected a valid map: %s", pg_diag_format(&d, buf, sizeof buf));
}

/* m must fail at "launches[0].params[0].tensor_map.<sub>" with a message holding want1/want2. */
static void expect_bad(const pg_tensor_map_desc *m, const char *sub, const char *want1,
                       const char *want2)
{
    pg_diag d;
    char field[256];
    pg_diag_clear(&d);
    assert_int_equal(pg_tensor_map_validate(m, "sub.json", "w1", &d), PG_ERR_INPUT);
    snprintf(field, sizeof field, "launches[0].params[0].tensor_map.%s", sub);
    assert_string_equal(d.file, "sub.json");
    if (strcmp(d.field, field) != 0)
        fail_msg("field '%s', expected '%s' (message: %s)", d.field, field, d.message);
    if (strncmp(d.message, "workload 'w1': ", 15) != 0)
        fail_msg("message '%s' does not start with the workload", d.message);
    if (want1 && !strstr(d.message, want1))
        fail_msg("message '%s' lacks '%s'", d.message, want1);
    if (want2 && !strstr(d.message, want2))
        fail_msg("message '%s' lacks '%s'", d.message, want2);
}

static void test_good_maps(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    expect_ok(&m);
    /* The box may be larger than the tensor: TMA fills the rest (M = 4 < 128). */
    m.global_dim[1] = 4;
    expect_ok(&m);
    /* Limits are inclusive: 256-element box rows, element stride 8, dims of 2^32. */
    m = good();
    m.box_dim[1] = 256;
    m.element_stride[1] = 8;
    m.global_dim[1] = UINT64_C(1) << 32;
    expect_ok(&m);
    m = good_rank3();
    expect_ok(&m);
    m.interleave = PG_TMAP_INTERLEAVE_16B;
    expect_ok(&m);
    m.interleave = PG_TMAP_INTERLEAVE_32B;
    m.swizzle = PG_TMAP_SWIZZLE_32B;
    m.global_stride[0] = 32;
    m.global_stride[1] = 3200;
    expect_ok(&m);
    /* Without swizzle the inner box may exceed 128 bytes (multiple of 16 still). */
    m = good();
    m.swizzle = PG_TMAP_SWIZZLE_NONE;
    m.box_dim[0] = 256;
    expect_ok(&m);
    /* oob_fill NaN is for floating-point types. */
    m = good();
    m.oob_fill = PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA;
    expect_ok(&m);
}

static void test_rank(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    m.rank = 0;
    expect_bad(&m, "tensor", "rank 0", "rank 1 to 5");
    m.rank = 6;
    expect_bad(&m, "tensor", "rank 6", NULL);
    m = good();
    m.interleave = PG_TMAP_INTERLEAVE_16B;
    expect_bad(&m, "interleave", "rank 3 or more", "gives rank 2");
}

static void test_global_dims(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    m.global_dim[1] = (UINT64_C(1) << 32) + 1;
    expect_bad(&m, "tensor", "dimension 1 of tensor 'A' (M) is 4294967297", "1 to 2^32");
    m = good();
    m.global_dim[0] = 0;
    expect_bad(&m, "tensor", "dimension 0 of tensor 'A' (K) is 0", NULL);
}

static void test_global_strides(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    /* K = 1001 bf16: rows of 2002 bytes. */
    m.global_dim[0] = 1001;
    m.global_stride[0] = 2002;
    expect_bad(&m, "tensor", "stride of dimension 1 of tensor 'A' (M) is 2002 bytes",
               "multiple of 16");
    m = good();
    m.global_stride[0] = UINT64_C(1) << 40;
    expect_bad(&m, "tensor", "below 2^40", NULL);
    /* Interleave 32B: strides a multiple of 32. */
    m = good_rank3();
    m.interleave = PG_TMAP_INTERLEAVE_32B;
    m.swizzle = PG_TMAP_SWIZZLE_32B;
    expect_bad(&m, "tensor", "stride of dimension 1", "multiple of 32");
}

static void test_box(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    m.box_dim[1] = 257;
    expect_bad(&m, "box[1]", "box dimension 1 (M) is 257", "1 to 256");
    m.box_dim[1] = 0;
    expect_bad(&m, "box[1]", "is 0", NULL);
    /* 12 bf16 = 24 bytes: not a multiple of 16. */
    m = good();
    m.box_dim[0] = 12;
    expect_bad(&m, "box[0]", "24 bytes", "multiple of 16 bytes");
    /* 128 bf16 = 256 bytes: more than the 128-byte swizzle span. */
    m = good();
    m.box_dim[0] = 128;
    expect_bad(&m, "box[0]", "256 bytes", "128-byte span of swizzle 128B");
    m.swizzle = PG_TMAP_SWIZZLE_64B;
    m.box_dim[0] = 64;
    expect_bad(&m, "box[0]", "128 bytes", "64-byte span of swizzle 64B");
    m.swizzle = PG_TMAP_SWIZZLE_32B;
    m.box_dim[0] = 24;
    expect_bad(&m, "box[0]", "48 bytes", "32-byte span of swizzle 32B");
    m.box_dim[0] = 16;
    expect_ok(&m);
    /* With interleave the inner box rules (multiple of 16, swizzle span) do not apply. */
    m = good_rank3();
    m.interleave = PG_TMAP_INTERLEAVE_16B;
    m.box_dim[0] = 4;
    expect_ok(&m);
}

static void test_element_strides(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    m.element_stride[1] = 9;
    expect_bad(&m, "element_strides[1]", "element stride 1 is 9", "1 to 8");
    m.element_stride[1] = 0;
    expect_bad(&m, "element_strides[1]", "is 0", NULL);
    m = good();
    m.element_stride[0] = -1;
    expect_bad(&m, "element_strides[0]", "is -1", NULL);
}

static void test_swizzle_interleave_oob(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good_rank3();
    m.interleave = PG_TMAP_INTERLEAVE_32B;
    m.global_stride[0] = 32;
    m.global_stride[1] = 3200;
    m.swizzle = PG_TMAP_SWIZZLE_128B;
    expect_bad(&m, "swizzle", "interleave 32B requires swizzle 32B", "found swizzle 128B");
    m = good();
    m.dtype = PG_DTYPE_E4M3;
    m.global_stride[0] = 1008;
    m.global_dim[0] = 1008;
    m.oob_fill = PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA;
    expect_bad(&m, "oob_fill", "floating-point", "e4m3");
    m = good();
    m.dtype = PG_DTYPE_INVALID;
    expect_bad(&m, "tensor", "no element type", NULL);
    m = good();
    m.swizzle = (pg_tmap_swizzle)7;
    expect_bad(&m, "swizzle", "unknown swizzle", "none, 32B, 64B, 128B");
}

static void test_address(void **state)
{
    (void)state;
    pg_tensor_map_desc m = good();
    pg_diag d;
    assert_int_equal(pg_tensor_map_check_address(&m, 0x7f0000000100ull, &d), PG_OK);
    assert_int_equal(pg_tensor_map_check_address(&m, 0x7f0000000010ull, &d), PG_OK);
    assert_int_equal(pg_tensor_map_check_address(&m, 0x7f0000000008ull, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].params[0].tensor_map.tensor");
    assert_non_null(strstr(d.message, "16-byte aligned"));
    m = good_rank3();
    m.interleave = PG_TMAP_INTERLEAVE_32B;
    assert_int_equal(pg_tensor_map_check_address(&m, 0x7f0000000010ull, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "32-byte aligned"));
    assert_int_equal(pg_tensor_map_check_address(&m, 0x7f0000000020ull, &d), PG_OK);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(pg_tmap_swizzle_parse("128B"), PG_TMAP_SWIZZLE_128B);
    assert_int_equal(pg_tmap_swizzle_parse("none"), PG_TMAP_SWIZZLE_NONE);
    assert_int_equal(pg_tmap_swizzle_parse("128b"), -1);
    assert_int_equal(pg_tmap_interleave_parse("32B"), PG_TMAP_INTERLEAVE_32B);
    assert_int_equal(pg_tmap_l2_parse("256B"), PG_TMAP_L2_256B);
    assert_int_equal(pg_tmap_oob_parse("nan_request_zero_fma"), PG_TMAP_OOB_NAN_REQUEST_ZERO_FMA);
    assert_int_equal(pg_tmap_oob_parse("zero"), -1);
    assert_string_equal(pg_tmap_swizzle_name(PG_TMAP_SWIZZLE_64B), "64B");
    assert_string_equal(pg_tmap_l2_name((pg_tmap_l2)9), "invalid");
    assert_int_equal(pg_tmap_swizzle_span(PG_TMAP_SWIZZLE_NONE), 0);
    assert_int_equal(pg_tmap_swizzle_span(PG_TMAP_SWIZZLE_128B), 128);
    pg_tensor_map_desc m = good();
    char buf[512];
    pg_tensor_map_describe(&m, buf, sizeof buf);
    assert_string_equal(buf, "bf16 rank 2 dims [1000, 257] strides [2000] box [64, 128] "
                             "element_strides [1, 1] interleave none swizzle 128B "
                             "l2_promotion 256B oob_fill none");
    char tiny[8];
    pg_tensor_map_describe(&m, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_maps),       cmocka_unit_test(test_rank),
        cmocka_unit_test(test_global_dims),     cmocka_unit_test(test_global_strides),
        cmocka_unit_test(test_box),             cmocka_unit_test(test_element_strides),
        cmocka_unit_test(test_swizzle_interleave_oob), cmocka_unit_test(test_address),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
