/* PTX tokenizer (see ptx_lexer.h). */
#include "ptx_lexer.h"

#include <string.h>

void pg_ptx_lexer_init(pg_ptx_lexer *lx, const char *text, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '%' || c == '.';
}

static pg_ptok make(pg_ptok_kind kind, const char *text, size_t len, int line)
{
    return (pg_ptok){.kind = kind, .text = text, .len = len, .line = line};
}

static pg_ptok fail(pg_ptx_lexer *lx, const char *msg, int line)
{
    lx->p = lx->end;
    return make(PG_PTOK_ERROR, msg, strlen(msg), line);
}

static pg_ptok scan(pg_ptx_lexer *lx)
{
    for (;;) {
        if (lx->p >= lx->end)
            return make(PG_PTOK_END, lx->end, 0, lx->line);
        char c = *lx->p;
        if (c == '\n') {
            pg_ptok t = make(PG_PTOK_NEWLINE, lx->p, 1, lx->line);
            lx->p++;
            lx->line++;
            return t;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
            continue;
        }
        if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            int start = lx->line;
            const char *q = lx->p + 2;
            while (q + 1 < lx->end && !(q[0] == '*' && q[1] == '/')) {
                lx->line += *q == '\n';
                q++;
            }
            if (q + 1 >= lx->end)
                return fail(lx, "unterminated comment: '/*' is never closed by '*/'", start);
            lx->p = q + 2;
            continue;
        }
        break;
    }
    const char *s = lx->p;
    int line = lx->line;
    if (*s == '"') {
        const char *q = s + 1;
        while (q < lx->end && *q != '"' && *q != '\n')
            q += (*q == '\\' && q + 1 < lx->end && q[1] != '\n') ? 2 : 1;
        if (q >= lx->end || *q != '"')
            return fail(lx, "unterminated string literal", line);
        lx->p = q + 1;
        return make(PG_PTOK_STRING, s, (size_t)(lx->p - s), line);
    }
    if (is_word_char(*s)) {
        const char *q = s;
        for (;;) {
            if (q < lx->end && is_word_char(*q))
                q++;
            else if (q + 2 < lx->end && q[0] == ':' && q[1] == ':' && is_word_char(q[2]))
                q += 2;
            else
                break;
        }
        lx->p = q;
        return make(PG_PTOK_WORD, s, (size_t)(q - s), line);
    }
    lx->p++;
    return make(PG_PTOK_PUNCT, s, 1, line);
}

pg_ptok pg_ptx_lex_next(pg_ptx_lexer *lx)
{
    if (lx->has_peek) {
        lx->has_peek = false;
        return lx->peeked;
    }
    return scan(lx);
}

pg_ptok pg_ptx_lex_peek(pg_ptx_lexer *lx)
{
    if (!lx->has_peek) {
        lx->peeked = scan(lx);
        lx->has_peek = true;
    }
    return lx->peeked;
}

bool pg_ptok_is(const pg_ptok *tok, const char *s)
{
    return (tok->kind == PG_PTOK_WORD || tok->kind == PG_PTOK_PUNCT) && strlen(s) == tok->len &&
           memcmp(tok->text, s, tok->len) == 0;
}
