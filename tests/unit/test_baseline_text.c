/* Unit tests of the readable text of stored baselines (gate/model/baseline_text.h): what
 * `ptxgate baseline show` lists and what `ptxgate baseline refresh` reports as changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/baseline_text.h"

#define FIXTURE PG_TEST_DATA "/baselines/h200-sxm/gemm_bf16_nt.json"

static pg_baseline *fixture(void)
{
    pg_baseline *b = NULL;
    pg_diag d;
    assert_int_equal(pg_baseline_load_file(FIXTURE, NULL, NULL, &b, &d), PG_OK);
    return b;
}

static void expect_line(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("text lacks '%s':\n%s", part, text);
}

static void test_show(void **state)
{
    pg_baseline *b = fixture();
    char *t = pg_baseline_show_text(b);
    assert_non_null(t);
    expect_line(t, "gemm_bf16_nt on h200-sxm (" FIXTURE ")\n");
    expect_line(t, "  measured 2026-11-30T09:12:44Z by ptxgate 0.1.0\n");
    expect_line(t, "  environment: gpu_name NVIDIA H200; compute_capability 9.0; sm_count 132; "
                   "driver_version 580.159.04\n");
    expect_line(t, "power_limit_w 700.0; ecc on\n");
    expect_line(t, "  accepted kernel: examples/tiled_mma.json (sha256 3f1c2a9be0d4475e…), "
                   "source examples/tiled_mma.cu (sha256 9a8b7c6d5e4f3021…)\n");
    expect_line(t, "  m4096_n4096_k4096 (K=4096 M=4096 N=4096)\n"
                   "    cuBLASLt  0.1771 ms [0.1769, 0.1773] (95 % CI, 160 launches, cold mode, "
                   "16 blocks of 2+10)\n"
                   "    algorithm algo_id=66 tile=20 stages=35 splitk=1 reduction=0 swizzle=0 "
                   "custom=0 inner_shape=0 cluster_shape=2; workspace 67108864 bytes; heuristic "
                   "rank 0 of 16 timed\n"
                   "    accepted  0.3560 ms [0.3558, 0.3562]; speedup vs cuBLASLt 0.497x [0.497, "
                   "0.498]\n");
    expect_line(t, "  m8192_n7168_k5120 (K=5120 M=8192 N=7168)\n");
    free(t);
    b->has_accepted = false;
    for (int i = 0; i < b->n_workloads; i++)
        b->workloads[i].has_accepted = false;
    t = pg_baseline_show_text(b);
    expect_line(t, "  accepted kernel: none\n");
    assert_null(strstr(t, "    accepted  "));
    free(t);
    pg_baseline_free(b);
}

static void test_diff_of_a_new_file(void **state)
{
    pg_baseline *b = fixture();
    char *t = pg_baseline_diff_text(NULL, b, "out/h200-sxm/gemm_bf16_nt.json");
    expect_line(t, "gemm_bf16_nt on h200-sxm: out/h200-sxm/gemm_bf16_nt.json (new file)\n");
    expect_line(t, "  m4096_n4096_k4096: new: cuBLASLt 0.1771 ms [0.1769, 0.1773]; algorithm "
                   "algo_id=66 tile=20");
    expect_line(t, "; accepted kernel speedup 0.497x [0.497, 0.498]\n");
    assert_null(strstr(t, "environment"));
    free(t);
    pg_baseline_free(b);
}

static void test_diff_of_an_update(void **state)
{
    pg_baseline *old = fixture(), *n = fixture();
    snprintf(n->env.driver_version, sizeof n->env.driver_version, "580.200.01");
    n->env.cublaslt_version = 130200;
    snprintf(n->accepted_source_sha256, sizeof n->accepted_source_sha256, "%064d", 7);
    pg_baseline_workload *w = &n->workloads[0];
    w->median_ms = 0.1850;
    w->ci_low_ms = 0.1848;
    w->ci_high_ms = 0.1852;
    w->algorithm.tile = 18;
    w->speedup = 0.52;
    pg_baseline_remove(n, "m8192_n7168_k5120");
    pg_baseline_workload extra = *w;
    snprintf(extra.name, sizeof extra.name, "m2048_n2048_k2048");
    pg_diag d;
    assert_int_equal(pg_baseline_put(n, &extra, &d), PG_OK);
    char *t = pg_baseline_diff_text(old, n, "b/h200-sxm/gemm_bf16_nt.json");
    expect_line(t, "(updated)\n");
    expect_line(t, "  environment: driver_version 580.159.04 → 580.200.01; cublaslt_version "
                   "130100 → 130200\n");
    expect_line(t, "  accepted kernel changed: examples/tiled_mma.json sha256 3f1c2a9be0d4475e… "
                   "→ 3f1c2a9be0d4475e…, examples/tiled_mma.cu sha256 9a8b7c6d5e4f3021… → "
                   "0000000000000000…\n");
    expect_line(t, "  m4096_n4096_k4096: cuBLASLt 0.1771 ms [0.1769, 0.1773] → 0.1850 ms "
                   "[0.1848, 0.1852] (+4.46 %, intervals disjoint); algorithm algo_id=66 tile=20 "
                   "stages=35");
    expect_line(t, " → algo_id=66 tile=18 stages=35");
    expect_line(t, "    accepted kernel speedup 0.497x [0.497, 0.498] → 0.520x [0.497, 0.498]\n");
    expect_line(t, "  m2048_n2048_k2048: new: ");
    expect_line(t, "  m8192_n7168_k5120: removed\n");
    free(t);
    /* Nothing changed: said so. */
    t = pg_baseline_diff_text(old, old, "p");
    expect_line(t, "  environment: unchanged\n");
    expect_line(t, "(+0.00 %, intervals overlap); algorithm unchanged\n");
    assert_null(strstr(t, "accepted kernel changed"));
    free(t);
    pg_baseline_free(old);
    pg_baseline_free(n);
}

/* An attention task's entry names cuDNN and its engine configuration, in show and in a diff. */
static void test_cudnn_entry(void **state)
{
    pg_baseline *old = fixture(), *n = fixture();
    for (pg_baseline *b = old; b; b = b == old ? n : NULL) {
        pg_baseline_workload *w = &b->workloads[0];
        snprintf(w->library, sizeof w->library, "cudnn");
        w->cudnn = (pg_cudnn_config){.graph = PG_DNN_GRAPH_BWD_COMPOSITE, .engine_id = 2,
                                     .n_knobs = 1};
        w->cudnn.knob_type[0] = 24, w->cudnn.knob_value[0] = 26;
        w->candidates_timed = 1;
    }
    char *t = pg_baseline_show_text(n);
    expect_line(t, "    cuDNN     0.1771 ms [0.1769, 0.1773] (95 % CI");
    expect_line(t, "    configuration graph composite_bwd, engine 2; KERNEL_CFG=26; workspace "
                   "67108864 bytes; heuristic rank 0 of 1 tried\n");
    expect_line(t, "speedup vs cuDNN 0.497x");
    free(t);
    t = pg_baseline_diff_text(old, n, "b/h200-sxm/mha_bwd_d128.json");
    expect_line(t, "  m4096_n4096_k4096: cuDNN 0.1771 ms [0.1769, 0.1773] → 0.1771 ms");
    expect_line(t, "; configuration unchanged\n");
    free(t);
    n->workloads[0].cudnn.knob_value[0] = 7;
    t = pg_baseline_diff_text(old, n, "b/h200-sxm/mha_bwd_d128.json");
    expect_line(t, "; configuration graph composite_bwd, engine 2; KERNEL_CFG=26 → graph "
                   "composite_bwd, engine 2; KERNEL_CFG=7\n");
    free(t);
    pg_baseline_free(old);
    pg_baseline_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show),
        cmocka_unit_test(test_diff_of_a_new_file),
        cmocka_unit_test(test_diff_of_an_update),
        cmocka_unit_test(test_cudnn_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
