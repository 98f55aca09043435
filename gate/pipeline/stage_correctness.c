/* The correctness stage: several fresh input sets from recorded seeds (N(0,1) cast to the dtype,
 * never zeros; attention backward inputs O and LSE from the reference forward), outputs poisoned
 * with 0xFF bytes so unwritten elements are counted, ptxgate's own fp32 reference, and the
 * tolerance comparator per output, each output with its own tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/accuracy.h"
#include "internal.h"

/* Seed of input set `set` of workload `wl`; tensor i uses seed + i. Documented in
 * docs/correctness.md so a failing set can be replayed. */
static uint64_t set_seed(uint64_t base, int wl, int set)
{
    return base + 1000003ull * (uint64_t)wl + 7919ull * (uint64_t)set;
}

/* The outputs of the task and what the stage accumulates for each over the sets. */
typedef struct {
    int tensor;
    const pg_tolerance *tol;
    pg_buffer *ref;
    double max_abs, max_rel, max_l2;
    long long bad, nonfinite, unwritten;
    int passed_sets;
    char per_set[256]; /* bad elements per set: "0, 12, 0" */
    size_t per_set_len;
} output_acc;

typedef struct {
    output_acc out[PG_MAX_TENSORS];
    int n;
    void *host_out;  /* largest output, in its dtype */
    float *host_ref; /* largest output, fp32 */
} outputs;

/* Run one input set: inputs, poisoned outputs, the kernel, the reference, and the comparison
 * of every output into acc[]. Returns PG_OK, PG_FAIL_KERNEL (kernel fault, message in d) or an
 * infrastructure error. */
static pg_status run_set(pg_wctx *c, uint64_t seed, outputs *o, pg_accuracy *acc, pg_diag *d)
{
    const pg_task *t = c->s->task;
    pg_device *dev = c->run->dev;
    pg_status st = pg_refrun_fill_inputs(c, seed, d);
    for (int i = 0; i < o->n && st == PG_OK; i++)
        st = pg_buffer_fill_poison(c->tensors[o->out[i].tensor], d);
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(c, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;

    st = pg_wctx_enqueue(c, d);
    if (st == PG_OK)
        st = pg_device_sync(dev, c->run->o->timeout_s, d);
    if (st != PG_OK)
        return st;

    pg_buffer *refs[PG_MAX_TENSORS] = {NULL};
    for (int i = 0; i < o->n; i++)
        refs[o->out[i].tensor] = o->out[i].ref;
    st = pg_refrun_outputs(c, refs, d);
    if (st != PG_OK)
        return st == PG_FAIL_KERNEL ? PG_ERR_INFRA : st;

    for (int i = 0; i < o->n && st == PG_OK; i++) {
        int ti = o->out[i].tensor;
        size_t count = (size_t)c->plan->tensor_elements[ti];
        pg_dtype odt = t->tensors[ti].dtype;
        st = pg_buffer_download(c->tensors[ti], o->host_out, count * pg_dtype_size(odt), d);
        if (st == PG_OK)
            st = pg_buffer_download(o->out[i].ref, o->host_ref, count * sizeof(float), d);
        if (st != PG_OK)
            break;
        const pg_tolerance *tol = o->out[i].tol;
        pg_accuracy_tolerance at = {tol->atol, tol->rtol, tol->max_rel_l2};
        pg_accuracy_compare(o->host_out, odt, o->host_ref, count, &at, &acc[i]);
    }
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

/* Allocate the reference buffers and the host buffers (sized for the largest output). */
static pg_status setup(pg_wctx *c, outputs *o, pg_diag *d)
{
    const pg_task *t = c->s->task;
    size_t max_out = 1, max_ref = 1;
    for (int i = 0; i < t->n_tensors; i++) {
        if (!t->tensors[i].is_output)
            continue;
        output_acc *a = &o->out[o->n++];
        a->tensor = i;
        a->tol = pg_task_output_tolerance(t, i);
        size_t count = (size_t)c->plan->tensor_elements[i];
        if (count * pg_dtype_size(t->tensors[i].dtype) > max_out)
            max_out = count * pg_dtype_size(t->tensors[i].dtype);
        if (count * sizeof(float) > max_ref)
            max_ref = count * sizeof(float);
        pg_status st = pg_buffer_alloc(c->run->dev, count * sizeof(float), &a->ref, d);
        if (st != PG_OK)
            return st;
    }
    o->host_out = malloc(max_out);
    o->host_ref = malloc(max_ref);
    if (!o->host_out || !o->host_ref)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    return PG_OK;
}

static void release(outputs *o)
{
    for (int i = 0; i < o->n; i++)
        if (o->out[i].ref)
            pg_buffer_free(o->out[i].ref);
    free(o->host_out);
    free(o->host_ref);
}

/* One output's numbers for a multi-output message: "O max |err| 0.0012, rel L2 1.5e-03". */
static size_t output_summary(const pg_task *t, const output_acc *a, char *buf, size_t n)
{
    return (size_t)snprintf(buf, n, "%s max |err| %.3g, rel L2 %.3g", t->tensors[a->tensor].name,
                            a->max_abs, a->max_l2);
}

static void finish_message(pg_wctx *c, json_t *stage, const outputs *o, int sets, int passed,
                           double dt, double max_abs, double max_l2, long long nonfinite,
                           long long unwritten)
{
    const pg_task *t = c->s->task;
    char msg[2048];
    size_t used = 0;
    if (o->n == 1) {
        /* One output: the message of the GEMM tasks, unchanged. */
        const output_acc *a = &o->out[0];
        if (passed == sets)
            pg_stage_finish(stage, "pass", dt,
                            "%d/%d input sets within tolerance; max |err| %.3g, max rel L2 %.3g",
                            passed, sets, max_abs, max_l2);
        else
            pg_stage_finish(stage, "fail", dt,
                            "%d/%d input sets failed: bad elements per set %s of %zu (%lld "
                            "NaN/Inf, %lld unwritten in all); max |err| %.3g, max rel L2 %.3g "
                            "(limit %.3g)",
                            sets - passed, sets, a->per_set,
                            (size_t)c->plan->tensor_elements[a->tensor], nonfinite, unwritten,
                            max_abs, max_l2, a->tol->max_rel_l2);
        return;
    }
    if (passed == sets) {
        used = (size_t)snprintf(msg, sizeof msg, "%d/%d input sets within tolerance; ", passed,
                                sets);
        for (int i = 0; i < o->n && used < sizeof msg; i++) {
            if (i)
                used += (size_t)snprintf(msg + used, sizeof msg - used, "; ");
            if (used < sizeof msg)
                used += output_summary(t, &o->out[i], msg + used, sizeof msg - used);
        }
        pg_stage_finish(stage, "pass", dt, "%s", msg);
        return;
    }
    used = (size_t)snprintf(msg, sizeof msg, "%d/%d input sets failed", sets - passed, sets);
    for (int i = 0; i < o->n && used < sizeof msg; i++) {
        const output_acc *a = &o->out[i];
        used += (size_t)snprintf(msg + used, sizeof msg - used,
                                 "%s %s: bad elements per set %s of %zu (%lld NaN/Inf, %lld "
                                 "unwritten), max |err| %.3g, max rel L2 %.3g (limit %.3g)",
                                 i ? ";" : ":", t->tensors[a->tensor].name, a->per_set,
                                 (size_t)c->plan->tensor_elements[a->tensor], a->nonfinite,
                                 a->unwritten, a->max_abs, a->max_l2, a->tol->max_rel_l2);
    }
    pg_stage_finish(stage, "fail", dt, "%s", msg);
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
    outputs o;
    memset(&o, 0, sizeof o);
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = setup(c, &o, &d);

    /* One "tolerance" when every output has the same (the GEMM tasks); per output always. */
    bool same_tol = true;
    for (int i = 1; i < o.n; i++)
        same_tol &= memcmp(o.out[i].tol, o.out[0].tol, sizeof *o.out[0].tol) == 0;
    if (o.n > 0 && same_tol)
        json_object_set_new(det, "tolerance", tolerance_json(o.out[0].tol));
    json_t *sets = json_array();
    json_object_set_new(det, "sets", sets);
    int passed_sets = 0, n_sets = run->o->correctness_sets;
    for (int set = 0; st == PG_OK && set < n_sets; set++) {
        uint64_t seed = set_seed(run->o->seed, c->s->workloads[c->index], set);
        pg_accuracy acc[PG_MAX_TENSORS];
        st = run_set(c, seed, &o, acc, &d);
        if (st != PG_OK)
            break;
        bool all = true;
        for (int i = 0; i < o.n; i++) {
            json_array_append_new(sets, set_json(c, seed, o.out[i].tensor, &acc[i]));
            accumulate(&o.out[i], &acc[i], set);
            all &= acc[i].pass;
        }
        passed_sets += all;
    }

    double max_abs = 0, max_rel = 0, max_l2 = 0;
    long long bad = 0, nonfinite = 0, unwritten = 0;
    json_t *per_output = json_object();
    for (int i = 0; i < o.n; i++) {
        const output_acc *a = &o.out[i];
        max_abs = fmax(max_abs, a->max_abs);
        max_rel = fmax(max_rel, a->max_rel);
        max_l2 = fmax(max_l2, a->max_l2);
        bad += a->bad;
        nonfinite += a->nonfinite;
        unwritten += a->unwritten;
        json_object_set_new(
            per_output, t->tensors[a->tensor].name,
            json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:i}", "tolerance",
                      tolerance_json(a->tol), "max_absolute_error", json_real(a->max_abs),
                      "max_relative_error", json_real(a->max_rel), "relative_l2_error",
                      pg_json_real_or_null(a->max_l2), "bad_elements", (json_int_t)a->bad,
                      "nan_or_inf_elements", (json_int_t)a->nonfinite, "unwritten_elements",
                      (json_int_t)a->unwritten, "passed_sets", a->passed_sets));
    }
    json_object_set_new(det, "outputs", per_output);
    json_object_set_new(det, "max_absolute_error", json_real(max_abs));
    json_object_set_new(det, "max_relative_error", json_real(max_rel));
    json_object_set_new(det, "relative_l2_error", pg_json_real_or_null(max_l2));
    json_object_set_new(det, "bad_elements", json_integer(bad));
    json_object_set_new(det, "nan_or_inf_elements", json_integer(nonfinite));
    json_object_set_new(det, "unwritten_elements", json_integer(unwritten));

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
        if (passed_sets != n_sets)
            ptxbench = "INCORRECT_NUMERICAL";
        finish_message(c, stage, &o, n_sets, passed_sets, dt, max_abs, max_l2, nonfinite,
                       unwritten);
    }
    json_object_set_new(c->json, "status", json_string(ptxbench));
    if (st == PG_OK) {
        json_object_set_new(c->json, "max_absolute_error", json_real(max_abs));
        json_object_set_new(c->json, "max_relative_error", json_real(max_rel));
    }
    release(&o);
    pg_progress(run, c->s, c->w->name, "correctness", pg_stage_status(stage),
                json_string_value(json_object_get(stage, "message")));
    return strcmp(pg_stage_status(stage), "pass") == 0;
}
