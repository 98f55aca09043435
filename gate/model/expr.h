/* Integer expressions over a workload's size symbols (docs/formats.md, "Integer expressions"):
 * reading them from JSON, checking their syntax and symbol names, and evaluating them in 64-bit
 * signed arithmetic with every overflow and division by zero reported as an error.
 *
 * Grammar (whitespace between tokens is ignored), loosest first as in C:
 *   expr    := and ('||' and)*
 *   and     := cmp ('&&' cmp)*
 *   cmp     := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)*
 *   sum     := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | '!' unary | primary
 *   primary := INTEGER | SYMBOL | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
 *   FUNC    := ceil_div (exactly 2 arguments) | min | max (1 or more arguments)
 *            | max_active_clusters (exactly 2 arguments: cluster size >= 1, dynamic shared
 *              bytes >= 0; its value comes from the caller, see pg_symtab)
 * INTEGER is a decimal literal that fits int64; SYMBOL is [A-Za-z_][A-Za-z0-9_]*. '/' truncates
 * toward zero and '%' is its remainder (C semantics); ceil_div(a, b) is the mathematical ceiling
 * of a/b. Comparisons, '!', '&&' and '||' give 1 (true) or 0 (false) and take any nonzero value
 * as true; '&&' and '||' short-circuit as in C (the side not evaluated is still checked for
 * syntax and symbol names). */
#ifndef PG_MODEL_EXPR_H
#define PG_MODEL_EXPR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../base/jsonget.h"

/* Longest expression text accepted, in characters. */
#define PG_EXPR_MAX_LEN 512

/* The value of max_active_clusters(cluster_size, dynamic_shared_bytes) where the caller offers
 * it (launch grids: the number of clusters of that size the launch's kernel can have resident
 * at once, docs/formats.md "Device symbols"). cluster_size >= 1 and dynamic_shared_bytes >= 0
 * are checked before the call. Errors: PG_ERR_INPUT with the message in err (errlen bytes). */
typedef pg_status (*pg_expr_clusters_fn)(void *ctx, int64_t cluster_size,
                                         int64_t dynamic_shared_bytes, int64_t *out, char *err,
                                         size_t errlen);

/* Symbol table: names[i] has value values[i]; count entries. Borrowed arrays. clusters (with
 * its clusters_ctx) gives max_active_clusters; NULL: the function is not available there
 * (an error naming it). */
typedef struct {
    const char *const *names;
    const int64_t *values;
    size_t count;
    pg_expr_clusters_fn clusters;
    void *clusters_ctx;
} pg_symtab;

/* Evaluate text with the symbols of syms (syms may be NULL: no symbols) into *out.
 * Errors (PG_ERR_INPUT; *out unchanged): syntax errors with the 1-based column
 * ("syntax error at column 3 of 'M+*2': expected a number, symbol or '('"), unknown symbols
 * ("unknown symbol 'Q' (known: M, N, K)"), unknown functions, wrong argument counts, literals
 * beyond int64, overflow of + - * / or unary minus ("overflow in 'M*N*K': 4294967296 * 4294967296
 * does not fit 64-bit signed"), division by zero and ceil_div by zero
 * ("division by zero in 'M/(N-N)'"), texts longer than PG_EXPR_MAX_LEN. The message goes into
 * err (errlen bytes, always NUL-terminated when errlen > 0; err may be NULL); it names neither a
 * file nor a field: the caller adds them. */
pg_status pg_expr_eval(const char *text, const pg_symtab *syms, int64_t *out, char *err,
                       size_t errlen);

/* Check syntax and symbol names without values: the same errors as pg_expr_eval except the
 * value-dependent ones (overflow, division by zero). names: count symbol names the expression may
 * use; names == NULL means any symbol name is accepted (syntax-only check). */
pg_status pg_expr_check(const char *text, const char *const *names, size_t count, char *err,
                        size_t errlen);

/* Whether text names the symbol name (as a symbol, not as a function name before '('). Text
 * need not be valid; only its identifiers are looked at. */
bool pg_expr_names_symbol(const char *text, const char *name);

/* Whether text calls the function name (an identifier followed by '('). Text need not be
 * valid. */
bool pg_expr_names_function(const char *text, const char *name);

/* Read the expression field obj[key] (ctx locates obj): a JSON integer (written as its decimal
 * text) or a string. The text (NUL-terminated) goes into out (n bytes). The syntax is checked
 * (symbol names are not: see pg_expr_check). required=false: a missing key leaves out unchanged
 * and returns PG_OK.
 * Errors (PG_ERR_INPUT, d names ctx->file and the field's JSON path): missing required key, wrong
 * JSON type, empty or too long text (longer than n-1 or PG_EXPR_MAX_LEN), syntax errors. */
pg_status pg_expr_from_json(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                            char *out, size_t n, pg_diag *d);

/* Same for a value v that is not an object member (an array element such as grid[1]); ctx is the
 * context of v itself (its path is the field named in errors). */
pg_status pg_expr_from_json_value(const json_t *v, const pg_jctx *ctx, char *out, size_t n,
                                  pg_diag *d);

#endif
