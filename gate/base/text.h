/* A growable text buffer with a hard maximum: the one buffer behind the report writers (JUnit,
 * markdown, SVG, comments, annotations), captured child-process output and HTTP response bodies.
 * It never grows past max bytes (plus the terminating NUL), so hostile input cannot make ptxgate
 * allocate without bound, and it never fails loudly: a cut or an allocation failure is recorded
 * in the buffer for the caller to turn into a diagnostic.
 *
 * Calling sequence:
 *     pg_text t;
 *     pg_text_init(&t, 1 << 20);           (or pg_text_init_bytes for bytes that need not be text)
 *     pg_text_add(&t, "..."); pg_text_addf(&t, "%d", n); ...
 *     char *s = pg_text_take(&t, &len);    (NULL after an allocation failure; the caller frees s)
 * or pg_text_free(&t) to drop it. Not thread-safe; one buffer per writer. */
#ifndef PG_BASE_TEXT_H
#define PG_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* The fields are readable by the caller; change them only through the functions below.
 * data: NULL until something was added, then NUL-terminated (data[len] == '\0'); owned by the
 *       buffer until pg_text_take / pg_text_release hands it over.
 * len:  bytes held, excluding the NUL; never above max.
 * cap:  bytes allocated (at most max + 1).
 * max:  the hard maximum of len, set at init.
 * bytes: true (pg_text_init_bytes) when a cut at max may fall anywhere; false (pg_text_init) when
 *       it moves back to a UTF-8 character boundary (RFC 3629 continuation bytes 10xxxxxx), so a
 *       cut text of valid UTF-8 stays valid.
 * truncated: something added did not fit (in part or whole).
 * oom:  an allocation failed; data keeps what was added before, nothing more is added. */
typedef struct {
    char *data;
    size_t len, cap, max;
    bool bytes;
    bool truncated, oom;
} pg_text;

/* An empty buffer of at most max bytes whose cuts keep UTF-8 characters whole. No allocation. */
void pg_text_init(pg_text *t, size_t max);
/* An empty buffer of at most max bytes cut at any byte (tool output, bodies of any bytes). */
void pg_text_init_bytes(pg_text *t, size_t max);

/* Append n bytes of s (s may hold NULs; n == 0 adds nothing). Past max only what fits is kept
 * (cut as the init chose) and truncated is set; an allocation failure sets oom. */
void pg_text_addn(pg_text *t, const char *s, size_t n);
/* Append the NUL-terminated s; s may be NULL (adds nothing). */
void pg_text_add(pg_text *t, const char *s);
/* Append printf-formatted text (any length: above 512 bytes it is formatted into a heap copy;
 * a failed allocation sets oom; an encoding error of vsnprintf adds nothing). */
void pg_text_addf(pg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the UTF-8 encoding (1 to 4 bytes) of the code point cp (cp <= U+10FFFF; not checked
 * for surrogates: callers pass decoded characters or U+FFFD). */
void pg_text_add_cp(pg_text *t, uint32_t cp);

/* Hand the text over for a caller that needs it whole: NULL after an allocation failure (the
 * text is freed), else the text (an empty buffer yields a fresh ""; NULL if even that cannot
 * be allocated). *len (may be NULL) receives its length (0 with NULL). The caller frees the
 * result; t is reset to empty with the same max and cut. A truncated text is handed over:
 * check t->truncated first when that matters. */
char *pg_text_take(pg_text *t, size_t *len);
/* pg_text_take for a writer that returns a status: the text in *out (the caller frees it) and
 * its length in *len (may be NULL), t reset as for pg_text_take. Errors: PG_ERR_INFRA with
 * oom_message, located at file (may be NULL), after an allocation failure (t->oom); the text is
 * freed and *out is untouched. */
pg_status pg_text_finish(pg_text *t, const char *file, const char *oom_message, char **out,
                         size_t *len, pg_diag *d);
/* Hand over whatever the buffer holds, even after a cut or an allocation failure (read
 * t->truncated and t->oom first): data as it is, NULL when nothing was added. *len (may be NULL)
 * receives len. The caller frees the result; t is reset as for pg_text_take. */
char *pg_text_release(pg_text *t, size_t *len);
/* Empty the buffer for reuse, keeping its memory: len 0, data "" (when allocated), truncated
 * false (oom stays). */
void pg_text_clear(pg_text *t);
/* Free the text; t is reset to empty with the same max and cut. t may be zeroed. */
void pg_text_free(pg_text *t);

#endif
