/* The CLI's commands and shared helpers. Only the CLI prints and chooses exit codes. */
#ifndef PG_CLI_CLI_H
#define PG_CLI_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/fileio.h"
#include "options.h"

int pg_cmd_check(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_publish(int argc, char **argv);
int pg_cmd_compare(int argc, char **argv);
int pg_cmd_history(int argc, char **argv);
int pg_cmd_merge(int argc, char **argv);
int pg_cmd_baseline(int argc, char **argv);
int pg_cmd_worker(int argc, char **argv);
int pg_cmd_doctor(int argc, char **argv);

/* Print "ptxgate: <located message>" to stderr and return d->status as exit code. */
int pg_cli_fail(const pg_diag *d);

/* The reports of a run that check and merge write into their output folder: "results.json",
 * "junit.xml", "summary.md", then NULL (report writes the last two). */
extern const char *const pg_cli_report_names[];

/* Where a command writes: its output folder, and the JUnit copy (--junit-copy) when given.
 * Filled by pg_cli_prepare_output, closed by pg_cli_close_output. */
typedef struct {
    pg_outdir dir;        /* the output folder */
    pg_outdir copy_dir;   /* the JUnit copy's folder (fd -1 when there is no copy) */
    char copy_name[256];  /* the JUnit copy's file name in copy_dir */
    char copy_path[4200]; /* the JUnit copy as named */
} pg_cli_output;

/* The command's --output, --junit-copy and --follow-output-link, checked: *dir is --output or
 * default_dir; *junit_copy is --junit-copy or NULL; *follow is whether links on those paths are
 * followed. --follow-output-link without an explicit --output is refused: it follows a link
 * only where the command line names it. Prints the problem and returns false on a usage error.
 * A spec without one of these options reads as its absence. */
bool pg_cli_output_options(const pg_command_spec *spec, const char *default_dir,
                           const char **dir, const char **junit_copy, bool *follow);
/* The same rules on values a command has already: output is the explicit --output (NULL when
 * not given), junit_copy --junit-copy (NULL: none), follow --follow-output-link; command names
 * the command in the messages. */
bool pg_cli_output_check(const char *command, const char *output, const char *junit_copy,
                         bool follow);

/* Write the reports into out->dir atomically as one set: results.json (when write_json),
 * junit.xml and summary.md, the latter two rendered from the JSON text re-parsed, so
 * `ptxgate report` reproduces them byte for byte; and junit.xml's copy when out has one, in
 * the same set. results_file names the JSON in messages. When writing fails, the reports an
 * earlier run left stay exactly as they were (pg_fileset_commit). Errors: PG_ERR_INPUT
 * (malformed results; an unwritable folder, anything but a regular file in a report's place or
 * a failed write, naming the file). */
pg_status pg_cli_write_reports(const pg_cli_output *out, const char *json_text,
                               const char *results_file, bool write_json, pg_diag *d);

/* Write n files into dir as one all-or-nothing set (pg_fileset): names[i] with lens[i] bytes of
 * data[i]. data stays the caller's. When writing fails, the files an earlier run left stay as
 * they were. Errors: as pg_fileset_stage/pg_fileset_commit (PG_ERR_INPUT naming the file;
 * PG_ERR_INFRA when memory runs out). */
pg_status pg_cli_write_files(const pg_outdir *dir, size_t n, const char *const *names,
                             const char *const *data, const size_t *lens, pg_diag *d);

/* Open dir (created when missing; a symbolic link refused unless follow, see pg_outdir_open)
 * as out->dir, check that it is a writable folder in which each of names (NULL-terminated file
 * names) can be written, and the same for junit_copy (may be NULL: none) and its folder, before
 * any work, so a bad --output fails fast and touches nothing. *out is always initialised; close
 * it with pg_cli_close_output. Errors: PG_ERR_INPUT naming the folder, or the file when
 * anything but a regular file is in its place. */
pg_status pg_cli_prepare_output(const char *dir, const char *junit_copy, bool follow,
                                const char *const *names, pg_cli_output *out, pg_diag *d);

/* Close out's folders (no-op for closed ones). */
void pg_cli_close_output(pg_cli_output *out);

/* Refuse inputs that are files the command writes: each of inputs[0..n) (paths) that is the same
 * file (device and inode) as dir/<name> for one of names (NULL-terminated) is PG_ERR_INPUT naming
 * the input and --output, since writing the reports, or removing them after bad input, would
 * destroy it. Inputs or report files that do not exist are not an error here. */
pg_status pg_cli_check_inputs_apart(const char *dir, const char *const *names,
                                    const char *const *inputs, size_t n, pg_diag *d);

/* Delete names (NULL-terminated file names) in out->dir, and the JUnit copy: the reports of an
 * earlier run, after a run that failed before it had reports to write (an input error), so
 * they are not taken for this run's. Only regular files are removed; missing files are not an
 * error. */
void pg_cli_remove_outputs(const pg_cli_output *out, const char *const *names);

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
