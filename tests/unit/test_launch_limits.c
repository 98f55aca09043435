/* Tests for the launch-limit rule on plain numbers (pg_launch_limits_fit), the one rule both the
 * offline check and the GPU launch apply: with the limits an H200 reports (blocks per cluster
 * left to the driver) and with an architecture's table, every kind of broken limit with its
 * axis, value and limit, the edges that still fit, and the order in which limits are checked
 * when a launch breaks several. The manifest-level messages are tested in test_binding.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/launch_limits.h"

/* What cuDeviceGetAttribute reports on an H200 (compute capability 9.0, 227 KiB opt-in shared
 * memory per block); no attribute gives blocks per cluster, so the device path leaves it 0. */
static const pg_launch_limits k_h200 = {
    .target = "NVIDIA H200", .max_threads_per_block = 1024, .max_block_dim = {1024, 1024, 64},
    .max_grid_dim = {2147483647, 65535, 65535}, .max_shared_per_block_optin = 232448,
    .cc_major = 9};

/* A launch that fits: 132 x 1 x 1 blocks of 128 threads, 64 KiB shared memory, no cluster. */
static pg_launch_shape fitting(void)
{
    return (pg_launch_shape){.grid = {132, 1, 1}, .block = {128, 1, 1},
                             .shared_bytes = 65536};
}

static void expect(const pg_launch_shape *s, const pg_launch_limits *lim, pg_limit_kind kind,
                   int axis, unsigned long long value, long long limit)
{
    pg_launch_violation v = {.kind = PG_LIMIT_NONE};
    assert_false(pg_launch_limits_fit(s, lim, &v));
    assert_int_equal(v.kind, kind);
    assert_int_equal(v.axis, axis);
    assert_int_equal(v.value, value);
    assert_int_equal(v.limit, limit);
}

static void expect_fit(const pg_launch_shape *s, const pg_launch_limits *lim)
{
    pg_launch_violation v = {.kind = PG_LIMIT_THREADS};
    assert_true(pg_launch_limits_fit(s, lim, &v));
    assert_int_equal(v.kind, PG_LIMIT_NONE);
}

static void test_fits_up_to_the_limits(void **state)
{
    (void)state;
    pg_launch_shape s = fitting();
    expect_fit(&s, &k_h200);
    s = (pg_launch_shape){.grid = {2147483647, 65535, 65535}, .block = {1024, 1, 1},
                          .shared_bytes = 232448};
    expect_fit(&s, &k_h200);
    s = (pg_launch_shape){.grid = {1, 1, 1}, .block = {16, 1, 64}};
    expect_fit(&s, &k_h200);
    /* {1,1,1} is no cluster, like {0,0,0}. */
    s = fitting();
    s.cluster[0] = s.cluster[1] = s.cluster[2] = 1;
    expect_fit(&s, &k_h200);
    /* A cluster of 32 blocks: the device path leaves blocks per cluster to the driver. */
    s.grid[0] = 128;
    s.cluster[0] = 32;
    expect_fit(&s, &k_h200);
}

/* One broken limit each, on the fitting launch with one value changed. */
static void test_one_limit_each(void **state)
{
    (void)state;
    static const struct {
        unsigned grid[3], block[3];
        unsigned long long shared_bytes;
        pg_limit_kind kind;
        int axis;
        unsigned long long value;
        long long limit;
    } cases[] = {
        {{132, 1, 1}, {2048, 1, 1}, 0, PG_LIMIT_BLOCK_DIM, 0, 2048, 1024},
        {{132, 1, 1}, {128, 1, 65}, 0, PG_LIMIT_BLOCK_DIM, 2, 65, 64},
        {{132, 1, 1}, {128, 0, 1}, 0, PG_LIMIT_BLOCK_DIM, 1, 0, 1024},
        {{132, 65536, 1}, {128, 1, 1}, 0, PG_LIMIT_GRID_DIM, 1, 65536, 65535},
        {{0, 1, 1}, {128, 1, 1}, 0, PG_LIMIT_GRID_DIM, 0, 0, 2147483647},
        {{2147483648u, 1, 1}, {128, 1, 1}, 0, PG_LIMIT_GRID_DIM, 0, 2147483648u, 2147483647},
        {{132, 1, 1}, {64, 32, 1}, 0, PG_LIMIT_THREADS, 0, 2048, 1024},
        /* one byte above 227 KiB */
        {{132, 1, 1}, {128, 1, 1}, 232449, PG_LIMIT_SHARED, 0, 232449, 232448},
        /* static + dynamic above 4 GiB does not wrap */
        {{132, 1, 1}, {128, 1, 1}, 4294967295ull + 49152, PG_LIMIT_SHARED, 0,
         4294967295ull + 49152, 232448},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pg_launch_shape s = {.shared_bytes = cases[i].shared_bytes};
        for (int j = 0; j < 3; j++) {
            s.grid[j] = cases[i].grid[j];
            s.block[j] = cases[i].block[j];
        }
        expect(&s, &k_h200, cases[i].kind, cases[i].axis, cases[i].value, cases[i].limit);
    }
}

static void test_clusters(void **state)
{
    (void)state;
    pg_launch_shape s = fitting();
    s.cluster[0] = 2;
    s.cluster[1] = s.cluster[2] = 1;
    expect_fit(&s, &k_h200);
    s.cluster[0] = 5; /* 132 blocks are not a multiple of 5 */
    expect(&s, &k_h200, PG_LIMIT_CLUSTER_MULTIPLE, 0, 132, 5);
    s.cluster[0] = 2;
    s.cluster[2] = 0; /* 0 beside a real dimension */
    expect(&s, &k_h200, PG_LIMIT_CLUSTER_ZERO, 2, 0, 0);
    s.cluster[2] = 1;
    pg_launch_limits a100 = k_h200;
    a100.cc_major = 8;
    expect(&s, &a100, PG_LIMIT_CLUSTER_CC, 0, 8, 9);

    /* An architecture's table knows blocks per cluster: 16 with the non-portable opt-in. */
    pg_launch_limits table = k_h200;
    table.max_cluster_blocks_portable = 8;
    table.max_cluster_blocks = 16;
    s.grid[0] = 128;
    s.cluster[0] = 16;
    expect_fit(&s, &table);
    s.grid[1] = 4;
    s.cluster[0] = 8;
    s.cluster[1] = 4;
    expect(&s, &table, PG_LIMIT_CLUSTER_BLOCKS, 0, 32, 16);
    expect_fit(&s, &k_h200);
}

/* Several limits broken: the first in the documented order is the one reported, the same on
 * every path. */
static void test_order(void **state)
{
    (void)state;
    pg_launch_shape s = {.grid = {0, 70000, 1}, .block = {2048, 1, 128},
                         .cluster = {3, 0, 1}, .shared_bytes = 1u << 30};
    pg_launch_limits lim = k_h200;
    lim.cc_major = 8;
    expect(&s, &lim, PG_LIMIT_BLOCK_DIM, 0, 2048, 1024); /* block x before grid x */
    s.block[0] = 1;
    expect(&s, &lim, PG_LIMIT_GRID_DIM, 0, 0, 2147483647); /* grid x before block z */
    s.grid[0] = 6;
    expect(&s, &lim, PG_LIMIT_GRID_DIM, 1, 70000, 65535);
    s.grid[1] = 1;
    expect(&s, &lim, PG_LIMIT_BLOCK_DIM, 2, 128, 64);
    s.block[0] = 32;
    s.block[2] = 64;
    expect(&s, &lim, PG_LIMIT_THREADS, 0, 2048, 1024); /* threads before shared memory */
    s.block[0] = 16;
    expect(&s, &lim, PG_LIMIT_SHARED, 0, 1u << 30, 232448); /* shared memory before clusters */
    s.shared_bytes = 0;
    expect(&s, &lim, PG_LIMIT_CLUSTER_CC, 0, 8, 9);
    lim.cc_major = 9;
    expect(&s, &lim, PG_LIMIT_CLUSTER_ZERO, 1, 0, 0); /* axis by axis: x passes, y is 0 */
    s.cluster[1] = 1;
    s.grid[0] = 4;
    expect(&s, &lim, PG_LIMIT_CLUSTER_MULTIPLE, 0, 4, 3);
    s.grid[0] = 6;
    expect_fit(&s, &lim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_up_to_the_limits),
        cmocka_unit_test(test_one_limit_each),
        cmocka_unit_test(test_clusters),
        cmocka_unit_test(test_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
