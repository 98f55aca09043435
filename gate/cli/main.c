/* ptxgate: a thin dispatcher over the command table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} k_commands[] = {
    {"check", pg_cmd_check, "Check kernel submissions on the GPU and write the reports."},
    {"report", pg_cmd_report, "Regenerate JUnit XML and markdown from a results.json."},
    {"publish", pg_cmd_publish, "Publish a results.json to GitHub: summary, annotations, PR comment, check run."},
    {"merge", pg_cmd_merge, "Merge the results of check --shard i/n runs into one results.json and reports."},
    {"compare", pg_cmd_compare, "Compare two results.json (model versions, commits): transitions, fast_p, paired tests."},
    {"history", pg_cmd_history, "Speedup vs the vendor across many runs (commits, model versions): markdown with charts, SVG."},
    {"baseline", pg_cmd_baseline, "Stored vendor baselines per GPU and task: refresh (on a GPU) or show."},
    {"doctor", pg_cmd_doctor, "List the data folders, tools and libraries found, their versions, and fixes."},
    /* Hidden (no summary): the process an isolated check runs per submission. */
    {"worker", pg_cmd_worker, NULL},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: ptxgate <command> [options]\n\n"
                "A CI gate for GPU kernels written in PTX: does it assemble, is it correct, and\n"
                "is it fast against the vendor library.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (k_commands[i].summary)
            fprintf(to, "  %-9s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(to, "\n'ptxgate <command> --help' explains each command's options.\n"
                "'ptxgate --version' prints the version; 'ptxgate doctor' what it finds.\n"
                "\nexample:\n  ptxgate check --if-no-gpu skip tasks/gemm_bf16_nt/examples\n");
}

int pg_cli_fail(const pg_diag *d)
{
    char buf[4096];
    fprintf(stderr, "ptxgate: %s\n", pg_diag_format(d, buf, sizeof buf));
    return d->status ? (int)d->status : 3;
}

const char *pg_cli_default_arch_dir(void)
{
    return pg_data_dir(PG_DATA_ARCH, NULL);
}

const char *pg_cli_default_tasks_dir(void)
{
    const char *env = getenv("PTXGATE_TASKS");
    struct stat st;
    if (env && env[0])
        return env;
    /* A repository's own tasks/ folder (the working directory) comes before the shipped ones. */
    if (stat("tasks", &st) == 0 && S_ISDIR(st.st_mode))
        return "tasks";
    return pg_data_dir(PG_DATA_TASKS, NULL);
}

const char *pg_cli_default_baselines_dir(void)
{
    const char *env = getenv("PTXGATE_BASELINES");
    struct stat st;
    if (env && env[0])
        return strcmp(env, "none") == 0 ? NULL : env;
    if (stat("baselines", &st) == 0 && S_ISDIR(st.st_mode))
        return "baselines";
    return NULL;
}

int main(int argc, char **argv)
{
    int help = pg_options_subcommand_help(argc, argv, usage);
    if (help >= 0)
        return help;
    if (strcmp(argv[1], "--version") == 0) {
        pg_data_origin o;
        const char *tasks = pg_data_dir(PG_DATA_TASKS, &o);
        printf("ptxgate %s\ndata: %s (%s); 'ptxgate doctor' lists every folder and tool\n",
               PG_VERSION, tasks ? tasks : "no tasks folder found", pg_data_origin_name(o));
        return 0;
    }
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (strcmp(argv[1], k_commands[i].name) == 0)
            return k_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ptxgate: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
