/* Unit tests of the refusals checked before assembly (gate/ptx/refusals.h): dynamic
 * parallelism in the forms nvcc 13 and older toolkits emit, other device runtime calls,
 * unresolved externals, and what ptxas resolves itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ptx/inventory.h"
#include "ptx/refusals.h"

static pg_status check(const char *text, pg_diag *d)
{
    pg_ptx_inventory inv;
    char buf[2048];
    pg_diag_clear(d);
    if (pg_ptx_inventory_build(text, strlen(text), "k.ptx", &inv, d) != PG_OK)
        fail_msg("inventory: %s", pg_diag_format(d, buf, sizeof buf));
    pg_status st = pg_ptx_check_refusals(&inv, "k.ptx", d);
    pg_ptx_inventory_free(&inv);
    return st;
}

static void expect_refused(const char *text, long line, const char *part1, const char *part2)
{
    pg_diag d;
    assert_int_equal(check(text, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "k.ptx");
    if (d.line != line || !strstr(d.message, part1) || !strstr(d.message, part2))
        fail_msg("line %ld '%s'; expected line %ld with '%s' and '%s'", d.line, d.message, line,
                 part1, part2);
}

/* The shape nvcc 13 gives a device-side <<<...>>> (compiled with -rdc=true): declarations,
 * then calls spanning lines. */
static const char k_cdp2[] =
    ".version 9.0\n.target sm_90a\n.address_size 64\n"
    ".extern .func  (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2\n"
    "(\n\t.param .b64 p0,\n\t.param .b64 p1,\n\t.param .b64 p2\n)\n;\n"
    ".extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2\n"
    "(\n\t.param .b64 p0,\n\t.param .b64 p1\n)\n;\n"
    ".visible .entry parent(.param .u64 p)\n{\n"
    "\t.param .b64 param0;\n\t.param .b64 retval0;\n"
    "\tcall.uni (retval0),\n\t__cudaCDP2GetParameterBufferV2,\n\t(\n\tparam0\n\t);\n"
    "\tcall.uni (retval0), __cudaCDP2LaunchDeviceV2, (param0);\n"
    "\tret;\n}\n";

static void test_dynamic_parallelism(void **state)
{
    (void)state;
    expect_refused(k_cdp2, 4, "dynamic parallelism is not supported",
                   "'__cudaCDP2GetParameterBufferV2'");
    expect_refused(".extern .func (.param .b32 r) cudaLaunchDevice (.param .b64 a);\n"
                   ".entry k()\n{\n call (r), cudaLaunchDevice, (a);\n ret;\n}\n",
                   1, "dynamic parallelism", "Launch every kernel from the manifest");
    /* the device-launch explanation wins over an unresolved helper declared earlier */
    expect_refused(".extern .func helper ();\n"
                   ".extern .func (.param .b64 r) cudaGetParameterBufferV2 (.param .b64 a);\n"
                   ".entry k()\n{\n call helper, ();\n call (r), cudaGetParameterBufferV2, (a);\n}\n",
                   2, "dynamic parallelism", "cudaGetParameterBufferV2");
    /* a function address (mov) is a use too */
    expect_refused(".extern .func cudaLaunchDeviceV2 ();\n"
                   ".entry k()\n{\n mov.u64 %rd1, cudaLaunchDeviceV2;\n ret;\n}\n",
                   1, "dynamic parallelism", "cudaLaunchDeviceV2");
}

static void test_device_runtime(void **state)
{
    (void)state;
    expect_refused(".extern .func (.param .b32 r) cudaDeviceSynchronize ();\n"
                   ".entry k()\n{\n call.uni (r), cudaDeviceSynchronize, ();\n}\n",
                   1, "'cudaDeviceSynchronize' is a CUDA device runtime function", "without linking");
}

static void test_unresolved(void **state)
{
    (void)state;
    expect_refused(".version 9.0\n.target sm_90a\n.address_size 64\n"
                   ".extern .func (.param .b32 r) my_helper\n(\n .param .b32 x\n)\n;\n"
                   ".entry k()\n{\n call (r), my_helper, (1);\n ret;\n}\n",
                   4, "unresolved external function 'my_helper'", "Define it in the PTX");
}

static void test_accepted(void **state)
{
    (void)state;
    pg_diag d;
    /* what printf, malloc/free and assert leave in nvcc's output: ptxas provides them */
    assert_int_equal(check(".extern .func (.param .b32 r) vprintf (.param .b64 a, .param .b64 b);\n"
                           ".extern .func (.param .b64 r) malloc (.param .b64 a);\n"
                           ".extern .func free (.param .b64 a);\n"
                           ".extern .func __assertfail (.param .b64 a);\n"
                           ".extern .shared .align 16 .b8 smem[];\n"
                           ".entry k()\n{\n ret;\n}\n",
                           &d),
                     PG_OK);
    /* declared and never used: ptxas ignores it (it assembles), so it is accepted */
    assert_int_equal(check(".extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 a);\n"
                           ".extern .func my_helper ();\n.entry k()\n{\n ret;\n}\n",
                           &d),
                     PG_OK);
    /* declared .extern, defined later in the module: resolved */
    assert_int_equal(check(".extern .func h ();\n.entry k()\n{\n call h, ();\n}\n"
                           ".func h ()\n{\n ret;\n}\n",
                           &d),
                     PG_OK);
    /* a forward declaration without .extern is not an external */
    assert_int_equal(check(".func g ();\n", &d), PG_OK);
    /* device runtime names only in comments and strings */
    assert_int_equal(check("// .extern .func cudaLaunchDevice ();\n"
                           ".pragma \"cudaLaunchDevice\";\n.entry k()\n{\n ret;\n}\n",
                           &d),
                     PG_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_parallelism),
        cmocka_unit_test(test_device_runtime),
        cmocka_unit_test(test_unresolved),
        cmocka_unit_test(test_accepted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
