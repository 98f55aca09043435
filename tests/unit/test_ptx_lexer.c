/* Unit tests of the PTX tokenizer (gate/ptx/ptx_lexer.h): words with dots and "::", labels,
 * strings, comments (line numbers across block comments), errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ptx/ptx_lexer.h"

/* Tokens of text rendered as "kind:text@line" joined by spaces (newlines as "NL@line"). */
static void render(const char *text, char *out, size_t n)
{
    pg_ptx_lexer lx;
    pg_ptx_lexer_init(&lx, text, strlen(text));
    size_t used = 0;
    out[0] = '\0';
    for (;;) {
        pg_ptok t = pg_ptx_lex_next(&lx);
        const char *k = t.kind == PG_PTOK_WORD     ? "w"
                        : t.kind == PG_PTOK_STRING ? "s"
                        : t.kind == PG_PTOK_PUNCT  ? "p"
                        : t.kind == PG_PTOK_ERROR  ? "ERR"
                                                   : NULL;
        if (t.kind == PG_PTOK_END)
            break;
        if (t.kind == PG_PTOK_NEWLINE)
            used += (size_t)snprintf(out + used, n - used, "%sNL@%d", used ? " " : "", t.line);
        else
            used += (size_t)snprintf(out + used, n - used, "%s%s:%.*s@%d", used ? " " : "", k,
                                     (int)t.len, t.text, t.line);
        if (used >= n)
            fail_msg("rendering too long");
    }
}

static void expect(const char *text, const char *want)
{
    char got[4096];
    render(text, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("tokens of [%s]\n got: %s\nwant: %s", text, got, want);
}

static void test_words(void **state)
{
    (void)state;
    expect("cp.async.bulk.tensor.2d.shared::cluster.global [%r1], [%rd2, {%r3, %r4}];",
           "w:cp.async.bulk.tensor.2d.shared::cluster.global@1 p:[@1 w:%r1@1 p:]@1 p:,@1 "
           "p:[@1 w:%rd2@1 p:,@1 p:{@1 w:%r3@1 p:,@1 w:%r4@1 p:}@1 p:]@1 p:;@1");
    expect(".reg .b32 %r<10>;", "w:.reg@1 w:.b32@1 w:%r@1 p:<@1 w:10@1 p:>@1 p:;@1");
    expect("$L__BB0_2: @!%p1 bra $L__BB0_2;",
           "w:$L__BB0_2@1 p::@1 p:@@1 p:!@1 w:%p1@1 w:bra@1 w:$L__BB0_2@1 p:;@1");
    expect("mov.f32 %f1, 0f3F800000;", "w:mov.f32@1 w:%f1@1 p:,@1 w:0f3F800000@1 p:;@1");
    /* a single ':' ends a word; "::" joins only between word characters */
    expect("a::b x:: y", "w:a::b@1 w:x@1 p::@1 p::@1 w:y@1");
}

static void test_comments_and_strings(void **state)
{
    (void)state;
    expect("add.s32 %r1, %r2, 1; // mma.sync.aligned.m16n8k16 {...};\nret;",
           "w:add.s32@1 w:%r1@1 p:,@1 w:%r2@1 p:,@1 w:1@1 p:;@1 NL@1 w:ret@2 p:;@2");
    expect("/* wgmma.mma_async\n   cp.async.bulk.tensor ... */ ret;\nexit;",
           "w:ret@2 p:;@2 NL@2 w:exit@3 p:;@3");
    expect(".file 1 \"a // not a comment.cu\"\n.pragma \"nounroll\";",
           "w:.file@1 w:1@1 s:\"a // not a comment.cu\"@1 NL@1 w:.pragma@2 "
           "s:\"nounroll\"@2 p:;@2");
    expect("\"esc \\\" quote\"", "s:\"esc \\\" quote\"@1");
}

static void test_errors(void **state)
{
    (void)state;
    expect("ret;\n/* never closed\n", "w:ret@1 p:;@1 NL@1 ERR:unterminated comment: '/*' is never closed by '*/'@2");
    expect(".file 1 \"open\nret;", "w:.file@1 w:1@1 ERR:unterminated string literal@1");
    /* after an error the lexer stays at the end */
    pg_ptx_lexer lx;
    pg_ptx_lexer_init(&lx, "\"x", 2);
    assert_int_equal(pg_ptx_lex_next(&lx).kind, PG_PTOK_ERROR);
    assert_int_equal(pg_ptx_lex_next(&lx).kind, PG_PTOK_END);
    assert_int_equal(pg_ptx_lex_next(&lx).kind, PG_PTOK_END);
}

static void test_peek_and_is(void **state)
{
    (void)state;
    pg_ptx_lexer lx;
    const char *text = "L1: ret;";
    pg_ptx_lexer_init(&lx, text, strlen(text));
    pg_ptok a = pg_ptx_lex_next(&lx);
    pg_ptok p = pg_ptx_lex_peek(&lx), q = pg_ptx_lex_peek(&lx);
    assert_true(pg_ptok_is(&a, "L1"));
    assert_true(pg_ptok_is(&p, ":") && pg_ptok_is(&q, ":"));
    pg_ptok c = pg_ptx_lex_next(&lx);
    assert_true(pg_ptok_is(&c, ":"));
    pg_ptok r = pg_ptx_lex_next(&lx);
    assert_true(pg_ptok_is(&r, "ret"));
    assert_false(pg_ptok_is(&r, "re"));
    /* lengths, not NUL terminators, bound a token */
    pg_ptx_lexer_init(&lx, "retx", 3);
    r = pg_ptx_lex_next(&lx);
    assert_true(pg_ptok_is(&r, "ret"));
    assert_int_equal(pg_ptx_lex_next(&lx).kind, PG_PTOK_END);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_comments_and_strings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_peek_and_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
