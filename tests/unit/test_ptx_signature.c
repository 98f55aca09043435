/* Tests for the .entry signature parser on PTX fixtures (tests/data/ptx) and on small inline texts
 * for the error cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "ptx/signature.h"

static char *read_fixture(const char *name)
{
    char path[1024];
    char *text = NULL;
    pg_diag d;
    pg_path_join(path, sizeof path, PG_TEST_DATA "/ptx", name);
    assert_int_equal(pg_file_read(path, 1 << 20, &text, NULL, &d), PG_OK);
    return text;
}

static void parse_ok(const char *text, pg_ptx_module_info *m)
{
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_ptx_parse_signatures(text, "inline.ptx", m, &d);
    if (st != PG_OK)
        print_error("unexpected error: %s:%ld: %s\n", d.file, d.line, d.message);
    assert_int_equal(st, PG_OK);
}

/* Parse text that must fail; returns the diagnostic. */
static pg_diag parse_fails(const char *text)
{
    pg_ptx_module_info m;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_ptx_parse_signatures(text, "bad.ptx", &m, &d), PG_ERR_INPUT);
    assert_int_equal(m.n_entries, 0);
    assert_null(m.entries);
    assert_string_equal(d.file, "bad.ptx");
    return d;
}

static void test_module_directives(void **state)
{
    (void)state;
    char *text = read_fixture("multi_entry.ptx");
    pg_ptx_module_info m;
    parse_ok(text, &m);
    assert_string_equal(m.version, "8.7");
    assert_int_equal(m.version_line, 9);
    assert_string_equal(m.target, "sm_90a");
    assert_string_equal(m.targets_raw, "sm_90a");
    assert_int_equal(m.target_line, 10);
    assert_int_equal(m.address_size, 64);
    assert_false(m.uses_device_runtime);
    pg_ptx_module_info_free(&m);
    free(text);
}

static void test_entries_and_comments(void **state)
{
    (void)state;
    char *text = read_fixture("multi_entry.ptx");
    pg_ptx_module_info m;
    parse_ok(text, &m);
    /* the .func helper and the ".entry fake(" / ".entry also_fake(" in comments are not entries */
    assert_int_equal(m.n_entries, 4);
    assert_string_equal(m.entries[0].name, "scale");
    assert_string_equal(m.entries[1].name, "tma_copy");
    assert_string_equal(m.entries[2].name, "empty_kernel");
    assert_string_equal(m.entries[3].name, "no_params");
    assert_null(pg_ptx_find_entry(&m, "fake"));
    assert_null(pg_ptx_find_entry(&m, "also_fake"));
    assert_null(pg_ptx_find_entry(&m, "helper"));
    assert_ptr_equal(pg_ptx_find_entry(&m, "tma_copy"), &m.entries[1]);
    assert_true(m.entries[0].visible);
    assert_false(m.entries[2].visible);
    assert_int_equal(m.entries[0].line, 19);
    assert_int_equal(m.entries[2].n_params, 0);
    assert_int_equal(m.entries[3].n_params, 0);
    pg_ptx_module_info_free(&m);
    assert_int_equal(m.n_entries, 0);
    free(text);
}

static void test_scalar_params_and_reqntid(void **state)
{
    (void)state;
    char *text = read_fixture("multi_entry.ptx");
    pg_ptx_module_info m;
    parse_ok(text, &m);
    const pg_ptx_entry *e = pg_ptx_find_entry(&m, "scale");
    assert_non_null(e);
    assert_int_equal(e->n_params, 3);
    assert_string_equal(e->params[0].name, "scale_param_0");
    assert_string_equal(e->params[0].type, ".u64");
    assert_int_equal(e->params[0].size_bytes, 8);
    assert_int_equal(e->params[0].align_bytes, 8);
    assert_int_equal(e->params[0].array_len, 0);
    assert_int_equal(e->params[0].line, 20);
    assert_string_equal(e->params[1].type, ".u32");
    assert_int_equal(e->params[1].size_bytes, 4);
    assert_int_equal(e->params[1].align_bytes, 4);
    assert_int_equal(e->params[1].line, 21);
    assert_string_equal(e->params[2].type, ".f32");
    assert_int_equal(e->reqntid[0], 128);
    assert_int_equal(e->reqntid[1], 1);
    assert_int_equal(e->reqntid[2], 1);
    assert_int_equal(e->maxntid[0], 0);
    const pg_ptx_entry *n = pg_ptx_find_entry(&m, "no_params");
    assert_int_equal(n->reqntid[0], 0); /* .maxnreg only */
    assert_int_equal(n->maxntid[0], 0);
    pg_ptx_module_info_free(&m);
    free(text);
}

static void test_tensor_map_and_ptr_params(void **state)
{
    (void)state;
    char *text = read_fixture("multi_entry.ptx");
    pg_ptx_module_info m;
    parse_ok(text, &m);
    const pg_ptx_entry *e = pg_ptx_find_entry(&m, "tma_copy");
    assert_non_null(e);
    assert_int_equal(e->n_params, 5);
    /* .param .align 128 .b8 tma_copy_param_0[128] */
    assert_string_equal(e->params[0].type, ".b8");
    assert_int_equal(e->params[0].size_bytes, 128);
    assert_int_equal(e->params[0].align_bytes, 128);
    assert_int_equal(e->params[0].array_len, 128);
    /* .u64 .ptr .global .align 16: the .align is the pointee's, the parameter is a plain u64 */
    for (int i = 1; i <= 2; i++) {
        assert_string_equal(e->params[i].type, ".u64");
        assert_int_equal(e->params[i].size_bytes, 8);
        assert_int_equal(e->params[i].align_bytes, 8);
        assert_int_equal(e->params[i].array_len, 0);
    }
    assert_string_equal(e->params[2].name, "tma_copy_param_2");
    assert_int_equal(e->params[3].size_bytes, 2);
    assert_int_equal(e->params[4].size_bytes, 24);
    assert_int_equal(e->params[4].align_bytes, 8);
    assert_int_equal(e->maxntid[0], 256);
    assert_int_equal(e->maxntid[1], 1);
    assert_int_equal(e->maxntid[2], 1);
    assert_int_equal(e->reqntid[0], 0);
    pg_ptx_module_info_free(&m);
    free(text);
}

static void test_nvcc_output_with_func(void **state)
{
    (void)state;
    char *text = read_fixture("device_func.ptx");
    pg_ptx_module_info m;
    parse_ok(text, &m);
    assert_string_equal(m.version, "9.0");
    assert_int_equal(m.n_entries, 1);
    assert_string_equal(m.entries[0].name, "callk");
    assert_int_equal(m.entries[0].n_params, 2);
    assert_string_equal(m.entries[0].params[1].type, ".u32");
    assert_null(pg_ptx_find_entry(&m, "_Z6helperPfi"));
    pg_ptx_module_info_free(&m);
    free(text);
}

static void test_inline_forms(void **state)
{
    (void)state;
    const char *text =
        ".version 8.0\n"
        ".target sm_90a, debug\n"
        "// a string may hold anything: \".entry nope(\"\n"
        ".file 1 \"/tmp/a \\\" .entry x( .cu\"\n"
        ".extern .entry declared(.param .u32 a);\n"
        ".weak .entry w(.param .s16 a, .param .b8 grid[2][3], .param .pred p)\n"
        ".maxntid 64, 2\n"
        ".reqnctapercluster 2, 1, 1\n"
        ".explicitcluster\n"
        ".maxclusterrank 8\n"
        ".pragma \"nounroll\";\n"
        "{ { } call.uni cudaLaunchDeviceV2, (a); }\n"
        ".visible .entry after/* no space */(.param .f64 d)\n"
        "{ ret; }\n";
    pg_ptx_module_info m;
    parse_ok(text, &m);
    assert_string_equal(m.target, "sm_90a");
    assert_string_equal(m.targets_raw, "sm_90a, debug");
    assert_int_equal(m.address_size, 0);
    assert_int_equal(m.n_entries, 2);
    const pg_ptx_entry *w = &m.entries[0];
    assert_string_equal(w->name, "w");
    assert_false(w->visible);
    assert_int_equal(w->line, 6);
    assert_int_equal(w->n_params, 3);
    assert_int_equal(w->params[0].size_bytes, 2);
    assert_int_equal(w->params[1].array_len, 6);
    assert_int_equal(w->params[1].size_bytes, 6);
    assert_int_equal(w->params[1].align_bytes, 1);
    assert_int_equal(w->params[2].size_bytes, 1);
    assert_int_equal(w->maxntid[0], 64);
    assert_int_equal(w->maxntid[1], 2);
    assert_int_equal(w->maxntid[2], 1);
    assert_true(m.entries[1].visible);
    assert_int_equal(m.entries[1].line, 13);
    assert_int_equal(m.entries[1].params[0].size_bytes, 8);
    assert_true(m.uses_device_runtime);
    assert_null(pg_ptx_find_entry(&m, "declared"));
    pg_ptx_module_info_free(&m);
}

static void test_no_entries_is_ok(void **state)
{
    (void)state;
    pg_ptx_module_info m;
    parse_ok(".version 8.7\n.target sm_90a\n.func f() { ret; }\n", &m);
    assert_int_equal(m.n_entries, 0);
    assert_null(pg_ptx_find_entry(&m, "f"));
    pg_ptx_module_info_free(&m);
    parse_ok("", &m);
    assert_string_equal(m.version, "");
    assert_int_equal(m.version_line, 0);
    pg_ptx_module_info_free(&m);
}

static void test_malformed_list_fixture(void **state)
{
    (void)state;
    char *text = read_fixture("malformed_params.ptx");
    pg_ptx_module_info m;
    pg_diag d;
    assert_int_equal(pg_ptx_parse_signatures(text, "malformed_params.ptx", &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "malformed_params.ptx");
    assert_int_equal(d.line, 8); /* the second .param, after a missing ',' */
    assert_non_null(strstr(d.message, "malformed .param list"));
    assert_non_null(strstr(d.message, "'k_param_0'"));
    assert_non_null(strstr(d.message, "'.param'"));
    free(text);
}

static void test_errors_carry_lines(void **state)
{
    (void)state;
    pg_diag d = parse_fails(".version 8.7\n/* never\nclosed\n");
    assert_int_equal(d.line, 2);
    assert_non_null(strstr(d.message, "unterminated comment"));

    d = parse_fails(".entry k(\n.param .u64 a,\n.param .u32 b\n{\nret;\n}\n");
    assert_int_equal(d.line, 4);
    assert_non_null(strstr(d.message, "missing ')'"));
    assert_non_null(strstr(d.message, "line 1"));

    d = parse_fails(".entry k(.param .u64 a");
    assert_non_null(strstr(d.message, "missing ')'"));

    d = parse_fails(".entry k(\n.param .u64 a,\n)\n{ }\n");
    assert_int_equal(d.line, 3); /* trailing comma */

    d = parse_fails(".entry k(\n.param .u48 a\n)\n{ }\n");
    assert_int_equal(d.line, 2);
    assert_non_null(strstr(d.message, "'.u48'"));

    d = parse_fails(".entry k(.param a) { }\n");
    assert_non_null(strstr(d.message, "has no type"));

    d = parse_fails(".entry k(.param .b8 a[]) { }\n");
    assert_non_null(strstr(d.message, "array length"));

    d = parse_fails(".entry k(.param .align 3 .b8 a[4]) { }\n");
    assert_non_null(strstr(d.message, "power of two"));

    d = parse_fails(".entry k() { }\n.entry k() { }\n");
    assert_int_equal(d.line, 2);
    assert_non_null(strstr(d.message, "defined twice"));

    d = parse_fails(".entry k()\n.reqntid x\n{ }\n");
    assert_int_equal(d.line, 2);

    d = parse_fails(".entry k() {\nret;\n");
    assert_int_equal(d.line, 1);
    assert_non_null(strstr(d.message, "missing '}'"));

    d = parse_fails(".entry k() { }\n}\n");
    assert_int_equal(d.line, 2);

    d = parse_fails(".file 1 \"open\n");
    assert_non_null(strstr(d.message, "unterminated string"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_directives),
        cmocka_unit_test(test_entries_and_comments),
        cmocka_unit_test(test_scalar_params_and_reqntid),
        cmocka_unit_test(test_tensor_map_and_ptr_params),
        cmocka_unit_test(test_nvcc_output_with_func),
        cmocka_unit_test(test_inline_forms),
        cmocka_unit_test(test_no_entries_is_ok),
        cmocka_unit_test(test_malformed_list_fixture),
        cmocka_unit_test(test_errors_carry_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
