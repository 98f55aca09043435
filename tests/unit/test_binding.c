/* Manifest bindings versus PTX signatures, argument block layout, and device launch limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/binding.h"
#include "model/launch_limits.h"

static const char *k_ptx =
    ".version 8.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry k(\n"
    "  .param .u64 a,\n"
    "  .param .u32 m,\n"
    "  .param .f32 alpha,\n"
    "  .param .align 64 .b8 tmap[128]\n"
    ")\n{ ret; }\n";

static pg_manifest *make_manifest(void)
{
    pg_manifest *m = calloc(1, sizeof *m);
    strcpy(m->file, "sub.json");
    m->n_launches = 1;
    m->launches = calloc(1, sizeof *m->launches);
    pg_launch_spec *ls = &m->launches[0];
    strcpy(ls->entry, "k");
    strcpy(ls->field, "launches[0]");
    ls->n_params = 4;
    ls->params = calloc(4, sizeof *ls->params);
    const pg_param_type types[4] = {PG_PTYPE_PTR, PG_PTYPE_U32, PG_PTYPE_F32, PG_PTYPE_TMAP};
    const pg_param_kind kinds[4] = {PG_PARAM_TENSOR, PG_PARAM_VALUE, PG_PARAM_SCALAR,
                                    PG_PARAM_TENSOR_MAP};
    for (int i = 0; i < 4; i++) {
        ls->params[i].type = types[i];
        ls->params[i].kind = kinds[i];
        snprintf(ls->params[i].field, sizeof ls->params[i].field, "launches[0].params[%d]", i);
    }
    strcpy(ls->params[1].name, "M");
    return m;
}

static void free_manifest(pg_manifest *m)
{
    free(m->launches[0].params);
    free(m->launches);
    free(m);
}

static void check_with(pg_manifest *m, pg_status want, const char *field, const char *needle)
{
    pg_ptx_module_info sig;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_ptx_parse_signatures(k_ptx, "k.ptx", &sig, &d), PG_OK);
    pg_status st = pg_binding_check(m, &sig, "k.ptx", false, &d);
    assert_int_equal(st, want);
    if (field) {
        assert_string_equal(d.file, "sub.json");
        assert_string_equal(d.field, field);
        assert_non_null(strstr(d.message, needle));
    }
    pg_ptx_module_info_free(&sig);
}

static void test_binding_ok(void **state)
{
    pg_manifest *m = make_manifest();
    check_with(m, PG_OK, NULL, NULL);
    free_manifest(m);
}

static void test_binding_size_mismatch(void **state)
{
    pg_manifest *m = make_manifest();
    m->launches[0].params[1].type = PG_PTYPE_U64;
    check_with(m, PG_ERR_INPUT, "launches[0].params[1]", "('M') is bound as u64 (8 bytes)");
    free_manifest(m);
}

static void test_binding_int_float_mismatch(void **state)
{
    pg_manifest *m = make_manifest();
    m->launches[0].params[2].type = PG_PTYPE_U32;
    m->launches[0].params[2].kind = PG_PARAM_VALUE;
    check_with(m, PG_ERR_INPUT, "launches[0].params[2]", "declares 'alpha' as .f32");
    free_manifest(m);
}

static void test_binding_count_and_entry(void **state)
{
    pg_manifest *m = make_manifest();
    m->launches[0].n_params = 3;
    check_with(m, PG_ERR_INPUT, "launches[0].params", "binds 3 parameters");
    m->launches[0].n_params = 4;
    strcpy(m->launches[0].entry, "other");
    check_with(m, PG_ERR_INPUT, "launches[0].entry", "entries found: k");
    free_manifest(m);
}

/* A tensor map needs a 128-byte parameter declared with .align >= 64. */
static void test_binding_tensor_map(void **state)
{
    (void)state;
    static const char *const ptx[] = {
        ".version 8.0\n.target sm_90a\n.address_size 64\n"
        ".visible .entry k(.param .align 16 .b8 tmap[128])\n{ ret; }\n",
        ".version 8.0\n.target sm_90a\n.address_size 64\n"
        ".visible .entry k(.param .u64 tmap)\n{ ret; }\n",
        ".version 8.0\n.target sm_90a\n.address_size 64\n"
        ".visible .entry k(.param .align 128 .b8 tmap[128])\n{ ret; }\n",
    };
    static const pg_status want[] = {PG_ERR_INPUT, PG_ERR_INPUT, PG_OK};
    static const char *const needle[] = {".param .align 64 .b8 tmap[128] (or .align 128); found "
                                         ".align 16",
                                         "bound as tensor_map (128 bytes)", NULL};
    pg_manifest *m = make_manifest();
    m->launches[0].n_params = 1;
    m->launches[0].params[0] = m->launches[0].params[3];
    snprintf(m->launches[0].params[0].field, sizeof m->launches[0].params[0].field,
             "launches[0].params[0]");
    for (int i = 0; i < 3; i++) {
        pg_ptx_module_info sig;
        pg_diag d;
        pg_diag_clear(&d);
        assert_int_equal(pg_ptx_parse_signatures(ptx[i], "k.ptx", &sig, &d), PG_OK);
        assert_int_equal(pg_binding_check(m, &sig, "k.ptx", false, &d), want[i]);
        if (needle[i]) {
            assert_string_equal(d.field, "launches[0].params[0]");
            if (!strstr(d.message, needle[i]))
                fail_msg("message '%s' lacks '%s'", d.message, needle[i]);
        }
        pg_ptx_module_info_free(&sig);
    }
    free_manifest(m);
}

static void test_args_layout(void **state)
{
    pg_param_value pv[4] = {
        {.kind = PG_PARAM_TENSOR, .type = PG_PTYPE_PTR, .ref_index = 1},
        {.kind = PG_PARAM_VALUE, .type = PG_PTYPE_U32, .ref_index = -1, .v.u32 = 4000},
        {.kind = PG_PARAM_SCALAR, .type = PG_PTYPE_F32, .ref_index = -1, .v.f32 = 0.5f},
        {.kind = PG_PARAM_TENSOR_MAP, .type = PG_PTYPE_TMAP, .ref_index = 0, .v.u64 = ~0ull},
    };
    pg_launch_values lv = {.params = pv, .n_params = 4};
    uint64_t tensors[2] = {0x1000, 0x7f0000002000ull};
    pg_arg_block b;
    assert_int_equal(pg_binding_args(&lv, tensors, NULL, &b), PG_OK);
    uint64_t addr;
    memcpy(&addr, b.args[0], 8);
    assert_true(addr == 0x7f0000002000ull);
    uint32_t m;
    memcpy(&m, b.args[1], 4);
    assert_int_equal(m, 4000);
    float f;
    memcpy(&f, b.args[2], 4);
    assert_float_equal(f, 0.5f, 0);
    assert_int_equal((uintptr_t)b.args[1] % 128, 0); /* tensor-map-ready alignment */
    /* The tensor-map slot: 128 zero bytes, 128-byte aligned, for the device layer to fill. */
    assert_int_equal((uintptr_t)b.args[3] % 128, 0);
    static const unsigned char zeros[128];
    assert_memory_equal(b.args[3], zeros, 128);
    assert_null(b.args[4]);
    pg_arg_block_free(&b);
}

static void test_launch_limits(void **state)
{
    pg_manifest *m = make_manifest();
    pg_workload w = {.name = "m1"};
    pg_launch_values lv = {.grid = {100, 1, 1}, .block = {256, 1, 1}};
    pg_plan p = {.launches = &lv, .n_launches = 1};
    pg_launch_limits lim = {.target = "sm_90a", .max_threads_per_block = 1024,
                            .max_block_dim = {1024, 1024, 64},
                            .max_grid_dim = {2147483647, 65535, 65535},
                            .max_shared_per_block_optin = 232448, .cc_major = 9,
                            .max_cluster_blocks_portable = 8, .max_cluster_blocks = 16};
    pg_diag d;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_OK);

    lv.block[0] = 2048;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].block");
    assert_non_null(strstr(d.message, "block x = 2048 exceeds the limit 1024"));
    assert_string_equal(d.message, "workload 'm1': block x = 2048 exceeds the limit 1024 on sm_90a");

    lv.block[0] = 64;
    lv.block[1] = 32;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "2048 threads per block"));

    lv.block[1] = 1;
    lv.dynamic_shared_bytes = 232449;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].dynamic_shared_bytes");
    assert_string_equal(d.message, "workload 'm1': 232449 bytes of dynamic shared memory exceed "
                                   "the opt-in limit of 232448 bytes on sm_90a");
    lv.dynamic_shared_bytes = 232448; /* exactly the maximum */
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_OK);

    lv.dynamic_shared_bytes = 0;
    lv.grid[1] = 70000;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].grid");

    lv.grid[1] = 1;
    lv.cluster[0] = 3;
    lv.cluster[1] = lv.cluster[2] = 1;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].cluster");
    lv.cluster[0] = 2;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_OK);

    /* Blocks per cluster: 16 with the non-portable opt-in; 32 is too many. */
    lv.grid[0] = 128;
    lv.cluster[0] = 16;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_OK);
    lv.cluster[0] = 8;
    lv.cluster[1] = 4;
    lv.grid[1] = 4;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "launches[0].cluster");
    assert_string_equal(d.message, "workload 'm1': a cluster of 8 x 4 x 1 = 32 blocks exceeds the "
                                   "limit of 16 blocks (8 portable, more with the non-portable "
                                   "opt-in, which ptxgate sets) on sm_90a");
    lim.max_cluster_blocks = 0; /* unknown: not checked */
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &lim, &d), PG_OK);

    /* The same limits from an architecture's table. */
    pg_arch_launch_limits a = {.present = true, .max_threads_per_block = 1024,
                               .max_block_dim = {1024, 1024, 64},
                               .max_grid_dim = {2147483647, 65535, 65535},
                               .max_shared_per_block_optin = 232448,
                               .max_cluster_blocks_portable = 8, .max_cluster_blocks = 16};
    pg_launch_limits from;
    pg_launch_limits_from_arch(&a, "sm_90a", &from);
    assert_string_equal(from.target, "sm_90a");
    assert_int_equal(from.cc_major, 9);
    assert_int_equal(from.max_shared_per_block_optin, 232448);
    assert_int_equal(from.max_cluster_blocks, 16);
    assert_int_equal(from.max_block_dim[2], 64);
    assert_int_equal(from.max_grid_dim[1], 65535);
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &from, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "= 32 blocks exceeds the limit of 16 blocks"));
    pg_launch_limits_from_arch(&a, "sm_100a", &from);
    assert_int_equal(from.cc_major, 10);
    pg_launch_limits_from_arch(&a, "sm_80", &from);
    assert_int_equal(from.cc_major, 8);
    lv.cluster[0] = 2;
    lv.cluster[1] = 1;
    assert_int_equal(pg_launch_limits_check(m, &w, &p, &from, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "need compute capability 9.0"));
    free_manifest(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binding_ok),
        cmocka_unit_test(test_binding_size_mismatch),
        cmocka_unit_test(test_binding_int_float_mismatch),
        cmocka_unit_test(test_binding_count_and_entry),
        cmocka_unit_test(test_binding_tensor_map),
        cmocka_unit_test(test_args_layout),
        cmocka_unit_test(test_launch_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
