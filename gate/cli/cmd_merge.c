/* `ptxgate merge`: combine the results of the shards of one run (check --shard i/n) into one
 * results.json with its JUnit and markdown reports. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "options.h"
#include "report/merge.h"
#include "report/results_read.h"

static pg_option k_options[] = {
    {"output", "DIR", "Folder for the merged results.json, junit.xml and summary.md (created if missing). Default: reports.", NULL},
    {"junit-copy", "PATH", "Also write junit.xml to PATH (for JUnit reporters; missing folders created), in the same all-or-nothing set as the reports and by the same rules: a symbolic link, FIFO, device or folder at PATH, or a link on the way to it, is refused (exit 2). Default: none.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --output folder (or on the way to it, or to --junit-copy's folder) instead of refusing it (exit 2); only together with an explicit --output. A link at a file's own name is refused regardless.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "merge",
    "ptxgate merge [--output DIR] [--junit-copy PATH] SHARD_RESULTS.json ...",
    "Combine the results of every shard of one run (ptxgate check --shard i/n) into one "
    "results.json, junit.xml and summary.md in --output, judged as one unsharded run.",
    "All shards 1..n must be given, each once, with the same GPU model, driver, libraries,\n"
    "ptxgate version and settings. Holm's correction is applied again over the performance\n"
    "comparisons of all shards. See docs/shards.md.\n"
    "The older form 'ptxgate merge OUT_DIR SHARD_RESULTS.json ...' still works: without\n"
    "--output, a first argument that is a folder, or is absent and does not end in .json, is\n"
    "taken as the output folder (with a note).\n"
    "Exit codes: the merged run's (0 pass, 1 gate failure, 3 infrastructure); 2 for a usage or\n"
    "input error (a missing or foreign shard, a different fingerprint), naming the file and field.",
    "  ptxgate merge --output reports shard1/results.json shard2/results.json\n"
    "  ptxgate merge --output reports shards/*/results.json",
    k_options,
};

/* The older form "merge OUT_DIR SHARD..." (without --output): its first argument is an output
 * folder when it is a folder, or is absent and not named like a results file; a results file
 * given first is always a shard. */
static bool legacy_out_dir(const char *arg)
{
    struct stat st;
    if (stat(arg, &st) == 0)
        return S_ISDIR(st.st_mode);
    size_t n = strlen(arg);
    return !(n >= 5 && strcmp(arg + n - 5, ".json") == 0);
}

/* A shard's own results are never replaced or removed by merge: --output naming a shard's
 * folder (or the older form taking a shard's folder for the output) is refused before anything
 * is written. legacy: out came from the older form's guess. */
static pg_status refuse_shard_folder(const char *out, bool legacy, pg_diag *d)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/results.json", out);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return PG_OK;
    json_t *earlier = NULL;
    pg_diag ignored;
    if (pg_cli_load_results(path, &earlier, &ignored) != PG_OK)
        return PG_OK; /* not results at all: replaced or removed like any stale report */
    long long index, count;
    pg_status rc = PG_OK;
    if (pg_results_shard_label(earlier, &index, &count))
        rc = pg_diag_set(d, PG_ERR_INPUT, path, 0, "--output",
                         "holds the results of shard %lld/%lld (ptxgate check --shard); merge "
                         "does not replace or remove a shard's results: %s",
                         index, count,
                         legacy ? "the older form took the first argument for the output "
                                  "folder; give the shard's results.json, and --output DIR"
                                : "give another --output folder");
    json_decref(earlier);
    return rc;
}

int pg_cmd_merge(int argc, char **argv)
{
    char **pos = NULL;
    int npos = 0;
    int rc;
    if (!pg_options_parse_cmd(&k_spec, argc, argv, &pos, &npos, &rc))
        return rc;
    const char *out, *junit_copy;
    bool follow;
    if (!pg_cli_output_options(&k_spec, NULL, &out, &junit_copy, &follow)) {
        free(pos);
        return 2;
    }
    int first = 0; /* pos[first..npos) are the shards */
    bool legacy = false;
    if (!out && npos >= 2 && legacy_out_dir(pos[0])) {
        out = pos[0];
        first = 1;
        legacy = true;
        fprintf(stderr, "ptxgate merge: taking '%s' as the output folder (the older form); use "
                        "--output %s\n", out, out);
    }
    if (!out)
        out = "reports";
    if (npos - first < 1) {
        fprintf(stderr, "ptxgate merge: expected at least one shard's results.json (see "
                        "'ptxgate merge --help')\n");
        free(pos);
        return 2;
    }
    char **files = pos + first;
    size_t n = (size_t)(npos - first);
    json_t **shards = calloc(n, sizeof *shards), *merged = NULL;
    char *text = NULL;
    pg_diag d;
    pg_diag_clear(&d);
    rc = 0;
    if (!shards) {
        fprintf(stderr, "ptxgate merge: out of memory\n");
        free(pos);
        return 3;
    }
    /* Nothing is written or removed where it would destroy an input. */
    if (pg_cli_check_inputs_apart(out, pg_cli_report_names, (const char *const *)files, n, &d) !=
            PG_OK ||
        refuse_shard_folder(out, legacy, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    pg_cli_output where = {.dir.fd = -1, .copy_dir.fd = -1};
    if (rc == 0 &&
        pg_cli_prepare_output(out, junit_copy, follow, pg_cli_report_names, &where, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    bool prepared = rc == 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (pg_cli_load_results(files[i], &shards[i], &d) != PG_OK)
            rc = pg_cli_fail(&d);
    if (rc == 0 &&
        pg_results_merge(shards, (const char *const *)files, n, &merged, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    /* The summary line's numbers, through the reader like every other consumer. */
    pg_results view = {0};
    if (rc == 0 && pg_results_read(merged, "merged results", &view, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    /* Bad input: no merged reports, and an earlier merge's must not pass for them. (When
     * writing the reports fails below, the earlier ones are left whole instead.) */
    if (prepared && rc != 0)
        pg_cli_remove_outputs(&where, pg_cli_report_names);
    if (rc == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/results.json", out);
        text = json_dumps(merged, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        if (!text) {
            fprintf(stderr, "ptxgate merge: out of memory\n");
            rc = 3;
        } else if (pg_cli_write_reports(&where, text, path, true, &d) != PG_OK) {
            rc = pg_cli_fail(&d);
        }
    }
    if (rc == 0) {
        printf("merged %zu shards: %zu submissions; stages: %lld pass, %lld fail, %lld error, "
               "%lld skipped; Holm over %lld performance comparisons\n",
               n, view.n_subs, (long long)view.counts[PG_RES_PASS].v,
               (long long)view.counts[PG_RES_FAIL].v, (long long)view.counts[PG_RES_ERROR].v,
               (long long)view.counts[PG_RES_SKIPPED].v, (long long)view.holm_m.v);
        printf("verdict: %s (exit %lld)\n", pg_res_status_name(view.verdict),
               (long long)view.exit_code);
        printf("reports: %s/results.json, %s/junit.xml, %s/summary.md\n", out, out, out);
        if (junit_copy)
            printf("JUnit copy: %s\n", junit_copy);
        rc = (int)view.exit_code;
    }
    pg_results_free(&view);
    pg_cli_close_output(&where);
    for (size_t i = 0; i < n; i++)
        json_decref(shards[i]);
    free(shards);
    json_decref(merged);
    free(text);
    free(pos);
    return rc;
}
