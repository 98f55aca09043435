/* `ptxgate report`: regenerate junit.xml and summary.md from a results.json alone. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "cli.h"
#include "options.h"

static pg_option k_options[] = {
    {"output", "DIR", "Folder for junit.xml and summary.md. Default: the folder of RESULTS.json.", NULL},
    {"junit-copy", "PATH", "Also write junit.xml to PATH (for JUnit reporters; missing folders created), in the same all-or-nothing set as the reports and by the same rules: a symbolic link, FIFO, device or folder at PATH, or a link on the way to it, is refused (exit 2). Default: none.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --output folder (or on the way to it, or to --junit-copy's folder) instead of refusing it (exit 2); only together with an explicit --output. A link at a file's own name is refused regardless.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "report",
    "ptxgate report [--output DIR] [--junit-copy PATH] RESULTS.json",
    "Regenerate the JUnit XML and markdown reports from a results file; the output is byte for "
    "byte what `ptxgate check` wrote.",
    NULL,
    "  ptxgate report reports/results.json\n"
    "  ptxgate report --output /tmp/r reports/results.json",
    k_options,
};

int pg_cmd_report(int argc, char **argv)
{
    char **pos = NULL, *text = NULL;
    int npos = 0;
    int rc;
    if (!pg_options_parse_cmd(&k_spec, argc, argv, &pos, &npos, &rc))
        return rc;
    if (npos != 1) {
        fprintf(stderr, "ptxgate report: expected exactly one RESULTS.json (see 'ptxgate report --help')\n");
        free(pos);
        return 2;
    }
    pg_diag d;
    pg_diag_clear(&d);
    char dir[4096];
    const char *out, *junit_copy;
    bool follow;
    if (!pg_cli_output_options(&k_spec, NULL, &out, &junit_copy, &follow)) {
        free(pos);
        return 2;
    }
    if (!out)
        out = pg_path_dirname(dir, sizeof dir, pos[0]);
    pg_cli_output where = {.dir.fd = -1, .copy_dir.fd = -1};
    rc = 0;
    if (pg_file_read(pos[0], PG_JSON_MAX_FILE_BYTES * 8, &text, NULL, &d) != PG_OK ||
        pg_cli_prepare_output(out, junit_copy, follow, pg_cli_report_names + 1, &where, &d) !=
            PG_OK ||
        pg_cli_write_reports(&where, text, pos[0], false, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    else if (junit_copy)
        printf("reports: %s/junit.xml, %s/summary.md; JUnit copy: %s\n", out, out, junit_copy);
    else
        printf("reports: %s/junit.xml, %s/summary.md\n", out, out);
    pg_cli_close_output(&where);
    free(text);
    free(pos);
    return rc;
}
