/* Parsing compute-sanitizer's text report (see sanitizer_log.h): lines are split on the
 * "=========" prefix and their indentation into record headers and details; a record's kernel
 * is the function of its first location ("at ..."). */
#include "sanitizer_log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"

#define PREFIX "========="

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/* The function a location names. New form: "kernel(int *)+0x70 in k.cu:5" or
 * "kernel+0x70"; old form: "0x70 in /path/k.cu:5:kernel(int*)" or "0x70 in kernel". */
static void location_kernel(const char *loc, char *out, size_t n)
{
    out[0] = '\0';
    if (starts(loc, "0x")) {
        const char *in = strstr(loc, " in ");
        if (!in)
            return;
        loc = in + 4;
        const char *paren = strchr(loc, '(');
        const char *end = paren ? paren : loc + strlen(loc);
        const char *colon = NULL;
        for (const char *p = loc; p < end; p++)
            if (*p == ':')
                colon = p;
        if (colon)
            loc = colon + 1;
    }
    /* A demangled C++ name may start with its return type: "void k<int>(int*)". */
    if (starts(loc, "void "))
        loc += 5;
    size_t len = 0;
    while (name_char(loc[len]))
        len++;
    snprintf(out, n, "%.*s", (int)len, loc);
}

/* " at LOCATION" anywhere in text: the kernel it names into out. */
static bool find_location(const char *text, char *out, size_t n)
{
    const char *at = strstr(text, "at ");
    while (at && at != text && at[-1] != ' ')
        at = strstr(at + 1, "at ");
    if (!at)
        return false;
    location_kernel(at + 3, out, n);
    return out[0] != '\0';
}

typedef struct {
    bool open;
    pg_san_finding f;
} record;

static pg_status add(pg_san_report *r, const pg_san_finding *f, pg_diag *d)
{
    r->records++;
    for (int i = 0; i < r->n; i++) {
        pg_san_finding *g = &r->items[i];
        if (g->kind == f->kind && !strcmp(g->what, f->what) && !strcmp(g->kernel, f->kernel)) {
            g->count++;
            return PG_OK;
        }
    }
    if (r->n >= PG_SAN_MAX_FINDINGS) {
        r->truncated = true;
        return PG_OK;
    }
    if (r->n % 16 == 0) {
        pg_san_finding *grown = realloc(r->items, (size_t)(r->n + 16) * sizeof *grown);
        if (!grown)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        r->items = grown;
    }
    r->items[r->n] = *f;
    r->items[r->n].count = 1;
    r->n++;
    return PG_OK;
}

static pg_status close_record(pg_san_report *r, record *rec, pg_diag *d)
{
    if (!rec->open)
        return PG_OK;
    rec->open = false;
    if (rec->f.kind == PG_SAN_ERROR && !rec->f.kernel[0] && starts(rec->f.what, "Error: "))
        rec->f.kind = PG_SAN_TOOL;
    return add(r, &rec->f, d);
}

/* Summary lines; true when the line was one. */
static bool summary(const char *body, pg_san_report *r)
{
    long long v;
    if (sscanf(body, "ERROR SUMMARY: %lld", &v) == 1) {
        r->summary_errors = v;
        return true;
    }
    if (starts(body, "RACECHECK SUMMARY:")) {
        const char *p = strchr(body, '(');
        if (p && sscanf(p, "(%lld", &v) == 1)
            r->summary_errors = v;
        return true;
    }
    return starts(body, "LEAK SUMMARY") || starts(body, "COMPUTE-SANITIZER") ||
           starts(body, "Target application returned") ||
           starts(body, "This can be due to") || starts(body, "Saved host backtrace");
}

static void header(record *rec, const char *body)
{
    memset(&rec->f, 0, sizeof rec->f);
    rec->open = true;
    rec->f.kind = PG_SAN_ERROR;
    const char *what = body;
    if (starts(body, "Warning: ")) {
        rec->f.kind = PG_SAN_WARNING;
        what = body + 9;
    } else if (starts(body, "Program hit ")) {
        rec->f.kind = PG_SAN_API;
    } else if (starts(body, "Error: ")) {
        /* racecheck's "Error: Race reported ..." is a finding; other "Error: " lines without a
         * location are the tool's own (decided when the record closes). */
        if (strstr(body, "Race reported"))
            what = body + 7;
    }
    snprintf(rec->f.what, sizeof rec->f.what, "%s", what);
    /* Cut the location out of what ("... at k(...)+0x2d0 in f.cu:12"), keep the kernel. */
    char kernel[128];
    if (rec->f.kind != PG_SAN_API && find_location(what, kernel, sizeof kernel)) {
        snprintf(rec->f.kernel, sizeof rec->f.kernel, "%s", kernel);
        char *at = strstr(rec->f.what, " at ");
        if (at)
            *at = '\0';
    }
}

static void detail(record *rec, const char *body)
{
    if (!rec->open || rec->f.kind == PG_SAN_API)
        return;
    char kernel[128];
    if ((starts(body, "at ") || starts(body, "and ")) && !rec->f.kernel[0] &&
        find_location(body, kernel, sizeof kernel))
        snprintf(rec->f.kernel, sizeof rec->f.kernel, "%s", kernel);
    else if (!rec->f.detail[0] && !starts(body, "at ") && !starts(body, "and ") &&
             !starts(body, "by thread") && !starts(body, "Saved host") &&
             !starts(body, "Host Frame") && !starts(body, "Device Frame"))
        snprintf(rec->f.detail, sizeof rec->f.detail, "%s", body);
}

pg_status pg_san_parse(const char *log, pg_san_report *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->summary_errors = -1;
    record rec = {0};
    pg_status st = PG_OK;
    for (const char *line = log; st == PG_OK && line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s",
                 PG_UTF8_CUT(line, len < sizeof buf ? len : sizeof buf - 1), line);
        line = nl ? nl + 1 : NULL;
        size_t bl = strlen(buf);
        while (bl && (buf[bl - 1] == '\r' || buf[bl - 1] == ' '))
            buf[--bl] = '\0';
        if (!starts(buf, PREFIX))
            continue;
        const char *rest = buf + strlen(PREFIX);
        size_t indent = strspn(rest, " ");
        const char *body = rest + indent;
        if (!*body) {
            st = close_record(out, &rec, d);
        } else if (indent <= 1) {
            st = close_record(out, &rec, d);
            if (st == PG_OK && !summary(body, out))
                header(&rec, body);
        } else {
            detail(&rec, body);
        }
    }
    if (st == PG_OK)
        st = close_record(out, &rec, d);
    return st;
}

void pg_san_report_free(pg_san_report *r)
{
    if (!r)
        return;
    free(r->items);
    memset(r, 0, sizeof *r);
}
