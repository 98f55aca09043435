/* Supervising one worker child: argv run without a shell in its own process group, its stdout and
 * stderr captured into a bounded buffer, a status channel (a FIFO the child opens by path and
 * writes newline-terminated lines to) read line by line as the child runs, and a watchdog whose
 * deadline the caller moves with every line (e.g. a limit per stage the child announces). When
 * the deadline passes, the child's whole process group gets SIGKILL.
 *
 * Unlike pg_process_run (process.h), the caller learns what the child is doing while it runs, so
 * a hang is attributed to the step the child last announced, and whatever the child reported
 * before it died is kept. */
#ifndef PG_TOOL_SUPERVISE_H
#define PG_TOOL_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* Status lines longer than this (bytes, newline excluded) are dropped whole and counted. */
#define PG_SUPERVISE_MAX_LINE ((size_t)16 << 20)

typedef struct {
    /* Called with every complete status line, NUL-terminated, without its newline, in order.
     * May be NULL. */
    void (*on_line)(void *ctx, const char *line, size_t len);
    /* The watchdog deadline now, in pg_supervise_now() seconds; <= 0 means none. Asked after
     * each batch of lines and at least every 100 ms. May be NULL (no watchdog). */
    double (*deadline)(void *ctx);
    void *ctx;
} pg_supervise_hooks;

typedef struct {
    int pid;               /* the child's pid (also its process group id); 0 if never started */
    int exit_code;         /* the exit status; -1 if killed by a signal or never started */
    int term_signal;       /* the signal that ended it (SIGKILL after the watchdog); 0 if none */
    bool watchdog_killed;  /* the deadline passed and the group was killed */
    bool spawn_failed;     /* the program could not be started */
    char *output;          /* stdout+stderr, NUL-terminated, never NULL after PG_OK; at most
                              max_output bytes (the rest read and dropped) */
    size_t output_len;
    bool output_truncated;
    size_t lines;          /* status lines delivered */
    size_t lines_dropped;  /* status lines longer than PG_SUPERVISE_MAX_LINE */
    double wall_s;         /* seconds from spawn to reaping */
} pg_supervise_result;

/* Monotonic clock, seconds: the clock of the deadline hook. */
double pg_supervise_now(void);

/* Create a FIFO at status_path (which must not exist; mode 0600; the caller removes it after
 * the call), open it for reading, run argv (argv[0] looked up in $PATH when it has no '/') with
 * stdin from /dev/null in a new process group, and read its status lines and output until it
 * exits or the watchdog kills it. Status lines still buffered when the child exits are
 * delivered. Anything the child left running in its group is killed. *out is always
 * initialized; release it with pg_supervise_result_free. Returns PG_OK whenever the child ran
 * (see exit_code, term_signal, watchdog_killed). Errors: PG_ERR_INFRA when the FIFO, a pipe or
 * memory cannot be had, or the program cannot be started (spawn_failed, message with
 * strerror). */
pg_status pg_supervise_run(const char *const argv[], const char *status_path,
                           const pg_supervise_hooks *hooks, size_t max_output,
                           pg_supervise_result *out, pg_diag *d);

void pg_supervise_result_free(pg_supervise_result *r);

#endif
