/* Unit tests of GPU keys (gate/model/gpu_key.h): the documented examples of the rule and the
 * refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model/gpu_key.h"

static void expect_key(const char *name, const char *key)
{
    char out[PG_GPU_KEY_MAX];
    bool ok = pg_gpu_key_from_name(name, out, sizeof out);
    if (!ok || strcmp(out, key) != 0)
        fail_msg("'%s' gave %s '%s', expected '%s'", name, ok ? "key" : "no key", out, key);
    assert_true(pg_gpu_key_valid(out));
}

static void test_data_center_names(void **state)
{
    expect_key("NVIDIA H200", "h200-sxm");
    expect_key("NVIDIA H100 80GB HBM3", "h100-sxm");
    expect_key("NVIDIA H100 PCIe", "h100-pcie");
    expect_key("NVIDIA H100 NVL", "h100-nvl");
    expect_key("NVIDIA H200 NVL", "h200-nvl");
    expect_key("NVIDIA A100-SXM4-80GB", "a100-sxm");
    expect_key("NVIDIA A100 80GB PCIe", "a100-pcie");
    expect_key("NVIDIA A100-SXM4-40GB", "a100-sxm");
    expect_key("NVIDIA B200", "b200-sxm");
    expect_key("NVIDIA H20", "h20-sxm");
    /* No form factor rule for other parts: the words as they are. */
    expect_key("NVIDIA GH200 480GB", "gh200");
    expect_key("NVIDIA L40S", "l40s");
}

static void test_other_names(void **state)
{
    expect_key("NVIDIA GeForce RTX 4090", "geforce-rtx-4090");
    expect_key("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada-generation");
    expect_key("Tesla V100-SXM2-16GB", "tesla-v100-sxm");
    expect_key("  weird__name!! ", "weird-name");
}

static void test_refusals(void **state)
{
    char out[PG_GPU_KEY_MAX] = "x";
    assert_false(pg_gpu_key_from_name("", out, sizeof out));
    assert_string_equal(out, "");
    assert_false(pg_gpu_key_from_name("NVIDIA", out, sizeof out));
    assert_false(pg_gpu_key_from_name(NULL, out, sizeof out));
    assert_false(pg_gpu_key_from_name("!!!", out, sizeof out));
    char small[6];
    assert_false(pg_gpu_key_from_name("NVIDIA H200", small, sizeof small)); /* needs 9 bytes */
    assert_false(pg_gpu_key_from_name(
        "a b c d e f g h i j k l m n o p q r s t u v w x y z", out, sizeof out)); /* 26 words */
}

static void test_validity(void **state)
{
    assert_true(pg_gpu_key_valid("h200-sxm"));
    assert_true(pg_gpu_key_valid("lab.gpu_1"));
    assert_false(pg_gpu_key_valid(""));
    assert_false(pg_gpu_key_valid(NULL));
    assert_false(pg_gpu_key_valid("H200"));
    assert_false(pg_gpu_key_valid("-h200"));
    assert_false(pg_gpu_key_valid(".."));
    assert_false(pg_gpu_key_valid("a/b"));
    char long_key[80];
    memset(long_key, 'a', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    assert_false(pg_gpu_key_valid(long_key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_center_names),
        cmocka_unit_test(test_other_names),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_validity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
