/* Tests for UTF-8-safe cuts: a prefix never ends inside a character (2-, 3- and 4-byte ones),
 * bytes that are not UTF-8 are kept as they are, a buffer cut by snprintf loses only the
 * incomplete last character, characters are counted, and a diagnostic whose message is cut by
 * its buffer ends with whole characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "base/utf8.h"

/* Strictly valid UTF-8 (RFC 3629), for the checks below. */
static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = *p < 0x80 ? 1 : *p >= 0xC2 && *p <= 0xDF ? 2 : *p >= 0xE0 && *p <= 0xEF ? 3
                 : *p >= 0xF0 && *p <= 0xF4 ? 4 : 0;
        if (!n)
            return 0;
        for (size_t i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

static void test_prefix(void **state)
{
    (void)state;
    const char *s = "a\xc3\xa9" "b\xe2\x82\xac" "c\xf0\x9f\x98\x80"; /* a é b € c 😀 */
    /* Every cut point gives a valid prefix, as long as possible. */
    const size_t want[] = {0, 1, 1, 3, 4, 4, 4, 7, 8, 8, 8, 8, 12, 12};
    for (size_t max = 0; max < sizeof want / sizeof want[0]; max++) {
        size_t n = pg_utf8_prefix(s, max);
        assert_int_equal(n, want[max]);
        char buf[32];
        snprintf(buf, sizeof buf, "%.*s", PG_UTF8_CUT(s, max), s);
        assert_true(valid_utf8(buf));
    }
    assert_int_equal(pg_utf8_prefix(NULL, 10), 0);
    assert_int_equal(pg_utf8_prefix("", 10), 0);
    /* Bytes that are not UTF-8 count one each and are kept. */
    assert_int_equal(pg_utf8_prefix("\xff\xfe" "ab", 3), 3);
    assert_int_equal(pg_utf8_prefix("\xc3" "a", 1), 1); /* a lead byte cut short: one byte */
}

static void test_char_len_and_count(void **state)
{
    (void)state;
    assert_int_equal(pg_utf8_char_len(""), 0);
    assert_int_equal(pg_utf8_char_len("a"), 1);
    assert_int_equal(pg_utf8_char_len("\xc3\xa9"), 2);
    assert_int_equal(pg_utf8_char_len("\xe2\x82\xac"), 3);
    assert_int_equal(pg_utf8_char_len("\xf0\x9f\x98\x80"), 4);
    assert_int_equal(pg_utf8_char_len("\xe2\x82"), 1); /* cut short */
    assert_int_equal(pg_utf8_char_len("\x80"), 1);     /* a stray continuation byte */
    assert_int_equal(pg_utf8_char_len("\xc0\x80"), 1); /* an overlong lead: no lead byte */
    assert_int_equal(pg_utf8_count("a\xc3\xa9" "b", 4), 3);
    assert_int_equal(pg_utf8_count("a\xc3\xa9" "b", 1), 1);
    assert_int_equal(pg_utf8_count("", 5), 0);
}

static void test_trim_cut(void **state)
{
    (void)state;
    char buf[16];
    /* snprintf into 5 bytes keeps "ab" and the first two bytes of "€". */
    snprintf(buf, 5, "ab\xe2\x82\xac");
    assert_false(valid_utf8(buf));
    pg_utf8_trim_cut(buf);
    assert_string_equal(buf, "ab");
    snprintf(buf, sizeof buf, "ab\xe2\x82\xac");
    pg_utf8_trim_cut(buf); /* complete: unchanged */
    assert_string_equal(buf, "ab\xe2\x82\xac");
    snprintf(buf, sizeof buf, "x\xf0\x9f\x98");
    pg_utf8_trim_cut(buf);
    assert_string_equal(buf, "x");
    snprintf(buf, sizeof buf, "\xc3");
    pg_utf8_trim_cut(buf);
    assert_string_equal(buf, "");
    snprintf(buf, sizeof buf, "ok\x80");
    pg_utf8_trim_cut(buf); /* broken before any cut: left as it was */
    assert_string_equal(buf, "ok\x80");
    pg_utf8_trim_cut(NULL);
}

static void test_diag_cut(void **state)
{
    (void)state;
    char text[4000];
    size_t k = 0;
    text[k++] = 'a'; /* odd offset, so a byte cut falls inside a character */
    while (k + 2 < sizeof text) {
        text[k++] = '\xc3';
        text[k++] = '\xa9';
    }
    text[k] = '\0';
    pg_diag d;
    pg_diag_set(&d, PG_ERR_INPUT, text, 0, text, "%s", text);
    assert_true(valid_utf8(d.message));
    assert_true(valid_utf8(d.file));
    assert_true(valid_utf8(d.field));
    assert_true(strlen(d.message) >= sizeof d.message - 3);
    char out[300];
    pg_diag_format(&d, out, sizeof out);
    assert_true(valid_utf8(out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_char_len_and_count),
        cmocka_unit_test(test_trim_cut),
        cmocka_unit_test(test_diag_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
