/* Stored baselines as readable text: the listing of `ptxgate baseline show` and the old → new
 * summary `ptxgate baseline refresh` prints. Pure: the text is returned, the CLI prints it. */
#ifndef PG_MODEL_BASELINE_TEXT_H
#define PG_MODEL_BASELINE_TEXT_H

#include "baseline.h"

/* b as text: task, GPU key, file, when and by what it was measured, the environment, the
 * accepted kernel with its hashes, then per workload the vendor time with its interval and
 * method summary, the pinned algorithm and workspace, and the accepted kernel's time and
 * speedup. Lines end in '\n'. Returns a heap string (caller frees), NULL on out-of-memory. */
char *pg_baseline_show_text(const pg_baseline *b);

/* What a refresh changed, old (NULL for a new file) → new: the fingerprint fields that differ,
 * a changed accepted kernel (hashes or paths), and per workload the vendor median with its
 * interval, old → new, the relative change and whether the intervals overlap, a changed
 * algorithm (old → new text), and the accepted kernel's speedup old → new; workloads only in
 * one of the two are listed as new or removed. path names the file in the first line.
 * Returns a heap string (caller frees), NULL on out-of-memory. */
char *pg_baseline_diff_text(const pg_baseline *old, const pg_baseline *new_b, const char *path);

#endif
