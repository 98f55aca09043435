/* Tests for finding the CUDA tools and for real ptxas and nvcc runs on the fixtures in
 * tests/data/ptx. Tests that need ptxas or nvcc are skipped, with the reason printed, when the
 * tool is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "ptx/signature.h"
#include "tool/assemble.h"
#include "tool/toolchain.h"

#define FIXTURE(name) PG_TEST_DATA "/ptx/" name
#define TMP(name) PG_TEST_TMP "/assemble_" name

static void require_tool(const char *tool)
{
    char path[1024];
    if (!pg_toolchain_find(tool, path, sizeof path)) {
        print_message("skipped: %s not found (set PTXGATE_%s, PATH or CUDA_HOME)\n", tool,
                      strcmp(tool, "ptxas") == 0 ? "PTXAS" : "NVCC");
        skip();
    }
}

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Run with PTXGATE_PTXAS set to value (NULL: unset), restoring the old value afterwards. */
typedef struct {
    char *old;
} env_guard;

static env_guard env_set(const char *value)
{
    env_guard g = {NULL};
    const char *old = getenv("PTXGATE_PTXAS");
    if (old)
        g.old = strdup(old);
    if (value)
        setenv("PTXGATE_PTXAS", value, 1);
    else
        unsetenv("PTXGATE_PTXAS");
    return g;
}

static void env_restore(env_guard *g)
{
    if (g->old)
        setenv("PTXGATE_PTXAS", g->old, 1);
    else
        unsetenv("PTXGATE_PTXAS");
    free(g->old);
}

static void test_toolchain_find(void **state)
{
    (void)state;
    char path[1024];
    assert_false(pg_toolchain_find("gcc", path, sizeof path)); /* not a CUDA tool */
    assert_string_equal(path, "");
    assert_false(pg_toolchain_find(NULL, path, sizeof path));

    env_guard g = env_set("/nonexistent/ptxas"); /* a broken override is final */
    assert_false(pg_toolchain_find("ptxas", path, sizeof path));
    env_restore(&g);

    g = env_set("/bin/sh"); /* any executable file is taken as given */
    assert_true(pg_toolchain_find("ptxas", path, sizeof path));
    assert_string_equal(path, "/bin/sh");
    env_restore(&g);

    require_tool("ptxas");
    assert_true(pg_toolchain_find("ptxas", path, sizeof path));
    assert_int_equal(access(path, X_OK), 0);
    assert_non_null(strstr(path, "ptxas"));
    char tiny[4];
    assert_false(pg_toolchain_find("ptxas", tiny, sizeof tiny)); /* does not fit */
}

/* compute-sanitizer: its variable, and the toolkit's compute-sanitizer/ folder next to bin/. */
static void test_toolchain_find_sanitizer(void **state)
{
    (void)state;
    char path[1024];
    const char *vars[] = {"PTXGATE_COMPUTE_SANITIZER", "CUDA_HOME", "PATH", "PTXGATE_PTXAS"};
    char *old[4];
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(vars[i]);
        old[i] = v ? strdup(v) : NULL;
    }
    setenv("PTXGATE_COMPUTE_SANITIZER", "/bin/sh", 1);
    assert_true(pg_toolchain_find("compute-sanitizer", path, sizeof path));
    assert_string_equal(path, "/bin/sh");
    unsetenv("PTXGATE_COMPUTE_SANITIZER");

    /* A toolkit whose bin/ lacks it but whose compute-sanitizer/ has it. */
    const char *home = TMP("toolkit");
    char dir[512], tool[600];
    snprintf(dir, sizeof dir, "%s/bin", home);
    mkdir(home, 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/compute-sanitizer", home);
    mkdir(dir, 0755);
    snprintf(tool, sizeof tool, "%s/compute-sanitizer", dir);
    FILE *f = fopen(tool, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    chmod(tool, 0755);
    setenv("CUDA_HOME", home, 1);
    setenv("PATH", "/usr/bin:/bin", 1);
    setenv("PTXGATE_PTXAS", "/nonexistent/ptxas", 1);
    assert_true(pg_toolchain_find("compute-sanitizer", path, sizeof path));
    assert_non_null(strstr(path, "toolkit/bin/../compute-sanitizer/compute-sanitizer"));
    unlink(tool);
    for (int i = 0; i < 4; i++) {
        if (old[i])
            setenv(vars[i], old[i], 1);
        else
            unsetenv(vars[i]);
        free(old[i]);
    }
}

static void test_ptxas_version(void **state)
{
    (void)state;
    require_tool("ptxas");
    char v[32];
    assert_true(pg_toolchain_ptxas_version(v, sizeof v));
    print_message("ptxas version %s\n", v);
    unsigned major = 0, minor = 0;
    assert_int_equal(sscanf(v, "%u.%u", &major, &minor), 2);
    assert_true(major >= 11);

    env_guard g = env_set("/nonexistent/ptxas");
    assert_false(pg_toolchain_ptxas_version(v, sizeof v));
    assert_string_equal(v, "");
    env_restore(&g);
}

static void test_assemble_ok(void **state)
{
    (void)state;
    require_tool("ptxas");
    pg_assemble_result r;
    pg_diag d;
    assert_int_equal(pg_assemble_ptx(FIXTURE("multi_entry.ptx"), "sm_90a", TMP("multi.cubin"), NULL,
                                     120.0, &r, &d),
                     PG_OK);
    if (!r.ok)
        print_error("ptxas output:\n%s\n", r.raw_output);
    assert_true(r.ok);
    assert_true(r.tool_found);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_true(file_exists(TMP("multi.cubin")));
    assert_non_null(strstr(r.command, " -arch=sm_90a -v -lineinfo --warn-on-spills -o "));
    assert_non_null(strstr(r.command, "multi_entry.ptx"));
    assert_non_null(r.raw_output);
    assert_int_equal(r.log.n_errors, 0);
    assert_int_equal(r.log.n_entries, 4);
    for (int i = 0; i < r.log.n_entries; i++) {
        assert_true(r.log.entries[i].registers > 0);
        assert_true(r.log.entries[i].registers <= 255);
    }
    assert_true(r.wall_s > 0.0);
    pg_assemble_result_free(&r);
    assert_null(r.raw_output);
    unlink(TMP("multi.cubin"));
}

static void test_assemble_spills(void **state)
{
    (void)state;
    require_tool("ptxas");
    pg_assemble_result r;
    pg_diag d;
    assert_int_equal(pg_assemble_ptx(FIXTURE("spills.ptx"), "sm_90a", TMP("spills.cubin"), NULL,
                                     120.0, &r, &d),
                     PG_OK);
    assert_true(r.ok);
    assert_int_equal(r.log.n_warnings, 1); /* --warn-on-spills */
    assert_int_equal(r.log.n_entries, 1);
    assert_true(r.log.entries[0].registers <= 24); /* .maxnreg 24 */
    assert_true(r.log.entries[0].spill_store_bytes > 0);
    pg_assemble_result_free(&r);
    unlink(TMP("spills.cubin"));
}

static void test_assemble_syntax_error(void **state)
{
    (void)state;
    require_tool("ptxas");
    pg_assemble_result r;
    pg_diag d;
    /* a stale cubin from an earlier run must not count as produced */
    assert_int_equal(pg_file_write_atomic(TMP("bad.cubin"), "stale", 5, &d), PG_OK);
    assert_int_equal(pg_assemble_ptx(FIXTURE("syntax_error.ptx"), "sm_90a", TMP("bad.cubin"), NULL,
                                     120.0, &r, &d),
                     PG_OK);
    assert_false(r.ok);
    assert_true(r.tool_found);
    assert_int_not_equal(r.exit_code, 0);
    assert_false(file_exists(TMP("bad.cubin")));
    assert_true(r.log.n_errors >= 1);
    assert_int_equal(r.log.diags[0].severity, PG_SEV_ERROR);
    assert_int_equal(r.log.diags[0].line, 11);
    assert_non_null(strstr(r.log.diags[0].file, "syntax_error.ptx"));
    assert_non_null(strstr(r.log.diags[0].message, "frobnicate"));
    pg_assemble_result_free(&r);

    assert_int_equal(pg_assemble_ptx(FIXTURE("unknown_symbol.ptx"), "sm_90a", TMP("bad.cubin"), NULL,
                                     120.0, &r, &d),
                     PG_OK);
    assert_false(r.ok);
    assert_int_equal(r.log.diags[1].line, 13);
    assert_string_equal(r.log.diags[1].message, "Unknown symbol '%r9'");
    pg_assemble_result_free(&r);
}

static void test_bad_inputs_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"sm_90a; rm -rf /", "sm90", "compute_90", "sm_9",
                                      "sm_1000", "sm_90b", "sm_90aa", "", "-arch=sm_90",
                                      "sm_90a ", NULL};
    pg_assemble_result r;
    pg_diag d;
    for (int i = 0; bad[i]; i++) {
        pg_diag_clear(&d);
        assert_int_equal(pg_assemble_ptx(FIXTURE("multi_entry.ptx"), bad[i], TMP("x.cubin"), NULL, 10.0,
                                         &r, &d),
                         PG_ERR_INPUT);
        assert_false(r.tool_found);
        assert_false(r.ok);
        assert_null(r.raw_output);
        assert_string_equal(d.field, "arch");
        pg_assemble_result_free(&r);
    }
    assert_int_equal(pg_assemble_ptx(FIXTURE("multi_entry.ptx"), NULL, TMP("x.cubin"), NULL, 10.0, &r,
                                     &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_assemble_ptx("-o/etc/passwd", "sm_90a", TMP("x.cubin"), NULL, 10.0, &r, &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "option"));
    assert_int_equal(pg_compile_cu_to_ptx(FIXTURE("tiny.cu"), "sm_90a", "", NULL, 10.0, &r, &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_compile_cu_to_ptx(FIXTURE("tiny.cu"), "sm_90a && x", TMP("t.ptx"), NULL, 10.0,
                                          &r, &d),
                     PG_ERR_INPUT);
    pg_assemble_result_free(&r);
}

static void test_good_arch_forms_accepted(void **state)
{
    (void)state;
    /* with ptxas hidden, a valid arch gets past validation to the tool lookup */
    static const char *const good[] = {"sm_90", "sm_90a", "sm_100a", "sm_120f", "sm_80", NULL};
    env_guard g = env_set("/nonexistent/ptxas");
    pg_assemble_result r;
    pg_diag d;
    for (int i = 0; good[i]; i++) {
        assert_int_equal(pg_assemble_ptx(FIXTURE("multi_entry.ptx"), good[i], TMP("x.cubin"), NULL,
                                         10.0, &r, &d),
                         PG_ERR_INFRA);
        assert_false(r.tool_found);
        assert_non_null(strstr(d.message, "ptxas not found"));
        assert_non_null(strstr(d.message, "PTXGATE_PTXAS"));
        pg_assemble_result_free(&r);
    }
    env_restore(&g);
}

static void test_nvcc_to_ptx(void **state)
{
    (void)state;
    require_tool("nvcc");
    pg_assemble_result r;
    pg_diag d;
    assert_int_equal(pg_compile_cu_to_ptx(FIXTURE("tiny.cu"), "sm_90a", TMP("tiny.ptx"), NULL, 300.0,
                                          &r, &d),
                     PG_OK);
    if (!r.ok)
        print_error("nvcc output:\n%s\n", r.raw_output);
    assert_true(r.ok);
    assert_non_null(strstr(r.command, "-ptx -arch=sm_90a -lineinfo -o "));

    char *text = NULL;
    pg_ptx_module_info m;
    assert_int_equal(pg_file_read(TMP("tiny.ptx"), 1 << 20, &text, NULL, &d), PG_OK);
    assert_int_equal(pg_ptx_parse_signatures(text, "tiny.ptx", &m, &d), PG_OK);
    assert_string_equal(m.target, "sm_90a");
    const pg_ptx_entry *e = pg_ptx_find_entry(&m, "axpy");
    assert_non_null(e);
    assert_int_equal(e->n_params, 4);
    assert_int_equal(e->params[0].size_bytes, 4); /* float a */
    assert_int_equal(e->params[1].size_bytes, 8); /* const float *x */
    pg_ptx_module_info_free(&m);
    free(text);
    pg_assemble_result_free(&r);

    assert_int_equal(pg_compile_cu_to_ptx(FIXTURE("broken.cu"), "sm_90a", TMP("broken.ptx"), NULL,
                                          300.0, &r, &d),
                     PG_OK);
    assert_false(r.ok);
    assert_int_equal(r.log.n_errors, 1);
    assert_int_equal(r.log.diags[0].line, 4);
    assert_non_null(strstr(r.log.diags[0].file, "broken.cu"));
    pg_assemble_result_free(&r);
    unlink(TMP("tiny.ptx"));
}

/* Extra arguments (a manifest's compile options) go before "-o" and reach the tool: a macro
 * the source needs, and a register limit ptxas reports back in the command. */
static void test_extra_arguments(void **state)
{
    (void)state;
    require_tool("nvcc");
    pg_assemble_result r;
    pg_diag d;
    const char *nv[] = {"-DPG_SCALE=3", "-std=c++17", NULL};
    assert_int_equal(pg_compile_cu_to_ptx(FIXTURE("tiny.cu"), "sm_90a", TMP("extra.ptx"), nv,
                                          300.0, &r, &d),
                     PG_OK);
    assert_true(r.ok);
    assert_non_null(strstr(r.command, "-ptx -arch=sm_90a -lineinfo -DPG_SCALE=3 -std=c++17 -o "));
    pg_assemble_result_free(&r);
    const char *px[] = {"-maxrregcount=32", NULL};
    assert_int_equal(pg_assemble_ptx(FIXTURE("multi_entry.ptx"), "sm_90a", TMP("extra.cubin"), px,
                                     120.0, &r, &d),
                     PG_OK);
    assert_true(r.ok);
    assert_non_null(strstr(r.command, "--warn-on-spills -maxrregcount=32 -o "));
    pg_assemble_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toolchain_find),
        cmocka_unit_test(test_toolchain_find_sanitizer),
        cmocka_unit_test(test_ptxas_version),
        cmocka_unit_test(test_assemble_ok),
        cmocka_unit_test(test_assemble_spills),
        cmocka_unit_test(test_assemble_syntax_error),
        cmocka_unit_test(test_bad_inputs_refused),
        cmocka_unit_test(test_good_arch_forms_accepted),
        cmocka_unit_test(test_nvcc_to_ptx),
        cmocka_unit_test(test_extra_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
