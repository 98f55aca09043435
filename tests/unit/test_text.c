/* Tests for the growable text buffer with a hard maximum: appends and formatting, the cut at
 * max (whole UTF-8 characters for text, any byte for bytes), code points, hand-over (take gives
 * "" for an empty buffer, release gives what is there), clearing for reuse, memory that
 * never grows past max + 1, and the finish that turns an allocation failure into a
 * diagnostic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/text.h"

static void test_append_and_take(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init(&t, 100);
    assert_null(t.data);
    pg_text_add(&t, "a");
    pg_text_add(&t, NULL);
    pg_text_addn(&t, "bcd", 2);
    pg_text_addn(&t, "x", 0);
    pg_text_addf(&t, "-%d-%s", 42, "z");
    assert_string_equal(t.data, "abc-42-z");
    assert_int_equal(t.len, 8);
    assert_false(t.truncated);
    size_t len = 99;
    char *s = pg_text_take(&t, &len);
    assert_string_equal(s, "abc-42-z");
    assert_int_equal(len, 8);
    free(s);
    /* Taken: empty again, same maximum. */
    assert_null(t.data);
    assert_int_equal(t.len, 0);
    assert_int_equal(t.max, 100);
    /* An empty buffer hands over "", never NULL. */
    s = pg_text_take(&t, &len);
    assert_non_null(s);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
}

static void test_long_format(void **state)
{
    (void)state;
    char big[2000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    pg_text t;
    pg_text_init(&t, 1 << 20);
    pg_text_addf(&t, "<%s>", big); /* above the 512-byte stack copy */
    assert_int_equal(t.len, sizeof big + 1);
    assert_int_equal(t.data[0], '<');
    assert_int_equal(t.data[t.len - 1], '>');
    assert_int_equal(t.data[t.len], '\0');
    pg_text_free(&t);
    assert_null(t.data);
}

static void test_cut_keeps_characters(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init(&t, 5);
    pg_text_add(&t, "ab");
    /* €€: the first fits (5 bytes), the second does not */
    pg_text_add(&t, "\xe2\x82\xac\xe2\x82\xac");
    assert_true(t.truncated);
    assert_int_equal(t.len, 5);
    assert_string_equal(t.data, "ab\xe2\x82\xac");
    pg_text_free(&t);

    pg_text_init(&t, 4);
    pg_text_add(&t, "ab\xe2\x82\xac"); /* € cut by max: left out whole */
    assert_true(t.truncated);
    assert_string_equal(t.data, "ab");
    pg_text_add(&t, "cd"); /* fits: later text still goes in */
    assert_string_equal(t.data, "abcd");
    pg_text_add(&t, "e");
    assert_string_equal(t.data, "abcd");
    pg_text_free(&t);
}

static void test_cut_bytes(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init_bytes(&t, 4);
    pg_text_addn(&t, "ab\xe2\x82\xac", 5); /* any byte may end a cut */
    assert_true(t.truncated);
    assert_int_equal(t.len, 4);
    assert_memory_equal(t.data, "ab\xe2\x82", 4);
    pg_text_free(&t);
    assert_true(t.bytes); /* reset keeps the kind of cut */

    /* Binary data with NULs, continuation bytes in a row. */
    const char bin[] = {'\0', '\x80', '\x80', '\x80', '\x80', 'z'};
    pg_text_init_bytes(&t, 3);
    pg_text_addn(&t, bin, sizeof bin);
    assert_int_equal(t.len, 3);
    assert_memory_equal(t.data, bin, 3);
    size_t len = 0;
    char *s = pg_text_release(&t, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, bin, 3);
    free(s);
}

static void test_code_points(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init(&t, 64);
    pg_text_add_cp(&t, 'A');
    pg_text_add_cp(&t, 0xE9);    /* é */
    pg_text_add_cp(&t, 0x20AC);  /* € */
    pg_text_add_cp(&t, 0x1F600); /* 😀 */
    pg_text_add_cp(&t, 0xFFFD);
    assert_string_equal(t.data, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd");
    pg_text_free(&t);
}

static void test_release_and_clear(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init_bytes(&t, 8);
    size_t len = 5;
    assert_null(pg_text_release(&t, &len)); /* nothing added: NULL, unlike take */
    assert_int_equal(len, 0);
    pg_text_add(&t, "0123456789");
    assert_true(t.truncated);
    char *before = t.data;
    pg_text_clear(&t);
    assert_int_equal(t.len, 0);
    assert_false(t.truncated);
    assert_ptr_equal(t.data, before); /* memory kept */
    assert_string_equal(t.data, "");
    pg_text_add(&t, "line");
    assert_string_equal(t.data, "line");
    pg_text_free(&t);
    pg_text_free(&t); /* twice is fine: reset to empty */
}

static void test_memory_bounded(void **state)
{
    (void)state;
    pg_text t;
    pg_text_init_bytes(&t, 1000);
    for (int i = 0; i < 100; i++)
        pg_text_add(&t, "0123456789abcdef");
    assert_int_equal(t.len, 1000);
    assert_true(t.cap <= 1001);
    assert_true(t.truncated);
    assert_false(t.oom);
    pg_text_free(&t);
}

static void test_finish(void **state)
{
    (void)state;
    pg_diag d;
    pg_diag_clear(&d);
    pg_text t;
    pg_text_init(&t, 100);
    pg_text_add(&t, "report");
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(pg_text_finish(&t, "r.json", "out of memory rendering x", &out, &len, &d),
                     PG_OK);
    assert_string_equal(out, "report");
    assert_int_equal(len, 6);
    assert_null(t.data); /* handed over */
    free(out);
    /* After an allocation failure: the located diagnostic, the text freed, *out untouched. */
    pg_text_add(&t, "partial");
    t.oom = true; /* what a failed allocation leaves */
    out = NULL;
    assert_int_equal(pg_text_finish(&t, "r.json", "out of memory rendering x", &out, NULL, &d),
                     PG_ERR_INFRA);
    assert_null(out);
    assert_null(t.data);
    assert_int_equal(d.status, PG_ERR_INFRA);
    assert_string_equal(d.file, "r.json");
    assert_string_equal(d.message, "out of memory rendering x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_take),
        cmocka_unit_test(test_long_format),
        cmocka_unit_test(test_cut_keeps_characters),
        cmocka_unit_test(test_cut_bytes),
        cmocka_unit_test(test_code_points),
        cmocka_unit_test(test_release_and_clear),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
