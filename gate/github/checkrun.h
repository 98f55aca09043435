/* A check run on the pull request's head commit: name, conclusion, the summary as its output and
 * every annotation, the first 50 with the create and the rest appended by updates of 50 each
 * (GitHub's limit per request). On pull_request events the head is pull_request.head.sha, not
 * GITHUB_SHA (the merge commit). Only GitHub App tokens (GITHUB_TOKEN included, with the checks:
 * write permission) can create check runs. An uncertain create is followed by a listing of the
 * commit's check runs by name, matched by external_id, before any second create. */
#ifndef PG_GITHUB_CHECKRUN_H
#define PG_GITHUB_CHECKRUN_H

#include <stddef.h>

#include "base/diag.h"
#include "github/annotations.h"
#include "github/client.h"

/* GitHub's limits on a check run's output. */
#define PG_GH_CHECK_TEXT_MAX 65535u
#define PG_GH_CHECK_BATCH 50u

typedef struct {
    const char *name;        /* the check's name, e.g. "ptxgate" */
    const char *head_sha;    /* 40 hex characters */
    const char *conclusion;  /* success | failure | neutral | ... */
    const char *title;       /* one line */
    const char *summary;     /* markdown; cut to PG_GH_CHECK_TEXT_MAX bytes */
    const char *details_url; /* may be NULL */
    const char *external_id; /* identifies this run's check (may be NULL: none) */
} pg_gh_check_spec;

typedef struct {
    long long id;
    char html_url[512];
    size_t annotations_sent;
    int requests; /* create + updates sent */
} pg_gh_check_result;

/* The check run's conclusion from the results verdict ("pass", "fail", "error") and the number
 * of submissions not judged on a GPU (report/judged.h): "failure" for a gate failure and for an
 * infrastructure error (a run that could not be judged must not pass a required check);
 * "action_required" for a passing run with a submission not judged on a GPU — GitHub lets
 * required checks pass on success, neutral and skipped only (its "About protected branches"
 * page), so neutral would turn a missing GPU green, and its REST reference says an
 * action_required check points at details_url for what to do (the workflow run); "success"
 * otherwise. */
const char *pg_gh_check_conclusion(const char *verdict, size_t not_judged);

/* The check run's title (one line, at most n bytes into buf, returned): "PASS: …", "FAIL: …",
 * "INFRASTRUCTURE: the gate could not judge N submissions …" for a run with an infrastructure
 * error, "NOT JUDGED ON A GPU: <reason> …" for a passing run with a submission not judged on a
 * GPU; each with the submission counts. by_verdict: submissions that passed, failed, errored,
 * were skipped; reason may be NULL (untrusted: cut to 160 bytes; GitHub shows titles as plain
 * text). */
char *pg_gh_check_title(const char *verdict, const size_t by_verdict[4], size_t not_judged,
                        const char *reason, char *buf, size_t n);

/* Create the check run and send all n annotations. *out is zeroed first.
 * Errors: PG_ERR_INFRA for API failures (GitHub's message; a 403 says the token cannot create
 * check runs), PG_ERR_INPUT for a head_sha that is not 40 hex digits. */
pg_status pg_gh_check_run_publish(pg_gh_client *c, const char *repo, const pg_gh_check_spec *spec,
                                  const pg_gh_annotation *a, size_t n, pg_gh_check_result *out,
                                  pg_diag *d);

#endif
