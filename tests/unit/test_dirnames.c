/* Unit tests of naming what a folder holds (gate/base/dirnames.h): the sorted, joined list, its
 * cut at the buffer's end, and the stems of a folder's data files without hidden ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/dirnames.h"

#define ROOT PG_TEST_TMP "/dirnames"

static void touch(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ROOT, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void test_join_sorts_and_frees(void **state)
{
    (void)state;
    char *names[] = {strdup("sm_90a"), strdup("sm_100a"), strdup("sm_80")};
    char out[64];
    pg_names_join(names, 3, out, sizeof out);
    assert_string_equal(out, "sm_100a, sm_80, sm_90a");
    pg_names_join(NULL, 0, out, sizeof out);
    assert_string_equal(out, "");
}

static void test_join_cuts_at_the_end(void **state)
{
    (void)state;
    char *names[] = {strdup("bbbb"), strdup("aaaa"), strdup("cccc")};
    char out[8];
    pg_names_join(names, 3, out, sizeof out);
    assert_string_equal(out, "aaaa, b");
}

static void test_dir_stems(void **state)
{
    (void)state;
    mkdir(PG_TEST_TMP, 0755);
    mkdir(ROOT, 0755);
    touch("gh100.json");
    touch("gb100.json");
    touch(".hidden.json");
    touch("notes.txt");
    touch(".json");
    char out[128];
    pg_dir_stems(ROOT, ".json", out, sizeof out);
    assert_string_equal(out, "gb100, gh100");
    pg_dir_stems(ROOT "/no-such-folder", ".json", out, sizeof out);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_sorts_and_frees),
        cmocka_unit_test(test_join_cuts_at_the_end),
        cmocka_unit_test(test_dir_stems),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
