/* Tests for the ptxas log parser on outputs recorded from the real ptxas 13.0 and nvcc 13.0 (the
 * .log files in tests/data/ptx; README.md there says how), plus the driver JIT form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "ptx/ptxas_log.h"

static void parse_fixture(const char *name, pg_ptxas_log *l)
{
    char path[1024];
    char *text = NULL;
    pg_diag d;
    pg_path_join(path, sizeof path, PG_TEST_DATA "/ptx", name);
    assert_int_equal(pg_file_read(path, 1 << 20, &text, NULL, &d), PG_OK);
    assert_int_equal(pg_ptxas_log_parse(text, l), PG_OK);
    free(text);
}

static const pg_ptxas_entry_usage *usage(const pg_ptxas_log *l, const char *entry)
{
    for (int i = 0; i < l->n_entries; i++)
        if (strcmp(l->entries[i].entry, entry) == 0)
            return &l->entries[i];
    fail_msg("no usage for entry '%s'", entry);
    return NULL;
}

static void test_valid_multi_entry(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("multi_entry.log", &l);
    assert_int_equal(l.n_errors, 0);
    assert_int_equal(l.n_warnings, 0);
    assert_int_equal(l.n_entries, 4);
    assert_string_equal(l.entries[0].entry, "no_params"); /* ptxas reports in reverse order */
    const pg_ptxas_entry_usage *e = usage(&l, "scale");
    assert_int_equal(e->registers, 8);
    assert_int_equal(e->barriers, 0);
    assert_int_equal(e->shared_bytes, 0);
    assert_int_equal(e->stack_frame_bytes, 0);
    assert_int_equal(usage(&l, "empty_kernel")->registers, 4);
    assert_int_equal(usage(&l, "tma_copy")->registers, 8);
    assert_true(l.n_diags > 0);
    for (int i = 0; i < l.n_diags; i++)
        assert_int_equal(l.diags[i].severity, PG_SEV_INFO);
    assert_string_equal(l.diags[1].message, "Compiling entry function 'no_params' for 'sm_90a'");
    pg_ptxas_log_free(&l);
    assert_int_equal(l.n_entries, 0);
}

static void test_unknown_symbol(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("unknown_symbol.log", &l);
    assert_int_equal(l.n_diags, 3);
    assert_int_equal(l.n_errors, 3); /* two located errors and the fatal summary */
    assert_int_equal(l.n_entries, 0);
    assert_int_equal(l.diags[1].severity, PG_SEV_ERROR);
    assert_int_equal(l.diags[1].line, 13);
    assert_string_equal(l.diags[1].file, "unknown_symbol.ptx");
    assert_string_equal(l.diags[1].message, "Unknown symbol '%r9'");
    assert_int_equal(l.diags[0].line, 13);
    assert_string_equal(l.diags[0].message, "Arguments mismatch for instruction 'mov'");
    assert_int_equal(l.diags[2].severity, PG_SEV_ERROR);
    assert_int_equal(l.diags[2].line, 0);
    assert_string_equal(l.diags[2].file, "");
    assert_string_equal(l.diags[2].message, "Ptx assembly aborted due to errors");
    pg_ptxas_log_free(&l);
}

static void test_syntax_error(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("syntax_error.log", &l);
    assert_int_equal(l.n_errors, 2);
    assert_int_equal(l.diags[0].line, 11);
    assert_string_equal(l.diags[0].message,
                        "Not a name of any known instruction: 'frobnicate'");
    pg_ptxas_log_free(&l);
}

static void test_spills(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("spills.log", &l);
    assert_int_equal(l.n_errors, 0);
    assert_int_equal(l.n_warnings, 1);
    assert_int_equal(l.diags[0].severity, PG_SEV_WARNING);
    assert_int_equal(l.diags[0].line, 0);
    assert_non_null(strstr(l.diags[0].message, "Registers are spilled to local memory in "
                                               "function 'spilly'"));
    assert_int_equal(l.n_entries, 1);
    const pg_ptxas_entry_usage *e = usage(&l, "spilly");
    assert_int_equal(e->registers, 24);
    assert_int_equal(e->stack_frame_bytes, 136);
    assert_int_equal(e->spill_store_bytes, 132);
    assert_int_equal(e->spill_load_bytes, 196);
    pg_ptxas_log_free(&l);
}

static void test_smem_barriers_cmem(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("smem_sm80.log", &l);
    const pg_ptxas_entry_usage *e = usage(&l, "reverse");
    assert_int_equal(e->registers, 10);
    assert_int_equal(e->barriers, 1);
    assert_int_equal(e->shared_bytes, 4096);
    assert_int_equal(e->constant0_bytes, 360);
    pg_ptxas_log_free(&l);
}

static void test_located_warnings(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("double_use.log", &l);
    assert_int_equal(l.n_warnings, 3);
    assert_int_equal(l.n_errors, 0);
    assert_int_equal(l.diags[0].severity, PG_SEV_WARNING);
    assert_int_equal(l.diags[0].line, 15);
    assert_int_equal(l.diags[2].line, 16);
    assert_string_equal(l.diags[2].file, "double_use.ptx");
    assert_int_equal(usage(&l, "widen")->registers, 8);
    pg_ptxas_log_free(&l);
}

static void test_func_properties_do_not_leak(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("device_func.log", &l);
    assert_int_equal(l.n_entries, 1); /* _Z6helperPfi is a .func, not an entry */
    const pg_ptxas_entry_usage *e = usage(&l, "callk");
    assert_int_equal(e->registers, 32);
    assert_int_equal(e->stack_frame_bytes, 64); /* not overwritten by the helper's 0 */
    pg_ptxas_log_free(&l);
}

static void test_nvcc_front_end(void **state)
{
    (void)state;
    pg_ptxas_log l;
    parse_fixture("nvcc_broken.log", &l);
    assert_int_equal(l.n_errors, 1);
    assert_int_equal(l.n_diags, 1);
    assert_string_equal(l.diags[0].file, "broken.cu");
    assert_int_equal(l.diags[0].line, 4);
    assert_string_equal(l.diags[0].message, "identifier \"undeclared_value\" is undefined");
    pg_ptxas_log_free(&l);
    assert_int_equal(pg_ptxas_log_parse("k.cu(12): warning #177-D: variable \"x\" was declared "
                                        "but never referenced\r\n",
                                        &l),
                     PG_OK);
    assert_int_equal(l.n_warnings, 1);
    assert_int_equal(l.diags[0].line, 12);
    assert_string_equal(l.diags[0].message, "variable \"x\" was declared but never referenced");
    pg_ptxas_log_free(&l);
}

/* The driver JIT's error log uses the same lines with "application ptx input" as the file
 * (measurements on the H200 test machine, "PTX -> cubin"). Written by hand: the JIT needs a GPU. */
static void test_driver_jit_form(void **state)
{
    (void)state;
    const char *text = "ptxas application ptx input, line 8; error   : Unknown symbol 'r9'\n"
                       "ptxas fatal   : Ptx assembly aborted due to errors\n"
                       "ptxas info    : Used 168 registers, used 1 barriers, 32768 bytes smem, "
                       "400 bytes cmem[0]\n";
    pg_ptxas_log l;
    assert_int_equal(pg_ptxas_log_parse(text, &l), PG_OK);
    assert_int_equal(l.n_errors, 2);
    assert_string_equal(l.diags[0].file, "application ptx input");
    assert_int_equal(l.diags[0].line, 8);
    assert_string_equal(l.diags[0].message, "Unknown symbol 'r9'");
    assert_int_equal(l.n_entries, 1);
    assert_string_equal(l.entries[0].entry, "");
    assert_int_equal(l.entries[0].registers, 168);
    assert_int_equal(l.entries[0].barriers, 1);
    assert_int_equal(l.entries[0].shared_bytes, 32768);
    assert_int_equal(l.entries[0].constant0_bytes, 400);
    pg_ptxas_log_free(&l);
}

static void test_empty_and_junk(void **state)
{
    (void)state;
    pg_ptxas_log l;
    assert_int_equal(pg_ptxas_log_parse("", &l), PG_OK);
    assert_int_equal(l.n_diags, 0);
    pg_ptxas_log_free(&l);
    assert_int_equal(pg_ptxas_log_parse("hello\nptxas\nptxas x, line ; error : y\n"
                                        "    12 bytes stack frame\n",
                                        &l),
                     PG_OK);
    assert_int_equal(l.n_diags, 0);
    assert_int_equal(l.n_entries, 0);
    pg_ptxas_log_free(&l);
    assert_int_equal(pg_ptxas_log_parse(NULL, &l), PG_OK);
    pg_ptxas_log_free(&l);
}

static void test_version(void **state)
{
    (void)state;
    char path[1024], *text = NULL, v[32];
    pg_diag d;
    pg_path_join(path, sizeof path, PG_TEST_DATA "/ptx", "ptxas_version.log");
    assert_int_equal(pg_file_read(path, 1 << 20, &text, NULL, &d), PG_OK);
    assert_true(pg_ptxas_parse_version(text, v, sizeof v));
    assert_string_equal(v, "13.0.88");
    free(text);
    assert_true(pg_ptxas_parse_version("Cuda compilation tools, release 12.4, V12.4.131\n", v,
                                       sizeof v));
    assert_string_equal(v, "12.4.131");
    assert_true(pg_ptxas_parse_version("Cuda compilation tools, release 12.4\n", v, sizeof v));
    assert_string_equal(v, "12.4");
    assert_false(pg_ptxas_parse_version("ptxas: command not found\n", v, sizeof v));
    assert_string_equal(v, "");
    assert_true(pg_ptxas_parse_version("release 13.0, V13.0.88", v, 5));
    assert_string_equal(v, "13.0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_multi_entry),
        cmocka_unit_test(test_unknown_symbol),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_spills),
        cmocka_unit_test(test_smem_barriers_cmem),
        cmocka_unit_test(test_located_warnings),
        cmocka_unit_test(test_func_properties_do_not_leak),
        cmocka_unit_test(test_nvcc_front_end),
        cmocka_unit_test(test_driver_jit_form),
        cmocka_unit_test(test_empty_and_junk),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
