/* Unit tests of the cubin comparison by content (gate/ptx/cubin_code.h): cubins of one kernel
 * built at two paths (tests/CMakeLists.txt builds them with nvcc -ptx -lineinfo and ptxas
 * -lineinfo, as the assemble stage does), a variant with other code, and damaged copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "ptx/cubin_code.h"

typedef struct {
    unsigned char *p;
    size_t n;
} blob;

static blob load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.cubin", PG_TEST_CUBINS, name);
    blob b = {0};
    char *text = NULL;
    pg_diag d;
    assert_int_equal(pg_file_read(path, 1 << 24, &text, &b.n, &d), PG_OK);
    b.p = (unsigned char *)text;
    return b;
}

static pg_cubin_match compare(blob a, blob b)
{
    pg_cubin_match m = PG_CUBIN_SAME_BYTES;
    pg_diag d;
    assert_int_equal(pg_cubin_compare(a.p, a.n, b.p, b.n, &m, &d), PG_OK);
    return m;
}

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Offset and size of the first section whose name starts with prefix (ELF64 little-endian). */
static void section(blob b, const char *prefix, uint64_t *off, uint64_t *size)
{
    uint64_t shoff = rd64(b.p + 0x28);
    unsigned shnum = b.p[0x3c] | b.p[0x3d] << 8, shstrndx = b.p[0x3e] | b.p[0x3f] << 8;
    const unsigned char *strh = b.p + shoff + (uint64_t)shstrndx * 64;
    uint64_t stroff = rd64(strh + 24);
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *h = b.p + shoff + (uint64_t)i * 64;
        unsigned name = h[0] | h[1] << 8 | h[2] << 16 | (unsigned)h[3] << 24;
        if (strncmp((const char *)b.p + stroff + name, prefix, strlen(prefix)) == 0) {
            *off = rd64(h + 24);
            *size = rd64(h + 32);
            return;
        }
    }
    fail_msg("no section %s", prefix);
}

static blob copy(blob b)
{
    blob c = {malloc(b.n), b.n};
    assert_non_null(c.p);
    memcpy(c.p, b.p, b.n);
    return c;
}

static void test_same_kernel_at_two_paths(void **state)
{
    blob a = load("a"), b = load("b");
    /* The premise: the path is in the cubins (its debug line table), so they differ in bytes. */
    assert_true(a.n != b.n || memcmp(a.p, b.p, a.n) != 0);
    assert_int_equal(compare(a, b), PG_CUBIN_SAME_CODE);
    assert_int_equal(compare(b, a), PG_CUBIN_SAME_CODE);
    assert_string_equal(pg_cubin_match_name(PG_CUBIN_SAME_CODE), "code_sections");
    free(a.p);
    free(b.p);
}

static void test_byte_identical(void **state)
{
    blob a = load("a"), c = copy(a);
    assert_int_equal(compare(a, c), PG_CUBIN_SAME_BYTES);
    assert_string_equal(pg_cubin_match_name(PG_CUBIN_SAME_BYTES), "bytes");
    free(a.p);
    free(c.p);
}

static void test_other_code_differs(void **state)
{
    blob a = load("a"), v = load("variant");
    assert_int_equal(compare(a, v), PG_CUBIN_DIFFERENT);
    assert_null(pg_cubin_match_name(PG_CUBIN_DIFFERENT));
    free(a.p);
    free(v.p);
}

static void test_one_changed_instruction_differs(void **state)
{
    blob a = load("a"), b = load("b");
    uint64_t off, size;
    section(b, ".text.", &off, &size);
    assert_true(size >= 16);
    b.p[off + 8] ^= 0x01;
    assert_int_equal(compare(a, b), PG_CUBIN_DIFFERENT);
    free(a.p);
    free(b.p);
}

static void test_debug_sections_are_not_compared(void **state)
{
    blob a = load("a"), c = copy(a);
    uint64_t off, size;
    section(c, ".debug_line", &off, &size);
    assert_true(size > 0);
    memset(c.p + off, 0x5a, size);
    assert_int_equal(compare(a, c), PG_CUBIN_SAME_CODE);
    /* ... but the kernel's parameter metadata is. */
    section(c, ".nv.info.", &off, &size);
    c.p[off + size - 1] ^= 0x10;
    assert_int_equal(compare(a, c), PG_CUBIN_DIFFERENT);
    free(a.p);
    free(c.p);
}

static void test_another_architecture_differs(void **state)
{
    blob a = load("a"), c = copy(a);
    c.p[0x30] ^= 0x01; /* e_flags: the SASS architecture */
    assert_int_equal(compare(a, c), PG_CUBIN_DIFFERENT);
    free(a.p);
    free(c.p);
}

static void test_malformed_files_are_different(void **state)
{
    blob a = load("a"), c = copy(a);
    /* Truncated inside the section table. */
    blob t = {c.p, (size_t)rd64(c.p + 0x28) + 100};
    assert_int_equal(compare(a, t), PG_CUBIN_DIFFERENT);
    /* Section table offset beyond the file. */
    memset(c.p + 0x28, 0xff, 8);
    assert_int_equal(compare(a, c), PG_CUBIN_DIFFERENT);
    /* Not an ELF file at all, and an empty one. */
    unsigned char junk[64] = "not an ELF file";
    assert_int_equal(compare(a, (blob){junk, sizeof junk}), PG_CUBIN_DIFFERENT);
    assert_int_equal(compare((blob){junk, 0}, a), PG_CUBIN_DIFFERENT);
    /* A section whose bytes lie outside the file. */
    memcpy(c.p, a.p, a.n);
    uint64_t shoff = rd64(c.p + 0x28);
    memset(c.p + shoff + 64 + 32, 0x7f, 8); /* section 1's size */
    assert_int_equal(compare(a, c), PG_CUBIN_DIFFERENT);
    free(a.p);
    free(c.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_kernel_at_two_paths),
        cmocka_unit_test(test_byte_identical),
        cmocka_unit_test(test_other_code_differs),
        cmocka_unit_test(test_one_changed_instruction_differs),
        cmocka_unit_test(test_debug_sections_are_not_compared),
        cmocka_unit_test(test_another_architecture_differs),
        cmocka_unit_test(test_malformed_files_are_different),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
