/* Unit tests of the PTX instruction inventory (gate/ptx/inventory.h) on
 * tests/data/ptx/inventory_traps.ptx (comments and strings holding instruction text, the
 * wmma/mma trap, reordered modifiers, guards, a label and an instruction on one line,
 * multi-line instructions and headers, nested scopes, a debug section), on nvcc output
 * (device_func.ptx) and on malformed text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "ptx/inventory.h"
#include "ptx/pattern.h"

static void build_file(const char *name, pg_ptx_inventory *inv)
{
    char path[1024], buf[4096];
    char *text = NULL;
    size_t len = 0;
    pg_diag d;
    snprintf(path, sizeof path, "%s/ptx/%s", PG_TEST_DATA, name);
    assert_int_equal(pg_file_read(path, 1 << 24, &text, &len, &d), PG_OK);
    if (pg_ptx_inventory_build(text, len, path, inv, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    free(text);
}

/* Lines of the instructions whose mnemonic the pattern matches, as "l1,l2,...". */
static void matching_lines(const pg_ptx_inventory *inv, const char *pattern, char *out, size_t n)
{
    pg_instr_pattern p;
    char err[128];
    assert_true(pg_pattern_parse(pattern, &p, err, sizeof err));
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < inv->n_instrs; i++)
        if (pg_pattern_matches(&p, inv->instrs[i].mnemonic))
            used += (size_t)snprintf(out + used, n - used, "%s%d", used ? "," : "",
                                     inv->instrs[i].line);
}

static void expect_lines(const pg_ptx_inventory *inv, const char *pattern, const char *want)
{
    char got[512];
    matching_lines(inv, pattern, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("%s: lines '%s', expected '%s'", pattern, got, want);
}

static const pg_ptx_instr *at_line(const pg_ptx_inventory *inv, int line, int nth)
{
    for (size_t i = 0; i < inv->n_instrs; i++)
        if (inv->instrs[i].line == line && nth-- == 0)
            return &inv->instrs[i];
    fail_msg("no instruction %d at line %d", nth, line);
    return NULL;
}

static void test_traps(void **state)
{
    (void)state;
    pg_ptx_inventory inv;
    build_file("inventory_traps.ptx", &inv);
    /* 14 instructions; nothing from the comments (lines 3-5), the strings (line 58) or the
     * debug section's data (line 62). */
    assert_int_equal(inv.n_instrs, 14);
    expect_lines(&inv, "wgmma.mma_async", "39");
    expect_lines(&inv, "cp.async.bulk.tensor", "");
    expect_lines(&inv, "tcgen05.mma", "");
    /* the trap: mma.sync matches the mma on line 33 (modifiers reordered: .aligned.sync), not
     * the wmma.mma.sync on line 32 */
    expect_lines(&inv, "mma.sync", "33");
    expect_lines(&inv, "mma.sync.aligned.m16n8k16.bf16", "33");
    expect_lines(&inv, "wmma.mma", "32");
    expect_lines(&inv, "wgmma", "38,39,40,41");
    /* two statements on line 30; the call spans lines 49-55 and counts at its first line */
    expect_lines(&inv, "setp", "30");
    expect_lines(&inv, "call", "49");
    expect_lines(&inv, "st.param", "45,47");
    const pg_ptx_instr *guarded = at_line(&inv, 31, 0);
    assert_string_equal(guarded->mnemonic, "bra");
    assert_string_equal(guarded->predicate, "%p1");
    assert_false(guarded->negated);
    /* a label and a negated guard before a multi-line mma on line 33 */
    const pg_ptx_instr *mma = at_line(&inv, 33, 0);
    assert_string_equal(mma->mnemonic, "mma.aligned.sync.m16n8k16.row.col.f32.bf16.bf16.f32");
    assert_string_equal(mma->predicate, "%p1");
    assert_true(mma->negated);
    assert_string_equal(at_line(&inv, 30, 1)->mnemonic, "setp.ne.u32");
    /* functions: the multi-line .extern declaration and the entry with .maxntid before '{' */
    assert_int_equal(inv.n_functions, 2);
    int vp = pg_ptx_inventory_find_function(&inv, "vprintf");
    int tr = pg_ptx_inventory_find_function(&inv, "traps");
    assert_true(vp >= 0 && tr >= 0);
    assert_true(inv.functions[vp].is_extern);
    assert_false(inv.functions[vp].has_body);
    assert_false(inv.functions[vp].is_entry);
    assert_int_equal(inv.functions[vp].line, 10);
    assert_true(inv.functions[tr].is_entry && inv.functions[tr].has_body);
    assert_int_equal(inv.functions[tr].line, 19);
    assert_true(inv.functions[vp].referenced); /* the call on lines 49-55 names it */
    assert_false(inv.functions[tr].referenced);
    for (size_t i = 0; i < inv.n_instrs; i++)
        assert_int_equal(inv.instrs[i].function, tr);
    assert_false(inv.uses_preprocessor);
    /* one shared copy per distinct mnemonic */
    assert_true(at_line(&inv, 45, 0)->mnemonic == at_line(&inv, 47, 0)->mnemonic);
    assert_int_equal(inv.n_mnemonics, 13);
    pg_ptx_inventory_free(&inv);
    assert_int_equal(inv.n_instrs, 0);
    pg_ptx_inventory_free(&inv); /* harmless twice */
}

static void test_nvcc_output(void **state)
{
    (void)state;
    pg_ptx_inventory inv;
    build_file("device_func.ptx", &inv);
    assert_true(inv.n_instrs > 0);
    /* every instruction sits inside a function body */
    for (size_t i = 0; i < inv.n_instrs; i++)
        assert_true(inv.instrs[i].function >= 0);
    bool entry = false, func = false;
    for (size_t i = 0; i < inv.n_functions; i++) {
        entry |= inv.functions[i].is_entry && inv.functions[i].has_body;
        func |= !inv.functions[i].is_entry && inv.functions[i].has_body;
    }
    assert_true(entry && func);
    pg_ptx_inventory_free(&inv);
}

static pg_status build_text(const char *text, pg_ptx_inventory *inv, pg_diag *d)
{
    pg_diag_clear(d);
    return pg_ptx_inventory_build(text, strlen(text), "x.ptx", inv, d);
}

static void expect_error(const char *text, long line, const char *msg_part)
{
    pg_ptx_inventory inv;
    pg_diag d;
    assert_int_equal(build_text(text, &inv, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "x.ptx");
    if (d.line != line || !strstr(d.message, msg_part))
        fail_msg("[%s]: line %ld '%s', expected line %ld and '%s'", text, d.line, d.message, line,
                 msg_part);
    assert_int_equal(inv.n_instrs, 0);
    assert_null(inv.instrs);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(".entry k()\n{\n  ret\n}\n", 3, "'ret' is not terminated by ';'");
    expect_error(".entry k()\n{\n  ret;\n}\n}\n", 5, "'}' without a matching '{'");
    expect_error(".entry k()\n{\n  {\n  ret;\n}\n", 2, "never closed");
    expect_error(".entry k()\n{\n /* open\n ret;\n}\n", 3, "unterminated comment");
    expect_error(".entry k()\n{\n @%p1\n}\n", 3, "expected an instruction after the guard");
    expect_error(".entry k()\n{\n @ ;\n}\n", 3, "expected a predicate register");
}

static void test_small_forms(void **state)
{
    (void)state;
    pg_ptx_inventory inv;
    pg_diag d;
    /* a preprocessor line is skipped and flagged; a label alone; an empty statement;
     * an initializer across lines; a prototype then a definition of the same .func */
    const char *text = "#define X 1\n"
                       ".global .u32 g[2] = {1,\n 2};\n"
                       ".func f (.param .b32 a);\n"
                       ".func f (.param .b32 a)\n{\n L0:\n ;\n ret;\n}\n"
                       ".entry k()\n{\n call f, (1);\n exit;\n}\n";
    assert_int_equal(build_text(text, &inv, &d), PG_OK);
    assert_true(inv.uses_preprocessor);
    assert_int_equal(inv.n_instrs, 3);
    assert_string_equal(inv.instrs[0].mnemonic, "ret");
    assert_int_equal(inv.instrs[0].line, 9);
    assert_int_equal(inv.n_functions, 2);
    assert_true(inv.functions[0].has_body);
    assert_false(inv.functions[0].is_extern);
    assert_int_equal(inv.functions[0].line, 4);
    assert_int_equal(inv.instrs[0].function, 0);
    assert_int_equal(inv.instrs[1].function, 1);
    assert_string_equal(inv.instrs[2].mnemonic, "exit");
    pg_ptx_inventory_free(&inv);
    /* empty text */
    assert_int_equal(build_text("", &inv, &d), PG_OK);
    assert_int_equal(inv.n_instrs, 0);
    pg_ptx_inventory_free(&inv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traps),
        cmocka_unit_test(test_nvcc_output),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_small_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
