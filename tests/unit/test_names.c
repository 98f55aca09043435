/* Unit tests of fixed sets of names (gate/base/names.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/names.h"

static void test_among(void **state)
{
    (void)state;
    static const char *const k_names[] = {"load", "verify", NULL};
    assert_true(pg_name_among("load", k_names));
    assert_true(pg_name_among("verify", k_names));
    assert_false(pg_name_among("loa", k_names));
    assert_false(pg_name_among("", k_names));
    static const char *const k_none[] = {NULL};
    assert_false(pg_name_among("load", k_none));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_among),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
