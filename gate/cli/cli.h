/* The CLI's commands and shared helpers. Only the CLI prints and chooses exit codes. */
#ifndef PG_CLI_CLI_H
#define PG_CLI_CLI_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"

int pg_cmd_check(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_publish(int argc, char **argv);
int pg_cmd_worker(int argc, char **argv);

/* Print "ptxgate: <located message>" to stderr and return d->status as exit code. */
int pg_cli_fail(const pg_diag *d);

/* Write the reports into out_dir atomically as one set: results.json (when json_text is not
 * NULL), junit.xml and summary.md, the latter two rendered from the JSON text re-parsed, so
 * `ptxgate report` reproduces them byte for byte. results_file names the JSON in messages.
 * Creates out_dir when missing. Errors: PG_ERR_INPUT (unwritable folder, malformed results). */
pg_status pg_cli_write_reports(const char *out_dir, const char *json_text, const char *results_file,
                               bool write_json, pg_diag *d);

/* Make sure dir exists (created when missing) and is a writable folder, before any work, so a
 * bad --output fails fast. remove_stale: delete results.json, junit.xml and summary.md left by
 * an earlier run. Errors: PG_ERR_INPUT naming the folder. */
pg_status pg_cli_prepare_output(const char *dir, bool remove_stale, pg_diag *d);

/* Default tasks folder: $PTXGATE_TASKS, else ./tasks when it exists, else the source tree's. */
const char *pg_cli_default_tasks_dir(void);

#endif
