/* The performance stage (issue 4 design) in three steps, as NVBench keeps measurement apart
 * from its summaries:
 *   - measure (perf_measure.c): the candidate, the vendor baseline (cuBLASLt for GEMM, cuDNN for
 *     attention: vendor_arm.c), the baseline again as an A/A canary and, when the task has one,
 *     its accepted kernel, timed in randomized interleaved blocks after a heat soak (arms:
 *     perf_arms.c, cold or sustained) up to the group-sequential look where the stop rule says
 *     stop; then the device's peaks and the energy per arm;
 *   - decide (gate/stats/perf_verdict.h, pure): the comparisons' configurations, the stop rule,
 *     the verdict and its message;
 *   - record (here): the stage's details in the results, the comparisons registered for the
 *     run's Holm step (pg_perf_record), the stage's status and message.
 * The comparisons: candidate vs the baseline against the task's min_speedup, λ = ln(1/min_speedup);
 * candidate vs the accepted kernel (the regression check), λ = ln(1+δ), where a byte-identical
 * cubin, or one whose code sections are equal (gate/ptx/cubin_code.h), is "SASS-identical" and
 * needs no timing; the canary (the baseline vs itself), λ = ln(1+δ): if it rejects, the machine,
 * not the kernel, is at fault and the stage is an infrastructure error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/comparison.h"
#include "stats/order_stats.h"
#include "stats/perf_verdict.h"
#include "blocks.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission.h"
#include "vendor_arm.h"
#include "perf_arms.h"
#include "perf_measure.h"

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

/* The key of arm a in the records: without a vendor arm the baseline arm is the accepted
 * kernel and is named so. */
static const char *arm_name(const pg_perf_measured *m, int a)
{
    return a == PG_ARM_BASE && m->arms && m->arms->reference_is_accepted ? "accepted"
                                                                         : k_arm_names[a];
}

static json_t *cupti_json(const pg_perf_measured *m, const pg_block_data *data, int blocks,
                          int n_arms)
{
    json_t *j = json_object();
    json_object_set_new(j, "cupti_used", json_boolean(data->cupti_used));
    if (!data->cupti_used) {
        json_object_set_new(j, "cupti_error", pg_jstr(data->cupti_error));
        return j;
    }
    for (int a = 0; a < n_arms; a++) {
        char key[64];
        snprintf(key, sizeof key, "%s_gpu_ms", arm_name(m, a));
        json_object_set_new(j, key,
                            pg_json_real_or_null(
                                pg_median(data->gpu_ms + (size_t)a * PG_BLOCK_MAX_BLOCKS,
                                          (size_t)blocks)));
    }
    return j;
}

static json_t *watch_json(const pg_perf_measured *m, const pg_block_data *data, int blocks,
                          int n_arms)
{
    json_t *j = json_object();
    json_object_set_new(j, "nvml", json_boolean(data->nvml_used));
    if (!data->nvml_used)
        return j;
    for (int a = 0; a < n_arms; a++) {
        char key[64];
        snprintf(key, sizeof key, "%s_sm_clock_mhz", arm_name(m, a));
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

/* The stage's settings, read once from the run's options and the task. */
static void read_settings(const pg_wctx *c, pg_perf_stage_settings *s)
{
    const pg_check_options *o = c->run->o;
    const pg_submission *sub = c->s;
    const pg_task *t = sub->task;
    s->mode = o->timing_mode ? o->timing_mode : t->timing_mode[0] ? t->timing_mode : "cold";
    s->sustained = strcmp(s->mode, "sustained") == 0;
    s->with_accepted = sub->accepted.kernel && sub->accepted.usable &&
                       !sub->accepted.identical && pg_accepted_plan(sub, c->index);
    s->timeout_s = o->timeout_s * 5;
    s->max_warmup = o->warmup;
    s->max_reps = o->repetitions;
    s->energy = o->energy;
    s->decide = (pg_perf_settings){
        .min_speedup = o->min_speedup_override > 0 ? o->min_speedup_override : t->min_speedup,
        .regression_tolerance = t->regression_tolerance,
        .confidence = o->confidence,
        .seed = o->seed,
        .workload = sub->workloads[c->index],
        .n_comparisons = c->run->n_comparisons,
        .run_alpha = PG_RUN_ALPHA};
}

/* details.method: how the arms were timed (also after a failed measurement). */
static json_t *method_json(const pg_run *run, const pg_perf_stage_settings *s,
                           const pg_perf_measured *m)
{
    const char *L = m->vendor_label;
    const char *acc = s->with_accepted ? " and the accepted kernel" : "";
    unsigned long long seed = (unsigned long long)m->k.main.seed;
    if (s->sustained)
        return json_sprintf("sustained mode: heat soak %.1f s, then blocks of the candidate, "
                            "%s, %s again as an A/A canary%s in an order randomized per block "
                            "(seed %llu); each arm a CUDA graph of >= 20 ms of back-to-back "
                            "launches rotating over %d copies of the tensors (>= 3x L2), no L2 "
                            "flush; per arm and block %d untimed and %d timed graph launches, "
                            "CUDA events, time per launch = graph time / launches; block "
                            "statistic = median; one-sided sign-flip tests on per-block log "
                            "ratios at looks 16/32/64 blocks",
                            m->soak.seconds, L, L, acc, seed, m->arms ? m->arms->copies : 0,
                            m->warmup, m->reps);
    return json_sprintf("cold mode: heat soak %.1f s, then blocks of the candidate, %s, "
                        "%s again as an A/A canary%s in an order randomized per block (seed "
                        "%llu); per arm and block %d untimed and %d timed launches, L2 "
                        "flushed (%zu bytes) before each, CUDA events; block statistic = "
                        "median; one-sided sign-flip tests on per-block log ratios at looks "
                        "16/32/64 blocks",
                        m->soak.seconds, L, L, acc, seed, m->warmup, m->reps,
                        pg_device_flush_bytes(run->dev));
}

/* details.comparisons, in the order pg_perf_record's cmp_index counts: main, canary, and the
 * regression check (timed, or why not) when the task has an accepted kernel. */
/* Why the accepted kernel was not timed at the candidate's workload `index`: the same code, an
 * unusable kernel, or a workload its manifest's `supports` declines. */
static json_t *not_compared_reason(const pg_submission *sub, int index)
{
    const pg_submission *a = sub->accepted.kernel;
    if (sub->accepted.identical)
        return pg_jstr(pg_accepted_identical_reason(sub));
    if (!sub->accepted.usable || pg_accepted_plan(sub, index))
        return pg_jstr(sub->accepted.note);
    return json_sprintf("the accepted kernel %s declines this workload (its supports: %s)",
                        a->manifest->file, a->manifest->supports);
}

/* Append cmp to cmps, its name and record kept in out for the run's Holm step. */
static void add_comparison(json_t *cmps, json_t *cmp, const char *name, pg_perf_state *out)
{
    if (cmp && out->n_cmps < PG_PERF_MAX_COMPARISONS) {
        pg_perf_cmp *k = &out->cmps[out->n_cmps++];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->record = cmp;
    }
    json_array_append_new(cmps, cmp);
}

static json_t *comparisons_json(const pg_submission *sub, int index, const pg_perf_measured *m,
                                const pg_perf_verdict *v, const char *library,
                                pg_perf_state *out)
{
    const char *L = m->vendor_label;
    const pg_perf_comparisons *r = &m->cmp;
    json_t *cmps = json_array();
    char main_name[64], main_meaning[200], canary_meaning[160];
    snprintf(main_name, sizeof main_name, "candidate_vs_%s", library ? library : "accepted");
    if (library)
        snprintf(main_meaning, sizeof main_meaning,
                 "ratio = candidate time / %s time; FAIL when it exceeds 1/min_speedup beyond "
                 "doubt", L);
    else
        snprintf(main_meaning, sizeof main_meaning,
                 "ratio = candidate time / accepted kernel time (no vendor arm: the library "
                 "refused the configuration); FAIL when the candidate is slower by more than "
                 "the tolerance beyond doubt");
    snprintf(canary_meaning, sizeof canary_meaning,
             "%s against itself; FAIL means the machine is too noisy to judge", L);
    add_comparison(cmps,
                   comparison_json(main_name, &r->main, m->k.main.lambda, main_meaning,
                                   v->main_shown),
                   main_name, out);
    add_comparison(cmps,
                   comparison_json("aa_canary", &r->canary, m->k.canary.lambda, canary_meaning,
                                   r->canary.verdict),
                   "aa_canary", out);
    if (m->view.accepted_timed)
        add_comparison(cmps,
                       comparison_json("candidate_vs_accepted", &r->regression,
                                       m->k.regression.lambda,
                                       "ratio = candidate time / accepted kernel time; FAIL when "
                                       "the candidate is slower by more than the tolerance "
                                       "beyond doubt",
                                       r->regression.verdict),
                       "candidate_vs_accepted", out);
    else if (sub->accepted.kernel && library)
        add_comparison(cmps,
                       json_pack("{s:s, s:s, s:o}", "name", "candidate_vs_accepted", "verdict",
                                 sub->accepted.identical ? "PASS" : "NOT_COMPARED", "reason",
                                 not_compared_reason(sub, index)),
                       "candidate_vs_accepted", out);
    return cmps;
}

/* details.energy: per distinct arm, as measured. */
static json_t *energies_json(const pg_perf_measured *m)
{
    json_t *j = json_object();
    for (int a = 0; a < m->n_arms; a++)
        if (a != PG_ARM_CANARY)
            json_object_set_new(j, arm_name(m, a), energy_json(&m->energy[a], m->energy_why[a]));
    return j;
}

/* details.baseline when the library refused the configuration (issue 17). */
static json_t *refusal_json(const pg_wctx *c, const char *reason)
{
    return json_pack("{s:s, s:s, s:s}", "library", c->s->task->baseline_library, "status",
                     "NOT_SUPPORTED", "reason", reason);
}

/* Why a stage without a vendor arm has nothing to time against. */
static const char *no_reference_reason(const pg_submission *sub, int index)
{
    if (!sub->accepted.kernel)
        return "the task has no accepted kernel";
    if (sub->accepted.identical)
        return "the candidate is SASS-identical to the task's accepted kernel";
    if (!sub->accepted.usable)
        return "the task's accepted kernel is not usable";
    return pg_accepted_plan(sub, index) ? "the accepted kernel was not timed"
                                        : "the task's accepted kernel declines this workload";
}

/* The details of a completed measurement, in the results' field order (docs/results.md), and
 * the workload's latency numbers. */
static void record_details(pg_wctx *c, json_t *det, const pg_perf_stage_settings *s,
                           const pg_perf_measured *m, const pg_perf_verdict *v)
{
    pg_run *run = c->run;
    const pg_perf_arms *p = m->arms;
    double flop = m->view.flop;
    json_object_set_new(det, "heat_soak",
                        json_pack("{s:f, s:i, s:b, s:b, s:f}", "seconds", m->soak.seconds,
                                  "windows", m->soak.windows, "steady", m->soak.steady,
                                  "warm_start", m->soak.warm_start, "min_seconds",
                                  m->soak.min_s));
    json_object_set_new(det, "block", json_pack("{s:i, s:i, s:i, s:I, s:i}", "warmup", m->warmup,
                                                "timed", m->reps, "blocks", m->blocks, "seed",
                                                (json_int_t)m->k.main.seed, "rotated_copies",
                                                p->copies));
    json_t *cj = summary_json(&v->candidate, flop);
    json_object_set_new(cj, "launches_per_timed_launch", json_integer(p->launches[PG_ARM_CAND]));
    json_object_set_new(det, "candidate", cj);
    bool vendor = !p->reference_is_accepted;
    pg_perf_state *out = &c->wl->perf;
    if (vendor) {
        json_t *bj = summary_json(&v->baseline, flop);
        pg_vendor_describe(p->baseline, bj);
        json_object_set_new(det, "baseline", bj);
        out->have_baseline = isfinite(v->baseline.median) && isfinite(v->baseline.ci_low) &&
                             isfinite(v->baseline.ci_high);
        out->baseline_ms[0] = v->baseline.median;
        out->baseline_ms[1] = v->baseline.ci_low;
        out->baseline_ms[2] = v->baseline.ci_high;
    }
    if (s->with_accepted || !vendor) {
        json_t *aj = summary_json(vendor ? &v->accepted : &v->baseline, flop);
        json_object_set_new(aj, "manifest", pg_jstr(c->s->accepted.kernel->manifest->file));
        json_object_set_new(det, "accepted", aj);
    }
    /* what the speedup and the main comparison are against ("accepted" is written with the
     * refusal, pg_stage_performance) */
    if (vendor)
        json_object_set_new(det, "reference", json_string("baseline"));
    json_object_set_new(det, "speedup",
                        json_pack("{s:o, s:o, s:o, s:f}", "estimate",
                                  pg_json_real_or_null(v->speedup), "ci_low",
                                  pg_json_real_or_null(v->speedup_ci_low), "ci_high",
                                  pg_json_real_or_null(v->speedup_ci_high), "confidence",
                                  m->k.main.confidence));
    if (vendor)
        json_object_set_new(det, "min_speedup", json_real(s->decide.min_speedup));
    else
        json_object_set_new(det, "regression_tolerance", json_real(m->k.delta_regression));
    json_object_set_new(det, "comparisons",
                        comparisons_json(c->s, c->index, m, v, pg_vendor_library(p->baseline),
                                         out));
    json_object_set_new(det, "cross_check", cupti_json(m, &m->data, m->blocks, m->n_arms));
    json_object_set_new(det, "speed_of_light",
                        json_pack("{s:o, s:o, s:f, s:o, s:o, s:f}", "peak_tflops",
                                  pg_json_real_or_null(run->peak_tflops), "peak_write_gbps",
                                  pg_json_real_or_null(run->peak_write_gbps), "bytes",
                                  m->view.bytes, "floor_ms", pg_json_real_or_null(v->floor_ms),
                                  "percent",
                                  pg_json_real_or_null(100.0 * v->floor_ms / v->candidate.median),
                                  "slack", PG_PERF_SOL_SLACK));
    json_object_set_new(det, "environment", watch_json(m, &m->data, m->blocks, m->n_arms));
    json_object_set_new(det, "decision_s", json_real(m->decision_s));
    json_object_set_new(det, "energy", energies_json(m));
    json_object_set_new(det, "energy_s", json_real(m->energy_s));
    json_object_set_new(det, "faster_than_baseline_p", pg_json_real_or_null(v->faster_p));
    json_object_set_new(det, "rule",
                        json_string(vendor ? "fail when the sign-flip test rejects speedup >= "
                                             "min_speedup, or rejects 'no slower than the "
                                             "accepted kernel by more than the tolerance'"
                                           : "no vendor arm (NOT_SUPPORTED, baseline.optional): "
                                             "fail when the sign-flip test rejects 'no slower "
                                             "than the accepted kernel by more than the "
                                             "tolerance'"));
    json_object_set_new(c->json, "latency_ms", json_real(v->candidate.median));
    /* The speedup over the vendor library only: compare and history read it as that. */
    if (vendor) {
        json_object_set_new(c->json, "reference_latency_ms", json_real(v->baseline.median));
        json_object_set_new(c->json, "speedup_factor", json_real(v->speedup));
    }
}

bool pg_stage_performance(pg_wctx *c)
{
    pg_run *run = c->run;
    /* The stage is in the results before the arms are built: the vendor baseline's
     * preparation writes details.stored_baseline into it (baseline_check.c). */
    pg_stage_entry *stage =
        pg_stage_begin(run, c->s, &c->wl->stages, c->w->name, PG_STAGE_PERFORMANCE);
    json_t *det = pg_stage_details(stage);
    c->wl->perf = (pg_perf_state){0};
    double t0 = pg_now_s();
    pg_perf_stage_settings s;
    read_settings(c, &s);
    pg_perf_measured *m = calloc(1, sizeof *m);
    pg_perf_verdict *v = calloc(1, sizeof *v);
    if (m && v)
        pg_perf_measure(c, &s, t0, m);
    if (!m || !v) {
        pg_stage_finish(stage, "error", pg_now_s() - t0, "out of memory");
    } else if (m->status == PG_ERR_UNAVAILABLE && c->s->task->baseline_optional) {
        /* The library refused the configuration, the task's baseline is optional, and there
         * is no accepted kernel to time instead (with one, the stage is judged against it) */
        json_object_set_new(det, "baseline", refusal_json(c, m->diag.message));
        c->wl->perf.vendor_refused = true;
        pg_stage_finish(stage, "skipped", pg_now_s() - t0,
                        "not judged: the vendor baseline cannot run this configuration "
                        "(NOT_SUPPORTED; the task's baseline is optional) and %s: %s",
                        no_reference_reason(c->s, c->index), m->diag.message);
    } else {
        pg_perf_decide(&s.decide, &m->k, &m->view, v);
        json_object_set_new(det, "method", method_json(run, &s, m));
        json_object_set_new(det, "mode", json_string(s.mode));
        snprintf(c->wl->perf.mode, sizeof c->wl->perf.mode, "%s", s.mode);
        if (m->arms && m->arms->reference_is_accepted) {
            /* also when the timing failed: the refusal and what the stage was judged against */
            c->wl->perf.vendor_refused = true;
            json_object_set_new(det, "baseline", refusal_json(c, m->arms->vendor_refusal));
            json_object_set_new(det, "reference", json_string("accepted"));
        }
        if (m->view.completed) {
            run->peak_tflops = v->peak_tflops;
            record_details(c, det, &s, m, v);
            if (v->record_main)
                pg_perf_record(run, stage, 0, &c->wl->perf.cmps[0], &m->cmp.main);
            if (v->record_regression)
                pg_perf_record(run, stage, 2, &c->wl->perf.cmps[2], &m->cmp.regression);
        }
        pg_stage_finish(stage, v->status, pg_now_s() - t0, "%s", v->message);
        json_object_set_new(det, "phases_s", pg_phases_json(c));
    }
    if (m)
        pg_perf_measured_release(m);
    free(m);
    free(v);
    pg_progress(run, c->s, c->w->name, "performance", pg_stage_status(stage),
                pg_stage_message(stage));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}

void pg_perf_record(pg_run *run, pg_stage_entry *stage, int cmp_index, const pg_perf_cmp *cmp,
                    const pg_cmp_result *r)
{
    if (run->n_perf == run->cap_perf) {
        size_t cap = run->cap_perf ? 2 * run->cap_perf : 16;
        pg_stage_entry **st = realloc(run->perf_stages, cap * sizeof *st);
        if (!st)
            return;
        run->perf_stages = st;
        pg_perf_cmp *cs = realloc(run->perf_cmps, cap * sizeof *cs);
        if (!cs)
            return;
        run->perf_cmps = cs;
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
    run->perf_cmps[run->n_perf] = *cmp;
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
        pg_stage_entry *stage = run->perf_stages[i];
        if (!r->holm_changed || !stage || stage->status == PG_RES_ERROR)
            continue;
        const pg_perf_cmp *cmp = &run->perf_cmps[i];
        json_object_set_new(cmp->record, "verdict", json_string(pg_cmp_verdict_name(r->verdict)));
        json_object_set_new(cmp->record, "holm_changed", json_true());
        char msg[4096];
        snprintf(msg, sizeof msg, "%s (Holm over the run's %zu comparisons made %s %s)",
                 pg_stage_message(stage), run->n_perf, cmp->name,
                 pg_cmp_verdict_name(r->verdict));
        /* The stage still fails when another of its comparisons FAILs and Holm keeps it. */
        bool failed = false;
        for (size_t j = 0; j < run->n_perf; j++)
            failed |= run->perf_stages[j] == stage && run->perf_results[j].verdict == PG_CMP_FAIL;
        pg_stage_finish(stage, failed ? "fail" : "pass", stage->duration_s, "%s", msg);
    }
}

void pg_perf_release(pg_run *run)
{
    free(run->perf_stages);
    free(run->perf_results);
    free(run->perf_cmp_index);
    free(run->perf_cmps);
    run->perf_cmps = NULL;
    run->perf_cmp_index = NULL;
    run->perf_stages = NULL;
    run->perf_results = NULL;
    run->n_perf = run->cap_perf = 0;
}
