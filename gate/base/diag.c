/* Located diagnostics (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

void pg_diag_clear(pg_diag *d)
{
    if (d)
        memset(d, 0, sizeof(*d));
}

pg_status pg_diag_set(pg_diag *d, pg_status st, const char *file, long line, const char *field,
                      const char *fmt, ...)
{
    if (!d)
        return st;
    d->status = st;
    snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
    d->line = line;
    snprintf(d->field, sizeof(d->field), "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    int full = vsnprintf(d->message, sizeof(d->message), fmt, ap);
    va_end(ap);
    /* A message cut by the buffer ends with whole characters. */
    if (full >= (int)sizeof(d->message))
        pg_utf8_trim_cut(d->message);
    if (file && strlen(file) >= sizeof(d->file))
        pg_utf8_trim_cut(d->file);
    if (field && strlen(field) >= sizeof(d->field))
        pg_utf8_trim_cut(d->field);
    return st;
}

char *pg_diag_format(const pg_diag *d, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    if (d->file[0]) {
        if (d->line > 0)
            used += (size_t)snprintf(buf + used, n - used, "%s:%ld: ", d->file, d->line);
        else
            used += (size_t)snprintf(buf + used, n - used, "%s: ", d->file);
    }
    if (used < n && d->field[0])
        used += (size_t)snprintf(buf + used, n - used, "field '%s': ", d->field);
    if (used < n)
        snprintf(buf + used, n - used, "%s", d->message);
    if (n > 0 && strlen(buf) == n - 1) /* full: maybe cut inside a character */
        pg_utf8_trim_cut(buf);
    return buf;
}
