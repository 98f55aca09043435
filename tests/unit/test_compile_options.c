/* Unit tests of a manifest's compile options (gate/model/compile_options.h): the nvcc and ptxas
 * flag allowlists, with why each refused flag is refused, and reading the "compile" object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/compile_options.h"

static void nvcc_ok(const char *flag)
{
    char why[256] = "";
    if (!pg_compile_nvcc_flag_check(flag, why, sizeof why))
        fail_msg("'%s' refused: %s", flag, why);
}

static void nvcc_refused(const char *flag, const char *want)
{
    char why[256] = "";
    if (pg_compile_nvcc_flag_check(flag, why, sizeof why))
        fail_msg("'%s' accepted", flag);
    if (!strstr(why, want))
        fail_msg("'%s': why '%s' lacks '%s'", flag, why, want);
}

static void ptxas_ok(const char *flag)
{
    char why[256] = "";
    if (!pg_compile_ptxas_flag_check(flag, why, sizeof why))
        fail_msg("'%s' refused: %s", flag, why);
}

static void ptxas_refused(const char *flag, const char *want)
{
    char why[256] = "";
    if (pg_compile_ptxas_flag_check(flag, why, sizeof why))
        fail_msg("'%s' accepted", flag);
    if (!strstr(why, want))
        fail_msg("'%s': why '%s' lacks '%s'", flag, why, want);
}

static void test_nvcc_allowlist(void **state)
{
    (void)state;
    nvcc_ok("--expt-relaxed-constexpr");
    nvcc_ok("--expt-extended-lambda");
    nvcc_ok("--extended-lambda");
    nvcc_ok("-DBM=128");
    nvcc_ok("-DUSE_TMA");
    nvcc_ok("-DSCALE=-1.5e+3");
    nvcc_ok("-UNDEBUG");
    nvcc_ok("-use_fast_math");
    nvcc_ok("-ftz=true");
    nvcc_ok("--fmad=false");
    nvcc_ok("--diag-suppress=177,550");
    nvcc_ok("-lineinfo");
    const char *out = "names output files";
    nvcc_refused("-o", out);
    nvcc_refused("-o/tmp/x.ptx", out);
    nvcc_refused("--output-file=/tmp/x", out);
    nvcc_refused("-odir", out);
    nvcc_refused("--keep", out);
    nvcc_refused("--keep-dir=/tmp", out);
    nvcc_refused("-MF", out);
    const char *run = "runs or configures other programs";
    nvcc_refused("-run", run);
    nvcc_refused("-ccbin=/tmp/evil", run);
    nvcc_refused("--compiler-bindir=/tmp", run);
    nvcc_refused("-Xcompiler", run);
    nvcc_refused("-Xptxas=-O0", run);
    nvcc_refused("--options-file=/etc/passwd", run);
    const char *arch = "changes the target architecture";
    nvcc_refused("-arch=sm_80", arch);
    nvcc_refused("--gpu-architecture=sm_80", arch);
    nvcc_refused("-gencode=arch=compute_80,code=sm_80", arch);
    nvcc_refused("-code=sm_80", arch);
    const char *inc = "compile.include_dirs";
    nvcc_refused("-I/etc", inc);
    nvcc_refused("-Iinclude", inc);
    nvcc_refused("-isystem=/usr/include", inc);
    nvcc_refused("--include-path=/x", inc);
    nvcc_refused("-include", inc);
    nvcc_refused("-D1BAD", "a macro must be");
    nvcc_refused("-DX=$(rm)", "a macro must be");
    nvcc_refused("-G", "not on the allowlist");
    nvcc_refused("-Werror", "not on the allowlist");
    nvcc_refused("--ftz=maybe", "not on the allowlist");
}

static void test_ptxas_allowlist(void **state)
{
    (void)state;
    ptxas_ok("-maxrregcount=168");
    ptxas_ok("--maxrregcount=255");
    ptxas_ok("-O3");
    ptxas_ok("-dlcm=cg");
    ptxas_ok("--allow-expensive-optimizations=true");
    ptxas_refused("-maxrregcount=8", "from 16 to 255");
    ptxas_refused("-maxrregcount=abc", "from 16 to 255");
    ptxas_refused("-o", "names output files");
    ptxas_refused("--output-file=x", "names output files");
    ptxas_refused("-arch=sm_80", "changes the target architecture");
    ptxas_refused("--gpu-name=sm_80", "changes the target architecture");
    ptxas_refused("-O4", "not on the allowlist of ptxas flags");
}

static pg_status read(const char *text, pg_compile_options *o, pg_diag *d)
{
    json_error_t e;
    json_t *obj = json_loads(text, JSON_DECODE_ANY, &e);
    if (!obj)
        fail_msg("bad test JSON '%s': %s", text, e.text);
    pg_jctx ctx = {.file = "m.json", .path = "compile"};
    pg_diag_clear(d);
    pg_status st = pg_compile_options_from_json(obj, &ctx, o, d);
    json_decref(obj);
    return st;
}

static void expect_error(const char *text, const char *field, const char *want)
{
    pg_compile_options o;
    pg_diag d;
    assert_int_equal(read(text, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "m.json");
    if (strcmp(d.field, field) != 0)
        fail_msg("field '%s', expected '%s' (message: %s)", d.field, field, d.message);
    if (!strstr(d.message, want))
        fail_msg("message '%s' lacks '%s'", d.message, want);
}

static void test_read(void **state)
{
    (void)state;
    pg_compile_options o;
    pg_diag d;
    assert_int_equal(read("{\"std\": \"c++20\", \"flags\": [\"--expt-relaxed-constexpr\", "
                          "\"-DBM=128\"], \"include_dirs\": [\"include\", \"../common\"], "
                          "\"ptxas_flags\": [\"-maxrregcount=168\"]}",
                          &o, &d),
                     PG_OK);
    assert_string_equal(o.std, "c++20");
    assert_int_equal(o.n_flags, 2);
    assert_string_equal(o.flags[1], "-DBM=128");
    assert_int_equal(o.n_include_dirs, 2);
    assert_string_equal(o.include_dirs[1], "../common");
    assert_int_equal(o.n_ptxas_flags, 1);
    assert_int_equal(read("{}", &o, &d), PG_OK);
    assert_string_equal(o.std, "");
    expect_error("{\"flags\": [\"-DBM=128\", \"-o/tmp/x\"]}", "compile.flags[1]",
                 "refused flag '-o/tmp/x': it names output files");
    expect_error("{\"ptxas_flags\": [\"-arch=sm_80\"]}", "compile.ptxas_flags[0]",
                 "refused flag '-arch=sm_80': it changes the target architecture");
    expect_error("{\"std\": \"c++23\"}", "compile.std", "unknown std 'c++23'");
    expect_error("{\"include_dirs\": [\"/usr/include\"]}", "compile.include_dirs[0]",
                 "relative to the manifest's folder");
    expect_error("{\"include_dirs\": [\"\"]}", "compile.include_dirs[0]", "non-empty string");
    expect_error("{\"flags\": \"-DBM=1\"}", "compile.flags", "array");
    expect_error("{\"flag\": []}", "compile.flag", "unknown field");
    expect_error("[]", "compile", "expected a compile object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvcc_allowlist),
        cmocka_unit_test(test_ptxas_allowlist),
        cmocka_unit_test(test_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
