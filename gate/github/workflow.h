/* The files and events of a GitHub Actions step: $GITHUB_OUTPUT (name=value, or a heredoc with a
 * random delimiter for multi-line values), $GITHUB_STEP_SUMMARY (appended, kept under GitHub's
 * 1 MiB per step with a pointer to the full report when cut), the event payload
 * ($GITHUB_EVENT_PATH: the pull request's number and head, for pull_request, pull_request_target
 * and workflow_run events), and random tokens for delimiters and ::stop-commands::. */
#ifndef PG_GITHUB_WORKFLOW_H
#define PG_GITHUB_WORKFLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* GitHub refuses step summaries over 1 MiB. */
#define PG_GH_STEP_SUMMARY_LIMIT (1024u * 1024u)

/* n-1 random lowercase hex characters into buf (n >= 9), from getrandom().
 * Errors: PG_ERR_INFRA when no randomness is available. */
pg_status pg_gh_random_token(char *buf, size_t n, pg_diag *d);

/* Append one output to the file at path ($GITHUB_OUTPUT): "name=value\n", or, when value holds
 * CR or LF, "name<<DELIM\nvalue\nDELIM\n" with a random delimiter that does not occur in value.
 * name must be [A-Za-z0-9_-]+. Errors: PG_ERR_INPUT for a bad name or an unwritable file. */
pg_status pg_gh_output_append(const char *path, const char *name, const char *value, pg_diag *d);

/* markdown cut to at most max_bytes (including note), at a line boundary, with note appended
 * after the cut; returned as is (copied) when it fits. Pure; malloc'd, NULL on out-of-memory. */
char *pg_gh_truncate_markdown(const char *markdown, size_t max_bytes, const char *note,
                              bool *truncated);

/* Append markdown to the step summary file at path, so that the file stays under limit bytes
 * (what is already in it counts): when it does not fit, it is cut at a line boundary and note
 * (markdown, may be NULL) is added. *written (may be NULL) gets the bytes appended, *truncated
 * (may be NULL) whether it was cut. Errors: PG_ERR_INPUT for an unwritable file. */
pg_status pg_gh_summary_append(const char *path, const char *markdown, size_t limit,
                               const char *note, size_t *written, bool *truncated, pg_diag *d);

/* What publishing needs from the event payload. Fields are 0 / "" when absent. */
typedef struct {
    long pr;              /* pull request number */
    char head_sha[64];    /* the pull request head (not the merge commit) */
    char head_repo[256];  /* owner/name of the head repository (a fork's name for fork PRs) */
    char base_repo[256];  /* owner/name of the repository the event belongs to */
} pg_gh_event;

/* Read the event payload at path: pull_request.{number, head.sha, head.repo.full_name} for
 * pull_request and pull_request_target; workflow_run.{head_sha, head_repository.full_name,
 * pull_requests[0].number} for workflow_run; repository.full_name for all. Other events leave
 * the fields empty. Errors: PG_ERR_INPUT for a missing or malformed file. */
pg_status pg_gh_event_read(const char *path, pg_gh_event *out, pg_diag *d);

#endif
