/* Unit tests of the SASS listing parser (gate/ptx/sass_listing.h) on the hand-written listings
 * in tests/fixtures/sass (nvdisasm --print-code, cuobjdump -sass, dual-issue braces, data
 * sections) and on small inline texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "ptx/sass_listing.h"

#define SASS PG_TEST_DATA "/../fixtures/sass"

static void parse_file(const char *name, pg_sass_listing *l)
{
    char path[1024], buf[2048];
    char *text = NULL;
    size_t len = 0;
    pg_diag d;
    snprintf(path, sizeof path, "%s/%s", SASS, name);
    assert_int_equal(pg_file_read(path, 1 << 24, &text, &len, &d), PG_OK);
    if (pg_sass_listing_parse(text, len, path, l, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    free(text);
}

static const pg_sass_instr *at(const pg_sass_listing *l, long address, int function)
{
    for (size_t i = 0; i < l->n_instrs; i++)
        if (l->instrs[i].address == address && l->instrs[i].function == function)
            return &l->instrs[i];
    fail_msg("no instruction at 0x%lx in function %d", address, function);
    return NULL;
}

static void test_nvdisasm(void **state)
{
    (void)state;
    pg_sass_listing l;
    parse_file("wgmma_tma_sm90a.nvdisasm.txt", &l);
    assert_int_equal(l.n_instrs, 36);
    assert_int_equal(l.n_functions, 2);
    assert_string_equal(l.functions[0], "gemm_bf16_nt_wgmma");
    assert_string_equal(l.functions[1], "gemm_wait_helper");
    assert_non_null(strstr(l.headerflags, "EF_CUDA_SM90"));
    assert_int_equal(pg_sass_listing_count_family(&l, "HGMMA"), 5);
    assert_int_equal(pg_sass_listing_count_family(&l, "UTMALDG"), 2);
    assert_int_equal(pg_sass_listing_count_family(&l, "WARPGROUP"), 2);
    assert_int_equal(pg_sass_listing_count_family(&l, "SYNCS"), 4);
    assert_int_equal(pg_sass_listing_count_family(&l, "BRA"), 5);
    assert_int_equal(pg_sass_listing_count_family(&l, "NOP"), 5);
    assert_int_equal(pg_sass_listing_count_family(&l, "HMMA"), 0);
    const pg_sass_instr *h = at(&l, 0xf0, 0);
    assert_string_equal(h->opcode, "HGMMA.64x128x16.F32.BF16");
    assert_string_equal(h->family, "HGMMA");
    assert_string_equal(h->predicate, "");
    assert_int_equal(h->line, 32);
    const pg_sass_instr *g = at(&l, 0x140, 0);
    assert_string_equal(g->opcode, "HGMMA.64x64x16.F32.BF16");
    assert_string_equal(g->predicate, "!UP0");
    assert_string_equal(at(&l, 0x50, 0)->predicate, "!P0");
    assert_string_equal(at(&l, 0x50, 0)->opcode, "SYNCS.EXCH.64");
    assert_string_equal(at(&l, 0xa0, 0)->opcode, "UTMALDG.2D");
    assert_string_equal(at(&l, 0x170, 0)->family, "EXIT");
    /* the helper's addresses restart at 0 in its own section */
    assert_string_equal(at(&l, 0x0, 1)->opcode, "NANOSLEEP");
    assert_string_equal(at(&l, 0x20, 1)->predicate, "!P2");
    pg_sass_listing_free(&l);
    assert_int_equal(l.n_instrs, 0);
}

static void test_cuobjdump(void **state)
{
    (void)state;
    pg_sass_listing l;
    parse_file("tiled_mma_sm90a.cuobjdump.txt", &l);
    /* encoding-only lines ("/ * 0x000fe4... * /") are not instructions */
    assert_int_equal(l.n_instrs, 17);
    assert_int_equal(l.n_functions, 1);
    assert_string_equal(l.functions[0], "gemm_bf16_nt_tiled_mma");
    assert_int_equal(pg_sass_listing_count_family(&l, "HMMA"), 3);
    assert_int_equal(pg_sass_listing_count_family(&l, "LDSM"), 2);
    assert_int_equal(pg_sass_listing_count_family(&l, "LDGSTS"), 2);
    assert_int_equal(pg_sass_listing_count_family(&l, "LDGDEPBAR"), 1);
    assert_int_equal(pg_sass_listing_count_family(&l, "DEPBAR"), 1);
    assert_int_equal(pg_sass_listing_count_family(&l, "HGMMA"), 0);
    assert_string_equal(at(&l, 0x90, 0)->opcode, "HMMA.16816.F32.BF16");
    assert_string_equal(at(&l, 0xc0, 0)->predicate, "P0");
    assert_string_equal(at(&l, 0x100, 0)->opcode, "BRA");
    assert_non_null(strstr(l.headerflags, "EF_CUDA_SM90"));
    pg_sass_listing_free(&l);
}

static void test_dual_issue(void **state)
{
    (void)state;
    pg_sass_listing l;
    parse_file("dual_issue_sm52.cuobjdump.txt", &l);
    assert_int_equal(l.n_instrs, 6);
    assert_string_equal(at(&l, 0x10, 0)->opcode, "MOV32I");
    assert_string_equal(at(&l, 0x18, 0)->opcode, "S2R");
    assert_string_equal(at(&l, 0x30, 0)->predicate, "P0");
    assert_string_equal(at(&l, 0x30, 0)->family, "EXIT");
    assert_string_equal(at(&l, 0x38, 0)->family, "XMAD");
    pg_sass_listing_free(&l);
}

static void test_data_sections(void **state)
{
    (void)state;
    pg_sass_listing l;
    parse_file("all_sections_sm90a.nvdisasm.txt", &l);
    /* .nv.info ".byte"/".word" lines carry addresses too; only .text counts */
    assert_int_equal(l.n_instrs, 6);
    assert_int_equal(l.n_functions, 1);
    assert_string_equal(l.functions[0], "copy_kernel");
    for (size_t i = 0; i < l.n_instrs; i++)
        assert_int_equal(l.instrs[i].function, 0);
    assert_string_equal(l.instrs[0].opcode, "LDC");
    assert_string_equal(l.instrs[5].opcode, "BRA");
    pg_sass_listing_free(&l);
}

static void test_sm100a(void **state)
{
    (void)state;
    pg_sass_listing l;
    parse_file("tcgen05_sm100a.nvdisasm.txt", &l);
    assert_int_equal(l.n_instrs, 14);
    assert_int_equal(pg_sass_listing_count_family(&l, "UTCHMMA"), 1);
    assert_int_equal(pg_sass_listing_count_family(&l, "UTCBAR"), 1);
    assert_int_equal(pg_sass_listing_count_family(&l, "LDTM"), 1);
    assert_int_equal(pg_sass_listing_count_family(&l, "UTMALDG"), 2);
    assert_string_equal(at(&l, 0x40, 0)->predicate, "!UP0");
    assert_string_equal(at(&l, 0x40, 0)->opcode, "BRA.U");
    assert_string_equal(at(&l, 0xa0, 0)->opcode, "LDTM.x8");
    pg_sass_listing_free(&l);
}

static void test_inline(void **state)
{
    (void)state;
    pg_sass_listing l;
    pg_diag d;
    /* no function header: instructions still count (function -1); CRLF line ends; a line
     * whose text after the address is not an opcode is skipped */
    const char *text = "        /*0000*/                   MOV R1, c[0x0][0x28] ;\r\n"
                       "        /*0010*/ \t.word\t0x00000000\r\n"
                       "        /*0020*/                   EXIT ;\r\n"
                       "        /*zz*/                   FAKE ;\n"
                       "junk /*0030*/ NOP ;\n";
    assert_int_equal(pg_sass_listing_parse(text, strlen(text), NULL, &l, &d), PG_OK);
    assert_int_equal(l.n_instrs, 2);
    assert_int_equal(l.instrs[0].function, -1);
    assert_int_equal(l.instrs[1].address, 0x20);
    assert_int_equal(l.instrs[1].line, 3);
    pg_sass_listing_free(&l);
    assert_int_equal(pg_sass_listing_parse("", 0, NULL, &l, &d), PG_OK);
    assert_int_equal(l.n_instrs, 0);
    pg_sass_listing_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvdisasm),  cmocka_unit_test(test_cuobjdump),
        cmocka_unit_test(test_dual_issue), cmocka_unit_test(test_data_sections),
        cmocka_unit_test(test_sm100a),    cmocka_unit_test(test_inline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
