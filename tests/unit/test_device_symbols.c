/* Unit tests of the device symbols of manifest expressions (gate/model/device_symbols.h,
 * pg_expr_names_symbol, pg_plan_build_on): which manifests use them, their values from a GPU
 * and from data/arch/sm_90a.json's reference_device, the task cross-check and the plan
 * evaluated with them (task tests/data/model/tasks/gemm_small, workload "tiny": M=4, N=8,
 * K=16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/device_symbols.h"
#include "model/expr.h"
#include "model/plan.h"

#define TASKS PG_TEST_DATA "/model/tasks"
#define ARCH_DIR PG_SOURCE_DIR "/data/arch"

static char g_path[512];

/* A manifest whose one launch has grid_x as its grid's x and the given params. */
static pg_manifest *load(const char *grid_x, const char *params)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/devsym_XXXXXX", PG_TEST_TMP);
    assert_non_null(mkdtemp(dir));
    char src[600];
    snprintf(src, sizeof src, "%s/kernel.ptx", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(g_path, sizeof g_path, "%s/m.json", dir);
    f = fopen(g_path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"schema_version\": 1, \"task\": \"gemm_small\", \"source\": \"kernel.ptx\",\n"
            " \"launches\": [{\"entry\": \"k\", \"grid\": [\"%s\", 1, 1], \"block\": [128, 1, 1],"
            " \"params\": [{\"tensor\": \"C\"}%s]}]}\n",
            grid_x, params);
    fclose(f);
    pg_manifest *m = NULL;
    pg_diag d;
    char buf[4096];
    if (pg_manifest_load(g_path, &m, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    unlink(g_path);
    unlink(src);
    rmdir(dir);
    return m;
}

static void test_names_symbol(void **state)
{
    (void)state;
    assert_true(pg_expr_names_symbol("num_sms", "num_sms"));
    assert_true(pg_expr_names_symbol("2 * num_sms", "num_sms"));
    assert_true(pg_expr_names_symbol("min(ceil_div(M, 128), num_sms)", "num_sms"));
    assert_false(pg_expr_names_symbol("num_sms2", "num_sms"));
    assert_false(pg_expr_names_symbol("xnum_sms", "num_sms"));
    assert_false(pg_expr_names_symbol("num_sms (3)", "num_sms")); /* a call, not the symbol */
    assert_false(pg_expr_names_symbol("M * N", "num_sms"));
    assert_false(pg_expr_names_symbol("", "num_sms"));
}

static void test_uses(void **state)
{
    (void)state;
    pg_manifest *m = load("ceil_div(M, 128)", "");
    assert_false(pg_manifest_uses_device_symbols(m));
    pg_manifest_free(m);
    m = load("num_sms", "");
    assert_true(pg_manifest_uses_device_symbols(m));
    pg_manifest_free(m);
    m = load("1", ", {\"value\": \"l2_bytes / 2\", \"type\": \"u64\"}");
    assert_true(pg_manifest_uses_device_symbols(m));
    pg_manifest_free(m);
    m = load("1", ", {\"struct\": {\"size\": 8, \"align\": 8, \"fields\": [{\"offset\": 0, "
                  "\"value\": \"max_dynamic_shared_bytes\", \"type\": \"s64\"}]}}");
    assert_true(pg_manifest_uses_device_symbols(m));
    pg_manifest_free(m);
}

static void test_values(void **state)
{
    (void)state;
    pg_device_symbols s;
    pg_device_symbols_from_device(132, 62914560, 232448, "NVIDIA H200", &s);
    assert_int_equal(s.values[0], 132);
    assert_int_equal(s.values[1], 62914560);
    assert_int_equal(s.values[2], 232448);
    assert_false(s.assumed);
    assert_string_equal(s.source, "NVIDIA H200");
    json_t *j = pg_device_symbols_json(&s);
    assert_int_equal(json_integer_value(json_object_get(j, "num_sms")), 132);
    assert_true(json_is_false(json_object_get(j, "assumed")));
    json_decref(j);

    pg_arch_table *t = NULL;
    pg_diag d;
    assert_int_equal(pg_arch_table_load(ARCH_DIR, "sm_90a", &t, &d), PG_OK);
    assert_int_equal(pg_device_symbols_from_arch(t, &s, &d), PG_OK);
    assert_int_equal(s.values[0], 132);
    assert_int_equal(s.values[1], 62914560);
    assert_int_equal(s.values[2], 232448);
    assert_true(s.assumed);
    assert_non_null(strstr(s.source, "assumed: reference_device H200 SXM of the sm_90a table"));
    t->ref.present = false;
    assert_int_equal(pg_device_symbols_from_arch(t, &s, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "has no reference_device"));
    pg_arch_table_free(t);
}

static void test_check_and_plan(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    const pg_workload *w = &t->workloads[pg_task_find_workload(t, "tiny")];
    pg_device_symbols s;
    pg_device_symbols_from_device(132, 62914560, 232448, "NVIDIA H200", &s);

    pg_manifest *m = load("2 * num_sms",
                          ", {\"value\": \"max_dynamic_shared_bytes - M\", \"type\": \"u32\"}");
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    if (pg_plan_build_on(t, m, w, &s, &plan, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    assert_int_equal(plan.launches[0].grid[0], 264);
    assert_int_equal(plan.launches[0].params[1].v.u32, 232448 - 4);
    pg_plan_free(&plan);
    /* Without values the symbol is unknown to the plan. */
    pg_diag_clear(&d);
    assert_int_equal(pg_plan_build(t, m, w, &plan, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid[0]");
    assert_non_null(strstr(d.message, "unknown symbol 'num_sms'"));
    pg_plan_free(&plan);
    pg_manifest_free(m);

    /* A misspelt device symbol is named with the known ones. */
    m = load("num_sm", "");
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid[0]");
    assert_non_null(strstr(d.message,
                           "unknown symbol 'num_sm' (known: M, N, K, num_sms, l2_bytes, "
                           "max_dynamic_shared_bytes)"));
    pg_manifest_free(m);
    pg_task_free(t);
}

/* A GPU's answer for the loaded kernel: 60 clusters, the call's arguments kept. */
static int g_query_launch;
static uint32_t g_query_block[3];
static int64_t g_query_args[2];
static pg_status fake_query(void *ctx, int launch, const uint32_t block[3], int64_t cluster_size,
                            int64_t dynamic_shared_bytes, int64_t *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    assert_ptr_equal(ctx, &g_query_launch);
    g_query_launch = launch;
    memcpy(g_query_block, block, sizeof g_query_block);
    g_query_args[0] = cluster_size;
    g_query_args[1] = dynamic_shared_bytes;
    *out = 60;
    return PG_OK;
}

static void test_max_active_clusters(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    const pg_workload *w = &t->workloads[pg_task_find_workload(t, "tiny")];

    /* The rule of the sm_90a table: cluster_sms 132 / cluster size, 0 above the opt-in. */
    pg_arch_table *a = NULL;
    pg_device_symbols s;
    assert_int_equal(pg_arch_table_load(ARCH_DIR, "sm_90a", &a, &d), PG_OK);
    assert_int_equal(a->ref.cluster_sms, 132);
    assert_int_equal(pg_device_symbols_from_arch(a, &s, &d), PG_OK);
    pg_arch_table_free(a);
    assert_int_equal(s.cluster_sms, 132);
    assert_int_equal(pg_device_symbols_clusters_rule(&s, 2, 214064), 66);
    assert_int_equal(pg_device_symbols_clusters_rule(&s, 16, 0), 8);
    assert_int_equal(pg_device_symbols_clusters_rule(&s, 2, 232448), 66);
    assert_int_equal(pg_device_symbols_clusters_rule(&s, 2, 232449), 0);

    const char *grid = "2 * min(num_sms / 2, max_active_clusters(2, 214064))";
    pg_manifest *m = load(grid, "");
    assert_true(pg_manifest_uses_device_symbols(m));
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    if (pg_plan_build_on(t, m, w, &s, &plan, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    const pg_launch_values *lv = &plan.launches[0];
    assert_int_equal(lv->grid[0], 132);
    assert_true(lv->clusters_used);
    assert_int_equal(lv->clusters_size, 2);
    assert_int_equal(lv->clusters_shared_bytes, 214064);
    assert_int_equal(lv->clusters_value, 66);
    json_t *j = pg_plan_clusters_json(m, &plan);
    assert_int_equal(json_array_size(j), 1);
    json_t *e = json_array_get(j, 0);
    assert_string_equal(json_string_value(json_object_get(e, "launch")), "launches[0]");
    assert_int_equal(json_integer_value(json_object_get(e, "cluster_size")), 2);
    assert_int_equal(json_integer_value(json_object_get(e, "dynamic_shared_bytes")), 214064);
    assert_int_equal(json_integer_value(json_object_get(e, "value")), 66);
    json_decref(j);

    /* Once the kernel is loaded, the GPU's value for it, with the launch's block. */
    s.query = fake_query;
    s.query_ctx = &g_query_launch;
    g_query_launch = -1;
    pg_launch_values again = plan.launches[0];
    assert_int_equal(pg_plan_launch_grid(t, m, w, &s, 0, &again, &d), PG_OK);
    assert_int_equal(g_query_launch, 0);
    assert_int_equal(g_query_block[0], 128);
    assert_int_equal(g_query_block[1], 1);
    assert_int_equal(g_query_args[0], 2);
    assert_int_equal(g_query_args[1], 214064);
    assert_int_equal(again.grid[0], 120);
    assert_int_equal(again.clusters_value, 60);
    pg_plan_free(&plan);
    s.query = NULL;

    /* Without device values (a plan built without them) it is an error naming the field. */
    pg_diag_clear(&d);
    assert_int_equal(pg_plan_build(t, m, w, &plan, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid[0]");
    pg_plan_free(&plan);
    pg_manifest_free(m);

    /* A manifest without grids that call it records nothing. */
    m = load("num_sms", "");
    assert_int_equal(pg_plan_build_on(t, m, w, &s, &plan, &d), PG_OK);
    assert_null(pg_plan_clusters_json(m, &plan));
    pg_plan_free(&plan);
    pg_manifest_free(m);

    /* Outside a grid: an input error naming the field. */
    m = load("1", ", {\"value\": \"max_active_clusters(2, 0)\", \"type\": \"u32\"}");
    assert_true(pg_manifest_uses_device_symbols(m));
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    pg_diag_clear(&d);
    assert_int_equal(pg_plan_build_on(t, m, w, &s, &plan, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].params[1].value");
    assert_non_null(strstr(d.message, "is only available in launch grid expressions"));
    pg_plan_free(&plan);
    pg_manifest_free(m);

    /* A grid of 0 clusters (more dynamic shared memory than a block may have). */
    m = load("max_active_clusters(2, 300000)", "");
    pg_diag_clear(&d);
    assert_int_equal(pg_plan_build_on(t, m, w, &s, &plan, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid[0]");
    assert_non_null(strstr(d.message, "= 0 does not fit a grid dimension"));
    pg_plan_free(&plan);
    pg_manifest_free(m);
    pg_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_symbol),
        cmocka_unit_test(test_uses),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_check_and_plan),
        cmocka_unit_test(test_max_active_clusters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
