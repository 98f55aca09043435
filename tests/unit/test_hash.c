/* Tests for the input checksum: equal for equal bytes whatever the chunking, different for any
 * single changed bit, byte, length or order, stable across releases (a fixed value). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/hash.h"

static void fill(unsigned char *p, size_t n)
{
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (unsigned char)(x >> 24);
    }
}

static void test_chunking_does_not_matter(void **state)
{
    (void)state;
    unsigned char buf[1000];
    fill(buf, sizeof buf);
    uint64_t whole = pg_hash_bytes(buf, sizeof buf);
    const size_t chunks[] = {1, 3, 7, 8, 9, 64, 333};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        pg_hash s;
        pg_hash_init(&s);
        for (size_t off = 0; off < sizeof buf; off += chunks[c])
            pg_hash_update(&s, buf + off,
                           off + chunks[c] <= sizeof buf ? chunks[c] : sizeof buf - off);
        assert_true(pg_hash_final(&s) == whole);
    }
}

static void test_every_bit_matters(void **state)
{
    (void)state;
    unsigned char buf[64];
    fill(buf, sizeof buf);
    uint64_t base = pg_hash_bytes(buf, sizeof buf);
    for (size_t i = 0; i < sizeof buf; i++)
        for (int b = 0; b < 8; b++) {
            buf[i] ^= (unsigned char)(1u << b);
            assert_true(pg_hash_bytes(buf, sizeof buf) != base);
            buf[i] ^= (unsigned char)(1u << b);
        }
    /* Length and trailing zeros, and swapped words. */
    unsigned char z[16] = {0};
    assert_true(pg_hash_bytes(z, 15) != pg_hash_bytes(z, 16));
    assert_true(pg_hash_bytes(z, 0) != pg_hash_bytes(z, 1));
    unsigned char sw[16];
    memcpy(sw, buf + 8, 8);
    memcpy(sw + 8, buf, 8);
    assert_true(pg_hash_bytes(sw, 16) != pg_hash_bytes(buf, 16));
}

static void test_fixed_value(void **state)
{
    (void)state;
    /* Pinned so a change to the function is a deliberate one. */
    assert_true(pg_hash_bytes("ptxgate", 7) == 0x5dfe48f79c66c094ull);
    assert_true(pg_hash_bytes("", 0) != pg_hash_bytes("\0", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunking_does_not_matter),
        cmocka_unit_test(test_every_bit_matters),
        cmocka_unit_test(test_fixed_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
