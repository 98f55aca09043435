/* The multi-GPU hand-out policy: longest first with ties by index, list scheduling that never
 * puts two submissions on one device at once and uses every device, and --devices parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/devices.h"

static void test_order_longest_first_ties_by_index(void **state)
{
    (void)state;
    int cost[] = {2, 5, 2, 0, 5, 3};
    size_t order[6];
    pg_devices_order(cost, 6, order);
    size_t want[] = {1, 4, 5, 0, 2, 3};
    for (int i = 0; i < 6; i++)
        assert_int_equal(order[i], want[i]);
    pg_devices_order(cost, 0, order); /* nothing to order: no access */
}

/* Costs 3 5 2 4 3 (hand-out order 1 3 0 4 2) on 2 devices, worked by hand: d0 gets #1 (0-5)
 * then #4 (5-8); d1 gets #3 (0-4), #0 (4-7), #2 (7-9). Makespan 9; sequential would be 17. */
static void test_simulate_known_schedule(void **state)
{
    (void)state;
    int cost[] = {3, 5, 2, 4, 3};
    size_t order[5];
    pg_devices_slot slot[5];
    pg_devices_order(cost, 5, order);
    double makespan = pg_devices_simulate(cost, 5, 2, order, slot);
    assert_true(makespan == 9.0);
    int dev[] = {1, 0, 1, 1, 0};
    double start[] = {4, 0, 7, 0, 5};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(slot[i].device, dev[i]);
        assert_true(slot[i].start == start[i]);
        assert_true(slot[i].end == start[i] + cost[i]);
    }
    /* One device: today's sequential run, in hand-out order, back to back. */
    assert_true(pg_devices_simulate(cost, 5, 1, order, slot) == 17.0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(slot[i].device, 0);
}

/* Random costs on 1..8 devices: no two slots on one device overlap, every device in use when
 * there are at least as many items, and the makespan between the lower bound max(sum/m, max
 * cost) and list scheduling's bound sum/m + (1 - 1/m) max cost (Graham 1969). */
static void test_simulate_no_overlap_and_bound(void **state)
{
    (void)state;
    enum { N = 23 };
    int cost[N];
    unsigned seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        cost[i] = 1 + (int)((seed >> 8) % 20u);
    }
    size_t order[N];
    pg_devices_slot slot[N];
    pg_devices_order(cost, N, order);
    for (int m = 1; m <= 8; m++) {
        double makespan = pg_devices_simulate(cost, N, m, order, slot);
        double sum = 0, biggest = 0;
        int used[8] = {0};
        for (int i = 0; i < N; i++) {
            sum += cost[i];
            biggest = cost[i] > biggest ? cost[i] : biggest;
            assert_true(slot[i].device >= 0 && slot[i].device < m);
            used[slot[i].device] = 1;
            for (int j = 0; j < N; j++)
                if (j != i && slot[j].device == slot[i].device)
                    assert_true(slot[j].end <= slot[i].start || slot[i].end <= slot[j].start);
        }
        for (int dv = 0; dv < m; dv++)
            assert_int_equal(used[dv], 1);
        double lower = sum / m > biggest ? sum / m : biggest;
        assert_true(makespan >= lower);
        assert_true(makespan <= sum / m + (1.0 - 1.0 / m) * biggest + 1e-9);
    }
}

static void test_parse(void **state)
{
    (void)state;
    int v[PG_DEVICES_MAX], n;
    pg_diag d;
    assert_int_equal(pg_devices_parse("0", v, &n, &d), PG_OK);
    assert_int_equal(n, 1);
    assert_int_equal(v[0], 0);
    assert_int_equal(pg_devices_parse("3,1,1024", v, &n, &d), PG_OK);
    assert_int_equal(n, 3);
    assert_int_equal(v[0], 3);
    assert_int_equal(v[1], 1);
    assert_int_equal(v[2], 1024);
    const char *bad[] = {"", "0,", ",0", "0,,1", "a", "0 ,1", "-1", "1025", "0,1,0", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pg_diag_clear(&d);
        assert_int_equal(pg_devices_parse(bad[i], v, &n, &d), PG_ERR_INPUT);
        assert_string_equal(d.field, "--devices");
    }
    assert_int_equal(pg_devices_parse(NULL, v, &n, &d), PG_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_longest_first_ties_by_index),
        cmocka_unit_test(test_simulate_known_schedule),
        cmocka_unit_test(test_simulate_no_overlap_and_bound),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
