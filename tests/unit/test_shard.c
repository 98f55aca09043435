/* The shard split: every item in exactly one shard, shard sizes within one of each other, a
 * known assignment worked out by hand, independence from the input order, and --shard parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/shard.h"

/* Sorted: (a,k,w1) (a,k,w2) (a,k2,w1) (b,k,w1) (b,k,w2) -> shards 1 2 3 1 2 (n = 3). */
static void test_known_assignment(void **state)
{
    pg_work_item items[] = {{"b", "k", "w2", "m"}, {"a", "k2", "w1", "m"}, {"a", "k", "w1", "m"},
                            {"b", "k", "w1", "m"}, {"a", "k", "w2", "m"}};
    int shard[5];
    pg_diag d;
    assert_int_equal(pg_shard_assign(items, 5, 3, shard, &d), PG_OK);
    int want[5] = {2, 3, 1, 1, 2};
    for (int i = 0; i < 5; i++)
        assert_int_equal(shard[i], want[i]);
    /* Same names in two folders: the manifest path breaks the tie. */
    pg_work_item twins[] = {{"t", "k", "w", "v2/k.json"}, {"t", "k", "w", "v1/k.json"}};
    assert_int_equal(pg_shard_assign(twins, 2, 2, shard, &d), PG_OK);
    assert_int_equal(shard[0], 2);
    assert_int_equal(shard[1], 1);
}

/* 6 tasks x 7 submissions x 5 workloads = 210 items over n = 1..16 shards: a partition, sizes
 * floor or ceil of 210/n, and the same assignment for a shuffled input. */
static void test_partition_balance_and_order_independence(void **state)
{
    enum { T = 6, S = 7, W = 5, N = T * S * W };
    static char names[N][3][16];
    pg_work_item items[N], shuffled[N];
    int perm[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i][0], 16, "task%d", i / (S * W));
        snprintf(names[i][1], 16, "sub%d", (i / W) % S);
        snprintf(names[i][2], 16, "w%d", i % W);
        items[i] = (pg_work_item){names[i][0], names[i][1], names[i][2], "m.json"};
        perm[i] = i;
    }
    unsigned seed = 12345;
    for (int i = N - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < N; i++)
        shuffled[i] = items[perm[i]];
    int a[N], b[N];
    pg_diag d;
    for (int n = 1; n <= 16; n++) {
        assert_int_equal(pg_shard_assign(items, N, n, a, &d), PG_OK);
        assert_int_equal(pg_shard_assign(shuffled, N, n, b, &d), PG_OK);
        int size[17] = {0};
        for (int i = 0; i < N; i++) {
            assert_true(a[i] >= 1 && a[i] <= n);
            size[a[i]]++;
            assert_int_equal(b[i], a[perm[i]]);
        }
        for (int s = 1; s <= n; s++)
            assert_true(size[s] == N / n || size[s] == (N + n - 1) / n);
        /* Each task's 35 items spread: no shard holds more than ceil(35/n) + 1 of one task. */
        for (int t = 0; t < T && n > 1; t++) {
            int per[17] = {0};
            for (int i = t * S * W; i < (t + 1) * S * W; i++)
                per[a[i]]++;
            for (int s = 1; s <= n; s++)
                assert_true(per[s] <= (S * W + n - 1) / n + 1);
        }
    }
}

static void test_parse(void **state)
{
    pg_shard s;
    pg_diag d;
    assert_int_equal(pg_shard_parse("2/4", &s, &d), PG_OK);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    assert_int_equal(pg_shard_parse("1/1", &s, &d), PG_OK);
    const char *bad[] = {"0/4", "5/4", "2/0", "2", "/4", "2/", "a/4", "2/4x", "-1/4", "2/5000",
                         " 2/4", "2/ 4", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pg_shard_parse(bad[i], &s, &d), PG_ERR_INPUT);
        assert_string_equal(d.field, "--shard");
    }
    int shard[1];
    pg_work_item it = {"t", "s", "w", "m"};
    assert_int_equal(pg_shard_assign(&it, 1, 0, shard, &d), PG_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_assignment),
        cmocka_unit_test(test_partition_balance_and_order_independence),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
