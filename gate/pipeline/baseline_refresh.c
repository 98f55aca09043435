/* `ptxgate baseline refresh` (see refresh.h): one check run of every task's accepted kernel with
 * the heuristic search, then each task's baseline built from the run's results, merged with the
 * old file where the environment is the same, validated and written atomically. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/datadir.h"
#include "base/digest.h"
#include "base/fileio.h"
#include "device/device.h"
#include "model/gpu_key.h"
#include "model/manifest.h"
#include "model/targets.h"
#include "model/task.h"
#include "report/results_read.h"
#include "refresh.h"

#define PG_REFRESH_HASH_MAX ((size_t)64 << 20)

/* One task before the run: its definition and its accepted kernel's paths and hashes. */
typedef struct {
    pg_task *task;
    char manifest_path[4096];    /* as the run opens it */
    char manifest_rel[1024];     /* relative to the task folder */
    char source_rel[1024];
    char manifest_sha[PG_SHA256_HEX], source_sha[PG_SHA256_HEX];
} refresh_input;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders of dir that hold a task.json, sorted (owned strings). */
static pg_status all_tasks(const char *dir, char ***out, size_t *n, pg_diag *d)
{
    *out = NULL;
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--tasks", "cannot open the tasks folder: %s",
                           strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    pg_status st = PG_OK;
    while ((e = readdir(dp)) && st == PG_OK) {
        char path[4400];
        struct stat sb;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/task.json", dir, e->d_name);
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            char **grown = realloc(*out, cap * sizeof *grown);
            if (!grown) {
                st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
                break;
            }
            *out = grown;
        }
        (*out)[(*n)++] = strdup(e->d_name);
    }
    closedir(dp);
    if (st == PG_OK && *n == 0)
        st = pg_diag_set(d, PG_ERR_INPUT, dir, 0, "--tasks",
                         "no task folder (<id>/task.json) here");
    if (*out)
        qsort(*out, *n, sizeof **out, cmp_str);
    return st;
}

/* "a/./b/../c" → "a/c", lexically; a leading ".." stays. */
static void normalize(const char *in, char *out, size_t n)
{
    char buf[1024], *parts[128];
    int k = 0;
    snprintf(buf, sizeof buf, "%s", in);
    for (char *p = strtok(buf, "/"); p && k < 128; p = strtok(NULL, "/")) {
        if (strcmp(p, ".") == 0)
            continue;
        if (strcmp(p, "..") == 0 && k > 0 && strcmp(parts[k - 1], "..") != 0)
            k--;
        else
            parts[k++] = p;
    }
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < k && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? "/" : "", parts[i]);
}

static pg_status prepare_input(const pg_refresh_options *o, const char *id, refresh_input *in,
                               pg_diag *d)
{
    pg_status st = pg_task_load(o->tasks_dir, id, &in->task, d);
    if (st != PG_OK) {
        if (!d->file[0])
            snprintf(d->file, sizeof d->file, "%s", o->tasks_dir);
        return st;
    }
    const pg_task *t = in->task;
    /* The task's target instructions against the tables the check run will use, before the GPU
     * is probed: a missing table is an input error found on any machine. */
    const char *arch_dir = o->arch_dir ? o->arch_dir : pg_data_dir(PG_DATA_ARCH, NULL);
    if (!arch_dir)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no PTX → SASS tables found: %s",
                           pg_data_missing_fix(PG_DATA_ARCH));
    if ((st = pg_targets_check_task(t, arch_dir, d)) != PG_OK)
        return st;
    if (!t->accepted_kernel[0])
        return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, "gate.accepted_kernel",
                           "task '%s' names no accepted kernel: a refresh measures the vendor "
                           "library next to the task's accepted kernel, so the task must name "
                           "one", t->id);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", t->file);
    snprintf(in->manifest_path, sizeof in->manifest_path, "%s/%s", dirname(dir),
             t->accepted_kernel);
    normalize(t->accepted_kernel, in->manifest_rel, sizeof in->manifest_rel);
    pg_manifest *m = NULL;
    pg_diag md;
    pg_diag_clear(&md);
    st = pg_manifest_load(in->manifest_path, &m, &md);
    if (st != PG_OK) {
        char msg[3000];
        return pg_diag_set(d, st, t->file, 0, "gate.accepted_kernel",
                           "the accepted kernel is not usable: %s",
                           pg_diag_format(&md, msg, sizeof msg));
    }
    char rel[2200];
    if (m->source_field_value[0] == '/') {
        snprintf(rel, sizeof rel, "%s", m->source_field_value);
    } else {
        char mdir[1024];
        snprintf(mdir, sizeof mdir, "%s", in->manifest_rel);
        snprintf(rel, sizeof rel, "%s/%s", dirname(mdir), m->source_field_value);
    }
    normalize(rel, in->source_rel, sizeof in->source_rel);
    st = pg_sha256_file(in->manifest_path, PG_REFRESH_HASH_MAX, in->manifest_sha, d);
    if (st == PG_OK)
        st = pg_sha256_file(m->source, PG_REFRESH_HASH_MAX, in->source_sha, d);
    pg_manifest_free(m);
    return st;
}

/* ---- reading the check run's results ---- */

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static double num_or_nan(pg_res_num x)
{
    return x.has ? x.v : NAN;
}

/* The fingerprint of the GPU the check ran on, from the typed environment and the reader's
 * checked getters for the fields only the baseline files keep. */
static pg_status fingerprint_from_results(const pg_res_env *env, pg_fingerprint *f, pg_diag *d)
{
    pg_fingerprint_init(f);
    snprintf(f->gpu_name, sizeof f->gpu_name, "%s", or_empty(env->gpu_name));
    snprintf(f->compute_capability, sizeof f->compute_capability, "%s",
             or_empty(env->compute_capability));
    f->sm_count = (int)env->sm_count.v;
    snprintf(f->driver_version, sizeof f->driver_version, "%s", or_empty(env->driver_version));
    f->cuda_driver_api_version = (int)env->cuda_driver_api_version.v;
    snprintf(f->ptxas_version, sizeof f->ptxas_version, "%s", or_empty(env->ptxas_version));
    f->cublaslt_version = (long)env->cublaslt_version.v;
    f->cudnn_version = (long)json_integer_value(env->cudnn_version);
    pg_jctx ctx = {.file = "results", .path = "environment"};
    pg_res_int sm_clock = {0}, memory_clock = {0};
    pg_res_num power = {0};
    int ecc = -1;
    pg_status st;
    if ((st = pg_res_get_int(env->json, &ctx, "gpu.max_sm_clock_mhz", &sm_clock, d)) != PG_OK ||
        (st = pg_res_get_int(env->json, &ctx, "gpu.max_memory_clock_mhz", &memory_clock, d)) !=
            PG_OK ||
        (st = pg_res_get_number(env->json, &ctx, "gpu.power_limit_w", &power, d)) != PG_OK ||
        (st = pg_res_get_bool(env->json, &ctx, "gpu.ecc", &ecc, d)) != PG_OK)
        return st;
    f->max_sm_clock_mhz = (int)sm_clock.v;
    f->max_memory_clock_mhz = (int)memory_clock.v;
    f->power_limit_w = power.has && isfinite(power.v) ? power.v : 0;
    f->ecc = ecc;
    return PG_OK;
}

/* Fill w from one workload of the results, or say why not (code 1 or 3; -1: nothing to store,
 * which is not an error: the library refused the configuration under baseline.optional). The
 * stage outcomes come from the typed view's enums; the details are read through its checked
 * getters. */
static int workload_from_results(const pg_res_workload *wl, double confidence,
                                 pg_baseline_workload *w, char *why, size_t n)
{
    const pg_res_stage *perf = pg_res_find_stage(wl->stages, wl->n_stages, "performance");
    const char *refused = NULL;
    pg_diag rd;
    if (perf && pg_res_detail_string(perf, "baseline.status", &refused, &rd) == PG_OK &&
        refused && strcmp(refused, "NOT_SUPPORTED") == 0) {
        snprintf(why, n, "%s: not stored, the library refused the configuration "
                         "(NOT_SUPPORTED; the task's baseline is optional)", wl->name);
        return -1;
    }
    if (!perf || (perf->status != PG_RES_PASS && perf->status != PG_RES_FAIL)) {
        const pg_res_stage *corr = pg_res_find_stage(wl->stages, wl->n_stages, "correctness");
        bool kernel = corr && corr->status == PG_RES_FAIL;
        const pg_res_stage *bad = kernel ? corr : perf;
        snprintf(why, n, "%s: %s %s: %s", wl->name, bad ? bad->stage : "performance",
                 bad ? pg_res_status_name(bad->status) : "missing",
                 bad ? or_empty(bad->message) : "");
        return kernel ? 1 : 3;
    }
    const pg_res_performance *p = &perf->detail.u.performance;
    if (!p->baseline.median_ms.has) {
        /* A kernel that faulted while timed: the stage failed without numbers. */
        snprintf(why, n, "%s: performance %s: %s", wl->name, pg_res_status_name(perf->status),
                 or_empty(perf->message));
        return perf->status == PG_RES_FAIL ? 1 : 3;
    }
    pg_diag d;
    const char *library = NULL, *mode = NULL, *method = NULL;
    pg_res_int workspace = {0}, rank = {0}, timed_n = {0}, samples = {0};
    pg_res_int blocks = {0}, warmup = {0}, timed = {0};
    const json_t *config = NULL;
    pg_status st = pg_res_detail_string(perf, "baseline.library", &library, &d);
    bool cudnn = st == PG_OK && strcmp(or_empty(library), "cudnn") == 0;
    const char *key = cudnn ? "configuration" : "algorithm_config";
    char dotted[64];
    snprintf(dotted, sizeof dotted, "stored_baseline.%s", key);
    if (st == PG_OK)
        st = pg_res_detail_object(perf, dotted, &config, &d);
    if (st == PG_OK) {
        pg_jctx ac = {.file = "results"};
        snprintf(ac.path, sizeof ac.path, "stored_baseline.%s", key);
        st = cudnn ? pg_cudnn_config_from_json(config, &ac, &w->cudnn, &d)
                   : pg_blaslt_algo_from_json(config, &ac, &w->algorithm, &d);
    }
    if (st != PG_OK) {
        snprintf(why, n, "%s: the performance stage recorded no %s configuration: %s", wl->name,
                 cudnn ? "cuDNN" : "cuBLASLt", d.message);
        return 3;
    }
    int reproducible = -1;
    const char *tried = cudnn ? "baseline.configs_tried" : "baseline.candidates_timed";
    if ((st = pg_res_detail_int(perf, "baseline.workspace_bytes", &workspace, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, "baseline.chosen_rank", &rank, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, tried, &timed_n, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, "baseline.samples", &samples, &d)) != PG_OK ||
        (st = pg_res_detail_string(perf, "mode", &mode, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, "block.blocks", &blocks, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, "block.warmup", &warmup, &d)) != PG_OK ||
        (st = pg_res_detail_int(perf, "block.timed", &timed, &d)) != PG_OK ||
        (st = pg_res_detail_string(perf, "method", &method, &d)) != PG_OK ||
        (st = pg_res_detail_bool(perf, "stored_baseline.algorithm_reproducible", &reproducible,
                                 &d)) != PG_OK) {
        snprintf(why, n, "%s: the performance stage's record is unreadable: %s", wl->name,
                 d.message);
        return 3;
    }
    snprintf(w->library, sizeof w->library, "%s", cudnn ? "cudnn" : "cublaslt");
    w->workspace_bytes = workspace.v;
    w->heuristic_rank = (int)rank.v;
    w->candidates_timed = (int)timed_n.v;
    w->median_ms = num_or_nan(p->baseline.median_ms);
    w->ci_low_ms = num_or_nan(p->baseline.ci_low_ms);
    w->ci_high_ms = num_or_nan(p->baseline.ci_high_ms);
    w->confidence = confidence;
    w->samples = samples.v;
    snprintf(w->mode, sizeof w->mode, "%s", or_empty(mode));
    w->blocks = (int)blocks.v;
    w->warmup = (int)warmup.v;
    w->timed = (int)timed.v;
    snprintf(w->method, sizeof w->method, "%s", or_empty(method));
    w->has_accepted = true;
    w->accepted_median_ms = num_or_nan(p->candidate.median_ms);
    w->accepted_ci_low_ms = num_or_nan(p->candidate.ci_low_ms);
    w->accepted_ci_high_ms = num_or_nan(p->candidate.ci_high_ms);
    w->speedup = num_or_nan(p->speedup_estimate);
    w->speedup_ci_low = num_or_nan(p->speedup_ci_low);
    w->speedup_ci_high = num_or_nan(p->speedup_ci_high);
    if (!cudnn && reproducible != 1)
        snprintf(why, n, "%s: re-creating the stored configuration did not give cuBLASLt's "
                         "algorithm byte for byte: a pinned check may time another kernel",
                 wl->name);
    return 0;
}

/* ---- building, merging and writing one task ---- */

static bool same_accepted(const pg_baseline *a, const pg_baseline *b)
{
    return a->has_accepted == b->has_accepted &&
           strcmp(a->accepted_manifest_sha256, b->accepted_manifest_sha256) == 0 &&
           strcmp(a->accepted_source_sha256, b->accepted_source_sha256) == 0;
}

/* Old entries not re-measured now are kept when measured under the same environment and
 * accepted kernel, and still describing one of the task's workloads; else dropped. */
static pg_status merge_old(pg_refresh_task *r, const pg_task *t, const bool *measured,
                           pg_diag *d)
{
    const pg_baseline *old = r->old;
    if (!old)
        return PG_OK;
    pg_fingerprint_change ch[PG_FINGERPRINT_FIELDS];
    bool same = pg_fingerprint_diff(&old->env, &r->updated->env, ch) == 0 &&
                same_accepted(old, r->updated);
    for (int i = 0; i < old->n_workloads; i++) {
        const pg_baseline_workload *w = &old->workloads[i];
        int k = pg_task_find_workload(t, w->name);
        if (k >= 0 && measured[k])
            continue;
        if (same && k >= 0 && pg_baseline_workload_matches(w, t, &t->workloads[k])) {
            pg_status st = pg_baseline_put(r->updated, w, d);
            if (st != PG_OK)
                return st;
        } else {
            r->dropped++;
        }
    }
    return PG_OK;
}

static void append(char *buf, size_t n, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, "%s%s", used ? "; " : "", text);
}

static pg_status build_task(const refresh_input *in,
                            const pg_res_submission *sub, const pg_fingerprint *env,
                            double confidence,
                            const char *key, const char *now, bool follow_links,
                            pg_refresh_task *r, pg_diag *d)
{
    const pg_task *t = in->task;
    bool *measured = calloc((size_t)t->n_workloads, sizeof *measured);
    pg_status st = measured ? pg_baseline_new(t->id, key, &r->updated, d)
                            : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (st != PG_OK) {
        free(measured);
        return st;
    }
    pg_baseline *b = r->updated;
    snprintf(b->measured_utc, sizeof b->measured_utc, "%s", now);
    snprintf(b->tool_version, sizeof b->tool_version, "%s", PG_VERSION);
    b->env = *env;
    b->has_accepted = true;
    snprintf(b->accepted_manifest, sizeof b->accepted_manifest, "%s", in->manifest_rel);
    snprintf(b->accepted_source, sizeof b->accepted_source, "%s", in->source_rel);
    snprintf(b->accepted_manifest_sha256, sizeof b->accepted_manifest_sha256, "%s",
             in->manifest_sha);
    snprintf(b->accepted_source_sha256, sizeof b->accepted_source_sha256, "%s", in->source_sha);
    for (size_t i = 0; sub && i < sub->n_workloads; i++) {
        const pg_res_workload *wl = &sub->workloads[i];
        int k = pg_task_find_workload(t, wl->name);
        if (k < 0)
            continue;
        pg_baseline_workload w;
        memset(&w, 0, sizeof w);
        pg_baseline_workload_set_problem(&w, t, &t->workloads[k]);
        char why[2400] = "";
        int code = workload_from_results(wl, confidence, &w, why, sizeof why);
        if (why[0])
            append(r->message, sizeof r->message, why);
        if (code > r->exit_code)
            r->exit_code = code;
        if (code < 0) /* nothing to store: an old entry, if any, is kept (merge_old) */
            continue;
        if (code == 0 && (st = pg_baseline_put(b, &w, d)) != PG_OK)
            break;
        measured[k] = code == 0;
    }
    if (st == PG_OK)
        st = merge_old(r, t, measured, d);
    free(measured);
    if (st != PG_OK || r->exit_code != 0 || b->n_workloads == 0) {
        if (st == PG_OK && b->n_workloads == 0 && r->exit_code == 0) {
            r->exit_code = 3;
            append(r->message, sizeof r->message, "no workload was measured");
        }
        pg_baseline_free(r->updated);
        r->updated = NULL;
        return st;
    }
    /* What is written must load: the same validation a check applies. */
    char *text = NULL;
    st = pg_baseline_dumps(b, &text, NULL, d);
    json_error_t je;
    json_t *root = st == PG_OK ? json_loads(text, 0, &je) : NULL;
    pg_baseline *again = NULL;
    pg_diag vd;
    pg_diag_clear(&vd);
    if (st == PG_OK && (!root || pg_baseline_from_json(root, r->path, t->id, key, &again, &vd) !=
                                     PG_OK)) {
        r->exit_code = 3;
        char m[3000];
        append(r->message, sizeof r->message, "the measured numbers do not form a valid baseline");
        append(r->message, sizeof r->message, pg_diag_format(&vd, m, sizeof m));
        pg_baseline_free(r->updated);
        r->updated = NULL;
    } else if (st == PG_OK) {
        st = pg_baseline_write(b, r->path, follow_links, d);
    }
    pg_baseline_free(again);
    json_decref(root);
    free(text);
    return st;
}

/* The baselines folder (created if missing) and, when gpu_key is not NULL, its <gpu-key>
 * subfolder: opened as pg_outdir_open does, so a symbolic link there is refused (unless
 * follow_links) before the GPU is probed and the run made, not after it. */
static pg_status make_dir(const pg_refresh_options *o, const char *gpu_key, pg_diag *d)
{
    unsigned flags = PG_OUTDIR_CREATE | (o->follow_links ? PG_OUTDIR_FOLLOW_LINKS : 0);
    pg_outdir dir, sub;
    pg_status st = pg_outdir_open(&dir, o->baselines_dir, flags, "--baselines", d);
    if (st == PG_OK && gpu_key) {
        st = pg_outdir_open_sub(&dir, gpu_key, flags, &sub, d);
        pg_outdir_close(&sub);
    }
    pg_outdir_close(&dir);
    return st;
}

/* The GPU: opened once to fail early and to read its name; closed again for the check run. */
static pg_status probe_gpu(const pg_refresh_options *o, pg_refresh_result *out, pg_diag *d)
{
    pg_device *dev = NULL;
    pg_diag gd;
    pg_diag_clear(&gd);
    if (pg_device_open(o->device_ordinal, &dev, &gd) != PG_OK)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "baseline refresh needs a GPU: %s",
                           gd.message);
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", pg_device_get_info(dev)->name);
    pg_device_close(dev);
    if (o->gpu_key) {
        if (!pg_gpu_key_valid(o->gpu_key))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--gpu-key",
                               "expected 1-63 characters of [a-z0-9._-] starting with a letter "
                               "or digit, got '%s'", o->gpu_key);
        snprintf(out->gpu_key, sizeof out->gpu_key, "%s", o->gpu_key);
    } else if (!pg_gpu_key_from_name(out->gpu_name, out->gpu_key, sizeof out->gpu_key)) {
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--gpu-key",
                           "no GPU key can be derived from the device name '%s': give --gpu-key",
                           out->gpu_name);
    }
    return PG_OK;
}

pg_status pg_baseline_refresh(const pg_refresh_options *o, const char *const *task_ids, size_t n,
                              pg_refresh_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    char **found = NULL;
    size_t n_found = 0;
    refresh_input *in = NULL;
    const char **manifests = NULL;
    json_t *res = NULL;
    pg_results view;
    memset(&view, 0, sizeof view); /* pg_results_free is safe on a zeroed view */
    pg_status st = PG_OK;
    if (!o->tasks_dir)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no tasks folder found: %s",
                           pg_data_missing_fix(PG_DATA_TASKS));
    if (n == 0) {
        st = all_tasks(o->tasks_dir, &found, &n_found, d);
        task_ids = (const char *const *)found;
        n = n_found;
    }
    if (st == PG_OK) {
        in = calloc(n, sizeof *in);
        manifests = calloc(n, sizeof *manifests);
        out->tasks = calloc(n, sizeof *out->tasks);
        if (!in || !manifests || !out->tasks)
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    for (size_t i = 0; st == PG_OK && i < n; i++) {
        st = prepare_input(o, task_ids[i], &in[i], d);
        manifests[i] = in[i].manifest_path;
    }
    if (st == PG_OK)
        st = make_dir(o, NULL, d);
    if (st == PG_OK)
        st = probe_gpu(o, out, d);
    if (st == PG_OK)
        st = make_dir(o, out->gpu_key, d);
    if (st != PG_OK)
        goto done;

    pg_check_options co;
    pg_check_options_init(&co);
    co.tasks_dir = o->tasks_dir;
    co.root = o->root;
    if (o->arch_dir)
        co.arch_dir = o->arch_dir;
    co.device_ordinal = o->device_ordinal;
    co.workloads = o->workloads;
    co.timeout_s = o->timeout_s;
    co.accepted_kernel = "none";  /* the accepted kernel is the candidate here */
    co.energy = false;
    co.baselines_dir = NULL;      /* search: a refresh never pins what it re-measures */
    co.progress = o->progress;
    co.progress_ctx = o->progress_ctx;
    st = pg_check_run(&co, manifests, n, &res, d);
    if (st != PG_OK)
        goto done;
    if ((st = pg_results_read(res, "results", &view, d)) != PG_OK)
        goto done;
    if (!view.env.has_gpu) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "baseline refresh needs a GPU: %s",
                         or_empty(view.env.gpu_skip_reason));
        goto done;
    }
    pg_fingerprint fp;
    if ((st = fingerprint_from_results(&view.env, &fp, d)) != PG_OK)
        goto done;
    double confidence = num_or_nan(view.confidence);
    char now[32];
    time_t tnow = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tnow));
    out->n = n;
    for (size_t i = 0; st == PG_OK && i < n; i++) {
        pg_refresh_task *r = &out->tasks[i];
        snprintf(r->task, sizeof r->task, "%s", in[i].task->id);
        pg_baseline_path(r->path, sizeof r->path, o->baselines_dir, out->gpu_key, r->task);
        bool exists = false;
        pg_diag od;
        pg_diag_clear(&od);
        if (pg_baseline_exists(r->path, &exists, &od) != PG_OK || exists) {
            if (!exists ||
                pg_baseline_load_file(r->path, r->task, out->gpu_key, &r->old, &od) != PG_OK) {
                char m[3000];
                append(r->message, sizeof r->message, "the old file was not readable and is "
                                                      "replaced");
                append(r->message, sizeof r->message, pg_diag_format(&od, m, sizeof m));
            }
        }
        const pg_res_submission *sub = i < view.n_subs ? &view.subs[i] : NULL;
        st = build_task(&in[i], sub, &fp, confidence, out->gpu_key, now, o->follow_links, r, d);
    }
done:
    pg_results_free(&view);
    json_decref(res);
    for (size_t i = 0; in && i < n; i++)
        pg_task_free(in[i].task);
    free(in);
    free(manifests);
    for (size_t i = 0; i < n_found; i++)
        free(found[i]);
    free(found);
    return st;
}

void pg_refresh_result_free(pg_refresh_result *r)
{
    for (size_t i = 0; r->tasks && i < r->n; i++) {
        pg_baseline_free(r->tasks[i].old);
        pg_baseline_free(r->tasks[i].updated);
    }
    free(r->tasks);
    memset(r, 0, sizeof *r);
}
