/* The run's private temporary folder: $TMPDIR/ptxgate.XXXXXX (mkdtemp, mode 0700) with an owner
 * record naming the process that made it, a "tmp" subfolder the child tools get as their
 * TMPDIR (so nvcc's tmpxft_* files go with the folder), its removal (async-signal-safe, for the
 * fatal-signal handler and the guard process, children.h), and the removal at start of such
 * folders left behind by a ptxgate that died without cleaning up (SIGKILL, a power cut).
 *
 * A folder is only ever removed as stale when it is provably ptxgate's and its owner is gone: a
 * real folder (not a link) named ptxgate.XXXXXX, owned by this user, holding a complete owner
 * record whose process no longer runs (no such pid, another start time, or another boot).
 * Anything else is left alone. */
#ifndef PG_TOOL_TMPDIR_H
#define PG_TOOL_TMPDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* The owner record's file name inside the folder, and the tools' TMPDIR subfolder's. */
#define PG_TMPDIR_OWNER_FILE "ptxgate-owner"
#define PG_TMPDIR_TOOLS_SUBDIR "tmp"

/* Who made a folder: its pid, the process's start time (field 22 of /proc/<pid>/stat, clock
 * ticks since boot; it tells a reused pid apart) and the kernel's boot id
 * (/proc/sys/kernel/random/boot_id; pids and start times restart at a reboot). */
typedef struct {
    long pid;
    unsigned long long start_ticks;
    char boot_id[40]; /* 36 characters, NUL-terminated */
} pg_tmpdir_owner;

/* Format o as the owner record text ("ptxgate-owner 1\npid P\nstart T\nboot B\n") into buf of
 * n bytes. Returns the length, or 0 if it does not fit. */
size_t pg_tmpdir_owner_format(const pg_tmpdir_owner *o, char *buf, size_t n);

/* Parse an owner record (exactly the format above, nothing else). Returns false for anything
 * else, a partial record included (the folder is then not provably ptxgate's). */
bool pg_tmpdir_owner_parse(const char *text, pg_tmpdir_owner *o);

/* The start time (field 22) from the text of /proc/<pid>/stat; the command name (field 2) may
 * hold spaces and parentheses, so fields are counted after its last ')'. */
bool pg_tmpdir_stat_start_ticks(const char *stat_text, unsigned long long *ticks);

/* This process's owner record, read from /proc. False when /proc cannot be read. */
bool pg_tmpdir_self_owner(pg_tmpdir_owner *o);

/* Whether the process of o may still run: true unless /proc proves it gone (another boot id,
 * no /proc/<pid>, or another start time). When /proc cannot be read: true. */
bool pg_tmpdir_owner_alive(const pg_tmpdir_owner *o);

/* Remove the stale ptxgate.XXXXXX folders in base (see the top of this file). Returns how many
 * were removed. Never fails: what cannot be removed or judged is left. */
int pg_tmpdir_sweep(const char *base);

/* Sweep $TMPDIR (or /tmp when unset or empty), then make path = "<base>/ptxgate.XXXXXX" with
 * its owner record and the tools' subfolder. path: n bytes. *stale_removed (may be NULL): how
 * many stale folders the sweep removed. Errors: PG_ERR_INFRA, message naming the folder and
 * strerror (path is then empty; nothing is left behind). */
pg_status pg_tmpdir_create(char *path, size_t n, int *stale_removed, pg_diag *d);

/* Remove dir and everything below it, 16 levels deep at most, following no symbolic link (a
 * link is removed, never its target). Async-signal-safe (open/getdents64/unlinkat only). */
void pg_tmpdir_remove(const char *dir);

#endif
