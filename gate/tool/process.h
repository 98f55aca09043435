/* Running one child process: argv without a shell, stdout and stderr captured together into a
 * bounded buffer, and a wall-clock timeout after which the child's whole process group is killed.
 *
 * The child runs in a new process group with stdin from /dev/null, the parent's environment, and
 * default signal dispositions. When the child exits, anything it left running in its group is
 * killed too, so no stray process outlives the call. */
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
 * onto out_fd, default signal dispositions, an empty signal mask) and return at once: 0 with
 * *pid set, or an errno value. The group is tracked (children.h) until the caller, who waits
 * for the child, calls pg_children_remove(*pid) after reaping it. */
int pg_process_spawn(const char *const argv[], int out_fd, pid_t *pid);

/* Free r->output and reset r. r may be NULL. */
void pg_process_result_free(pg_process_result *r);

#endif
