/* Unit tests of manifest loading and the task cross-check (gate/model/manifest.h). Fixtures:
 * tests/data/model/manifests/<case>.json (good.json plus one defect each) against the task
 * tests/data/model/tasks/gemm_small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/manifest.h"

#define MANIFESTS PG_TEST_DATA "/model/manifests"
#define TASKS PG_TEST_DATA "/model/tasks"

static void msg_has(const pg_diag *d, const char *want)
{
    if (want && !strstr(d->message, want))
        fail_msg("message '%s' lacks '%s'", d->message, want);
}

/* pg_manifest_load of <name>.json must fail naming the file, field and message parts. */
static void expect_bad(const char *name, const char *field, const char *msg1, const char *msg2)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", MANIFESTS, name);
    pg_manifest *m = (pg_manifest *)1;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_manifest_load(path, &m, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("%s: expected PG_ERR_INPUT, got %d", name, (int)st);
    assert_null(m);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", name, d.field, field, d.message);
    msg_has(&d, msg1);
    msg_has(&d, msg2);
}

/* <name>.json loads, but pg_manifest_check_task against gemm_small fails as described. */
static void expect_bad_for_task(const char *name, const char *field, const char *msg1,
                                const char *msg2)
{
    char path[1024], buf[4096];
    snprintf(path, sizeof path, "%s/%s.json", MANIFESTS, name);
    pg_manifest *m = NULL;
    pg_task *t = NULL;
    pg_diag d;
    if (pg_manifest_load(path, &m, &d) != PG_OK)
        fail_msg("%s: %s", name, pg_diag_format(&d, buf, sizeof buf));
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("%s: field '%s', expected '%s' (message: %s)", name, d.field, field, d.message);
    msg_has(&d, msg1);
    msg_has(&d, msg2);
    pg_manifest_free(m);
    pg_task_free(t);
}

static void test_good(void **state)
{
    (void)state;
    pg_manifest *m = NULL;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    const char *path = MANIFESTS "/good.json";
    if (pg_manifest_load(path, &m, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    assert_string_equal(m->file, path);
    assert_string_equal(m->dir, MANIFESTS);
    assert_string_equal(m->name, "good");
    assert_string_equal(m->task, "gemm_small");
    assert_string_equal(m->source_field_value, "kernel.ptx");
    assert_string_equal(m->source, MANIFESTS "/kernel.ptx");
    assert_string_equal(m->arch, "sm_90a");
    assert_string_equal(m->description, "Two launches: the GEMM, then a fix-up pass");

    assert_int_equal(m->n_ws, 2);
    assert_string_equal(m->ws[0].name, "partial");
    assert_string_equal(m->ws[0].bytes, "M*N*4");
    assert_true(m->ws[0].poison);
    assert_string_equal(m->ws[1].name, "flags");
    assert_false(m->ws[1].poison);

    assert_int_equal(m->n_launches, 2);
    const pg_launch_spec *l = &m->launches[0];
    assert_string_equal(l->entry, "gemm_kernel");
    assert_string_equal(l->field, "launches[0]");
    assert_string_equal(l->grid[0], "ceil_div(N, 128)");
    assert_string_equal(l->grid[2], "1");
    assert_string_equal(l->block[0], "384");
    assert_true(l->has_cluster);
    assert_string_equal(l->cluster[0], "2");
    assert_string_equal(l->dynamic_shared_bytes, "max(K * 2, 1024) + 128");
    assert_int_equal(l->n_params, 10);
    assert_int_equal(l->params[0].kind, PG_PARAM_TENSOR);
    assert_string_equal(l->params[0].ref, "A");
    assert_string_equal(l->params[0].name, "a");
    assert_int_equal(l->params[0].type, PG_PTYPE_PTR);
    assert_string_equal(l->params[1].name, "");
    assert_int_equal(l->params[3].kind, PG_PARAM_VALUE);
    assert_int_equal(l->params[3].type, PG_PTYPE_U32);
    assert_string_equal(l->params[3].expr, "M");
    assert_string_equal(l->params[3].field, "launches[0].params[3]");
    assert_int_equal(l->params[4].type, PG_PTYPE_S32);
    assert_int_equal(l->params[5].type, PG_PTYPE_U64);
    assert_int_equal(l->params[6].type, PG_PTYPE_S64);
    assert_int_equal(l->params[7].kind, PG_PARAM_SCALAR);
    assert_int_equal(l->params[7].type, PG_PTYPE_F32);
    assert_true(l->params[7].scalar == 1.5);
    assert_int_equal(l->params[8].type, PG_PTYPE_F64);
    assert_int_equal(l->params[9].kind, PG_PARAM_WORKSPACE);
    assert_string_equal(l->params[9].ref, "partial");

    l = &m->launches[1];
    assert_false(l->has_cluster);
    assert_string_equal(l->dynamic_shared_bytes, "0");
    assert_string_equal(l->block[0], "min(M, 256)");
    assert_int_equal(l->n_params, 2);
    assert_string_equal(l->params[1].field, "launches[1].params[1]");

    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    pg_task_free(t);
    pg_manifest_free(m);

    /* .cu source, no optional fields */
    assert_int_equal(pg_manifest_load(MANIFESTS "/good_cu.json", &m, &d), PG_OK);
    assert_string_equal(m->source, MANIFESTS "/kernel.cu");
    assert_string_equal(m->arch, "");
    assert_int_equal(m->n_ws, 0);
    assert_int_equal(m->launches[0].n_params, 0);
    pg_manifest_free(m);
}

static void test_param_types(void **state)
{
    (void)state;
    assert_int_equal(pg_param_type_size(PG_PTYPE_U32), 4);
    assert_int_equal(pg_param_type_size(PG_PTYPE_S32), 4);
    assert_int_equal(pg_param_type_size(PG_PTYPE_U64), 8);
    assert_int_equal(pg_param_type_size(PG_PTYPE_S64), 8);
    assert_int_equal(pg_param_type_size(PG_PTYPE_F32), 4);
    assert_int_equal(pg_param_type_size(PG_PTYPE_F64), 8);
    assert_int_equal(pg_param_type_size(PG_PTYPE_PTR), 8);
    assert_int_equal(pg_param_type_size(PG_PTYPE_TMAP), 128);
    assert_string_equal(pg_param_type_name(PG_PTYPE_U32), "u32");
    assert_string_equal(pg_param_type_name(PG_PTYPE_F64), "f64");
    assert_string_equal(pg_param_type_name(PG_PTYPE_PTR), "ptr");
    assert_string_equal(pg_param_type_name(PG_PTYPE_TMAP), "tensor_map");
}

static void test_tensor_map(void **state)
{
    (void)state;
    pg_manifest *m = NULL;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    if (pg_manifest_load(MANIFESTS "/tensor_map.json", &m, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    const pg_param_binding *p = &m->launches[0].params[3];
    assert_int_equal(p->kind, PG_PARAM_TENSOR_MAP);
    assert_int_equal(p->type, PG_PTYPE_TMAP);
    assert_string_equal(p->tmap.tensor, "A");
    assert_int_equal(p->tmap.n_box, 2);
    assert_string_equal(p->tmap.box[1], "64");
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    if (pg_manifest_check_task(m, t, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    pg_manifest_free(m);
    pg_task_free(t);
}

static void test_file_errors(void **state)
{
    (void)state;
    pg_manifest *m = NULL;
    pg_diag d;
    assert_int_equal(pg_manifest_load(MANIFESTS "/absent.json", &m, &d), PG_ERR_INPUT);
    assert_null(m);
    assert_string_equal(d.file, MANIFESTS "/absent.json");
    assert_int_equal(pg_manifest_load(MANIFESTS "/malformed.json", &m, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, MANIFESTS "/malformed.json");
    assert_int_equal(d.line, 2);
    msg_has(&d, "malformed JSON");
}

static void test_source_errors(void **state)
{
    (void)state;
    expect_bad("missing_source", "source", "source file 'absent.ptx' cannot be found",
               MANIFESTS "/absent.ptx");
    expect_bad("wrong_ext", "source", "ending in .ptx or .cu", "found 'notes.txt'");
    expect_bad("source_dir", "source", "is not a regular file", "folder.ptx");
}

static void test_param_errors(void **state)
{
    (void)state;
    expect_bad("tensor_map_bad_swizzle", "launches[0].params[3].tensor_map.swizzle",
               "unknown swizzle '256B'", "none, 32B, 64B, 128B");
    expect_bad("tensor_map_with_type", "launches[0].params[3].type",
               "a tensor_map parameter takes no type", NULL);
    expect_bad("two_kinds", "launches[0].params[3]", "has both 'tensor' and 'value'",
               "exactly one of tensor, value, scalar, workspace, tensor_map");
    expect_bad("no_kind", "launches[0].params[1]", "expected exactly one of", NULL);
    expect_bad("bad_type", "launches[0].params[3].type", "unknown type 'u16'",
               "u32, s32, u64, s64");
    expect_bad("scalar_int_type", "launches[0].params[7].type", "unknown type 'u32'", "f32, f64");
    expect_bad("tensor_with_type", "launches[0].params[0].type", "takes no type", NULL);
    expect_bad("value_no_type", "launches[0].params[3].type", "needs a type", NULL);
    expect_bad("undeclared_workspace", "launches[1].params[0].workspace",
               "unknown workspace 'scratch'", NULL);
    expect_bad("layout_key", "launches[0].params[1].strides", "cannot choose a tensor's layout",
               "remove 'strides'");
    expect_bad("ws_unused", "workspaces.spare", "workspace 'spare' is declared",
               "no launch parameter uses it");
}

static void test_shape_errors(void **state)
{
    (void)state;
    expect_bad("unknown_key", "launches[1].blocks", "unknown field", "dynamic_shared_bytes");
    expect_bad("grid_two", "launches[0].grid", "expected 3 expressions", "found 2");
    expect_bad("expr_syntax", "launches[1].grid[1]", "syntax error at column 3 of 'M+*2'", NULL);
    expect_bad("expr_type", "launches[1].block[0]", "integer expression",
               "found a real number");
    expect_bad("bad_init", "workspaces.flags.init", "unknown init 'random'", "zero, poison");
    expect_bad("bad_arch", "arch", "found 'sm_9x'", NULL);
    expect_bad("no_launches", "launches", "expected 1 to 64 launches", "found 0");
    expect_bad("schema_version", "schema_version", "unsupported schema_version 2", NULL);
    expect_bad("bad_entry", "launches[0].entry", "PTX entry name", "'gemm kernel'");
}

static void test_check_task(void **state)
{
    (void)state;
    expect_bad_for_task("wrong_task", "task", "for task 'gemm_other'",
                        "task loaded is 'gemm_small'");
    expect_bad_for_task("unknown_tensor", "launches[1].params[1].tensor", "unknown tensor 'D'",
                        "A, B, C");
    expect_bad_for_task("unknown_symbol", "launches[0].grid[1]", "unknown symbol 'Q'",
                        "known: M, N, K");
    expect_bad_for_task("unknown_symbol_param", "launches[0].params[5].value",
                        "unknown symbol 'L'", NULL);
    expect_bad_for_task("unknown_symbol_ws", "workspaces.partial.bytes", "unknown symbol 'Z'",
                        NULL);
    expect_bad_for_task("tensor_map_unknown_tensor", "launches[0].params[3].tensor_map.tensor",
                        "unknown tensor 'Z'", NULL);
    expect_bad_for_task("output_unbound", "launches", "output tensor 'C'",
                        "bound to no kernel parameter");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),          cmocka_unit_test(test_param_types),
        cmocka_unit_test(test_file_errors),   cmocka_unit_test(test_source_errors),
        cmocka_unit_test(test_param_errors),  cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_check_task),    cmocka_unit_test(test_tensor_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
