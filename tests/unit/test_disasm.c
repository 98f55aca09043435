/* Unit tests of the disassembler runner (gate/tool/disasm.h) with the fake disassembler
 * (tests/fakes/fake_disassembler.sh) standing in for nvdisasm and cuobjdump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/sass_listing.h"
#include "tool/disasm.h"
#include "tool/toolchain.h"

#include <sys/stat.h>
#include <unistd.h>

#define FAKE PG_TEST_DATA "/../fakes/fake_disassembler.sh"
#define LISTING PG_TEST_DATA "/../fixtures/sass/wgmma_tma_sm90a.nvdisasm.txt"
/* Any existing file stands for the cubin: the fake only checks that it exists. */
#define CUBIN PG_TEST_DATA "/ptx/inventory_traps.ptx"

static int setup(void **state)
{
    (void)state;
    setenv("PG_FAKE_LISTING", LISTING, 1);
    unsetenv("PG_FAKE_EXIT");
    unsetenv("PG_FAKE_SAVE");
    return 0;
}

static void test_nvdisasm(void **state)
{
    (void)state;
    setenv("PTXGATE_NVDISASM", FAKE, 1);
    setenv("PTXGATE_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
    pg_disasm_result r;
    pg_diag d;
    assert_int_equal(pg_disassemble(CUBIN, 30, &r, &d), PG_OK);
    assert_true(r.tool_found && r.ok);
    assert_string_equal(r.tool, "nvdisasm");
    assert_string_equal(r.tool_path, FAKE);
    assert_string_equal(r.command, FAKE " --print-code " CUBIN);
    assert_int_equal(r.exit_code, 0);
    pg_sass_listing l;
    assert_int_equal(pg_sass_listing_parse(r.output, r.output_len, NULL, &l, &d), PG_OK);
    assert_int_equal(pg_sass_listing_count_family(&l, "HGMMA"), 5);
    pg_sass_listing_free(&l);
    pg_disasm_result_free(&r);
    assert_null(r.output);
}

static void test_cuobjdump_fallback(void **state)
{
    (void)state;
    /* a set variable that names no executable makes that tool absent: cuobjdump is next */
    setenv("PTXGATE_NVDISASM", "/nonexistent/nvdisasm", 1);
    setenv("PTXGATE_CUOBJDUMP", FAKE, 1);
    pg_disasm_result r;
    pg_diag d;
    assert_int_equal(pg_disassemble(CUBIN, 30, &r, &d), PG_OK);
    assert_string_equal(r.tool, "cuobjdump");
    assert_string_equal(r.command, FAKE " -sass " CUBIN);
    assert_true(r.ok);
    pg_disasm_result_free(&r);
}

static void test_failures(void **state)
{
    (void)state;
    setenv("PTXGATE_NVDISASM", FAKE, 1);
    pg_disasm_result r;
    pg_diag d;
    setenv("PG_FAKE_EXIT", "3", 1);
    assert_int_equal(pg_disassemble(CUBIN, 30, &r, &d), PG_OK);
    assert_false(r.ok);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.output, "failing on purpose"));
    pg_disasm_result_free(&r);
    unsetenv("PG_FAKE_EXIT");
    /* a missing cubin: the tool runs and fails */
    assert_int_equal(pg_disassemble(PG_TEST_TMP "/no.cubin", 30, &r, &d), PG_OK);
    assert_false(r.ok);
    pg_disasm_result_free(&r);
    assert_int_equal(pg_disassemble("-x.cubin", 30, &r, &d), PG_ERR_INPUT);
    assert_false(r.tool_found);
    /* neither tool */
    setenv("PTXGATE_NVDISASM", "/nonexistent/nvdisasm", 1);
    setenv("PTXGATE_CUOBJDUMP", "/nonexistent/cuobjdump", 1);
    assert_int_equal(pg_disassemble(CUBIN, 30, &r, &d), PG_ERR_INFRA);
    assert_false(r.tool_found);
    assert_non_null(strstr(d.message, "no disassembler"));
    assert_non_null(strstr(d.message, "PTXGATE_NVDISASM"));
    pg_disasm_result_free(&r);
}

static void test_tools_venv_location(void **state)
{
    (void)state;
    char bin[4096];
    /* the documented order: PTXGATE_TOOLS_VENV, XDG_CACHE_HOME, HOME */
    setenv("PTXGATE_TOOLS_VENV", "/opt/v", 1);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_true(pg_toolchain_tools_venv_bin(bin, sizeof bin));
    assert_string_equal(bin, "/opt/v/bin");
    unsetenv("PTXGATE_TOOLS_VENV");
    assert_true(pg_toolchain_tools_venv_bin(bin, sizeof bin));
    assert_string_equal(bin, "/x/cache/ptxgate/tools-venv/bin");
    unsetenv("XDG_CACHE_HOME");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/h", 1);
    assert_true(pg_toolchain_tools_venv_bin(bin, sizeof bin));
    assert_string_equal(bin, "/h/.cache/ptxgate/tools-venv/bin");
    unsetenv("HOME");
    assert_false(pg_toolchain_tools_venv_bin(bin, sizeof bin));
    assert_string_equal(bin, "");

    /* A venv holding only a cuobjdump (the fake): found there when the toolkit has none, and
     * only for the disassemblers (a ptxas in the venv is never used). */
    char venv[4096], link[4200];
    snprintf(venv, sizeof venv, "%s/venv-disasm", PG_TEST_TMP);
    snprintf(link, sizeof link, "%s/bin", venv);
    mkdir(venv, 0755);
    mkdir(link, 0755);
    snprintf(link, sizeof link, "%s/bin/cuobjdump", venv);
    unlink(link);
    assert_int_equal(symlink(FAKE, link), 0);
    snprintf(link, sizeof link, "%s/bin/ptxas", venv);
    unlink(link);
    assert_int_equal(symlink(FAKE, link), 0);
    setenv("PTXGATE_TOOLS_VENV", venv, 1);
    unsetenv("PTXGATE_NVDISASM");
    unsetenv("PTXGATE_CUOBJDUMP");
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    setenv("CUDA_HOME", "/nonexistent", 1);
    char found[4096], tool[16], version[64];
    bool ok = pg_toolchain_find("cuobjdump", found, sizeof found);
    snprintf(link, sizeof link, "%s/bin/cuobjdump", venv);
    /* /usr/local/cuda/bin and the folder of ptxas come first when they hold one */
    assert_true(ok);
    if (strncmp(found, "/usr/local/cuda/", 16) != 0)
        assert_string_equal(found, link);
    if (!pg_toolchain_find("ptxas", found, sizeof found))
        assert_string_equal(found, "");
    else
        assert_null(strstr(found, "venv-disasm"));
    /* what the results record: with nvdisasm made absent, cuobjdump */
    setenv("PTXGATE_NVDISASM", "/nonexistent", 1);
    assert_true(pg_toolchain_disassembler(tool, sizeof tool, version, sizeof version));
    assert_string_equal(tool, "cuobjdump");
    setenv("PTXGATE_CUOBJDUMP", "/nonexistent", 1);
    setenv("PTXGATE_NVDISASM", "/nonexistent", 1);
    assert_false(pg_toolchain_disassembler(tool, sizeof tool, version, sizeof version));
    assert_string_equal(tool, "");
    assert_string_equal(version, "");
    if (path)
        setenv("PATH", path, 1);
    if (home)
        setenv("HOME", home, 1);
    unsetenv("CUDA_HOME");
    unsetenv("PTXGATE_TOOLS_VENV");
    free(path);
    free(home);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_nvdisasm, setup),
        cmocka_unit_test_setup(test_cuobjdump_fallback, setup),
        cmocka_unit_test_setup(test_failures, setup),
        cmocka_unit_test_setup(test_tools_venv_location, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
