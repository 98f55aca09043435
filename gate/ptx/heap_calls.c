/* Device-heap calls in PTX (see heap_calls.h): a small scanner that skips comments and string
 * literals, finds the `call` opcode (with any modifiers such as .uni) and reads its callee,
 * which may follow a parenthesized return parameter and span lines. */
#include "heap_calls.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const k_heap[] = {"malloc", "free", "__nv_aligned_device_malloc", NULL};

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* Skip whitespace and comments from p, counting newlines into *line. */
static const char *skip_space(const char *p, int *line)
{
    for (;;) {
        if (*p == '\n') {
            (*line)++;
            p++;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            p += 2;
            while (*p && !(p[0] == '*' && p[1] == '/'))
                *p++ == '\n' ? (*line)++ : 0;
            if (*p)
                p += 2;
        } else {
            return p;
        }
    }
}

bool pg_ptx_find_heap_call(const char *text, char *callee, size_t n, int *line)
{
    int ln = 1;
    const char *p = text;
    while (*p) {
        const char *q = skip_space(p, &ln);
        if (q != p) {
            p = q;
            continue;
        }
        if (*p == '"') { /* a string literal (e.g. in .file): skip it */
            for (p++; *p && *p != '"' && *p != '\n'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == '"')
                p++;
            continue;
        }
        if (!ident_char(*p) && *p != '.') {
            p++;
            continue;
        }
        const char *w = p;
        while (ident_char(*p) || *p == '.')
            p++;
        size_t len = (size_t)(p - w);
        if (!(len >= 4 && strncmp(w, "call", 4) == 0 && (len == 4 || w[4] == '.')))
            continue;
        /* call{.mods} [(ret),] callee */
        const char *c = skip_space(p, &ln);
        if (*c == '(') {
            while (*c && *c != ')')
                *c++ == '\n' ? ln++ : 0;
            if (*c)
                c++;
            c = skip_space(c, &ln);
            if (*c == ',')
                c = skip_space(c + 1, &ln);
        }
        const char *name = c;
        while (ident_char(*c))
            c++;
        size_t nl = (size_t)(c - name);
        for (int i = 0; k_heap[i]; i++)
            if (nl == strlen(k_heap[i]) && strncmp(name, k_heap[i], nl) == 0) {
                snprintf(callee, n, "%s", k_heap[i]);
                *line = ln;
                return true;
            }
        p = c > p ? c : p;
    }
    return false;
}
