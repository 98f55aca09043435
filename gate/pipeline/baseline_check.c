/* Stored baselines at check time (docs/baselines.md): find the file of (GPU key, task), compare
 * its fingerprint with the live one, pin its vendor configuration (cuBLASLt algorithm, cuDNN
 * engine configuration) when the library version is the same, and after the performance stage
 * compare the live vendor time with the stored one (runner drift). The stored numbers never
 * enter a verdict: the comparisons stay live. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "model/baseline.h"
#include "model/gpu_key.h"
#include "model/task_ops.h"
#include "stats/drift.h"
#include "baseline_check.h"
#include "results_json.h"
#include "run.h"
#include "stage.h"
#include "submission.h"
#include "base/utf8.h"

/* Largest accepted-kernel file hashed for the comparison with the stored hashes. */
#define PG_HASH_MAX_BYTES ((size_t)64 << 20)

typedef enum { BL_NOT_LOOKED, BL_FOUND, BL_MISSING } bl_status;

/* One task of the run. */
typedef struct {
    char task[128];
    char path[PG_PATH_MAX];
    bl_status status;
    pg_baseline *b;                 /* owned, when found */
    pg_fingerprint_change changes[PG_FINGERPRINT_FIELDS];
    int n_changes;
    bool cudnn;                     /* the task's vendor library is cuDNN (else cuBLASLt) */
    bool backward;                  /* an attention backward task (its cuDNN graphs: bwd ones) */
    bool pin_ok;                    /* stored and live versions of that library are the same */
    char accepted_note[1600];       /* the accepted kernel differs from the stored one: why */
    json_t *events;                 /* per-workload notes (array of strings), owned */
} bl_entry;

struct pg_baseline_state {
    char gpu_key[PG_GPU_KEY_MAX];   /* "" when not known (no GPU and no --gpu-key) */
    char key_source[300];
    char why_not[600];              /* why nothing was looked up, when so */
    pg_fingerprint live;
    bool have_live;
    bl_entry *e;
    int n;
};

static const char *missing_name(pg_missing_policy p)
{
    return p == PG_MISSING_FAIL ? "fail" : p == PG_MISSING_WARN ? "warn" : "measure";
}

static bl_entry *entry_for(const pg_run *run, const char *task)
{
    struct pg_baseline_state *s = run->baselines;
    for (int i = 0; s && i < s->n; i++)
        if (strcmp(s->e[i].task, task) == 0)
            return &s->e[i];
    return NULL;
}

static void add_event(bl_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_event(bl_entry *e, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_array_append_new(e->events, pg_jstr(msg));
}

/* The accepted kernel the run uses for this task against the stored one: paths relative to
 * the task folder are not comparable across an override, so the hashes decide. */
static void compare_accepted(bl_entry *e, const pg_submission *s)
{
    const pg_baseline *b = e->b;
    if (!s->accepted.kernel && !b->has_accepted)
        return;
    if (!s->accepted.kernel || !b->has_accepted) {
        snprintf(e->accepted_note, sizeof e->accepted_note,
                 "the run's accepted kernel (%s) is not the stored one (%s)",
                 s->accepted.kernel ? s->accepted.kernel->manifest->file : "none",
                 b->has_accepted ? b->accepted_manifest : "none");
        return;
    }
    char m[PG_SHA256_HEX] = "", src[PG_SHA256_HEX] = "";
    pg_diag d;
    pg_sha256_file(s->accepted.kernel->manifest->file, PG_HASH_MAX_BYTES, m, &d);
    pg_sha256_file(s->accepted.kernel->manifest->source, PG_HASH_MAX_BYTES, src, &d);
    bool man_same = strcmp(m, b->accepted_manifest_sha256) == 0;
    bool src_same = strcmp(src, b->accepted_source_sha256) == 0;
    if (man_same && src_same)
        return;
    char parts[2][700] = {"", ""};
    if (!man_same)
        snprintf(parts[0], sizeof parts[0], " manifest %s (sha256 %.12s… stored, %.12s… now)",
                 s->accepted.kernel->manifest->file, b->accepted_manifest_sha256, m[0] ? m : "unreadable");
    if (!src_same)
        snprintf(parts[1], sizeof parts[1], "%s source %s (sha256 %.12s… stored, %.12s… now)",
                 man_same ? "" : ";", s->accepted.kernel->manifest->source, b->accepted_source_sha256,
                 src[0] ? src : "unreadable");
    snprintf(e->accepted_note, sizeof e->accepted_note,
             "the accepted kernel changed since the baseline was measured:%s%s", parts[0],
             parts[1]);
}

/* The GPU key: --gpu-key, else from the device name. false with why_not set when unknown. */
static bool choose_key(pg_run *run, struct pg_baseline_state *s, pg_diag *d, pg_status *st)
{
    const pg_check_options *o = run->o;
    *st = PG_OK;
    if (o->gpu_key) {
        if (!pg_gpu_key_valid(o->gpu_key)) {
            *st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--gpu-key",
                              "expected 1-63 characters of [a-z0-9._-] starting with a letter or "
                              "digit, got '%s'", o->gpu_key);
            return false;
        }
        snprintf(s->gpu_key, sizeof s->gpu_key, "%s", o->gpu_key);
        snprintf(s->key_source, sizeof s->key_source, "--gpu-key");
        return true;
    }
    /* The device's name: from the open device, or from the probe worker of an isolated run. */
    if (!run->have_info) {
        snprintf(s->why_not, sizeof s->why_not,
                 "no GPU (%s) and no --gpu-key: no stored baseline looked up",
                 run->gpu_skip_reason);
        return false;
    }
    const char *name = run->info.name;
    if (!pg_gpu_key_from_name(name, s->gpu_key, sizeof s->gpu_key)) {
        snprintf(s->why_not, sizeof s->why_not,
                 "no GPU key can be derived from the device name '%s': give --gpu-key", name);
        return false;
    }
    snprintf(s->key_source, sizeof s->key_source, "from the device name '%s'", name);
    return true;
}

pg_status pg_baselines_resolve(pg_run *run, pg_submission *subs, size_t n, pg_diag *d)
{
    const pg_check_options *o = run->o;
    struct pg_baseline_state *s = calloc(1, sizeof *s);
    if (!s)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    run->baselines = s;
    s->e = calloc(n ? n : 1, sizeof *s->e);
    if (!s->e)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (entry_for(run, subs[i].task->id))
            continue;
        bl_entry *e = &s->e[s->n++];
        snprintf(e->task, sizeof e->task, "%s", subs[i].task->id);
        e->cudnn = pg_operation_is_attention(subs[i].task->op);
        e->backward = subs[i].task->op == PG_OP_MHA_BWD;
        e->events = json_array();
    }
    if (!o->baselines_dir) {
        snprintf(s->why_not, sizeof s->why_not, "no baselines folder (--baselines)");
        return PG_OK;
    }
    struct stat stt;
    if (stat(o->baselines_dir, &stt) != 0 || !S_ISDIR(stt.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, o->baselines_dir, 0, "--baselines",
                           "expected a folder of stored baselines: %s",
                           errno == ENOENT ? "no such folder" : "not a folder");
    pg_status st;
    if (!choose_key(run, s, d, &st))
        return st;
    s->have_live = run->have_info;
    if (s->have_live)
        pg_run_fingerprint(run, &s->live);
    for (int i = 0; i < s->n; i++) {
        bl_entry *e = &s->e[i];
        pg_baseline_path(e->path, sizeof e->path, o->baselines_dir, s->gpu_key, e->task);
        bool exists = false;
        if ((st = pg_baseline_exists(e->path, &exists, d)) != PG_OK)
            return st;
        if (!exists) {
            e->status = BL_MISSING;
            continue;
        }
        st = pg_baseline_load_file(e->path, e->task, s->gpu_key, &e->b, d);
        if (st != PG_OK)
            return st;
        /* The file's library (one per file, pg_baseline_load_file) must be the task's. */
        const pg_baseline_workload *w0 = &e->b->workloads[0];
        if (pg_baseline_workload_is_cudnn(w0) != e->cudnn) {
            char field[300];
            snprintf(field, sizeof field, "workloads.%s.vendor.library", w0->name);
            return pg_diag_set(d, PG_ERR_INPUT, e->path, 0, field,
                               "expected \"%s\": task %s's vendor library is %s, got \"%s\"",
                               e->cudnn ? "cudnn" : "cublaslt", e->task,
                               e->cudnn ? "cuDNN" : "cuBLASLt", w0->library);
        }
        /* A cuDNN configuration is of a forward or a backward graph: the task's direction. */
        for (int k = 0; e->cudnn && k < e->b->n_workloads; k++) {
            pg_dnn_graph_kind g = e->b->workloads[k].cudnn.graph;
            if (pg_dnn_graph_is_backward(g) == e->backward)
                continue;
            char field[300];
            snprintf(field, sizeof field, "workloads.%s.vendor.configuration.graph",
                     e->b->workloads[k].name);
            return pg_diag_set(d, PG_ERR_INPUT, e->path, 0, field,
                               "expected a %s graph (%s) for task %s, got '%s'",
                               e->backward ? "backward" : "forward",
                               e->backward ? "composite_bwd or composite_bwd_io_k_view"
                                           : "fused_sdpa_fwd or composite_fwd",
                               e->task, pg_dnn_graph_id(g));
        }
        e->status = BL_FOUND;
        if (s->have_live) {
            e->n_changes = pg_fingerprint_diff(&e->b->env, &s->live, e->changes);
            e->pin_ok = e->cudnn ? pg_fingerprint_same_cudnn(&e->b->env, &s->live)
                                 : pg_fingerprint_same_cublaslt(&e->b->env, &s->live);
        }
        for (size_t k = 0; k < n; k++)
            if (strcmp(subs[k].task->id, e->task) == 0) {
                compare_accepted(e, &subs[k]);
                break;
            }
    }
    return PG_OK;
}

static const char *library_label(const bl_entry *e)
{
    return e && e->cudnn ? "cuDNN" : "cuBLASLt";
}

/* The stored entry usable for workload c, or NULL with the reason. */
static const pg_baseline_workload *usable(const pg_wctx *c, bl_entry **entry, char *why, size_t n)
{
    const pg_run *run = c->run;
    struct pg_baseline_state *s = run->baselines;
    bl_entry *e = entry_for(run, c->s->task->id);
    *entry = e;
    if (!s || !e) {
        snprintf(why, n, "stored baselines were not resolved");
        return NULL;
    }
    if (!s->gpu_key[0] || !run->o->baselines_dir) {
        snprintf(why, n, "%s", s->why_not);
        return NULL;
    }
    if (e->status != BL_FOUND) {
        snprintf(why, n, "no stored baseline for %s on %s (looked for %s)", e->task, s->gpu_key,
                 e->path);
        return NULL;
    }
    const pg_baseline_workload *w = pg_baseline_find(e->b, c->w->name);
    if (!w) {
        snprintf(why, n, "%s has no entry for workload %s", e->path, c->w->name);
        return NULL;
    }
    if (!pg_baseline_workload_matches(w, c->s->task, c->w)) {
        snprintf(why, n, "%s: the entry of workload %s has other sizes than the task's (stale)",
                 e->path, c->w->name);
        return NULL;
    }
    if (pg_baseline_workload_is_cudnn(w) != e->cudnn) {
        snprintf(why, n, "%s: the entry of workload %s is for %s, the task's baseline is %s",
                 e->path, c->w->name, pg_baseline_library_label(w), library_label(e));
        return NULL;
    }
    return w;
}

bool pg_baseline_refuses(pg_wctx *c, char *why, size_t n)
{
    bl_entry *e;
    char reason[1500];
    if (c->run->o->on_missing_baseline != PG_MISSING_FAIL || usable(c, &e, reason, sizeof reason))
        return false;
    snprintf(why, n, "INFRASTRUCTURE: %s (--on-missing-baseline=fail)", reason);
    if (e)
        add_event(e, "%s: %s: performance not run (--on-missing-baseline=fail)", c->w->name,
                  reason);
    return true;
}

/* The performance stage being built for c (the last stage of its workload). */
static pg_stage_entry *current_stage(pg_wctx *c)
{
    pg_stage_entry *st = c->wl ? pg_ledger_last(&c->wl->stages) : NULL;
    return st && st->kind == PG_STAGE_PERFORMANCE ? st : NULL;
}

/* What the stored entry offers the vendor arm of c. */
typedef struct {
    bl_entry *e;
    const pg_baseline_workload *w; /* the usable entry, or NULL */
    const char *status;            /* found | none | not_looked | no_entry | missing */
    bool pin;                      /* w may be pinned: same library version */
    char note[2200];               /* why not pinned, or why the pin was refused */
} stored_choice;

static void choose_stored(pg_wctx *c, stored_choice *sc)
{
    char why[1500] = "";
    memset(sc, 0, sizeof *sc);
    sc->w = usable(c, &sc->e, why, sizeof why);
    bl_entry *e = sc->e;
    sc->status = sc->w                                    ? "found"
                 : !c->run->o->baselines_dir              ? "none"
                 : !c->run->baselines->gpu_key[0]         ? "not_looked"
                 : e && e->status == BL_FOUND             ? "no_entry"
                                                          : "missing";
    if (!sc->w) {
        snprintf(sc->note, sizeof sc->note, "%s: searched", why);
        return;
    }
    sc->pin = e->pin_ok;
    if (sc->pin)
        return;
    const pg_fingerprint *stored = &e->b->env, *live = &c->run->baselines->live;
    long a = e->cudnn ? stored->cudnn_version : stored->cublaslt_version;
    long b = e->cudnn ? live->cudnn_version : live->cublaslt_version;
    char as[32] = "unknown", bs[32] = "unknown";
    if (a > 0)
        snprintf(as, sizeof as, "%ld", a);
    if (b > 0)
        snprintf(bs, sizeof bs, "%ld", b);
    snprintf(sc->note, sizeof sc->note,
             "%s %s stored, %s here: the stored %s is not pinned, searched", library_label(e),
             as, bs, e->cudnn ? "engine configuration" : "algorithm");
}

/* A pinned preparation that returned st: PG_ERR_INPUT (the library refused the stored choice)
 * is noted and falls back to the search; other errors stand. */
static bool pin_refused(pg_wctx *c, stored_choice *sc, pg_status st, const pg_diag *pd)
{
    if (st != PG_ERR_INPUT)
        return false;
    snprintf(sc->note, sizeof sc->note, "the stored %s was refused, searched instead: %s",
             sc->e->cudnn ? "engine configuration" : "algorithm", pd->message);
    add_event(sc->e, "%s: %s", c->w->name, sc->note);
    return true;
}

/* details.stored_baseline of the performance stage being built; config is the chosen
 * configuration (new reference, stolen). */
static void record_stored(pg_wctx *c, const stored_choice *sc, bool pinned, json_t *config,
                          json_t *reproducible)
{
    pg_stage_entry *stage = current_stage(c);
    if (!stage) {
        json_decref(config);
        json_decref(reproducible);
        return;
    }
    json_t *j = json_pack("{s:o, s:s, s:s, s:o}", "file",
                          sc->e && sc->e->path[0] ? pg_jstr(sc->e->path) : json_null(), "status",
                          sc->status, "algorithm_source", pinned ? "pinned" : "searched", "note",
                          pg_jstr(sc->note));
    json_object_set_new(j, sc->e && sc->e->cudnn ? "configuration" : "algorithm_config", config);
    if (reproducible)
        json_object_set_new(j, "algorithm_reproducible", reproducible);
    json_object_set_new(pg_stage_details(stage), "stored_baseline", j);
}

/* One preparation of the vendor arm: with the stored configuration (pinned) or searched. */
typedef pg_status (*vendor_prepare_fn)(void *ctx, const stored_choice *sc, bool pinned,
                                       pg_diag *d);

/* The stored configuration when it may be pinned; the search when it may not, or when the
 * library refused it (noted). Other errors of the pinned preparation stand. */
static pg_status prepare_vendor(pg_wctx *c, stored_choice *sc, vendor_prepare_fn fn, void *ctx,
                                pg_diag *d)
{
    choose_stored(c, sc);
    if (sc->pin) {
        pg_diag pd;
        pg_diag_clear(&pd);
        pg_status st = fn(ctx, sc, true, &pd);
        if (st == PG_OK)
            return st;
        if (!pin_refused(c, sc, st, &pd)) {
            *d = pd;
            return st;
        }
    }
    return fn(ctx, sc, false, d);
}

typedef struct {
    pg_device *dev;
    const pg_gemm_problem *p;
    const pg_buffer *A, *B, *C;
    pg_buffer *D;
    int max_candidates;
    pg_blaslt_gemm **out;
    pg_blaslt_choice *choice;
} gemm_prep;

static pg_status prepare_gemm(void *ctx, const stored_choice *sc, bool pinned, pg_diag *d)
{
    gemm_prep *g = ctx;
    if (pinned)
        return pg_blaslt_gemm_prepare_pinned(g->dev, g->p, g->A, g->B, g->C, g->D,
                                             &sc->w->algorithm,
                                             (size_t)sc->w->workspace_bytes, g->out, g->choice,
                                             d);
    return pg_blaslt_gemm_prepare(g->dev, g->p, g->A, g->B, g->C, g->D, g->max_candidates,
                                  g->out, g->choice, d);
}

pg_status pg_baseline_prepare_gemm(pg_wctx *c, const pg_gemm_problem *p, const pg_buffer *A,
                                   const pg_buffer *B, const pg_buffer *C, pg_buffer *D,
                                   int max_candidates, pg_blaslt_gemm **out,
                                   pg_blaslt_choice *choice, pg_diag *d)
{
    gemm_prep g = {c->run->dev, p, A, B, C, D, max_candidates, out, choice};
    stored_choice sc;
    pg_status st = prepare_vendor(c, &sc, prepare_gemm, &g, d);
    if (st == PG_OK)
        record_stored(c, &sc, choice->pinned, pg_blaslt_algo_to_json(&choice->config),
                      json_boolean(choice->config_reproduces));
    return st;
}

typedef struct {
    pg_device *dev;
    pg_sdpa_args *args;
    pg_cudnn_sdpa **out;
    pg_cudnn_sdpa_info *info;
} sdpa_prep;

static pg_status prepare_sdpa(void *ctx, const stored_choice *sc, bool pinned, pg_diag *d)
{
    sdpa_prep *p = ctx;
    p->args->pin = pinned ? &sc->w->cudnn : NULL;
    pg_status st = pg_cudnn_sdpa_prepare(p->dev, p->args, p->out, p->info, d);
    p->args->pin = NULL; /* borrowed from the stored baseline */
    return st;
}

pg_status pg_baseline_prepare_sdpa(pg_wctx *c, pg_sdpa_args *args, pg_cudnn_sdpa **out,
                                   pg_cudnn_sdpa_info *info, pg_diag *d)
{
    sdpa_prep p = {c->run->dev, args, out, info};
    stored_choice sc;
    pg_status st = prepare_vendor(c, &sc, prepare_sdpa, &p, d);
    if (st == PG_OK)
        record_stored(c, &sc, strcmp(info->heuristics, "pinned") == 0,
                      pg_cudnn_config_to_json(&info->config), NULL);
    return st;
}

static json_t *drift_json(const char *verdict, const char *reason)
{
    return json_pack("{s:s, s:s}", "verdict", verdict, "reason", reason);
}

void pg_baseline_check_stage(pg_wctx *c)
{
    const pg_check_options *o = c->run->o;
    pg_stage_entry *stage = current_stage(c);
    if (!stage)
        return;
    json_t *det = pg_stage_details(stage);
    bl_entry *e = NULL;
    char why[1500];
    const pg_baseline_workload *w = usable(c, &e, why, sizeof why);
    const char *status = pg_stage_status(stage);
    const char *msg = pg_stage_message(stage);
    double dur = stage->duration_s;
    if (c->wl->perf.vendor_refused) {
        json_object_set_new(det, "baseline_drift",
                            drift_json("not_compared", "the library refused the configuration "
                                                       "(NOT_SUPPORTED): nothing to compare"));
        return;
    }
    if (!w) {
        json_object_set_new(det, "baseline_drift", drift_json("not_compared", why));
        /* A missing file is one note of the run; a file without this workload's entry is one
         * per workload. */
        bool file_found = e && e->status == BL_FOUND;
        bool timed = strcmp(status, "pass") == 0 || strcmp(status, "fail") == 0;
        if (o->on_missing_baseline == PG_MISSING_WARN && o->baselines_dir && timed)
            pg_stage_finish(stage, status, dur, "%s; %s (warning: --on-missing-baseline=warn)",
                            msg, why);
        if (file_found)
            add_event(e, "%s: %s; the %s configuration was searched%s", c->w->name, why,
                      library_label(e),
                      o->on_missing_baseline == PG_MISSING_WARN ? " (warning)" : "");
        return;
    }
    const pg_perf_state *perf = &c->wl->perf;
    const double *live = perf->baseline_ms;
    const char *mode = perf->mode[0] ? perf->mode : NULL;
    if (!perf->have_baseline) {
        json_object_set_new(det, "baseline_drift",
                            drift_json("not_compared", e->cudnn
                                                           ? "the stage did not time cuDNN"
                                                           : "the stage did not time cuBLASLt"));
        return;
    }
    if (!mode || strcmp(mode, w->mode) != 0) {
        char r[200];
        snprintf(r, sizeof r, "stored in %s mode, timed in %s mode here", w->mode,
                 mode ? mode : "an unknown");
        json_object_set_new(det, "baseline_drift", drift_json("not_compared", r));
        return;
    }
    pg_drift r = pg_drift_decide(w->median_ms, w->ci_low_ms, w->ci_high_ms, live[0], live[1],
                                 live[2], o->drift_tolerance);
    json_object_set_new(
        det, "baseline_drift",
        json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:f}", "verdict",
                  pg_drift_kind_name(r.kind), "policy",
                  o->on_drift == PG_ON_DRIFT_FAIL ? "fail" : "warn",
                  "tolerance", o->drift_tolerance, "stored_median_ms", w->median_ms,
                  "stored_ci_low_ms", w->ci_low_ms, "stored_ci_high_ms", w->ci_high_ms,
                  "live_median_ms", live[0], "live_ci_low_ms", live[1], "live_ci_high_ms",
                  live[2], "ratio", pg_json_real_or_null(r.ratio), "ratio_low",
                  pg_json_real_or_null(r.ratio_low), "ratio_high",
                  pg_json_real_or_null(r.ratio_high), "stored_confidence", w->confidence));
    if (r.kind != PG_DRIFT_SLOWER && r.kind != PG_DRIFT_FASTER)
        return;
    char text[700];
    snprintf(text, sizeof text,
             "runner drift: %s %.4f ms [%.4f, %.4f] here vs %.4f ms [%.4f, %.4f] stored in "
             "%s (%+.1f %%, %s beyond the %.1f %% tolerance)",
             library_label(e), live[0], live[1], live[2], w->median_ms, w->ci_low_ms,
             w->ci_high_ms, e->path,
             100.0 * (r.ratio - 1.0), r.kind == PG_DRIFT_SLOWER ? "slower" : "faster",
             100.0 * o->drift_tolerance);
    add_event(e, "%s: %s", c->w->name, text);
    if (o->on_drift == PG_ON_DRIFT_FAIL) {
        pg_stage_finish(stage, "error", dur, "INFRASTRUCTURE: %s (--on-drift=fail); the live "
                        "measurement said: %s", text, msg);
        pg_wl_set_ptxbench(c->wl, "INFRA_ERROR");
    } else {
        pg_stage_finish(stage, status, dur, "%s; %s (warning)", msg, text);
    }
    pg_progress(c->run, c->s, c->w->name, "baseline drift", pg_stage_status(stage), text);
}

json_t *pg_baselines_json(const pg_run *run)
{
    const pg_check_options *o = run->o;
    const struct pg_baseline_state *s = run->baselines;
    json_t *tasks = json_array(), *notes = json_array();
    json_t *j = json_pack("{s:o, s:o, s:o, s:s, s:s, s:f}", "dir",
                          o->baselines_dir ? pg_jstr(o->baselines_dir) : json_null(), "gpu_key",
                          s && s->gpu_key[0] ? json_string(s->gpu_key) : json_null(),
                          "gpu_key_source", s && s->gpu_key[0] ? pg_jstr(s->key_source)
                                                               : json_null(),
                          "on_missing_baseline", missing_name(o->on_missing_baseline), "on_drift",
                          o->on_drift == PG_ON_DRIFT_FAIL ? "fail" : "warn", "drift_tolerance",
                          o->drift_tolerance);
    if (s && s->why_not[0] && o->baselines_dir && run->have_info)
        json_array_append_new(notes, pg_jstr(s->why_not));
    for (int i = 0; s && i < s->n; i++) {
        const bl_entry *e = &s->e[i];
        json_t *changes = json_array();
        for (int k = 0; k < e->n_changes; k++)
            json_array_append_new(changes, json_pack("{s:s, s:o, s:o, s:b}", "field",
                                                     e->changes[k].field, "stored",
                                                     pg_jstr(e->changes[k].stored), "live",
                                                     pg_jstr(e->changes[k].live), "gpu",
                                                     e->changes[k].gpu));
        const char *st = e->status == BL_FOUND ? "found" : e->status == BL_MISSING ? "missing"
                                                                                   : "not_looked";
        json_t *t = json_pack("{s:s, s:o, s:s, s:o, s:o, s:b, s:o, s:O}", "task", e->task,
                              "file", e->path[0] ? pg_jstr(e->path) : json_null(), "status", st,
                              "measured_utc",
                              e->b ? json_string(e->b->measured_utc) : json_null(),
                              "fingerprint_changes", changes, "algorithm_pinning", e->pin_ok,
                              "accepted_kernel_note",
                              e->accepted_note[0] ? pg_jstr(e->accepted_note) : json_null(),
                              "events", e->events);
        json_array_append_new(tasks, t);
        char line[3000];
        if (e->status == BL_MISSING) {
            snprintf(line, sizeof line, "%s: no stored baseline at %s (--on-missing-baseline=%s)",
                     e->task, e->path, missing_name(o->on_missing_baseline));
            json_array_append_new(notes, pg_jstr(line));
        }
        if (e->n_changes) {
            size_t used = (size_t)snprintf(line, sizeof line,
                                           "%s: environment differs from the baseline measured %s:",
                                           e->task, e->b->measured_utc);
            for (int k = 0; k < e->n_changes && used < sizeof line; k++)
                used += (size_t)snprintf(line + used, sizeof line - used, "%s %s %s → %s",
                                         k ? ";" : "", e->changes[k].field, e->changes[k].stored,
                                         e->changes[k].live);
            if (used >= sizeof line)
                pg_utf8_trim_cut(line); /* cut by the buffer: at a whole character */
            json_array_append_new(notes, pg_jstr(line));
        }
        if (e->status == BL_FOUND && s->have_live && !e->pin_ok) {
            snprintf(line, sizeof line, "%s: %s version differs from the baseline's: "
                                        "configurations searched, not pinned", e->task,
                     library_label(e));
            json_array_append_new(notes, pg_jstr(line));
        }
        if (e->accepted_note[0]) {
            snprintf(line, sizeof line, "%s: %s", e->task, e->accepted_note);
            json_array_append_new(notes, pg_jstr(line));
        }
        size_t k;
        json_t *ev;
        json_array_foreach(e->events, k, ev) {
            snprintf(line, sizeof line, "%s/%s", e->task, json_string_value(ev));
            json_array_append_new(notes, pg_jstr(line));
        }
    }
    json_object_set_new(j, "tasks", tasks);
    json_object_set_new(j, "notes", notes);
    return j;
}

json_t *pg_baselines_events_since(const pg_run *run, const char *task, size_t *from)
{
    const bl_entry *e = entry_for(run, task);
    json_t *out = json_array();
    size_t n = e ? json_array_size(e->events) : 0;
    for (size_t i = *from; i < n; i++)
        json_array_append(out, json_array_get(e->events, i));
    if (n > *from)
        *from = n;
    return out;
}

void pg_baselines_add_events(pg_run *run, const char *task, const json_t *events)
{
    bl_entry *e = entry_for(run, task);
    size_t i;
    json_t *ev;
    if (!e)
        return;
    json_array_foreach(events, i, ev)
        if (json_is_string(ev))
            json_array_append(e->events, ev);
}

void pg_baselines_release(pg_run *run)
{
    struct pg_baseline_state *s = run->baselines;
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        pg_baseline_free(s->e[i].b);
        json_decref(s->e[i].events);
    }
    free(s->e);
    free(s);
    run->baselines = NULL;
}
