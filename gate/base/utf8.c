/* UTF-8-safe cuts (see utf8.h). */
#include "utf8.h"

#include <string.h>

static int is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* Length a lead byte announces: 2..4, or 0 when c is no lead byte (ASCII, a continuation
 * byte, 0xC0, 0xC1, 0xF5..0xFF). */
static size_t lead_len(unsigned char c)
{
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF)
        return 3;
    if (c >= 0xF0 && c <= 0xF4)
        return 4;
    return 0;
}

size_t pg_utf8_char_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (!p || !*p)
        return 0;
    size_t n = lead_len(*p);
    if (n == 0)
        return 1;
    for (size_t i = 1; i < n; i++)
        if (!is_cont(p[i]))
            return 1; /* cut short: the lead byte alone */
    return n;
}

size_t pg_utf8_prefix(const char *s, size_t max)
{
    if (!s)
        return 0;
    size_t used = 0;
    while (s[used]) {
        size_t n = pg_utf8_char_len(s + used);
        if (used + n > max)
            break;
        used += n;
    }
    return used;
}

size_t pg_utf8_count(const char *s, size_t n)
{
    size_t chars = 0, used = 0;
    while (s && used < n && s[used]) {
        used += pg_utf8_char_len(s + used);
        chars++;
    }
    return chars;
}

void pg_utf8_trim_cut(char *buf)
{
    size_t len = buf ? strlen(buf) : 0;
    /* The last lead byte within the final 3 bytes, past only continuation bytes. */
    for (size_t back = 1; back <= 4 && back <= len; back++) {
        unsigned char c = (unsigned char)buf[len - back];
        if (is_cont(c))
            continue;
        size_t want = lead_len(c);
        if (want > back) /* the character needs more bytes than are left: cut by the end */
            buf[len - back] = '\0';
        return;
    }
}
