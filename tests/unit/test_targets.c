/* Unit tests of task target sets resolved against the arch tables (gate/model/targets.h): the
 * shipped tasks, narrowing by the task's "sass" list, and each validation error naming the task
 * file and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/targets.h"

#define ARCH_DIR PG_SOURCE_DIR "/data/arch"
#define SHIPPED PG_SOURCE_DIR "/tasks"

static pg_arch_table *table(const char *arch)
{
    pg_arch_table *t = NULL;
    pg_diag d;
    assert_int_equal(pg_arch_table_load(ARCH_DIR, arch, &t, &d), PG_OK);
    return t;
}

static pg_task *shipped(const char *id)
{
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(SHIPPED, id, &t, &d), PG_OK);
    return t;
}

static void test_shipped(void **state)
{
    (void)state;
    pg_task *task = shipped("gemm_bf16_nt");
    pg_arch_table *t90 = table("sm_90a"), *t100 = table("sm_100a");
    pg_target_set set;
    bool found = false;
    pg_diag d;
    assert_int_equal(pg_targets_resolve(task, "sm_90a", t90, &set, &found, &d), PG_OK);
    assert_true(found);
    assert_int_equal(set.n_targets, 2);
    assert_string_equal(set.targets[0].pattern.text, "wgmma.mma_async");
    assert_string_equal(set.targets[0].field, "targets.sm_90a.ptx[0]");
    assert_string_equal(t90->families[set.targets[0].family].ptx.text, "wgmma.mma_async");
    /* the task lists HGMMA and UTMALDG: QGMMA (fp8) does not prove a bf16 task's wgmma, and a
     * TMA store does not prove the loads */
    assert_int_equal(set.targets[0].n_sass, 1);
    assert_string_equal(set.targets[0].sass[0], "HGMMA");
    assert_int_equal(set.targets[1].n_sass, 1);
    assert_string_equal(set.targets[1].sass[0], "UTMALDG");
    assert_int_equal(pg_targets_resolve(task, "sm_100a", t100, &set, &found, &d), PG_OK);
    assert_true(found);
    assert_string_equal(set.targets[0].pattern.text, "tcgen05.mma");
    assert_string_equal(set.targets[0].sass[0], "UTCHMMA");
    assert_int_equal(set.targets[0].n_sass, 1);
    /* no set for sm_80: not found, not an error */
    assert_int_equal(pg_targets_resolve(task, "sm_80", t90, &set, &found, &d), PG_OK);
    assert_false(found);
    assert_int_equal(set.n_targets, 0);
    assert_int_equal(pg_targets_check_task(task, ARCH_DIR, &d), PG_OK);
    pg_task_free(task);
    task = shipped("gemm_fp16_nt");
    assert_int_equal(pg_targets_check_task(task, ARCH_DIR, &d), PG_OK);
    assert_string_equal(task->instructions, "require");
    pg_task_free(task);
    pg_arch_table_free(t90);
    pg_arch_table_free(t100);
}

/* A copy of the shipped gemm_bf16_nt task in TMP/<name>/task.json with "targets" replaced. */
static pg_task *task_with_targets(const char *name, const char *targets_json)
{
    char dir[1024], path[1200], src[1024];
    snprintf(dir, sizeof dir, "%s/%s", PG_TEST_TMP, name);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/task.json", dir);
    snprintf(src, sizeof src, "%s/gemm_bf16_nt/task.json", SHIPPED);
    json_error_t e;
    json_t *root = json_load_file(src, 0, &e);
    assert_non_null(root);
    json_t *targets = json_loads(targets_json, 0, &e);
    if (!targets)
        fail_msg("bad test JSON: %s", e.text);
    json_object_set_new(root, "targets", targets);
    json_object_set_new(root, "id", json_string(name));
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);
    pg_task *t = NULL;
    pg_diag d;
    char buf[2048];
    if (pg_task_load_file(path, &t, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    return t;
}

static void expect_bad(const char *name, const char *targets_json, const char *field,
                       const char *msg1, const char *msg2)
{
    pg_task *t = task_with_targets(name, targets_json);
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_targets_check_task(t, ARCH_DIR, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, t->file);
    if (strcmp(d.field, field) != 0 || !strstr(d.message, msg1) || (msg2 && !strstr(d.message, msg2)))
        fail_msg("%s: field '%s' message '%s'; expected '%s', '%s', '%s'", name, d.field,
                 d.message, field, msg1, msg2 ? msg2 : "");
    pg_task_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    expect_bad("t_unknown_family", "{\"sm_90a\": {\"ptx\": [\"wgmma.mma_async\", \"wgmma\"], \"sass\": []}}",
               "targets.sm_90a.ptx[1]", "unknown PTX instruction family 'wgmma' for sm_90a",
               "cp.async.bulk.tensor");
    expect_bad("t_wrong_arch", "{\"sm_100a\": {\"ptx\": [\"wgmma.mma_async\"], \"sass\": []}}",
               "targets.sm_100a.ptx[0]", "unknown PTX instruction family 'wgmma.mma_async'",
               "tcgen05.mma");
    expect_bad("t_pattern", "{\"sm_90a\": {\"ptx\": [\"mma..sync\"], \"sass\": []}}",
               "targets.sm_90a.ptx[0]", "expected a PTX instruction pattern", "empty component");
    expect_bad("t_unprovable", "{\"sm_100a\": {\"ptx\": [\"tcgen05.alloc\"], \"sass\": []}}",
               "targets.sm_100a.ptx[0]", "no SASS family proves tcgen05.alloc", "UTCATOMSWS");
    expect_bad("t_repeat", "{\"sm_90a\": {\"ptx\": [\"cp.async.bulk.tensor\", \"cp.tensor.async.bulk\"], \"sass\": []}}",
               "targets.sm_90a.ptx[1]", "repeats targets.sm_90a.ptx[0]", NULL);
    expect_bad("t_sass_unknown", "{\"sm_90a\": {\"ptx\": [\"wgmma.mma_async\"], \"sass\": [\"HGMMA\", \"HGMMAX\"]}}",
               "targets.sm_90a.sass[1]", "unknown SASS family 'HGMMAX' for sm_90a", NULL);
    expect_bad("t_sass_unrelated", "{\"sm_90a\": {\"ptx\": [\"wgmma.mma_async\"], \"sass\": [\"LDSM\"]}}",
               "targets.sm_90a.sass[0]", "'LDSM' proves none of the PTX targets of sm_90a",
               "wgmma.mma_async → HGMMA, QGMMA, IGMMA, BGMMA");
    expect_bad("t_no_table", "{\"sm_89\": {\"ptx\": [\"mma.sync\"], \"sass\": []}}", "targets.sm_89",
               "no instruction table for sm_89", "sm_100a, sm_90a");
    expect_bad("t_too_many",
               "{\"sm_90a\": {\"ptx\": [\"mma.sync\", \"ldmatrix\", \"stmatrix\", \"cp.async\","
               " \"cp.async.bulk\", \"cp.async.bulk.tensor\", \"wgmma.mma_async\", \"wgmma.fence\","
               " \"wgmma.wait_group\", \"mbarrier\", \"fence.proxy.async\", \"setmaxnreg\","
               " \"elect.sync\", \"griddepcontrol.wait\", \"griddepcontrol.launch_dependents\","
               " \"cp.async.commit_group\", \"cp.async.wait_group\"], \"sass\": []}}",
               "targets.sm_90a.ptx[16]", "at most 16 PTX targets", NULL);
}

static void test_more_specific_target(void **state)
{
    (void)state;
    /* a target may carry more modifiers than its family; without a "sass" list it keeps all
     * of the family's SASS families; empty sets are "no targets" */
    pg_task *t = task_with_targets("t_specific",
                                   "{\"sm_90a\": {\"ptx\": [\"mma.sync.m16n8k16.bf16\"]},"
                                   " \"sm_100a\": {\"ptx\": [], \"sass\": []}}");
    pg_arch_table *tab = table("sm_90a");
    pg_target_set set;
    bool found;
    pg_diag d;
    assert_int_equal(pg_targets_resolve(t, "sm_90a", tab, &set, &found, &d), PG_OK);
    assert_true(found);
    assert_string_equal(tab->families[set.targets[0].family].ptx.text, "mma.sync");
    assert_int_equal(set.targets[0].n_sass, 3);
    assert_string_equal(set.targets[0].sass[0], "HMMA");
    assert_int_equal(pg_targets_resolve(t, "sm_100a", tab, &set, &found, &d), PG_OK);
    assert_false(found);
    assert_int_equal(pg_targets_check_task(t, ARCH_DIR, &d), PG_OK);
    pg_arch_table_free(tab);
    pg_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_more_specific_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
