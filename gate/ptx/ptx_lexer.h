/* PTX tokenizer: PTX text into words, strings, punctuation and line ends, with 1-based line
 * numbers; // and block comments are dropped (a block comment spanning lines still counts its
 * line ends, so later tokens keep their true line numbers).
 *
 * Token kinds (PTX ISA, "Syntax"):
 * - word: a run of [A-Za-z0-9_$%.] plus "::" between such characters. So a whole dotted
 *   mnemonic ("cp.async.bulk.tensor.2d.shared::cluster.global") is one word, and so are
 *   directives (".reg"), registers ("%r12"), labels ("$L__BB0_2") and numbers ("0f3F800000").
 *   A single ':' is punctuation (the label colon in "L1: bra L1;").
 * - string: "..." with backslash escapes, on one line; the token includes the quotes.
 * - punct: any other single byte: { } ( ) [ ] , ; : @ ! < > = + - | ...
 * - newline: the end of a line (directives such as .loc end there).
 * Errors: an unterminated block comment or string gives a PG_PTOK_ERROR token whose line is
 * where it starts; the lexer then stays at the end. */
#ifndef PG_PTX_PTX_LEXER_H
#define PG_PTX_PTX_LEXER_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    PG_PTOK_END,
    PG_PTOK_WORD,
    PG_PTOK_STRING,
    PG_PTOK_PUNCT,
    PG_PTOK_NEWLINE,
    PG_PTOK_ERROR
} pg_ptok_kind;

typedef struct {
    pg_ptok_kind kind;
    const char *text; /* into the source text, len bytes (not NUL-terminated); for an error
                         token a static message */
    size_t len;
    int line;         /* 1-based */
} pg_ptok;

typedef struct {
    const char *p, *end;
    int line;
    pg_ptok peeked;
    bool has_peek;
} pg_ptx_lexer;

/* Start lexing text[0..len). The text must outlive the lexer and its tokens. */
void pg_ptx_lexer_init(pg_ptx_lexer *lx, const char *text, size_t len);

/* The next token (consumed) / the next token without consuming it. After PG_PTOK_END or
 * PG_PTOK_ERROR every further call returns PG_PTOK_END. */
pg_ptok pg_ptx_lex_next(pg_ptx_lexer *lx);
pg_ptok pg_ptx_lex_peek(pg_ptx_lexer *lx);

/* True when tok is the word or punctuation s exactly. */
bool pg_ptok_is(const pg_ptok *tok, const char *s);

#endif
