/* Unit tests of growing an array by doubling (gate/base/grow.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/grow.h"

static void test_doubles_when_full(void **state)
{
    (void)state;
    int *a = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 20; i++) {
        int *p = pg_grow(a, n, &cap, 4, sizeof *a);
        assert_non_null(p);
        a = p;
        a[n++] = i;
        assert_true(n <= cap);
    }
    assert_int_equal(cap, 32); /* 4, 8, 16, 32 */
    for (int i = 0; i < 20; i++)
        assert_int_equal(a[i], i);
    free(a);
}

static void test_room_left_keeps_the_array(void **state)
{
    (void)state;
    size_t cap = 0;
    char *a = pg_grow(NULL, 0, &cap, 8, 1);
    assert_non_null(a);
    assert_int_equal(cap, 8);
    assert_ptr_equal(pg_grow(a, 7, &cap, 8, 1), a);
    assert_int_equal(cap, 8);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_when_full),
        cmocka_unit_test(test_room_left_keeps_the_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
