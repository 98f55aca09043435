/* `ptxgate check` orchestration: validate every submission offline first, then run the stages,
 * then fold stage statuses into verdicts and the exit code (docs/exit-codes.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/jsonget.h"
#include "base/datadir.h"
#include "baseline_check.h"
#include "check.h"
#include "executor.h"
#include "model/launch_limits.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "base/fileio.h"
#include "report/verdicts.h"
#include "tool/children.h"
#include "tool/process.h"
#include "tool/tmpdir.h"

void pg_progress(pg_run *run, const pg_submission *s, const char *workload, const char *stage,
                 const char *status, const char *message)
{
    char label[96];
    if (s->is_accepted && stage) {
        snprintf(label, sizeof label, "%s (accepted kernel)", stage);
        stage = label;
    }
    if (run->o->progress)
        run->o->progress(run->o->progress_ctx, s->task ? s->task->id : "?", s->manifest->name,
                         workload, stage, status, message);
}

/* "1 h 2 min", "3 min 20 s", "42 s". */
static void duration_text(char *buf, size_t n, double s)
{
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, n, "%ld h %ld min", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        snprintf(buf, n, "%ld min %ld s", t / 60, t % 60);
    else
        snprintf(buf, n, "%ld s", t);
}

char *pg_progress_format(char *buf, size_t n, size_t items_done, size_t items_total,
                         size_t subs_done, size_t subs_total, double elapsed_s)
{
    char el[48], left[48] = "";
    duration_text(el, sizeof el, elapsed_s);
    if (items_done > 0 && items_done < items_total) {
        double rest = elapsed_s / (double)items_done * (double)(items_total - items_done);
        if (elapsed_s + rest > 60.0) {
            char r[40];
            duration_text(r, sizeof r, rest);
            snprintf(left, sizeof left, ", about %s left", r);
        }
    }
    snprintf(buf, n, "progress: %zu/%zu items (%zu/%zu submissions), %s%s", items_done,
             items_total, subs_done, subs_total, el, left);
    return buf;
}

/* The record of a workload the manifest's "supports" declines: verdict skipped, PTXBench status
 * NOT_APPLICABLE, one skipped "supports" stage whose message is the reason (JUnit shows it as a
 * skipped testcase, markdown as a skipped row), and the constraint under not_applicable. */
static json_t *declined_json(const pg_submission *s, int wi)
{
    const pg_task *t = s->task;
    const pg_workload *w = &t->workloads[wi];
    json_t *aliases = json_array(), *symbols = json_object();
    char vals[512];
    size_t used = 0;
    vals[0] = '\0';
    for (int a = 0; a < w->n_aliases; a++)
        json_array_append_new(aliases, json_string(w->aliases[a]));
    for (int k = 0; k < t->n_symbols; k++) {
        json_object_set_new(symbols, t->symbols[k], json_integer(w->values[k]));
        if (used < sizeof vals)
            used += (size_t)snprintf(vals + used, sizeof vals - used, "%s%s=%lld", k ? ", " : "",
                                     t->symbols[k], (long long)w->values[k]);
    }
    const char *names[PG_MAX_SYMBOLS];
    pg_symtab syms;
    int64_t flop = 0;
    pg_task_symtab(t, w, names, &syms);
    if (pg_expr_eval(t->flops, &syms, &flop, NULL, 0) != PG_OK || flop < 0)
        flop = 0;
    pg_stage_entry *e = pg_stage_entry_new(PG_STAGE_SUPPORTS);
    pg_stage_finish(e, "skipped", 0.0,
                    "not applicable: the manifest supports '%s', which %s does not meet; not run",
                    s->manifest->supports, vals);
    json_object_set_new(pg_stage_details(e), "constraint", pg_jstr(s->manifest->supports));
    json_t *st = e ? json_incref(e->record) : NULL;
    pg_stage_entry_free(e);
    json_t *j = json_pack("{s:s, s:o, s:o, s:f, s:s, s:[o], s:s, s:{s:o}, s:n, s:n, s:n, s:n, s:n}",
                          "name", w->name, "aliases", aliases, "symbols", symbols, "flop",
                          (double)flop, "verdict", "skipped", "stages", st, "status",
                          "NOT_APPLICABLE", "not_applicable", "constraint",
                          pg_jstr(s->manifest->supports), "max_absolute_error",
                          "max_relative_error", "latency_ms", "reference_latency_ms",
                          "speedup_factor");
    return j;
}

void pg_run_submission_done(pg_run *run, const pg_submission *s)
{
    /* Declined workloads go last, after every stage has written the records of the workloads
     * it ran (those are found by position). In a sharded run only the shard of the
     * submission's first workload still has them (shard_filter.c). */
    for (int i = 0; s->workloads_json && i < s->n_declined; i++)
        json_array_append_new(s->workloads_json, declined_json(s, s->declined[i]));
    run->items_done += (size_t)s->n_workloads;
    run->subs_done++;
    if (run->o->items_progress)
        run->o->items_progress(run->o->progress_ctx, run->items_done, run->items_total,
                               run->subs_done, run->subs_total, pg_now_s() - run->t0);
}

/* submissions[].device_symbols: the values of the run's GPU or the arch table's, and the
 * max_active_clusters values of the first workload's grids (the rule, cluster_sms / cluster
 * size; on a GPU each workload records the loaded kernel's value in
 * workloads[].max_active_clusters). */
static json_t *device_symbols_json(const pg_check_options *o, const pg_submission *s)
{
    json_t *j = pg_device_symbols_json(&s->device_symbols);
    json_t *mac = s->n_workloads ? pg_plan_clusters_json(s->manifest, &s->plans[0]) : NULL;
    if (!mac)
        return j;
    json_object_set_new(j, "max_active_clusters", mac);
    char rule[256];
    snprintf(rule, sizeof rule,
             "%s%lld / cluster size (one block per SM)%s", s->device_symbols.assumed
                 ? "assumed: cluster_sms " : "num_sms ",
             (long long)s->device_symbols.cluster_sms,
             o->no_gpu ? "" : "; on the GPU each workload records the value "
                              "cuOccupancyMaxActiveClusters gave for the loaded kernel");
    json_object_set_new(j, "max_active_clusters_rule", json_string(rule));
    return j;
}

/* The source's and the cubin's SHA-256 in the submission's record (null when unreadable or
 * not assembled): compare reports them, so two different kernels of one name are told apart. */
static void record_hashes(pg_submission *s, size_t o_max_bytes)
{
    char hex[PG_SHA256_HEX];
    pg_diag d;
    pg_diag_clear(&d);
    json_object_set_new(s->json, "source_sha256",
                        pg_sha256_file(s->manifest->source, o_max_bytes, hex, &d) == PG_OK
                            ? json_string(hex)
                            : json_null());
    pg_diag_clear(&d);
    json_object_set_new(s->json, "cubin_sha256",
                        s->cubin_path[0] &&
                                pg_sha256_file(s->cubin_path, (size_t)256 << 20, hex, &d) == PG_OK
                            ? json_string(hex)
                            : json_null());
}

/* The launch limits of the submission's architecture from its table (data/arch/<arch>.json), or
 * present false when there is no table for it. A table that exists but does not load is an
 * input error. */
static pg_status arch_launch_limits(const pg_run *run, const pg_submission *s,
                                    pg_arch_launch_limits *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (s->arch_table) {
        *out = s->arch_table->launch;
        return PG_OK;
    }
    char name[64], path[PG_PATH_MAX];
    struct stat sb;
    if (!run->o->arch_dir || !pg_arch_name_valid(s->arch))
        return PG_OK;
    snprintf(name, sizeof name, "%s.json", s->arch);
    pg_path_join(path, sizeof path, run->o->arch_dir, name);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return PG_OK;
    pg_arch_table *t = NULL;
    pg_status st = pg_arch_table_load_file(path, &t, d);
    if (st == PG_OK)
        *out = t->launch;
    pg_arch_table_free(t);
    return st;
}

/* A launch the GPU cannot take is an input error found before anything runs, by one rule
 * (launch_limits.h) on both paths: with a GPU against the device's limits, without one against
 * the architecture's table; messages name the architecture either way, so they are the same.
 * Blocks per cluster come from the table on both paths (no device attribute gives them). */
static pg_status check_launch_limits(pg_run *run, pg_submission *subs, size_t n, pg_diag *d)
{
    /* Without a GPU or a table, the limits every CUDA device shares (CUDA C++ Programming
     * Guide, "Compute Capabilities" table: 1024 threads per block, block z <= 64, grid y and
     * z <= 65535). */
    pg_device_info any = {.name = "any CUDA device", .max_threads_per_block = 1024,
                          .max_block_dim = {1024, 1024, 64},
                          .max_grid_dim = {2147483647, 65535, 65535},
                          .max_shared_per_block_optin = 2147483647, .cc_major = 9};
    const pg_device_info *info = pg_run_device_info(run);
    for (size_t i = 0; i < n; i++) {
        pg_arch_launch_limits table;
        pg_launch_limits lim;
        pg_status st = arch_launch_limits(run, &subs[i], &table, d);
        if (st != PG_OK)
            return st;
        if (!info && table.present) {
            pg_launch_limits_from_arch(&table, subs[i].arch, &lim);
        } else {
            const pg_device_info *dev = info ? info : &any;
            lim = (pg_launch_limits){.max_threads_per_block = dev->max_threads_per_block,
                                     .max_shared_per_block_optin = dev->max_shared_per_block_optin,
                                     .cc_major = dev->cc_major,
                                     .max_cluster_blocks_portable = table.max_cluster_blocks_portable,
                                     .max_cluster_blocks = table.max_cluster_blocks};
            snprintf(lim.target, sizeof lim.target, "%s", info ? subs[i].arch : any.name);
            for (int k = 0; k < 3; k++) {
                lim.max_block_dim[k] = dev->max_block_dim[k];
                lim.max_grid_dim[k] = dev->max_grid_dim[k];
            }
        }
        for (int w = 0; w < subs[i].n_workloads; w++) {
            st = pg_launch_limits_check(subs[i].manifest,
                                        &subs[i].task->workloads[subs[i].workloads[w]],
                                        &subs[i].plans[w], &lim, d);
            if (st != PG_OK)
                return st;
        }
    }
    return PG_OK;
}

/* The submission root (o->root or the repository's top level) and the tasks folder, resolved. */
static pg_status resolve_roots(pg_run *run, pg_diag *d)
{
    const pg_check_options *o = run->o;
    if (o->root) {
        struct stat sb;
        pg_diag rd;
        if (pg_path_resolve(o->root, run->root, sizeof run->root, &rd) != PG_OK)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--root", "'%s': %s", o->root,
                               rd.message);
        if (stat(run->root, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--root", "'%s' is not a folder",
                               o->root);
    } else {
        pg_status st = pg_root_default(run->root, sizeof run->root, d);
        if (st != PG_OK)
            return st;
    }
    pg_diag td;
    if (!o->tasks_dir ||
        pg_path_resolve(o->tasks_dir, run->tasks_root, sizeof run->tasks_root, &td) != PG_OK)
        run->tasks_root[0] = '\0'; /* loading a task says what is wrong */
    return PG_OK;
}

/* Every --workloads item selected a workload of some task of the run, and every submission
 * got at least one workload (a run never quietly skips a submission). With failed manifests in
 * the batch (keep-going) an unused item is not an error: it may be the failed submission's
 * task's, and the run fails on that submission anyway. */
static pg_status check_workload_filter(pg_run *run, pg_submission *subs, size_t n,
                                       bool manifests_failed, pg_diag *d)
{
    const pg_task **tasks = calloc(n ? n : 1, sizeof *tasks);
    if (!tasks)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    int nt = 0;
    for (size_t i = 0; i < n; i++)
        if (subs[i].task)
            tasks[nt++] = subs[i].task;
    pg_status st = manifests_failed ? PG_OK
                                    : pg_workload_filter_check_used(run->wfilter, tasks, nt, d);
    free(tasks);
    for (size_t i = 0; i < n && st == PG_OK; i++) {
        if (!subs[i].task || subs[i].n_workloads > 0)
            continue;
        char known[1024] = "";
        size_t used = 0;
        const pg_task *t = subs[i].task;
        for (int w = 0; w < t->n_workloads && used < sizeof known; w++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", w ? ", " : "",
                                     t->workloads[w].name);
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--workloads",
                         "'%s' selects no workload of task '%s' (submission %s); add one of its "
                         "workloads (known: %s), as %s:NAME to name this task's only",
                         run->o->workloads, t->id, subs[i].manifest->file, known, t->id);
    }
    return st;
}

/* A manifest of a batch that could not be prepared (keep-going): its position on the command
 * line and what was wrong, for its "manifest" stage. */
typedef struct {
    size_t pos;
    const char *path;
    pg_diag d;
} bad_manifest;

/* Is the input error the submission's own (its manifest, its task id, its source or the PTX
 * made of it), rather than the run's (a task file, the arch tables, an option)? */
static bool submission_fault(const char *manifest_path, const pg_submission *s, const pg_diag *d)
{
    if (d->status != PG_ERR_INPUT || !d->file[0])
        return false;
    if (strcmp(d->file, manifest_path) == 0)
        return true;
    return s->manifest && (strcmp(d->file, s->manifest->file) == 0 ||
                           strcmp(d->file, s->manifest->source) == 0 ||
                           (s->ptx_path[0] && strcmp(d->file, s->ptx_path) == 0));
}

/* The results record of a batch's manifest that failed: one failed "manifest" stage with the
 * file:field message, details naming the file, line and field (publish annotates them). */
static json_t *bad_manifest_json(const bad_manifest *b)
{
    char name[256], msg[3600];
    const char *base = strrchr(b->path, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : b->path);
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".json") == 0)
        name[len - 5] = '\0';
    pg_diag_format(&b->d, msg, sizeof msg);
    pg_stage_entry *e = pg_stage_entry_new(PG_STAGE_MANIFEST);
    pg_stage_finish(e, "fail", 0.0, "%s", msg);
    json_t *det = pg_stage_details(e);
    json_object_set_new(det, "file", pg_jstr(b->d.file));
    json_object_set_new(det, "line", b->d.line > 0 ? json_integer(b->d.line) : json_null());
    json_object_set_new(det, "field", b->d.field[0] ? pg_jstr(b->d.field) : json_null());
    json_t *st = e ? json_incref(e->record) : NULL;
    pg_stage_entry_free(e);
    json_t *j = json_object();
    json_object_set_new(j, "manifest", pg_jstr(b->path));
    json_object_set_new(j, "name", pg_jstr(name[0] ? name : b->path));
    json_object_set_new(j, "source", json_null());
    char task[128];
    pg_manifest_task_of_unloadable(b->path, task, sizeof task);
    json_object_set_new(j, "task", json_string(task));
    json_object_set_new(j, "arch", json_null());
    json_object_set_new(j, "device", json_null());
    json_object_set_new(j, "verdict", json_string("fail"));
    json_object_set_new(j, "stages", json_pack("[o]", st));
    json_object_set_new(j, "workloads", json_array());
    return j;
}

/* A submission's offline stages, after the manifest was prepared: assemble, the hashes, the
 * accepted kernel's assembly, the static half of the instructions stage. */
static void offline_stages(pg_run *run, pg_submission *s)
{
    pg_stage_assemble(run, s);
    record_hashes(s, run->o->max_ptx_bytes);
    pg_accepted_assemble(run, s);
    pg_instr_static(run, s);
}

/* The offline stages of the submission after the one whose worker runs, on their own thread,
 * holding the run's lock (which the GPU thread gives up while its worker runs). */
typedef struct {
    pg_run *run;
    pg_submission *s;
    pthread_t thread;
    bool started;
} offline_job;

static void *offline_main(void *arg)
{
    offline_job *j = arg;
    pthread_mutex_lock(j->run->lock);
    offline_stages(j->run, j->s);
    pthread_mutex_unlock(j->run->lock);
    return NULL;
}

pg_status pg_check_run(const pg_check_options *o, const char *const *manifests,
                       size_t n_manifests, json_t **results, pg_diag *d)
{
    *results = NULL;
    /* An incomplete installation, before any work (gate/base/datadir.h). */
    if (!o->tasks_dir)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no tasks folder found: %s",
                           pg_data_missing_fix(PG_DATA_TASKS));
    if (!o->arch_dir)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no PTX → SASS tables found: %s",
                           pg_data_missing_fix(PG_DATA_ARCH));
    pg_run run = {.o = o};
    pg_status st = PG_OK;
    pg_submission *subs = calloc(n_manifests ? n_manifests : 1, sizeof *subs);
    bad_manifest *bad = calloc(n_manifests ? n_manifests : 1, sizeof *bad);
    size_t *pos = calloc(n_manifests ? n_manifests : 1, sizeof *pos), n = 0, n_bad = 0;
    json_t *res = NULL, *shard = NULL;
    bool *active = NULL;
    const pg_executor *ex = pg_executor_for(o); /* where the GPU stages run (executor.h) */
    bool pool = pg_executor_pooled(o);          /* several GPUs at once */
    time_t now = time(NULL);
    double t0 = pg_now_s();
    run.t0 = t0;
    char started[32];
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (!subs || !bad || !pos) {
        free(subs);
        free(bad);
        free(pos);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    /* Also removes the folders of runs that died without cleaning up (tmpdir.h). */
    if ((st = pg_tmpdir_create(run.tmpdir, sizeof run.tmpdir, NULL, d)) != PG_OK) {
        free(subs);
        free(bad);
        free(pos);
        return st;
    }
    /* Interrupted (Ctrl-C, a CI job's SIGTERM) or killed: the tools running go, and so does
     * this folder; the tools' own temporary files (nvcc's tmpxft_*) are made inside it. */
    pg_children_on_fatal_signal(run.tmpdir);
    char tools_tmp[sizeof run.tmpdir + 8];
    snprintf(tools_tmp, sizeof tools_tmp, "%s/%s", run.tmpdir, PG_TMPDIR_TOOLS_SUBDIR);
    pg_process_set_tmpdir(tools_tmp);
    /* The isolated run's heater: the GPU's fingerprint and a warm GPU while the offline stages
     * run. */
    ex->run_start(&run);
    size_t prepared = 0, taken = 0;
    pg_submission *pre = NULL;
    pg_status *pre_status = NULL;
    pg_diag *pre_diag = NULL;
    st = resolve_roots(&run, d);
    if (st != PG_OK)
        goto done;
    if (o->workloads) {
        run.wfilter = malloc(sizeof *run.wfilter);
        st = run.wfilter ? pg_workload_filter_parse(o->workloads, run.wfilter, d)
                         : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        if (st != PG_OK)
            goto done;
    }
    /* A batch keeps going past a submission's own input error (docs/exit-codes.md): it is a
     * failed "manifest" stage of that submission. One submission, or a sharded run (whose
     * split must see the same valid items in every shard), stops with exit 2 as before. */
    bool keep_going = n_manifests > 1 && o->shard_count == 0;
    /* Every manifest prepared (and its .cu compiled) side by side, then taken in order. */
    pre = calloc(n_manifests ? n_manifests : 1, sizeof *pre);
    pre_status = calloc(n_manifests ? n_manifests : 1, sizeof *pre_status);
    pre_diag = calloc(n_manifests ? n_manifests : 1, sizeof *pre_diag);
    if (!pre || !pre_status || !pre_diag) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    pg_prepare_all(&run, manifests, n_manifests, pre, pre_status, pre_diag);
    for (size_t i = 0; i < n_manifests; i++) {
        subs[prepared] = pre[i]; /* moved: pre[i] is no longer released below */
        taken = i + 1;
        st = pre_status[i];
        *d = pre_diag[i];
        if (st == PG_OK)
            st = pg_accepted_prepare(&run, &subs[prepared], (int)i, d);
        if (st == PG_OK) {
            pos[prepared++] = i;
            continue;
        }
        if (keep_going && submission_fault(manifests[i], &subs[prepared], d)) {
            pg_submission_release(&subs[prepared]);
            bad[n_bad++] = (bad_manifest){.pos = i, .path = manifests[i], .d = *d};
            if (o->progress) {
                char msg[3600];
                o->progress(o->progress_ctx, "?", manifests[i], NULL, "manifest", "fail",
                            pg_diag_format(d, msg, sizeof msg));
            }
            pg_diag_clear(d);
            st = PG_OK;
            continue;
        }
        prepared++;
        goto done;
    }
    n = prepared;
    if (run.wfilter && (st = check_workload_filter(&run, subs, n, n_bad > 0, d)) != PG_OK)
        goto done;

    /* Holm's m: per workload the min_speedup comparison and, with an accepted kernel, the
     * regression comparison (counted even if it turns out SASS-identical: conservative). */
    for (size_t i = 0; i < n; i++)
        run.n_comparisons += subs[i].n_workloads * (subs[i].accepted.kernel ? 2 : 1);
    if ((st = ex->devices_open(&run, d)) != PG_OK)
        goto done;
    st = check_launch_limits(&run, subs, n, d);
    if (st == PG_OK)
        st = pg_baselines_resolve(&run, subs, n, d);
    if (st != PG_OK)
        goto done;
    if (o->shard_count > 0 && (st = pg_run_select_shard(&run, subs, n, &shard, d)) != PG_OK)
        goto done;

    res = json_pack("{s:i, s:{s:s, s:s}, s:s, s:f, s:s, s:i}", "schema_version", 1, "tool", "name",
                    "ptxgate", "version", PG_VERSION, "started_utc", started, "duration_s", 0.0,
                    "verdict", "pass", "exit_code", 0);
    json_t *subs_json = json_array();
    json_object_set_new(res, "submissions", subs_json);
    for (size_t i = 0; i < n; i++)
        if (!shard || subs[i].n_workloads > 0) {
            run.items_total += (size_t)subs[i].n_workloads;
            run.subs_total++;
        }
    active = calloc(n + 1, sizeof *active);
    if (!active) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0, b = 0; i < n || b < n_bad; i++) {
        /* The failed manifests at their places on the command line. */
        while (b < n_bad && (i >= n || bad[b].pos < pos[i]))
            json_array_append_new(subs_json, bad_manifest_json(&bad[b++]));
        if (i >= n)
            break;
        pg_submission *s = &subs[i];
        if (shard && s->n_workloads == 0)
            continue; /* none of its items is in this shard */
        active[i] = true;
        s->json = json_object();
        json_object_set_new(s->json, "manifest", pg_jstr(s->manifest->file));
        json_object_set_new(s->json, "name", pg_jstr(s->manifest->name));
        json_object_set_new(s->json, "source", pg_jstr(s->manifest->source));
        json_object_set_new(s->json, "task", pg_jstr(s->task->id));
        json_object_set_new(s->json, "arch", pg_jstr(s->arch));
        if (s->uses_device_symbols)
            json_object_set_new(s->json, "device_symbols", device_symbols_json(o, s));
        /* The device its GPU work was given to (the pool sets it when a device takes it). */
        s->device = pool ? -1 : o->device_ordinal;
        json_object_set_new(s->json, "device",
                            o->no_gpu || pool ? json_null() : json_integer(s->device));
        json_object_set_new(s->json, "verdict", json_string("skipped"));
        pg_submission_results_init(s, s->json);
        json_array_append_new(subs_json, s->json);
    }
    /* With isolated workers on one GPU, the next submission's offline stages run while this
     * one's worker has the GPU (the run's lock passes between the two threads). */
    bool overlap = o->worker_exe && !pool && !o->sanitize;
    pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
    if (overlap) {
        run.lock = &run_lock;
        pthread_mutex_lock(run.lock);
    }
    offline_job next_job = {.run = &run};
    for (size_t i = 0; i < n; i++) {
        if (!active[i])
            continue;
        pg_submission *s = &subs[i];
        if (next_job.s != s)
            offline_stages(&run, s);
        if (pool)
            continue; /* the GPU stages run on all devices below */
        size_t j = i + 1;
        while (j < n && !active[j])
            j++;
        next_job.s = NULL;
        if (overlap && j < n) {
            next_job.s = &subs[j];
            next_job.started = pthread_create(&next_job.thread, NULL, offline_main, &next_job) == 0;
            if (!next_job.started)
                next_job.s = NULL; /* run inline next round */
        }
        ex->submission(&run, s);
        if (next_job.started) {
            pthread_mutex_unlock(run.lock);
            pthread_join(next_job.thread, NULL);
            pthread_mutex_lock(run.lock);
            next_job.started = false;
        }
        if (o->sanitize)
            pg_stage_sanitize(&run, s);
        pg_run_submission_done(&run, s);
    }
    if (overlap) {
        pthread_mutex_unlock(run.lock);
        run.lock = NULL;
    }
    if (pool) {
        ex->submissions(&run, subs, n, active);
        for (size_t i = 0; i < n && o->sanitize; i++)
            if (active[i])
                pg_stage_sanitize(&run, &subs[i]); /* on devices[0], after the timing */
    }
    ex->run_end(&run);
    pg_perf_holm_finalize(&run);
    /* Holm's family: m_planned sized each comparison's level, m comparisons were made (merge
     * re-applies Holm over the shards' families from these and each comparison's p_fail_seq). */
    json_object_set_new(res, "holm",
                        json_pack("{s:f, s:i, s:I}", "run_alpha", PG_RUN_ALPHA, "m_planned",
                                  run.n_comparisons, "m", (json_int_t)run.n_perf));
    if (shard) {
        json_object_set_new(res, "shard", shard);
        shard = NULL;
    }
    json_object_set_new(res, "environment", pg_environment_json(&run));
    json_object_set_new(res, "baselines", pg_baselines_json(&run));
    json_object_set_new(res, "settings",
                        pg_check_settings_json(o, run.have_info
                                                      ? pg_flush_bytes_for_l2(run.info.l2_bytes)
                                                      : 0));
    json_object_set_new(res, "duration_s", json_real(pg_now_s() - t0));
    if ((st = pg_results_fold(res, o->shard_count > 0, d)) != PG_OK)
        goto done;
    *results = res;
    res = NULL;
done:
    ex->run_end(&run);
    for (size_t i = 0; i < prepared; i++)
        pg_submission_release(&subs[i]);
    for (size_t i = taken; pre && i < n_manifests; i++)
        pg_submission_release(&pre[i]);
    free(pre);
    free(pre_status);
    free(pre_diag);
    pg_accepted_cache_free(&run);
    free(subs);
    free(bad);
    free(pos);
    free(active);
    free(run.dev_infos);
    free(run.wfilter);
    json_decref(res);
    json_decref(shard);
    pg_perf_release(&run);
    pg_baselines_release(&run);
    if (run.dev)
        pg_device_close(run.dev);
    pg_process_set_tmpdir(NULL);
    pg_children_on_fatal_signal(NULL);
    pg_dirset_free(&run.include_roots);
    pg_tmpdir_remove(run.tmpdir);
    return st;
}
