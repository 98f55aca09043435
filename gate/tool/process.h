/* Running one child process: argv without a shell, stdout and stderr captured together into a
 * bounded buffer, and a wall-clock timeout after which the child's whole process group is killed.
 *
 * The child runs in a new process group with stdin from /dev/null, the parent's environment (with
 * TMPDIR replaced when pg_process_set_tmpdir gave one), and default signal dispositions. When the
 * child exits, anything it left running in its group is killed too, so no stray process outlives
 * the call. The child gets PR_SET_PDEATHSIG(SIGKILL): it dies with the thread that started it,
 * even when ptxgate is killed by SIGKILL (what the child itself starts is in its process group,
 * which the guard process of children.h kills). So a thread that starts children must outlive
 * them (wait for them before it returns). */
#ifndef PG_TOOL_PROCESS_H
#define PG_TOOL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../base/diag.h"

typedef struct {
    int exit_code;         /* the exit status; -1 if killed by a signal (or never started) */
    int term_signal;       /* the signal that ended it (SIGKILL after a timeout); 0 if none */
    bool timed_out;        /* the timeout expired and the group was killed */
    bool spawn_failed;     /* the program could not be started (not found, not executable) */
    char *output;          /* stdout+stderr as interleaved by the child; NUL-terminated, never
                              NULL after pg_process_run returns PG_OK; caller frees via
                              pg_process_result_free */
    size_t output_len;     /* bytes in output, excluding the NUL; at most max_output */
    bool output_truncated; /* the child wrote more than max_output bytes; the rest was dropped */
    double wall_s;         /* seconds from start to reaping the child */
} pg_process_result;

/* Run argv[0] (looked up in $PATH when it has no '/') with arguments argv[1..], argv ending with
 * NULL. timeout_s: wall-clock limit in seconds (<= 0: none); when it expires the child's process
 * group gets SIGKILL. max_output: bytes of output kept (the rest is read and dropped).
 * *out is always initialized (also on error); release it with pg_process_result_free.
 * Returns PG_OK whenever the child ran, whatever its exit status (see exit_code, term_signal,
 * timed_out). Errors: PG_ERR_INFRA when the process cannot be started (spawn_failed is set and
 * the message names the program and has strerror) or a pipe or memory cannot be had. */
pg_status pg_process_run(const char *const argv[], double timeout_s, size_t max_output,
                         pg_process_result *out, pg_diag *d);

/* Start argv as pg_process_run does (new process group, stdin from /dev/null, stdout and stderr
 * onto out_fd, default signal dispositions, an empty signal mask, the parent-death signal, the
 * environment above) and return at once: 0 with *pid set, or an errno value (ENOENT/EACCES when
 * argv[0] is not an executable file on $PATH, or execve's own). The group is tracked (children.h) until the caller, who waits
 * for the child, calls pg_children_remove(*pid) after reaping it. */
int pg_process_spawn(const char *const argv[], int out_fd, pid_t *pid);

/* From now on, children get TMPDIR=dir instead of the parent's TMPDIR (the run's private
 * temporary folder, tmpdir.h, so that what tools leave there, such as nvcc's tmpxft_* files,
 * goes with it). NULL or "": the parent's own again. dir: at most 4095 bytes (longer: as NULL).
 * Not thread-safe: call while no child is being started. */
void pg_process_set_tmpdir(const char *dir);

/* Free r->output and reset r. r may be NULL. */
void pg_process_result_free(pg_process_result *r);

#endif
