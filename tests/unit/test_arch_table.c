/* Unit tests of the per-architecture PTX → SASS tables (gate/model/arch_table.h): the shipped
 * data/arch tables load and classify as documented; malformed tables fail naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/arch_table.h"

#define ARCH_DIR PG_SOURCE_DIR "/data/arch"

static pg_arch_table *load(const char *arch)
{
    pg_arch_table *t = NULL;
    pg_diag d;
    char buf[4096];
    if (pg_arch_table_load(ARCH_DIR, arch, &t, &d) != PG_OK)
        fail_msg("%s: %s", arch, pg_diag_format(&d, buf, sizeof buf));
    return t;
}

static const char *family_of(const pg_arch_table *t, const char *mnemonic)
{
    int i = pg_arch_table_classify(t, mnemonic);
    return i < 0 ? "(none)" : t->families[i].ptx.text;
}

static void test_sm90a(void **state)
{
    (void)state;
    pg_arch_table *t = load("sm_90a");
    assert_string_equal(t->arch, "sm_90a");
    assert_true(t->n_families >= 20);
    /* The launch limits every sm_90a GPU shares (227 KiB opt-in, 1024 threads, clusters). */
    assert_true(t->launch.present);
    assert_int_equal(t->launch.max_shared_per_block_optin, 232448);
    assert_int_equal(t->launch.max_threads_per_block, 1024);
    assert_int_equal(t->launch.max_block_dim[2], 64);
    assert_int_equal(t->launch.max_grid_dim[0], 2147483647);
    assert_int_equal(t->launch.max_cluster_blocks_portable, 8);
    assert_int_equal(t->launch.max_cluster_blocks, 16);
    assert_true(strlen(t->launch.source) > 0);
    assert_string_equal(family_of(t, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"),
                        "wgmma.mma_async");
    assert_string_equal(family_of(t, "wgmma.mma_async.aligned.sync.m64n8k16.f32.bf16.bf16"),
                        "wgmma.mma_async");
    assert_string_equal(family_of(t, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
                        "mma.sync");
    assert_string_equal(family_of(t, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16.f16.f32"),
                        "wmma.mma");
    /* the most specific family wins */
    assert_string_equal(
        family_of(t, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
        "cp.async.bulk.tensor");
    assert_string_equal(family_of(t, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"),
                        "cp.async.bulk");
    assert_string_equal(family_of(t, "cp.async.cg.shared.global"), "cp.async");
    assert_string_equal(family_of(t, "cp.async.commit_group"), "cp.async.commit_group");
    assert_string_equal(family_of(t, "cp.async.bulk.commit_group"), "cp.async.bulk.commit_group");
    assert_string_equal(family_of(t, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"),
                        "cp.reduce.async.bulk.tensor");
    assert_string_equal(family_of(t, "mbarrier.try_wait.parity.shared::cta.b64"), "mbarrier");
    assert_string_equal(family_of(t, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), "ldmatrix");
    assert_string_equal(family_of(t, "add.s32"), "(none)");
    assert_string_equal(family_of(t, "tcgen05.mma.cta_group::1.kind::f16"), "(none)");
    int w = pg_arch_table_classify(t, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16");
    assert_string_equal(t->families[w].sass[0], "HGMMA");
    assert_string_equal(t->families[w].group, "tensor_core_mma");
    assert_true(pg_arch_table_knows_sass(t, "UTMALDG"));
    assert_true(pg_arch_table_knows_sass(t, "LDGSTS"));
    assert_false(pg_arch_table_knows_sass(t, "UTCHMMA"));
    assert_false(pg_arch_table_knows_sass(t, "HGMM"));
    pg_arch_table_free(t);
}

static void test_sm100a(void **state)
{
    (void)state;
    pg_arch_table *t = load("sm_100a");
    assert_string_equal(family_of(t, "tcgen05.mma.cta_group::1.kind::f16"), "tcgen05.mma");
    assert_string_equal(family_of(t, "tcgen05.ld.sync.aligned.32x32b.x8.b32"), "tcgen05.ld");
    assert_string_equal(family_of(t, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"),
                        "tcgen05.commit");
    assert_string_equal(family_of(t, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"),
                        "tcgen05.alloc");
    /* no wgmma on sm_100a */
    assert_string_equal(family_of(t, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"),
                        "(none)");
    int a = pg_arch_table_classify(t, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32");
    assert_int_equal(t->families[a].n_sass, 0);
    assert_true(pg_arch_table_knows_sass(t, "UTCHMMA"));
    assert_true(pg_arch_table_knows_sass(t, "LDTM"));
    assert_false(pg_arch_table_knows_sass(t, "HGMMA"));
    pg_arch_table_free(t);
}

static void test_resolve(void **state)
{
    (void)state;
    pg_arch_table *t = load("sm_90a");
    pg_instr_pattern p;
    char err[128];
    assert_true(pg_pattern_parse("cp.async.bulk.tensor", &p, err, sizeof err));
    assert_string_equal(t->families[pg_arch_table_resolve(t, &p)].ptx.text, "cp.async.bulk.tensor");
    assert_true(pg_pattern_parse("wgmma.mma_async.bf16", &p, err, sizeof err));
    assert_string_equal(t->families[pg_arch_table_resolve(t, &p)].ptx.text, "wgmma.mma_async");
    assert_true(pg_pattern_parse("cp.async.ca", &p, err, sizeof err));
    assert_string_equal(t->families[pg_arch_table_resolve(t, &p)].ptx.text, "cp.async");
    assert_true(pg_pattern_parse("wgmma", &p, err, sizeof err));
    assert_int_equal(pg_arch_table_resolve(t, &p), -1);
    assert_true(pg_pattern_parse("mma", &p, err, sizeof err));
    assert_int_equal(pg_arch_table_resolve(t, &p), -1);
    pg_arch_table_free(t);
}

/* Write text as TMP/<case>/<file> and load it: must fail naming the field. */
static void expect_bad(const char *name, const char *file, const char *text, const char *field,
                       const char *msg)
{
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/arch_%s", PG_TEST_TMP, name);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    pg_arch_table *t = (pg_arch_table *)1;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_arch_table_load_file(path, &t, &d), PG_ERR_INPUT);
    assert_null(t);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0 || !strstr(d.message, msg))
        fail_msg("%s: field '%s' message '%s'; expected '%s' and '%s'", name, d.field, d.message,
                 field, msg);
}

#define HEAD "{\"schema_version\": 1, \"arch\": \"sm_90a\", \"source\": \"s\", "

static void test_bad_tables(void **state)
{
    (void)state;
    expect_bad("ok_then_key", "sm_90a.json", HEAD "\"families\": [], \"extra\": 1}", "extra",
               "unknown field");
    expect_bad("version", "sm_90a.json", "{\"schema_version\": 2}", "schema_version",
               "unsupported schema_version 2");
    expect_bad("arch_name", "sm_89.json", HEAD "\"families\": []}", "arch",
               "file ('sm_89'");
    expect_bad("empty", "sm_90a.json", HEAD "\"families\": []}", "families",
               "expected 1 to 256 families, found 0");
    expect_bad("pattern", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"WGMMA.x\", \"sass\": []}]}", "families[0].ptx",
               "not a PTX opcode");
    expect_bad("repeat", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"cp.async.bulk\", \"sass\": []},"
                    " {\"ptx\": \"cp.bulk.async\", \"sass\": []}]}",
               "families[1].ptx", "repeats families[0]");
    expect_bad("sass_name", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"mma.sync\", \"sass\": [\"HMMA\", \"hmma\"]}]}",
               "families[0].sass[1]", "expected a SASS opcode family");
    expect_bad("sass_dup", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"mma.sync\", \"sass\": [\"HMMA\", \"HMMA\"]}]}",
               "families[0].sass[1]", "appears twice");
    expect_bad("group", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"mma.sync\", \"sass\": [], \"group\": \"Tensor\"}]}",
               "families[0].group", "expected a group name");
#define FAM "\"families\": [{\"ptx\": \"mma.sync\", \"sass\": []}], "
#define LIM(x) FAM "\"launch_limits\": {\"source\": \"s\", \"max_threads_per_block\": 1024, " \
    "\"max_block_dim\": [1024, 1024, 64], \"max_grid_dim\": [2147483647, 65535, 65535], " x "}}"
    expect_bad("lim_missing", "sm_90a.json", HEAD LIM("\"max_shared_per_block_optin\": 1"),
               "launch_limits.max_cluster_blocks_portable", "expected an integer from 1");
    expect_bad("lim_negative", "sm_90a.json",
               HEAD LIM("\"max_shared_per_block_optin\": -5, \"max_cluster_blocks_portable\": 8, "
                        "\"max_cluster_blocks\": 16"),
               "launch_limits.max_shared_per_block_optin", "expected an integer from 1");
    expect_bad("lim_cluster", "sm_90a.json",
               HEAD LIM("\"max_shared_per_block_optin\": 1, \"max_cluster_blocks_portable\": 8, "
                        "\"max_cluster_blocks\": 4"),
               "launch_limits.max_cluster_blocks", "expected at least max_cluster_blocks_portable");
    expect_bad("lim_key", "sm_90a.json",
               HEAD LIM("\"max_shared_per_block_optin\": 1, \"max_cluster_blocks_portable\": 8, "
                        "\"max_cluster_blocks\": 16, \"max_warps\": 2"),
               "launch_limits.max_warps", "unknown field");
    expect_bad("lim_dims", "sm_90a.json",
               HEAD FAM "\"launch_limits\": {\"source\": \"s\", \"max_threads_per_block\": 1024, "
                    "\"max_block_dim\": [1024, 0, 64]}}",
               "launch_limits.max_block_dim[1]", "expected an integer from 1");
#define REF(x) FAM "\"reference_device\": {\"name\": \"H200 SXM\", \"source\": \"s\", " x "}}"
    expect_bad("ref_sms", "sm_90a.json", HEAD REF("\"num_sms\": 0, \"l2_bytes\": 1"),
               "reference_device.num_sms", "expected an integer from 1");
    expect_bad("ref_l2", "sm_90a.json", HEAD REF("\"num_sms\": 132, \"l2_bytes\": 0"),
               "reference_device.l2_bytes", "expected an integer from 1 to 2^40");
    expect_bad("ref_missing", "sm_90a.json", HEAD REF("\"num_sms\": 132"),
               "reference_device.l2_bytes", "required");
    expect_bad("ref_key", "sm_90a.json",
               HEAD REF("\"num_sms\": 132, \"l2_bytes\": 1, \"clock\": 2"),
               "reference_device.clock", "unknown field");
    expect_bad("ref_cluster_sms", "sm_90a.json",
               HEAD REF("\"num_sms\": 132, \"l2_bytes\": 1, \"cluster_sms\": 133"),
               "reference_device.cluster_sms", "expected at most num_sms (132), found 133");
    expect_bad("ref_cluster_sms0", "sm_90a.json",
               HEAD REF("\"num_sms\": 132, \"l2_bytes\": 1, \"cluster_sms\": 0"),
               "reference_device.cluster_sms", "expected an integer from 1");
    expect_bad("family_key", "sm_90a.json",
               HEAD "\"families\": [{\"ptx\": \"mma.sync\", \"sas\": []}]}", "families[0].sas",
               "unknown field");
}

/* Every table shipped in data/arch loads and names its file's architecture. */
static void test_every_shipped_table(void **state)
{
    (void)state;
    DIR *dp = opendir(ARCH_DIR);
    assert_non_null(dp);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char arch[64];
        snprintf(arch, sizeof arch, "%.*s", (int)(len - 5), e->d_name);
        pg_arch_table *t = load(arch);
        assert_string_equal(t->arch, arch);
        for (int i = 0; i < t->n_families; i++)
            if (t->families[i].n_sass == 0 && !t->families[i].note[0])
                fail_msg("%s: %s proves nothing and says no why", arch, t->families[i].ptx.text);
        pg_arch_table_free(t);
        n++;
    }
    closedir(dp);
    assert_true(n >= 2);
}

static void test_missing_table(void **state)
{
    (void)state;
    pg_arch_table *t = NULL;
    pg_diag d;
    assert_int_equal(pg_arch_table_load(ARCH_DIR, "sm_89", &t, &d), PG_ERR_INPUT);
    assert_null(t);
    assert_non_null(strstr(d.message, "no instruction table for sm_89"));
    assert_non_null(strstr(d.message, "sm_100a, sm_90a"));
    assert_int_equal(pg_arch_table_load(ARCH_DIR, "../x", &t, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "not an architecture name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sm90a),      cmocka_unit_test(test_sm100a),
        cmocka_unit_test(test_resolve),    cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_missing_table),  cmocka_unit_test(test_every_shipped_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
