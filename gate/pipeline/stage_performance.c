/* The performance stage: the candidate against cuBLASLt on the same inputs, interleaved rounds
 * with the L2 flushed before every timed launch, medians with distribution-free confidence
 * intervals, and speedup = baseline time / candidate time with its interval.
 * Measurement only feeds numbers to the decision rule at the end (decide()), which the
 * statistics work replaces later. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/order_stats.h"
#include "internal.h"

static json_t *summary_json(const pg_sample_summary *s, double flop)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:f, s:o}", "median_ms",
                     pg_json_real_or_null(s->median), "ci_low_ms", pg_json_real_or_null(s->ci_low),
                     "ci_high_ms", pg_json_real_or_null(s->ci_high), "min_ms",
                     pg_json_real_or_null(s->min), "max_ms", pg_json_real_or_null(s->max),
                     "samples", (json_int_t)s->n, "ci_coverage", s->ci_coverage, "tflops",
                     pg_json_real_or_null(flop / (s->median * 1e-3) / 1e12));
}

/* The decision rule of this stage: fail when even the optimistic end of the speedup interval
 * is below the threshold. */
static bool decide(double ci_high, double min_speedup)
{
    return ci_high >= min_speedup;
}

static pg_status enqueue_baseline(void *ctx, pg_diag *d)
{
    return pg_blaslt_gemm_enqueue(ctx, d);
}

bool pg_stage_performance(pg_wctx *c)
{
    pg_run *run = c->run;
    const pg_check_options *o = run->o;
    const pg_task *t = c->s->task;
    json_t *stage = pg_stage_new("performance");
    json_array_append_new(json_object_get(c->json, "stages"), stage);
    json_t *det = pg_stage_details(stage);
    pg_progress(run, c->s, c->w->name, "performance", NULL, NULL);
    double t0 = pg_now_s();
    double min_speedup = o->min_speedup_override > 0 ? o->min_speedup_override : t->min_speedup;
    int64_t M = pg_workload_symbol(t, c->w, "M"), N = pg_workload_symbol(t, c->w, "N"),
            K = pg_workload_symbol(t, c->w, "K");
    pg_buffer *base_out = NULL;
    pg_blaslt_gemm *gemm = NULL;
    double *times = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    pg_blaslt_choice choice;
    memset(&choice, 0, sizeof choice);
    size_t out_bytes = (size_t)c->plan->tensor_elements[c->c] * pg_dtype_size(t->tensors[c->c].dtype);

    pg_status st = pg_buffer_alloc(run->dev, out_bytes, &base_out, &d);
    if (st == PG_OK)
        st = pg_blaslt_gemm_prepare(run->dev, t->tensors[c->a].dtype, M, N, K, c->tensors[c->a],
                                    c->tensors[c->b], base_out, t->baseline_max_candidates, &gemm,
                                    &choice, &d);
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(c, &d);
    times = calloc(2 * (size_t)o->repetitions, sizeof *times);
    if (!times && st == PG_OK)
        st = pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_arm arms[2] = {{pg_wctx_enqueue, c}, {enqueue_baseline, gemm}};
    if (st == PG_OK)
        st = pg_device_time(run->dev, arms, 2, o->warmup, o->repetitions, true,
                            o->timeout_s * 5, times, &d);

    json_object_set_new(det, "method",
                        json_sprintf("%d warm-up and %d timed rounds, candidate and baseline "
                                     "alternating, L2 flushed (%zu bytes) before each timed "
                                     "launch, CUDA events; median with order-statistic intervals",
                                     o->warmup, o->repetitions, pg_device_flush_bytes(run->dev)));
    double dt;
    if (st != PG_OK) {
        char msg[2400];
        dt = pg_now_s() - t0;
        if (st == PG_FAIL_KERNEL)
            pg_stage_finish(stage, "fail", dt, "kernel failed while timed: %s", d.message);
        else
            pg_stage_finish(stage, "error", dt, "%s", pg_diag_format(&d, msg, sizeof msg));
        goto done;
    }

    double flop = c->plan->flop;
    pg_sample_summary cand, base;
    double comp = pg_ratio_component_confidence(o->confidence);
    pg_summarize(times, (size_t)o->repetitions, comp, &cand);
    pg_summarize(times + o->repetitions, (size_t)o->repetitions, comp, &base);
    double est, lo, hi;
    pg_ratio_interval(&base, &cand, &est, &lo, &hi);

    json_object_set_new(det, "candidate", summary_json(&cand, flop));
    json_t *bj = summary_json(&base, flop);
    json_object_set_new(bj, "library", json_string("cublaslt"));
    json_object_set_new(bj, "algorithm", json_string(choice.algorithm));
    json_object_set_new(bj, "candidates_returned", json_integer(choice.candidates_returned));
    json_object_set_new(bj, "candidates_timed", json_integer(choice.candidates_timed));
    json_object_set_new(bj, "chosen_rank", json_integer(choice.chosen_index));
    json_object_set_new(bj, "workspace_bytes", json_integer((json_int_t)choice.workspace_bytes));
    json_object_set_new(det, "baseline", bj);
    json_object_set_new(det, "speedup", json_pack("{s:f, s:f, s:f, s:f}", "estimate", est, "ci_low",
                                                  lo, "ci_high", hi, "confidence", o->confidence));
    json_object_set_new(det, "min_speedup", json_real(min_speedup));
    json_object_set_new(det, "rule", json_string("fail when speedup ci_high < min_speedup"));
    json_object_set_new(c->json, "latency_ms", json_real(cand.median));
    json_object_set_new(c->json, "reference_latency_ms", json_real(base.median));
    json_object_set_new(c->json, "speedup_factor", json_real(est));

    dt = pg_now_s() - t0;
    double tf_c = flop / (cand.median * 1e-3) / 1e12, tf_b = flop / (base.median * 1e-3) / 1e12;
    if (decide(hi, min_speedup))
        pg_stage_finish(stage, "pass", dt,
                        "speedup %.3fx [%.3f, %.3f] >= %.3g; candidate %.4f ms (%.1f TFLOP/s), "
                        "cuBLASLt %.4f ms (%.1f TFLOP/s)",
                        est, lo, hi, min_speedup, cand.median, tf_c, base.median, tf_b);
    else
        pg_stage_finish(stage, "fail", dt,
                        "speedup %.3fx [%.3f, %.3f] below min_speedup %.3g; candidate %.4f ms "
                        "(%.1f TFLOP/s), cuBLASLt %.4f ms (%.1f TFLOP/s)",
                        est, lo, hi, min_speedup, cand.median, tf_c, base.median, tf_b);
done:
    free(times);
    if (gemm)
        pg_blaslt_gemm_free(gemm);
    if (base_out)
        pg_buffer_free(base_out);
    pg_progress(run, c->s, c->w->name, "performance", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
