/* Bounded file reading, and safe atomic file writing (a private temporary file renamed into
 * place inside a folder opened once by descriptor), so that no reader ever sees a half-written
 * report, a failed run leaves no partial files behind, and no file is written through a link. */
#ifndef PG_BASE_FILEIO_H
#define PG_BASE_FILEIO_H

#include <stddef.h>

#include "diag.h"

/* Read the whole file at path into a NUL-terminated heap buffer.
 * max_bytes: files larger than this are refused (PG_ERR_INPUT naming the size and the limit).
 * *out is owned by the caller (free()); *len (may be NULL) excludes the terminating NUL.
 * Errors: PG_ERR_INPUT for a missing, unreadable, non-regular or too large file. */
pg_status pg_file_read(const char *path, size_t max_bytes, char **out, size_t *len, pg_diag *d);

/* Output folders and safe writes.
 * A pull request controls the files of its checkout, symbolic links included, so a file ptxgate
 * writes is never opened by a name that may already exist: it is created with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a private unpredictable name (".<name>.tmp.<16 hex digits>",
 * from getrandom) inside its folder, written, fsynced, and renamed into place, every step by
 * openat/renameat/linkat/unlinkat relative to one descriptor of that folder (a pg_outdir), so a
 * link swapped into the path meanwhile redirects nothing. A symbolic link, FIFO, device, socket
 * or folder at a destination name is refused (PG_ERR_INPUT naming it), never written through
 * and never replaced; a regular file there is replaced by the rename (never written into, so a
 * hard link to another file leaves that file as it was). */

/* pg_outdir_open flags. */
enum {
    PG_OUTDIR_CREATE = 1,       /* create missing folders of the path (mode 0755) */
    PG_OUTDIR_FOLLOW_LINKS = 2, /* follow symbolic links anywhere on the path */
};

/* A folder opened once by descriptor for writing into. fd: O_DIRECTORY descriptor, -1 when not
 * open. path: the folder as named (for messages). field: the option or field named in messages
 * ("--output"), or NULL. */
typedef struct {
    int fd;
    char path[4096];
    const char *field;
} pg_outdir;

/* Open the folder path for writing, one component at a time from "/" (absolute path) or the
 * current folder (relative path), each opened with O_DIRECTORY|O_NOFOLLOW; with
 * PG_OUTDIR_CREATE, a missing component is made (mkdirat) and then opened the same way.
 * Without PG_OUTDIR_FOLLOW_LINKS a symbolic link is refused as the folder itself, and as any
 * component on the way that lies in the current folder or below it (where a checkout's files
 * are); a link on the way that lies outside the current folder (the machine's own layout, such
 * as a linked runner work folder) is followed. "." and empty components are skipped; ".." is
 * taken as named. *o is always initialised (fd -1 on error); field (static) names the option in
 * messages. Errors: PG_ERR_INPUT naming the component: a symbolic link ("... is a symbolic
 * link"), not a folder, missing (without PG_OUTDIR_CREATE), cannot be created or opened, or an
 * empty or too long path. */
pg_status pg_outdir_open(pg_outdir *o, const char *path, unsigned flags, const char *field,
                         pg_diag *d);

/* Open (creating it with PG_OUTDIR_CREATE) the subfolder name (one component) of parent, never
 * following a link at name (refused) unless PG_OUTDIR_FOLLOW_LINKS. Errors as pg_outdir_open. */
pg_status pg_outdir_open_sub(const pg_outdir *parent, const char *name, unsigned flags,
                             pg_outdir *o, pg_diag *d);

/* Close o's descriptor (no-op when not open). */
void pg_outdir_close(pg_outdir *o);

/* Whether a file may be written at name (one component) in o: PG_OK when nothing is there or a
 * regular file is; PG_ERR_INPUT naming "<folder>/<name>" when a symbolic link, FIFO, device,
 * socket or folder is there, or it cannot be inspected. */
pg_status pg_outdir_check_replaceable(const pg_outdir *o, const char *name, pg_diag *d);

/* Write len bytes as name (one component) in o atomically and safely (see above): on any
 * failure the temporary is removed and name is untouched. Errors: PG_ERR_INPUT naming the file
 * (not replaceable, unwritable folder, failed write or rename). */
pg_status pg_outdir_write(const pg_outdir *o, const char *name, const void *data, size_t len,
                          pg_diag *d);

/* Remove name (one component) from o when it is a regular file; anything else, or nothing, is
 * left alone. */
void pg_outdir_remove(const pg_outdir *o, const char *name);

/* Write len bytes to path: pg_outdir_open of path's folder with flags, then pg_outdir_write of
 * its last component. Errors as those two. */
pg_status pg_file_write_safe(const char *path, unsigned flags, const void *data, size_t len,
                             pg_diag *d);

/* pg_file_write_safe with PG_OUTDIR_FOLLOW_LINKS: for a folder ptxgate made itself (its private
 * temporary folder) or that its caller vouches for; the file itself is still never written
 * through a link. */
pg_status pg_file_write_atomic(const char *path, const void *data, size_t len, pg_diag *d);

/* A set of files staged for writing together: stage each (kept in memory) with its folder and
 * name, then commit writes all of them atomically one by one; if staging fails nothing is
 * written. The folders (pg_outdir) are borrowed and must stay open until commit returns.
 * commit: refuses a file of the set whose name holds anything but a regular file before
 * writing anything (pg_outdir_check_replaceable); writes every temporary first (as
 * pg_outdir_write does); keeps each earlier file under a private ".<name>.old.<hex>" name (a
 * hard link, else a copy) while the temporaries are renamed into place; if a rename fails,
 * puts the earlier files back (and removes the new ones that had none), so the folders hold
 * either the whole new set or the earlier files byte for byte as they were, and no temporary
 * or kept file is left. A file staged twice (same folder and name) is written once.
 * Errors: PG_ERR_INPUT naming the file (not replaceable, an unwritable folder, a failed write
 * or rename); PG_ERR_INFRA on out-of-memory. */
typedef struct pg_fileset pg_fileset;
pg_fileset *pg_fileset_new(void);
/* Copies data and name. Returns PG_ERR_INFRA only on out-of-memory. */
pg_status pg_fileset_stage(pg_fileset *s, const pg_outdir *dir, const char *name,
                           const void *data, size_t len, pg_diag *d);
pg_status pg_fileset_commit(pg_fileset *s, pg_diag *d);
void pg_fileset_free(pg_fileset *s);

/* Join dir and name into out ("dir/name"; name alone when it is absolute). Returns out. */
char *pg_path_join(char *out, size_t n, const char *dir, const char *name);

/* Directory part of path into out ("." when none). Returns out. */
char *pg_path_dirname(char *out, size_t n, const char *path);

#endif
