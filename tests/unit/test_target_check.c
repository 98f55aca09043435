/* Unit tests of the static target check (gate/model/target_check.h): PTX inventories from
 * fixtures and inline text against the shipped tables and tasks, with and without a SASS
 * listing; reasons, nearest instructions, SASS opcode counts and the one-line descriptions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "model/target_check.h"

#define ARCH_DIR PG_SOURCE_DIR "/data/arch"
#define SHIPPED PG_SOURCE_DIR "/tasks"
#define FIXTURES PG_TEST_DATA "/../fixtures"

typedef struct {
    pg_task *task;
    pg_arch_table *table;
    pg_target_set set;
    pg_ptx_inventory ptx;
    pg_sass_listing sass;
    bool has_sass;
    pg_tc_result r[PG_MAX_TARGETS];
} fixture;

static char *read_all(const char *path, size_t *len)
{
    char *text = NULL;
    pg_diag d;
    if (pg_file_read(path, 1 << 24, &text, len, &d) != PG_OK)
        fail_msg("cannot read %s", path);
    return text;
}

/* Check the PTX (a path, or inline text when it does not end in .ptx) against the shipped
 * task's set for arch, with the listing at sass_path (NULL: no listing). */
static void run(fixture *f, const char *task, const char *arch, const char *ptx,
                const char *sass_path)
{
    pg_diag d;
    char buf[2048];
    bool found;
    memset(f, 0, sizeof *f);
    assert_int_equal(pg_task_load(SHIPPED, task, &f->task, &d), PG_OK);
    assert_int_equal(pg_arch_table_load(ARCH_DIR, arch, &f->table, &d), PG_OK);
    assert_int_equal(pg_targets_resolve(f->task, arch, f->table, &f->set, &found, &d), PG_OK);
    assert_true(found);
    size_t len = strlen(ptx);
    char *text = len > 4 && strcmp(ptx + len - 4, ".ptx") == 0 ? read_all(ptx, &len) : NULL;
    if (pg_ptx_inventory_build(text ? text : ptx, len, "k.ptx", &f->ptx, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    free(text);
    if (sass_path) {
        text = read_all(sass_path, &len);
        assert_int_equal(pg_sass_listing_parse(text, len, sass_path, &f->sass, &d), PG_OK);
        f->has_sass = true;
        free(text);
    }
    assert_int_equal(pg_target_check(&f->set, f->table, &f->ptx, f->has_sass ? &f->sass : NULL,
                                     f->r, &d),
                     PG_OK);
}

static void release(fixture *f)
{
    pg_sass_listing_free(&f->sass);
    pg_ptx_inventory_free(&f->ptx);
    pg_arch_table_free(f->table);
    pg_task_free(f->task);
}

static void expect_describe(const pg_tc_result *r, const char *want)
{
    char got[2048];
    pg_tc_describe(r, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("\n got: %s\nwant: %s", got, want);
}

/* The body of tasks/common/gemm_tiled_mma.cuh as nvcc emits it, cut down: Ampere-style. */
static const char k_ampere[] =
    ".version 9.0\n.target sm_90a\n.address_size 64\n"       /* 1-3 */
    ".visible .entry k(.param .u64 p)\n{\n"                  /* 4-5 */
    "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n"               /* 6-7 */
    "\tcp.async.cg.shared.global [%r1], [%rd1], 16, %r2;\n"  /* 8 */
    "\tcp.async.cg.shared.global [%r1], [%rd1], 16, %r2;\n"  /* 9 */
    "\tcp.async.commit_group;\n"                             /* 10 */
    "\tcp.async.wait_group 1;\n"                             /* 11 */
    "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];\n" /* 12 */
    "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};\n" /* 13 */
    "\t// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 in a comment\n" /* 14 */
    "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};\n" /* 15 */
    "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r1}, {%f1};\n" /* 16 */
    "\tret;\n}\n";

static void test_absent_with_nearest(void **state)
{
    (void)state;
    fixture f;
    run(&f, "gemm_bf16_nt", "sm_90a", k_ampere, FIXTURES "/sass/tiled_mma_sm90a.cuobjdump.txt");
    assert_int_equal(f.set.n_targets, 2);
    pg_tc_result *w = &f.r[0], *t = &f.r[1];
    assert_string_equal(w->reason, "absent_in_ptx");
    assert_int_equal(w->ptx_count, 0);
    assert_true(w->sass_checked);
    assert_int_equal(w->sass_count, 0);
    /* nearest: both tensor-core families, same-family first by line: mma.sync (13, 15) then
     * wmma.mma (16); nothing from the comment on line 14 */
    assert_int_equal(w->n_nearest, 2);
    assert_string_equal(w->nearest[0].mnemonic,
                        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
    assert_int_equal(w->nearest[0].count, 2);
    assert_int_equal(w->nearest[0].lines[1], 15);
    assert_int_equal(w->nearest[0].relation, 1);
    assert_string_equal(w->nearest[1].mnemonic,
                        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32");
    expect_describe(w, "wgmma.mma_async absent in PTX; nearest: "
                       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ×2 at lines 13, 15; "
                       "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 ×1 at lines 16");
    /* TMA absent: the cp.async copies are nearest; commit/wait (same opcode only) are not shown
     * when something closer exists */
    assert_string_equal(t->reason, "absent_in_ptx");
    assert_int_equal(t->n_nearest, 1);
    expect_describe(t, "cp.async.bulk.tensor absent in PTX; nearest: cp.async.cg.shared.global "
                       "×2 at lines 8, 9");
    release(&f);
}

static void test_present_and_proven(void **state)
{
    (void)state;
    fixture f;
    /* inventory_traps.ptx has one wgmma.mma_async (line 39) and no TMA */
    run(&f, "gemm_bf16_nt", "sm_90a", PG_TEST_DATA "/ptx/inventory_traps.ptx",
        FIXTURES "/sass/wgmma_tma_sm90a.nvdisasm.txt");
    pg_tc_result *w = &f.r[0], *t = &f.r[1];
    assert_null(w->reason);
    assert_int_equal(w->ptx_count, 1);
    assert_int_equal(w->n_ptx_lines, 1);
    assert_int_equal(w->ptx_lines[0], 39);
    assert_int_equal(w->n_found, 1);
    assert_int_equal(w->sass_count, 5);
    assert_int_equal(w->n_opcodes, 2);
    assert_int_equal(w->opcode_kinds, 2);
    assert_string_equal(w->opcodes[0].opcode, "HGMMA.64x128x16.F32.BF16");
    assert_int_equal(w->opcodes[0].count, 4);
    expect_describe(w, "wgmma.mma_async: PTX ×1 (lines 39), SASS HGMMA.64x128x16.F32.BF16 ×4, "
                       "HGMMA.64x64x16.F32.BF16 ×1");
    /* no TMA in this PTX, although the listing has UTMALDG: the PTX part decides */
    assert_string_equal(t->reason, "absent_in_ptx");
    assert_int_equal(t->sass_count, 2);
    expect_describe(t, "cp.async.bulk.tensor absent in PTX (no related instruction found)");
    release(&f);
}

static void test_removed_by_ptxas(void **state)
{
    (void)state;
    fixture f;
    run(&f, "gemm_bf16_nt", "sm_90a", PG_TEST_DATA "/ptx/inventory_traps.ptx",
        FIXTURES "/sass/tiled_mma_sm90a.cuobjdump.txt");
    assert_string_equal(f.r[0].reason, "removed_by_ptxas");
    assert_int_equal(f.r[0].ptx_count, 1);
    expect_describe(&f.r[0], "wgmma.mma_async in PTX ×1 (lines 39) but no HGMMA in the SASS: "
                             "removed by ptxas");
    release(&f);
}

/* An e4m3 task wants QGMMA; a bf16 wgmma becomes HGMMA: named as another SASS family of the
 * same PTX family, not as removed. */
static void test_other_sass_family(void **state)
{
    (void)state;
    fixture f;
    run(&f, "gemm_e4m3_tn", "sm_90a", PG_TEST_DATA "/ptx/inventory_traps.ptx",
        FIXTURES "/sass/wgmma_tma_sm90a.nvdisasm.txt");
    assert_string_equal(f.set.targets[0].sass[0], "QGMMA");
    assert_string_equal(f.r[0].reason, "other_sass_family");
    assert_int_equal(f.r[0].sass_count, 0);
    assert_string_equal(f.r[0].other_family, "HGMMA");
    assert_true(f.r[0].other_family_count > 0);
    char want[256];
    snprintf(want, sizeof want,
             "wgmma.mma_async in PTX ×1 (lines 39) but no QGMMA in the SASS, only HGMMA of the "
             "same PTX family (%zu instruction%s: operand types other than the target's)",
             f.r[0].other_family_count, f.r[0].other_family_count == 1 ? "" : "s");
    expect_describe(&f.r[0], want);
    release(&f);
}

static void test_no_listing(void **state)
{
    (void)state;
    fixture f;
    run(&f, "gemm_bf16_nt", "sm_90a", PG_TEST_DATA "/ptx/inventory_traps.ptx", NULL);
    assert_false(f.r[0].sass_checked);
    assert_null(f.r[0].reason); /* present in PTX; the SASS part is unknown, not a pass */
    expect_describe(&f.r[0], "wgmma.mma_async: PTX ×1 (lines 39); SASS not checked");
    assert_string_equal(f.r[1].reason, "absent_in_ptx");
    release(&f);
}

/* The sm_100a fixture: its static inventory against the sm_100a target set. */
static void test_sm100a_fixture(void **state)
{
    (void)state;
    fixture f;
    run(&f, "gemm_bf16_nt", "sm_100a", FIXTURES "/sm100a/tcgen05_tile.ptx",
        FIXTURES "/sass/tcgen05_sm100a.nvdisasm.txt");
    assert_int_equal(f.set.n_targets, 2);
    assert_string_equal(f.set.targets[0].pattern.text, "tcgen05.mma");
    assert_null(f.r[0].reason);
    assert_null(f.r[1].reason);
    assert_int_equal(f.r[0].ptx_count, 1);
    assert_int_equal(f.r[0].ptx_lines[0], 82); /* not the kind::tf32 text in the comment above */
    assert_int_equal(f.r[1].ptx_count, 2);
    assert_int_equal(f.r[1].ptx_lines[0], 60);
    assert_int_equal(f.r[1].ptx_lines[1], 63);
    expect_describe(&f.r[0], "tcgen05.mma: PTX ×1 (lines 82), SASS UTCHMMA ×1");
    expect_describe(&f.r[1], "cp.async.bulk.tensor: PTX ×2 (lines 60, 63), SASS UTMALDG.2D ×2");
    /* every tcgen05 family the fixture promises is in its inventory */
    static const char *const used[] = {"tcgen05.alloc", "tcgen05.relinquish_alloc_permit",
                                       "tcgen05.mma", "tcgen05.commit", "tcgen05.ld",
                                       "tcgen05.wait::ld", "tcgen05.dealloc", "elect.sync",
                                       "fence.proxy.async", "mbarrier.init",
                                       "mbarrier.try_wait"};
    for (size_t u = 0; u < sizeof used / sizeof used[0]; u++) {
        pg_instr_pattern p;
        char err[128];
        assert_true(pg_pattern_parse(used[u], &p, err, sizeof err));
        size_t n = 0;
        for (size_t i = 0; i < f.ptx.n_instrs; i++)
            n += pg_pattern_matches(&p, f.ptx.instrs[i].mnemonic);
        if (n == 0)
            fail_msg("%s not in the sm_100a fixture", used[u]);
    }
    release(&f);
}

static void test_cp_async_target(void **state)
{
    (void)state;
    /* a target "cp.async" is not proven by TMA (a more specific family) */
    pg_diag d;
    pg_arch_table *tab = NULL;
    assert_int_equal(pg_arch_table_load(ARCH_DIR, "sm_90a", &tab, &d), PG_OK);
    pg_target_set set = {.arch = "sm_90a", .n_targets = 1};
    char err[128];
    assert_true(pg_pattern_parse("cp.async", &set.targets[0].pattern, err, sizeof err));
    set.targets[0].family = pg_arch_table_resolve(tab, &set.targets[0].pattern);
    snprintf(set.targets[0].sass[0], sizeof set.targets[0].sass[0], "LDGSTS");
    set.targets[0].n_sass = 1;
    const char *text = ".entry k()\n{\n"
                       " cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r2];\n"
                       " cp.async.commit_group;\n}\n";
    pg_ptx_inventory inv;
    assert_int_equal(pg_ptx_inventory_build(text, strlen(text), NULL, &inv, &d), PG_OK);
    pg_tc_result r;
    assert_int_equal(pg_target_check(&set, tab, &inv, NULL, &r, &d), PG_OK);
    assert_string_equal(r.reason, "absent_in_ptx");
    /* the TMA copy is related (same group); the commit only shares the opcode and is dropped
     * because something closer exists */
    assert_int_equal(r.n_nearest, 1);
    assert_string_equal(r.nearest[0].mnemonic,
                        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes");
    assert_int_equal(r.nearest[0].relation, 1);
    /* with only the commit left, it is shown */
    pg_ptx_inventory_free(&inv);
    text = ".entry k()\n{\n cp.async.commit_group;\n}\n";
    assert_int_equal(pg_ptx_inventory_build(text, strlen(text), NULL, &inv, &d), PG_OK);
    assert_int_equal(pg_target_check(&set, tab, &inv, NULL, &r, &d), PG_OK);
    assert_int_equal(r.n_nearest, 1);
    assert_string_equal(r.nearest[0].mnemonic, "cp.async.commit_group");
    assert_int_equal(r.nearest[0].relation, 2);
    pg_ptx_inventory_free(&inv);
    pg_arch_table_free(tab);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absent_with_nearest),
        cmocka_unit_test(test_present_and_proven),
        cmocka_unit_test(test_removed_by_ptxas),
        cmocka_unit_test(test_other_sass_family),
        cmocka_unit_test(test_no_listing),
        cmocka_unit_test(test_sm100a_fixture),
        cmocka_unit_test(test_cp_async_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
