/* Unit tests of PTX instruction patterns and modifier-set matching (gate/ptx/pattern.h): the
 * wmma/mma trap, reordered modifiers, "::" modifiers, containment, and malformed patterns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ptx/pattern.h"

static pg_instr_pattern parse_ok(const char *text)
{
    pg_instr_pattern p;
    char err[256] = "";
    if (!pg_pattern_parse(text, &p, err, sizeof err))
        fail_msg("'%s' rejected: %s", text, err);
    return p;
}

static void expect_bad(const char *text, const char *reason_part)
{
    pg_instr_pattern p;
    char err[256] = "";
    if (pg_pattern_parse(text, &p, err, sizeof err))
        fail_msg("'%s' accepted", text);
    if (!strstr(err, reason_part))
        fail_msg("'%s': reason '%s' lacks '%s'", text, err, reason_part);
}

static void test_parse(void **state)
{
    (void)state;
    pg_instr_pattern p = parse_ok("cp.async.bulk.tensor");
    assert_string_equal(p.text, "cp.async.bulk.tensor");
    assert_string_equal(p.opcode, "cp");
    assert_int_equal(p.n_mods, 3);
    assert_string_equal(p.mods[0], "async");
    assert_string_equal(p.mods[2], "tensor");
    p = parse_ok("tcgen05.mma.kind::f16");
    assert_string_equal(p.opcode, "tcgen05");
    assert_string_equal(p.mods[1], "kind::f16");
    p = parse_ok("setmaxnreg");
    assert_int_equal(p.n_mods, 0);
    expect_bad("", "empty component");
    expect_bad("mma..sync", "empty component");
    expect_bad("mma.sync.", "empty component");
    expect_bad("MMA.sync", "not a PTX opcode");
    expect_bad("wgmma.mma async", "not a PTX modifier");
    expect_bad("tcgen05.kind:f16", "not a PTX modifier");
    expect_bad("tcgen05.kind::", "not a PTX modifier");
    expect_bad("mma.sync.sync", "appears twice");
    expect_bad("a.b.c.d.e.f.g.h.i.j.k.l.m.n", "more than 12 modifiers");
}

static void test_wmma_trap(void **state)
{
    (void)state;
    pg_instr_pattern mma = parse_ok("mma.sync");
    /* A substring test would say yes to all three: "mma.sync" occurs in each. */
    assert_false(pg_pattern_matches(&mma, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32"));
    assert_false(pg_pattern_matches(&mma, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    assert_false(pg_pattern_matches(&mma, "mma"));
    assert_true(pg_pattern_matches(&mma, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    pg_instr_pattern wmma = parse_ok("wmma.mma");
    assert_true(pg_pattern_matches(&wmma, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32"));
    assert_false(pg_pattern_matches(&wmma, "wmma.load.a.sync.aligned.row.m16n16k16.bf16"));
    /* An opcode is a whole component: "mma" is not a prefix match of "mmax". */
    assert_false(pg_pattern_matches(&mma, "mmax.sync"));
}

static void test_reordered_modifiers(void **state)
{
    (void)state;
    pg_instr_pattern w = parse_ok("wgmma.mma_async");
    assert_true(pg_pattern_matches(&w, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    pg_instr_pattern full = parse_ok("wgmma.mma_async.sync.aligned.bf16");
    assert_true(pg_pattern_matches(&full, "wgmma.mma_async.aligned.sync.m64n8k16.f32.bf16.bf16"));
    assert_false(pg_pattern_matches(&full, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"));
    pg_instr_pattern tma = parse_ok("cp.async.bulk.tensor");
    assert_true(pg_pattern_matches(
        &tma, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
    assert_false(pg_pattern_matches(&tma, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
    assert_false(pg_pattern_matches(&tma, "cp.async.cg.shared.global"));
    /* "::" parts are whole modifiers: "shared" is not "shared::cta". */
    pg_instr_pattern sh = parse_ok("ld.shared");
    assert_false(pg_pattern_matches(&sh, "ld.shared::cta.b32"));
    assert_true(pg_pattern_matches(&sh, "ld.volatile.shared.b32"));
}

static void test_contains(void **state)
{
    (void)state;
    pg_instr_pattern cp = parse_ok("cp.async"), tma = parse_ok("cp.async.bulk.tensor"),
                     tma2 = parse_ok("cp.tensor.bulk.async"), mma = parse_ok("mma.sync");
    assert_true(pg_pattern_contains(&cp, &tma));
    assert_false(pg_pattern_contains(&tma, &cp));
    assert_true(pg_pattern_contains(&tma, &tma2)); /* the same set in another order */
    assert_true(pg_pattern_contains(&tma2, &tma));
    assert_false(pg_pattern_contains(&mma, &cp));
    char op[32];
    pg_mnemonic_opcode("tcgen05.mma.cta_group::1.kind::f16", op, sizeof op);
    assert_string_equal(op, "tcgen05");
    pg_mnemonic_opcode("ret", op, sizeof op);
    assert_string_equal(op, "ret");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_wmma_trap),
        cmocka_unit_test(test_reordered_modifiers),
        cmocka_unit_test(test_contains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
