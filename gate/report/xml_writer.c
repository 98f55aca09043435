/* A libxml2 text writer that remembers its first failure (see xml_writer.h). */
#include "xml_writer.h"
#include "results_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xmlBufferPtr pg_xw_buffer_new(void)
{
    xmlBufferPtr b = xmlBufferCreate();
    if (b)
        xmlBufferSetAllocationScheme(b, XML_BUFFER_ALLOC_DOUBLEIT);
    return b;
}

void pg_xw_start(pg_xw *x, const char *element)
{
    if (!x->failed && xmlTextWriterStartElement(x->w, BAD_CAST element) < 0)
        x->failed = true;
}

void pg_xw_end(pg_xw *x)
{
    if (!x->failed && xmlTextWriterEndElement(x->w) < 0)
        x->failed = true;
}

void pg_xw_attr(pg_xw *x, const char *name, const char *value)
{
    if (!x->failed && xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0)
        x->failed = true;
}

void pg_xw_attr_seconds(pg_xw *x, const char *name, double seconds)
{
    char b[64];
    snprintf(b, sizeof b, "%.3f", seconds);
    pg_xw_attr(x, name, b);
}

void pg_xw_attrz(pg_xw *x, const char *name, size_t value)
{
    char b[32];
    snprintf(b, sizeof b, "%zu", value);
    pg_xw_attr(x, name, b);
}

void pg_xw_text(pg_xw *x, const char *text)
{
    if (!x->failed && xmlTextWriterWriteString(x->w, BAD_CAST text) < 0)
        x->failed = true;
}

void pg_xw_text_element(pg_xw *x, const char *element, const char *text)
{
    if (!x->failed && xmlTextWriterWriteElement(x->w, BAD_CAST element, BAD_CAST text) < 0)
        x->failed = true;
}

pg_status pg_xw_finish(pg_xw *x, xmlBufferPtr buf, bool end_newline, const char *file,
                       const char *failed_message, const char *oom_message, char **out,
                       size_t *len, pg_diag *d)
{
    if (x->w)
        xmlFreeTextWriter(x->w);
    x->w = NULL;
    if (x->failed)
        return pg_diag_set(d, PG_ERR_INFRA, file, 0, NULL, "%s", failed_message);
    size_t n = (size_t)xmlBufferLength(buf);
    char *text = malloc(n + 2);
    if (!text)
        return pg_diag_set(d, PG_ERR_INFRA, file, 0, NULL, "%s", oom_message);
    memcpy(text, xmlBufferContent(buf), n);
    if (end_newline && (n == 0 || text[n - 1] != '\n'))
        text[n++] = '\n';
    text[n] = '\0';
    *out = text;
    if (len)
        *len = n;
    return PG_OK;
}

void pg_xw_release(pg_xw *x, xmlBufferPtr buf)
{
    if (x->w)
        xmlFreeTextWriter(x->w);
    x->w = NULL;
    if (buf)
        xmlBufferFree(buf);
}

void pg_xw_junit_start(pg_xw *x, const char *name, size_t tests, size_t failures, size_t errors)
{
    if (!x->failed && xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL) < 0)
        x->failed = true;
    pg_xw_start(x, "testsuites");
    pg_xw_attr(x, "name", name);
    pg_xw_attrz(x, "tests", tests);
    pg_xw_attrz(x, "failures", failures);
    pg_xw_attrz(x, "errors", errors);
}

void pg_xw_junit_timestamp(pg_xw *x, const char *started_utc)
{
    char timestamp[64];
    snprintf(timestamp, sizeof timestamp, "%s", started_utc);
    timestamp[strcspn(timestamp, "Z")] = '\0';
    pg_xw_attr(x, "timestamp", timestamp);
}

void pg_xw_property(pg_xw *x, const char *name, const char *value)
{
    pg_text t;
    pg_text_init(&t, 2048);
    pg_rtext_add_clean(&t, value, PG_CLEAN_ONE_LINE, 1024);
    pg_xw_start(x, "property");
    pg_xw_attr(x, "name", name);
    pg_xw_attr(x, "value", t.data ? t.data : "");
    pg_xw_end(x);
    pg_text_free(&t);
}
