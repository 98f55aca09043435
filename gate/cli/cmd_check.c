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
#include "model/devices.h"
#include "model/shard.h"
#include "model/task.h"
#include "pipeline/check.h"

static pg_option k_options[] = {
    {"tasks", "DIR", "Folder of task definitions (<id>/task.json). Default: $PTXGATE_TASKS, else ./tasks, else the installed share/ptxgate/tasks, else the tasks of the source tree ptxgate was built from.", NULL},
    {"root", "DIR", "Submission root: every manifest's source must resolve, symbolic links followed, inside it (else exit 2 naming the manifest, the field and the resolved path), and a .cu may include only files inside it, the tasks folder, the CUDA toolkit's include folders and the host compiler's system include folders (else its assemble stage fails, naming the include and the file that asked for it; nvcc is not run). The tasks folder is trusted configuration and may lie elsewhere; so may a task's own accepted kernel. Default: the repository's top level (the nearest folder above the current one holding .git), else the current folder.", NULL},
    {"output", "DIR", "Folder for results.json, junit.xml and summary.md (created if missing). Default: reports.", NULL},
    {"junit-copy", "PATH", "Also write junit.xml to PATH (for JUnit reporters; missing folders created), in the same all-or-nothing set as the reports and by the same rules: a symbolic link, FIFO, device or folder at PATH, or a link on the way to it, is refused (exit 2). Default: none.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --output folder (or on the way to it, or to --junit-copy's folder) instead of refusing it (exit 2); only together with an explicit --output. A link at a file's own name is refused regardless.", NULL},
    {"device", "N", "CUDA device ordinal. Default: 0.", NULL},
    {"devices", "LIST", "CUDA device ordinals of a multi-GPU runner, comma-separated (e.g. 0,1): submissions run concurrently, one worker process per GPU at a time, never two on one GPU; every device must be the same GPU model. Results are in the same order as on one device. Not with --no-isolation when more than one. Default: --device.", NULL},
    {"if-no-gpu", "skip|fail", "Without a usable GPU, mark GPU stages skipped (exit 0 if the offline stages pass) or fail as infrastructure (exit 3). Default: fail.", NULL},
    {"no-gpu", NULL, "Do not use the GPU: run the offline stages only. GPU stages are recorded as skipped (exit 0 when the offline stages pass), or as errors with --if-no-gpu fail.", NULL},
    {"min-speedup", "X", "Override every task's gate.min_speedup (speedup = baseline time / candidate time).", NULL},
    {"arch", "ARCH", "Target architecture for every submission (sm_NN or sm_NNa, e.g. sm_90a), overriding manifests and tasks. Default: the manifest's arch, else the task's default_arch.", NULL},
    {"instructions", "POLICY", "Target-instruction verification (docs/instructions.md), POLICY require, warn or off: a failed instructions stage fails the submission (require), is reported as a warning (warn), or the stage is not run (off). Default: each task's gate.instructions, else require.", NULL},
    {"workloads", "LIST", "Comma-separated workloads to run, one list for every task of the run: NAME (a workload name or alias, in every task that has it), TASK:NAME (that task's only) or @SELECTION (the workloads task.json tags with it, e.g. @ptxbench for PTXBench's headline workloads). An item no task of the run has, or a submission left without a workload, is exit 2. Default: all of each task's.", NULL},
    {"sets", "N", "Fresh random input sets per workload for correctness. Default: 3.", NULL},
    {"seed", "N", "Base seed of the input sets (each set's seed is recorded). Default: 20261129.", NULL},
    {"warmup", "N", "Untimed launches per arm and timing block. Default: 2 (1 for kernels over 20 ms).", NULL},
    {"repetitions", "N", "Most timed launches per arm and timing block, 1-10; the block statistic is their median. Default: 10 (fewer for kernels over 0.2 ms).", NULL},
    {"confidence", "X", "Confidence level of the speedup interval, in (0.5, 1). Default: 0.95.", NULL},
    {"mode", "cold|sustained", "Timing mode for every task: cold (L2 flushed before each timed launch) or sustained (CUDA graphs of back-to-back launches over rotated input copies). Default: each task's gate.timing_mode, else cold.", NULL},
    {"accepted-kernel", "MANIFEST|none", "Manifest of the accepted kernel the candidate must not be slower than (re-measured in the same run), or none. Default: each task's gate.accepted_kernel.", NULL},
    {"no-energy", NULL, "Skip the energy-per-launch windows (about 1 s per arm and workload).", NULL},
    {"baselines", "DIR|none", "Folder of stored baselines (<gpu-key>/<task>.json, docs/baselines.md): the fingerprint is compared, the stored vendor configuration (cuBLASLt algorithm, cuDNN engine configuration) pinned when the library version matches, and the live vendor time checked for runner drift. Default: $PTXGATE_BASELINES, else ./baselines when it exists, else none.", NULL},
    {"gpu-key", "KEY", "GPU key of this runner's baselines. Default: derived from the device name (\"NVIDIA H200\" -> h200-sxm).", NULL},
    {"on-missing-baseline", "measure|warn|fail", "Without a stored baseline for a task or workload: search the vendor library's configuration and note it (measure), the same with a warning (warn), or an infrastructure error without timing (fail). Default: measure.", NULL},
    {"on-drift", "warn|fail", "When the live vendor library time differs from the stored one beyond the tolerance (runner drift): a warning, or an infrastructure error (exit 3). Verdicts are decided on live measurements either way. Default: warn.", NULL},
    {"drift-tolerance", "X", "Relative tolerance of the drift check, in (0, 1); drift is reported only when both intervals put the ratio beyond it. Default: 0.05.", NULL},
    {"timeout", "S", "Seconds allowed for one tool run or one GPU wait. Default: 60.", NULL},
    {"recursive", NULL, "A DIR argument also stands for the manifests in its subfolders, down to 32 levels (e.g. submissions/<model-version>/<task>/*.json): one run, one combined report.", NULL},
    {"shard", "i/n", "Run only shard i of n (1 <= i <= n) of the (task, submission, workload) items: round-robin over the sorted items (docs/shards.md). Every manifest is still validated; the results record the shard and its items; combine the shards' results with 'ptxgate merge'.", NULL},
    {"max-ptx-bytes", "N", "Largest kernel source (.ptx or .cu) and PTX accepted, in bytes; a larger one is an input error (exit 2). Default: 67108864 (64 MiB).", NULL},
    {"no-isolation", NULL, "Run the GPU stages in this process instead of one worker process per submission (for debugging: a kernel that faults or hangs then ends the whole run's GPU work).", NULL},
    {"watchdog", "LIST", "Watchdog limits of the worker processes as STAGE=SECONDS,... for startup, load, correctness, performance, verify, exit and sanitize (correctness, performance and verify per workload; sanitize per compute-sanitizer run). Default: startup=120,load=300,correctness=900,performance=1800,verify=300,exit=30,sanitize=3600.", NULL},
    {"sanitize", "TOOLS", "Also run each submission's smallest workload under compute-sanitizer with these tools, comma-separated from memcheck, racecheck, synccheck, initcheck: a sanitize stage with the findings per kernel, failing per the task's gate.sanitizer policy. Skipped, saying so, when compute-sanitizer is not found.", NULL},
    {"quiet", NULL, "No progress lines on stderr (by default: each stage, and after each submission the items done of all and, for runs longer than a minute, the time left).", NULL},
    {"label", "TEXT", "Label of this run recorded in the results (run.label): a model version, a branch. 'ptxgate history --by label' orders runs by it.", NULL},
    {"commit", "SHA", "Commit hash of the kernels checked, recorded in the results (run.commit), e.g. $(git rev-parse HEAD).", NULL},
    {"commit-time", "TIME", "Commit time, ISO 8601 (e.g. $(git log -1 --format=%cI)), recorded in UTC (run.commit_time_utc); 'ptxgate history' orders runs by it.", NULL},
    {0},
};

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
    k_options,
};

/* --watchdog STAGE=SECONDS,...; false after printing what is wrong. */
static bool parse_watchdog(const char *list, pg_watchdog *w)
{
    char buf[512];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "ptxgate check: --watchdog: list too long\n");
        return false;
    }
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : 0;
        if (eq)
            *eq = '\0';
        if (!eq || end == eq + 1 || *end || !(v >= 0.1 && v <= 604800) ||
            !pg_watchdog_set(w, item, v)) {
            fprintf(stderr,
                    "ptxgate check: --watchdog: expected STAGE=SECONDS with STAGE one of startup, "
                    "load, correctness, performance, verify, exit, sanitize and 0.1 <= SECONDS <= 604800, "
                    "got '%s%s%s'\n",
                    item, eq ? "=" : "", eq ? eq + 1 : "");
            return false;
        }
    }
    return true;
}

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
static const char *table_message(const json_t *st, const char *gpu_reason)
{
    const char *m = json_string_value(json_object_get(st, "message"));
    if (m && gpu_reason && strcmp(m, gpu_reason) == 0)
        return "no GPU (reason below)";
    return m ? m : "";
}

/* The per-stage table on stdout. */
static void print_summary(const json_t *res)
{
    size_t i, j, k;
    json_t *sub, *wl, *st;
    json_t *env = json_object_get(res, "environment");
    const char *gpu_reason = json_string_value(json_object_get(env, "gpu_skip_reason"));
    json_array_foreach(json_object_get(res, "submissions"), i, sub) {
        const char *arch = json_string_value(json_object_get(sub, "arch"));
        printf("%s (%s, %s): %s\n", json_string_value(json_object_get(sub, "name")),
               json_string_value(json_object_get(sub, "task")), arch ? arch : "no arch",
               json_string_value(json_object_get(sub, "verdict")));
        json_array_foreach(json_object_get(sub, "stages"), k, st)
            printf("  %-12s %-8s %s\n", json_string_value(json_object_get(st, "stage")),
                   json_string_value(json_object_get(st, "status")), table_message(st, gpu_reason));
        json_array_foreach(json_object_get(sub, "workloads"), j, wl) {
            json_t *na = json_object_get(wl, "not_applicable");
            if (na) { /* declined by the manifest's supports: never run */
                printf("  workload %s: not applicable (supports: %s)\n",
                       json_string_value(json_object_get(wl, "name")),
                       json_string_value(json_object_get(na, "constraint")));
                continue;
            }
            printf("  workload %s: %s\n", json_string_value(json_object_get(wl, "name")),
                   json_string_value(json_object_get(wl, "verdict")));
            /* Stages that never ran repeat the submission's reason shown above. */
            if (strcmp(json_string_value(json_object_get(wl, "verdict")), "skipped") == 0)
                continue;
            json_array_foreach(json_object_get(wl, "stages"), k, st)
                printf("    %-12s %-8s %s\n", json_string_value(json_object_get(st, "stage")),
                       json_string_value(json_object_get(st, "status")),
                       table_message(st, gpu_reason));
        }
    }
    json_t *shard = json_object_get(res, "shard");
    if (shard)
        printf("shard %lld/%lld: %zu of %lld work items\n",
               (long long)json_integer_value(json_object_get(shard, "index")),
               (long long)json_integer_value(json_object_get(shard, "count")),
               json_array_size(json_object_get(shard, "items")),
               (long long)json_integer_value(json_object_get(shard, "items_total")));
    if (json_is_null(json_object_get(env, "gpu"))) {
        printf("GPU stages not run: %s\n", gpu_reason ? gpu_reason : "unknown");
        if (json_integer_value(json_object_get(res, "exit_code")) == 3)
            printf("(on a machine without a GPU, --if-no-gpu skip runs the offline stages and "
                   "exits by their verdicts)\n");
    }
    json_t *counts = json_object_get(res, "counts");
    if (shard && json_array_size(json_object_get(shard, "items")) == 0)
        printf("no work item fell in this shard: nothing to run\n");
    else if (json_integer_value(json_object_get(counts, "pass")) == 0 &&
        json_integer_value(json_object_get(counts, "fail")) == 0 &&
        json_integer_value(json_object_get(counts, "error")) == 0)
        printf("nothing was checked: every stage was skipped\n");
    size_t n;
    json_t *note;
    json_array_foreach(json_object_get(json_object_get(res, "baselines"), "notes"), n, note)
        printf("baseline note: %s\n", json_string_value(note));
    printf("verdict: %s (exit %d)\n", json_string_value(json_object_get(res, "verdict")),
           (int)json_integer_value(json_object_get(res, "exit_code")));
}

int pg_cmd_check(int argc, char **argv)
{
    char **pos = NULL, **manifests = NULL;
    int npos = 0, nman = 0, rc;
    json_t *res = NULL;
    char *text = NULL;
    pg_cli_output out = {.dir.fd = -1, .copy_dir.fd = -1};
    rc = pg_options_parse(&k_spec, argc, argv, &pos, &npos);
    if (rc != 0) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    rc = 2;
    if (npos == 0) {
        fprintf(stderr, "ptxgate check: no manifest given (see 'ptxgate check --help')\n");
        goto done;
    }
    pg_check_options o;
    pg_check_options_init(&o);
    o.tasks_dir = pg_option_value(&k_spec, "tasks") ? pg_option_value(&k_spec, "tasks")
                                                    : pg_cli_default_tasks_dir();
    o.root = pg_option_value(&k_spec, "root");
    long v;
    if (!pg_option_int(&k_spec, "device", 0, 1024, &v))
        goto done;
    o.device_ordinal = pg_option_value(&k_spec, "device") ? (int)v : 0;
    static int devices[PG_DEVICES_MAX];
    if (pg_option_value(&k_spec, "devices")) {
        pg_diag dd;
        pg_diag_clear(&dd);
        if (pg_devices_parse(pg_option_value(&k_spec, "devices"), devices, &o.n_devices, &dd) !=
            PG_OK) {
            rc = pg_cli_fail(&dd);
            goto done;
        }
        if (pg_option_value(&k_spec, "device") &&
            (o.n_devices != 1 || devices[0] != o.device_ordinal)) {
            fprintf(stderr, "ptxgate check: --device %d and --devices %s: give one of them\n",
                    o.device_ordinal, pg_option_value(&k_spec, "devices"));
            goto done;
        }
        if (o.n_devices > 1 && pg_option_value(&k_spec, "no-isolation")) {
            fprintf(stderr, "ptxgate check: --devices %s: several devices need worker processes; "
                            "not with --no-isolation\n", pg_option_value(&k_spec, "devices"));
            goto done;
        }
        o.devices = devices;
        o.device_ordinal = devices[0];
    }
    const char *nogpu = pg_option_value(&k_spec, "if-no-gpu");
    if (nogpu && strcmp(nogpu, "skip") != 0 && strcmp(nogpu, "fail") != 0) {
        fprintf(stderr, "ptxgate check: --if-no-gpu: expected 'skip' or 'fail', got '%s'\n", nogpu);
        goto done;
    }
    o.skip_without_gpu = nogpu && strcmp(nogpu, "skip") == 0;
    o.no_gpu = pg_option_value(&k_spec, "no-gpu") != NULL;
    if (o.no_gpu && !nogpu)
        o.skip_without_gpu = true; /* asked for offline: skipping is what was asked */
    if (!pg_option_double(&k_spec, "min-speedup", 1e-9, 1e9, &o.min_speedup_override) ||
        !pg_option_double(&k_spec, "confidence", 0.5, 0.9999, &o.confidence) ||
        !pg_option_double(&k_spec, "timeout", 0.1, 86400, &o.timeout_s))
        goto done;
    v = o.correctness_sets;
    if (!pg_option_int(&k_spec, "sets", 1, 100, &v))
        goto done;
    o.correctness_sets = (int)v;
    v = o.warmup;
    if (!pg_option_int(&k_spec, "warmup", 0, 100, &v))
        goto done;
    o.warmup = (int)v;
    v = o.repetitions;
    if (!pg_option_int(&k_spec, "repetitions", 1, 10, &v))
        goto done;
    o.repetitions = (int)v;
    v = (long)o.seed;
    if (!pg_option_int(&k_spec, "seed", 0, 0x7fffffffL, &v))
        goto done;
    o.seed = (uint64_t)v;
    v = (long)o.max_ptx_bytes;
    if (!pg_option_int(&k_spec, "max-ptx-bytes", 1, 1L << 40, &v))
        goto done;
    o.max_ptx_bytes = (size_t)v;
    o.workloads = pg_option_value(&k_spec, "workloads");
    /* An empty value would quietly select everything: name what was expected instead. */
    static const char *const non_empty[] = {"workloads", "accepted-kernel", "gpu-key", "watchdog",
                                            NULL};
    for (int i = 0; non_empty[i]; i++) {
        const char *v = pg_option_value(&k_spec, non_empty[i]);
        if (v && !v[0]) {
            fprintf(stderr, "ptxgate check: --%s: expected a value, got an empty string\n",
                    non_empty[i]);
            goto done;
        }
    }
    o.timing_mode = pg_option_value(&k_spec, "mode");
    if (o.timing_mode && !pg_timing_mode_valid(o.timing_mode)) {
        fprintf(stderr, "ptxgate check: --mode: expected 'cold' or 'sustained', got '%s'\n",
                o.timing_mode);
        goto done;
    }
    o.accepted_kernel = pg_option_value(&k_spec, "accepted-kernel");
    o.energy = pg_option_value(&k_spec, "no-energy") == NULL;
    o.arch = pg_option_value(&k_spec, "arch");
    if (o.arch && !pg_arch_name_valid(o.arch)) {
        fprintf(stderr, "ptxgate check: --arch: expected sm_ followed by 2-3 digits and an optional "
                        "'a' (e.g. sm_90a), got '%s'\n", o.arch);
        goto done;
    }
    o.instructions = pg_option_value(&k_spec, "instructions");
    if (o.instructions && strcmp(o.instructions, "require") != 0 &&
        strcmp(o.instructions, "warn") != 0 && strcmp(o.instructions, "off") != 0) {
        fprintf(stderr, "ptxgate check: --instructions: expected 'require', 'warn' or 'off', got "
                        "'%s'\n", o.instructions);
        goto done;
    }
    o.arch_dir = pg_cli_default_arch_dir();
    if (pg_option_value(&k_spec, "shard")) {
        pg_shard sh;
        pg_diag sd;
        if (pg_shard_parse(pg_option_value(&k_spec, "shard"), &sh, &sd) != PG_OK) {
            rc = pg_cli_fail(&sd);
            goto done;
        }
        o.shard_index = sh.index;
        o.shard_count = sh.count;
    }
    o.baselines_dir = pg_option_value(&k_spec, "baselines");
    if (!o.baselines_dir)
        o.baselines_dir = pg_cli_default_baselines_dir();
    else if (strcmp(o.baselines_dir, "none") == 0)
        o.baselines_dir = NULL;
    o.gpu_key = pg_option_value(&k_spec, "gpu-key");
    const char *miss = pg_option_value(&k_spec, "on-missing-baseline");
    if (miss && strcmp(miss, "measure") != 0 && strcmp(miss, "warn") != 0 &&
        strcmp(miss, "fail") != 0) {
        fprintf(stderr, "ptxgate check: --on-missing-baseline: expected 'measure', 'warn' or "
                        "'fail', got '%s'\n", miss);
        goto done;
    }
    o.on_missing_baseline = !miss || strcmp(miss, "measure") == 0 ? PG_MISSING_MEASURE
                            : strcmp(miss, "warn") == 0           ? PG_MISSING_WARN
                                                                  : PG_MISSING_FAIL;
    const char *drift = pg_option_value(&k_spec, "on-drift");
    if (drift && strcmp(drift, "warn") != 0 && strcmp(drift, "fail") != 0) {
        fprintf(stderr, "ptxgate check: --on-drift: expected 'warn' or 'fail', got '%s'\n", drift);
        goto done;
    }
    o.on_drift = drift && strcmp(drift, "fail") == 0 ? PG_ON_DRIFT_FAIL : PG_ON_DRIFT_WARN;
    if (!pg_option_double(&k_spec, "drift-tolerance", 1e-6, 0.999999, &o.drift_tolerance))
        goto done;
    if (pg_option_value(&k_spec, "watchdog") &&
        !parse_watchdog(pg_option_value(&k_spec, "watchdog"), &o.watchdog))
        goto done;
    /* Isolation runs this very binary as `ptxgate worker`. */
    static char self[4096];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = '\0';
        o.self_exe = self;
    }
    o.sanitize = pg_option_value(&k_spec, "sanitize");
    if (o.sanitize && !pg_sanitize_tools_valid(o.sanitize)) {
        fprintf(stderr, "ptxgate check: --sanitize: expected a comma-separated list of "
                        "memcheck, racecheck, synccheck, initcheck (each once), got '%s'\n",
                o.sanitize);
        goto done;
    }
    const char *forced = getenv("PTXGATE_WORKER");
    if (!pg_option_value(&k_spec, "no-isolation") && forced && forced[0]) {
        if (access(forced, X_OK) != 0) {
            fprintf(stderr, "ptxgate check: PTXGATE_WORKER is set to '%s', which is not an "
                            "executable\n", forced);
            goto done;
        }
        o.worker_exe = forced;
    } else if (!pg_option_value(&k_spec, "no-isolation")) {
        if (self_len <= 0) {
            fprintf(stderr, "ptxgate check: cannot find this program's own path (/proc/self/exe) "
                            "to start workers; use --no-isolation\n");
            rc = 3;
            goto done;
        }
        o.worker_exe = self;
    }
    if (!pg_option_value(&k_spec, "quiet")) {
        o.progress = progress;
        o.items_progress = items_progress;
    }
    const char *out_dir, *junit_copy;
    bool follow;
    if (!pg_cli_output_options(&k_spec, "reports", &out_dir, &junit_copy, &follow))
        goto done;
    if ((rc = pg_cli_expand_manifests(pos, npos, pg_option_value(&k_spec, "recursive") != NULL,
                                      &manifests, &nman)) != 0)
        goto done;
    rc = 2;

    pg_diag d;
    pg_diag_clear(&d);
    if (pg_cli_check_inputs_apart(out_dir, pg_cli_report_names, (const char *const *)manifests,
                                  (size_t)nman, &d) != PG_OK ||
        pg_cli_prepare_output(out_dir, junit_copy, follow, pg_cli_report_names, &out, &d) !=
            PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    json_t *run_meta = NULL;
    if (pg_history_run_meta(pg_option_value(&k_spec, "label"), pg_option_value(&k_spec, "commit"),
                            pg_option_value(&k_spec, "commit-time"), &run_meta, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    if (pg_check_run(&o, (const char *const *)manifests, (size_t)nman, &res, &d) != PG_OK) {
        /* No reports for this run: an earlier run's must not pass for them. (When writing the
         * reports fails below, the earlier ones are left whole instead.) */
        pg_cli_remove_outputs(&out, pg_cli_report_names);
        json_decref(run_meta);
        rc = pg_cli_fail(&d);
        goto done;
    }
    if (run_meta) /* the run's metadata (docs/results.md "run") */
        json_object_set_new(res, "run", run_meta);
    run_meta = NULL;
    text = json_dumps(res, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    char results_path[4200];
    snprintf(results_path, sizeof results_path, "%s/results.json", out_dir);
    if (!text || pg_cli_write_reports(&out, text, results_path, true, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    print_summary(res);
    printf("reports: %s/results.json, %s/junit.xml, %s/summary.md\n", out_dir, out_dir, out_dir);
    if (junit_copy)
        printf("JUnit copy: %s\n", junit_copy);
    rc = (int)json_integer_value(json_object_get(res, "exit_code"));
done:
    pg_cli_close_output(&out);
    for (int i = 0; i < nman; i++)
        free(manifests[i]);
    free(manifests);
    free(pos);
    free(text);
    json_decref(res);
    return rc;
}
