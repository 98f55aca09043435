/* Unit test of sustained mode's rotation count (perf_arms.c, pg_perf_rotation_copies): enough
 * copies of a workload's tensors to hold at least 3 × L2, between 1 and PG_PERF_MAX_COPIES,
 * 1 when a size is unknown. Values computed by hand for the H200's 60 MiB L2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pipeline/perf_arms.h"

static const long long k_l2 = 60ll << 20; /* 62 914 560 bytes */

static void test_large_workload_needs_one_copy(void **state)
{
    (void)state;
    /* bf16 8192x7168x5120: A 80 MiB + B 70 MiB + C 112 MiB = 262 MiB >= 180 MiB. */
    size_t set = (size_t)(8192ll * 5120 + 7168ll * 5120 + 8192ll * 7168) * 2;
    assert_int_equal(pg_perf_rotation_copies(set, k_l2), 1);
}

static void test_4096_needs_two(void **state)
{
    (void)state;
    /* bf16 4096^3: 3 x 32 MiB = 96 MiB; ceil(180 / 96) = 2. */
    size_t set = 3ull * 4096 * 4096 * 2;
    assert_int_equal(pg_perf_rotation_copies(set, k_l2), 2);
}

static void test_exact_multiple_and_caps(void **state)
{
    (void)state;
    assert_int_equal(pg_perf_rotation_copies((size_t)k_l2, k_l2), 3); /* exactly 3 x L2 */
    assert_int_equal(pg_perf_rotation_copies((size_t)k_l2 + 1, k_l2), 3);
    /* 257x513x1000 bf16: 1.8 MB per set would need 105 copies: capped. */
    size_t small = (size_t)(257ll * 1000 + 513ll * 1000 + 257ll * 513) * 2;
    assert_int_equal(pg_perf_rotation_copies(small, k_l2), PG_PERF_MAX_COPIES);
    assert_int_equal(pg_perf_rotation_copies(0, k_l2), 1);
    assert_int_equal(pg_perf_rotation_copies(1000, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_workload_needs_one_copy),
        cmocka_unit_test(test_4096_needs_two),
        cmocka_unit_test(test_exact_multiple_and_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
