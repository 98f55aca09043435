/* Unit tests of the data-folder resolver (gate/base/datadir.h) on folder trees laid out like an
 * installed prefix and like a build folder next to a source tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/datadir.h"

#define ROOT PG_TEST_TMP "/datadir"

static void mkdirs(const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void clear_env(void)
{
    for (int k = 0; k < PG_DATA_KINDS; k++)
        unsetenv(pg_data_env_name((pg_data_kind)k));
}

static int setup(void **state)
{
    clear_env();
    /* An installed prefix: bin/ptxgate and share/ptxgate/{tasks,arch,metrics}. */
    mkdirs(ROOT "/prefix/bin");
    mkdirs(ROOT "/prefix/share/ptxgate/tasks");
    mkdirs(ROOT "/prefix/share/ptxgate/arch");
    mkdirs(ROOT "/prefix/share/ptxgate/metrics");
    /* A source tree and its build folder naming it. */
    mkdirs(ROOT "/src/data/arch");
    mkdirs(ROOT "/src/data/metrics");
    mkdirs(ROOT "/src/tasks");
    mkdirs(ROOT "/src/schemas");
    mkdirs(ROOT "/build");
    write_file(ROOT "/build/ptxgate-source-root", ROOT "/src\n");
    /* A lone binary: neither share/ptxgate nor a source-root file. */
    mkdirs(ROOT "/lone/bin");
    return 0;
}

static void test_installed_prefix(void **state)
{
    char out[1024];
    assert_int_equal(pg_data_resolve(PG_DATA_ARCH, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_INSTALL);
    assert_string_equal(out, ROOT "/prefix/bin/../share/ptxgate/arch");
    assert_int_equal(pg_data_resolve(PG_DATA_TASKS, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_INSTALL);
    assert_string_equal(out, ROOT "/prefix/bin/../share/ptxgate/tasks");
    /* Not installed there: no fallback anywhere else. */
    assert_int_equal(pg_data_resolve(PG_DATA_SCHEMAS, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_NOT_FOUND);
    assert_string_equal(out, "");
}

static void test_build_folder_reads_the_source_root_file(void **state)
{
    char out[1024];
    assert_int_equal(pg_data_resolve(PG_DATA_ARCH, ROOT "/build/ptxgate", out, sizeof out),
                     PG_DATA_FROM_SOURCE);
    assert_string_equal(out, ROOT "/src/data/arch");
    assert_int_equal(pg_data_resolve(PG_DATA_METRICS, ROOT "/build/ptxgate", out, sizeof out),
                     PG_DATA_FROM_SOURCE);
    assert_string_equal(out, ROOT "/src/data/metrics");
    assert_int_equal(pg_data_resolve(PG_DATA_SCHEMAS, ROOT "/build/ptxgate", out, sizeof out),
                     PG_DATA_FROM_SOURCE);
    assert_string_equal(out, ROOT "/src/schemas");
    /* The source tree has no baselines folder: not found, not some other folder. */
    assert_int_equal(pg_data_resolve(PG_DATA_BASELINES, ROOT "/build/ptxgate", out, sizeof out),
                     PG_DATA_NOT_FOUND);
}

static void test_lone_binary_finds_nothing(void **state)
{
    char out[1024];
    for (int k = 0; k < PG_DATA_KINDS; k++)
        assert_int_equal(pg_data_resolve((pg_data_kind)k, ROOT "/lone/bin/ptxgate", out,
                                         sizeof out),
                         PG_DATA_NOT_FOUND);
    assert_int_equal(pg_data_resolve(PG_DATA_ARCH, "relative/ptxgate", out, sizeof out),
                     PG_DATA_NOT_FOUND);
    assert_int_equal(pg_data_resolve(PG_DATA_ARCH, NULL, out, sizeof out), PG_DATA_NOT_FOUND);
    assert_true(strstr(pg_data_missing_fix(PG_DATA_ARCH), "PTXGATE_ARCH_DATA") != NULL);
}

static void test_environment_comes_first(void **state)
{
    char out[1024];
    setenv("PTXGATE_ARCH_DATA", ROOT "/src/data/arch", 1);
    assert_int_equal(pg_data_resolve(PG_DATA_ARCH, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_ENV);
    assert_string_equal(out, ROOT "/src/data/arch");
    /* The metric lists follow the tables the variable names (../metrics next to them). */
    assert_int_equal(pg_data_resolve(PG_DATA_METRICS, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_ARCH_ENV);
    assert_string_equal(out, ROOT "/src/data/arch/../metrics");
    setenv("PTXGATE_METRICS_DATA", "/elsewhere", 1);
    assert_int_equal(pg_data_resolve(PG_DATA_METRICS, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_ENV);
    assert_string_equal(out, "/elsewhere");
    /* An empty variable counts as unset. */
    setenv("PTXGATE_TASKS", "", 1);
    assert_int_equal(pg_data_resolve(PG_DATA_TASKS, ROOT "/prefix/bin/ptxgate", out, sizeof out),
                     PG_DATA_FROM_INSTALL);
    clear_env();
}

static void test_names(void **state)
{
    assert_string_equal(pg_data_env_name(PG_DATA_ARCH), "PTXGATE_ARCH_DATA");
    assert_string_equal(pg_data_name(PG_DATA_BASELINES), "baselines");
    assert_string_equal(pg_data_origin_name(PG_DATA_FROM_INSTALL), "installed");
    assert_string_equal(pg_data_origin_name(PG_DATA_NOT_FOUND), "not found");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_installed_prefix),
        cmocka_unit_test(test_build_folder_reads_the_source_root_file),
        cmocka_unit_test(test_lone_binary_finds_nothing),
        cmocka_unit_test(test_environment_comes_first),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
