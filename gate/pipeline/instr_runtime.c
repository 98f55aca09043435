/* The runtime half of the instructions stage (issue 3, items 4, 5, 9): one verification run per
 * workload, separate from every timing run, that counts with CUPTI's range profiler how often
 * the target instructions' SASS families executed over all of the submission's launches, and
 * how much tensor work they did against the task's required FLOPs (work coverage). The profiler
 * is torn down before the call returns, so the performance stage that follows times without
 * it (tests/gpu/rangeprof_calibration.c checks that). Counts go into the stage through
 * pg_instr_record_runtime; profiling that cannot run is "unknown", never a pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/datadir.h"

#include "model/expr.h"
#include "model/metric_table.h"
#include "stats/instr_counts.h"
#include "instr_stage.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission_stages.h"

/* Work coverage a kernel must reach (issue 3: >= 0.99 of 2·M·N·K for GEMM). */
#define PG_INSTR_MIN_COVERAGE 0.99
#define PG_INSTR_MAX_FAMILIES 16

static pg_status restore_workspaces(void *ctx, pg_diag *d)
{
    return pg_wctx_init_workspaces(ctx, d);
}

/* FLOPs the target instructions must execute: the task's coverage_flops, else its flops. */
static double required_flops(const pg_wctx *c)
{
    const pg_task *t = c->s->task;
    if (!t->coverage_flops[0])
        return c->plan->flop;
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    pg_task_symtab(t, c->w, names, &syms);
    int64_t v = 0;
    return pg_expr_eval(t->coverage_flops, &syms, &v, NULL, 0) == PG_OK ? (double)v
                                                                      : c->plan->flop;
}

/* The metrics folder: $PTXGATE_METRICS_DATA, else ../metrics next to the arch tables the parent
 * resolved (data/arch and data/metrics in the source tree; share/ptxgate/arch and
 * share/ptxgate/metrics installed), else this process's own resolution (gate/base/datadir.h). */
static void metrics_dir(const pg_run *run, char *out, size_t n)
{
    const char *env = getenv("PTXGATE_METRICS_DATA");
    struct stat st;
    char next[4200];
    snprintf(next, sizeof next, "%s/../metrics", run->o->arch_dir ? run->o->arch_dir : "");
    const char *own = pg_data_dir(PG_DATA_METRICS, NULL);
    if (env && env[0])
        snprintf(out, n, "%s", env);
    else if (run->o->arch_dir && stat(next, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out, n, "%s", next);
    else
        snprintf(out, n, "%s", own ? own : "share/ptxgate/metrics (not found)");
}

/* The task's input dtype decides the tensor path (bf16, fp16, tf32, fp8). */
static const char *tensor_path(const pg_task *t)
{
    for (int i = 0; i < t->n_tensors; i++)
        if (!t->tensors[i].is_output)
            return pg_metric_path_for_dtype(pg_dtype_name(t->tensors[i].dtype));
    return NULL;
}

/* Mark every target's runtime "unknown" with the reason; the stage becomes an infrastructure
 * error unless the policy only warns. */
static void record_unknown(pg_instr_stage *st, const char *why)
{
    for (int i = 0; i < st->n_targets; i++) {
        pg_instr_target *t = &st->targets[i];
        pg_instr_target_runtime_clear(t);
        snprintf(t->rt_status, sizeof t->rt_status, "unknown");
        t->rt_has_reason = true;
        snprintf(t->rt_reason, sizeof t->rt_reason, "%s", why);
    }
    char msg[4096];
    snprintf(msg, sizeof msg, "%s; executed counts unknown: %s", st->message, why);
    bool warn = strcmp(st->policy, "warn") == 0;
    if (!(strcmp(st->status, "fail") == 0 || warn))
        snprintf(st->status, sizeof st->status, "error");
    snprintf(st->message, sizeof st->message, "%s", msg);
}

/* Write stage (the record appended for this workload) from st again, keeping its keys where
 * they are. */
static void rewrite(json_t *stage, const pg_instr_stage *st)
{
    json_t *fresh = pg_instr_stage_json(st);
    if (fresh)
        json_object_update(stage, fresh);
    json_decref(fresh);
}

/* Where the verification run's time went (details.runtime.phases_s, docs/results.md): the
 * chip-name query, then pg_rp_times's steps, seconds to 4 decimals. */
static json_t *phases_json(double chip_s, const pg_rp_times *t)
{
    const struct {
        const char *name;
        double s;
    } p[] = {{"chip", chip_s},       {"init", t->init_s}, {"config", t->config_s},
             {"enable", t->enable_s}, {"passes", t->passes_s}, {"read", t->read_s},
             {"teardown", t->teardown_s}};
    json_t *j = json_object();
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        json_object_set_new(j, p[i].name, json_real(round(p[i].s * 1e4) / 1e4));
    return j;
}

void pg_instr_runtime(pg_wctx *c, pg_instr_stage *rec, json_t *stage)
{
    if (!rec || !rec->n_targets || strcmp(rec->policy, "off") == 0)
        return;
    pg_run *run = c->run;
    double t0 = pg_now_s();
    pg_diag d;
    pg_diag_clear(&d);
    char chip[64] = "", dir[4200], why[2400] = "";
    pg_metric_table *table = NULL;
    const char *families[PG_INSTR_MAX_FAMILIES];
    size_t nf = 0;
    /* The distinct SASS families of all targets, in target order. */
    for (int i = 0; i < rec->n_targets; i++) {
        for (int j = 0; j < rec->targets[i].n_sass; j++) {
            const char *name = rec->targets[i].sass_families[j];
            bool seen = false;
            for (size_t k = 0; k < nf; k++)
                seen |= strcmp(families[k], name) == 0;
            if (name && !seen && nf < PG_INSTR_MAX_FAMILIES)
                families[nf++] = name;
        }
    }
    const char *path = tensor_path(c->s->task);
    const char *metrics[PG_RANGEPROF_MAX_METRICS];
    double values[PG_RANGEPROF_MAX_METRICS];
    size_t nm = 0;
    int passes = 0;
    pg_rp_times times = {0};
    double chip_s = 0;
    pg_instr_result r;
    pg_status st = pg_device_chip_name(run->dev, chip, sizeof chip, &d);
    chip_s = pg_now_s() - t0;
    if (st == PG_OK) {
        metrics_dir(run, dir, sizeof dir);
        st = pg_metric_table_load_chip(dir, chip, &table, &d);
    }
    if (st == PG_OK)
        st = pg_metric_table_request(table, families, nf, path, metrics,
                                     PG_RANGEPROF_MAX_METRICS, &nm, &d);
    if (st == PG_OK)
        st = pg_wctx_init_workspaces(c, &d);
    if (st == PG_OK)
        st = pg_device_count_metrics(run->dev, pg_wctx_enqueue, c, restore_workspaces, c,
                                     metrics, nm, run->o->timeout_s, values, &passes, &times,
                                     &d);
    double required = required_flops(c);
    if (st == PG_OK)
        st = pg_instr_evaluate(table, families, nf, path, metrics, values, nm, required,
                               PG_INSTR_MIN_COVERAGE, &r, &d);
    double wall = pg_now_s() - t0;
    if (st != PG_OK) {
        pg_diag_format(&d, why, sizeof why);
        if (st == PG_FAIL_KERNEL) {
            pg_instr_stage_end(rec, "fail", wall,
                               "the kernel failed in the verification run: %s", why);
        } else {
            record_unknown(rec, why);
        }
        json_decref(rec->runtime);
        rec->runtime =
                            json_pack("{s:s, s:o, s:f, s:o}", "chip", chip, "error", pg_jstr(why),
                                      "wall_s", wall, "phases_s", phases_json(chip_s, &times));
        rewrite(stage, rec);
        pg_metric_table_free(table);
        pg_progress(run, c->s, c->w->name, "instructions", rec->status, rec->message);
        return;
    }
    json_t *vals = json_object();
    for (size_t k = 0; k < nm; k++)
        json_object_set_new(vals, metrics[k], json_real(values[k]));
    json_decref(rec->runtime);
    rec->runtime =
        json_pack("{s:s, s:s?, s:o, s:i, s:f, s:o, s:o, s:o, s:o, s:f, s:s}", "chip", chip,
                  "path", path, "metrics", vals, "passes", passes, "wall_s", wall, "phases_s",
                  phases_json(chip_s, &times), "tensor_flops",
                  pg_json_real_or_null(r.has_coverage ? r.tensor_flops : NAN), "required_flops",
                  pg_json_real_or_null(required), "coverage",
                  pg_json_real_or_null(r.has_coverage ? r.coverage : NAN), "min_coverage",
                  PG_INSTR_MIN_COVERAGE, "method",
                  "CUPTI range profiler, one user range around all launches of the workload, "
                  "replayed once per counter pass (workspaces restored between passes)");
    /* Per target: executed warp instructions of its families; coverage for tensor families. */
    for (int i = 0; i < rec->n_targets; i++) {
        const pg_instr_target *t = &rec->targets[i];
        double executed = 0, coverage = NAN;
        for (int j = 0; j < t->n_sass; j++) {
            for (int k = 0; k < r.n_families; k++) {
                if (strcmp(r.families[k].family, t->sass_families[j]) != 0)
                    continue;
                executed += r.families[k].count;
                if (r.families[k].has_math_ops && r.has_coverage)
                    coverage = r.coverage;
            }
        }
        pg_instr_record_runtime(rec, t->target, executed, coverage,
                                isfinite(coverage) ? PG_INSTR_MIN_COVERAGE : NAN);
    }
    rec->duration_s += wall;
    rewrite(stage, rec);
    pg_metric_table_free(table);
    pg_progress(run, c->s, c->w->name, "instructions", rec->status, rec->message);
}
