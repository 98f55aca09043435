/* Keeping only the compiler diagnostics that belong to files a report may quote. nvcc and its
 * host preprocessor quote source lines next to their messages; a line of a file outside the
 * allowed folders (the runner's files) must never reach results.json, junit.xml or summary.md.
 * Pure: whether a file is allowed is the caller's predicate. */
#ifndef PG_TOOL_DIAG_FILTER_H
#define PG_TOOL_DIAG_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* The file a diagnostic line names, into path (n bytes): the FILE of
 *   "FILE(LINE): ..."                      (nvcc front end, cicc)
 *   "FILE:LINE:..."                        (gcc, the host preprocessor)
 *   "In file included from FILE:LINE[:,]"  and  "                 from FILE:LINE[:,]"
 *   ". FILE" / ".. FILE"                   (gcc -H)
 * Returns false for any other line (a quoted source line, a caret, a summary). */
bool pg_diag_line_file(const char *line, size_t len, char *path, size_t n);

/* Is `path` (as printed by the tool, relative to the current folder or absolute) a file whose
 * text may be quoted? */
typedef bool (*pg_path_allowed_fn)(const char *path, void *ctx);

/* Copy log into *out (NUL-terminated, owned by the caller), line by line: a line naming a file
 * (pg_diag_line_file; an indented "from FILE:LINE" only right after an include-chain line
 * ending in ',') is kept when allowed(file) says so; every other line goes with the last
 * line that named a file (kept before the first one: the tool's own messages). *dropped counts
 * the dropped lines that named a file (diagnostics); quoted and caret lines go with them
 * uncounted. Errors: PG_ERR_INFRA when out of memory (*out NULL). */
pg_status pg_diag_filter(const char *log, pg_path_allowed_fn allowed, void *ctx, char **out,
                         int *dropped);

#endif
