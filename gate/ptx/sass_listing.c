/* SASS listings (nvdisasm / cuobjdump text) into an opcode inventory (see sass_listing.h). */
#include "sass_listing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    pg_sass_listing *l;
    size_t cap_instrs, cap_funcs;
    const char *file;
    pg_diag *d;
} parser;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_upper_start(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_opcode_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

static bool starts_with(const char *p, const char *end, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* *out = index of function name[0..n), added when new. */
static pg_status function_index(parser *ps, const char *name, size_t n, int line, int *out)
{
    pg_sass_listing *l = ps->l;
    if (n >= sizeof l->functions[0])
        n = sizeof l->functions[0] - 1;
    for (size_t i = 0; i < l->n_functions; i++)
        if (strlen(l->functions[i]) == n && memcmp(l->functions[i], name, n) == 0) {
            *out = (int)i;
            return PG_OK;
        }
    if (l->n_functions >= PG_SASS_MAX_FUNCS)
        return pg_diag_set(ps->d, PG_ERR_INPUT, ps->file, line, NULL,
                           "more than %d functions in the listing", PG_SASS_MAX_FUNCS);
    if (l->n_functions == ps->cap_funcs) {
        size_t cap = ps->cap_funcs ? ps->cap_funcs * 2 : 8;
        char(*p)[256] = realloc(l->functions, cap * sizeof *p);
        if (!p)
            return pg_diag_set(ps->d, PG_ERR_INFRA, ps->file, 0, NULL,
                               "out of memory reading the SASS listing");
        l->functions = p;
        ps->cap_funcs = cap;
    }
    memcpy(l->functions[l->n_functions], name, n);
    l->functions[l->n_functions][n] = '\0';
    *out = (int)l->n_functions++;
    return PG_OK;
}

/* The text after the address comment of an instruction line: brace, guard, opcode. */
static pg_status add_instruction(parser *ps, const char *p, const char *end, long address,
                                 int line, int function)
{
    pg_sass_listing *l = ps->l;
    p = skip_blanks(p, end);
    if (p < end && (*p == '{' || *p == '}'))
        p = skip_blanks(p + 1, end);
    char pred[16] = "";
    if (p < end && *p == '@') {
        const char *q = ++p;
        while (q < end && !is_blank(*q))
            q++;
        snprintf(pred, sizeof pred, "%.*s", (int)(q - p), p);
        p = skip_blanks(q, end);
    }
    if (p >= end || !is_upper_start(*p))
        return PG_OK; /* a data line (".byte", ".word") or something else: not an instruction */
    const char *q = p;
    while (q < end && is_opcode_char(*q))
        q++;
    if (l->n_instrs >= PG_SASS_MAX_INSTRS)
        return pg_diag_set(ps->d, PG_ERR_INPUT, ps->file, line, NULL,
                           "more than %u instructions in the listing", PG_SASS_MAX_INSTRS);
    if (l->n_instrs == ps->cap_instrs) {
        size_t cap = ps->cap_instrs ? ps->cap_instrs * 2 : 1024;
        pg_sass_instr *n = realloc(l->instrs, cap * sizeof *n);
        if (!n)
            return pg_diag_set(ps->d, PG_ERR_INFRA, ps->file, 0, NULL,
                               "out of memory reading the SASS listing");
        l->instrs = n;
        ps->cap_instrs = cap;
    }
    pg_sass_instr *in = &l->instrs[l->n_instrs++];
    memset(in, 0, sizeof *in);
    size_t len = (size_t)(q - p);
    snprintf(in->opcode, sizeof in->opcode, "%.*s", len > 63 ? 63 : (int)len, p);
    size_t flen = strcspn(in->opcode, ".");
    snprintf(in->family, sizeof in->family, "%.*s", flen > 31 ? 31 : (int)flen, in->opcode);
    snprintf(in->predicate, sizeof in->predicate, "%s", pred);
    in->address = address;
    in->line = line;
    in->function = function;
    return PG_OK;
}

pg_status pg_sass_listing_parse(const char *text, size_t len, const char *file,
                                pg_sass_listing *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    parser ps = {.l = out, .file = file, .d = d};
    const char *p = text, *end = text + len;
    int line = 0, function = -1;
    bool in_code = true; /* until a .section says otherwise (cuobjdump prints none) */
    pg_status st = PG_OK;
    while (p < end && st == PG_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        const char *s = skip_blanks(p, le);
        if (starts_with(s, le, "/*") && s + 2 < le && is_hex(s[2])) {
            const char *h = s + 2;
            long address = 0;
            while (h < le && is_hex(*h)) {
                char c = *h++;
                address = address * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
                if (address > 0x7fffffffL)
                    address = 0x7fffffffL;
            }
            if (in_code && starts_with(h, le, "*/"))
                st = add_instruction(&ps, h + 2, le, address, line, function);
        } else if (starts_with(s, le, ".section") && s + 8 < le && is_blank(s[8])) {
            const char *n = skip_blanks(s + 8, le), *e = n;
            while (e < le && *e != ',' && !is_blank(*e))
                e++;
            in_code = starts_with(n, e, ".text.") && e > n + 6;
            if (in_code)
                st = function_index(&ps, n + 6, (size_t)(e - n - 6), line, &function);
        } else if (starts_with(s, le, "Function :")) {
            const char *n = skip_blanks(s + 10, le), *e = le;
            while (e > n && is_blank(e[-1]))
                e--;
            in_code = true;
            st = function_index(&ps, n, (size_t)(e - n), line, &function);
        } else if (starts_with(s, le, ".headerflags") && !out->headerflags[0]) {
            const char *q = memchr(s, '"', (size_t)(le - s));
            const char *r = q ? memchr(q + 1, '"', (size_t)(le - q - 1)) : NULL;
            if (q && r)
                snprintf(out->headerflags, sizeof out->headerflags, "%.*s",
                         (int)(r - q - 1 > 255 ? 255 : r - q - 1), q + 1);
        }
        p = nl ? nl + 1 : end;
    }
    if (st != PG_OK)
        pg_sass_listing_free(out);
    return st;
}

void pg_sass_listing_free(pg_sass_listing *l)
{
    if (!l)
        return;
    free(l->instrs);
    free(l->functions);
    memset(l, 0, sizeof *l);
}

size_t pg_sass_listing_count_family(const pg_sass_listing *l, const char *family)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n_instrs; i++)
        n += strcmp(l->instrs[i].family, family) == 0;
    return n;
}
