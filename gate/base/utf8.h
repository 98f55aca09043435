/* Cutting text without splitting a UTF-8 character: messages printed on stderr quote manifest
 * values, tool output and file contents that may hold any UTF-8 (or any bytes), and a cut made
 * by byte count (a "%.64s", a full snprintf buffer) used to print a lone lead byte. The
 * encoding: RFC 3629 (a lead byte 0xC2..0xF4 followed by 1 to 3 continuation bytes
 * 10xxxxxx). Bytes that are not UTF-8 are left as they are; these functions only avoid making
 * new broken sequences. */
#ifndef PG_BASE_UTF8_H
#define PG_BASE_UTF8_H

#include <stddef.h>

/* Bytes of the longest prefix of the NUL-terminated s that is at most max bytes long and does
 * not end inside a character (a character cut by max is left out whole). For "%.*s":
 * printf("%.*s", PG_UTF8_CUT(s, 64), s). s may be NULL (0). */
size_t pg_utf8_prefix(const char *s, size_t max);
#define PG_UTF8_CUT(s, max) ((int)pg_utf8_prefix((s), (max)))

/* Bytes of the character at s: 1 for ASCII, a byte that is not a lead byte, or a sequence cut
 * short (by the NUL or a byte that is not a continuation byte); else 2 to 4. 0 at the NUL. */
size_t pg_utf8_char_len(const char *s);

/* Characters (as pg_utf8_char_len steps) in the first n bytes of s. */
size_t pg_utf8_count(const char *s, size_t n);

/* Remove from the end of the NUL-terminated buf a character that a cut left incomplete (the
 * text of a buffer that snprintf filled to its size). A sequence that was broken before the
 * cut is left as it was. */
void pg_utf8_trim_cut(char *buf);

#endif
