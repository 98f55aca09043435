/* Unit tests of launch plans (gate/model/plan.h): tests/data/model/manifests/<case>.json evaluated
 * for the workloads of tests/data/model/tasks/gemm_small ("tiny" 4x8x16, "ragged" 257x513x1000,
 * "huge" 65536x65536x8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/plan.h"

#define MANIFESTS PG_TEST_DATA "/model/manifests"
#define TASKS PG_TEST_DATA "/model/tasks"

typedef struct {
    pg_task *t;
    pg_manifest *m;
    char path[1024];
} fixture;

static void load(fixture *f, const char *name)
{
    pg_diag d;
    char buf[4096];
    snprintf(f->path, sizeof f->path, "%s/%s.json", MANIFESTS, name);
    if (pg_task_load(TASKS, "gemm_small", &f->t, &d) != PG_OK ||
        pg_manifest_load(f->path, &f->m, &d) != PG_OK ||
        pg_manifest_check_task(f->m, f->t, &d) != PG_OK)
        fail_msg("%s: %s", name, pg_diag_format(&d, buf, sizeof buf));
}

static void unload(fixture *f)
{
    pg_manifest_free(f->m);
    pg_task_free(f->t);
}

static const pg_workload *workload(const fixture *f, const char *name)
{
    int i = pg_task_find_workload(f->t, name);
    assert_true(i >= 0);
    return &f->t->workloads[i];
}

/* Building manifest `name` for workload `wl` must fail in the manifest at field with msg. */
static void expect_bad(const char *name, const char *wl, const char *field, const char *msg1,
                       const char *msg2)
{
    fixture f;
    pg_plan p;
    pg_diag d;
    load(&f, name);
    pg_diag_clear(&d);
    assert_int_equal(pg_plan_build(f.t, f.m, workload(&f, wl), &p, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, f.path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", name, d.field, field, d.message);
    if (!strstr(d.message, wl))
        fail_msg("%s: message '%s' does not name the workload '%s'", name, d.message, wl);
    if (msg1 && !strstr(d.message, msg1))
        fail_msg("%s: message '%s' lacks '%s'", name, d.message, msg1);
    if (msg2 && !strstr(d.message, msg2))
        fail_msg("%s: message '%s' lacks '%s'", name, d.message, msg2);
    pg_plan_free(&p);
    assert_null(p.launches);
    unload(&f);
}

static void test_ragged_values(void **state)
{
    (void)state;
    fixture f;
    pg_plan p;
    pg_diag d;
    char buf[4096];
    load(&f, "good");
    if (pg_plan_build(f.t, f.m, workload(&f, "ragged"), &p, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));

    assert_true(p.flop == 2.0 * 257 * 513 * 1000);
    assert_int_equal(p.tensor_elements[0], 257u * 1000u); /* A [M,K] */
    assert_int_equal(p.tensor_elements[1], 513u * 1000u); /* B [N,K] */
    assert_int_equal(p.tensor_elements[2], 257u * 513u);  /* C [M,N] */
    assert_int_equal(p.workspace_bytes[0], 257u * 513u * 4u);
    assert_int_equal(p.workspace_bytes[1], 3u * 5u * 4u); /* ceil_div(257,128)*ceil_div(513,128)*4 */

    assert_int_equal(p.n_launches, 2);
    const pg_launch_values *l = &p.launches[0];
    assert_int_equal(l->grid[0], 5);
    assert_int_equal(l->grid[1], 3);
    assert_int_equal(l->grid[2], 1);
    assert_int_equal(l->block[0], 384);
    assert_int_equal(l->block[1], 1);
    assert_int_equal(l->cluster[0], 2);
    assert_int_equal(l->cluster[1], 1);
    assert_int_equal(l->dynamic_shared_bytes, 2128); /* max(2000, 1024) + 128 */
    assert_int_equal(l->n_params, 10);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(l->params[i].kind, PG_PARAM_TENSOR);
        assert_int_equal(l->params[i].type, PG_PTYPE_PTR);
        assert_int_equal(l->params[i].ref_index, i);
    }
    assert_int_equal(l->params[3].type, PG_PTYPE_U32);
    assert_int_equal(l->params[3].ref_index, -1);
    assert_int_equal(l->params[3].v.u32, 257);
    assert_int_equal(l->params[4].type, PG_PTYPE_S32);
    assert_int_equal(l->params[4].v.s32, -487);
    assert_int_equal(l->params[5].v.u64, 257000u);
    assert_int_equal(l->params[6].v.s64, -1000);
    assert_int_equal(l->params[7].kind, PG_PARAM_SCALAR);
    assert_true(l->params[7].v.f32 == 1.5f);
    assert_true(l->params[8].v.f64 == 0.25);
    assert_int_equal(l->params[9].kind, PG_PARAM_WORKSPACE);
    assert_int_equal(l->params[9].ref_index, 0);

    l = &p.launches[1];
    assert_int_equal(l->grid[0], 1);
    assert_int_equal(l->block[0], 256); /* min(M, 256) */
    assert_int_equal(l->cluster[0], 0);
    assert_int_equal(l->cluster[1], 0);
    assert_int_equal(l->cluster[2], 0);
    assert_int_equal(l->dynamic_shared_bytes, 0);
    assert_int_equal(l->params[0].ref_index, 1);
    assert_int_equal(l->params[1].ref_index, 2);
    pg_plan_free(&p);
    assert_int_equal(p.n_launches, 0);

    /* another workload, same manifest */
    assert_int_equal(pg_plan_build(f.t, f.m, workload(&f, "tiny"), &p, &d), PG_OK);
    assert_int_equal(p.launches[0].grid[0], 1);
    assert_int_equal(p.launches[0].params[3].v.u32, 4);
    assert_int_equal(p.launches[1].block[0], 4);
    pg_plan_free(&p);
    unload(&f);
}

static void test_value_ranges(void **state)
{
    (void)state;
    expect_bad("u32_overflow", "huge", "launches[0].params[3].value", "4294967296",
               "does not fit u32 (0..4294967295)");
    expect_bad("s32_underflow", "huge", "launches[0].params[4].value", "does not fit s32", NULL);
    expect_bad("u64_negative", "huge", "launches[0].params[5].value", "-65528",
               "does not fit u64");
    expect_bad("block_zero", "tiny", "launches[1].block[0]", "= 0 does not fit",
               "(1..65535)");
    expect_bad("grid_y_big", "tiny", "launches[0].grid[1]", "70004", "(1..65535)");
    expect_bad("grid_x_big", "huge", "launches[0].grid[0]", "(1..2147483647)", NULL);
    expect_bad("smem_big", "huge", "launches[0].dynamic_shared_bytes", "(0..4294967295)", NULL);
    expect_bad("negative_workspace", "tiny", "workspaces.flags.bytes", "-4", NULL);
    /* Larger than any GPU's memory: refused before any GPU work. */
    expect_bad("huge_workspace", "tiny", "workspaces.partial.bytes",
               "no larger than any GPU's memory", "(0..1099511627776)");
}

static void test_expression_errors(void **state)
{
    (void)state;
    expect_bad("div_zero", "tiny", "launches[1].grid[1]", "division by zero in 'M / (N - N)'",
               NULL);
    expect_bad("overflow_mul", "huge", "launches[1].block[0]", "overflow in", NULL);
}

static void test_in_range_for_small_workloads(void **state)
{
    (void)state;
    /* the same manifests are fine where the values fit */
    static const char *const names[] = {"u32_overflow", "grid_x_big", "smem_big", "u64_negative"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        fixture f;
        pg_plan p;
        pg_diag d;
        load(&f, names[i]);
        assert_int_equal(pg_plan_build(f.t, f.m, workload(&f, "tiny"), &p, &d), PG_OK);
        pg_plan_free(&p);
        unload(&f);
    }
}

static void test_tensor_map(void **state)
{
    (void)state;
    fixture f;
    pg_plan p;
    pg_diag d;
    char buf[4096];
    load(&f, "tensor_map");
    if (pg_plan_build(f.t, f.m, workload(&f, "ragged"), &p, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    const pg_param_value *v = &p.launches[0].params[3];
    assert_int_equal(v->kind, PG_PARAM_TENSOR_MAP);
    assert_int_equal(v->type, PG_PTYPE_TMAP);
    assert_int_equal(v->ref_index, 0); /* A */
    assert_int_equal(v->tmap.rank, 2);
    assert_int_equal(v->tmap.global_dim[0], 1000); /* K, contiguous */
    assert_int_equal(v->tmap.global_dim[1], 257);  /* M */
    assert_int_equal(v->tmap.global_stride[0], 2000);
    assert_int_equal(v->tmap.box_dim[0], 64);
    assert_int_equal(v->tmap.box_dim[1], 64);
    assert_string_equal(v->tmap.field, "launches[0].params[3].tensor_map");
    pg_plan_free(&p);
    unload(&f);
    /* box [64, "M"]: fine for "tiny" (M = 4), a broken rule for "ragged" (M = 257 > 256). */
    load(&f, "tensor_map_box_m");
    assert_int_equal(pg_plan_build(f.t, f.m, workload(&f, "tiny"), &p, &d), PG_OK);
    assert_int_equal(p.launches[0].params[3].tmap.box_dim[1], 4);
    pg_plan_free(&p);
    unload(&f);
    expect_bad("tensor_map_box_m", "ragged", "launches[0].params[3].tensor_map.box[1]",
               "box dimension 1 (M) is 257", "1 to 256");
}

static void test_flops_error(void **state)
{
    (void)state;
    fixture f;
    pg_plan p;
    pg_diag d;
    load(&f, "good");
    pg_workload w = *workload(&f, "tiny");
    snprintf(w.name, sizeof w.name, "enormous");
    w.values[0] = INT64_MAX / 4; /* 2*M*N*K overflows */
    assert_int_equal(pg_plan_build(f.t, f.m, &w, &p, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, f.t->file);
    assert_string_equal(d.field, "flops");
    assert_non_null(strstr(d.message, "workload 'enormous'"));
    assert_non_null(strstr(d.message, "overflow in '2*M*N*K'"));
    pg_plan_free(&p);
    unload(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ragged_values),
        cmocka_unit_test(test_value_ranges),
        cmocka_unit_test(test_expression_errors),
        cmocka_unit_test(test_in_range_for_small_workloads),
        cmocka_unit_test(test_flops_error),
        cmocka_unit_test(test_tensor_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
