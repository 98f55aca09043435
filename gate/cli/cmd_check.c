/* `ptxgate check`: run submissions through the gate and write the reports. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "report/history.h"
#include "report/results_read.h"
#include "pipeline/check.h"

static pg_command_spec k_spec = {
    "check",
    "ptxgate check [options] MANIFEST.json|DIR ...",
    "Check PTX kernel submissions: assemble, load, correctness against ptxgate's reference, the "
    "task's target instructions, and speed against the vendor library (cuBLASLt, cuDNN).",
    "A DIR argument stands for every *.json manifest in it (task.json, results.json and\n"
    "compare.json excluded); with --recursive, in its subfolders too.\n"
    "Target instructions are checked against data/arch/<arch>.json ($PTXGATE_ARCH_DATA, else the\n"
    "installed share/ptxgate/arch, else the source tree's data/arch); the SASS part needs nvdisasm\n"
    "or cuobjdump ($PTXGATE_NVDISASM, $PTXGATE_CUOBJDUMP, PATH, next to ptxas) and is skipped,\n"
    "never passed, without one. See docs/instructions.md.\n"
    "Exit codes: 0 pass, 1 gate failure (a kernel failed a stage), 2 usage or input error,\n"
    "3 infrastructure (no GPU, driver, library or tool failure). See docs/exit-codes.md.",
    "  ptxgate check tasks/gemm_bf16_nt/examples/tiled_mma.json\n"
    "  ptxgate check --workloads m4096_n4096_k4096 --output out tasks/gemm_bf16_nt/examples\n"
    "  ptxgate check --workloads @ptxbench --output out tasks/*/examples  # PTXBench headline set\n"
    "  ptxgate check --if-no-gpu skip tasks/gemm_bf16_nt/examples   # without a GPU: offline stages\n"
    "  ptxgate check --recursive --output reports submissions/   # a suite: every model version and task\n"
    "  ptxgate check --shard 2/4 --output shard2 submissions/     # one shard of four, then:\n"
    "  ptxgate merge --output reports shard*/results.json",
    NULL, /* the options: pg_check_option_table() (pipeline/settings.c) */
};

/* Progress lines on stderr. A failure message repeated from the line before (the same missing
 * GPU for every stage of every workload) is shortened to "same as above". */
static void progress(void *ctx, const char *task, const char *sub, const char *workload,
                     const char *stage, const char *status, const char *message)
{
    static char last[1024];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* --devices: one thread a GPU */
    if (!status) {
        fprintf(stderr, "[%s/%s] %s%s%s ...\n", task, sub, stage, workload ? " " : "",
                workload ? workload : "");
        return;
    }
    pthread_mutex_lock(&lock);
    bool repeated = message && message[0] && strcmp(status, "pass") != 0 &&
                    strncmp(message, last, sizeof last - 1) == 0;
    fprintf(stderr, "[%s/%s] %s%s%s: %s%s%s\n", task, sub, stage, workload ? " " : "",
            workload ? workload : "", status, message && message[0] ? " — " : "",
            repeated ? "same as above" : message ? message : "");
    snprintf(last, sizeof last, "%s", strcmp(status, "pass") != 0 && message ? message : "");
    pthread_mutex_unlock(&lock);
    (void)ctx;
}

/* After each submission: done/total items, and an ETA once the run looks longer than a minute. */
static void items_progress(void *ctx, size_t done, size_t total, size_t subs_done,
                           size_t subs_total, double elapsed_s)
{
    char line[256];
    fprintf(stderr, "%s\n",
            pg_progress_format(line, sizeof line, done, total, subs_done, subs_total, elapsed_s));
    (void)ctx;
}

/* A stage's message for the table: the missing GPU's reason is printed once, at the end. */
static const char *table_message(const pg_res_stage *st, const char *gpu_reason)
{
    if (gpu_reason && strcmp(st->message, gpu_reason) == 0)
        return "no GPU (reason below)";
    return st->message;
}

/* The per-stage table on stdout, from the typed results just written (r) and, for one shard of
 * a split run, its shard record (NULL otherwise). */
static void print_summary(const pg_results *r, const pg_res_shard *shard)
{
    const char *gpu_reason = r->env.gpu_skip_reason;
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *sub = &r->subs[i];
        printf("%s (%s, %s): %s\n", sub->name, sub->task, sub->arch ? sub->arch : "no arch",
               pg_res_status_name(sub->verdict));
        for (size_t k = 0; k < sub->n_stages; k++)
            printf("  %-12s %-8s %s\n", sub->stages[k].stage,
                   pg_res_status_name(sub->stages[k].status),
                   table_message(&sub->stages[k], gpu_reason));
        for (size_t j = 0; j < sub->n_workloads; j++) {
            const pg_res_workload *wl = &sub->workloads[j];
            const char *constraint = NULL;
            if (pg_res_workload_declined(wl, &constraint)) { /* by the manifest's supports */
                printf("  workload %s: not applicable (supports: %s)\n", wl->name,
                       constraint ? constraint : "");
                continue;
            }
            printf("  workload %s: %s\n", wl->name, pg_res_status_name(wl->verdict));
            /* Stages that never ran repeat the submission's reason shown above. */
            if (wl->verdict == PG_RES_SKIPPED)
                continue;
            for (size_t k = 0; k < wl->n_stages; k++)
                printf("    %-12s %-8s %s\n", wl->stages[k].stage,
                       pg_res_status_name(wl->stages[k].status),
                       table_message(&wl->stages[k], gpu_reason));
        }
    }
    if (shard)
        printf("shard %d/%d: %zu of %lld work items\n", shard->index, shard->count,
               shard->n_items, (long long)shard->items_total);
    if (!r->env.has_gpu) {
        printf("GPU stages not run: %s\n", gpu_reason ? gpu_reason : "unknown");
        if (r->exit_code == 3)
            printf("(on a machine without a GPU, --if-no-gpu skip runs the offline stages and "
                   "exits by their verdicts)\n");
    }
    if (shard && shard->n_items == 0)
        printf("no work item fell in this shard: nothing to run\n");
    else if (r->counts[PG_RES_PASS].v == 0 && r->counts[PG_RES_FAIL].v == 0 &&
             r->counts[PG_RES_ERROR].v == 0) /* v is 0 when a count is missing */
        printf("nothing was checked: every stage was skipped\n");
    for (size_t n = 0; n < r->baselines.n_notes; n++)
        printf("baseline note: %s\n", r->baselines.notes[n]);
    printf("verdict: %s (exit %d)\n", pg_res_status_name(r->verdict), (int)r->exit_code);
}

/* The command line into *o: the defaults, every option given (pipeline/settings.c converts and
 * checks each), the rules between them, then what this process adds (the worker binary, the
 * progress lines). Returns 0, -1 after --help, or the exit code after printing the problem. */
static int parse(int argc, char **argv, pg_check_options *o, pg_opt_args *args)
{
    int rc = pg_options_parse_table(&k_spec, pg_check_option_table(), argc, argv, args);
    if (rc != 0)
        return rc;
    if (args->npos == 0) {
        fprintf(stderr, "ptxgate check: no manifest given (see 'ptxgate check --help')\n");
        return 2;
    }
    pg_check_options_init(o);
    o->tasks_dir = pg_cli_default_tasks_dir();
    o->baselines_dir = pg_cli_default_baselines_dir();
    if ((rc = pg_options_apply(&k_spec, pg_check_option_table(), args, o)) != 0)
        return rc;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_check_options_finish(o, args, &d) != PG_OK)
        return pg_options_fail(&k_spec, &d);
    /* Isolation runs this very binary as `ptxgate worker`. */
    static char self[4096];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = '\0';
        o->self_exe = self;
    }
    const char *forced = getenv("PTXGATE_WORKER");
    if (!o->no_isolation && forced && forced[0]) {
        if (access(forced, X_OK) != 0) {
            fprintf(stderr, "ptxgate check: PTXGATE_WORKER is set to '%s', which is not an "
                            "executable\n", forced);
            return 2;
        }
        o->worker_exe = forced;
    } else if (!o->no_isolation) {
        if (self_len <= 0) {
            fprintf(stderr, "ptxgate check: cannot find this program's own path (/proc/self/exe) "
                            "to start workers; use --no-isolation\n");
            return 3;
        }
        o->worker_exe = self;
    }
    if (!o->quiet) {
        o->progress = progress;
        o->items_progress = items_progress;
    }
    bool explicit_output =
        pg_opt_given(pg_check_option_table(), args, offsetof(pg_check_options, output_dir));
    if (!pg_cli_output_check(k_spec.name, explicit_output ? o->output_dir : NULL, o->junit_copy,
                             o->follow_output_link))
        return 2;
    return 0;
}

/* Run the manifests and write the reports into o->output_dir. Returns the exit code. */
static int run_and_write(const pg_check_options *o, char **manifests, int nman)
{
    pg_cli_output out = {.dir.fd = -1, .copy_dir.fd = -1};
    json_t *res = NULL, *run_meta = NULL;
    char *text = NULL;
    pg_results typed = {0};
    pg_res_shard shard = {0};
    int rc;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_cli_check_inputs_apart(o->output_dir, pg_cli_report_names,
                                  (const char *const *)manifests, (size_t)nman, &d) != PG_OK ||
        pg_cli_prepare_output(o->output_dir, o->junit_copy, o->follow_output_link,
                              pg_cli_report_names, &out, &d) != PG_OK ||
        pg_history_run_meta(o->label, o->commit, o->commit_time, &run_meta, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    if (pg_check_run(o, (const char *const *)manifests, (size_t)nman, &res, &d) != PG_OK) {
        /* No reports for this run: an earlier run's must not pass for them. (When writing the
         * reports fails below, the earlier ones are left whole instead.) */
        pg_cli_remove_outputs(&out, pg_cli_report_names);
        rc = pg_cli_fail(&d);
        goto done;
    }
    if (run_meta) /* the run's metadata (docs/results.md "run") */
        json_object_set_new(res, "run", run_meta);
    run_meta = NULL;
    text = json_dumps(res, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    char results_path[4200];
    snprintf(results_path, sizeof results_path, "%s/results.json", o->output_dir);
    if (!text || pg_cli_write_reports(&out, text, results_path, true, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    /* The summary reads what was written through the results reader, as every report does
     * (the reports above passed the same checks). */
    long long shard_index, shard_count;
    bool is_shard = pg_results_shard_label(res, &shard_index, &shard_count);
    if (pg_results_read(res, results_path, &typed, &d) != PG_OK ||
        (is_shard && pg_results_read_shard(&typed, &shard, &d) != PG_OK)) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    print_summary(&typed, is_shard ? &shard : NULL);
    printf("reports: %s/results.json, %s/junit.xml, %s/summary.md\n", o->output_dir,
           o->output_dir, o->output_dir);
    if (o->junit_copy)
        printf("JUnit copy: %s\n", o->junit_copy);
    rc = (int)typed.exit_code;
done:
    pg_res_shard_free(&shard);
    pg_results_free(&typed);
    pg_cli_close_output(&out);
    json_decref(run_meta);
    free(text);
    json_decref(res);
    return rc;
}

int pg_cmd_check(int argc, char **argv)
{
    pg_check_options o;
    pg_opt_args args;
    char **manifests = NULL;
    int nman = 0;
    int rc = parse(argc, argv, &o, &args);
    if (rc == 0)
        rc = pg_cli_expand_manifests(args.positional, args.npos, o.recursive, &manifests, &nman);
    if (rc == 0)
        rc = run_and_write(&o, manifests, nman);
    for (int i = 0; i < nman; i++)
        free(manifests[i]);
    free(manifests);
    pg_opt_args_free(&args);
    return rc < 0 ? 0 : rc;
}
