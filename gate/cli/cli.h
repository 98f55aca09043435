/* The CLI's commands and shared helpers. Only the CLI prints and chooses exit codes. */
#ifndef PG_CLI_CLI_H
#define PG_CLI_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

int pg_cmd_check(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_publish(int argc, char **argv);
int pg_cmd_compare(int argc, char **argv);
int pg_cmd_merge(int argc, char **argv);
int pg_cmd_baseline(int argc, char **argv);
int pg_cmd_worker(int argc, char **argv);
int pg_cmd_doctor(int argc, char **argv);

/* Print "ptxgate: <located message>" to stderr and return d->status as exit code. */
int pg_cli_fail(const pg_diag *d);

/* The reports of a run that check and merge write into their output folder: "results.json",
 * "junit.xml", "summary.md", then NULL (report writes the last two). */
extern const char *const pg_cli_report_names[];

/* Write the reports into out_dir atomically as one set: results.json (when write_json),
 * junit.xml and summary.md, the latter two rendered from the JSON text re-parsed, so
 * `ptxgate report` reproduces them byte for byte. results_file names the JSON in messages.
 * Creates out_dir when missing. When writing fails, the reports an earlier run left in out_dir
 * stay exactly as they were (pg_fileset_commit). Errors: PG_ERR_INPUT (malformed results; an
 * unwritable folder, a folder in a report's place or a failed write, naming the file). */
pg_status pg_cli_write_reports(const char *out_dir, const char *json_text, const char *results_file,
                               bool write_json, pg_diag *d);

/* Make sure dir exists (created when missing) and is a writable folder in which each of names
 * (NULL-terminated file names) can be written, before any work, so a bad --output fails fast
 * and touches nothing. Errors: PG_ERR_INPUT naming the folder, or the file when a folder is in
 * its place. */
pg_status pg_cli_prepare_output(const char *dir, const char *const *names, pg_diag *d);

/* Refuse inputs that are files the command writes: each of inputs[0..n) (paths) that is the same
 * file (device and inode) as dir/<name> for one of names (NULL-terminated) is PG_ERR_INPUT naming
 * the input and --output, since writing the reports, or removing them after bad input, would
 * destroy it. Inputs or report files that do not exist are not an error here. */
pg_status pg_cli_check_inputs_apart(const char *dir, const char *const *names,
                                    const char *const *inputs, size_t n, pg_diag *d);

/* Delete names (NULL-terminated file names) in dir: the reports of an earlier run, after a run
 * that failed before it had reports to write (an input error), so they are not taken for this
 * run's. Missing files are not an error. */
void pg_cli_remove_outputs(const char *dir, const char *const *names);

/* Expand check's arguments into manifest paths (*out: caller frees each string and the array;
 * *count entries). A file stands for itself; a folder for its *.json files except task.json,
 * results.json and compare.json, in byte order of their paths; with recursive, for those of its
 * subfolders too (hidden entries and symbolic links to folders are not followed, at most 32
 * levels). Prints the problem to stderr and returns 2 for a missing path or a folder without
 * manifests (with a hint when it has subfolders and recursive is off), 3 on out-of-memory; else
 * 0. */
int pg_cli_expand_manifests(char **args, int n, bool recursive, char ***out, int *count);

/* Read and parse a results file (at most 8 x PG_JSON_MAX_FILE_BYTES, duplicate keys refused);
 * *out is a new reference. Errors: PG_ERR_INPUT naming the file (and the line for malformed
 * JSON). The content is checked by the reader that uses it (report/results_read.h). */
pg_status pg_cli_load_results(const char *path, json_t **out, pg_diag *d);

/* Default tasks folder: $PTXGATE_TASKS, else ./tasks when it exists, else the installed or
 * source tree's (gate/base/datadir.h); NULL when none is found. */
const char *pg_cli_default_tasks_dir(void);

/* Folder of the per-architecture PTX → SASS tables: $PTXGATE_ARCH_DATA, else the installed
 * <prefix>/share/ptxgate/arch next to the binary, else the source tree's data/arch
 * (gate/base/datadir.h); NULL when none is found. */
const char *pg_cli_default_arch_dir(void);
/* Default stored-baselines folder: $PTXGATE_BASELINES ("none" for none), else ./baselines when
 * it exists, else NULL (none). */
const char *pg_cli_default_baselines_dir(void);

#endif
