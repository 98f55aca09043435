/* A libxml2 text writer that remembers its first failure, so report writers can emit a whole
 * document and check once at the end (JUnit of `check` and of `compare`). */
#ifndef PG_REPORT_XML_WRITER_H
#define PG_REPORT_XML_WRITER_H

#include <libxml/xmlwriter.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* w: a writer the caller created and frees; failed: set by the first call that failed, after
 * which every call is a no-op. Text and attribute values must already be clean UTF-8 without
 * control characters (report/rtext.h cleaning or our own formatting); libxml2 escapes <, &, ". */
typedef struct {
    xmlTextWriterPtr w;
    bool failed;
} pg_xw;

/* A memory buffer for xmlNewTextWriterMemory that grows by doubling (libxml2 2.9's default
 * grows by what each flush needs, so a large document cost quadratic copying where realloc
 * copies). The caller frees it with xmlBufferFree. NULL on out-of-memory. */
xmlBufferPtr pg_xw_buffer_new(void);

/* Ends writing: frees x->w (which flushes the document into buf; x->w is NULL after) and returns
 * the document as a new NUL-terminated string in *out (the caller frees it) with its length in
 * bytes in *len (when len is not NULL), given a final newline when end_newline and it lacks one.
 * buf stays the caller's. Errors: PG_ERR_INFRA with failed_message when a writer call failed
 * (x->failed), with oom_message when out of memory, both located at file (which may be NULL);
 * *out is then untouched. */
pg_status pg_xw_finish(pg_xw *x, xmlBufferPtr buf, bool end_newline, const char *file,
                       const char *failed_message, const char *oom_message, char **out,
                       size_t *len, pg_diag *d);

/* Releases what writing a document held, on every path: the writer when pg_xw_finish has not
 * freed it yet (x->w is NULL after) and buf (NULL: none). */
void pg_xw_release(pg_xw *x, xmlBufferPtr buf);

void pg_xw_start(pg_xw *x, const char *element);
void pg_xw_end(pg_xw *x);
void pg_xw_attr(pg_xw *x, const char *name, const char *value);
/* A time attribute in seconds, "%.3f" (JUnit's time). */
void pg_xw_attr_seconds(pg_xw *x, const char *name, double seconds);
void pg_xw_attrz(pg_xw *x, const char *name, size_t value);
void pg_xw_text(pg_xw *x, const char *text);
/* An element whose only content is text (system-out, a text-only failure, ...). */
void pg_xw_text_element(pg_xw *x, const char *element, const char *text);
/* Starts a JUnit document: the XML declaration and the root <testsuites name tests failures
 * errors>, left open for the suites (pg_xw_end closes it). */
void pg_xw_junit_start(pg_xw *x, const char *name, size_t tests, size_t failures, size_t errors);
/* A testsuite's timestamp attribute from a results "...Z" UTC time: the junit-10 xs:dateTime
 * form, without the zone designator (cut to 63 bytes). */
void pg_xw_junit_timestamp(pg_xw *x, const char *started_utc);
/* A JUnit <property name=... value=.../>: the value made one clean line of at most 1024 bytes
 * (pg_rtext_add_clean, PG_CLEAN_ONE_LINE); NULL writes an empty value. */
void pg_xw_property(pg_xw *x, const char *name, const char *value);

#endif
