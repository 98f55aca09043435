/* The tolerance comparator: conversions, bad-element counting, NaN/Inf and unwritten outputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/accuracy.h"

static uint16_t f2bf(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return (uint16_t)(b >> 16); /* truncation is exact for the values used here */
}

static void test_conversions(void **state)
{
    assert_float_equal(pg_bf16_to_float(0x3F80), 1.0f, 0);
    assert_float_equal(pg_bf16_to_float(0xC000), -2.0f, 0);
    assert_float_equal(pg_fp16_to_float(0x3C00), 1.0f, 0);
    assert_float_equal(pg_fp16_to_float(0x0001), ldexpf(1.0f, -24), 0); /* smallest subnormal */
    assert_float_equal(pg_fp16_to_float(0x7BFF), 65504.0f, 0);
    assert_true(isinf(pg_fp16_to_float(0x7C00)));
    assert_true(isnan(pg_fp16_to_float(0xFFFF)));
    assert_true(isnan(pg_bf16_to_float(0xFFFF)));
    assert_float_equal(pg_e4m3_to_float(0x7E), 448.0f, 0); /* e4m3 max normal */
    assert_true(isnan(pg_e4m3_to_float(0x7F)));
    assert_float_equal(pg_e5m2_to_float(0x7B), 57344.0f, 0); /* e5m2 max normal */
}

static void test_exact_match_passes(void **state)
{
    float ref[4] = {1.0f, -2.0f, 0.5f, 3.0f};
    uint16_t out[4];
    for (int i = 0; i < 4; i++)
        out[i] = f2bf(ref[i]);
    pg_accuracy_tolerance tol = {0.01, 0.01, 0.01};
    pg_accuracy r;
    pg_accuracy_compare(out, PG_DTYPE_BF16, ref, 4, &tol, &r);
    assert_true(r.pass);
    assert_int_equal(r.bad_elements, 0);
    assert_float_equal(r.max_absolute_error, 0.0, 0);
    assert_int_equal(r.first_bad_index, -1);
}

static void test_errors_counted(void **state)
{
    float ref[4] = {1.0f, -2.0f, 0.0f, 4.0f};
    float out[4] = {1.0f, -2.5f, 0.005f, 4.0f};
    pg_accuracy_tolerance tol = {0.01, 0.01, 1.0};
    pg_accuracy r;
    pg_accuracy_compare(out, PG_DTYPE_FP32, ref, 4, &tol, &r);
    /* |−2.5 − −2| = 0.5 > 0.01 + 0.02: bad; 0.005 <= 0.01 + 0: fine. */
    assert_int_equal(r.bad_elements, 1);
    assert_int_equal(r.first_bad_index, 1);
    assert_float_equal(r.max_absolute_error, 0.5, 1e-9);
    assert_float_equal(r.max_relative_error, 0.25, 1e-9); /* ref = 0 excluded */
    /* ‖e‖ = sqrt(0.25 + 0.000025), ‖ref‖ = sqrt(21) */
    assert_float_equal(r.relative_l2_error, sqrt(0.25 + 0.000025) / sqrt(21.0), 1e-7);
    assert_false(r.pass);
}

static void test_rel_l2_threshold(void **state)
{
    float ref[2] = {1.0f, 1.0f};
    float out[2] = {1.005f, 1.005f};
    pg_accuracy_tolerance tol = {0.01, 0.0, 0.001};
    pg_accuracy r;
    pg_accuracy_compare(out, PG_DTYPE_FP32, ref, 2, &tol, &r);
    assert_int_equal(r.bad_elements, 0);
    assert_false(r.pass); /* rel L2 0.005 > 0.001 */
}

static void test_nan_and_unwritten(void **state)
{
    float ref[4] = {1, 1, 1, 1};
    uint16_t out[4] = {f2bf(1.0f), 0xFFFF, 0x7FC0 /* a NaN written by the kernel */, 0x7F80};
    pg_accuracy_tolerance tol = {0.01, 0.01, 1.0};
    pg_accuracy r;
    pg_accuracy_compare(out, PG_DTYPE_BF16, ref, 4, &tol, &r);
    assert_int_equal(r.nan_or_inf_elements, 3);
    assert_int_equal(r.unwritten_elements, 1);
    assert_int_equal(r.bad_elements, 3);
    assert_int_equal(r.first_bad_index, 1);
    assert_false(r.pass);
}

/* Parts folded in order give the whole comparison (the GPU's per-block sums rely on it). */
static void test_parts_fold_to_whole(void **state)
{
    (void)state;
    enum { N = 1000 };
    float ref[N];
    uint16_t out[N];
    for (int i = 0; i < N; i++) {
        ref[i] = (float)((i * 37) % 101) / 17.0f - 2.5f;
        out[i] = f2bf(ref[i] * (1.0f + (float)(i % 7) * 0.001f));
    }
    out[311] = 0xFFFF;
    out[640] = f2bf(99.0f);
    pg_accuracy_tolerance tol = {0.01, 0.004, 0.05};
    pg_accuracy whole, folded;
    pg_accuracy_compare(out, PG_DTYPE_BF16, ref, N, &tol, &whole);
    pg_accuracy_sums total = {0, 0, 0, 0, 0, 0, 0, -1}, part;
    const size_t cuts[] = {0, 1, 300, 312, 999, N};
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
        pg_accuracy_sums_range(out, PG_DTYPE_BF16, ref, cuts[k], cuts[k + 1], &tol, &part);
        pg_accuracy_sums_add(&total, &part);
    }
    pg_accuracy_from_sums(&total, N, &tol, &folded);
    assert_int_equal(folded.bad_elements, whole.bad_elements);
    assert_int_equal(folded.unwritten_elements, 1);
    assert_int_equal(folded.first_bad_index, whole.first_bad_index);
    assert_true(folded.max_absolute_error == whole.max_absolute_error);
    assert_true(folded.max_relative_error == whole.max_relative_error);
    assert_true(fabs(folded.relative_l2_error - whole.relative_l2_error) <=
                1e-12 * whole.relative_l2_error);
    assert_int_equal(folded.pass, whole.pass);
    /* No elements: nothing bad, relative L2 0, pass. */
    pg_accuracy_sums none = {0, 0, 0, 0, 0, 0, 0, -1};
    pg_accuracy empty;
    pg_accuracy_from_sums(&none, 0, &tol, &empty);
    assert_int_equal(empty.first_bad_index, -1);
    assert_true(empty.relative_l2_error == 0.0 && empty.pass);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_exact_match_passes),
        cmocka_unit_test(test_errors_counted),
        cmocka_unit_test(test_rel_l2_threshold),
        cmocka_unit_test(test_nan_and_unwritten),
        cmocka_unit_test(test_parts_fold_to_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
