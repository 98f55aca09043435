/* Tests for the compute-sanitizer report parser on reports in the tool's text format: memcheck
 * with merged duplicates, an API error and application output mixed in; racecheck errors and
 * warnings with the kernel on the header line; initcheck and synccheck in the older location
 * format; a tool failure; a clean run. Fixtures: tests/data/sanitizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "tool/sanitizer_log.h"

static void parse(const char *name, pg_san_report *r)
{
    char path[512], *text = NULL;
    snprintf(path, sizeof path, "%s/sanitizer/%s", PG_TEST_DATA, name);
    pg_diag d;
    assert_int_equal(pg_file_read(path, 1 << 20, &text, NULL, &d), PG_OK);
    assert_int_equal(pg_san_parse(text, r, &d), PG_OK);
    free(text);
}

static void test_memcheck(void **state)
{
    (void)state;
    pg_san_report r;
    parse("memcheck.log", &r);
    assert_int_equal(r.records, 3);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.summary_errors, 3);
    assert_int_equal(r.items[0].kind, PG_SAN_ERROR);
    assert_string_equal(r.items[0].what, "Invalid __global__ write of size 2 bytes");
    assert_string_equal(r.items[0].kernel, "gemm_oob");
    assert_string_equal(r.items[0].detail, "Address 0x7f3a40040000 is out of bounds");
    assert_int_equal(r.items[0].count, 2);
    assert_int_equal(r.items[1].kind, PG_SAN_API);
    assert_string_equal(r.items[1].kernel, "");
    assert_non_null(strstr(r.items[1].what, "CUDA_ERROR_LAUNCH_FAILED"));
    pg_san_report_free(&r);
}

static void test_racecheck(void **state)
{
    (void)state;
    pg_san_report r;
    parse("racecheck.log", &r);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.summary_errors, 1);
    assert_int_equal(r.items[0].kind, PG_SAN_ERROR);
    assert_string_equal(r.items[0].what, "Race reported between Write access");
    assert_string_equal(r.items[0].kernel, "racy_reduction");
    assert_int_equal(r.items[1].kind, PG_SAN_WARNING);
    assert_string_equal(r.items[1].kernel, "racy_reduction");
    pg_san_report_free(&r);
}

static void test_old_format_and_tool_error(void **state)
{
    (void)state;
    pg_san_report r;
    parse("old_format.log", &r);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.items[0].what, "Uninitialized __global__ memory read of size 4 bytes");
    assert_string_equal(r.items[0].kernel, "uninit_read");
    assert_string_equal(r.items[0].detail, "Address 0x7fe0c2000010");
    assert_string_equal(r.items[1].what, "Barrier error detected. Divergent thread(s) in warp");
    assert_string_equal(r.items[1].kernel, "sync_bad");
    assert_int_equal(r.items[2].kind, PG_SAN_TOOL);
    assert_non_null(strstr(r.items[2].what, "No attachable process"));
    pg_san_report_free(&r);
}

static void test_clean_and_empty(void **state)
{
    (void)state;
    pg_san_report r;
    parse("clean.log", &r);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.summary_errors, 0);
    pg_san_report_free(&r);
    pg_diag d;
    assert_int_equal(pg_san_parse("", &r, &d), PG_OK);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.summary_errors, -1);
    pg_san_report_free(&r);
}

static void test_many_distinct_findings_are_capped(void **state)
{
    (void)state;
    size_t cap = 400 * 128;
    char *log = malloc(cap), *p = log;
    for (int i = 0; i < 400; i++)
        p += sprintf(p, "========= Invalid __global__ read of size %d bytes\n=========     at k%d+0x10\n=========\n", i, i);
    pg_san_report r;
    pg_diag d;
    assert_int_equal(pg_san_parse(log, &r, &d), PG_OK);
    assert_int_equal(r.n, PG_SAN_MAX_FINDINGS);
    assert_int_equal(r.records, 400);
    assert_true(r.truncated);
    assert_string_equal(r.items[7].kernel, "k7");
    pg_san_report_free(&r);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memcheck),
        cmocka_unit_test(test_racecheck),
        cmocka_unit_test(test_old_format_and_tool_error),
        cmocka_unit_test(test_clean_and_empty),
        cmocka_unit_test(test_many_distinct_findings_are_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
