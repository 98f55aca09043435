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

/* Whether a file may be written at path by replacing whatever is there: PG_OK when nothing is
 * there or a file (or link) is; PG_ERR_INPUT naming path when a folder is in its place (or path
 * cannot be inspected). */
pg_status pg_file_check_replaceable(const char *path, pg_diag *d);

/* A set of files staged for writing together: stage each (kept in memory), then commit writes
 * all of them atomically one by one; if staging fails nothing is written.
 * commit: refuses a file of the set that is a folder before writing anything; writes every
 * temporary ("path.tmp.PID") first; keeps each earlier file as "path.old.PID" (a hard link, else
 * a copy) while the temporaries are renamed into place; if a rename fails, puts the earlier
 * files back (and removes the new ones that had none), so the folder holds either the whole new
 * set or the earlier files byte for byte as they were, and no temporary or kept file is left.
 * Errors: PG_ERR_INPUT naming the file (a folder in its place, an unwritable folder, a failed
 * write or rename); PG_ERR_INFRA on out-of-memory. */
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
