/* The growable text buffer with a hard maximum (see text.h). */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Capacity of the first allocation; doubled from there, never above max + 1. */
#define FIRST_CAP 256

void pg_text_init(pg_text *t, size_t max)
{
    memset(t, 0, sizeof *t);
    t->max = max;
}

void pg_text_init_bytes(pg_text *t, size_t max)
{
    pg_text_init(t, max);
    t->bytes = true;
}

/* Grow data to hold need bytes (the NUL included), within max + 1. False (and oom) on failure. */
static bool reserve(pg_text *t, size_t need)
{
    if (need <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : FIRST_CAP;
    while (cap < need)
        cap *= 2;
    if (t->max < SIZE_MAX && cap > t->max + 1)
        cap = t->max + 1;
    char *p = realloc(t->data, cap);
    if (!p) {
        t->oom = true;
        return false;
    }
    t->data = p;
    t->cap = cap;
    return true;
}

void pg_text_addn(pg_text *t, const char *s, size_t n)
{
    if (t->oom || n == 0)
        return;
    if (n > t->max - t->len) {
        size_t room = t->max - t->len;
        /* s[room] is the first byte left out: a continuation byte there means the last
         * character kept would be cut, so it goes too. */
        while (!t->bytes && room > 0 && ((unsigned char)s[room] & 0xC0) == 0x80)
            room--;
        n = room;
        t->truncated = true;
        if (n == 0)
            return;
    }
    if (!reserve(t, t->len + n + 1))
        return;
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

void pg_text_add(pg_text *t, const char *s)
{
    if (s)
        pg_text_addn(t, s, strlen(s));
}

void pg_text_addf(pg_text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        pg_text_addn(t, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big)
            t->oom = true;
        else {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            pg_text_addn(t, big, (size_t)n);
            free(big);
        }
    }
    va_end(ap2);
}

void pg_text_add_cp(pg_text *t, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    pg_text_addn(t, b, n);
}

/* Back to empty, keeping max and the kind of cut. */
static void reset(pg_text *t)
{
    size_t max = t->max;
    bool bytes = t->bytes;
    pg_text_init(t, max);
    t->bytes = bytes;
}

char *pg_text_release(pg_text *t, size_t *len)
{
    char *p = t->data;
    if (len)
        *len = t->len;
    reset(t);
    return p;
}

char *pg_text_take(pg_text *t, size_t *len)
{
    bool oom = t->oom;
    char *p = pg_text_release(t, len);
    if (oom) {
        free(p);
        p = NULL;
    } else if (!p) {
        p = strdup("");
    }
    if (len && !p)
        *len = 0;
    return p;
}

pg_status pg_text_finish(pg_text *t, const char *file, const char *oom_message, char **out,
                         size_t *len, pg_diag *d)
{
    if (t->oom) {
        pg_text_free(t);
        return pg_diag_set(d, PG_ERR_INFRA, file, 0, NULL, "%s", oom_message);
    }
    *out = pg_text_take(t, len);
    return PG_OK;
}

void pg_text_clear(pg_text *t)
{
    t->len = 0;
    if (t->data)
        t->data[0] = '\0';
    t->truncated = false;
}

void pg_text_free(pg_text *t)
{
    free(t->data);
    reset(t);
}
