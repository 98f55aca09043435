/* `ptxgate check` orchestration: validate every submission offline first, then run the stages,
 * then fold stage statuses into verdicts and the exit code (docs/exit-codes.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "base/datadir.h"
#include "internal.h"
#include "report/verdicts.h"
#include "tool/children.h"

void pg_check_options_init(pg_check_options *o)
{
    memset(o, 0, sizeof *o);
    o->tasks_dir = "tasks";
    o->arch_dir = pg_data_dir(PG_DATA_ARCH, NULL); /* NULL when not found: pg_check_run says so */
    o->correctness_sets = 3;
    o->seed = 20261129;
    o->warmup = 2;
    o->repetitions = 10;
    o->confidence = 0.95;
    o->timeout_s = 60.0;
    o->energy = true;
    o->on_missing_baseline = PG_MISSING_MEASURE;
    o->on_drift = PG_ON_DRIFT_WARN;
    o->drift_tolerance = 0.05;
    o->max_ptx_bytes = (size_t)64 << 20;
    o->watchdog = (pg_watchdog){.startup_s = 120, .load_s = 300, .correctness_s = 900,
                                .performance_s = 1800, .verify_s = 300, .exit_s = 30,
                                .sanitize_s = 3600};
}

static double *watchdog_slot(pg_watchdog *w, const char *stage)
{
    static const char *const names[] = {"startup", "load",  "correctness", "performance",
                                        "verify",  "exit", "sanitize"};
    double *slots[] = {&w->startup_s, &w->load_s, &w->correctness_s, &w->performance_s,
                       &w->verify_s,  &w->exit_s, &w->sanitize_s};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (stage && strcmp(stage, names[i]) == 0)
            return slots[i];
    return NULL;
}

bool pg_sanitize_tools_valid(const char *list)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
    bool seen[4] = {false, false, false, false};
    const char *p = list;
    if (!p || !*p)
        return false;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (int i = 0; i < 4; i++)
            if (len == strlen(tools[i]) && strncmp(p, tools[i], len) == 0) {
                if (seen[i])
                    return false;
                seen[i] = known = true;
            }
        if (!known)
            return false;
        p += len;
        if (*p == ',' && *++p == '\0')
            return false;
    }
    return true;
}

bool pg_watchdog_set(pg_watchdog *w, const char *stage, double seconds)
{
    double *slot = watchdog_slot(w, stage);
    if (slot)
        *slot = seconds;
    return slot != NULL;
}

double pg_watchdog_limit(const pg_watchdog *w, const char *stage)
{
    double *slot = watchdog_slot((pg_watchdog *)w, stage);
    return slot ? *slot : w->startup_s;
}

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

static void remove_tmpdir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    char path[PG_PATH_MAX + 300];
    while ((e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(dp);
    rmdir(dir);
}

static json_t *settings_json(const pg_check_options *o, size_t flush_bytes)
{
    json_t *j = json_pack("{s:i, s:I, s:i, s:i, s:I, s:f, s:o, s:f, s:o, s:o, s:b}",
                          "correctness_sets", o->correctness_sets, "seed", (json_int_t)o->seed,
                          "warmup", o->warmup, "repetitions", o->repetitions, "flush_l2_bytes",
                          (json_int_t)flush_bytes, "confidence", o->confidence,
                          "min_speedup_override",
                          o->min_speedup_override > 0 ? json_real(o->min_speedup_override)
                                                      : json_null(),
                          "timeout_s", o->timeout_s, "timing_mode_override",
                          o->timing_mode ? json_string(o->timing_mode) : json_null(),
                          "accepted_kernel_override",
                          o->accepted_kernel ? pg_jstr(o->accepted_kernel) : json_null(),
                          "energy", o->energy);
    json_object_set_new(j, "isolation", json_string(o->worker_exe ? "process" : "none"));
    json_t *devs = json_array();
    for (int k = 0; k < o->n_devices; k++)
        json_array_append_new(devs, json_integer(o->devices[k]));
    if (o->n_devices < 1)
        json_array_append_new(devs, json_integer(o->device_ordinal));
    json_object_set_new(j, "devices", devs);
    json_object_set_new(j, "sanitize", o->sanitize ? json_string(o->sanitize) : json_null());
    json_object_set_new(j, "max_ptx_bytes", json_integer((json_int_t)o->max_ptx_bytes));
    const pg_watchdog *w = &o->watchdog;
    json_object_set_new(j, "watchdog_s",
                        o->worker_exe
                            ? json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "startup",
                                        w->startup_s, "load", w->load_s, "correctness",
                                        w->correctness_s, "performance", w->performance_s,
                                        "verify", w->verify_s, "exit", w->exit_s, "sanitize",
                                        w->sanitize_s)
                            : json_null());
    return j;
}

/* With a GPU at hand, a launch it cannot take is an input error found before anything runs. */
static pg_status check_device_limits(pg_run *run, pg_submission *subs, size_t n, pg_diag *d)
{
    /* Without a GPU, the limits every CUDA device shares (CUDA C++ Programming Guide, "Compute
     * Capabilities" table: 1024 threads per block, block z <= 64, grid y and z <= 65535). */
    pg_device_info any = {.name = "any CUDA device", .max_threads_per_block = 1024,
                          .max_block_dim = {1024, 1024, 64},
                          .max_grid_dim = {2147483647, 65535, 65535},
                          .max_shared_per_block_optin = 2147483647, .cc_major = 9};
    const pg_device_info *info = pg_run_device_info(run);
    if (!info)
        info = &any;
    pg_launch_limits lim = {.max_threads_per_block = info->max_threads_per_block,
                            .max_shared_per_block_optin = info->max_shared_per_block_optin,
                            .cc_major = info->cc_major};
    snprintf(lim.device_name, sizeof lim.device_name, "%s", info->name);
    for (int i = 0; i < 3; i++) {
        lim.max_block_dim[i] = info->max_block_dim[i];
        lim.max_grid_dim[i] = info->max_grid_dim[i];
    }
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < subs[i].n_workloads; w++) {
            pg_status st = pg_launch_limits_check(
                subs[i].manifest, &subs[i].task->workloads[subs[i].workloads[w]], &subs[i].plans[w],
                &lim, d);
            if (st != PG_OK)
                return st;
        }
    return PG_OK;
}

pg_status pg_check_run(const pg_check_options *o, const char *const *manifests, size_t n,
                       json_t **results, pg_diag *d)
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
    pg_submission *subs = calloc(n ? n : 1, sizeof *subs);
    json_t *res = NULL, *shard = NULL;
    bool *active = NULL;
    bool pool = o->worker_exe && o->n_devices > 1; /* several GPUs: worker_pool.c */
    time_t now = time(NULL);
    double t0 = pg_now_s();
    char started[32];
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const char *tmp = getenv("TMPDIR");
    snprintf(run.tmpdir, sizeof run.tmpdir, "%s/ptxgate.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!subs || !mkdtemp(run.tmpdir)) {
        free(subs);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cannot create a temporary folder");
    }
    /* Interrupted (Ctrl-C, a CI job's SIGTERM): the tools running go, and so does this folder. */
    pg_children_on_fatal_signal(run.tmpdir);
    size_t prepared = 0;
    for (; prepared < n; prepared++) {
        st = pg_submission_prepare(&run, manifests[prepared], (int)prepared, &subs[prepared], d);
        if (st != PG_OK) {
            prepared++;
            goto done;
        }
    }

    /* Holm's m: per workload the min_speedup comparison and, with an accepted kernel, the
     * regression comparison (counted even if it turns out SASS-identical: conservative). */
    for (size_t i = 0; i < n; i++)
        run.n_comparisons += subs[i].n_workloads * (subs[i].accepted ? 2 : 1);
    if (pool && !o->no_gpu && (st = pg_worker_pool_probe(&run, d)) != PG_OK)
        goto done;
    st = check_device_limits(&run, subs, n, d);
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
    active = calloc(n + 1, sizeof *active);
    if (!active) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
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
        /* The device its GPU work was given to (the pool sets it when a device takes it). */
        s->device = pool ? -1 : o->device_ordinal;
        json_object_set_new(s->json, "device",
                            o->no_gpu || pool ? json_null() : json_integer(s->device));
        json_object_set_new(s->json, "verdict", json_string("skipped"));
        json_object_set_new(s->json, "stages", json_array());
        json_object_set_new(s->json, "workloads", json_array());
        json_array_append_new(subs_json, s->json);
        pg_stage_assemble(&run, s);
        pg_accepted_assemble(&run, s);
        pg_instr_static(&run, s);
        if (pool)
            continue; /* the GPU stages run on all devices below */
        if (o->worker_exe)
            pg_worker_stages_gpu(&run, s);
        else
            pg_stages_gpu(&run, s);
        if (o->sanitize)
            pg_stage_sanitize(&run, s);
    }
    if (pool) {
        pg_worker_pool_run(&run, subs, n, active);
        for (size_t i = 0; i < n && o->sanitize; i++)
            if (active[i])
                pg_stage_sanitize(&run, &subs[i]); /* on devices[0], after the timing */
    }
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
                        settings_json(o, run.have_info ? pg_flush_bytes_for_l2(run.info.l2_bytes)
                                                       : 0));
    json_object_set_new(res, "duration_s", json_real(pg_now_s() - t0));
    pg_results_fold(res, o->shard_count > 0);
    *results = res;
    res = NULL;
done:
    for (size_t i = 0; i < prepared; i++)
        pg_submission_release(&subs[i]);
    free(subs);
    free(active);
    free(run.dev_infos);
    json_decref(res);
    json_decref(shard);
    pg_perf_release(&run);
    pg_baselines_release(&run);
    if (run.dev)
        pg_device_close(run.dev);
    pg_children_on_fatal_signal(NULL);
    remove_tmpdir(run.tmpdir);
    return st;
}
