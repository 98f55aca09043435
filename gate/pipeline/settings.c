/* The settings of `ptxgate check` (settings.h): the option table, the rules between options,
 * the results record and the worker job's options. */
#include "settings.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "results_json.h"
#include "model/shard.h"
#include "model/task.h"

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

/* --devices LIST: the ordinals (model/devices.h says what is accepted). */
static pg_status parse_devices(const pg_opt *row, const char *text, void *obj, pg_diag *d)
{
    pg_check_options *o = obj;
    (void)row;
    return pg_devices_parse(text, o->devices, &o->n_devices, d);
}

static pg_status parse_arch(const pg_opt *row, const char *text, void *obj, pg_diag *d)
{
    if (!pg_arch_name_valid(text))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "--arch: expected sm_ followed by 2-3 digits and an optional 'a' "
                           "(e.g. sm_90a), got '%s'", text);
    *(const char **)pg_opt_field(row, obj) = text;
    return PG_OK;
}

/* --baselines DIR|none: none is no stored baselines (NULL). */
static pg_status parse_baselines(const pg_opt *row, const char *text, void *obj, pg_diag *d)
{
    (void)d;
    *(const char **)pg_opt_field(row, obj) = strcmp(text, "none") == 0 ? NULL : text;
    return PG_OK;
}

static pg_status parse_shard(const pg_opt *row, const char *text, void *obj, pg_diag *d)
{
    pg_check_options *o = obj;
    pg_shard sh;
    (void)row;
    pg_status st = pg_shard_parse(text, &sh, d);
    if (st == PG_OK) {
        o->shard_index = sh.index;
        o->shard_count = sh.count;
    }
    return st;
}

/* --watchdog STAGE=SECONDS,... */
static pg_status parse_watchdog(const pg_opt *row, const char *list, void *obj, pg_diag *d)
{
    pg_check_options *o = obj;
    char buf[512];
    (void)row;
    if (strlen(list) >= sizeof buf)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "--watchdog: list too long");
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : 0;
        if (eq)
            *eq = '\0';
        if (!eq || end == eq + 1 || *end || !(v >= 0.1 && v <= 604800) ||
            !pg_watchdog_set(&o->watchdog, item, v))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "--watchdog: expected STAGE=SECONDS with STAGE one of startup, "
                               "load, correctness, performance, verify, exit, sanitize and 0.1 "
                               "<= SECONDS <= 604800, got '%s%s%s'",
                               item, eq ? "=" : "", eq ? eq + 1 : "");
    }
    return PG_OK;
}

static pg_status parse_sanitize(const pg_opt *row, const char *text, void *obj, pg_diag *d)
{
    if (!pg_sanitize_tools_valid(text))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "--sanitize: expected a comma-separated list of memcheck, racecheck, "
                           "synccheck, initcheck (each once), got '%s'", text);
    *(const char **)pg_opt_field(row, obj) = text;
    return PG_OK;
}

/* Record values that are not one field's. ctx of the record rows: the run's L2 flush size. */
static json_t *record_devices(const pg_opt *row, const void *obj, const void *ctx)
{
    const pg_check_options *o = obj;
    json_t *devs = json_array();
    (void)row;
    (void)ctx;
    for (int k = 0; k < o->n_devices; k++)
        json_array_append_new(devs, json_integer(o->devices[k]));
    if (o->n_devices < 1)
        json_array_append_new(devs, json_integer(o->device_ordinal));
    return devs;
}

static json_t *record_isolation(const pg_opt *row, const void *obj, const void *ctx)
{
    const pg_check_options *o = obj;
    (void)row;
    (void)ctx;
    return json_string(o->worker_exe ? "process" : "none");
}

/* The limits apply to workers only: null in a run without them. */
static json_t *record_watchdog(const pg_opt *row, const void *obj, const void *ctx)
{
    const pg_check_options *o = obj;
    const pg_watchdog *w = &o->watchdog;
    (void)row;
    (void)ctx;
    if (!o->worker_exe)
        return json_null();
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "startup", w->startup_s, "load",
                     w->load_s, "correctness", w->correctness_s, "performance", w->performance_s,
                     "verify", w->verify_s, "exit", w->exit_s, "sanitize", w->sanitize_s);
}

static json_t *record_flush(const pg_opt *row, const void *obj, const void *ctx)
{
    (void)row;
    (void)obj;
    return json_integer((json_int_t)*(const size_t *)ctx);
}

/* The folder relative paths in the results are relative to; reports give paths relative to it
 * (JUnit file attributes). */
static json_t *record_cwd(const pg_opt *row, const void *obj, const void *ctx)
{
    char cwd[4096];
    (void)row;
    (void)obj;
    (void)ctx;
    return getcwd(cwd, sizeof cwd) ? pg_jstr(cwd) : json_null();
}

static const pg_opt_choice k_if_no_gpu[] = {{"skip", 1}, {"fail", 0}, {NULL, 0}};
static const pg_opt_choice k_instructions[] = {{"require", 0}, {"warn", 0}, {"off", 0},
                                               {NULL, 0}};
/* The timing modes a task's gate.timing_mode accepts too (pg_timing_mode_valid). */
static const pg_opt_choice k_mode[] = {{"cold", 0}, {"sustained", 0}, {NULL, 0}};
static const pg_opt_choice k_on_missing[] = {{"measure", PG_MISSING_MEASURE},
                                             {"warn", PG_MISSING_WARN},
                                             {"fail", PG_MISSING_FAIL},
                                             {NULL, 0}};
static const pg_opt_choice k_on_drift[] = {{"warn", PG_ON_DRIFT_WARN},
                                           {"fail", PG_ON_DRIFT_FAIL},
                                           {NULL, 0}};

#define F(field) PG_OPT_FIELD(pg_check_options, field)

/* In --help order. rec_pos: the key's place in results.json "settings"; job_pos: in the worker
 * job's "options" (both orders are part of the formats: docs/results.md, worker.h). */
static const pg_opt k_table[] = {
    {"tasks", "DIR",
     "Folder of task definitions (<id>/task.json). Default: $PTXGATE_TASKS, else "
     "./tasks, else the installed share/ptxgate/tasks, else the tasks of the source "
     "tree ptxgate was built from.",
     PG_OPT_STRING, F(tasks_dir), .def_str = "tasks"},
    {"root", "DIR",
     "Submission root: every manifest's source must resolve, symbolic links followed, "
     "inside it (else exit 2 naming the manifest, the field and the resolved path), "
     "and a .cu may include only files inside it, the tasks folder, the CUDA toolkit's "
     "include folders and the host compiler's system include folders (else its "
     "assemble stage fails, naming the include and the file that asked for it; nvcc is "
     "not run). The tasks folder is trusted configuration and may lie elsewhere; so "
     "may a task's own accepted kernel. Default: the repository's top level (the "
     "nearest folder above the current one holding .git), else the current folder.",
     PG_OPT_STRING, F(root)},
    {"output", "DIR",
     "Folder for results.json, junit.xml and summary.md (created if missing). Default: "
     "reports.",
     PG_OPT_STRING, F(output_dir), .def_str = "reports"},
    {"junit-copy", "PATH",
     "Also write junit.xml to PATH (for JUnit reporters; missing folders created), in "
     "the same all-or-nothing set as the reports and by the same rules: a symbolic "
     "link, FIFO, device or folder at PATH, or a link on the way to it, is refused "
     "(exit 2). Default: none.",
     PG_OPT_STRING, F(junit_copy)},
    {"follow-output-link", NULL,
     "Write through a symbolic link at the --output folder (or on the way to it, or to "
     "--junit-copy's folder) instead of refusing it (exit 2); only together with an "
     "explicit --output. A link at a file's own name is refused regardless.",
     PG_OPT_FLAG, F(follow_output_link)},
    {"device", "N",
     "CUDA device ordinal. Default: 0.",
     PG_OPT_INT, F(device_ordinal), .lo = 0, .hi = PG_DEVICE_ORDINAL_MAX,
     .job_key = "device", .job_pos = 1},
    {"devices", "LIST",
     "CUDA device ordinals of a multi-GPU runner, comma-separated (e.g. 0,1): "
     "submissions run concurrently, one worker process per GPU at a time, never two on "
     "one GPU; every device must be the same GPU model. Results are in the same order "
     "as on one device. Not with --no-isolation when more than one. Default: --device.",
     PG_OPT_CUSTOM, F(devices), .parse = parse_devices,
     .rec_key = "devices", .rec_pos = 14, .record = record_devices},
    {"if-no-gpu", "skip|fail",
     "Without a usable GPU, mark GPU stages skipped (exit 0 if the offline stages "
     "pass) or fail as infrastructure (exit 3). Default: fail.",
     PG_OPT_CHOICE, F(skip_without_gpu), .choices = k_if_no_gpu},
    {"no-gpu", NULL,
     "Do not use the GPU: run the offline stages only. GPU stages are recorded as "
     "skipped (exit 0 when the offline stages pass), or as errors with --if-no-gpu "
     "fail.",
     PG_OPT_FLAG, F(no_gpu)},
    {"min-speedup", "X",
     "Override every task's gate.min_speedup (speedup = baseline time / candidate "
     "time).",
     PG_OPT_REAL, F(min_speedup_override), .lo = 1e-9, .hi = 1e9, .flags = PG_OPT_REC_POSITIVE,
     .rec_key = "min_speedup_override", .rec_pos = 7,
     .job_key = "min_speedup_override", .job_pos = 8},
    {"arch", "ARCH",
     "Target architecture for every submission (sm_NN or sm_NNa, e.g. sm_90a), "
     "overriding manifests and tasks. Default: the manifest's arch, else the task's "
     "default_arch.",
     PG_OPT_STRING, F(arch), .parse = parse_arch},
    {"instructions", "POLICY",
     "Target-instruction verification (docs/instructions.md), POLICY require, warn or "
     "off: a failed instructions stage fails the submission (require), is reported as "
     "a warning (warn), or the stage is not run (off). Default: each task's "
     "gate.instructions, else require.",
     PG_OPT_CHOICE, F(instructions), .choices = k_instructions,
     .flags = PG_OPT_NAME | PG_OPT_JOB_OPTIONAL, .job_key = "instructions", .job_pos = 11},
    {"workloads", "LIST",
     "Comma-separated workloads to run, one list for every task of the run: NAME (a "
     "workload name or alias, in every task that has it), TASK:NAME (that task's only) "
     "or @SELECTION (the workloads task.json tags with it, e.g. @ptxbench for "
     "PTXBench's headline workloads). An item no task of the run has, or a submission "
     "left without a workload, is exit 2. Default: all of each task's.",
     PG_OPT_STRING, F(workloads), .flags = PG_OPT_NONEMPTY},
    {"sets", "N",
     "Fresh random input sets per workload for correctness. Default: 3.",
     PG_OPT_INT, F(correctness_sets), .lo = 1, .hi = 100, .def = 3,
     .rec_key = "correctness_sets", .rec_pos = 1, .job_key = "sets", .job_pos = 2},
    {"seed", "N",
     "Base seed of the input sets (each set's seed is recorded). Default: 20261129.",
     PG_OPT_INT, F(seed), .lo = 0, .hi = 0x7fffffff, .def = 20261129,
     .rec_key = "seed", .rec_pos = 2, .job_key = "seed", .job_pos = 3},
    {"warmup", "N",
     "Untimed launches per arm and timing block. Default: 2 (1 for kernels over 20 "
     "ms).",
     PG_OPT_INT, F(warmup), .lo = 0, .hi = 100, .def = 2,
     .rec_key = "warmup", .rec_pos = 3, .job_key = "warmup", .job_pos = 4},
    {"repetitions", "N",
     "Most timed launches per arm and timing block, 1-10; the block statistic is their "
     "median. Default: 10 (fewer for kernels over 0.2 ms).",
     PG_OPT_INT, F(repetitions), .lo = 1, .hi = 10, .def = 10,
     .rec_key = "repetitions", .rec_pos = 4, .job_key = "repetitions", .job_pos = 5},
    {"confidence", "X",
     "Confidence level of the speedup interval, in (0.5, 1). Default: 0.95.",
     PG_OPT_REAL, F(confidence), .lo = 0.5, .hi = 0.9999, .def = 0.95,
     .rec_key = "confidence", .rec_pos = 6, .job_key = "confidence", .job_pos = 6},
    {"mode", "cold|sustained",
     "Timing mode for every task: cold (L2 flushed before each timed launch) or "
     "sustained (CUDA graphs of back-to-back launches over rotated input copies). "
     "Default: each task's gate.timing_mode, else cold.",
     PG_OPT_CHOICE, F(timing_mode), .choices = k_mode, .flags = PG_OPT_NAME | PG_OPT_JOB_OPTIONAL,
     .rec_key = "timing_mode_override", .rec_pos = 9, .job_key = "timing_mode", .job_pos = 9},
    {"accepted-kernel", "MANIFEST|none",
     "Manifest of the accepted kernel the candidate must not be slower than "
     "(re-measured in the same run), or none. Default: each task's "
     "gate.accepted_kernel.",
     PG_OPT_STRING, F(accepted_kernel), .flags = PG_OPT_NONEMPTY,
     .rec_key = "accepted_kernel_override", .rec_pos = 10},
    {"no-energy", NULL,
     "Skip the energy-per-launch windows (about 1 s per arm and workload).",
     PG_OPT_FLAG, F(energy), .def = 1, .flags = PG_OPT_INVERT,
     .rec_key = "energy", .rec_pos = 11, .job_key = "energy", .job_pos = 10},
    {"baselines", "DIR|none",
     "Folder of stored baselines (<gpu-key>/<task>.json, docs/baselines.md): the "
     "fingerprint is compared, the stored vendor configuration (cuBLASLt algorithm, "
     "cuDNN engine configuration) pinned when the library version matches, and the "
     "live vendor time checked for runner drift. Default: $PTXGATE_BASELINES, else "
     "./baselines when it exists, else none.",
     PG_OPT_STRING, F(baselines_dir), .parse = parse_baselines, .flags = PG_OPT_JOB_OPTIONAL,
     .job_key = "baselines_dir", .job_pos = 13},
    {"gpu-key", "KEY",
     "GPU key of this runner's baselines. Default: derived from the device name "
     "(\"NVIDIA H200\" -> h200-sxm).",
     PG_OPT_STRING, F(gpu_key), .flags = PG_OPT_NONEMPTY | PG_OPT_JOB_OPTIONAL,
     .job_key = "gpu_key", .job_pos = 14},
    {"on-missing-baseline", "measure|warn|fail",
     "Without a stored baseline for a task or workload: search the vendor library's "
     "configuration and note it (measure), the same with a warning (warn), or an "
     "infrastructure error without timing (fail). Default: measure.",
     PG_OPT_CHOICE, F(on_missing_baseline), .choices = k_on_missing,
     .def = PG_MISSING_MEASURE, .job_key = "on_missing_baseline", .job_pos = 15},
    {"on-drift", "warn|fail",
     "When the live vendor library time differs from the stored one beyond the "
     "tolerance (runner drift): a warning, or an infrastructure error (exit 3). "
     "Verdicts are decided on live measurements either way. Default: warn.",
     PG_OPT_CHOICE, F(on_drift), .choices = k_on_drift, .def = PG_ON_DRIFT_WARN,
     .job_key = "on_drift", .job_pos = 16},
    {"drift-tolerance", "X",
     "Relative tolerance of the drift check, in (0, 1); drift is reported only when "
     "both intervals put the ratio beyond it. Default: 0.05.",
     PG_OPT_REAL, F(drift_tolerance), .lo = 1e-6, .hi = 0.999999, .def = 0.05,
     .job_key = "drift_tolerance", .job_pos = 17},
    {"timeout", "S",
     "Seconds allowed for one tool run or one GPU wait. Default: 60.",
     PG_OPT_REAL, F(timeout_s), .lo = 0.1, .hi = 86400, .def = 60,
     .rec_key = "timeout_s", .rec_pos = 8, .job_key = "timeout_s", .job_pos = 7},
    {"recursive", NULL,
     "A DIR argument also stands for the manifests in its subfolders, down to 32 "
     "levels (e.g. submissions/<model-version>/<task>/*.json): one run, one combined "
     "report.",
     PG_OPT_FLAG, F(recursive)},
    {"shard", "i/n",
     "Run only shard i of n (1 <= i <= n) of the (task, submission, workload) items: "
     "round-robin over the sorted items (docs/shards.md). Every manifest is still "
     "validated; the results record the shard and its items; combine the shards' "
     "results with 'ptxgate merge'.",
     PG_OPT_CUSTOM, F(shard_index), .parse = parse_shard},
    {"max-ptx-bytes", "N",
     "Largest kernel source (.ptx or .cu) and PTX accepted, in bytes; a larger one is "
     "an input error (exit 2). Default: 67108864 (64 MiB).",
     PG_OPT_INT, F(max_ptx_bytes), .lo = 1, .hi = 1099511627776.0 /* 2^40 */, .def = 64 << 20,
     .rec_key = "max_ptx_bytes", .rec_pos = 16},
    {"no-isolation", NULL,
     "Run the GPU stages in this process instead of one worker process per submission "
     "(for debugging: a kernel that faults or hangs then ends the whole run's GPU "
     "work).",
     PG_OPT_FLAG, F(no_isolation), .rec_key = "isolation", .rec_pos = 12,
     .record = record_isolation},
    {"watchdog", "LIST",
     "Watchdog limits of the worker processes as STAGE=SECONDS,... for startup, load, "
     "correctness, performance, verify, exit and sanitize (correctness, performance "
     "and verify per workload; sanitize per compute-sanitizer run). Default: "
     "startup=120,load=300,correctness=900,performance=1800,verify=300,exit=30,sanitize=3600.",
     PG_OPT_CUSTOM, F(watchdog), .flags = PG_OPT_NONEMPTY, .parse = parse_watchdog,
     .rec_key = "watchdog_s", .rec_pos = 17, .record = record_watchdog},
    {"sanitize", "TOOLS",
     "Also run each submission's smallest workload under compute-sanitizer with these "
     "tools, comma-separated from memcheck, racecheck, synccheck, initcheck: a "
     "sanitize stage with the findings per kernel, failing per the task's "
     "gate.sanitizer policy. Skipped, saying so, when compute-sanitizer is not found.",
     PG_OPT_STRING, F(sanitize), .parse = parse_sanitize,
     .rec_key = "sanitize", .rec_pos = 15},
    {"quiet", NULL,
     "No progress lines on stderr (by default: each stage, and after each submission "
     "the items done of all and, for runs longer than a minute, the time left).",
     PG_OPT_FLAG, F(quiet)},
    {"label", "TEXT",
     "Label of this run recorded in the results (run.label): a model version, a "
     "branch. 'ptxgate history --by label' orders runs by it.",
     PG_OPT_STRING, F(label)},
    {"commit", "SHA",
     "Commit hash of the kernels checked, recorded in the results (run.commit), e.g. "
     "$(git rev-parse HEAD).",
     PG_OPT_STRING, F(commit)},
    {"commit-time", "TIME",
     "Commit time, ISO 8601 (e.g. $(git log -1 --format=%cI)), recorded in UTC "
     "(run.commit_time_utc); 'ptxgate history' orders runs by it.",
     PG_OPT_STRING, F(commit_time)},
    /* Settings the program finds rather than takes from the command line. */
    {NULL, NULL, NULL, PG_OPT_STRING, F(arch_dir), .job_key = "arch_dir", .job_pos = 12},
    {NULL, NULL, NULL, PG_OPT_CUSTOM, .rec_key = "flush_l2_bytes", .rec_pos = 5,
     .record = record_flush},
    {NULL, NULL, NULL, PG_OPT_CUSTOM, .rec_key = "working_directory", .rec_pos = 13,
     .record = record_cwd},
    {0},
};

#undef F

const pg_opt *pg_check_option_table(void)
{
    return k_table;
}

void pg_check_options_init(pg_check_options *o)
{
    memset(o, 0, sizeof *o);
    pg_opt_defaults(k_table, o);
    o->arch_dir = pg_data_dir(PG_DATA_ARCH, NULL); /* NULL when not found: pg_check_run says so */
    o->watchdog = (pg_watchdog){.startup_s = 120, .load_s = 300, .correctness_s = 900,
                                .performance_s = 1800, .verify_s = 300, .exit_s = 30,
                                .sanitize_s = 3600};
}

pg_status pg_check_options_finish(pg_check_options *o, const pg_opt_args *a, pg_diag *d)
{
    const char *devices = pg_opt_text(k_table, a, offsetof(pg_check_options, devices));
    if (devices) {
        if (pg_opt_given(k_table, a, offsetof(pg_check_options, device_ordinal)) &&
            (o->n_devices != 1 || o->devices[0] != o->device_ordinal))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "--device %d and --devices %s: give one of them",
                               o->device_ordinal, devices);
        if (o->n_devices > 1 && o->no_isolation)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "--devices %s: several devices need worker processes; not with "
                               "--no-isolation", devices);
        o->device_ordinal = o->devices[0];
    }
    /* Asked for offline: skipping is what was asked. */
    if (o->no_gpu && !pg_opt_given(k_table, a, offsetof(pg_check_options, skip_without_gpu)))
        o->skip_without_gpu = true;
    return PG_OK;
}

json_t *pg_check_settings_json(const pg_check_options *o, size_t flush_l2_bytes)
{
    pg_opt_writer w = {pg_jstr, &flush_l2_bytes};
    return pg_opt_record(k_table, o, &w);
}

json_t *pg_check_job_options(const pg_check_options *o)
{
    pg_opt_writer w = {pg_jstr, NULL};
    return pg_opt_job(k_table, o, &w);
}

pg_status pg_check_job_options_read(pg_check_options *o, const json_t *opts, const char *file,
                                    pg_diag *d)
{
    pg_jctx top = {.file = file};
    pg_jctx ctx = pg_jctx_member(&top, "options");
    return pg_opt_job_read(k_table, o, opts, &ctx, d);
}
