/* Tests for the guarded-buffer layout: the buffer ends at the mapping's end when its size is a
 * multiple of 256, the slack is a back canary otherwise, the start stays 256-byte aligned, the
 * mapping is whole granularity units with guards on both sides; and the canary scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/guard.h"

#define MIB ((size_t)1 << 20)

static void check_invariants(size_t bytes, size_t gran, const pg_guard_layout *l)
{
    assert_int_equal(l->map_bytes % gran, 0);
    assert_int_equal(l->guard_bytes % gran, 0);
    assert_int_equal(l->front_bytes + bytes + l->back_bytes, l->map_bytes);
    assert_int_equal(l->reserve_bytes, l->map_bytes + 2 * l->guard_bytes);
    assert_int_equal(l->front_bytes % PG_GUARD_ALIGN, 0); /* start aligned */
    assert_true(l->back_bytes < PG_GUARD_ALIGN);
    assert_true(l->front_bytes < gran); /* the smallest mapping that holds it */
}

static void test_multiple_of_256_ends_at_mapping_end(void **state)
{
    (void)state;
    pg_guard_layout l;
    /* bf16 C of 2048 x 2048: 8 MiB, four 2 MiB units exactly. */
    assert_true(pg_guard_plan(2048 * 2048 * 2, 2 * MIB, 64 * MIB, &l));
    assert_int_equal(l.back_bytes, 0);
    assert_int_equal(l.front_bytes, 0);
    assert_int_equal(l.map_bytes, 8 * MIB);
    assert_int_equal(l.guard_bytes, 64 * MIB);
    check_invariants(2048 * 2048 * 2, 2 * MIB, &l);
    /* 8192 x 5120 bf16 A: a multiple of 256 but not of 2 MiB. */
    size_t a = (size_t)8192 * 5120 * 2;
    assert_true(pg_guard_plan(a, 2 * MIB, 64 * MIB, &l));
    assert_int_equal(l.back_bytes, 0);
    check_invariants(a, 2 * MIB, &l);
}

static void test_odd_sizes_keep_alignment_with_back_canary(void **state)
{
    (void)state;
    pg_guard_layout l;
    /* bf16 C of 257 x 513: 263682 bytes = 1030 * 256 + 2, so 254 bytes of back canary. */
    assert_true(pg_guard_plan(257 * 513 * 2, 2 * MIB, 1, &l));
    assert_int_equal(l.back_bytes, 254);
    assert_int_equal(l.map_bytes, 2 * MIB);
    assert_int_equal(l.front_bytes, 2 * MIB - 263682 - 254);
    assert_int_equal(l.guard_bytes, 2 * MIB); /* at least one unit */
    check_invariants(257 * 513 * 2, 2 * MIB, &l);
    for (size_t bytes = 1; bytes < 5000; bytes += 37) {
        assert_true(pg_guard_plan(bytes, 65536, 0, &l));
        check_invariants(bytes, 65536, &l);
    }
}

static void test_rejects_bad_arguments(void **state)
{
    (void)state;
    pg_guard_layout l;
    assert_false(pg_guard_plan(0, 2 * MIB, 0, &l));
    assert_false(pg_guard_plan(100, 3 * MIB, 0, &l));  /* not a power of two */
    assert_false(pg_guard_plan(100, 128, 0, &l));      /* below the alignment */
    assert_false(pg_guard_plan(SIZE_MAX - 10, 2 * MIB, 0, &l));
    assert_false(pg_guard_plan(100, 2 * MIB, SIZE_MAX / 2, &l));
    assert_false(pg_guard_plan(100, 2 * MIB, 0, NULL));
}

static void test_canary_scan(void **state)
{
    (void)state;
    unsigned char buf[300];
    memset(buf, 0xC3, sizeof buf);
    size_t first = 999, last = 999;
    assert_int_equal(pg_canary_scan(buf, sizeof buf, 0xC3, &first, &last), 0);
    assert_int_equal(first, 999);
    buf[7] = 0;
    buf[250] = 0xC2;
    buf[251] = 0xFF;
    assert_int_equal(pg_canary_scan(buf, sizeof buf, 0xC3, &first, &last), 3);
    assert_int_equal(first, 7);
    assert_int_equal(last, 251);
    assert_int_equal(pg_canary_scan(buf, 0, 0xC3, NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiple_of_256_ends_at_mapping_end),
        cmocka_unit_test(test_odd_sizes_keep_alignment_with_back_canary),
        cmocka_unit_test(test_rejects_bad_arguments),
        cmocka_unit_test(test_canary_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
