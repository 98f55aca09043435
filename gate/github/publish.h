/* Publishing one results file to GitHub, as its steps: the markdown summary appended to the step
 * summary, annotations as workflow commands, the sticky pull-request comment, the check run, and
 * the step's outputs. Everything is rendered from results.json alone (the summary is the same
 * text `ptxgate report` writes to summary.md). Each step that fails is recorded with its reason
 * and the others still run: a publishing failure never changes the gate's verdict, and the CLI
 * decides whether it changes the exit code. Nothing is printed here; the caller prints
 * result.log (workflow commands) and the step lines. */
#ifndef PG_GITHUB_PUBLISH_H
#define PG_GITHUB_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "github/client.h"
#include "github/comment.h"

typedef struct {
    const char *results_file;   /* results.json (required) */
    const char *reports_dir;    /* where junit.xml and summary.md are, for the path outputs;
                                   NULL: the results file's folder */
    const char *workspace;      /* annotation paths are made relative to it (may be NULL) */
    const char *summary_path;   /* $GITHUB_STEP_SUMMARY; NULL or "": no step summary */
    const char *output_path;    /* $GITHUB_OUTPUT; NULL or "": no outputs */
    bool annotations;           /* put workflow commands into result.log */
    size_t log_annotations_max; /* per level (GitHub shows 10 per step); 0: 10 */
    pg_gh_comment_mode comment_mode;
    const char *comment_key;    /* default "ptxgate" */
    const char *comment_author; /* NULL or "": the token's login (pg_gh_token_login) */
    const char *check_name;     /* NULL or "": no check run */
    const char *repo;           /* owner/name */
    long pr;                    /* 0: not a pull request (no comment) */
    const char *sha;            /* head commit of the check run (and of verify_head) */
    bool verify_head;           /* refuse to comment or check unless the PR's head is sha */
    const char *run_url;        /* link to the workflow run (may be NULL) */
    const char *external_id;    /* identifies this run's check run (may be NULL) */
    pg_gh_client_config client; /* api_url, token, retries, clock hooks */
    const char *token_name;     /* the token's environment variable, for messages only */
} pg_gh_publish_config;

typedef enum { PG_GH_STEP_NOT_RUN, PG_GH_STEP_DONE, PG_GH_STEP_FAILED } pg_gh_step_state;

typedef struct {
    const char *name;          /* "summary", "annotations", "comment", "check-run", "outputs" */
    pg_gh_step_state state;
    char message[2400];        /* what was done, why it did not run, or why it failed */
} pg_gh_step;

enum { PG_GH_STEP_SUMMARY, PG_GH_STEP_ANNOTATIONS, PG_GH_STEP_COMMENT, PG_GH_STEP_CHECK,
       PG_GH_STEP_OUTPUTS, PG_GH_STEPS };

typedef struct {
    char verdict[16];          /* pass | fail | error (from results.json) */
    long long exit_code;       /* from results.json */
    size_t by_verdict[4];      /* submissions: pass, fail, error, skipped */
    size_t not_judged;         /* submissions not judged on a GPU (report/judged.h) */
    char not_judged_reason[512]; /* the first one's reason ("" when none) */
    char *log;                 /* workflow commands to print (malloc'd, "" when none) */
    pg_gh_step steps[PG_GH_STEPS];
    size_t failed_steps;
    long long comment_id;
    char comment_url[512];
    long long check_run_id;
    char check_run_url[512];
    long requests;             /* API requests sent */
} pg_gh_publish_result;

/* Run the publishing steps of cfg. *out is zeroed first; free with pg_gh_publish_result_free.
 * Returns PG_OK when the results could be read, whatever the steps did (see out->steps and
 * out->failed_steps). Errors: PG_ERR_INPUT for a malformed or unreadable results file or a bad
 * setting (comment key; an API URL that pg_gh_http_check_api_url refuses, checked before any
 * step runs, so nothing is written); PG_ERR_INFRA on out-of-memory. */
pg_status pg_gh_publish(const pg_gh_publish_config *cfg, pg_gh_publish_result *out, pg_diag *d);
void pg_gh_publish_result_free(pg_gh_publish_result *r);

#endif
