/* Filtering diagnostics by the file they belong to (see diag_filter.h). */
#include "diag_filter.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool put(char *path, size_t n, const char *s, size_t len)
{
    if (len == 0 || len >= n)
        return false;
    memcpy(path, s, len);
    path[len] = '\0';
    return true;
}

/* "FILE:LINE" with optional ":COL", and a trailing ':' or ',' (the "included from" lines). */
static bool file_before_line(const char *s, size_t len, char *path, size_t n)
{
    while (len > 0 && (s[len - 1] == ':' || s[len - 1] == ','))
        len--;
    for (int part = 0; part < 2; part++) {
        size_t k = len;
        while (k > 0 && isdigit((unsigned char)s[k - 1]))
            k--;
        if (k == len || k == 0 || s[k - 1] != ':')
            return part == 1 && put(path, n, s, len);
        len = k - 1;
    }
    return put(path, n, s, len);
}

/* The first i >= 1 where line[i] is open, then one or more digits, then close: the end of the
 * file name in "FILE(LINE):" or "FILE:LINE:". 0 when there is none. */
static size_t digits_between(const char *line, size_t len, char open, const char *close)
{
    size_t nc = strlen(close);
    for (size_t i = 1; i + 1 + nc < len; i++) {
        if (line[i] != open || !isdigit((unsigned char)line[i + 1]))
            continue;
        size_t j = i + 1;
        while (j < len && isdigit((unsigned char)line[j]))
            j++;
        if (j + nc <= len && memcmp(line + j, close, nc) == 0)
            return i;
    }
    return 0;
}

bool pg_diag_line_file(const char *line, size_t len, char *path, size_t n)
{
    static const char inc[] = "In file included from ";
    if (len == 0)
        return false;
    if (len > sizeof inc - 1 && memcmp(line, inc, sizeof inc - 1) == 0)
        return file_before_line(line + sizeof inc - 1, len - (sizeof inc - 1), path, n);
    if (line[0] == ' ') {
        size_t k = 0;
        while (k < len && line[k] == ' ')
            k++;
        if (len - k > 5 && memcmp(line + k, "from ", 5) == 0)
            return file_before_line(line + k + 5, len - k - 5, path, n);
        return false;
    }
    if (isspace((unsigned char)line[0]))
        return false;
    size_t dots = 0;
    while (dots < len && line[dots] == '.')
        dots++;
    if (dots > 0 && dots + 1 < len && line[dots] == ' ')
        return put(path, n, line + dots + 1, len - dots - 1);
    /* nvcc: FILE(LINE): the first "(digits): " */
    size_t at = digits_between(line, len, '(', "):");
    if (at)
        return put(path, n, line, at);
    /* gcc: FILE:LINE: the first ":digits:" */
    at = digits_between(line, len, ':', ":");
    if (at)
        return put(path, n, line, at);
    return false;
}

pg_status pg_diag_filter(const char *log, pg_path_allowed_fn allowed, void *ctx, char **out,
                         int *dropped)
{
    *dropped = 0;
    size_t cap = (log ? strlen(log) : 0) + 1, used = 0;
    *out = malloc(cap);
    if (!*out)
        return PG_ERR_INFRA;
    bool keep = true, chain = false;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char path[4096];
        /* An indented "from FILE:LINE" names a file only inside an include chain (after a line
         * ending in ','); elsewhere it is a quoted source line. */
        bool located = pg_diag_line_file(line, len, path, sizeof path) &&
                       (line[0] != ' ' || chain);
        chain = located && len > 0 && line[len - 1] == ',';
        if (located) {
            keep = allowed(path, ctx);
            if (!keep)
                (*dropped)++;
        }
        if (keep) {
            memcpy(*out + used, line, len);
            used += len;
            if (end)
                (*out)[used++] = '\n';
        }
        line = end ? end + 1 : NULL;
    }
    (*out)[used] = '\0';
    return PG_OK;
}
