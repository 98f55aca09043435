/* Bounded file reading and atomic file writing (temporary file + rename), so that no reader ever
 * sees a half-written report and a failed run leaves no partial files behind. */
#ifndef PG_BASE_FILEIO_H
#define PG_BASE_FILEIO_H

#include <stddef.h>

#include "diag.h"

/* Read the whole file at path into a NUL-terminated heap buffer.
 * max_bytes: files larger than this are refused (PG_ERR_INPUT naming the size and the limit).
 * *out is owned by the caller (free()); *len (may be NULL) excludes the terminating NUL.
 * Errors: PG_ERR_INPUT for a missing, unreadable, non-regular or too large file. */
pg_status pg_file_read(const char *path, size_t max_bytes, char **out, size_t *len, pg_diag *d);

/* Write len bytes to path atomically: write "path.tmp.PID", fsync, rename over path.
 * On any failure the temporary file is removed and path is untouched.
 * Errors: PG_ERR_INPUT when the folder is missing or not writable (the message names it). */
pg_status pg_file_write_atomic(const char *path, const void *data, size_t len, pg_diag *d);

/* A set of files staged for writing together: stage each (kept in memory), then commit writes
 * all of them atomically one by one; if staging fails nothing is written. commit removes the
 * already-renamed files of the set again if a later one fails, so the set appears whole or not
 * at all. */
typedef struct pg_fileset pg_fileset;
pg_fileset *pg_fileset_new(void);
/* Copies data. Returns PG_ERR_INFRA only on out-of-memory. */
pg_status pg_fileset_stage(pg_fileset *s, const char *path, const void *data, size_t len, pg_diag *d);
pg_status pg_fileset_commit(pg_fileset *s, pg_diag *d);
void pg_fileset_free(pg_fileset *s);

/* Join dir and name into out ("dir/name"; name alone when it is absolute). Returns out. */
char *pg_path_join(char *out, size_t n, const char *dir, const char *name);

/* Directory part of path into out ("." when none). Returns out. */
char *pg_path_dirname(char *out, size_t n, const char *path);

#endif
