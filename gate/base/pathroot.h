/* Where a pull request's files may come from: paths resolved with every symbolic link followed
 * (realpath), whether a resolved path lies inside a folder, sets of such folders, and the
 * submission root's default (the repository's top level). */
#ifndef PG_BASE_PATHROOT_H
#define PG_BASE_PATHROOT_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* True when `path` is `dir` or lies below it. Both must be absolute, resolved paths (no "..",
 * no links, no trailing '/' except the root "/" itself); this is a comparison of strings, so
 * "/a/bc" is not inside "/a/b". */
bool pg_path_is_inside(const char *dir, const char *path);

/* realpath(path) into out (n bytes). Errors: PG_ERR_INPUT when it cannot be resolved (missing,
 * a dangling link, no permission: the message has strerror) or does not fit; file = path. */
pg_status pg_path_resolve(const char *path, char *out, size_t n, pg_diag *d);

/* The submission root's default: the nearest folder, starting at the current folder and going
 * up, that holds a ".git" (a folder, or the file of a worktree); else the current folder.
 * Resolved. Errors: PG_ERR_INFRA when the current folder cannot be resolved. */
pg_status pg_root_default(char *out, size_t n, pg_diag *d);

/* The nearest folder at or above `start` (an absolute resolved folder) holding an entry named
 * `marker`; out = start when none does. Returns out. */
char *pg_root_find_upward(const char *start, const char *marker, char *out, size_t n);

/* A set of resolved folders (owned copies). */
typedef struct {
    char **dirs;
    int n, cap;
} pg_dirset;

/* Add realpath(dir) when it resolves to a folder; a duplicate, a missing folder or a
 * non-folder is skipped (returns false then, and also when out of memory). */
bool pg_dirset_add(pg_dirset *s, const char *dir);
/* Add an already resolved absolute folder as it is (for tests and for copies); false when out of
 * memory or a duplicate. */
bool pg_dirset_add_resolved(pg_dirset *s, const char *dir);
/* The first folder of s holding the resolved path `path`, or NULL. */
const char *pg_dirset_find(const pg_dirset *s, const char *path);
/* Free the folders and reset s. s may be NULL. */
void pg_dirset_free(pg_dirset *s);

#endif
