/* Helpers shared by fileio.c and fileset.c (not for other modules): private file names and
 * writing a private file next to a destination name. */
#ifndef PG_BASE_FILEIO_INTERNAL_H
#define PG_BASE_FILEIO_INTERNAL_H

#include <stddef.h>

#include "fileio.h"

/* "<o->path>/<name>" into out (n bytes), for messages. Returns out. */
const char *pg_fileio_shown(char *out, size_t n, const pg_outdir *o, const char *name);

/* A private name next to name into out: ".<name>.<what>.<16 hex digits>" (what: "tmp" or
 * "old"), random; name is cut to 200 bytes to keep within NAME_MAX. Returns out. */
char *pg_fileio_private_name(char *out, size_t n, const char *name, const char *what);

/* Create a new private file next to name in o (O_CREAT|O_EXCL|O_NOFOLLOW; another random name
 * on a clash, 16 tries), write len bytes of data, fsync and close it; tmp (tmp_n bytes)
 * receives its name. On failure nothing is left. Errors: PG_ERR_INPUT naming "<folder>/<name>"
 * (an unwritable folder, a failed write). */
pg_status pg_fileio_write_private(const pg_outdir *o, const char *name, const char *what,
                                  const void *data, size_t len, char *tmp, size_t tmp_n,
                                  pg_diag *d);

#endif
