/* The correctness stage: several fresh input sets from recorded seeds (N(0,1) cast to the dtype,
 * never zeros; attention backward inputs O and LSE from the reference forward), outputs poisoned
 * with 0xFF bytes so unwritten elements are counted, ptxgate's own fp32 reference, and the
 * tolerance comparator per output, each output with its own tolerance; after every launch the
 * guards (canaries around every buffer, input checksums) must be intact, and the first set runs
 * twice to compare the outputs bitwise (determinism). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/accuracy.h"
#include "reference_run.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"

/* Tensor i uses seed + i. Documented in docs/correctness.md so a failing set can be
 * replayed. */
uint64_t pg_set_seed(uint64_t base, int wl, int set)
{
    return base + 1000003ull * (uint64_t)wl + 7919ull * (uint64_t)set;
}

/* What the stage accumulates for each output over the sets (indexed as pg_outputs). */
typedef struct {
    double max_abs, max_rel, max_l2;
    long long bad, nonfinite, unwritten;
    int passed_sets;
    char per_set[256]; /* bad elements per set: "0, 12, 0" */
    size_t per_set_len;
} output_acc;

pg_status pg_outputs_compare(pg_wctx *c, pg_outputs *o, pg_accuracy *acc, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_buffer *refs[PG_MAX_TENSORS] = {NULL};
    for (int i = 0; i < o->n; i++)
        refs[o->tensor[i]] = o->ref[i];
    double t0 = pg_now_s();
    pg_status st = pg_refrun_outputs(c, refs, d);
    pg_phase_add(c, PG_PHASE_REFERENCE, t0);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;
    for (int i = 0; i < o->n && st == PG_OK; i++) {
        int ti = o->tensor[i];
        size_t count = (size_t)c->plan->tensor_elements[ti];
        const pg_tolerance *tol = o->tol[i];
        pg_accuracy_tolerance at = {tol->atol, tol->rtol, tol->max_rel_l2};
        pg_accuracy_sums sums;
        t0 = pg_now_s();
        st = pg_buffer_compare_accuracy(c->tensors[ti], t->tensors[ti].dtype, o->ref[i], count,
                                        tol->atol, tol->rtol, &sums, d);
        pg_phase_add(c, PG_PHASE_COMPARE, t0);
        if (st == PG_OK)
            pg_accuracy_from_sums(&sums, count, &at, &acc[i]);
    }
    return st;
}

/* The first run's outputs of the determinism check: a device copy per output, and the copy's
 * checksum, checked again after the second run (a launch that wrote into the copy is a guard
 * violation, not a way to look deterministic). */
typedef struct {
    pg_buffer *copy[PG_MAX_TENSORS];
    uint64_t sum[PG_MAX_TENSORS];
} first_run;

static void first_run_free(first_run *f)
{
    for (int i = 0; i < PG_MAX_TENSORS; i++)
        if (f->copy[i])
            pg_buffer_free(f->copy[i]);
}

static size_t output_bytes(const pg_wctx *c, int tensor)
{
    return (size_t)c->plan->tensor_elements[tensor] *
           pg_dtype_size(c->s->task->tensors[tensor].dtype);
}

/* Keep a device copy of every output of the run just done, with its checksum. */
static pg_status keep_first_run(pg_wctx *c, const pg_outputs *o, first_run *f, pg_diag *d)
{
    pg_status st = PG_OK;
    double t0 = pg_now_s();
    for (int i = 0; i < o->n && st == PG_OK; i++) {
        size_t bytes = output_bytes(c, o->tensor[i]);
        st = pg_buffer_alloc(c->run->dev, bytes ? bytes : 1, &f->copy[i], d);
        if (st == PG_OK)
            st = pg_buffer_copy(f->copy[i], c->tensors[o->tensor[i]], bytes, d);
        if (st == PG_OK)
            st = pg_buffer_checksum(f->copy[i], &f->sum[i], d);
    }
    pg_phase_add(c, PG_PHASE_COMPARE, t0);
    return st;
}

/* Launch again on the inputs of the set just run (outputs poisoned, workspaces re-initialized)
 * and count the output elements that differ bitwise from the first run's, over all outputs. */
static pg_status run_again(pg_wctx *c, pg_outputs *o, const first_run *f, long long *differ,
                           char *violation, size_t vlen, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_status st = pg_wctx_prepare_launch(c, d);
    if (st == PG_OK)
        st = pg_wctx_run_once(c, d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, vlen, d);
    long long n = 0;
    double t0 = pg_now_s();
    for (int i = 0; i < o->n && st == PG_OK; i++) {
        int ti = o->tensor[i];
        uint64_t differing = 0, sum = 0;
        st = pg_buffer_count_differences(f->copy[i], c->tensors[ti],
                                         (size_t)c->plan->tensor_elements[ti],
                                         pg_dtype_size(t->tensors[ti].dtype), &differing, d);
        if (st == PG_OK)
            st = pg_buffer_checksum(f->copy[i], &sum, d);
        if (st == PG_OK && sum != f->sum[i]) {
            size_t used = strlen(violation);
            snprintf(violation + used, vlen - used,
                     "%sthe second run wrote into ptxgate's copy of the first run's output %s",
                     used ? "; " : "", t->tensors[ti].name);
        }
        n += (long long)differing;
    }
    pg_phase_add(c, PG_PHASE_COMPARE, t0);
    if (st == PG_OK)
        *differ = n;
    return st;
}

/* Run one input set: inputs (checksummed), poisoned outputs, the kernel, the guards (canaries,
 * input checksums: what they saw into `violation`, "" when nothing), the reference, and the
 * comparison of every output into acc[]. With f, the first run's outputs are kept there and the
 * set is launched a second time on the same inputs; *differ counts the output elements that
 * changed bitwise. Returns PG_OK, PG_FAIL_KERNEL (kernel fault, message in d) or an
 * infrastructure error. */
static pg_status run_set(pg_wctx *c, uint64_t seed, pg_outputs *o, pg_accuracy *acc,
                         char *violation, size_t vlen, first_run *f, long long *differ,
                         pg_diag *d)
{
    pg_device *dev = c->run->dev;
    pg_status st = pg_wctx_fill_inputs(c, seed, d);
    if (st == PG_OK)
        st = pg_wctx_prepare_launch(c, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;

    st = pg_wctx_run_once(c, d);
    if (st == PG_OK)
        st = pg_wctx_check_guards(c, violation, vlen, d);
    if (st == PG_OK && f)
        st = keep_first_run(c, o, f, d);
    if (st == PG_OK)
        st = pg_outputs_compare(c, o, acc, d);
    /* A guard violation makes "the same inputs" untrue: no second run then. */
    if (st == PG_OK && f && !violation[0])
        st = run_again(c, o, f, differ, violation, vlen, d);
    return st;
}

/* The tensor's multi-dimensional index of linear index `i` (row-major), e.g. [row, col]. */
static json_t *index_json(const pg_wctx *c, int tensor, long long i)
{
    const pg_task *t = c->s->task;
    const pg_tensor_spec *ts = &t->tensors[tensor];
    json_int_t idx[PG_MAX_DIMS];
    for (int k = ts->ndims - 1; k >= 0; k--) {
        int64_t n = pg_workload_symbol(t, c->w, ts->dims[k]);
        idx[k] = (json_int_t)(n > 0 ? i % n : 0);
        i = n > 0 ? i / n : 0;
    }
    json_t *a = json_array();
    for (int k = 0; k < ts->ndims; k++)
        json_array_append_new(a, json_integer(idx[k]));
    return a;
}

static json_t *set_json(const pg_wctx *c, uint64_t seed, int tensor, const pg_accuracy *a)
{
    json_t *first = a->first_bad_index >= 0 ? index_json(c, tensor, a->first_bad_index)
                                            : json_null();
    return json_pack("{s:I, s:s, s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:b}", "seed",
                     (json_int_t)seed, "output", c->s->task->tensors[tensor].name, "elements",
                     (json_int_t)a->elements, "max_absolute_error",
                     pg_json_real_or_null(a->max_absolute_error), "max_relative_error",
                     pg_json_real_or_null(a->max_relative_error), "relative_l2_error",
                     pg_json_real_or_null(a->relative_l2_error), "bad_elements",
                     (json_int_t)a->bad_elements, "nan_or_inf_elements",
                     (json_int_t)a->nan_or_inf_elements, "unwritten_elements",
                     (json_int_t)a->unwritten_elements, "first_bad_index", first, "pass", a->pass);
}

static json_t *tolerance_json(const pg_tolerance *tol)
{
    return json_pack("{s:f, s:f, s:f}", "atol", tol->atol, "rtol", tol->rtol, "max_rel_l2",
                     tol->max_rel_l2);
}

static void accumulate(output_acc *o, const pg_accuracy *a, int set)
{
    o->max_abs = fmax(o->max_abs, a->max_absolute_error);
    o->max_rel = fmax(o->max_rel, a->max_relative_error);
    o->max_l2 = fmax(o->max_l2, a->relative_l2_error);
    o->bad += (long long)a->bad_elements;
    o->nonfinite += (long long)a->nan_or_inf_elements;
    o->unwritten += (long long)a->unwritten_elements;
    o->passed_sets += a->pass;
    o->per_set_len += (size_t)snprintf(o->per_set + o->per_set_len,
                                       sizeof o->per_set - o->per_set_len, "%s%zu",
                                       set ? ", " : "", a->bad_elements);
    if (o->per_set_len >= sizeof o->per_set)
        o->per_set_len = sizeof o->per_set - 1;
}

pg_status pg_outputs_setup(pg_wctx *c, pg_outputs *o, pg_diag *d)
{
    const pg_task *t = c->s->task;
    memset(o, 0, sizeof *o);
    for (int i = 0; i < t->n_tensors; i++) {
        if (!t->tensors[i].is_output)
            continue;
        int k = o->n++;
        o->tensor[k] = i;
        o->tol[k] = pg_task_output_tolerance(t, i);
        size_t count = (size_t)c->plan->tensor_elements[i];
        pg_status st = pg_buffer_alloc(c->run->dev, count ? count * sizeof(float) : 1,
                                       &o->ref[k], d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

void pg_outputs_release(pg_outputs *o)
{
    for (int i = 0; i < o->n; i++)
        if (o->ref[i])
            pg_buffer_free(o->ref[i]);
    memset(o, 0, sizeof *o);
}

/* One output's numbers for a multi-output message: "O max |err| 0.0012, rel L2 1.5e-03". */
static size_t output_summary(const pg_task *t, const pg_outputs *o, const output_acc *a, int i,
                             char *buf, size_t n)
{
    return (size_t)snprintf(buf, n, "%s max |err| %.3g, rel L2 %.3g", t->tensors[o->tensor[i]].name,
                            a[i].max_abs, a[i].max_l2);
}

/* What the sets showed besides the numbers: guard violations ("" when none) and the
 * determinism check ("" when deterministic or not run). */
typedef struct {
    const char *violations;
    const char *nondet;
    bool nondet_fails;
} findings;

/* "N/M input sets within tolerance; <numbers>" into msg. */
static void pass_text(const pg_wctx *c, const pg_outputs *o, const output_acc *a, int sets,
                      int passed, double max_abs, double max_l2, char *msg, size_t n)
{
    const pg_task *t = c->s->task;
    size_t used;
    if (o->n == 1) {
        /* One output: the message of the GEMM tasks, unchanged. */
        snprintf(msg, n, "%d/%d input sets within tolerance; max |err| %.3g, max rel L2 %.3g",
                 passed, sets, max_abs, max_l2);
        return;
    }
    used = (size_t)snprintf(msg, n, "%d/%d input sets within tolerance; ", passed, sets);
    for (int i = 0; i < o->n && used < n; i++) {
        if (i)
            used += (size_t)snprintf(msg + used, n - used, "; ");
        if (used < n)
            used += output_summary(t, o, a, i, msg + used, n - used);
    }
}

static void finish_message(pg_wctx *c, pg_stage_entry *stage, const pg_outputs *o,
                           const output_acc *a, int sets, int passed, double dt, double max_abs,
                           double max_l2, long long nonfinite, long long unwritten,
                           const findings *f)
{
    const pg_task *t = c->s->task;
    char msg[2048], text[1800];
    size_t used = 0;
    if (f->violations[0]) {
        /* Memory outside the outputs was written: the stage fails whatever the numbers. */
        if (o->n == 1) {
            pg_stage_finish(stage, "fail", dt,
                            "MEMORY GUARD: %s; %d/%d input sets failed: bad elements per set %s "
                            "of %zu (%lld NaN/Inf, %lld unwritten in all)",
                            f->violations, sets - passed, sets, a[0].per_set,
                            (size_t)c->plan->tensor_elements[o->tensor[0]], nonfinite,
                            unwritten);
            return;
        }
        used = (size_t)snprintf(msg, sizeof msg, "MEMORY GUARD: %s; %d/%d input sets failed",
                                f->violations, sets - passed, sets);
        for (int i = 0; i < o->n && used < sizeof msg; i++)
            used += (size_t)snprintf(msg + used, sizeof msg - used,
                                     "%s %s: bad elements per set %s of %zu", i ? ";" : ":",
                                     t->tensors[o->tensor[i]].name, a[i].per_set,
                                     (size_t)c->plan->tensor_elements[o->tensor[i]]);
        pg_stage_finish(stage, "fail", dt, "%s", msg);
        return;
    }
    if (passed == sets) {
        pass_text(c, o, a, sets, passed, max_abs, max_l2, text, sizeof text);
        if (f->nondet[0] && f->nondet_fails)
            pg_stage_finish(stage, "fail", dt, "%s (task policy: fail); %s", f->nondet, text);
        else if (f->nondet[0])
            pg_stage_finish(stage, "pass", dt, "%s; warning: %s (task policy: warn)", text,
                            f->nondet);
        else
            pg_stage_finish(stage, "pass", dt, "%s", text);
        return;
    }
    if (o->n == 1) {
        pg_stage_finish(stage, "fail", dt,
                        "%d/%d input sets failed: bad elements per set %s of %zu (%lld "
                        "NaN/Inf, %lld unwritten in all); max |err| %.3g, max rel L2 %.3g "
                        "(limit %.3g)",
                        sets - passed, sets, a[0].per_set,
                        (size_t)c->plan->tensor_elements[o->tensor[0]], nonfinite, unwritten,
                        max_abs, max_l2, o->tol[0]->max_rel_l2);
        return;
    }
    used = (size_t)snprintf(msg, sizeof msg, "%d/%d input sets failed", sets - passed, sets);
    for (int i = 0; i < o->n && used < sizeof msg; i++)
        used += (size_t)snprintf(msg + used, sizeof msg - used,
                                 "%s %s: bad elements per set %s of %zu (%lld NaN/Inf, %lld "
                                 "unwritten), max |err| %.3g, max rel L2 %.3g (limit %.3g)",
                                 i ? ";" : ":", t->tensors[o->tensor[i]].name, a[i].per_set,
                                 (size_t)c->plan->tensor_elements[o->tensor[i]], a[i].nonfinite,
                                 a[i].unwritten, a[i].max_abs, a[i].max_l2, o->tol[i]->max_rel_l2);
    pg_stage_finish(stage, "fail", dt, "%s", msg);
}

bool pg_stage_correctness(pg_wctx *c)
{
    pg_run *run = c->run;
    const pg_task *t = c->s->task;
    pg_stage_entry *stage =
        pg_stage_begin(run, c->s, &c->wl->stages, c->w->name, PG_STAGE_CORRECTNESS);
    json_t *det = pg_stage_details(stage);
    double t0 = pg_now_s();
    pg_phases_reset(c);
    pg_outputs o;
    output_acc a[PG_MAX_TENSORS];
    memset(a, 0, sizeof a);
    first_run first;
    memset(&first, 0, sizeof first);
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_outputs_setup(c, &o, &d);

    /* One "tolerance" when every output has the same (the GEMM tasks); per output always. */
    bool same_tol = true;
    for (int i = 1; i < o.n; i++)
        same_tol &= memcmp(o.tol[i], o.tol[0], sizeof *o.tol[0]) == 0;
    if (o.n > 0 && same_tol)
        json_object_set_new(det, "tolerance", tolerance_json(o.tol[0]));
    json_t *sets = json_array();
    json_object_set_new(det, "sets", sets);
    int passed_sets = 0, n_sets = run->o->correctness_sets;
    long long differ = -1; /* output elements that differed between two runs of set 1 */
    char violations[1024] = "";
    size_t vused = 0;
    for (int set = 0; st == PG_OK && set < n_sets; set++) {
        uint64_t seed = pg_set_seed(run->o->seed, c->s->workloads[c->index], set);
        pg_accuracy acc[PG_MAX_TENSORS];
        char violation[768] = "";
        /* Determinism: set 1 runs twice on identical inputs. */
        st = run_set(c, seed, &o, acc, violation, sizeof violation, set == 0 ? &first : NULL,
                     &differ, &d);
        if (st != PG_OK)
            break;
        if (violation[0] && vused < sizeof violations)
            vused += (size_t)snprintf(violations + vused, sizeof violations - vused,
                                      "%sset %d: %s", vused ? "; " : "", set + 1, violation);
        bool all = true;
        for (int i = 0; i < o.n; i++) {
            json_t *sj = set_json(c, seed, o.tensor[i], &acc[i]);
            if (violation[0]) {
                /* Memory outside the outputs was written: the set fails whatever its numbers. */
                acc[i].pass = false;
                json_object_set_new(sj, "pass", json_false());
                json_object_set_new(sj, "guard_violation", pg_jstr(violation));
            }
            json_array_append_new(sets, sj);
            accumulate(&a[i], &acc[i], set);
            all &= acc[i].pass;
        }
        passed_sets += all;
    }

    double max_abs = 0, max_rel = 0, max_l2 = 0;
    long long bad = 0, nonfinite = 0, unwritten = 0;
    size_t out_elements = 0;
    json_t *per_output = json_object();
    for (int i = 0; i < o.n; i++) {
        const output_acc *x = &a[i];
        max_abs = fmax(max_abs, x->max_abs);
        max_rel = fmax(max_rel, x->max_rel);
        max_l2 = fmax(max_l2, x->max_l2);
        bad += x->bad;
        nonfinite += x->nonfinite;
        unwritten += x->unwritten;
        out_elements += (size_t)c->plan->tensor_elements[o.tensor[i]];
        json_object_set_new(
            per_output, t->tensors[o.tensor[i]].name,
            json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:i}", "tolerance",
                      tolerance_json(o.tol[i]), "max_absolute_error", json_real(x->max_abs),
                      "max_relative_error", json_real(x->max_rel), "relative_l2_error",
                      pg_json_real_or_null(x->max_l2), "bad_elements", (json_int_t)x->bad,
                      "nan_or_inf_elements", (json_int_t)x->nonfinite, "unwritten_elements",
                      (json_int_t)x->unwritten, "passed_sets", x->passed_sets));
    }
    json_object_set_new(det, "outputs", per_output);
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
                 differ, out_elements);
    json_object_set_new(det, "addresses", pg_wctx_addresses_json(c));
    json_object_set_new(det, "guards", pg_wctx_guards_json(c));
    json_object_set_new(det, "phases_s", pg_phases_json(c));

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
    } else {
        findings f = {violations, nondet, t->nondeterminism_fails};
        finish_message(c, stage, &o, a, n_sets, passed_sets, dt, max_abs, max_l2, nonfinite,
                       unwritten, &f);
        if (strcmp(pg_stage_status(stage), "pass") != 0)
            ptxbench = "INCORRECT_NUMERICAL";
    }
    pg_wl_set_ptxbench(c->wl, ptxbench);
    if (st == PG_OK) {
        json_object_set_new(c->json, "max_absolute_error", json_real(max_abs));
        json_object_set_new(c->json, "max_relative_error", json_real(max_rel));
    }
    first_run_free(&first);
    pg_outputs_release(&o);
    pg_progress(run, c->s, c->w->name, "correctness", pg_stage_status(stage),
                pg_stage_message(stage));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
