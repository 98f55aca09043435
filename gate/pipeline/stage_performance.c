/* The performance stage (issue 4 design): the candidate, the vendor baseline (cuBLASLt for
 * GEMM, cuDNN for attention: vendor_arm.c), the baseline again as an A/A
 * canary and, when the task has one, its accepted kernel are timed in randomized interleaved
 * blocks after a heat soak (arms: perf_arms.c, cold or sustained); per-block log ratios go to
 * the sign-flip comparisons of gate/stats/comparison.h at group-sequential looks.
 *   - candidate vs the baseline against the task's min_speedup: λ = ln(1/min_speedup);
 *   - candidate vs the accepted kernel (the regression check): λ = ln(1+δ); a byte-identical
 *     cubin, or one whose code sections are equal (gate/ptx/cubin_code.h), is "SASS-identical"
 *     and needs no timing;
 *   - the canary (the baseline vs itself) with λ = ln(1+δ): if it rejects, the machine, not the
 *     kernel, is at fault and the stage is an infrastructure error.
 * Measurement (blocks.c) only feeds numbers to the decision (comparison.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/comparison.h"
#include "stats/order_stats.h"
#include "stats/signflip.h"
#include "internal.h"
#include "perf_arms.h"

static json_t *summary_json(const pg_sample_summary *s, double flop)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:f, s:o}", "median_ms",
                     pg_json_real_or_null(s->median), "ci_low_ms", pg_json_real_or_null(s->ci_low),
                     "ci_high_ms", pg_json_real_or_null(s->ci_high), "min_ms",
                     pg_json_real_or_null(s->min), "max_ms", pg_json_real_or_null(s->max),
                     "samples", (json_int_t)s->n, "ci_coverage", s->ci_coverage, "tflops",
                     pg_json_real_or_null(flop / (s->median * 1e-3) / 1e12));
}

static json_t *comparison_json(const char *name, const pg_cmp_result *r, double lambda,
                               const char *meaning, pg_cmp_verdict shown)
{
    /* Non-finite numbers (an infinite MDE for huge runs, NaN p-values from a broken block)
     * become null: a dropped entry would shift the comparisons array. */
    json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:i}", "name", name, "meaning", meaning, "verdict",
                          pg_cmp_verdict_name(shown), "blocks", (int)r->blocks, "look", r->look);
    const struct {
        const char *key;
        double v;
    } nums[] = {{"lambda", lambda},
                {"alpha_look", r->alpha_look},
                {"ratio_estimate", r->ratio_estimate},
                {"ratio_ci_low", r->ratio_ci_low},
                {"ratio_ci_high", r->ratio_ci_high},
                {"p_fail", r->p_fail},
                {"p_fail_seq", r->p_fail_seq}, /* Holm's input: `ptxgate merge` re-applies it */
                {"p_pass", r->p_pass},
                {"p_fast", r->p_fast},
                {"mde_ratio", r->mde_ratio},
                {"sd_log_ratio", r->sd_log_ratio},
                {"acf1_log_ratio", r->acf1_log_ratio},
                {"skew_log_ratio", r->skew_log_ratio}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        json_object_set_new(j, nums[i].key, pg_json_real_or_null(nums[i].v));
    return j;
}

/* CUPTI activity GPU time per arm next to the events' time: events carry launch overhead
 * (a few µs on the H200), CUPTI does not; a large gap points at host-side trouble. */
static const char *const k_arm_names[PG_PERF_MAX_ARMS] = {"candidate", "baseline", "canary",
                                                          "accepted"};

static json_t *cupti_json(const pg_block_data *data, int blocks, int n_arms)
{
    json_t *j = json_object();
    json_object_set_new(j, "cupti_used", json_boolean(data->cupti_used));
    if (!data->cupti_used) {
        json_object_set_new(j, "cupti_error", pg_jstr(data->cupti_error));
        return j;
    }
    for (int a = 0; a < n_arms; a++) {
        char key[64];
        snprintf(key, sizeof key, "%s_gpu_ms", k_arm_names[a]);
        json_object_set_new(j, key,
                            pg_json_real_or_null(
                                pg_median(data->gpu_ms + (size_t)a * PG_BLOCK_MAX_BLOCKS,
                                          (size_t)blocks)));
    }
    return j;
}

static json_t *watch_json(const pg_block_data *data, int blocks, int n_arms)
{
    json_t *j = json_object();
    json_object_set_new(j, "nvml", json_boolean(data->nvml_used));
    if (!data->nvml_used)
        return j;
    for (int a = 0; a < n_arms; a++) {
        char key[64];
        snprintf(key, sizeof key, "%s_sm_clock_mhz", k_arm_names[a]);
        json_object_set_new(j, key,
                            pg_json_real_or_null(pg_median(
                                data->sm_clock_mhz + (size_t)a * PG_BLOCK_MAX_BLOCKS,
                                (size_t)blocks)));
    }
    json_object_set_new(j, "flagged_blocks", json_integer(data->flagged));
    json_object_set_new(j, "rerun_blocks", json_integer(data->reruns));
    json_object_set_new(j, "hw_slowdown", json_boolean(data->hw_slowdown));
    json_object_set_new(j, "thermal_slowdown", json_boolean(data->thermal));
    json_object_set_new(j, "power_cap", json_boolean(data->power_cap));
    json_object_set_new(j, "other_compute_processes", json_integer(data->other_processes));
    json_object_set_new(j, "energy_j", json_real(data->energy_j));
    json_object_set_new(j, "watched_s", json_real(data->watched_s));
    json_object_set_new(j, "energy_per_launch_j",
                        data->launches > 0 && data->watched_s >= 1.0
                            ? json_real(data->energy_j / data->launches)
                            : json_null());
    return j;
}


/* Launches per arm and block from a probe of one launch each: about 2 ms of timed work per
 * arm and block, from 1 up to max_reps launches; max_warmup untimed launches, only one for
 * launches longer than 20 ms (their own length makes them warm: every sustained graph). */
static void choose_reps(double slowest_ms, int max_warmup, int max_reps, int *warmup, int *reps)
{
    int r = (int)ceil(2.0 / fmax(slowest_ms, 1e-3));
    *reps = r < 1 ? 1 : r > max_reps ? max_reps : r;
    *warmup = slowest_ms > 20.0 && max_warmup > 1 ? 1 : max_warmup;
}

static void log_ratios(const double *block_ms, int num, int den, int n, double *d)
{
    for (int b = 0; b < n; b++)
        d[b] = log(block_ms[(size_t)num * PG_BLOCK_MAX_BLOCKS + b] /
                   block_ms[(size_t)den * PG_BLOCK_MAX_BLOCKS + b]);
}

/* Sustained arms launch a graph of k launches: bring blocks [first, last) to per-launch ms. */
static void per_launch(const pg_perf_arms *p, int first, int last, int reps, double *block_ms,
                       double *all_ms)
{
    for (int a = 0; a < p->n_arms; a++)
        for (int b = first; b < last; b++) {
            block_ms[(size_t)a * PG_BLOCK_MAX_BLOCKS + b] /= p->launches[a];
            for (int r = 0; r < reps; r++)
                all_ms[((size_t)a * PG_BLOCK_MAX_BLOCKS + b) * (size_t)reps + r] /= p->launches[a];
        }
}

static void summarize_arm(const double *all_ms, int a, int blocks, int reps, double confidence,
                          pg_sample_summary *out)
{
    size_t n = (size_t)blocks * (size_t)reps, k = 0;
    double *tmp = malloc(n * sizeof *tmp);
    memset(out, 0, sizeof *out);
    if (!tmp)
        return;
    for (int b = 0; b < blocks; b++)
        for (int r = 0; r < reps; r++)
            tmp[k++] = all_ms[((size_t)a * PG_BLOCK_MAX_BLOCKS + b) * (size_t)reps + r];
    pg_summarize(tmp, n, confidence, out);
    free(tmp);
}

static json_t *energy_json(const pg_arm_energy *e, const char *why)
{
    if (!e->measured)
        return json_pack("{s:b, s:s}", "measured", 0, "reason", why);
    return json_pack("{s:b, s:f, s:I, s:f, s:f, s:f, s:f, s:o}", "measured", 1, "energy_j",
                     e->energy_j, "launches", (json_int_t)e->launches, "wall_s", e->wall_s,
                     "energy_per_launch_j", e->energy_per_launch_j, "power_w", e->power_w,
                     "busy_fraction", e->busy_ms / (1e3 * e->wall_s), "sm_clock_mhz",
                     pg_json_real_or_null(e->sm_clock_mhz));
}

/* Energy per launch per distinct arm (issue 4 item 4), measured after the decision. */
/* Seconds of back-to-back launches per arm for its energy: NVML's counter moves in steps of
 * about 10 ms, so 0.5 s bounds the quantisation error to about 2 % (docs/performance.md). */
#define PG_ENERGY_WINDOW_S 0.5

static json_t *measure_energy(pg_perf_arms *p, const pg_check_options *o)
{
    json_t *j = json_object();
    for (int a = 0; a < p->n_arms; a++) {
        if (a == PG_ARM_CANARY)
            continue; /* the baseline's own work */
        pg_arm_energy e;
        pg_diag d;
        pg_diag_clear(&d);
        memset(&e, 0, sizeof e);
        const char *why = !o->energy ? "disabled by --no-energy"
                          : pg_perf_arm_energy(p, a, PG_ENERGY_WINDOW_S, o->timeout_s * 5, &e, &d) != PG_OK
                              ? d.message
                              : "NVML energy counter unavailable or did not move";
        json_object_set_new(j, k_arm_names[a], energy_json(&e, why));
    }
    return j;
}

/* The comparisons' configurations. Main comparisons (vs the baseline, vs the accepted kernel): the
 * run's false-FAIL level split over the run's comparisons (Holm's first step;
 * pg_perf_holm_finalize applies the rest). Canary family: its own level, split over the run's
 * canaries and both directions (pg_cmp_canary_rejects). */
typedef struct {
    pg_cmp_config main, canary, regression;
    double delta, delta_regression;
} perf_configs;

static void configure(const pg_run *run, const pg_wctx *c, double min_speedup,
                      const double *probe, perf_configs *k)
{
    const pg_check_options *o = run->o;
    size_t m = (size_t)(run->n_comparisons > 0 ? run->n_comparisons : 1);
    uint64_t seed = o->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(c->s->workloads[c->index] + 1));
    k->delta = pg_cmp_default_delta(probe[PG_ARM_BASE]);
    if (!isfinite(k->delta))
        k->delta = 0.05;
    pg_cmp_config_default(&k->canary, k->delta);
    k->canary.alpha = PG_RUN_ALPHA / (2.0 * (double)m);
    pg_cmp_config_min_speedup(&k->main, min_speedup, k->delta);
    k->main.alpha = pg_cmp_comparison_alpha(PG_RUN_ALPHA, m);
    double dr = c->s->task->regression_tolerance > 0
                    ? c->s->task->regression_tolerance
                    : pg_cmp_default_delta(probe[PG_ARM_ACCEPTED]);
    k->delta_regression = isfinite(dr) ? dr : 0.05;
    pg_cmp_config_default(&k->regression, k->delta_regression);
    k->regression.alpha = k->main.alpha;
    pg_cmp_config *all[3] = {&k->main, &k->canary, &k->regression};
    for (int i = 0; i < 3; i++) {
        all[i]->confidence = o->confidence;
        all[i]->seed = seed;
    }
}

/* One line for the regression comparison, appended to the stage message. */
static void regression_text(const pg_submission *s, bool timed, const pg_cmp_result *r,
                            double delta, char *buf, size_t n)
{
    if (!s->accepted)
        buf[0] = '\0';
    else if (s->accepted_identical)
        snprintf(buf, n, "; vs accepted kernel: PASS (SASS-identical: %s)",
                 pg_accepted_identical_text(s));
    else if (!timed)
        snprintf(buf, n, "; vs accepted kernel: not compared (%s)", s->accepted_note);
    else
        snprintf(buf, n, "; vs accepted kernel: %s, time ratio %.4f [%.4f, %.4f], tolerance %.1f%%%s",
                 pg_cmp_verdict_name(r->verdict), r->ratio_estimate, r->ratio_ci_low,
                 r->ratio_ci_high, 100.0 * delta,
                 r->verdict == PG_CMP_INCONCLUSIVE ? " (warning, not failing)" : "");
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
    const char *mode = o->timing_mode ? o->timing_mode : t->timing_mode[0] ? t->timing_mode : "cold";
    bool sustained = strcmp(mode, "sustained") == 0;
    bool with_acc = c->s->accepted && c->s->accepted_usable && !c->s->accepted_identical;
    double *block_ms = NULL, *all_ms = NULL, *d_main = NULL, *d_canary = NULL, *d_reg = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    perf_configs k;
    pg_cmp_result main_r, canary_r, reg_r;
    memset(&main_r, 0, sizeof main_r);
    memset(&canary_r, 0, sizeof canary_r);
    memset(&reg_r, 0, sizeof reg_r);
    int warmup = 2, reps = 1, blocks = 0;
    pg_soak_result soak;
    memset(&soak, 0, sizeof soak);
    double decision_s = NAN;

    pg_phases_reset(c);
    double tp = pg_now_s();
    pg_perf_arms *p = calloc(1, sizeof *p);
    pg_status st = p ? pg_perf_arms_setup(p, c, sustained, with_acc, o->timeout_s * 5, &d)
                     : pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_phase_add(c, PG_PHASE_ARMS, tp);
    int n_arms = p ? p->n_arms : 0;
    const char *L = pg_vendor_label(p ? p->baseline : NULL); /* "cuBLASLt" or "cuDNN" */
    double probe[PG_PERF_MAX_ARMS] = {NAN, NAN, NAN, NAN};
    tp = pg_now_s();
    if (st == PG_OK)
        st = pg_device_time(run->dev, p->arms, (size_t)n_arms, 1, 1, !sustained, o->timeout_s * 5,
                            probe, &d);
    pg_phase_add(c, PG_PHASE_PROBE, tp);
    if (st == PG_OK) {
        double slowest = 0;
        for (int a = 0; a < n_arms; a++)
            slowest = fmax(slowest, probe[a]);
        choose_reps(slowest, o->warmup, o->repetitions, &warmup, &reps);
        for (int a = 0; a < n_arms; a++)
            probe[a] /= p->launches[a];
        tp = pg_now_s();
        double since_warm = run->gpu_warm_t > 0 ? pg_now_s() - run->gpu_warm_t : INFINITY;
        st = pg_heat_soak(run->dev, p->arms, (size_t)n_arms, o->timeout_s * 5, since_warm,
                          &soak, &d);
        pg_phase_add(c, PG_PHASE_SOAK, tp);
    }
    configure(run, c, min_speedup, probe, &k);
    block_ms = calloc((size_t)PG_PERF_MAX_ARMS * PG_BLOCK_MAX_BLOCKS, sizeof *block_ms);
    all_ms = calloc((size_t)PG_PERF_MAX_ARMS * PG_BLOCK_MAX_BLOCKS * (size_t)o->repetitions,
                    sizeof *all_ms);
    d_main = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *d_main);
    d_canary = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *d_canary);
    d_reg = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *d_reg);
    if (st == PG_OK && (!block_ms || !all_ms || !d_main || !d_canary || !d_reg))
        st = pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    /* At most 10 % of the last look's blocks are re-run when flagged (issue 4). CUPTI's
     * per-kernel records are left out of sustained graphs: thousands per graph, and the graph
     * time is already an average over its launches. */
    pg_block_plan bp = {.arms = p ? p->arms : NULL, .n_arms = (size_t)n_arms, .warmup = warmup,
                        .reps = reps, .seed = k.main.seed, .timeout_s = o->timeout_s * 5,
                        .cupti = !sustained, .watch = true, .no_flush = sustained,
                        .max_reruns = PG_BLOCK_MAX_BLOCKS / 10};
    static pg_block_data data; /* 8 KiB: kept off the stack; the pipeline is single-threaded */
    pg_block_data_init(&data);
    tp = pg_now_s();
    for (int look = 0; st == PG_OK && look < k.main.n_looks; look++) {
        st = pg_blocks_run(run->dev, &bp, blocks, k.main.looks[look], block_ms, all_ms, &data, &d);
        if (st != PG_OK)
            break;
        per_launch(p, blocks, k.main.looks[look], reps, block_ms, all_ms);
        blocks = k.main.looks[look];
        log_ratios(block_ms, PG_ARM_CAND, PG_ARM_BASE, blocks, d_main);
        log_ratios(block_ms, PG_ARM_CANARY, PG_ARM_BASE, blocks, d_canary);
        main_r = pg_cmp_evaluate(d_main, (size_t)blocks, &k.main, look);
        canary_r = pg_cmp_evaluate(d_canary, (size_t)blocks, &k.canary, look);
        bool reg_done = true;
        if (with_acc) {
            log_ratios(block_ms, PG_ARM_CAND, PG_ARM_ACCEPTED, blocks, d_reg);
            reg_r = pg_cmp_evaluate(d_reg, (size_t)blocks, &k.regression, look);
            reg_done = pg_cmp_decisive(&reg_r);
        }
        /* Stop at the first look where all are decided; the canary only needs to not FAIL. */
        if (pg_cmp_decisive(&main_r) && reg_done && !pg_cmp_canary_rejects(&canary_r))
            break;
    }
    pg_phase_add(c, PG_PHASE_BLOCKS, tp);
    if (st == PG_OK)
        run->gpu_warm_t = pg_now_s();
    decision_s = pg_now_s() - t0;

    json_object_set_new(
        det, "method",
        sustained
            ? json_sprintf("sustained mode: heat soak %.1f s, then blocks of the candidate, "
                           "%s, a %s A/A canary%s in an order randomized per block "
                           "(seed %llu); each arm a CUDA graph of >= 20 ms of back-to-back "
                           "launches rotating over %d copies of the tensors (>= 3x L2), no L2 "
                           "flush; per arm and block %d untimed and %d timed graph launches, "
                           "CUDA events, time per launch = graph time / launches; block "
                           "statistic = median; one-sided sign-flip tests on per-block log "
                           "ratios at looks 16/32/64 blocks",
                           soak.seconds, L, L, with_acc ? " and the accepted kernel" : "",
                           (unsigned long long)k.main.seed, p ? p->copies : 0, warmup, reps)
            : json_sprintf("cold mode: heat soak %.1f s, then blocks of the candidate, %s, "
                           "a %s A/A canary%s in an order randomized per block (seed "
                           "%llu); per arm and block %d untimed and %d timed launches, L2 "
                           "flushed (%zu bytes) before each, CUDA events; block statistic = "
                           "median; one-sided sign-flip tests on per-block log ratios at looks "
                           "16/32/64 blocks",
                           soak.seconds, L, L, with_acc ? " and the accepted kernel" : "",
                           (unsigned long long)k.main.seed, warmup, reps,
                           pg_device_flush_bytes(run->dev)));
    json_object_set_new(det, "mode", json_string(mode));
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
    pg_sample_summary cand, base, acc;
    summarize_arm(all_ms, PG_ARM_CAND, blocks, reps, o->confidence, &cand);
    summarize_arm(all_ms, PG_ARM_BASE, blocks, reps, o->confidence, &base);
    if (with_acc)
        summarize_arm(all_ms, PG_ARM_ACCEPTED, blocks, reps, o->confidence, &acc);
    /* Plausibility floor (issue 4 item 8): slack 20 % covers a peak measured under other clocks
     * and the memset being a write-only bandwidth. */
    const double slack = 0.2;
    double bytes = 0;
    for (int i = 0; i < t->n_tensors; i++)
        bytes += (double)c->plan->tensor_elements[i] * (double)pg_dtype_size(t->tensors[i].dtype);
    pg_diag pd;
    tp = pg_now_s();
    pg_run_measure_peaks(run, &pd);
    pg_phase_add(c, PG_PHASE_PEAKS, tp);
    /* The vendor library itself bounds the reachable rate from below: never call it faster than light. */
    double base_best_tflops = flop / (base.min * 1e-3) / 1e12;
    if (isfinite(base_best_tflops) && !(run->peak_tflops >= base_best_tflops))
        run->peak_tflops = base_best_tflops;
    double sol_ms = fmax(flop / (run->peak_tflops * 1e12), bytes / (run->peak_write_gbps * 1e9)) * 1e3;
    bool implausible = isfinite(sol_ms) && cand.median < sol_ms * (1.0 - slack);
    double speedup = 1.0 / main_r.ratio_estimate;
    double sp_lo = 1.0 / main_r.ratio_ci_high, sp_hi = 1.0 / main_r.ratio_ci_low;
    pg_signflip_result faster = pg_signflip_less(d_main, (size_t)blocks, 0.0, k.main.seed,
                                                 pg_cmp_mc_draws(&k.main, main_r.look));

    json_object_set_new(det, "heat_soak",
                        json_pack("{s:f, s:i, s:b, s:b, s:f}", "seconds", soak.seconds, "windows",
                                  soak.windows, "steady", soak.steady, "warm_start",
                                  soak.warm_start, "min_seconds", soak.min_s));
    json_object_set_new(det, "block", json_pack("{s:i, s:i, s:i, s:I, s:i}", "warmup", warmup,
                                                "timed", reps, "blocks", blocks, "seed",
                                                (json_int_t)k.main.seed, "rotated_copies",
                                                p->copies));
    json_t *cj = summary_json(&cand, flop);
    json_object_set_new(cj, "launches_per_timed_launch", json_integer(p->launches[PG_ARM_CAND]));
    json_object_set_new(det, "candidate", cj);
    json_t *bj = summary_json(&base, flop);
    pg_vendor_describe(p->baseline, bj);
    json_object_set_new(det, "baseline", bj);
    if (with_acc) {
        json_t *aj = summary_json(&acc, flop);
        json_object_set_new(aj, "manifest", pg_jstr(c->s->accepted->manifest->file));
        json_object_set_new(det, "accepted", aj);
    }
    json_object_set_new(det, "speedup",
                        json_pack("{s:o, s:o, s:o, s:f}", "estimate", pg_json_real_or_null(speedup),
                                  "ci_low", pg_json_real_or_null(sp_lo), "ci_high",
                                  pg_json_real_or_null(sp_hi), "confidence", k.main.confidence));
    json_object_set_new(det, "min_speedup", json_real(min_speedup));
    json_t *cmps = json_array();
    char main_name[64], main_meaning[160], canary_meaning[160];
    snprintf(main_name, sizeof main_name, "candidate_vs_%s",
             json_string_value(json_object_get(bj, "library")));
    snprintf(main_meaning, sizeof main_meaning,
             "ratio = candidate time / %s time; FAIL when it exceeds 1/min_speedup beyond doubt",
             L);
    snprintf(canary_meaning, sizeof canary_meaning,
             "%s against itself; FAIL means the machine is too noisy to judge", L);
    json_array_append_new(cmps, comparison_json(main_name, &main_r, k.main.lambda, main_meaning,
                                                /* Beating the requirement is a PASS here;
                                                 * FAST is kept for beating the library. */
                                                main_r.verdict == PG_CMP_FAST ? PG_CMP_PASS
                                                                              : main_r.verdict));
    json_array_append_new(cmps, comparison_json("aa_canary", &canary_r, k.canary.lambda,
                                                canary_meaning, canary_r.verdict));
    if (with_acc)
        json_array_append_new(cmps, comparison_json("candidate_vs_accepted", &reg_r,
                                                    k.regression.lambda,
                                                    "ratio = candidate time / accepted kernel "
                                                    "time; FAIL when the candidate is slower by "
                                                    "more than the tolerance beyond doubt",
                                                    reg_r.verdict));
    else if (c->s->accepted)
        json_array_append_new(
            cmps, json_pack("{s:s, s:s, s:o}", "name", "candidate_vs_accepted", "verdict",
                            c->s->accepted_identical ? "PASS" : "NOT_COMPARED", "reason",
                            pg_jstr(c->s->accepted_identical
                                        ? pg_accepted_identical_reason(c->s)
                                        : c->s->accepted_note)));
    json_object_set_new(det, "comparisons", cmps);
    json_object_set_new(det, "cross_check", cupti_json(&data, blocks, n_arms));
    json_object_set_new(det, "speed_of_light",
                        json_pack("{s:o, s:o, s:f, s:o, s:o, s:f}", "peak_tflops",
                                  pg_json_real_or_null(run->peak_tflops), "peak_write_gbps",
                                  pg_json_real_or_null(run->peak_write_gbps), "bytes", bytes,
                                  "floor_ms", pg_json_real_or_null(sol_ms), "percent",
                                  pg_json_real_or_null(100.0 * sol_ms / cand.median), "slack",
                                  slack));
    json_object_set_new(det, "environment", watch_json(&data, blocks, n_arms));
    json_object_set_new(det, "decision_s", json_real(decision_s));
    double e0 = pg_now_s();
    json_object_set_new(det, "energy", measure_energy(p, o));
    json_object_set_new(det, "energy_s", json_real(pg_now_s() - e0));
    json_object_set_new(det, "faster_than_baseline_p", pg_json_real_or_null(faster.p_value));
    json_object_set_new(det, "rule",
                        json_string("fail when the sign-flip test rejects speedup >= min_speedup, "
                                    "or rejects 'no slower than the accepted kernel by more than "
                                    "the tolerance'"));
    json_object_set_new(c->json, "latency_ms", json_real(cand.median));
    json_object_set_new(c->json, "reference_latency_ms", json_real(base.median));
    json_object_set_new(c->json, "speedup_factor", json_real(speedup));

    dt = pg_now_s() - t0;
    double tf_c = flop / (cand.median * 1e-3) / 1e12, tf_b = flop / (base.median * 1e-3) / 1e12;
    char numbers[512], reg[400];
    snprintf(numbers, sizeof numbers,
             "speedup %.3fx [%.3f, %.3f] vs min_speedup %.3g after %d blocks (%s); candidate "
             "%.4f ms (%.1f TFLOP/s, %.0f %% of speed of light), %s %.4f ms (%.1f TFLOP/s)",
             speedup, sp_lo, sp_hi, min_speedup, blocks, mode, cand.median, tf_c,
             100.0 * sol_ms / cand.median, L, base.median, tf_b);
    regression_text(c->s, with_acc, &reg_r, k.delta_regression, reg, sizeof reg);
    pg_perf_record(run, stage, 0, &main_r);
    if (with_acc)
        pg_perf_record(run, stage, 2, &reg_r);
    bool main_fail = main_r.verdict == PG_CMP_FAIL, reg_fail = with_acc && reg_r.verdict == PG_CMP_FAIL;
    if (implausible)
        pg_stage_finish(stage, "fail", dt,
                        "IMPLAUSIBLE: the candidate's %.4f ms is below the speed-of-light floor "
                        "%.4f ms (peak %.0f TFLOP/s, %.0f GB/s, less %.0f %% slack): a broken "
                        "measurement or skipped work; %s",
                        cand.median, sol_ms, run->peak_tflops, run->peak_write_gbps, 100 * slack,
                        numbers);
    else if (data.other_processes > 0)
        pg_stage_finish(stage, "error", dt,
                        "INFRASTRUCTURE: %d other compute process(es) ran on the GPU while "
                        "timing; %s",
                        data.other_processes, numbers);
    else if (pg_cmp_canary_rejects(&canary_r))
        pg_stage_finish(stage, "error", dt,
                        "INFRASTRUCTURE: the A/A canary (%s against itself) differed by "
                        "%.2f%% (p = %.3g): this machine is too noisy to judge; %s",
                        L, 100.0 * (canary_r.ratio_estimate - 1.0), canary_r.p_fail, numbers);
    else if (main_fail || reg_fail)
        pg_stage_finish(stage, "fail", dt, "FAIL: %s%s%s%s%s", main_fail ? "" : "(vs ",
                        main_fail ? "" : L, main_fail ? "" : " PASS) ", numbers, reg);
    else if (main_r.verdict == PG_CMP_INCONCLUSIVE)
        pg_stage_finish(stage, "pass", dt,
                        "INCONCLUSIVE (warning, not failing): %s; smallest detectable slowdown "
                        "%.2f%%%s",
                        numbers, 100.0 * (main_r.mde_ratio - 1.0), reg);
    else
        pg_stage_finish(stage, "pass", dt, "%s: %s%s",
                        faster.p_value <= k.main.alpha ? "FAST (faster than the library)" : "PASS",
                        numbers, reg);
done:
    json_object_set_new(det, "phases_s", pg_phases_json(c));
    free(block_ms);
    free(all_ms);
    free(d_main);
    free(d_canary);
    free(d_reg);
    if (p)
        pg_perf_arms_release(p);
    free(p);
    pg_progress(run, c->s, c->w->name, "performance", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}

void pg_perf_record(pg_run *run, json_t *stage, int cmp_index, const pg_cmp_result *r)
{
    if (run->n_perf == run->cap_perf) {
        size_t cap = run->cap_perf ? 2 * run->cap_perf : 16;
        json_t **st = realloc(run->perf_stages, cap * sizeof *st);
        if (!st)
            return;
        run->perf_stages = st;
        int *ix = realloc(run->perf_cmp_index, cap * sizeof *ix);
        if (!ix)
            return;
        run->perf_cmp_index = ix;
        pg_cmp_result *rs = realloc(run->perf_results, cap * sizeof *rs);
        if (!rs)
            return;
        run->perf_results = rs;
        run->cap_perf = cap;
    }
    run->perf_stages[run->n_perf] = stage;
    run->perf_cmp_index[run->n_perf] = cmp_index;
    run->perf_results[run->n_perf] = *r;
    run->n_perf++;
}

void pg_perf_holm_finalize(pg_run *run)
{
    if (run->n_perf == 0)
        return;
    pg_cmp_holm_finalize(run->perf_results, run->n_perf, PG_RUN_ALPHA);
    for (size_t i = 0; i < run->n_perf; i++) {
        const pg_cmp_result *r = &run->perf_results[i];
        json_t *stage = run->perf_stages[i];
        if (!r->holm_changed || strcmp(pg_stage_status(stage), "error") == 0)
            continue;
        json_t *cmps = json_object_get(pg_stage_details(stage), "comparisons");
        json_t *cmp = json_array_get(cmps, (size_t)run->perf_cmp_index[i]);
        json_object_set_new(cmp, "verdict", json_string(pg_cmp_verdict_name(r->verdict)));
        json_object_set_new(cmp, "holm_changed", json_true());
        char msg[4096];
        snprintf(msg, sizeof msg, "%s (Holm over the run's %zu comparisons made %s %s)",
                 json_string_value(json_object_get(stage, "message")), run->n_perf,
                 json_string_value(json_object_get(cmp, "name")), pg_cmp_verdict_name(r->verdict));
        /* The stage still fails when another of its comparisons FAILs and Holm keeps it. */
        bool failed = false;
        for (size_t j = 0; j < run->n_perf; j++)
            failed |= run->perf_stages[j] == stage && run->perf_results[j].verdict == PG_CMP_FAIL;
        pg_stage_finish(stage, failed ? "fail" : "pass",
                        json_real_value(json_object_get(stage, "duration_s")), "%s", msg);
    }
}

void pg_perf_release(pg_run *run)
{
    free(run->perf_stages);
    free(run->perf_results);
    free(run->perf_cmp_index);
    run->perf_cmp_index = NULL;
    run->perf_stages = NULL;
    run->perf_results = NULL;
    run->n_perf = run->cap_perf = 0;
}
