/* Parsing -M dependency rules, -H include trees and cc -v search lists (see cu_deps.h). */
#include "cu_deps.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

pg_status pg_strlist_add(pg_strlist *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items)
            return PG_ERR_INFRA;
        l->items = items;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return PG_ERR_INFRA;
    memcpy(copy, s, len);
    copy[len] = '\0';
    l->items[l->n++] = copy;
    return PG_OK;
}

void pg_strlist_free(pg_strlist *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static bool listed(const pg_strlist *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return true;
    return false;
}

pg_status pg_depfile_parse(const char *text, pg_strlist *out)
{
    memset(out, 0, sizeof out[0]);
    size_t cap = strlen(text) + 1;
    char *word = malloc(cap);
    if (!word)
        return PG_ERR_INFRA;
    bool in_head = true, any_rule = false;
    pg_status st = PG_OK;
    const char *p = text;
    while (*p && st == PG_OK) {
        /* Blanks and escaped newlines separate words; a plain newline ends a rule. */
        if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\n' ? 2 : 3;
            continue;
        }
        if (*p == '\n') {
            in_head = true;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
            continue;
        }
        size_t k = 0;
        bool head_end = false;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            if (*p == '\\' && (p[1] == ' ' || p[1] == '\t' || p[1] == '#')) {
                word[k++] = p[1];
                p += 2;
            } else if (*p == '\\' && p[1] == '\n') {
                break;
            } else if (*p == '$' && p[1] == '$') {
                word[k++] = '$';
                p += 2;
            } else if (in_head && *p == ':' &&
                       (p[1] == '\0' || p[1] == ' ' || p[1] == '\t' || p[1] == '\n' ||
                        p[1] == '\r' || (p[1] == '\\' && p[2] == '\n'))) {
                head_end = true;
                p++;
                break;
            } else {
                word[k++] = *p++;
            }
        }
        if (in_head) {
            if (head_end) {
                in_head = false; /* the words before were targets */
                any_rule = true;
            }
            continue;
        }
        if (k > 0) {
            word[k] = '\0';
            if (!listed(out, word))
                st = pg_strlist_add(out, word, k);
        }
    }
    free(word);
    if (st == PG_OK && !any_rule)
        st = PG_ERR_INPUT;
    if (st != PG_OK)
        pg_strlist_free(out);
    return st;
}

/* Depth of a -H line (its dots) and the name after "dots + space"; 0 when not such a line. */
static int tree_line(const char *line, size_t len, const char **name, size_t *name_len)
{
    size_t dots = 0;
    while (dots < len && line[dots] == '.')
        dots++;
    if (dots == 0 || dots + 1 >= len || line[dots] != ' ')
        return 0;
    *name = line + dots + 1;
    *name_len = len - dots - 1;
    return (int)dots;
}

bool pg_include_tree_parent(const char *tree, const char *dep, char *parent, size_t n)
{
    enum { MAX_DEPTH = 256 };
    const char *at[MAX_DEPTH + 1] = {0};
    size_t at_len[MAX_DEPTH + 1] = {0};
    size_t dep_len = strlen(dep);
    parent[0] = '\0';
    for (const char *line = tree; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *name;
        size_t name_len;
        int depth = tree_line(line, len, &name, &name_len);
        if (depth > 0 && depth <= MAX_DEPTH) {
            at[depth] = name;
            at_len[depth] = name_len;
            for (int k = depth + 1; k <= MAX_DEPTH && at[k]; k++)
                at[k] = NULL;
            if (name_len == dep_len && memcmp(name, dep, dep_len) == 0) {
                if (depth > 1 && at[depth - 1]) {
                    size_t m = at_len[depth - 1] < n - 1 ? at_len[depth - 1] : n - 1;
                    memcpy(parent, at[depth - 1], m);
                    parent[m] = '\0';
                }
                return true;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return false;
}

pg_status pg_cc_search_dirs_parse(const char *text, pg_strlist *out)
{
    memset(out, 0, sizeof out[0]);
    bool inside = false, found = false;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len >= 20 && memcmp(line, "#include ", 9) == 0 &&
            memmem(line, len, "search starts here:", 19)) {
            inside = found = true;
        } else if (len >= 19 && memcmp(line, "End of search list.", 19) == 0) {
            inside = false;
        } else if (inside && len > 0 && (line[0] == ' ' || line[0] == '\t')) {
            const char *s = line;
            while (*s == ' ' || *s == '\t')
                s++;
            size_t k = len - (size_t)(s - line);
            const char *fw = " (framework directory)";
            if (k > strlen(fw) && memcmp(s + k - strlen(fw), fw, strlen(fw)) == 0)
                k -= strlen(fw);
            if (k > 0 && pg_strlist_add(out, s, k) != PG_OK) {
                pg_strlist_free(out);
                return PG_ERR_INFRA;
            }
        }
        line = end ? end + 1 : NULL;
    }
    if (!found) {
        pg_strlist_free(out);
        return PG_ERR_INPUT;
    }
    return PG_OK;
}

/* The directive words that name a file to read. */
static bool include_word(const char *s, size_t *len)
{
    static const char *const words[] = {"include_next", "include", "import", "embed"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t k = strlen(words[i]);
        if (strncmp(s, words[i], k) == 0 && !isalnum((unsigned char)s[k]) && s[k] != '_') {
            *len = k;
            return true;
        }
    }
    return false;
}

int pg_include_line_find(const char *text, const char *name)
{
    size_t name_len = strlen(name);
    int lineno = 1;
    for (const char *line = text; line && *line; lineno++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *s = line, *stop = line + len;
        while (s < stop && (*s == ' ' || *s == '\t'))
            s++;
        size_t wl = 0;
        if (s < stop && *s == '#') {
            s++;
            while (s < stop && (*s == ' ' || *s == '\t'))
                s++;
            if (include_word(s, &wl) && s + wl <= stop) {
                s += wl;
                while (s < stop && (*s == ' ' || *s == '\t'))
                    s++;
                if (s < stop && (*s == '"' || *s == '<')) {
                    char close = *s == '"' ? '"' : '>';
                    const char *q = memchr(s + 1, close, (size_t)(stop - s - 1));
                    if (q) {
                        size_t fl = (size_t)(q - s - 1);
                        const char *f = s + 1;
                        if (fl >= name_len && memcmp(f + fl - name_len, name, name_len) == 0 &&
                            (fl == name_len || f[fl - name_len - 1] == '/'))
                            return lineno;
                    }
                }
            }
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}
