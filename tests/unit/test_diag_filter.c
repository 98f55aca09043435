/* gate/tool/diag_filter: which file a diagnostic line belongs to, and dropping the lines of
 * files a report must not quote (with their quoted source and caret lines), counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tool/diag_filter.h"

static void expect_file(const char *line, const char *want)
{
    char path[256];
    bool got = pg_diag_line_file(line, strlen(line), path, sizeof path);
    if (!want) {
        assert_false(got);
        return;
    }
    assert_true(got);
    assert_string_equal(path, want);
}

static void test_line_file(void **state)
{
    (void)state;
    expect_file("kernel.cu(14): error: identifier \"x\" is undefined", "kernel.cu");
    expect_file("/tmp/v.txt(1): error: expected a \";\"", "/tmp/v.txt");
    expect_file("my (1) dir/k.cu(3): warning #177-D: unused", "my (1) dir/k.cu");
    expect_file("inc/../../s.txt:1:16: warning: missing terminating ' character", "inc/../../s.txt");
    expect_file("k.cu:2:10: fatal error: x.h: No such file or directory", "k.cu");
    expect_file("In file included from inc/a.cuh:2,", "inc/a.cuh");
    expect_file("In file included from k.cu:1:", "k.cu");
    expect_file("                 from n.cu:1:", "n.cu");
    expect_file(". inc/a.cuh", "inc/a.cuh");
    expect_file(".. /tmp/v.txt", "/tmp/v.txt");
    expect_file("  SECRET_TOKEN it's here", NULL);       /* nvcc's quoted source line */
    expect_file("    1 | SECRET_TOKEN it's here", NULL); /* gcc's */
    expect_file("      |                ^", NULL);
    expect_file("3 errors detected in the compilation of \"bad.cu\".", NULL);
    expect_file("nvcc fatal   : Unsupported gpu architecture 'compute_1'", NULL);
    expect_file("compilation terminated.", NULL);
    expect_file("", NULL);
}

/* Allowed: names that do not start with "/tmp" or "inc/../..". */
static bool allow(const char *path, void *ctx)
{
    int *calls = ctx;
    (*calls)++;
    return strncmp(path, "/tmp", 4) != 0 && strncmp(path, "inc/../..", 9) != 0;
}

static void test_filter_drops_outside_files(void **state)
{
    (void)state;
    const char *log = "In file included from bad.cu:2:\n"
                      "/tmp/v.txt:1:16: warning: missing terminating ' character\n"
                      "    1 | SECRET_TOKEN it's here\n"
                      "      |                ^\n"
                      "/tmp/v.txt(1): error: identifier \"SECRET_TOKEN\" is undefined\n"
                      "  SECRET_TOKEN it's here\n"
                      "  ^\n"
                      "\n"
                      "bad.cu(3): error: expected a \";\"\n"
                      "  int x = 1\n"
                      "           ^\n"
                      "\n"
                      "3 errors detected in the compilation of \"bad.cu\".";
    char *out = NULL;
    int dropped = -1, calls = 0;
    assert_int_equal(pg_diag_filter(log, allow, &calls, &out, &dropped), PG_OK);
    assert_null(strstr(out, "SECRET"));
    assert_null(strstr(out, "/tmp/v.txt"));
    assert_non_null(strstr(out, "In file included from bad.cu:2:\n"));
    assert_non_null(strstr(out, "bad.cu(3): error: expected a \";\"\n  int x = 1\n"));
    assert_non_null(strstr(out, "3 errors detected"));
    assert_int_equal(dropped, 2);
    free(out);
}

static void test_filter_include_chain(void **state)
{
    (void)state;
    /* An indented "from X:N" names a file only after a chain line ending in ','; otherwise it
     * is text quoted from the file before it. */
    const char *log = "In file included from inc/a.cuh:2,\n"
                      "                 from n.cu:1:\n"
                      "inc/../../s.txt:1:16: warning: missing terminating ' character\n"
                      "                 from n.cu:1: SECRET\n"
                      "    1 | SECRET\n"
                      "k.cu:4:1: error: x\n";
    char *out = NULL;
    int dropped = 0, calls = 0;
    assert_int_equal(pg_diag_filter(log, allow, &calls, &out, &dropped), PG_OK);
    assert_string_equal(out, "In file included from inc/a.cuh:2,\n"
                             "                 from n.cu:1:\n"
                             "k.cu:4:1: error: x\n");
    assert_int_equal(dropped, 1);
    free(out);
}

static void test_filter_tool_lines_kept(void **state)
{
    (void)state;
    char *out = NULL;
    int dropped = 0, calls = 0;
    assert_int_equal(pg_diag_filter("nvcc fatal   : Unsupported gpu architecture 'compute_1'\n",
                                    allow, &calls, &out, &dropped),
                     PG_OK);
    assert_string_equal(out, "nvcc fatal   : Unsupported gpu architecture 'compute_1'\n");
    assert_int_equal(dropped, 0);
    assert_int_equal(calls, 0);
    free(out);
    assert_int_equal(pg_diag_filter(NULL, allow, &calls, &out, &dropped), PG_OK);
    assert_string_equal(out, "");
    free(out);
    /* The -H tree of the -M run: lines naming outside files go. */
    assert_int_equal(pg_diag_filter(". inc/a.cuh\n.. /tmp/v.txt\n. lnk/b.cuh", allow, &calls,
                                    &out, &dropped),
                     PG_OK);
    assert_string_equal(out, ". inc/a.cuh\n. lnk/b.cuh");
    assert_int_equal(dropped, 1);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_file),
        cmocka_unit_test(test_filter_drops_outside_files),
        cmocka_unit_test(test_filter_include_chain),
        cmocka_unit_test(test_filter_tool_lines_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
