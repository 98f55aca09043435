/* The verify stage, right after the performance stage on the buffers and module it timed: what
 * the timed launches left must be what a correct kernel leaves, so a kernel that computes only
 * while it is checked (first calls, cached answers, work skipped once warm) fails here.
 *   1. The inputs the last timed launch saw are intact: their checksums now equal those of the
 *      same inputs generated again from their seed (every timed launch got new inputs from
 *      the timing seed and its launch count, pg_wctx_prepare_launch), and every canary is.
 *   2. The output of the last timed launch equals the reference on those inputs; the outputs
 *      were poisoned before each timed launch, so an output left by an earlier launch, or an
 *      answer replayed for earlier inputs, cannot pass.
 *   3. New inputs (set `sets + 1`, a seed the kernel has never seen), outputs poisoned, one
 *      launch, compared again, with the guards checked again. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One comparison as a JSON object and a one-line verdict into why when it failed. */
static json_t *check_json(const char *what, uint64_t seed, const pg_accuracy *a,
                          const char *violation, char *why, size_t n, size_t *used)
{
    bool ok = a->pass && !violation[0];
    if (!ok && *used < n) {
        if (violation[0])
            *used += (size_t)snprintf(why + *used, n - *used, "%s%s: %s", *used ? "; " : "", what,
                                      violation);
        if (!a->pass && *used < n)
            *used += (size_t)snprintf(why + *used, n - *used,
                                      "%s%s: %zu of %zu elements bad (%zu NaN/Inf, %zu "
                                      "unwritten), max |err| %.3g, rel L2 %.3g",
                                      *used ? "; " : "", what, a->bad_elements, a->elements,
                                      a->nan_or_inf_elements, a->unwritten_elements,
                                      a->max_absolute_error, a->relative_l2_error);
    }
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:b}", "check", what, "seed",
                     (json_int_t)seed, "bad_elements", (json_int_t)a->bad_elements,
                     "nan_or_inf_elements", (json_int_t)a->nan_or_inf_elements,
                     "unwritten_elements", (json_int_t)a->unwritten_elements,
                     "max_absolute_error", pg_json_real_or_null(a->max_absolute_error),
                     "relative_l2_error", pg_json_real_or_null(a->relative_l2_error),
                     "guard_violation", pg_jstr(violation), "pass", ok);
}

bool pg_stage_verify(pg_wctx *c)
{
    pg_run *run = c->run;
    const pg_task *t = c->s->task;
    json_t *stage = pg_stage_new("verify");
    json_array_append_new(json_object_get(c->json, "stages"), stage);
    json_t *det = pg_stage_details(stage);
    pg_progress(run, c->s, c->w->name, "verify", NULL, NULL);
    double t0 = pg_now_s();
    int wl = c->s->workloads[c->index];
    uint64_t fresh_seed = pg_set_seed(run->o->seed, wl, run->o->correctness_sets + 1);
    pg_dtype odt = t->tensors[c->c].dtype;
    size_t count = (size_t)c->plan->tensor_elements[c->c];
    pg_buffer *ref = NULL;
    void *host_out = malloc(count * pg_dtype_size(odt) + 1);
    float *host_ref = malloc(count * sizeof(float) + 1);
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = host_out && host_ref
                       ? pg_buffer_alloc(run->dev, count * sizeof(float), &ref, &d)
                       : pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    char why[1600] = "", violation[768] = "";
    size_t used = 0;
    json_t *checks = json_array();
    json_object_set_new(det, "checks", checks);
    json_object_set_new(det, "addresses", pg_wctx_addresses_json(c));
    pg_accuracy acc;
    memset(&acc, 0, sizeof acc);
    /* 1: the inputs of the last timed launch, against the same inputs made again. */
    uint64_t now_sum[PG_MAX_TENSORS] = {0};
    uint64_t last_seed = pg_wctx_refill_seed(c);
    json_object_set_new(det, "timed_launches", json_integer(c->refills));
    json_object_set_new(det, "last_inputs_seed", json_integer((json_int_t)last_seed));
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!t->tensors[i].is_output)
            st = pg_buffer_checksum(c->tensors[i], &now_sum[i], &d);
    if (st == PG_OK)
        st = pg_wctx_fill_inputs(c, last_seed, &d);
    size_t vused = 0;
    for (int i = 0; i < t->n_tensors && st == PG_OK; i++)
        if (!t->tensors[i].is_output && now_sum[i] != c->input_sum[i] && vused < sizeof violation)
            vused += (size_t)snprintf(violation + vused, sizeof violation - vused,
                                      "%sinput %s was modified by the timed launches", vused ? "; " : "",
                                      t->tensors[i].name);
    char canaries[768] = "";
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, canaries, sizeof canaries, &d);
    if (canaries[0] && vused < sizeof violation)
        snprintf(violation + vused, sizeof violation - vused, "%s%s", vused ? "; " : "", canaries);
    /* 2: the output of the last timed launch. */
    if (st == PG_OK)
        st = pg_wctx_compare(c, ref, host_out, host_ref, &acc, &d);
    if (st == PG_OK)
        json_array_append_new(checks, check_json("last timed launch", last_seed, &acc,
                                                 violation, why, sizeof why, &used));
    /* 3: new inputs, poisoned outputs, one launch. */
    c->refresh_inputs = false;
    if (st == PG_OK)
        st = pg_wctx_fill_inputs(c, fresh_seed, &d);
    if (st == PG_OK)
        st = pg_wctx_prepare_launch(c, &d);
    if (st == PG_OK)
        st = pg_wctx_enqueue(c, &d);
    if (st == PG_OK)
        st = pg_device_sync(run->dev, run->o->timeout_s, &d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, sizeof violation, &d);
    if (st == PG_OK)
        st = pg_wctx_compare(c, ref, host_out, host_ref, &acc, &d);
    if (st == PG_OK)
        json_array_append_new(checks, check_json("new inputs", fresh_seed, &acc, violation, why,
                                                 sizeof why, &used));
    double dt = pg_now_s() - t0;
    if (st == PG_FAIL_KERNEL) {
        bool timeout = strncmp(d.message, "TIMEOUT", 7) == 0;
        json_object_set_new(c->json, "status", json_string(timeout ? "TIMEOUT" : "RUNTIME_ERROR"));
        pg_stage_finish(stage, "fail", dt, "kernel failed at run time: %s", d.message);
    } else if (st != PG_OK) {
        char msg[2400];
        pg_stage_finish(stage, "error", dt, "%s", pg_diag_format(&d, msg, sizeof msg));
    } else if (why[0]) {
        json_object_set_new(c->json, "status", json_string("INCORRECT_NUMERICAL"));
        pg_stage_finish(stage, "fail", dt,
                        "the kernel is not correct after timing (it computes only while "
                        "checked?): %s",
                        why);
    } else {
        pg_stage_finish(stage, "pass", dt,
                        "the last of %lld timed launches, each on new inputs, left the correct "
                        "output (seed %llu); new inputs (seed %llu) give correct results; inputs "
                        "unchanged, guards intact",
                        c->refills, (unsigned long long)last_seed, (unsigned long long)fresh_seed);
    }
    if (ref)
        pg_buffer_free(ref);
    free(host_out);
    free(host_ref);
    pg_progress(run, c->s, c->w->name, "verify", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
