/* Integer expressions: a recursive-descent parser that evaluates while it parses (see expr.h).
 * In check mode values are unknown: the parser only validates syntax and symbol names. */
#include "expr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/utf8.h"

typedef struct {
    const char *text;
    size_t pos;
    bool eval;                 /* false: check mode, values unknown */
    const char *const *names;  /* NULL in check mode: any symbol accepted */
    const int64_t *values;     /* eval mode only */
    size_t count;
    pg_expr_clusters_fn clusters; /* eval mode: max_active_clusters, NULL = not available */
    void *clusters_ctx;
    char *err;
    size_t errlen;
} parser;

static pg_status parse_expr(parser *p, int64_t *v);

static pg_status fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static pg_status fail(parser *p, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        if (vsnprintf(p->err, p->errlen, fmt, ap) >= (int)p->errlen)
            pg_utf8_trim_cut(p->err); /* cut by the buffer: at a whole character */
        va_end(ap);
    }
    return PG_ERR_INPUT;
}

static void skip_space(parser *p)
{
    while (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' || p->text[p->pos] == '\n' ||
           p->text[p->pos] == '\r')
        p->pos++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The 1-based column of byte offset pos, in characters (the text may hold UTF-8). */
static size_t column(const parser *p, size_t pos)
{
    return pg_utf8_count(p->text, pos) + 1;
}

/* Syntax error at the current position: "expected EXPECTED, found 'c'" (or the end); c is the
 * whole character there, never one byte of it. */
static pg_status syntax(parser *p, const char *expected)
{
    const char *c = p->text + p->pos;
    if (*c == '\0')
        return fail(p, "syntax error at column %zu of '%s': expected %s, found the end",
                    column(p, p->pos), p->text, expected);
    return fail(p, "syntax error at column %zu of '%s': expected %s, found '%.*s'",
                column(p, p->pos), p->text, expected, (int)pg_utf8_char_len(c), c);
}

static pg_status overflow(parser *p, int64_t a, char op, int64_t b)
{
    return fail(p, "overflow in '%s': %" PRId64 " %c %" PRId64 " does not fit 64-bit signed",
                p->text, a, op, b);
}

/* Binary operation with overflow and zero-division checks; skipped in check mode. */
static pg_status apply(parser *p, int64_t a, char op, int64_t b, int64_t *r)
{
    if (!p->eval) {
        *r = 0;
        return PG_OK;
    }
    bool ovf = false;
    switch (op) {
    case '+': ovf = __builtin_add_overflow(a, b, r); break;
    case '-': ovf = __builtin_sub_overflow(a, b, r); break;
    case '*': ovf = __builtin_mul_overflow(a, b, r); break;
    case '/':
        if (b == 0)
            return fail(p, "division by zero in '%s'", p->text);
        if (a == INT64_MIN && b == -1)
            ovf = true;
        else
            *r = a / b;
        break;
    case '%':
        if (b == 0)
            return fail(p, "division by zero in '%s'", p->text);
        *r = b == -1 ? 0 : a % b; /* INT64_MIN % -1 is 0, but undefined in C */
        break;
    default: return fail(p, "internal error: operator '%c'", op);
    }
    return ovf ? overflow(p, a, op, b) : PG_OK;
}

static pg_status parse_number(parser *p, int64_t *v)
{
    size_t start = p->pos;
    int64_t n = 0;
    bool ovf = false;
    while (isdigit((unsigned char)p->text[p->pos])) {
        int digit = p->text[p->pos] - '0';
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, digit, &n))
            ovf = true;
        p->pos++;
    }
    if (ovf)
        return fail(p, "number '%.*s' at column %zu of '%s' does not fit 64-bit signed",
                    (int)(p->pos - start), p->text + start, column(p, start), p->text);
    *v = n;
    return PG_OK;
}

static pg_status lookup_symbol(parser *p, const char *name, size_t len, size_t col, int64_t *v)
{
    if (!p->eval && !p->names) {
        *v = 0;
        return PG_OK;
    }
    for (size_t i = 0; i < p->count; i++)
        if (strlen(p->names[i]) == len && strncmp(p->names[i], name, len) == 0) {
            *v = p->eval ? p->values[i] : 0;
            return PG_OK;
        }
    char known[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->count && used < sizeof known; i++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                 p->names[i]);
    if (p->count == 0)
        return fail(p, "unknown symbol '%.*s' at column %zu of '%s' (no symbols are defined)",
                    (int)len, name, col, p->text);
    return fail(p, "unknown symbol '%.*s' (known: %s)", (int)len, name, known);
}

/* max_active_clusters(cluster_size, dynamic_shared_bytes), its arguments parsed: the caller's
 * value. */
static pg_status clusters_call(parser *p, const int64_t args[2], size_t nargs, size_t col,
                               int64_t *v)
{
    if (nargs != 2)
        return fail(p, "max_active_clusters takes 2 arguments (cluster size, dynamic shared "
                       "bytes), found %zu, at column %zu of '%s'", nargs, col, p->text);
    *v = 0;
    if (!p->eval)
        return PG_OK;
    if (!p->clusters)
        return fail(p, "max_active_clusters at column %zu of '%s' is only available in launch "
                       "grid expressions", col, p->text);
    if (args[0] < 1)
        return fail(p, "max_active_clusters in '%s': the cluster size must be at least 1, "
                       "found %" PRId64, p->text, args[0]);
    if (args[1] < 0)
        return fail(p, "max_active_clusters in '%s': the dynamic shared bytes must not be "
                       "negative, found %" PRId64, p->text, args[1]);
    char err[512] = "";
    if (p->clusters(p->clusters_ctx, args[0], args[1], v, err, sizeof err) != PG_OK)
        return fail(p, "max_active_clusters(%" PRId64 ", %" PRId64 ") in '%s': %s", args[0],
                    args[1], p->text, err);
    return PG_OK;
}

/* FUNC '(' args ')': p->pos is at '('. */
static pg_status parse_call(parser *p, const char *name, size_t len, size_t col, int64_t *v)
{
    enum { F_CEIL_DIV, F_MIN, F_MAX, F_CLUSTERS } f;
    if (len == 8 && strncmp(name, "ceil_div", 8) == 0)
        f = F_CEIL_DIV;
    else if (len == 19 && strncmp(name, "max_active_clusters", 19) == 0)
        f = F_CLUSTERS;
    else if (len == 3 && strncmp(name, "min", 3) == 0)
        f = F_MIN;
    else if (len == 3 && strncmp(name, "max", 3) == 0)
        f = F_MAX;
    else
        return fail(p, "unknown function '%.*s' at column %zu of '%s' (known: ceil_div, min, max, "
                    "max_active_clusters)",
                    (int)len, name, col, p->text);
    p->pos++; /* '(' */
    int64_t args[2] = {0, 0}, acc = 0;
    size_t nargs = 0;
    for (;;) {
        int64_t a;
        pg_status st = parse_expr(p, &a);
        if (st != PG_OK)
            return st;
        if (nargs < 2)
            args[nargs] = a;
        if (nargs == 0 || (f == F_MIN && a < acc) || (f == F_MAX && a > acc))
            acc = a;
        nargs++;
        skip_space(p);
        if (p->text[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->text[p->pos] == ')') {
            p->pos++;
            break;
        }
        return syntax(p, "an operator, ',' or ')'");
    }
    if (f == F_MIN || f == F_MAX) {
        *v = p->eval ? acc : 0;
        return PG_OK;
    }
    if (f == F_CLUSTERS)
        return clusters_call(p, args, nargs, col, v);
    if (nargs != 2)
        return fail(p, "ceil_div takes 2 arguments, found %zu, at column %zu of '%s'", nargs, col,
                    p->text);
    if (!p->eval) {
        *v = 0;
        return PG_OK;
    }
    int64_t a = args[0], b = args[1];
    if (b == 0)
        return fail(p, "ceil_div by zero in '%s'", p->text);
    if (a == INT64_MIN && b == -1)
        return fail(p, "overflow in '%s': ceil_div(%" PRId64 ", %" PRId64
                       ") does not fit 64-bit signed", p->text, a, b);
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) == (b < 0)))
        q++;
    *v = q;
    return PG_OK;
}

static pg_status parse_primary(parser *p, int64_t *v)
{
    skip_space(p);
    char c = p->text[p->pos];
    if (isdigit((unsigned char)c))
        return parse_number(p, v);
    if (c == '(') {
        p->pos++;
        pg_status st = parse_expr(p, v);
        if (st != PG_OK)
            return st;
        skip_space(p);
        if (p->text[p->pos] != ')')
            return syntax(p, "an operator or ')'");
        p->pos++;
        return PG_OK;
    }
    if (!is_ident_start(c))
        return syntax(p, "a number, symbol or '('");
    size_t start = p->pos;
    while (is_ident_char(p->text[p->pos]))
        p->pos++;
    const char *name = p->text + start;
    size_t len = p->pos - start;
    skip_space(p);
    if (p->text[p->pos] == '(')
        return parse_call(p, name, len, column(p, start), v);
    if ((len == 8 && strncmp(name, "ceil_div", 8) == 0) ||
        (len == 19 && strncmp(name, "max_active_clusters", 19) == 0) ||
        (len == 3 && (strncmp(name, "min", 3) == 0 || strncmp(name, "max", 3) == 0)))
        return syntax(p, "'(' after a function name");
    return lookup_symbol(p, name, len, column(p, start), v);
}

static pg_status parse_unary(parser *p, int64_t *v)
{
    skip_space(p);
    if (p->text[p->pos] == '!') {
        p->pos++;
        int64_t a;
        pg_status st = parse_unary(p, &a);
        *v = p->eval && st == PG_OK ? !a : 0;
        return st;
    }
    if (p->text[p->pos] != '-')
        return parse_primary(p, v);
    p->pos++;
    int64_t a;
    pg_status st = parse_unary(p, &a);
    if (st != PG_OK)
        return st;
    return apply(p, 0, '-', a, v);
}

/* operand (op operand)*, left to right, for op one of the characters of ops: one level of
 * binary operators of equal precedence. */
static pg_status parse_left_assoc(parser *p, const char *ops,
                                  pg_status (*operand)(parser *p, int64_t *v), int64_t *v)
{
    pg_status st = operand(p, v);
    while (st == PG_OK) {
        skip_space(p);
        char op = p->text[p->pos];
        if (op == '\0' || !strchr(ops, op))
            break;
        p->pos++;
        int64_t b;
        st = operand(p, &b);
        if (st == PG_OK)
            st = apply(p, *v, op, b, v);
    }
    return st;
}

static pg_status parse_term(parser *p, int64_t *v)
{
    return parse_left_assoc(p, "*/%", parse_unary, v);
}

static pg_status parse_sum(parser *p, int64_t *v)
{
    return parse_left_assoc(p, "+-", parse_term, v);
}

/* A comparison operator at p->pos: its length (1 or 2) and kind, 0 when none. */
static int comparison_at(const parser *p, char kind[3])
{
    const char *c = p->text + p->pos;
    if ((c[0] == '<' || c[0] == '>' || c[0] == '=' || c[0] == '!') && c[1] == '=') {
        kind[0] = c[0], kind[1] = '=', kind[2] = '\0';
        return 2;
    }
    if (c[0] == '<' || c[0] == '>') {
        kind[0] = c[0], kind[1] = '\0';
        return 1;
    }
    return 0;
}

/* sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)*: 1 when true, 0 when false. */
static pg_status parse_comparison(parser *p, int64_t *v)
{
    pg_status st = parse_sum(p, v);
    while (st == PG_OK) {
        char k[3];
        skip_space(p);
        int len = comparison_at(p, k);
        if (!len)
            break;
        p->pos += (size_t)len;
        int64_t b;
        st = parse_sum(p, &b);
        if (st != PG_OK || !p->eval) {
            *v = 0;
            continue;
        }
        int64_t a = *v;
        *v = k[0] == '<'   ? (k[1] ? a <= b : a < b)
             : k[0] == '>' ? (k[1] ? a >= b : a > b)
             : k[0] == '=' ? a == b
                           : a != b;
    }
    return st;
}

/* Operands of && / ||, short-circuited as in C: once the left side decides, the right side is
 * only checked (syntax and names), so "N != 0 && M / N > 2" never divides by zero. */
static pg_status parse_logic(parser *p, int64_t *v, const char *op,
                             pg_status (*operand)(parser *, int64_t *))
{
    pg_status st = operand(p, v);
    while (st == PG_OK) {
        skip_space(p);
        if (strncmp(p->text + p->pos, op, 2) != 0)
            break;
        p->pos += 2;
        bool was_eval = p->eval;
        bool decided = was_eval && (op[0] == '&' ? *v == 0 : *v != 0);
        if (decided)
            p->eval = false;
        int64_t b;
        st = operand(p, &b);
        p->eval = was_eval;
        if (was_eval)
            *v = decided ? (op[0] == '|') : (b != 0);
    }
    return st;
}

static pg_status parse_and(parser *p, int64_t *v)
{
    return parse_logic(p, v, "&&", parse_comparison);
}

static pg_status parse_expr(parser *p, int64_t *v)
{
    return parse_logic(p, v, "||", parse_and);
}

/* Whole-text parse shared by eval and check. */
static pg_status run(parser *p, int64_t *out)
{
    if (!p->text)
        return fail(p, "no expression");
    size_t len = strnlen(p->text, PG_EXPR_MAX_LEN + 1);
    if (len > PG_EXPR_MAX_LEN)
        return fail(p, "expression is longer than %d characters", PG_EXPR_MAX_LEN);
    int64_t v = 0;
    pg_status st = parse_expr(p, &v);
    if (st != PG_OK)
        return st;
    skip_space(p);
    if (p->text[p->pos] != '\0')
        return syntax(p, "an operator or the end");
    if (out)
        *out = v;
    return PG_OK;
}

pg_status pg_expr_eval(const char *text, const pg_symtab *syms, int64_t *out, char *err,
                       size_t errlen)
{
    static const char *const no_names[1] = {NULL};
    static const int64_t no_values[1] = {0};
    parser p = {.text = text,
                .eval = true,
                .names = syms ? syms->names : no_names,
                .values = syms ? syms->values : no_values,
                .count = syms ? syms->count : 0,
                .clusters = syms ? syms->clusters : NULL,
                .clusters_ctx = syms ? syms->clusters_ctx : NULL,
                .err = err,
                .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    return run(&p, out);
}

pg_status pg_expr_check(const char *text, const char *const *names, size_t count, char *err,
                        size_t errlen)
{
    parser p = {.text = text, .eval = false, .names = names, .count = names ? count : 0,
                .err = err, .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    return run(&p, NULL);
}

pg_status pg_expr_from_json_value(const json_t *v, const pg_jctx *ctx, char *out, size_t n,
                                  pg_diag *d)
{
    char text[PG_EXPR_MAX_LEN + 2];
    if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_string(v)) {
        size_t len = json_string_length(v);
        if (len == 0)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                               "expected an integer expression, found an empty string");
        if (len > PG_EXPR_MAX_LEN || len >= n)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                               "expression is too long (%zu characters, at most %zu)", len,
                               n - 1 < PG_EXPR_MAX_LEN ? n - 1 : (size_t)PG_EXPR_MAX_LEN);
        if (strlen(json_string_value(v)) != len)
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                               "expression contains a NUL character");
        snprintf(text, sizeof text, "%s", json_string_value(v));
    } else {
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expected an integer expression (a JSON integer or a string), found %s",
                           pg_json_type_name(v));
    }
    char err[1024];
    if (pg_expr_check(text, NULL, 0, err, sizeof err) != PG_OK)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path, "%s", err);
    if (strlen(text) >= n)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, ctx->path,
                           "expression is too long (%zu characters, at most %zu)", strlen(text),
                           n - 1);
    snprintf(out, n, "%s", text);
    return PG_OK;
}

pg_status pg_expr_from_json(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                            char *out, size_t n, pg_diag *d)
{
    json_t *v = json_object_get(obj, key);
    pg_jctx c = pg_jctx_member(ctx, key);
    if (!v) {
        if (!required)
            return PG_OK;
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, c.path,
                           "required field is missing (an integer expression)");
    }
    return pg_expr_from_json_value(v, &c, out, n, d);
}

/* An identifier name in text followed by '(' (want_call) or not. */
static bool names_ident(const char *text, const char *name, bool want_call)
{
    size_t n = strlen(name);
    for (size_t i = 0; text[i];) {
        if (!is_ident_start(text[i]) || (i > 0 && is_ident_char(text[i - 1]))) {
            i++;
            continue;
        }
        size_t start = i;
        while (is_ident_char(text[i]))
            i++;
        size_t j = i;
        while (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')
            j++;
        if (i - start == n && strncmp(text + start, name, n) == 0 &&
            (text[j] == '(') == want_call)
            return true;
    }
    return false;
}

bool pg_expr_names_symbol(const char *text, const char *name)
{
    return names_ident(text, name, false);
}

bool pg_expr_names_function(const char *text, const char *name)
{
    return names_ident(text, name, true);
}
