/* The performance stage's measurement (see perf_measure.h): the candidate, the vendor baseline,
 * the baseline again as an A/A canary and, when the task has one, its accepted kernel are timed
 * in randomized interleaved blocks after a heat soak (arms: perf_arms.c, cold or sustained;
 * blocks: blocks.c); the per-block log ratios go to the stop rule at group-sequential looks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf_measure.h"
#include "results_json.h"

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

/* Energy per launch per distinct arm (issue 4 item 4), after the blocks: the canary is the
 * baseline's own work. */
static void measure_energy(pg_perf_measured *m, const pg_perf_stage_settings *s)
{
    for (int a = 0; a < m->n_arms; a++) {
        if (a == PG_ARM_CANARY)
            continue;
        pg_arm_energy *e = &m->energy[a];
        pg_diag d;
        pg_diag_clear(&d);
        memset(e, 0, sizeof *e);
        const char *why = !s->energy ? "disabled by --no-energy"
                          : pg_perf_arm_energy(m->arms, a, PG_ENERGY_WINDOW_S, s->timeout_s, e,
                                               &d) != PG_OK
                              ? d.message
                              : "NVML energy counter unavailable or did not move";
        snprintf(m->energy_why[a], sizeof m->energy_why[a], "%s", why);
    }
}

/* The blocks at the looks of k.main, stopping where pg_perf_look says. At most 10 % of the
 * last look's blocks are re-run when flagged (issue 4). CUPTI's per-kernel records are left out
 * of sustained graphs: thousands per graph, and the graph time is already an average over its
 * launches. */
static pg_status run_blocks(pg_run *run, const pg_perf_stage_settings *s, pg_perf_measured *m)
{
    pg_perf_arms *p = m->arms;
    pg_block_plan bp = {.arms = p ? p->arms : NULL, .n_arms = (size_t)m->n_arms,
                        .warmup = m->warmup, .reps = m->reps, .seed = m->k.main.seed,
                        .timeout_s = s->timeout_s, .cupti = !s->sustained, .watch = true,
                        .no_flush = s->sustained, .max_reruns = PG_BLOCK_MAX_BLOCKS / 10};
    pg_block_data_init(&m->data);
    pg_status st = m->status;
    for (int look = 0; st == PG_OK && look < m->k.main.n_looks; look++) {
        int last = m->k.main.looks[look];
        st = pg_blocks_run(run->dev, &bp, m->blocks, last, m->block_ms, m->all_ms, &m->data,
                           &m->diag);
        if (st != PG_OK)
            break;
        per_launch(p, m->blocks, last, m->reps, m->block_ms, m->all_ms);
        m->blocks = last;
        log_ratios(m->block_ms, PG_ARM_CAND, PG_ARM_BASE, m->blocks, m->d_main);
        log_ratios(m->block_ms, PG_ARM_CANARY, PG_ARM_BASE, m->blocks, m->d_canary);
        if (s->with_accepted)
            log_ratios(m->block_ms, PG_ARM_CAND, PG_ARM_ACCEPTED, m->blocks, m->d_reg);
        if (pg_perf_look(&m->k, m->d_main, m->d_canary, s->with_accepted ? m->d_reg : NULL,
                         (size_t)m->blocks, look, &m->cmp))
            break;
    }
    return st;
}

/* The decision's view of the measurement (pointers into m). */
static void fill_view(const pg_wctx *c, const pg_perf_stage_settings *s, pg_perf_measured *m)
{
    const pg_submission *sub = c->s;
    const pg_task *t = sub->task;
    pg_perf_measurement *v = &m->view;
    memset(v, 0, sizeof *v);
    v->completed = m->status == PG_OK;
    v->kernel_failed = m->status == PG_FAIL_KERNEL;
    v->failure = &m->diag;
    v->mode = s->mode;
    v->vendor_label = m->vendor_label;
    v->blocks = m->blocks;
    size_t arm_stride = (size_t)PG_BLOCK_MAX_BLOCKS * (size_t)m->reps;
    if (m->all_ms) {
        v->candidate_ms = m->all_ms + (size_t)PG_ARM_CAND * arm_stride;
        v->baseline_ms = m->all_ms + (size_t)PG_ARM_BASE * arm_stride;
        if (s->with_accepted)
            v->accepted_ms = m->all_ms + (size_t)PG_ARM_ACCEPTED * arm_stride;
    }
    v->n_samples = (size_t)m->blocks * (size_t)m->reps;
    v->d_main = m->d_main;
    v->cmp = m->cmp;
    v->other_processes = m->data.other_processes;
    v->flop = c->plan->flop;
    double bytes = 0;
    for (int i = 0; i < t->n_tensors; i++)
        bytes += (double)c->plan->tensor_elements[i] * (double)pg_dtype_size(t->tensors[i].dtype);
    v->bytes = bytes;
    v->peak_tflops = c->run->peak_tflops;
    v->peak_write_gbps = c->run->peak_write_gbps;
    /* Without a vendor arm the accepted kernel is the baseline arm: main is that comparison */
    v->has_accepted = sub->accepted.kernel != NULL && !s->decide.reference_is_accepted;
    v->accepted_timed = s->with_accepted;
    v->accepted_identical = sub->accepted.identical;
    v->accepted_identical_text = pg_accepted_identical_text(sub);
    v->accepted_note = sub->accepted.note;
}

/* One launch per arm (the probe), the launches per block it implies, and the heat soak. */
static pg_status probe_and_soak(pg_wctx *c, const pg_perf_stage_settings *s, pg_perf_measured *m,
                                pg_status st)
{
    pg_run *run = c->run;
    pg_perf_arms *p = m->arms;
    double tp = pg_now_s();
    if (st == PG_OK)
        st = pg_device_time(run->dev, p->arms, (size_t)m->n_arms, 1, 1, !s->sustained,
                            s->timeout_s, m->probe_ms, &m->diag);
    pg_phase_add(c, PG_PHASE_PROBE, tp);
    if (st != PG_OK)
        return st;
    double slowest = 0;
    for (int a = 0; a < m->n_arms; a++)
        slowest = fmax(slowest, m->probe_ms[a]);
    choose_reps(slowest, s->max_warmup, s->max_reps, &m->warmup, &m->reps);
    for (int a = 0; a < m->n_arms; a++)
        m->probe_ms[a] /= p->launches[a];
    tp = pg_now_s();
    double since_warm = run->gpu_warm_t > 0 ? pg_now_s() - run->gpu_warm_t : INFINITY;
    st = pg_heat_soak(run->dev, p->arms, (size_t)m->n_arms, s->timeout_s, since_warm, &m->soak,
                      &m->diag);
    pg_phase_add(c, PG_PHASE_SOAK, tp);
    return st;
}

/* The blocks' arrays (allocated whatever st, as the record of a failure reads none). */
static pg_status alloc_blocks(const pg_perf_stage_settings *s, pg_perf_measured *m, pg_status st)
{
    m->block_ms = calloc((size_t)PG_PERF_MAX_ARMS * PG_BLOCK_MAX_BLOCKS, sizeof *m->block_ms);
    m->all_ms = calloc((size_t)PG_PERF_MAX_ARMS * PG_BLOCK_MAX_BLOCKS * (size_t)s->max_reps,
                       sizeof *m->all_ms);
    m->d_main = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *m->d_main);
    m->d_canary = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *m->d_canary);
    m->d_reg = calloc(PG_BLOCK_MAX_BLOCKS, sizeof *m->d_reg);
    if (st == PG_OK && (!m->block_ms || !m->all_ms || !m->d_main || !m->d_canary || !m->d_reg))
        st = pg_diag_set(&m->diag, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    return st;
}

void pg_perf_measure(pg_wctx *c, pg_perf_stage_settings *s, double t0, pg_perf_measured *m)
{
    pg_run *run = c->run;
    memset(m, 0, sizeof *m);
    pg_diag_clear(&m->diag);
    m->warmup = 2;
    m->reps = 1;
    for (int a = 0; a < PG_PERF_MAX_ARMS; a++)
        m->probe_ms[a] = NAN;

    pg_phases_reset(c);
    double tp = pg_now_s();
    pg_perf_arms *p = m->arms = calloc(1, sizeof *p);
    pg_status st = p ? pg_perf_arms_setup(p, c, s->sustained, s->with_accepted, s->timeout_s,
                                          &m->diag)
                     : pg_diag_set(&m->diag, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_phase_add(c, PG_PHASE_ARMS, tp);
    m->n_arms = p ? p->n_arms : 0;
    m->vendor_label = pg_vendor_label(p ? p->baseline : NULL);
    if (p && p->reference_is_accepted) {
        s->with_accepted = false;
        s->decide.reference_is_accepted = true;
        m->vendor_label = "the accepted kernel";
    }
    st = probe_and_soak(c, s, m, st);
    pg_perf_configure(&s->decide, m->probe_ms[PG_ARM_BASE], m->probe_ms[PG_ARM_ACCEPTED], &m->k);
    m->status = alloc_blocks(s, m, st);
    tp = pg_now_s();
    st = m->status = run_blocks(run, s, m);
    pg_phase_add(c, PG_PHASE_BLOCKS, tp);
    if (st == PG_OK)
        run->gpu_warm_t = pg_now_s();
    m->decision_s = pg_now_s() - t0;

    if (st == PG_OK) {
        pg_diag pd;
        tp = pg_now_s();
        pg_run_measure_peaks(run, &pd);
        pg_phase_add(c, PG_PHASE_PEAKS, tp);
        double e0 = pg_now_s();
        measure_energy(m, s);
        m->energy_s = pg_now_s() - e0;
    }
    fill_view(c, s, m);
}

void pg_perf_measured_release(pg_perf_measured *m)
{
    free(m->block_ms);
    free(m->all_ms);
    free(m->d_main);
    free(m->d_canary);
    free(m->d_reg);
    if (m->arms)
        pg_perf_arms_release(m->arms);
    free(m->arms);
    memset(m, 0, sizeof *m);
}
