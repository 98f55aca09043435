/* Unit tests of the manifest bindings that real kernels' launch interfaces need: by-value struct
 * parameters (loading {"struct": {...}}, gate/model/manifest.h; their checks against the task
 * and the PTX, gate/model/binding.h; their evaluated fields, gate/model/plan.h; their packed
 * bytes, pg_binding_args and pg_binding_pack_struct), outputs bound through tensor maps, and
 * the "supports" shape constraint (pg_manifest_supports), and setup launches. Manifests
 * are written to a fresh temporary folder next to an (unread) kernel.ptx, against the task
 * tests/data/model/tasks/gemm_small (workload "tiny": M=4, N=8, K=16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/binding.h"
#include "model/plan.h"

#define TASKS PG_TEST_DATA "/model/tasks"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/pg_struct_XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    char p[512];
    snprintf(p, sizeof p, "%s/kernel.ptx", g_dir);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fputs("// unread\n", f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/kernel.ptx", g_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/m.json", g_dir);
    unlink(p);
    rmdir(g_dir);
    return 0;
}

static const char *g_supports = NULL; /* a "supports" line for write_manifest, or NULL */

/* Write a manifest with one launch of entry k whose params are params_json; return its path. */
static const char *write_manifest(const char *params_json)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/m.json", g_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"schema_version\": 1, \"task\": \"gemm_small\", \"source\": \"kernel.ptx\",\n"
            "%s%s%s"
            " \"workspaces\": {\"ws\": {\"bytes\": 64}},\n"
            " \"launches\": [{\"entry\": \"k\", \"grid\": [1, 1, 1], \"block\": [128, 1, 1],\n"
            " \"params\": %s}]}\n",
            g_supports ? " \"supports\": " : "", g_supports ? g_supports : "",
            g_supports ? ",\n" : "", params_json);
    fclose(f);
    return path;
}

/* A struct of 256 bytes, align 64: A, B and C addresses, M as u32, K as s64, a workspace, a
 * tensor map of A at 128, with zero padding at 20..23. */
static const char *k_good =
    "[{\"name\": \"params\", \"struct\": {\"size\": 256, \"align\": 64, \"fields\": [\n"
    "  {\"offset\": 0, \"tensor\": \"A\"},\n"
    "  {\"offset\": 8, \"tensor\": \"B\"},\n"
    "  {\"offset\": 16, \"value\": \"M\", \"type\": \"u32\", \"name\": \"m\"},\n"
    "  {\"offset\": 20, \"zero\": 4},\n"
    "  {\"offset\": 24, \"value\": \"-K\", \"type\": \"s64\"},\n"
    "  {\"offset\": 32, \"scalar\": 0.5, \"type\": \"f32\"},\n"
    "  {\"offset\": 40, \"workspace\": \"ws\"},\n"
    "  {\"offset\": 48, \"tensor\": \"C\"},\n"
    "  {\"offset\": 128, \"tensor_map\": {\"tensor\": \"A\", \"box\": [16, 4]}}]}}]";

static void expect_load_error(const char *params, const char *field, const char *msg)
{
    pg_manifest *m = (pg_manifest *)1;
    pg_diag d;
    pg_diag_clear(&d);
    const char *path = write_manifest(params);
    assert_int_equal(pg_manifest_load(path, &m, &d), PG_ERR_INPUT);
    assert_null(m);
    assert_string_equal(d.file, path);
    if (strcmp(d.field, field) != 0)
        fail_msg("field '%s', expected '%s' (message: %s)", d.field, field, d.message);
    if (!strstr(d.message, msg))
        fail_msg("message '%s' lacks '%s'", d.message, msg);
}

static pg_manifest *load_ok(const char *params)
{
    pg_manifest *m = NULL;
    pg_diag d;
    char buf[4096];
    if (pg_manifest_load(write_manifest(params), &m, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    return m;
}

static void test_load_good(void **state)
{
    (void)state;
    pg_manifest *m = load_ok(k_good);
    const pg_param_binding *p = &m->launches[0].params[0];
    assert_int_equal(p->kind, PG_PARAM_STRUCT);
    assert_int_equal(p->bytes, 256);
    assert_int_equal(p->align, 64);
    assert_int_equal(pg_param_binding_size(p), 256);
    assert_int_equal(p->n_fields, 9);
    assert_string_equal(p->fields[2].field, "launches[0].params[0].struct.fields[2]");
    assert_int_equal(p->fields[2].offset, 16);
    assert_int_equal(p->fields[2].type, PG_PTYPE_U32);
    assert_int_equal(p->fields[3].kind, PG_PARAM_ZERO);
    assert_int_equal(pg_param_binding_size(&p->fields[3]), 4);
    assert_int_equal(p->fields[8].kind, PG_PARAM_TENSOR_MAP);
    assert_string_equal(p->fields[8].tmap.tensor, "A");
    pg_manifest_free(m);
}

static void test_load_errors(void **state)
{
    (void)state;
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"tensor\": \"A\"}, {\"offset\": 4, \"value\": \"M\", "
                      "\"type\": \"u32\"}]}}]",
                      "launches[0].params[0].struct.fields[1].offset",
                      "bytes 4..7 overlap launches[0].params[0].struct.fields[0] (bytes 0..7)");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 12, \"value\": \"M\", \"type\": \"u64\"}]}}]",
                      "launches[0].params[0].struct.fields[0].offset",
                      "the field's 8 bytes at offset 12 run past the end of the 16-byte struct");
    expect_load_error("[{\"struct\": {\"size\": 256, \"align\": 64, \"fields\": ["
                      "{\"offset\": 32, \"tensor_map\": {\"tensor\": \"A\", \"box\": [8, 4]}}]}}]",
                      "launches[0].params[0].struct.fields[0].offset",
                      "offset 32 is not a multiple of 64: a tensor map must be 64-byte aligned");
    expect_load_error("[{\"struct\": {\"size\": 256, \"align\": 16, \"fields\": ["
                      "{\"offset\": 64, \"tensor_map\": {\"tensor\": \"A\", \"box\": [8, 4]}}]}}]",
                      "launches[0].params[0].struct.align",
                      "must be at least 64-byte aligned, found 16");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 4, \"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.fields[0].offset",
                      "offset 4 is not a multiple of 8: ptr must be 8-byte aligned");
    expect_load_error("[{\"struct\": {\"size\": 20, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.size", "not a multiple of the struct's align 8");
    expect_load_error("[{\"struct\": {\"size\": 24, \"align\": 24, \"fields\": ["
                      "{\"offset\": 0, \"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.align", "expected a power of two");
    expect_load_error("[{\"struct\": {\"size\": 40000, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.size", "from 1 to 32764");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": []}}]",
                      "launches[0].params[0].struct.fields", "expected 1 to 256 fields");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.fields[0].offset", "required");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"struct\": {\"size\": 8, \"align\": 8, \"fields\": []}}]}}]",
                      "launches[0].params[0].struct.fields[0].struct",
                      "a struct field cannot be a struct");
    expect_load_error("[{\"zero\": 8}]", "launches[0].params[0].zero",
                      "padding inside a struct parameter");
    expect_load_error("[{\"offset\": 0, \"tensor\": \"A\"}]", "launches[0].params[0].offset",
                      "only a field of a struct parameter has an offset");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"pack\": 1, \"fields\": ["
                      "{\"offset\": 0, \"tensor\": \"A\"}]}}]",
                      "launches[0].params[0].struct.pack", "unknown");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"workspace\": \"nope\"}]}}]",
                      "launches[0].params[0].struct.fields[0].workspace",
                      "unknown workspace 'nope'");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"zero\": 8, \"type\": \"u64\"}]}}]",
                      "launches[0].params[0].struct.fields[0].type", "takes no type");
}

static void test_check_task(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    /* C bound only inside the struct counts as bound; a bad tensor name inside is named. */
    pg_manifest *m = load_ok(k_good);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    pg_manifest_free(m);
    m = load_ok("[{\"tensor\": \"C\"}, {\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                "{\"offset\": 0, \"tensor\": \"Z\"}, {\"offset\": 8, \"workspace\": \"ws\"}]}}]");
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].params[1].struct.fields[0].tensor");
    assert_non_null(strstr(d.message, "unknown tensor 'Z'"));
    pg_manifest_free(m);
    m = load_ok("[{\"tensor\": \"C\"}, {\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                "{\"offset\": 8, \"value\": \"Q\", \"type\": \"u64\"}, {\"offset\": 0, "
                "\"workspace\": \"ws\"}]}}]");
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].params[1].struct.fields[0].value");
    pg_manifest_free(m);
    /* A workspace used only inside a struct counts as used (k_good loads); one unused fails. */
    expect_load_error("[{\"tensor\": \"C\"}]", "workspaces.ws", "no launch parameter uses it");
    pg_task_free(t);
}

/* An output written only through TMA stores is bound by its tensor map. */
static void test_output_bound_by_tensor_map(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_manifest *m = load_ok("[{\"workspace\": \"ws\"}, {\"tensor_map\": {\"tensor\": \"C\", "
                             "\"box\": [8, 4]}}]");
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    pg_manifest_free(m);
    m = load_ok("[{\"workspace\": \"ws\"}, {\"struct\": {\"size\": 128, \"align\": 64, "
                "\"fields\": [{\"offset\": 0, \"tensor_map\": {\"tensor\": \"C\", \"box\": [8, "
                "4]}}]}}]");
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    pg_manifest_free(m);
    m = load_ok("[{\"workspace\": \"ws\"}, {\"tensor_map\": {\"tensor\": \"A\", "
                "\"box\": [8, 4]}}]");
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches");
    assert_non_null(strstr(d.message, "output tensor 'C'"));
    pg_manifest_free(m);
    pg_task_free(t);
}

/* A device_struct is a struct in a device buffer: same field rules, an 8-byte address parameter. */
static void test_device_struct(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_manifest *m = load_ok(
        "[{\"workspace\": \"ws\"}, {\"name\": \"maps\", \"device_struct\": {\"size\": 256, "
        "\"align\": 64, \"fields\": [{\"offset\": 0, \"tensor_map\": {\"tensor\": \"A\", "
        "\"box\": [16, 4]}}, {\"offset\": 128, \"tensor_map\": {\"tensor\": \"C\", \"box\": "
        "[8, 4]}}]}}]");
    const pg_param_binding *p = &m->launches[0].params[1];
    assert_int_equal(p->kind, PG_PARAM_DEVICE_STRUCT);
    assert_int_equal(p->type, PG_PTYPE_PTR);
    assert_int_equal(pg_param_binding_size(p), 8);
    assert_int_equal(p->bytes, 256);
    assert_string_equal(p->fields[1].field, "launches[0].params[1].device_struct.fields[1]");
    /* C bound only through the tensor map in device memory counts as bound. */
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    if (pg_plan_build(t, m, &t->workloads[pg_task_find_workload(t, "tiny")], &plan, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    const pg_param_value *v = &plan.launches[0].params[1];
    assert_int_equal(v->kind, PG_PARAM_DEVICE_STRUCT);
    assert_int_equal(v->bytes, 256);
    assert_int_equal(v->n_fields, 2);
    assert_int_equal(v->fields[1].offset, 128);
    assert_int_equal(v->fields[1].tmap.tensor_index, 2);
    /* The argument slot stays zero until the device layer writes the buffer's address. */
    const uint64_t tensor_addr[3] = {0x1000, 0x2000, 0x3000};
    const uint64_t ws_addr[1] = {0x9000};
    pg_arg_block ab;
    assert_int_equal(pg_binding_args(&plan.launches[0], tensor_addr, ws_addr, &ab), PG_OK);
    uint64_t u64;
    memcpy(&u64, ab.args[1], 8);
    assert_int_equal(u64, 0);
    memcpy(&u64, ab.args[0], 8);
    assert_int_equal(u64, 0x9000);
    pg_arg_block_free(&ab);
    pg_plan_free(&plan);
    pg_manifest_free(m);
    pg_task_free(t);

    expect_load_error("[{\"device_struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 4, \"value\": \"M\", \"type\": \"u64\"}]}}]",
                      "launches[0].params[0].device_struct.fields[0].offset",
                      "offset 4 is not a multiple of 8");
    expect_load_error("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"device_struct\": {\"size\": 8, \"align\": 8, "
                      "\"fields\": []}}]}}]",
                      "launches[0].params[0].struct.fields[0].device_struct",
                      "cannot be a device_struct");
    expect_load_error("[{\"device_struct\": {\"size\": 8, \"align\": 8, \"fields\": ["
                      "{\"offset\": 0, \"workspace\": \"ws\"}]}, \"type\": \"u64\"}]",
                      "launches[0].params[0].type", "always an 8-byte address");
    /* 17 device structs in one manifest are one too many. */
    char many[8192];
    size_t used = (size_t)snprintf(many, sizeof many, "[");
    for (int i = 0; i < 17; i++)
        used += (size_t)snprintf(many + used, sizeof many - used,
                                 "%s{\"device_struct\": {\"size\": 8, \"align\": 8, \"fields\": "
                                 "[{\"offset\": 0, \"workspace\": \"ws\"}]}}",
                                 i ? ", " : "");
    snprintf(many + used, sizeof many - used, "]");
    expect_load_error(many, "launches[0].params[16]", "at most 16 device_struct");
}

static void test_supports(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    bool ok = false;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    const pg_workload *tiny = &t->workloads[pg_task_find_workload(t, "tiny")];     /* 4x8x16 */
    const pg_workload *ragged = &t->workloads[pg_task_find_workload(t, "ragged")]; /* 257x513 */
    const char *params = "[{\"tensor\": \"C\"}, {\"workspace\": \"ws\"}]";
    /* No constraint: every workload. */
    pg_manifest *m = load_ok(params);
    assert_string_equal(m->supports, "");
    assert_int_equal(pg_manifest_supports(m, t, ragged, &ok, &d), PG_OK);
    assert_true(ok);
    pg_manifest_free(m);
    g_supports = "\"M % 4 == 0 && N % 8 == 0\"";
    m = load_ok(params);
    assert_string_equal(m->supports, "M % 4 == 0 && N % 8 == 0");
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    assert_int_equal(pg_manifest_supports(m, t, tiny, &ok, &d), PG_OK);
    assert_true(ok);
    assert_int_equal(pg_manifest_supports(m, t, ragged, &ok, &d), PG_OK);
    assert_false(ok);
    pg_manifest_free(m);
    /* Task symbols only (not device symbols: a workload is declined the same way offline). */
    g_supports = "\"num_sms > 1\"";
    m = load_ok(params);
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "supports");
    assert_non_null(strstr(d.message, "unknown symbol 'num_sms' (known: M, N, K)"));
    pg_manifest_free(m);
    /* Evaluation errors name the field and the workload. */
    g_supports = "\"M / (N - 513) > 0\"";
    m = load_ok(params);
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_supports(m, t, ragged, &ok, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "supports");
    assert_non_null(strstr(d.message, "workload 'ragged': division by zero"));
    pg_manifest_free(m);
    g_supports = "\"M %% 2\"";
    expect_load_error(params, "supports", "syntax error at column 4");
    g_supports = "true";
    expect_load_error(params, "supports", "expected an integer expression");
    g_supports = NULL;
    pg_task_free(t);
}

/* A manifest with setup launches whose params are setup_params, next to a main launch. */
static pg_manifest *load_setup(const char *setup_params, pg_status want, const char *field,
                               const char *msg)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/m.json", g_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"schema_version\": 1, \"task\": \"gemm_small\", \"source\": \"kernel.ptx\",\n"
            " \"workspaces\": {\"ws\": {\"bytes\": 64}, \"sched\": {\"bytes\": \"M * 8\", "
            "\"init\": \"poison\"}},\n"
            " \"setup\": [{\"entry\": \"build\", \"grid\": [\"ceil_div(M, 2)\", 1, 1], "
            "\"block\": [32, 1, 1], \"params\": %s}],\n"
            " \"launches\": [{\"entry\": \"k\", \"grid\": [1, 1, 1], \"block\": [128, 1, 1],\n"
            " \"params\": [{\"tensor\": \"C\"}, {\"workspace\": \"sched\"}, "
            "{\"workspace\": \"ws\"}]}]}\n",
            setup_params);
    fclose(f);
    pg_manifest *m = (pg_manifest *)1;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_manifest_load(path, &m, &d);
    if (st != want)
        fail_msg("status %d, expected %d: %s", (int)st, (int)want, d.message);
    if (field) {
        assert_null(m);
        if (strcmp(d.field, field) != 0)
            fail_msg("field '%s', expected '%s' (message: %s)", d.field, field, d.message);
        if (!strstr(d.message, msg))
            fail_msg("message '%s' lacks '%s'", d.message, msg);
        return NULL;
    }
    return m;
}

static void test_setup(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_manifest *m = load_setup("[{\"workspace\": \"sched\"}, {\"value\": \"M\", \"type\": "
                                "\"u32\"}, {\"scalar\": 2.0, \"type\": \"f32\"}]",
                                PG_OK, NULL, NULL);
    assert_int_equal(m->n_launches, 1);
    assert_int_equal(m->n_setup, 1);
    assert_string_equal(m->launches[1].entry, "build");
    assert_string_equal(m->launches[1].field, "setup[0]");
    assert_string_equal(m->launches[1].params[0].field, "setup[0].params[0]");
    /* sched, bound by the setup launch, keeps its contents; ws does not. */
    assert_true(m->ws[0].setup != m->ws[1].setup);
    for (int w = 0; w < m->n_ws; w++)
        assert_int_equal(m->ws[w].setup, strcmp(m->ws[w].name, "sched") == 0);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_OK);
    if (pg_plan_build(t, m, &t->workloads[pg_task_find_workload(t, "tiny")], &plan, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    assert_int_equal(plan.n_launches, 1);
    assert_int_equal(plan.n_setup, 1);
    assert_int_equal(plan.launches[1].grid[0], 2); /* ceil_div(M=4, 2) */
    assert_int_equal(plan.launches[1].params[1].v.u32, 4);
    pg_plan_free(&plan);
    /* The PTX must declare the setup entry, with matching parameters. */
    pg_ptx_module_info sig;
    const char *ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                      ".visible .entry k(.param .u64 c, .param .u64 s, .param .u64 w)\n{ ret; }\n"
                      ".visible .entry build(.param .u64 s, .param .u32 m)\n{ ret; }\n";
    assert_int_equal(pg_ptx_parse_signatures(ptx, "k.ptx", &sig, &d), PG_OK);
    pg_diag_clear(&d);
    assert_int_equal(pg_binding_check(m, &sig, "k.ptx", false, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "setup[0].params");
    assert_non_null(strstr(d.message, "binds 3 parameters but .entry 'build'"));
    pg_ptx_module_info_free(&sig);
    pg_manifest_free(m);
    /* A misspelt symbol in a setup expression is named at its field. */
    m = load_setup("[{\"workspace\": \"sched\"}, {\"value\": \"Q\", \"type\": \"u32\"}]", PG_OK,
                   NULL, NULL);
    pg_diag_clear(&d);
    assert_int_equal(pg_manifest_check_task(m, t, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "setup[0].params[1].value");
    pg_manifest_free(m);
    /* No task tensor reaches a setup launch, not even inside a struct. */
    load_setup("[{\"tensor\": \"A\"}]", PG_ERR_INPUT, "setup[0].params[0].tensor",
               "a setup launch cannot take task tensor 'A'");
    load_setup("[{\"struct\": {\"size\": 16, \"align\": 8, \"fields\": [{\"offset\": 0, "
               "\"workspace\": \"sched\"}, {\"offset\": 8, \"tensor\": \"B\"}]}}]",
               PG_ERR_INPUT, "setup[0].params[0].struct.fields[1].tensor",
               "cannot take task tensor 'B'");
    load_setup("[{\"device_struct\": {\"size\": 128, \"align\": 64, \"fields\": [{\"offset\": "
               "0, \"tensor_map\": {\"tensor\": \"A\", \"box\": [8, 4]}}]}}]",
               PG_ERR_INPUT, "setup[0].params[0].device_struct.fields[0].tensor_map",
               "cannot take task tensor 'A'");
    load_setup("{}", PG_ERR_INPUT, "setup[0].params", "array");
    pg_task_free(t);
}

static const char *k_ptx_head = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                ".visible .entry k(\n";

static pg_status bind(const pg_manifest *m, const char *param_decl, pg_diag *d)
{
    char ptx[1024];
    pg_ptx_module_info sig;
    snprintf(ptx, sizeof ptx, "%s  %s\n)\n{ ret; }\n", k_ptx_head, param_decl);
    assert_int_equal(pg_ptx_parse_signatures(ptx, "k.ptx", &sig, d), PG_OK);
    pg_diag_clear(d);
    pg_status st = pg_binding_check(m, &sig, "k.ptx", false, d);
    pg_ptx_module_info_free(&sig);
    return st;
}

static void test_binding_check(void **state)
{
    (void)state;
    pg_diag d;
    pg_manifest *m = load_ok(k_good);
    assert_int_equal(bind(m, ".param .align 64 .b8 params[256]", &d), PG_OK);
    assert_int_equal(bind(m, ".param .align 128 .b8 params[256]", &d), PG_OK);
    assert_int_equal(bind(m, ".param .align 64 .b8 params[192]", &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].params[0]");
    assert_non_null(strstr(d.message, "bound as a struct of 256 bytes"));
    assert_non_null(strstr(d.message, "k.ptx line 5"));
    assert_non_null(strstr(d.message, "(192 bytes)"));
    assert_int_equal(bind(m, ".param .align 8 .b8 params[256]", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "struct with align 64"));
    assert_non_null(strstr(d.message, "with .align 8"));
    pg_manifest_free(m);
    /* A device_struct is an address: .u64 or .b64, never the struct's bytes. */
    m = load_ok("[{\"device_struct\": {\"size\": 256, \"align\": 8, \"fields\": ["
                "{\"offset\": 0, \"workspace\": \"ws\"}]}}]");
    assert_int_equal(bind(m, ".param .u64 params", &d), PG_OK);
    assert_int_equal(bind(m, ".param .align 8 .b8 params[256]", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "bound as ptr (8 bytes)"));
    pg_manifest_free(m);
}

static void test_plan_and_pack(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    char buf[4096];
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_manifest *m = load_ok(k_good);
    int wi = pg_task_find_workload(t, "tiny");
    assert_true(wi >= 0);
    if (pg_plan_build(t, m, &t->workloads[wi], &plan, &d) != PG_OK)
        fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
    const pg_param_value *sv = &plan.launches[0].params[0];
    assert_int_equal(sv->kind, PG_PARAM_STRUCT);
    assert_int_equal(sv->bytes, 256);
    assert_int_equal(sv->n_fields, 9);
    assert_int_equal(sv->fields[8].kind, PG_PARAM_TENSOR_MAP);
    assert_int_equal(sv->fields[8].offset, 128);
    assert_int_equal(sv->fields[8].tmap.rank, 2);

    const uint64_t tensor_addr[3] = {0x1000, 0x2000, 0x3000};
    const uint64_t ws_addr[1] = {0x9000};
    pg_arg_block ab;
    assert_int_equal(pg_binding_args(&plan.launches[0], tensor_addr, ws_addr, &ab), PG_OK);
    const unsigned char *s = ab.args[0];
    assert_int_equal((uintptr_t)s % 128, 0);
    uint64_t u64;
    uint32_t u32;
    int64_t s64;
    float f32;
    memcpy(&u64, s + 0, 8);
    assert_int_equal(u64, 0x1000);
    memcpy(&u64, s + 8, 8);
    assert_int_equal(u64, 0x2000);
    memcpy(&u32, s + 16, 4);
    assert_int_equal(u32, 4); /* M */
    memcpy(&s64, s + 24, 8);
    assert_int_equal(s64, -16); /* -K */
    memcpy(&f32, s + 32, 4);
    assert_true(f32 == 0.5f);
    memcpy(&u64, s + 40, 8);
    assert_int_equal(u64, 0x9000);
    memcpy(&u64, s + 48, 8);
    assert_int_equal(u64, 0x3000);
    /* Padding, unset bytes and the tensor map (encoded later by the device layer) are zero. */
    for (int i = 0; i < 256; i++)
        if ((i >= 20 && i < 24) || (i >= 36 && i < 40) || i >= 56)
            assert_int_equal(s[i], 0);
    pg_arg_block_free(&ab);

    /* pg_binding_pack_struct overwrites whatever was there. */
    unsigned char raw[256];
    memset(raw, 0xAB, sizeof raw);
    pg_binding_pack_struct(sv, tensor_addr, ws_addr, raw);
    assert_int_equal(raw[20], 0);
    assert_int_equal(raw[255], 0);
    memcpy(&u64, raw + 48, 8);
    assert_int_equal(u64, 0x3000);
    pg_plan_free(&plan);
    pg_manifest_free(m);
    pg_task_free(t);
}

/* Slots after a struct stay 128-byte aligned and the struct's bytes stay inside its slot. */
static void test_slots_after_struct(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    pg_plan plan;
    assert_int_equal(pg_task_load(TASKS, "gemm_small", &t, &d), PG_OK);
    pg_manifest *m = load_ok(
        "[{\"struct\": {\"size\": 200, \"align\": 8, \"fields\": [{\"offset\": 192, \"tensor\": "
        "\"A\"}, {\"offset\": 0, \"workspace\": \"ws\"}]}}, {\"tensor\": \"C\"}, "
        "{\"value\": \"N\", \"type\": \"u32\"}]");
    assert_int_equal(pg_plan_build(t, m, &t->workloads[pg_task_find_workload(t, "tiny")], &plan,
                                   &d),
                     PG_OK);
    const uint64_t tensor_addr[3] = {0x1000, 0x2000, 0x3000};
    const uint64_t ws_addr[1] = {0x9000};
    pg_arg_block ab;
    assert_int_equal(pg_binding_args(&plan.launches[0], tensor_addr, ws_addr, &ab), PG_OK);
    const unsigned char *s0 = ab.args[0], *s1 = ab.args[1], *s2 = ab.args[2];
    assert_int_equal(s1 - s0, 256);
    assert_int_equal(s2 - s1, 128);
    uint64_t u64;
    memcpy(&u64, s0 + 192, 8);
    assert_int_equal(u64, 0x1000);
    memcpy(&u64, s1, 8);
    assert_int_equal(u64, 0x3000);
    uint32_t u32;
    memcpy(&u32, s2, 4);
    assert_int_equal(u32, 8);
    pg_arg_block_free(&ab);
    pg_plan_free(&plan);
    pg_manifest_free(m);
    pg_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_good),    cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_check_task),   cmocka_unit_test(test_binding_check),
        cmocka_unit_test(test_plan_and_pack), cmocka_unit_test(test_slots_after_struct),
        cmocka_unit_test(test_output_bound_by_tensor_map), cmocka_unit_test(test_device_struct),
        cmocka_unit_test(test_supports), cmocka_unit_test(test_setup),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
