/* The correctness stage: several fresh input sets from recorded seeds (N(0,1) cast to the dtype,
 * never zeros), outputs poisoned with 0xFF bytes so unwritten elements are counted, ptxgate's own
 * fp32 reference, and the tolerance comparator per output; after every launch the guards
 * (canaries around every buffer, input checksums) must be intact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/accuracy.h"
#include "internal.h"

uint64_t pg_set_seed(uint64_t base, int wl, int set)
{
    return base + 1000003ull * (uint64_t)wl + 7919ull * (uint64_t)set;
}

pg_status pg_wctx_compare(pg_wctx *c, pg_buffer *ref, void *host_out, float *host_ref,
                          pg_accuracy *acc, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_device *dev = c->run->dev;
    int64_t M = pg_workload_symbol(t, c->w, "M"), N = pg_workload_symbol(t, c->w, "N"),
            K = pg_workload_symbol(t, c->w, "K");
    pg_status st = pg_reference_gemm_nt(dev, t->tensors[c->a].dtype, c->tensors[c->a],
                                        c->tensors[c->b], ref, M, N, K, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;
    size_t count = (size_t)c->plan->tensor_elements[c->c];
    pg_dtype odt = t->tensors[c->c].dtype;
    st = pg_buffer_download(c->tensors[c->c], host_out, count * pg_dtype_size(odt), d);
    if (st == PG_OK)
        st = pg_buffer_download(ref, host_ref, count * sizeof(float), d);
    if (st != PG_OK)
        return st;
    const pg_tolerance *tol = pg_task_tolerance(t, odt);
    pg_accuracy_tolerance at = {tol->atol, tol->rtol, tol->max_rel_l2};
    pg_accuracy_compare(host_out, odt, host_ref, count, &at, acc);
    return PG_OK;
}

/* Elements of `count` (elem_size bytes each) whose bytes differ between a and b. */
static long long differing_elements(const unsigned char *a, const unsigned char *b, size_t count,
                                    size_t elem_size)
{
    long long n = 0;
    for (size_t i = 0; i < count; i++)
        n += memcmp(a + i * elem_size, b + i * elem_size, elem_size) != 0;
    return n;
}

/* Launch again on the inputs of the set just run (outputs poisoned, workspaces re-initialized)
 * and count the output elements that differ bitwise from the first run's host_out. */
static pg_status run_again(pg_wctx *c, const void *host_out, void *host_out2, long long *differ,
                           char *violation, size_t vlen, pg_diag *d)
{
    const pg_task *t = c->s->task;
    size_t count = (size_t)c->plan->tensor_elements[c->c];
    size_t esize = pg_dtype_size(t->tensors[c->c].dtype);
    pg_status st = pg_wctx_prepare_launch(c, d);
    if (st == PG_OK)
        st = pg_wctx_enqueue(c, d);
    if (st == PG_OK)
        st = pg_device_sync(c->run->dev, c->run->o->timeout_s, d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, vlen, d);
    if (st == PG_OK)
        st = pg_buffer_download(c->tensors[c->c], host_out2, count * esize, d);
    if (st == PG_OK)
        *differ = differing_elements(host_out, host_out2, count, esize);
    return st;
}

/* Run one input set; fills *acc for the output tensor and `violation` with what the guards saw
 * (canaries, input checksums; "" when nothing). With host_out2, the set is launched a second
 * time on the same inputs and *differ counts the output elements that changed bitwise.
 * Returns PG_OK, PG_FAIL_KERNEL (kernel fault, message in d) or an infrastructure error. */
static pg_status run_set(pg_wctx *c, uint64_t seed, pg_buffer *ref, void *host_out,
                         float *host_ref, pg_accuracy *acc, char *violation, size_t vlen,
                         void *host_out2, long long *differ, pg_diag *d)
{
    pg_device *dev = c->run->dev;
    pg_status st = pg_wctx_fill_inputs(c, seed, d);
    if (st == PG_OK)
        st = pg_wctx_prepare_launch(c, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;

    st = pg_wctx_enqueue(c, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, vlen, d);
    if (st == PG_OK)
        st = pg_wctx_compare(c, ref, host_out, host_ref, acc, d);
    /* A guard violation makes "the same inputs" untrue: no second run then. */
    if (st == PG_OK && host_out2 && !violation[0])
        st = run_again(c, host_out, host_out2, differ, violation, vlen, d);
    return st;
}

static json_t *set_json(uint64_t seed, const char *output, const pg_accuracy *a, int64_t cols)
{
    json_t *first = json_null();
    if (a->first_bad_index >= 0)
        first = json_pack("[I, I]", (json_int_t)(a->first_bad_index / cols),
                          (json_int_t)(a->first_bad_index % cols));
    return json_pack("{s:I, s:s, s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:b}", "seed",
                     (json_int_t)seed, "output", output, "elements", (json_int_t)a->elements,
                     "max_absolute_error", pg_json_real_or_null(a->max_absolute_error),
                     "max_relative_error", pg_json_real_or_null(a->max_relative_error),
                     "relative_l2_error", pg_json_real_or_null(a->relative_l2_error),
                     "bad_elements", (json_int_t)a->bad_elements, "nan_or_inf_elements",
                     (json_int_t)a->nan_or_inf_elements, "unwritten_elements",
                     (json_int_t)a->unwritten_elements, "first_bad_index", first, "pass", a->pass);
}

bool pg_stage_correctness(pg_wctx *c)
{
    pg_run *run = c->run;
    const pg_task *t = c->s->task;
    json_t *stage = pg_stage_new("correctness");
    json_array_append_new(json_object_get(c->json, "stages"), stage);
    json_t *det = pg_stage_details(stage);
    pg_progress(run, c->s, c->w->name, "correctness", NULL, NULL);
    double t0 = pg_now_s();
    pg_dtype odt = t->tensors[c->c].dtype;
    const pg_tolerance *tol = pg_task_tolerance(t, odt);
    size_t count = (size_t)c->plan->tensor_elements[c->c];
    pg_buffer *ref = NULL;
    void *host_out = malloc(count * pg_dtype_size(odt) + 1);
    void *host_out2 = malloc(count * pg_dtype_size(odt) + 1);
    float *host_ref = malloc(count * sizeof(float) + 1);
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = host_out && host_out2 && host_ref
                       ? pg_buffer_alloc(run->dev, count * sizeof(float), &ref, &d)
                       : pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    long long differ = -1; /* output elements that differed between two runs of set 1 */
    json_object_set_new(det, "tolerance", json_pack("{s:f, s:f, s:f}", "atol", tol->atol, "rtol",
                                                    tol->rtol, "max_rel_l2", tol->max_rel_l2));
    json_t *sets = json_array();
    json_object_set_new(det, "sets", sets);
    double max_abs = 0, max_rel = 0, max_l2 = 0;
    long long bad = 0, nonfinite = 0, unwritten = 0;
    int passed_sets = 0;
    char per_set[256] = "";
    size_t per_set_len = 0;
    char violations[1024] = "";
    size_t vused = 0;
    for (int set = 0; st == PG_OK && set < run->o->correctness_sets; set++) {
        uint64_t seed = pg_set_seed(run->o->seed, c->s->workloads[c->index], set);
        pg_accuracy acc;
        char violation[768] = "";
        /* Determinism: set 1 runs twice on identical inputs. */
        st = run_set(c, seed, ref, host_out, host_ref, &acc, violation, sizeof violation,
                     set == 0 ? host_out2 : NULL, &differ, &d);
        if (st != PG_OK)
            break;
        json_t *sj = set_json(seed, t->tensors[c->c].name, &acc, pg_workload_symbol(t, c->w, "N"));
        if (violation[0]) {
            /* Memory outside the output was written: the set fails whatever its numbers. */
            acc.pass = false;
            json_object_set_new(sj, "pass", json_false());
            json_object_set_new(sj, "guard_violation", pg_jstr(violation));
            if (vused < sizeof violations)
                vused += (size_t)snprintf(violations + vused, sizeof violations - vused,
                                          "%sset %d: %s", vused ? "; " : "", set + 1, violation);
        }
        json_array_append_new(sets, sj);
        max_abs = fmax(max_abs, acc.max_absolute_error);
        max_rel = fmax(max_rel, acc.max_relative_error);
        max_l2 = fmax(max_l2, acc.relative_l2_error);
        bad += (long long)acc.bad_elements;
        nonfinite += (long long)acc.nan_or_inf_elements;
        unwritten += (long long)acc.unwritten_elements;
        passed_sets += acc.pass;
        per_set_len += (size_t)snprintf(per_set + per_set_len, sizeof per_set - per_set_len,
                                        "%s%zu", set ? ", " : "", acc.bad_elements);
        if (per_set_len >= sizeof per_set)
            per_set_len = sizeof per_set - 1;
    }
    json_object_set_new(det, "max_absolute_error", json_real(max_abs));
    json_object_set_new(det, "max_relative_error", json_real(max_rel));
    json_object_set_new(det, "relative_l2_error", pg_json_real_or_null(max_l2));
    json_object_set_new(det, "bad_elements", json_integer(bad));
    json_object_set_new(det, "nan_or_inf_elements", json_integer(nonfinite));
    json_object_set_new(det, "unwritten_elements", json_integer(unwritten));
    json_object_set_new(det, "guard_violations", pg_jstr(violations));
    json_object_set_new(det, "deterministic", differ < 0 ? json_null() : json_boolean(differ == 0));
    json_object_set_new(det, "nondeterministic_elements",
                        differ < 0 ? json_null() : json_integer(differ));
    json_object_set_new(det, "nondeterminism_policy",
                        json_string(t->nondeterminism_fails ? "fail" : "warn"));
    char nondet[320] = "";
    if (differ > 0)
        snprintf(nondet, sizeof nondet,
                 "NONDETERMINISTIC: %lld of %zu output elements differed bitwise between two runs "
                 "on identical inputs (set 1)",
                 differ, count);
    json_object_set_new(det, "addresses", pg_wctx_addresses_json(c));
    json_object_set_new(det, "guards", pg_wctx_guards_json(c));

    const char *ptxbench = "PASSED";
    double dt = pg_now_s() - t0;
    if (st == PG_FAIL_KERNEL) {
        bool timeout = strncmp(d.message, "TIMEOUT", 7) == 0;
        ptxbench = timeout ? "TIMEOUT" : "RUNTIME_ERROR";
        pg_stage_finish(stage, "fail", dt, "kernel failed at run time: %s", d.message);
    } else if (st != PG_OK) {
        char msg[2400];
        ptxbench = "INFRA_ERROR";
        pg_stage_finish(stage, "error", dt, "%s", pg_diag_format(&d, msg, sizeof msg));
    } else if (violations[0]) {
        ptxbench = "INCORRECT_NUMERICAL";
        pg_stage_finish(stage, "fail", dt,
                        "MEMORY GUARD: %s; %d/%d input sets failed: bad elements per set %s of "
                        "%zu (%lld NaN/Inf, %lld unwritten in all)",
                        violations, run->o->correctness_sets - passed_sets,
                        run->o->correctness_sets, per_set, count, nonfinite, unwritten);
    } else if (passed_sets == run->o->correctness_sets && nondet[0] && t->nondeterminism_fails) {
        ptxbench = "INCORRECT_NUMERICAL";
        pg_stage_finish(stage, "fail", dt,
                        "%s (task policy: fail); %d/%d input sets within tolerance; max |err| "
                        "%.3g, max rel L2 %.3g",
                        nondet, passed_sets, run->o->correctness_sets, max_abs, max_l2);
    } else if (passed_sets == run->o->correctness_sets) {
        pg_stage_finish(stage, "pass", dt,
                        "%d/%d input sets within tolerance; max |err| %.3g, max rel L2 %.3g%s%s%s",
                        passed_sets, run->o->correctness_sets, max_abs, max_l2,
                        nondet[0] ? "; warning: " : "", nondet,
                        nondet[0] ? " (task policy: warn)" : "");
    } else {
        ptxbench = "INCORRECT_NUMERICAL";
        pg_stage_finish(stage, "fail", dt,
                        "%d/%d input sets failed: bad elements per set %s of %zu (%lld NaN/Inf, "
                        "%lld unwritten in all); max |err| %.3g, max rel L2 %.3g (limit %.3g)",
                        run->o->correctness_sets - passed_sets, run->o->correctness_sets, per_set,
                        count, nonfinite, unwritten, max_abs, max_l2, tol->max_rel_l2);
    }
    json_object_set_new(c->json, "status", json_string(ptxbench));
    if (st == PG_OK) {
        json_object_set_new(c->json, "max_absolute_error", json_real(max_abs));
        json_object_set_new(c->json, "max_relative_error", json_real(max_rel));
    }
    if (ref)
        pg_buffer_free(ref);
    free(host_out);
    free(host_out2);
    free(host_ref);
    pg_progress(run, c->s, c->w->name, "correctness", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
