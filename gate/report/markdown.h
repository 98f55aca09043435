/* The markdown summary from the results json, fit for $GITHUB_STEP_SUMMARY (docs/reports.md).
 * The output is a deterministic function of the json: the same results give the same bytes. */
#ifndef PG_REPORT_MARKDOWN_H
#define PG_REPORT_MARKDOWN_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"

/* Largest summary rendered (bytes). GitHub refuses step summaries over 1 MiB; past this size the
 * remaining submissions are left out with a note pointing at the results json. */
#define PG_MARKDOWN_MAX_BYTES (768u * 1024u)

/* Render a GitHub-flavoured markdown summary fit for $GITHUB_STEP_SUMMARY: a title line with the
 * overall verdict and emoji-free status words (PASS/FAIL/ERROR), the environment in one line (GPU
 * name, driver, CUDA, ptxas, cuBLASLt) or the GPU skip reason, then per submission: its task,
 * source, arch, its submission stages (assemble: registers/spills or the first diagnostics with
 * PTX line numbers; load), and a table with a row per workload: workload | status | candidate
 * TFLOP/s | baseline TFLOP/s | speedup [95% CI] | max abs error | rel L2 error | bad elements;
 * then a "Skipped stages" list with reasons when any. Numbers: TFLOP/s "%.1f", speedup
 * "%.3f× [%.3f, %.3f]", errors "%.3g"; missing values "—". Untrusted text (kernel names,
 * messages, compiler logs) is escaped: no raw HTML (< > & become entities), @mentions are
 * neutralized (a zero-width joiner follows every '@'), markdown punctuation is backslash-escaped
 * (so | in table cells), newlines collapse to spaces, control and bidi-override characters
 * become U+FFFD.
 * *out is a NUL-terminated malloc'd buffer owned by the caller, *len (len may be NULL) its length
 * without the NUL;
 * errors: PG_ERR_INPUT naming results_file and the JSON path; PG_ERR_INFRA on out-of-memory.
 * On error *out is NULL. */
pg_status pg_report_markdown(const json_t *results, const char *results_file, char **out,
                             size_t *len, pg_diag *d);

/* Escape untrusted text s as inline markdown exactly as the summary does for names and messages
 * (one line, no raw HTML, no markdown syntax, no @mentions, control and bidi characters as
 * U+FFFD; at most max_bytes of s, cut with "…"). For text that other writers (the pull-request
 * comment, the check run) add around the summary. Returns a malloc'd string the caller frees,
 * "" for a NULL s, NULL on out-of-memory. */
char *pg_report_markdown_inline(const char *s, size_t max_bytes);

/* A link destination for a URL ptxgate puts in a report itself (the workflow run's page): s when
 * it starts with "https://" or "http://" and holds only URL characters that need no escape in a
 * markdown link destination (A-Z a-z 0-9 - . _ ~ : / ? # [ ] @ ! $ & ' * + , ; = %, and no
 * parentheses, spaces, < > or backslashes), at most 1000 bytes; else NULL (no link is made).
 * Returns a malloc'd copy the caller frees. Unlike pg_report_markdown_inline, it is not made
 * inert: it is meant to be a link. */
char *pg_report_markdown_url(const char *s);

#endif
