/* The child process groups a run has going, so that a fatal signal to ptxgate (Ctrl-C, a CI
 * job's or `timeout`'s SIGTERM) takes them and the run's temporary folder along. Children run
 * in process groups of their own (process.h), so a signal sent to ptxgate, or to its terminal's
 * foreground group, never reaches them: without this, an interrupted check left nvcc, ptxas or
 * compute-sanitizer running and its temporary folder behind. */
#ifndef PG_TOOL_CHILDREN_H
#define PG_TOOL_CHILDREN_H

#include <sys/types.h>

/* Child process groups tracked at once; a group beyond that is not tracked (it still ends by
 * its own timeout). */
#define PG_CHILDREN_MAX 256

/* Note the process group led by pgid as running (pg_process_spawn does), and as ended once it
 * is reaped. Thread-safe and async-signal-safe. */
void pg_children_add(pid_t pgid);
void pg_children_remove(pid_t pgid);

/* From the first call on, SIGINT, SIGTERM and SIGHUP make ptxgate SIGKILL every tracked group,
 * remove dir and what it holds (tmpdir.h, pg_tmpdir_remove), and then die of that signal as it
 * would have without the handler (a shell sees 128 + n). Later calls change the folder; NULL:
 * none is removed.
 *
 * The first call with a folder also starts the guard: a small process forked from ptxgate, in a
 * process group of its own, named "ptxgate-guard", holding none of ptxgate's files but one end
 * of a socket over which it learns the tracked groups and the folder. When that socket closes
 * (ptxgate exited, or died of anything, SIGKILL included, which no handler sees) the guard
 * kills the groups still tracked (the tools and whatever they started, such as nvcc's cicc,
 * which the parent-death signal of process.h does not reach) and removes the folder, then
 * exits. It ignores the terminal's and a CI job's signals, so it outlives ptxgate. A signal ignored when the handlers are
 * installed (nohup, SIGINT of a shell's background job) stays ignored. Only async-signal-safe
 * calls run in the handler. dir: at most 4095 bytes (longer: none is removed). */
void pg_children_on_fatal_signal(const char *dir);

#endif
