/* `ptxgate publish`: put a results.json on GitHub — step summary, annotations, sticky PR
 * comment, check run and step outputs (gate/github/publish.h does the work; this prints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fileio.h"
#include "cli.h"
#include "github/publish.h"
#include "github/workflow.h"
#include "options.h"

static pg_option k_options[] = {
    {"summary-file", "FILE", "Append the markdown summary to FILE. Default: $GITHUB_STEP_SUMMARY; '' for none.", NULL},
    {"output-file", "FILE", "Append the step outputs (conclusion, counts, report paths, comment-id, check-run-url, ...) to FILE. Default: $GITHUB_OUTPUT; '' for none.", NULL},
    {"annotations", NULL, "Print annotations as workflow commands (::error file=...,line=...::) on stdout, at most --log-annotations per level.", NULL},
    {"log-annotations", "N", "Workflow-command annotations printed per level (GitHub shows 10 per step). Default: 10.", NULL},
    {"comment", "off|update|new", "Pull-request comment: off, update the sticky comment (create it when missing), or a new comment every run. Default: off.", NULL},
    {"comment-key", "KEY", "Tells sticky comments apart (several gates on one PR): 1-64 of A-Z a-z 0-9 . _ -. Default: ptxgate.", NULL},
    {"comment-author", "LOGIN", "The login whose comment is updated. Default: the token's own login (GET /user), or github-actions[bot] for an installation token.", NULL},
    {"check-name", "NAME", "Create a check run of this name on the head commit, with all annotations. Default: none.", NULL},
    {"token-env", "VAR", "Environment variable holding the token (the token itself is never a flag, never printed). Default: GITHUB_TOKEN.", NULL},
    {"api-url", "URL", "REST API base URL. Default: $GITHUB_API_URL, else https://api.github.com (GitHub Enterprise Server: https://HOST/api/v3).", NULL},
    {"repo", "OWNER/NAME", "Repository. Default: $GITHUB_REPOSITORY.", NULL},
    {"event", "FILE", "Event payload to take the PR number and head SHA from. Default: $GITHUB_EVENT_PATH.", NULL},
    {"pr", "N", "Pull request number. Default: from the event (pull_request, pull_request_target, workflow_run).", NULL},
    {"sha", "SHA", "Head commit for the check run. Default: the PR head from the event, else $GITHUB_SHA.", NULL},
    {"verify-head", NULL, "Refuse to comment or create a check run unless the PR's current head is --sha (for publish jobs fed by an artifact).", NULL},
    {"run-url", "URL", "Link to the workflow run. Default: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID.", NULL},
    {"workspace", "DIR", "Annotation paths are made relative to DIR. Default: $GITHUB_WORKSPACE.", NULL},
    {"reports-dir", "DIR", "Folder holding junit.xml and summary.md, for the path outputs. Default: the folder of RESULTS.json.", NULL},
    {"max-wait", "S", "Longest total wait on rate limits and server errors per API call. Default: 300.", NULL},
    {"fail-on-publish-error", NULL, "Exit 3 when a publishing step failed. Default: report it and exit 0 (a publishing failure does not change the gate's verdict).", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "publish",
    "ptxgate publish [options] RESULTS.json",
    "Publish a results file to GitHub: job summary, annotations, sticky pull-request comment, "
    "check run and step outputs, all rendered from RESULTS.json alone.",
    "Each step that fails is reported on stderr and the others still run. The gate's verdict is\n"
    "the 'conclusion' output; the exit code is 0 unless the results cannot be read (2) or a step\n"
    "failed with --fail-on-publish-error (3). Untrusted text is escaped in markdown and in\n"
    "workflow commands; messages from the API are printed between ::stop-commands:: markers\n"
    "when GITHUB_ACTIONS=true. The comment needs pull-requests: write, the check run checks: write.",
    "  ptxgate publish --annotations --comment update --check-name ptxgate reports/results.json\n"
    "  ptxgate publish --summary-file summary.md --output-file out.txt reports/results.json",
    k_options,
};

/* The option's value, else the environment variable's (NULL when both are absent). */
static const char *opt_or_env(const char *name, const char *env)
{
    const char *v = pg_option_value(&k_spec, name);
    return v ? v : env ? getenv(env) : NULL;
}

/* Waits on rate limits and server errors, scaled by PTXGATE_GITHUB_WAIT_SCALE (a factor in
 * [0, 1], default 1; documented in docs/action.md as a test hook: the fake-GitHub tests run
 * a secondary rate limit's 60 s wait in no time). It only shortens waits; the waits reported and
 * budgeted stay the nominal ones. */
static void scaled_sleep(double seconds, void *ctx)
{
    double scale = *(const double *)ctx;
    double s = seconds * scale;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (s > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

static bool wait_scale(double *out)
{
    const char *v = getenv("PTXGATE_GITHUB_WAIT_SCALE");
    *out = 1.0;
    if (!v || !v[0])
        return true;
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= 0 && x <= 1)) {
        fprintf(stderr, "ptxgate publish: PTXGATE_GITHUB_WAIT_SCALE: expected a number from 0 to 1, "
                        "got '%.40s'\n", v);
        return false;
    }
    *out = x;
    return true;
}

static bool valid_env_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

int pg_cmd_publish(int argc, char **argv)
{
    char **pos = NULL;
    int npos = 0;
    int rc;
    if (!pg_options_parse_cmd(&k_spec, argc, argv, &pos, &npos, &rc))
        return rc;
    pg_gh_publish_config cfg;
    memset(&cfg, 0, sizeof cfg);
    pg_gh_publish_result res;
    memset(&res, 0, sizeof res);
    pg_gh_event ev;
    memset(&ev, 0, sizeof ev);
    pg_diag d;
    pg_diag_clear(&d);
    char run_url[2048] = "", external_id[40] = "ptxgate-", api_default[] = "https://api.github.com";
    long pr = 0, max_log = 10, max_wait = 300;
    rc = 2;
    if (npos != 1) {
        fprintf(stderr, "ptxgate publish: expected exactly one RESULTS.json (see 'ptxgate publish --help')\n");
        goto done;
    }
    if (!pg_option_int(&k_spec, "pr", 1, 1000000000L, &pr) ||
        !pg_option_int(&k_spec, "log-annotations", 0, 1000, &max_log) ||
        !pg_option_int(&k_spec, "max-wait", 0, 86400, &max_wait))
        goto done;
    const char *mode = pg_option_value(&k_spec, "comment");
    if (pg_gh_comment_mode_parse(mode ? mode : "off", &cfg.comment_mode, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    const char *token_env = pg_option_value(&k_spec, "token-env");
    if (!token_env)
        token_env = "GITHUB_TOKEN";
    if (!valid_env_name(token_env)) {
        fprintf(stderr, "ptxgate publish: --token-env: expected an environment variable name\n");
        goto done;
    }
    const char *event = opt_or_env("event", "GITHUB_EVENT_PATH");
    if (event && event[0] && pg_gh_event_read(event, &ev, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    const char *server = getenv("GITHUB_SERVER_URL"), *repo_env = getenv("GITHUB_REPOSITORY"),
               *run_id = getenv("GITHUB_RUN_ID");
    if (server && server[0] && repo_env && repo_env[0] && run_id && run_id[0])
        snprintf(run_url, sizeof run_url, "%s/%s/actions/runs/%s", server, repo_env, run_id);
    if (pg_gh_random_token(external_id + 8, sizeof external_id - 8, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }

    cfg.results_file = pos[0];
    cfg.reports_dir = pg_option_value(&k_spec, "reports-dir");
    cfg.workspace = opt_or_env("workspace", "GITHUB_WORKSPACE");
    cfg.summary_path = opt_or_env("summary-file", "GITHUB_STEP_SUMMARY");
    cfg.output_path = opt_or_env("output-file", "GITHUB_OUTPUT");
    cfg.annotations = pg_option_value(&k_spec, "annotations") != NULL;
    cfg.log_annotations_max = (size_t)max_log;
    cfg.comment_key = pg_option_value(&k_spec, "comment-key");
    cfg.comment_author = pg_option_value(&k_spec, "comment-author");
    cfg.check_name = pg_option_value(&k_spec, "check-name");
    cfg.repo = opt_or_env("repo", "GITHUB_REPOSITORY");
    cfg.pr = pr ? pr : ev.pr;
    cfg.sha = pg_option_value(&k_spec, "sha");
    if (!cfg.sha)
        cfg.sha = ev.head_sha[0] ? ev.head_sha : getenv("GITHUB_SHA");
    cfg.verify_head = pg_option_value(&k_spec, "verify-head") != NULL;
    cfg.run_url = pg_option_value(&k_spec, "run-url");
    if (!cfg.run_url)
        cfg.run_url = run_url;
    cfg.external_id = external_id;
    cfg.client.api_url = opt_or_env("api-url", "GITHUB_API_URL");
    if (!cfg.client.api_url || !cfg.client.api_url[0])
        cfg.client.api_url = api_default;
    cfg.client.token = getenv(token_env);
    cfg.token_name = token_env;
    static double scale = 1.0;
    if (!wait_scale(&scale))
        goto done;
    cfg.client.sleep_fn = scaled_sleep;
    cfg.client.clock_ctx = &scale;
    cfg.client.retry = pg_gh_retry_default();
    cfg.client.retry.max_total_wait_s = (double)max_wait;
    if (cfg.client.retry.max_delay_s > (double)max_wait)
        cfg.client.retry.max_delay_s = (double)max_wait;

    if (pg_gh_publish(&cfg, &res, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    /* Annotations are workflow commands: printed while commands are on, their text escaped. */
    fputs(res.log, stdout);
    fflush(stdout);
    char stop[33] = "";
    bool actions = getenv("GITHUB_ACTIONS") && strcmp(getenv("GITHUB_ACTIONS"), "true") == 0;
    if (actions && pg_gh_random_token(stop, sizeof stop, &d) == PG_OK)
        printf("::stop-commands::%s\n", stop); /* API messages below are untrusted text */
    printf("ptxgate publish: verdict %s (exit code %lld in the results)\n", res.verdict,
           res.exit_code);
    if (res.not_judged)
        printf("ptxgate publish: %zu submission%s not judged on a GPU: %.400s\n", res.not_judged,
               res.not_judged == 1 ? "" : "s", res.not_judged_reason);
    for (int i = 0; i < PG_GH_STEPS; i++) {
        const pg_gh_step *s = &res.steps[i];
        FILE *to = s->state == PG_GH_STEP_FAILED ? stderr : stdout;
        fflush(stdout);
        fprintf(to, "ptxgate publish: %s: %s%s\n", s->name,
                s->state == PG_GH_STEP_FAILED ? "FAILED: " :
                s->state == PG_GH_STEP_NOT_RUN ? "not run: " : "", s->message);
        fflush(to);
    }
    if (stop[0])
        printf("::%s::\n", stop);
    if (res.failed_steps && actions)
        printf("::warning title=ptxgate publish::%zu publishing step%s failed (see the log); the "
               "gate verdict is unchanged\n", res.failed_steps, res.failed_steps == 1 ? "" : "s");
    rc = res.failed_steps && pg_option_value(&k_spec, "fail-on-publish-error") ? 3 : 0;
done:
    pg_gh_publish_result_free(&res);
    free(pos);
    return rc;
}
