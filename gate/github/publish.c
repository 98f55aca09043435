/* Publishing one results file to GitHub (see publish.h). */
#include "publish.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "github/annotations.h"
#include "github/checkrun.h"
#include "github/http.h"
#include "github/workflow.h"
#include "report/judged.h"
#include "report/markdown.h"
#include "report/results_read.h"
#include "base/utf8.h"

static const char *const k_step_names[PG_GH_STEPS] = {"summary", "annotations", "comment",
                                                       "check-run", "outputs"};

void pg_gh_publish_result_free(pg_gh_publish_result *r)
{
    if (!r)
        return;
    free(r->log);
    memset(r, 0, sizeof *r);
}

static void step_set(pg_gh_publish_result *out, int i, pg_gh_step_state state, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
static void step_set(pg_gh_publish_result *out, int i, pg_gh_step_state state, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->steps[i].message, sizeof out->steps[i].message, fmt, ap);
    va_end(ap);
    out->steps[i].state = state;
    if (state == PG_GH_STEP_FAILED)
        out->failed_steps++;
}

static void step_fail(pg_gh_publish_result *out, int i, const pg_diag *d)
{
    char buf[2400];
    step_set(out, i, PG_GH_STEP_FAILED, "%s", pg_diag_format(d, buf, sizeof buf));
}

/* Workflow commands for at most max annotations of each level, and a notice for the rest. */
static char *annotation_log(const pg_gh_annotations *a, size_t max, size_t *shown)
{
    pg_text t;
    pg_text_init(&t, 4u * 1024u * 1024u);
    pg_text_add(&t, "");
    size_t used[3] = {0, 0, 0};
    *shown = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (used[a->items[i].level] >= max)
            continue;
        used[a->items[i].level]++;
        char *cmd = pg_gh_annotation_command(&a->items[i]);
        pg_text_add(&t, cmd);
        free(cmd);
        (*shown)++;
    }
    if (*shown < a->n + a->dropped)
        pg_text_addf(&t, "::notice title=ptxgate::%zu more annotations are in the check run and "
                         "the job summary (GitHub shows %zu per level and step in the log)\n",
                     a->n + a->dropped - *shown, max);
    return pg_text_take(&t, NULL);
}

static void run_summary(const pg_gh_publish_config *cfg, const char *md, pg_gh_publish_result *out)
{
    if (!cfg->summary_path || !cfg->summary_path[0]) {
        step_set(out, PG_GH_STEP_SUMMARY, PG_GH_STEP_NOT_RUN, "no step summary file given");
        return;
    }
    char *url = cfg->run_url && cfg->run_url[0] ? pg_report_markdown_url(cfg->run_url) : NULL;
    char note[1600];
    snprintf(note, sizeof note,
             "**The summary was cut to stay under GitHub's 1 MiB step-summary limit.** The full "
             "report is summary.md in the reports artifact%s%s%s.",
             url ? " of [this workflow run](" : "", url ? url : "", url ? ")" : "");
    free(url);
    size_t written = 0;
    bool cut = false;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_gh_summary_append(cfg->summary_path, md, PG_GH_STEP_SUMMARY_LIMIT - 1024, note,
                             &written, &cut, &d) != PG_OK)
        step_fail(out, PG_GH_STEP_SUMMARY, &d);
    else
        step_set(out, PG_GH_STEP_SUMMARY, PG_GH_STEP_DONE, "%zu bytes appended%s", written,
                 cut ? " (cut to fit 1 MiB, with a pointer to the artifact)" : "");
}

/* The token-using steps need a repository, a token, and (verify_head) the PR head to match. */
static bool api_ready(const pg_gh_publish_config *cfg, pg_gh_client *c, const char *head_error,
                      pg_gh_publish_result *out, int step)
{
    if (!cfg->repo || !strchr(cfg->repo, '/')) {
        step_set(out, step, PG_GH_STEP_FAILED, "no repository (owner/name) given: set --repo or "
                 "GITHUB_REPOSITORY");
        return false;
    }
    if (!c) {
        step_set(out, step, PG_GH_STEP_FAILED, "%s", head_error[0] ? head_error : "no API client");
        return false;
    }
    if (head_error[0]) {
        step_set(out, step, PG_GH_STEP_FAILED, "%s", head_error);
        return false;
    }
    return true;
}

static void run_comment(const pg_gh_publish_config *cfg, pg_gh_client *c, const char *md,
                        const char *head_error, pg_gh_publish_result *out)
{
    const int S = PG_GH_STEP_COMMENT;
    if (cfg->comment_mode == PG_GH_COMMENT_OFF) {
        step_set(out, S, PG_GH_STEP_NOT_RUN, "comment mode off");
        return;
    }
    if (cfg->pr <= 0) {
        step_set(out, S, PG_GH_STEP_NOT_RUN, "not a pull request (no PR number in the event; "
                 "--pr sets one)");
        return;
    }
    if (!api_ready(cfg, c, head_error, out, S))
        return;
    pg_diag d;
    pg_diag_clear(&d);
    char login[256], marker[128];
    bool assumed = false;
    const char *key = cfg->comment_key && cfg->comment_key[0] ? cfg->comment_key : "ptxgate";
    if (cfg->comment_author && cfg->comment_author[0])
        snprintf(login, sizeof login, "%s", cfg->comment_author);
    else if (pg_gh_token_login(c, login, sizeof login, &assumed, &d) != PG_OK) {
        step_fail(out, S, &d);
        return;
    }
    char *body = pg_gh_comment_body(pg_gh_comment_marker(key, marker, sizeof marker), md,
                                    cfg->run_url);
    pg_gh_comment_result r;
    if (!body) {
        step_set(out, S, PG_GH_STEP_FAILED, "out of memory");
        return;
    }
    if (pg_gh_comment_publish(c, cfg->repo, cfg->pr, key, login, body, cfg->comment_mode, &r,
                              &d) != PG_OK)
        step_fail(out, S, &d);
    else {
        out->comment_id = r.id;
        snprintf(out->comment_url, sizeof out->comment_url, "%s", r.html_url);
        step_set(out, S, PG_GH_STEP_DONE, "%s comment %lld on #%ld (author %s%s)",
                 r.created ? "created" : "updated", r.id, cfg->pr, login,
                 assumed ? ", assumed for an installation token" : "");
    }
    free(body);
}

static void run_check(const pg_gh_publish_config *cfg, pg_gh_client *c, const char *md,
                      const pg_gh_annotations *ann, const char *head_error,
                      pg_gh_publish_result *out)
{
    const int S = PG_GH_STEP_CHECK;
    if (!cfg->check_name || !cfg->check_name[0]) {
        step_set(out, S, PG_GH_STEP_NOT_RUN, "no check name given");
        return;
    }
    if (!cfg->sha || !cfg->sha[0]) {
        step_set(out, S, PG_GH_STEP_FAILED, "no head commit: set --sha or GITHUB_SHA");
        return;
    }
    if (!api_ready(cfg, c, head_error, out, S))
        return;
    char title[512];
    pg_gh_check_title(out->verdict, out->by_verdict, out->not_judged, out->not_judged_reason,
                      title, sizeof title);
    pg_gh_check_spec spec = {cfg->check_name, cfg->sha,
                             pg_gh_check_conclusion(out->verdict, out->not_judged), title, md,
                             cfg->run_url, cfg->external_id};
    pg_gh_check_result r;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_gh_check_run_publish(c, cfg->repo, &spec, ann->items, ann->n, &r, &d) != PG_OK)
        step_fail(out, S, &d);
    else {
        out->check_run_id = r.id;
        snprintf(out->check_run_url, sizeof out->check_run_url, "%s", r.html_url);
        step_set(out, S, PG_GH_STEP_DONE, "check run %lld '%s' (%s) with %zu annotations in %d "
                 "request%s", r.id, cfg->check_name, spec.conclusion, r.annotations_sent,
                 r.requests, r.requests == 1 ? "" : "s");
    }
}

/* Check that pull request pr's head is sha (for a publish job that trusts neither the artifact
 * nor the event blindly). Fills err ("" when it matches). */
static void verify_head(const pg_gh_publish_config *cfg, pg_gh_client *c, char *err, size_t n)
{
    err[0] = '\0';
    if (!cfg->verify_head || !c)
        return;
    if (cfg->pr <= 0 || !cfg->sha || !cfg->sha[0] || !cfg->repo) {
        snprintf(err, n, "--verify-head needs a PR number, a head SHA and a repository");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "/repos/%s/pulls/%ld", cfg->repo, cfg->pr);
    pg_gh_reply r;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_gh_call(c, "GET", path, NULL, &r, &d) != PG_OK) {
        char buf[2048];
        snprintf(err, n, "cannot verify the PR head: %s", pg_diag_format(&d, buf, sizeof buf));
    } else {
        const char *head = json_string_value(json_object_get(json_object_get(r.json, "head"), "sha"));
        if (!head || strcmp(head, cfg->sha) != 0) {
            const char *shown = head ? head : "unknown";
            snprintf(err, n, "refusing to publish: pull request #%ld's head is %.*s, not %.*s "
                     "(the results are for another commit)", cfg->pr, PG_UTF8_CUT(shown, 40),
                     shown, PG_UTF8_CUT(cfg->sha, 40), cfg->sha);
        }
    }
    pg_gh_reply_free(&r);
}

/* The step outputs <what>-id and <what>-url of an object publishing made (a comment, a check
 * run); the id is empty when it was not made (id 0). Errors: those of pg_gh_output_append. */
static pg_status append_object(const char *p, const char *what, long long id, const char *url,
                               pg_diag *d)
{
    char key[32], num[32] = "";
    if (id)
        snprintf(num, sizeof num, "%lld", id);
    snprintf(key, sizeof key, "%s-id", what);
    pg_status st = pg_gh_output_append(p, key, num, d);
    snprintf(key, sizeof key, "%s-url", what);
    return st == PG_OK ? pg_gh_output_append(p, key, url, d) : st;
}

static pg_status write_outputs(const pg_gh_publish_config *cfg, const char *reports_dir,
                               pg_gh_publish_result *out, const pg_gh_annotations *ann, pg_diag *d)
{
    char path[4200], num[64];
    const char *p = cfg->output_path;
    pg_status st = pg_gh_output_append(p, "conclusion", out->verdict, d);
#define OUT_NUM(name, fmt, v)                                                                     \
    if (st == PG_OK) {                                                                             \
        snprintf(num, sizeof num, fmt, v);                                                         \
        st = pg_gh_output_append(p, name, num, d);                                                 \
    }
    OUT_NUM("exit-code", "%lld", out->exit_code);
    OUT_NUM("passed", "%zu", out->by_verdict[0]);
    OUT_NUM("failed", "%zu", out->by_verdict[1]);
    OUT_NUM("errored", "%zu", out->by_verdict[2]);
    OUT_NUM("skipped", "%zu", out->by_verdict[3]);
    OUT_NUM("annotations", "%zu", ann->n + ann->dropped);
    OUT_NUM("not-judged-on-gpu", "%zu", out->not_judged);
    if (st == PG_OK)
        st = append_object(p, "comment", out->comment_id, out->comment_url, d);
    if (st == PG_OK)
        st = append_object(p, "check-run", out->check_run_id, out->check_run_url, d);
    if (st == PG_OK)
        st = pg_gh_output_append(p, "results-path", cfg->results_file, d);
    if (st == PG_OK)
        st = pg_gh_output_append(p, "junit-path",
                                 pg_path_join(path, sizeof path, reports_dir, "junit.xml"), d);
    if (st == PG_OK)
        st = pg_gh_output_append(p, "summary-path",
                                 pg_path_join(path, sizeof path, reports_dir, "summary.md"), d);
    OUT_NUM("publish-errors", "%zu", out->failed_steps);
#undef OUT_NUM
    return st;
}

pg_status pg_gh_publish(const pg_gh_publish_config *cfg, pg_gh_publish_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < PG_GH_STEPS; i++)
        out->steps[i].name = k_step_names[i];
    json_t *json = NULL;
    pg_results r = {0};
    pg_gh_annotations ann = {0};
    pg_gh_client *c = NULL;
    char *md = NULL, dir[4096];
    pg_status st;
    const char *key = cfg->comment_key && cfg->comment_key[0] ? cfg->comment_key : "ptxgate";
    if (cfg->comment_mode != PG_GH_COMMENT_OFF && !pg_gh_comment_key_valid(key))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--comment-key",
                           "expected 1-64 characters of A-Z a-z 0-9 . _ -, got '%.*s'",
                           PG_UTF8_CUT(key, 80), key);
    /* Before anything is written: a URL that would carry the token in clear is a usage error. */
    if ((st = pg_gh_http_check_api_url(cfg->client.api_url ? cfg->client.api_url : "", d)) != PG_OK)
        return st;
    if ((st = pg_json_load(cfg->results_file, &json, d)) != PG_OK ||
        (st = pg_results_read(json, cfg->results_file, &r, d)) != PG_OK ||
        (st = pg_report_markdown(json, cfg->results_file, &md, NULL, d)) != PG_OK ||
        (st = pg_gh_annotations_build(&r, cfg->workspace, &ann, d)) != PG_OK)
        goto done;
    snprintf(out->verdict, sizeof out->verdict, "%s", pg_res_status_name(r.verdict));
    out->exit_code = r.exit_code;
    for (size_t i = 0; i < r.n_subs; i++)
        out->by_verdict[r.subs[i].verdict]++;
    const char *why = NULL;
    out->not_judged = pg_res_count_not_judged_on_gpu(&r, &why);
    snprintf(out->not_judged_reason, sizeof out->not_judged_reason, "%s", why ? why : "");
    const char *reports_dir =
        cfg->reports_dir ? cfg->reports_dir : pg_path_dirname(dir, sizeof dir, cfg->results_file);

    /* 1. step summary */
    run_summary(cfg, md, out);
    /* 2. annotations as workflow commands */
    if (cfg->annotations) {
        size_t shown = 0;
        out->log = annotation_log(&ann, cfg->log_annotations_max ? cfg->log_annotations_max : 10,
                                  &shown);
        if (!out->log) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
        step_set(out, PG_GH_STEP_ANNOTATIONS, PG_GH_STEP_DONE,
                 "%zu of %zu annotations in the log (%zu failures, %zu warnings)", shown,
                 ann.n + ann.dropped, ann.count[PG_GH_FAILURE], ann.count[PG_GH_WARNING]);
    } else {
        step_set(out, PG_GH_STEP_ANNOTATIONS, PG_GH_STEP_NOT_RUN, "annotations off");
    }
    if (!out->log && !(out->log = strdup(""))) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    /* 3-4. the API steps */
    char head_error[2400] = "";
    bool want_api = (cfg->comment_mode != PG_GH_COMMENT_OFF && cfg->pr > 0) ||
                    (cfg->check_name && cfg->check_name[0]);
    if (want_api) {
        pg_diag cd;
        pg_diag_clear(&cd);
        if (!cfg->client.token || !cfg->client.token[0])
            snprintf(head_error, sizeof head_error, "no token: $%s is unset or empty",
                     cfg->token_name && cfg->token_name[0] ? cfg->token_name : "GITHUB_TOKEN");
        else if (pg_gh_client_new(&cfg->client, &c, &cd) != PG_OK)
            pg_diag_format(&cd, head_error, sizeof head_error);
        else
            verify_head(cfg, c, head_error, sizeof head_error);
    }
    run_comment(cfg, c, md, head_error, out);
    run_check(cfg, c, md, &ann, head_error, out);
    if (c)
        out->requests = pg_gh_client_requests(c);
    /* 5. outputs, last: they carry the comment and check run ids */
    if (cfg->output_path && cfg->output_path[0]) {
        pg_diag od;
        pg_diag_clear(&od);
        out->steps[PG_GH_STEP_OUTPUTS].state = PG_GH_STEP_DONE; /* counted before writing */
        if (write_outputs(cfg, reports_dir, out, &ann, &od) != PG_OK)
            step_fail(out, PG_GH_STEP_OUTPUTS, &od);
        else
            step_set(out, PG_GH_STEP_OUTPUTS, PG_GH_STEP_DONE, "written to the output file");
    } else {
        step_set(out, PG_GH_STEP_OUTPUTS, PG_GH_STEP_NOT_RUN, "no output file given");
    }
    st = PG_OK;
done:
    pg_gh_client_free(c);
    pg_gh_annotations_free(&ann);
    pg_results_free(&r);
    json_decref(json);
    free(md);
    return st;
}
