/* .entry signatures and module directives from PTX text (see signature.h): a tokenizer that skips
 * comments and strings, and a parser that reads module-level directives and entry headers and
 * skips every body by brace matching. */
#include "signature.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"

/* ---- tokenizer ---------------------------------------------------------------------------- */

typedef enum { TOK_EOF, TOK_WORD, TOK_PUNCT } tok_kind;

/* A word is a directive or type (".param": a dot and identifier characters, so ".u64.ptr" is two
 * words), a number ("8.7", "0f3F800000", "0x10") or an identifier ("%r1", "$L__BB0_2", "name").
 * Everything else is one punctuation character. */
typedef struct {
    tok_kind kind;
    const char *s; /* start in the text; not NUL-terminated */
    size_t len;
    int line;
} token;

typedef struct {
    const char *p; /* next unread character */
    int line;
    const char *file;
    pg_diag *d;
    token peeked;
    bool has_peek;
} lexer;

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Skip blanks, comments and string literals; fail on an unterminated comment or string. */
static pg_status lex_skip(lexer *lx)
{
    for (;;) {
        char c = *lx->p;
        if (c == '\n') {
            lx->line++;
            lx->p++;
        } else if (isspace((unsigned char)c)) {
            lx->p++;
        } else if (c == '/' && lx->p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p[1] == '*') {
            const char *end = strstr(lx->p + 2, "*/");
            if (!end)
                return pg_diag_set(lx->d, PG_ERR_INPUT, lx->file, lx->line, NULL,
                                   "unterminated comment: '/*' is never closed by '*/'");
            for (const char *q = lx->p; q < end; q++)
                lx->line += *q == '\n';
            lx->p = end + 2;
        } else if (c == '"') {
            const char *q = lx->p + 1;
            while (*q && *q != '"' && *q != '\n')
                q += (*q == '\\' && q[1] && q[1] != '\n') ? 2 : 1;
            if (*q != '"')
                return pg_diag_set(lx->d, PG_ERR_INPUT, lx->file, lx->line, NULL,
                                   "unterminated string literal");
            lx->p = q + 1;
        } else {
            return PG_OK;
        }
    }
}

static pg_status lex_scan(lexer *lx, token *t)
{
    pg_status st = lex_skip(lx);
    if (st != PG_OK)
        return st;
    const char *q = lx->p;
    t->s = q;
    t->line = lx->line;
    t->kind = TOK_WORD;
    if (*q == '\0') {
        t->kind = TOK_EOF;
    } else if (*q == '.') {
        for (q++; is_ident_char(*q); q++)
            ;
    } else if (isdigit((unsigned char)*q)) {
        while (is_ident_char(*q) || *q == '.')
            q++;
    } else if (is_ident_char(*q) || *q == '%') {
        for (q++; is_ident_char(*q); q++)
            ;
    } else {
        t->kind = TOK_PUNCT;
        q++;
    }
    t->len = (size_t)(q - t->s);
    lx->p = q;
    return PG_OK;
}

static pg_status lex_next(lexer *lx, token *t)
{
    if (lx->has_peek) {
        *t = lx->peeked;
        lx->has_peek = false;
        return PG_OK;
    }
    return lex_scan(lx, t);
}

static pg_status lex_peek(lexer *lx, token *t)
{
    if (!lx->has_peek) {
        pg_status st = lex_scan(lx, &lx->peeked);
        if (st != PG_OK)
            return st;
        lx->has_peek = true;
    }
    *t = lx->peeked;
    return PG_OK;
}

static bool tok_is(const token *t, const char *s)
{
    return t->kind != TOK_EOF && strlen(s) == t->len && memcmp(t->s, s, t->len) == 0;
}

static bool tok_is_name(const token *t)
{
    return t->kind == TOK_WORD && t->s[0] != '.' && !isdigit((unsigned char)t->s[0]);
}

/* The token as shown in messages: at most 40 characters, "end of file" at the end. */
static const char *tok_show(const token *t, char *buf, size_t n)
{
    if (t->kind == TOK_EOF)
        snprintf(buf, n, "end of file");
    else
        snprintf(buf, n, "'%.*s'", PG_UTF8_CUT(t->s, t->len > 40 ? 40 : t->len), t->s);
    return buf;
}

/* A decimal or 0x number that fits an unsigned. */
static bool tok_uint(const token *t, unsigned *out)
{
    char buf[32];
    if (t->kind != TOK_WORD || !isdigit((unsigned char)t->s[0]) || t->len >= sizeof buf)
        return false;
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    char *end;
    errno = 0;
    unsigned long v = strtoul(buf, &end, 0);
    if (*end || errno || v > 0xFFFFFFFFul)
        return false;
    *out = (unsigned)v;
    return true;
}

/* ---- parser ------------------------------------------------------------------------------- */

typedef struct {
    lexer lx;
    pg_ptx_module_info *m;
    int cap_entries;
} parser;

#define FAIL(ps, line, ...) pg_diag_set((ps)->lx.d, PG_ERR_INPUT, (ps)->lx.file, (line), NULL, __VA_ARGS__)

/* Copy a name token into dst[256]; names over 255 characters are refused. */
static pg_status copy_name(parser *ps, const token *t, char *dst, const char *what)
{
    if (t->len > 255)
        return FAIL(ps, t->line, "%s '%.*s...' is %zu characters long; the limit is 255", what,
                    PG_UTF8_CUT(t->s, 40), t->s, t->len);
    memcpy(dst, t->s, t->len);
    dst[t->len] = '\0';
    return PG_OK;
}

/* Element size in bytes of a parameter type word, 0 if it is not a type. */
static unsigned type_size(const token *t)
{
    static const struct { const char *name; unsigned size; } types[] = {
        {".u8", 1},  {".s8", 1},   {".b8", 1},    {".pred", 1},  {".u16", 2},   {".s16", 2},
        {".b16", 2}, {".f16", 2},  {".bf16", 2},  {".u32", 4},   {".s32", 4},   {".b32", 4},
        {".f32", 4}, {".f16x2", 4},{".bf16x2", 4},{".u64", 8},   {".s64", 8},   {".b64", 8},
        {".f64", 8}, {".b128", 16},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (tok_is(t, types[i].name))
            return types[i].size;
    return 0;
}

static bool is_state_space(const token *t)
{
    return tok_is(t, ".global") || tok_is(t, ".shared") || tok_is(t, ".const") ||
           tok_is(t, ".local");
}

/* Names of CUDA device runtime functions: a module naming one needs the device runtime. */
static bool is_device_runtime_name(const token *t)
{
    static const char *const names[] = {
        "cudaLaunchDevice",      "cudaLaunchDeviceV2",       "cudaGetParameterBuffer",
        "cudaGetParameterBufferV2", "cudaDeviceSynchronize", "cudaStreamCreateWithFlags",
        "cudaStreamDestroy",     "cudaEventCreateWithFlags", "cudaEventRecord",
        "cudaEventRecordWithFlags", "cudaEventDestroy",      "cudaMalloc",
        "cudaFree",              "cudaGetDevice",            "cudaDeviceGetAttribute",
        "cudaGetLastError",      "cudaPeekAtLastError",      "cudaGraphLaunch",
        "cudaCGGetIntrinsicHandle", "cudaCGSynchronize",
    };
    if (t->kind != TOK_WORD || t->len < 5 || memcmp(t->s, "cuda", 4) != 0)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (tok_is(t, names[i]))
            return true;
    return false;
}

static pg_status missing_paren(parser *ps, const pg_ptx_entry *e, int open_line, const token *t)
{
    char show[64];
    return FAIL(ps, t->line,
                "missing ')': the parameter list of entry '%s' opened at line %d is not closed "
                "before %s",
                e->name, open_line, tok_show(t, show, sizeof show));
}

static bool ends_header(const token *t)
{
    return t->kind == TOK_EOF || tok_is(t, "{") || tok_is(t, ";");
}

/* "[N]" dimensions after a parameter name; multiplies them into p->array_len. */
static pg_status parse_dims(parser *ps, const pg_ptx_entry *e, pg_ptx_param *p)
{
    token t;
    char show[64];
    pg_status st;
    while ((st = lex_peek(&ps->lx, &t)) == PG_OK && tok_is(&t, "[")) {
        unsigned n;
        lex_next(&ps->lx, &t);
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (!tok_uint(&t, &n) || n == 0)
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': parameter '%s' needs a positive "
                        "array length, found %s",
                        e->name, p->name, tok_show(&t, show, sizeof show));
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (!tok_is(&t, "]"))
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': expected ']' after the array "
                        "length of parameter '%s', found %s",
                        e->name, p->name, tok_show(&t, show, sizeof show));
        unsigned long long len = (unsigned long long)(p->array_len ? p->array_len : 1) * n;
        if (len > (1u << 24))
            return FAIL(ps, t.line, "parameter '%s' of entry '%s' is too large (%llu elements)",
                        p->name, e->name, len);
        p->array_len = (unsigned)len;
    }
    return st;
}

static pg_status push_param(parser *ps, pg_ptx_entry *e, const pg_ptx_param *p)
{
    if (e->n_params >= PG_PTX_MAX_PARAMS)
        return FAIL(ps, p->line, "entry '%s' has more than %d parameters", e->name,
                    PG_PTX_MAX_PARAMS);
    /* grow by doubling; n_params is a power of two exactly when the array is full */
    if (e->n_params == 0 || (e->n_params & (e->n_params - 1)) == 0) {
        size_t cap = e->n_params ? (size_t)e->n_params * 2 : 4;
        pg_ptx_param *np = realloc(e->params, cap * sizeof *np);
        if (!np)
            return pg_diag_set(ps->lx.d, PG_ERR_INFRA, ps->lx.file, p->line, NULL,
                               "out of memory");
        e->params = np;
    }
    e->params[e->n_params++] = *p;
    return PG_OK;
}

/* One parameter after its ".param" word (kw): modifiers and type, name, dimensions. */
static pg_status parse_param(parser *ps, pg_ptx_entry *e, const token *kw, int open_line)
{
    pg_ptx_param p;
    memset(&p, 0, sizeof p);
    p.line = kw->line;
    unsigned elem = 0, align = 0;
    bool after_ptr = false;
    token t;
    char show[64];
    pg_status st;
    for (;;) {
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (t.kind == TOK_EOF)
            return missing_paren(ps, e, open_line, &t);
        if (tok_is_name(&t))
            break;
        if (t.kind != TOK_WORD || t.s[0] != '.')
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': expected a parameter name, found %s",
                        e->name, tok_show(&t, show, sizeof show));
        unsigned sz = type_size(&t);
        if (tok_is(&t, ".align")) {
            unsigned n;
            if ((st = lex_next(&ps->lx, &t)) != PG_OK)
                return st;
            if (!tok_uint(&t, &n) || n == 0 || (n & (n - 1)) != 0)
                return FAIL(ps, t.line,
                            "malformed .param list of entry '%s': '.align' needs a power of two, "
                            "found %s",
                            e->name, tok_show(&t, show, sizeof show));
            if (!after_ptr) /* after .ptr it is the pointee's alignment, not the parameter's */
                align = n;
        } else if (tok_is(&t, ".ptr")) {
            after_ptr = true;
        } else if (after_ptr && is_state_space(&t)) {
            /* pointee state space: no effect on the parameter itself */
        } else if (sz && !elem) {
            elem = sz;
            snprintf(p.type, sizeof p.type, "%.*s", (int)t.len, t.s);
        } else {
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': %s is not a parameter type or "
                        "modifier here",
                        e->name, tok_show(&t, show, sizeof show));
        }
    }
    if ((st = copy_name(ps, &t, p.name, "parameter name")) != PG_OK)
        return st;
    if (!elem)
        return FAIL(ps, t.line, "malformed .param list of entry '%s': parameter '%s' has no type",
                    e->name, p.name);
    if ((st = parse_dims(ps, e, &p)) != PG_OK)
        return st;
    p.size_bytes = elem * (p.array_len ? p.array_len : 1);
    p.align_bytes = align ? align : elem;
    return push_param(ps, e, &p);
}

/* The parameter list after '(' (at open_line), through ')'. */
static pg_status parse_params(parser *ps, pg_ptx_entry *e, int open_line)
{
    token t;
    char show[64];
    pg_status st;
    if ((st = lex_peek(&ps->lx, &t)) != PG_OK)
        return st;
    if (tok_is(&t, ")"))
        return lex_next(&ps->lx, &t);
    for (;;) {
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (ends_header(&t))
            return missing_paren(ps, e, open_line, &t);
        if (!tok_is(&t, ".param"))
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': expected '.param', found %s",
                        e->name, tok_show(&t, show, sizeof show));
        if ((st = parse_param(ps, e, &t, open_line)) != PG_OK)
            return st;
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (tok_is(&t, ")"))
            return PG_OK;
        if (ends_header(&t))
            return missing_paren(ps, e, open_line, &t);
        if (!tok_is(&t, ","))
            return FAIL(ps, t.line,
                        "malformed .param list of entry '%s': expected ',' or ')' after "
                        "parameter '%s', found %s",
                        e->name, e->params[e->n_params - 1].name, tok_show(&t, show, sizeof show));
    }
}

/* 1 to max comma-separated numbers after the directive dir; missing dimensions become 1. */
static pg_status parse_numbers(parser *ps, const token *dir, unsigned *out, int max)
{
    token t;
    char show[64];
    pg_status st;
    for (int i = 0; i < max; i++)
        out[i] = 1;
    for (int i = 0; i < max; i++) {
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (!tok_uint(&t, &out[i]))
            return FAIL(ps, t.line, "'%.*s' needs 1 to %d numbers, found %s", (int)dir->len,
                        dir->s, max, tok_show(&t, show, sizeof show));
        if ((st = lex_peek(&ps->lx, &t)) != PG_OK)
            return st;
        if (!tok_is(&t, ",") || i + 1 == max)
            return PG_OK;
        lex_next(&ps->lx, &t);
    }
    return PG_OK;
}

/* Skip through the next ';' (a .pragma "..."; of the entry), stopping before '{' or the end. */
static pg_status skip_statement(parser *ps)
{
    token t;
    pg_status st;
    while ((st = lex_peek(&ps->lx, &t)) == PG_OK && t.kind != TOK_EOF && !tok_is(&t, "{")) {
        lex_next(&ps->lx, &t);
        if (tok_is(&t, ";"))
            break;
    }
    return st;
}

/* Directives between the parameter list and the body; stops before '{', ';' or the end. */
static pg_status parse_perf_directives(parser *ps, pg_ptx_entry *e)
{
    token t;
    unsigned scratch[3];
    pg_status st;
    for (;;) {
        if ((st = lex_peek(&ps->lx, &t)) != PG_OK)
            return st;
        if (ends_header(&t))
            return PG_OK;
        lex_next(&ps->lx, &t);
        if (tok_is(&t, ".reqntid"))
            st = parse_numbers(ps, &t, e->reqntid, 3);
        else if (tok_is(&t, ".maxntid"))
            st = parse_numbers(ps, &t, e->maxntid, 3);
        else if (tok_is(&t, ".reqnctapercluster"))
            st = parse_numbers(ps, &t, scratch, 3);
        else if (tok_is(&t, ".minnctapersm") || tok_is(&t, ".maxnreg") ||
                 tok_is(&t, ".maxclusterrank") || tok_is(&t, ".maxnctapersm"))
            st = parse_numbers(ps, &t, scratch, 1);
        else if (tok_is(&t, ".pragma"))
            st = skip_statement(ps);
        /* .explicitcluster, .noreturn and anything else: nothing to record */
        if (st != PG_OK)
            return st;
    }
}

static pg_status push_entry(parser *ps, pg_ptx_entry *e)
{
    pg_ptx_module_info *m = ps->m;
    for (int i = 0; i < m->n_entries; i++)
        if (strcmp(m->entries[i].name, e->name) == 0)
            return FAIL(ps, e->line, "entry '%s' is defined twice (first at line %d)", e->name,
                        m->entries[i].line);
    if (m->n_entries >= PG_PTX_MAX_ENTRIES)
        return FAIL(ps, e->line, "more than %d entries in one module", PG_PTX_MAX_ENTRIES);
    if (m->n_entries == ps->cap_entries) {
        int cap = ps->cap_entries ? ps->cap_entries * 2 : 8;
        pg_ptx_entry *ne = realloc(m->entries, (size_t)cap * sizeof *ne);
        if (!ne)
            return pg_diag_set(ps->lx.d, PG_ERR_INFRA, ps->lx.file, e->line, NULL,
                               "out of memory");
        m->entries = ne;
        ps->cap_entries = cap;
    }
    m->entries[m->n_entries++] = *e;
    return PG_OK;
}

/* An entry after its ".entry" word (kw): name, optional parameter list, directives. The body
 * (or the ';' of a declaration) is left for the caller. */
static pg_status parse_entry(parser *ps, const token *kw, bool visible)
{
    pg_ptx_entry e;
    memset(&e, 0, sizeof e);
    e.line = kw->line;
    e.visible = visible;
    token t;
    char show[64];
    pg_status st = lex_next(&ps->lx, &t);
    if (st != PG_OK)
        goto done;
    if (!tok_is_name(&t)) {
        st = FAIL(ps, t.line, "expected a kernel name after '.entry', found %s",
                  tok_show(&t, show, sizeof show));
        goto done;
    }
    if ((st = copy_name(ps, &t, e.name, "entry name")) != PG_OK)
        goto done;
    if ((st = lex_peek(&ps->lx, &t)) != PG_OK)
        goto done;
    if (tok_is(&t, "(")) {
        lex_next(&ps->lx, &t);
        if ((st = parse_params(ps, &e, t.line)) != PG_OK)
            goto done;
    }
    if ((st = parse_perf_directives(ps, &e)) != PG_OK)
        goto done;
    lex_peek(&ps->lx, &t);
    if (t.kind == TOK_EOF)
        st = FAIL(ps, e.line, "entry '%s' has no body", e.name);
    else if (tok_is(&t, "{") && (st = push_entry(ps, &e)) == PG_OK)
        e.params = NULL; /* now owned by the module */
done:
    free(e.params);
    return st;
}

static pg_status parse_version(parser *ps, const token *kw)
{
    token t;
    char show[64];
    pg_status st = lex_next(&ps->lx, &t);
    if (st != PG_OK)
        return st;
    if (t.kind != TOK_WORD || !isdigit((unsigned char)t.s[0]) || t.len >= sizeof ps->m->version)
        return FAIL(ps, t.line, "'.version' needs a number like 8.7, found %s",
                    tok_show(&t, show, sizeof show));
    snprintf(ps->m->version, sizeof ps->m->version, "%.*s", (int)t.len, t.s);
    ps->m->version_line = kw->line;
    return PG_OK;
}

static pg_status parse_target(parser *ps, const token *kw)
{
    token t, first;
    char show[64];
    pg_status st = lex_next(&ps->lx, &first);
    if (st != PG_OK)
        return st;
    if (!tok_is_name(&first))
        return FAIL(ps, first.line, "'.target' needs an architecture like sm_90a, found %s",
                    tok_show(&first, show, sizeof show));
    const char *end = first.s + first.len;
    while ((st = lex_peek(&ps->lx, &t)) == PG_OK && tok_is(&t, ",")) {
        lex_next(&ps->lx, &t);
        if ((st = lex_next(&ps->lx, &t)) != PG_OK)
            return st;
        if (!tok_is_name(&t))
            return FAIL(ps, t.line, "'.target' list: expected a target name after ',', found %s",
                        tok_show(&t, show, sizeof show));
        end = t.s + t.len;
    }
    if (st != PG_OK)
        return st;
    pg_ptx_module_info *m = ps->m;
    snprintf(m->target, sizeof m->target, "%.*s",
             PG_UTF8_CUT(first.s, first.len > 127 ? 127 : first.len), first.s);
    size_t raw = (size_t)(end - first.s);
    snprintf(m->targets_raw, sizeof m->targets_raw, "%.*s",
             PG_UTF8_CUT(first.s, raw > 127 ? 127 : raw), first.s);
    m->target_line = kw->line;
    return PG_OK;
}

static pg_status parse_address_size(parser *ps)
{
    token t;
    char show[64];
    unsigned n;
    pg_status st = lex_next(&ps->lx, &t);
    if (st != PG_OK)
        return st;
    if (!tok_uint(&t, &n) || (n != 32 && n != 64))
        return FAIL(ps, t.line, "'.address_size' must be 32 or 64, found %s",
                    tok_show(&t, show, sizeof show));
    ps->m->address_size = (int)n;
    return PG_OK;
}

/* Module level: directives at brace depth 0; bodies are skipped by brace matching. */
static pg_status parse_module(parser *ps)
{
    token t;
    int depth = 0, open_line = 0;
    bool visible = false; /* a .visible seen in the current module-level statement */
    pg_status st;
    while ((st = lex_next(&ps->lx, &t)) == PG_OK && t.kind != TOK_EOF) {
        if (is_device_runtime_name(&t))
            ps->m->uses_device_runtime = true;
        if (tok_is(&t, "{")) {
            if (depth++ == 0)
                open_line = t.line;
        } else if (tok_is(&t, "}")) {
            if (depth == 0)
                return FAIL(ps, t.line, "'}' without a matching '{'");
            if (--depth == 0)
                visible = false;
        } else if (depth > 0) {
            continue;
        } else if (tok_is(&t, ";")) {
            visible = false;
        } else if (tok_is(&t, ".visible")) {
            visible = true;
        } else if (tok_is(&t, ".version")) {
            st = parse_version(ps, &t);
        } else if (tok_is(&t, ".target")) {
            st = parse_target(ps, &t);
        } else if (tok_is(&t, ".address_size")) {
            st = parse_address_size(ps);
        } else if (tok_is(&t, ".entry")) {
            st = parse_entry(ps, &t, visible);
            visible = false;
        }
        if (st != PG_OK)
            return st;
    }
    if (st == PG_OK && depth > 0)
        st = FAIL(ps, open_line, "missing '}': the '{' opened at line %d is never closed",
                  open_line);
    return st;
}

pg_status pg_ptx_parse_signatures(const char *ptx, const char *file, pg_ptx_module_info *out,
                                  pg_diag *d)
{
    memset(out, 0, sizeof *out);
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.lx.p = ptx;
    ps.lx.line = 1;
    ps.lx.file = file;
    ps.lx.d = d;
    ps.m = out;
    pg_status st = parse_module(&ps);
    if (st != PG_OK)
        pg_ptx_module_info_free(out);
    return st;
}

void pg_ptx_module_info_free(pg_ptx_module_info *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n_entries; i++)
        free(m->entries[i].params);
    free(m->entries);
    memset(m, 0, sizeof *m);
}

const pg_ptx_entry *pg_ptx_find_entry(const pg_ptx_module_info *m, const char *name)
{
    for (int i = 0; m && name && i < m->n_entries; i++)
        if (strcmp(m->entries[i].name, name) == 0)
            return &m->entries[i];
    return NULL;
}
