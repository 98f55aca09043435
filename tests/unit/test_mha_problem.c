/* Unit tests of model/mha_problem.c: the attention problem of a workload (sizes, GQA heads,
 * per-tensor BHSD/BSHD strides, bottom-right causal mask, softmax scale, LSE convention). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/mha_problem.h"
#include "model/task.h"

#define MHA PG_TEST_DATA "/model/mha_tasks"

static pg_task *load(const char *id)
{
    pg_task *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_task_load(MHA, id, &t, &d) != PG_OK)
        fail_msg("%s: %s", id, d.message);
    return t;
}

static void test_historic_problem(void **state)
{
    (void)state;
    pg_task *t = load("mha_small");
    pg_mha_problem p;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_mha_problem_of(t, &t->workloads[1], &p, &d), PG_OK);
    /* B 2, H 3, S 100, D 64: every tensor BHSD, H_kv = H, S_q = S_kv, D_v = D */
    assert_int_equal(p.B, 2);
    assert_int_equal(p.H_kv, 3);
    assert_int_equal(p.S_kv, 100);
    assert_int_equal(p.D_v, 64);
    assert_true(p.causal && p.has_lse && !p.lse_log2 && !p.lse_unscaled);
    assert_true(p.scale == (float)(1.0 / 8.0));
    assert_int_equal(p.q.b, 3 * 100 * 64);
    assert_int_equal(p.q.h, 100 * 64);
    assert_int_equal(p.q.s, 64);
    assert_int_equal(p.q.d, 1);
    assert_memory_equal(&p.k, &p.q, sizeof p.q);
    assert_memory_equal(&p.o, &p.q, sizeof p.q);
    assert_int_equal(p.dq.b, 0); /* a forward has no gradients */
    assert_true(pg_mha_lse_factor(&p) == 1.0);
    /* with S_q = S_kv the mask is j <= i */
    assert_int_equal(pg_mha_visible_keys(&p, 0), 1);
    assert_int_equal(pg_mha_visible_keys(&p, 99), 100);
    pg_mha_problem h;
    pg_mha_problem_bhsd(2, 3, 100, 64, true, &h);
    assert_memory_equal(&h.q, &p.q, sizeof p.q);
    assert_true(h.scale == p.scale);
    pg_task_free(t);
}

static void test_gqa_bshd_problem(void **state)
{
    (void)state;
    pg_task *t = load("mha_gqa_small");
    pg_mha_problem p;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_mha_problem_of(t, &t->workloads[0], &p, &d), PG_OK);
    /* B 2, H 8, H_kv 2, S_q 100, S_kv 300, D 64, D_v 32; Q, O BSHD; K, V BHSD */
    assert_int_equal(p.H, 8);
    assert_int_equal(p.H_kv, 2);
    assert_int_equal(p.S_q, 100);
    assert_int_equal(p.S_kv, 300);
    assert_int_equal(p.D_v, 32);
    /* Q [B,S_q,H,D]: (b, h, s, d) at b·S_q·H·D + h·D + s·H·D + d */
    assert_int_equal(p.q.b, 100 * 8 * 64);
    assert_int_equal(p.q.h, 64);
    assert_int_equal(p.q.s, 8 * 64);
    /* O [B,S_q,H,D_v] */
    assert_int_equal(p.o.h, 32);
    assert_int_equal(p.o.s, 8 * 32);
    /* K [B,H_kv,S_kv,D], V [B,H_kv,S_kv,D_v] */
    assert_int_equal(p.k.b, 2 * 300 * 64);
    assert_int_equal(p.k.h, 300 * 64);
    assert_int_equal(p.k.s, 64);
    assert_int_equal(p.v.h, 300 * 32);
    assert_int_equal(p.v.s, 32);
    /* the task's scale, and LSE stored as log2 e / scale times the natural one */
    assert_true(p.scale == 0.125f);
    assert_true(p.lse_log2 && p.lse_unscaled);
    assert_true(fabs(pg_mha_lse_factor(&p) - 1.4426950408889634 / 0.125) < 1e-12);
    /* bottom-right causal: query i sees keys j <= i + 200 */
    assert_int_equal(pg_mha_visible_keys(&p, 0), 201);
    assert_int_equal(pg_mha_visible_keys(&p, 99), 300);
    assert_int_equal(pg_mha_tensor_bytes(&p, p.H_kv, p.S_kv, p.D, 2), 2u * 2 * 300 * 64 * 2);
    pg_task_free(t);
}

static void test_o_only_and_defaults(void **state)
{
    (void)state;
    pg_task *t = load("mha_o_only");
    pg_mha_problem p;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_mha_problem_of(t, &t->workloads[0], &p, &d), PG_OK);
    assert_false(p.has_lse);
    assert_false(p.causal);
    assert_int_equal(pg_mha_visible_keys(&p, 0), p.S_kv);
    assert_false(t->baseline_optional);
    pg_task_free(t);
    assert_true(pg_mha_default_scale(256) == 0.0625f);
    assert_true(pg_mha_default_scale(0) == 0.0f);
    pg_mha_strides s = pg_mha_dense_strides(4, 10, 8, true);
    assert_int_equal(s.b, 320);
    assert_int_equal(s.h, 8);
    assert_int_equal(s.s, 32);
}

static void test_not_attention(void **state)
{
    (void)state;
    pg_task *t = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_task_load(PG_TEST_DATA "/model/gemm_tasks", "gemm_nn_fp32", &t, &d), PG_OK);
    pg_mha_problem p;
    assert_int_equal(pg_mha_problem_of(t, &t->workloads[0], &p, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "operation");
    pg_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_historic_problem),
        cmocka_unit_test(test_gqa_bshd_problem),
        cmocka_unit_test(test_o_only_and_defaults),
        cmocka_unit_test(test_not_attention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
