/* `ptxgate report`: regenerate junit.xml and summary.md from a results.json alone. */
#include <stdio.h>
#include <stdlib.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "cli.h"
#include "options.h"

static pg_option k_options[] = {
    {"output", "DIR", "Folder for junit.xml and summary.md. Default: the folder of RESULTS.json.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "report",
    "ptxgate report [--output DIR] RESULTS.json",
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
    int rc = pg_options_parse(&k_spec, argc, argv, &pos, &npos);
    if (rc != 0) {
        free(pos);
        return rc < 0 ? 0 : rc;
    }
    if (npos != 1) {
        fprintf(stderr, "ptxgate report: expected exactly one RESULTS.json (see 'ptxgate report --help')\n");
        free(pos);
        return 2;
    }
    pg_diag d;
    pg_diag_clear(&d);
    char dir[4096];
    const char *out = pg_option_value(&k_spec, "output");
    if (!out)
        out = pg_path_dirname(dir, sizeof dir, pos[0]);
    rc = 0;
    if (pg_file_read(pos[0], PG_JSON_MAX_FILE_BYTES * 8, &text, NULL, &d) != PG_OK ||
        pg_cli_write_reports(out, text, pos[0], false, &d) != PG_OK)
        rc = pg_cli_fail(&d);
    else
        printf("reports: %s/junit.xml, %s/summary.md\n", out, out);
    free(text);
    free(pos);
    return rc;
}
