/* The verify stage, right after the performance stage on the buffers and module it timed: what
 * the timed launches left must be what a correct kernel leaves, so a kernel that computes only
 * while it is checked (first calls, cached answers, work skipped once warm) fails here.
 *   1. The inputs the last timed launch saw are intact: their checksums now equal those of the
 *      same inputs generated again from their seeds (the timing set, then in cold mode the
 *      refillable inputs of the last timed launch, pg_wctx_prepare_launch), and every canary is.
 *   2. Every output of the last timed launch equals the reference on those inputs; in cold mode
 *      the outputs were poisoned before each timed launch, so an output left by an earlier
 *      launch, or an answer replayed for earlier inputs, cannot pass. Sustained mode (CUDA
 *      graphs over rotated copies) can neither poison nor refill per launch: there the check
 *      that counts is the next one.
 *   3. New inputs (set `sets + 1`, a seed the kernel has never seen), outputs poisoned, one
 *      launch, compared again, with the guards checked again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference_run.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"

/* One check (all outputs) as a JSON object, and one line per failing output into why. */
static json_t *check_json(const pg_wctx *c, const pg_outputs *o, const char *what, uint64_t seed,
                          const pg_accuracy *acc, const char *violation, char *why, size_t n,
                          size_t *used)
{
    const pg_task *t = c->s->task;
    bool ok = !violation[0];
    json_t *outs = json_object();
    if (violation[0] && *used < n)
        *used += (size_t)snprintf(why + *used, n - *used, "%s%s: %s", *used ? "; " : "", what,
                                  violation);
    for (int i = 0; i < o->n; i++) {
        const pg_accuracy *a = &acc[i];
        const char *name = t->tensors[o->tensor[i]].name;
        ok &= a->pass;
        if (!a->pass && *used < n)
            *used += (size_t)snprintf(why + *used, n - *used,
                                      "%s%s: %s%s%zu of %zu elements bad (%zu NaN/Inf, %zu "
                                      "unwritten), max |err| %.3g, rel L2 %.3g",
                                      *used ? "; " : "", what, o->n > 1 ? name : "",
                                      o->n > 1 ? " " : "", a->bad_elements, a->elements,
                                      a->nan_or_inf_elements, a->unwritten_elements,
                                      a->max_absolute_error, a->relative_l2_error);
        json_object_set_new(
            outs, name,
            json_pack("{s:I, s:I, s:I, s:o, s:o, s:b}", "bad_elements",
                      (json_int_t)a->bad_elements, "nan_or_inf_elements",
                      (json_int_t)a->nan_or_inf_elements, "unwritten_elements",
                      (json_int_t)a->unwritten_elements, "max_absolute_error",
                      pg_json_real_or_null(a->max_absolute_error), "relative_l2_error",
                      pg_json_real_or_null(a->relative_l2_error), "pass", a->pass));
    }
    return json_pack("{s:s, s:I, s:o, s:o, s:b}", "check", what, "seed", (json_int_t)seed,
                     "outputs", outs, "guard_violation", pg_jstr(violation), "pass", ok);
}

/* The inputs of the last timed launch made again: the timing set, then the refilled inputs of
 * the last refill; c->input_sum receives their checksums. */
static pg_status remake_last_inputs(pg_wctx *c, uint64_t last_seed, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_status st = pg_wctx_fill_inputs(c, c->timing_seed, d);
    if (st != PG_OK || c->refills == 0)
        return st;
    double t0 = pg_now_s();
    st = pg_refrun_refill(c, last_seed, d);
    if (st == PG_OK)
        st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    pg_phase_add(c, PG_PHASE_FILL, t0);
    t0 = pg_now_s();
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (pg_refrun_refillable(t, i))
            st = pg_buffer_checksum(c->tensors[i], &c->input_sum[i], d);
    pg_phase_add(c, PG_PHASE_CHECKSUM, t0);
    return st;
}

bool pg_stage_verify(pg_wctx *c)
{
    pg_run *run = c->run;
    const pg_task *t = c->s->task;
    pg_stage_entry *stage =
        pg_stage_begin(run, c->s, &c->wl->stages, c->w->name, PG_STAGE_VERIFY);
    json_t *det = pg_stage_details(stage);
    double t0 = pg_now_s();
    pg_phases_reset(c);
    int wl = c->s->workloads[c->index];
    uint64_t fresh_seed = pg_set_seed(run->o->seed, wl, run->o->correctness_sets + 1);
    pg_outputs o;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_outputs_setup(c, &o, &d);
    char why[1600] = "", violation[768] = "";
    size_t used = 0;
    json_t *checks = json_array();
    json_object_set_new(det, "checks", checks);
    json_object_set_new(det, "addresses", pg_wctx_addresses_json(c));
    pg_accuracy acc[PG_MAX_TENSORS];
    memset(acc, 0, sizeof acc);
    /* 1: the inputs of the last timed launch, against the same inputs made again. */
    uint64_t now_sum[PG_MAX_TENSORS] = {0};
    uint64_t last_seed = pg_wctx_refill_seed(c);
    json_object_set_new(det, "timed_launches", json_integer(c->refills));
    json_object_set_new(det, "timing_inputs_seed", json_integer((json_int_t)c->timing_seed));
    json_object_set_new(det, "last_inputs_seed",
                        c->refills ? json_integer((json_int_t)last_seed) : json_null());
    double t1 = pg_now_s();
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!t->tensors[i].is_output)
            st = pg_buffer_checksum(c->tensors[i], &now_sum[i], &d);
    pg_phase_add(c, PG_PHASE_CHECKSUM, t1);
    if (st == PG_OK)
        st = remake_last_inputs(c, last_seed, &d);
    size_t vused = 0;
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!t->tensors[i].is_output && now_sum[i] != c->input_sum[i] && vused < sizeof violation)
            vused += (size_t)snprintf(violation + vused, sizeof violation - vused,
                                      "%sinput %s was modified by the timed launches",
                                      vused ? "; " : "", t->tensors[i].name);
    char canaries[768] = "";
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, canaries, sizeof canaries, &d);
    if (canaries[0] && vused < sizeof violation)
        snprintf(violation + vused, sizeof violation - vused, "%s%s", vused ? "; " : "", canaries);
    /* 2: the outputs of the last timed launch. */
    if (st == PG_OK)
        st = pg_outputs_compare(c, &o, acc, &d);
    if (st == PG_OK)
        json_array_append_new(checks, check_json(c, &o, "last timed launch",
                                                 c->refills ? last_seed : c->timing_seed, acc,
                                                 violation, why, sizeof why, &used));
    /* 3: new inputs, poisoned outputs, one launch. */
    c->refresh_inputs = false;
    if (st == PG_OK)
        st = pg_wctx_fill_inputs(c, fresh_seed, &d);
    if (st == PG_OK)
        st = pg_wctx_prepare_launch(c, &d);
    if (st == PG_OK)
        st = pg_wctx_run_once(c, &d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, sizeof violation, &d);
    if (st == PG_OK)
        st = pg_outputs_compare(c, &o, acc, &d);
    if (st == PG_OK)
        json_array_append_new(checks, check_json(c, &o, "new inputs", fresh_seed, acc, violation,
                                                 why, sizeof why, &used));
    json_object_set_new(det, "phases_s", pg_phases_json(c));
    double dt = pg_now_s() - t0;
    if (st == PG_FAIL_KERNEL) {
        bool timeout = strncmp(d.message, "TIMEOUT", 7) == 0;
        pg_wl_set_ptxbench(c->wl, timeout ? "TIMEOUT" : "RUNTIME_ERROR");
        pg_stage_finish(stage, "fail", dt, "kernel failed at run time: %s", d.message);
    } else if (st != PG_OK) {
        char msg[2400];
        pg_stage_finish(stage, "error", dt, "%s", pg_diag_format(&d, msg, sizeof msg));
    } else if (why[0]) {
        pg_wl_set_ptxbench(c->wl, "INCORRECT_NUMERICAL");
        pg_stage_finish(stage, "fail", dt,
                        "the kernel is not correct after timing (it computes only while "
                        "checked?): %s",
                        why);
    } else if (c->refills) {
        pg_stage_finish(stage, "pass", dt,
                        "the last of %lld timed launches, each on new inputs, left the correct "
                        "output (seed %llu); new inputs (seed %llu) give correct results; inputs "
                        "unchanged, guards intact",
                        c->refills, (unsigned long long)last_seed, (unsigned long long)fresh_seed);
    } else {
        pg_stage_finish(stage, "pass", dt,
                        "the timed launches left the correct output (inputs seed %llu, no "
                        "per-launch refill in sustained mode); new inputs (seed %llu) give "
                        "correct results; inputs unchanged, guards intact",
                        (unsigned long long)c->timing_seed, (unsigned long long)fresh_seed);
    }
    pg_outputs_release(&o);
    pg_progress(run, c->s, c->w->name, "verify", pg_stage_status(stage), pg_stage_message(stage));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
