/* Tests for the device-heap call finder: nvcc's multi-line call sequences, calls without a
 * return value, other callees, declarations without calls, and comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptx/heap_calls.h"

static void test_nvcc_malloc_call(void **state)
{
    (void)state;
    /* The shape nvcc 13 emits for device malloc: the callee on its own line. */
    const char *ptx = ".version 8.0\n"
                      ".target sm_90a\n"
                      ".extern .func  (.param .b64 func_retval0) malloc\n"
                      "(\n"
                      "\t.param .b64 malloc_param_0\n"
                      ");\n"
                      ".visible .entry k(.param .u64 out)\n"
                      "{\n"
                      "\t{ // callseq 0, 0\n"
                      "\t.param .b64 param0;\n"
                      "\t.param .b64 retval0;\n"
                      "\tcall.uni (retval0), \n"
                      "\tmalloc, \n"
                      "\t(\n"
                      "\tparam0\n"
                      "\t);\n"
                      "\t}\n"
                      "}\n";
    char callee[64];
    int line = 0;
    assert_true(pg_ptx_find_heap_call(ptx, callee, sizeof callee, &line));
    assert_string_equal(callee, "malloc");
    assert_int_equal(line, 13);
}

static void test_free_without_return(void **state)
{
    (void)state;
    const char *ptx = "{\n  call.uni\n  free,\n  (param0);\n}\n";
    char callee[64];
    int line = 0;
    assert_true(pg_ptx_find_heap_call(ptx, callee, sizeof callee, &line));
    assert_string_equal(callee, "free");
    assert_int_equal(line, 3);
}

static void test_no_heap_call(void **state)
{
    (void)state;
    char callee[64] = "";
    int line = 0;
    /* Declarations alone, other callees, names that merely contain "malloc", comments. */
    const char *ptx = ".extern .func (.param .b64 r) malloc(.param .b64 p);\n"
                      "call.uni (retval0), vprintf, (param0, param1);\n"
                      "call my_malloc_like, (p);\n"
                      "// call.uni (r), malloc, (p);\n"
                      "/* call free, (p); */\n"
                      ".file 1 \"call malloc.cu\"\n"
                      "mov.u64 %rd1, malloc_param_0;\n";
    assert_false(pg_ptx_find_heap_call(ptx, callee, sizeof callee, &line));
    assert_false(pg_ptx_find_heap_call("", callee, sizeof callee, &line));
}

static void test_aligned_malloc(void **state)
{
    (void)state;
    char callee[64];
    int line = 0;
    assert_true(pg_ptx_find_heap_call("call (r), __nv_aligned_device_malloc, (a, b);", callee,
                                      sizeof callee, &line));
    assert_string_equal(callee, "__nv_aligned_device_malloc");
    assert_int_equal(line, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvcc_malloc_call),
        cmocka_unit_test(test_free_without_return),
        cmocka_unit_test(test_no_heap_call),
        cmocka_unit_test(test_aligned_malloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
