/* Unit tests of SHA-256 content hashes (gate/base/digest.h) against the FIPS 180-4 example
 * vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/digest.h"
#include "base/fileio.h"

/* FIPS 180-4 / NIST "SHA256.pdf" example vectors. */
static void test_known_vectors(void **state)
{
    char hex[PG_SHA256_HEX];
    pg_diag d;
    assert_int_equal(pg_sha256_hex("abc", 3, hex, &d), PG_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(pg_sha256_hex("", 0, hex, &d), PG_OK);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_int_equal(pg_sha256_hex(two, strlen(two), hex, &d), PG_OK);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert_true(pg_sha256_hex_valid(hex));
}

static void test_file_hash_equals_bytes_hash(void **state)
{
    char path[512], a[PG_SHA256_HEX], b[PG_SHA256_HEX];
    pg_diag d;
    snprintf(path, sizeof path, "%s/digest_input.txt", PG_TEST_TMP);
    const char text[] = "line one\nline two\n";
    assert_int_equal(pg_file_write_atomic(path, text, sizeof text - 1, &d), PG_OK);
    assert_int_equal(pg_sha256_file(path, 1024, a, &d), PG_OK);
    assert_int_equal(pg_sha256_hex(text, sizeof text - 1, b, &d), PG_OK);
    assert_string_equal(a, b);
    /* Too large for the limit: an input error naming the file, no hash. */
    assert_int_equal(pg_sha256_file(path, 4, a, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path);
    assert_string_equal(a, "");
}

static void test_missing_file_is_an_input_error(void **state)
{
    char hex[PG_SHA256_HEX];
    pg_diag d;
    assert_int_equal(pg_sha256_file(PG_TEST_TMP "/no/such/file", 1024, hex, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.file, "no/such/file"));
}

static void test_hex_validity(void **state)
{
    assert_false(pg_sha256_hex_valid(NULL));
    assert_false(pg_sha256_hex_valid("abc"));
    assert_false(pg_sha256_hex_valid(
        "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")); /* upper case */
    assert_false(pg_sha256_hex_valid(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ag"));
    assert_true(pg_sha256_hex_valid(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_vectors),
        cmocka_unit_test(test_file_hash_equals_bytes_hash),
        cmocka_unit_test(test_missing_file_is_an_input_error),
        cmocka_unit_test(test_hex_validity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
