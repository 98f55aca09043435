/* The GitHub REST client against the fake GitHub API (tests/fakes/github_api.py, started here on
 * 127.0.0.1): required headers, the sticky comment (create then update, a planted marker by
 * another author left alone, pagination, an installation token's login), check-run annotation
 * batches of 50, retries (5xx back-off, retry-after, x-ratelimit-reset, the waiting budget), no
 * blind re-POST after an uncertain create, GitHub's 422 message, a GHES path prefix, pagination
 * links outside the API refused, the proxy taken from http_proxy, and the token in no message. Waits go through a recording
 * sleep hook, so nothing here really sleeps. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "github/checkrun.h"
#include "github/client.h"
#include "github/comment.h"

extern char **environ;

#define TOKEN "tok-user-SECRET-9f8e7d"
#define APP_TOKEN "tok-app-SECRET-1a2b3c"

typedef struct {
    pid_t pid;
    char dir[512], log[600], url[128];
    double sleeps[32];
    int n_sleeps;
} fake;

static void record_sleep(double s, void *ctx)
{
    fake *f = ctx;
    if (f->n_sleeps < 32)
        f->sleeps[f->n_sleeps++] = s;
}

/* Start the fake with the given state JSON and API prefix ("" or "/api/v3"). */
static void fake_start(fake *f, const char *state, const char *prefix)
{
    static int seq;
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, PG_TEST_TMP "/github-client-%d-%d", (int)getpid(), seq++);
    mkdir(f->dir, 0755);
    char state_path[700], port_path[700];
    snprintf(state_path, sizeof state_path, "%s/state.json", f->dir);
    snprintf(port_path, sizeof port_path, "%s/port", f->dir);
    snprintf(f->log, sizeof f->log, "%s/requests.jsonl", f->dir);
    unlink(port_path);
    unlink(f->log);
    FILE *s = fopen(state_path, "w");
    assert_non_null(s);
    fputs(state, s);
    fclose(s);
    char *argv[] = {"python3", PG_FAKE_GITHUB, "--port-file", port_path, "--log", f->log,
                    "--state", state_path, "--prefix", (char *)prefix, "--lifetime", "60", NULL};
    assert_int_equal(posix_spawnp(&f->pid, "python3", NULL, NULL, argv, environ), 0);
    for (int i = 0; i < 200; i++) { /* up to 10 s */
        FILE *p = fopen(port_path, "r");
        int port = 0;
        if (p) {
            if (fscanf(p, "%d", &port) != 1)
                port = 0;
            fclose(p);
        }
        if (port > 0) {
            snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d%s", port, prefix);
            return;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the fake GitHub API did not start");
}

static void fake_stop(fake *f)
{
    if (f->pid > 0) {
        kill(f->pid, SIGTERM);
        waitpid(f->pid, NULL, 0);
        f->pid = 0;
    }
}

static pg_gh_client *client_for(fake *f, const char *token)
{
    pg_gh_client_config cfg = {0};
    cfg.api_url = f->url;
    cfg.token = token;
    cfg.retry = pg_gh_retry_default();
    cfg.timeout_s = 10;
    cfg.sleep_fn = record_sleep;
    cfg.clock_ctx = f;
    pg_gh_client *c = NULL;
    pg_diag d;
    assert_int_equal(pg_gh_client_new(&cfg, &c, &d), PG_OK);
    return c;
}

/* The recorded requests as a JSON array. */
static json_t *requests(const fake *f)
{
    json_t *all = json_array();
    FILE *in = fopen(f->log, "r");
    char line[1 << 20];
    while (in && fgets(line, sizeof line, in)) {
        json_t *j = json_loads(line, 0, NULL);
        assert_non_null(j);
        json_array_append_new(all, j);
    }
    if (in)
        fclose(in);
    return all;
}

/* Requests with this method whose path ends with suffix (NULL: any). */
static size_t count(const json_t *reqs, const char *method, const char *contains)
{
    size_t n = 0, i;
    json_t *r;
    json_array_foreach(reqs, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        if (strcmp(m, method) == 0 && (!contains || strstr(p, contains)))
            n++;
    }
    return n;
}

static void assert_no_token(const char *text)
{
    assert_null(strstr(text, "SECRET"));
}

static void assert_headers(const json_t *reqs)
{
    size_t i;
    json_t *r;
    json_array_foreach(reqs, i, r) {
        assert_string_equal(json_string_value(json_object_get(r, "accept")),
                            "application/vnd.github+json");
        assert_string_equal(json_string_value(json_object_get(r, "api_version")), "2022-11-28");
        assert_true(strncmp(json_string_value(json_object_get(r, "user_agent")), "ptxgate/", 8) == 0);
    }
}

static const char *const k_state_basic = "{\"tokens\": {\"" TOKEN "\": \"octocat\", \"" APP_TOKEN "\": null}}";

static void test_comment_create_then_update(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    pg_diag_clear(&d);
    char login[64];
    bool assumed = true;
    assert_int_equal(pg_gh_token_login(c, login, sizeof login, &assumed, &d), PG_OK);
    assert_string_equal(login, "octocat");
    assert_false(assumed);
    char marker[128];
    char *body1 = pg_gh_comment_body(pg_gh_comment_marker("ptxgate", marker, sizeof marker),
                                     "## ptxgate: FAIL\n", "https://github.example/o/r/actions/runs/1");
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 7, "ptxgate", login, body1,
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_true(r.created);
    long long first = r.id;
    char *body2 = pg_gh_comment_body(marker, "## ptxgate: PASS\n", NULL);
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 7, "ptxgate", login, body2,
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_false(r.created);
    assert_int_equal(r.id, first);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_headers(reqs);
    assert_int_equal(count(reqs, "POST", "/issues/7/comments"), 1);
    assert_int_equal(count(reqs, "PATCH", "/issues/comments/"), 1);
    /* The PATCH carried the new body, marker first. */
    json_t *last = json_array_get(reqs, json_array_size(reqs) - 1);
    const char *sent = json_string_value(json_object_get(json_object_get(last, "body"), "body"));
    assert_true(strncmp(sent, "<!-- ptxgate-comment: ptxgate -->\n", 34) == 0);
    assert_non_null(strstr(sent, "ptxgate: PASS"));
    json_decref(reqs);
    free(body1);
    free(body2);
}

static void test_planted_marker_is_not_updated(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"comments\": {\"7\": ["
                   "{\"id\": 5, \"user\": {\"login\": \"mallory\"}, \"body\": "
                   "\"<!-- ptxgate-comment: ptxgate -->\\nplanted\"},"
                   "{\"id\": 6, \"user\": {\"login\": \"octocat\"}, \"body\": "
                   "\"not ours: <!-- ptxgate-comment: ptxgate -->\"}]}}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 7, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\n\nhello",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_true(r.created);
    assert_true(r.id != 5 && r.id != 6);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "PATCH", NULL), 0);
    assert_int_equal(count(reqs, "POST", "/issues/7/comments"), 1);
    json_decref(reqs);
}

static void test_pagination_finds_comment_on_page_three(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"per_page_max\": 2, \"tokens\": {\"" TOKEN "\": \"octocat\"}, "
                   "\"comments\": {\"3\": ["
                   "{\"id\": 1, \"user\": {\"login\": \"a\"}, \"body\": \"x\"},"
                   "{\"id\": 2, \"user\": {\"login\": \"b\"}, \"body\": \"x\"},"
                   "{\"id\": 3, \"user\": {\"login\": \"c\"}, \"body\": \"x\"},"
                   "{\"id\": 4, \"user\": {\"login\": \"d\"}, \"body\": \"x\"},"
                   "{\"id\": 9, \"user\": {\"login\": \"OctoCat\"}, \"body\": "
                   "\"<!-- ptxgate-comment: gemm -->\\r\\nold\"}]}}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 3, "gemm", "octocat",
                                           "<!-- ptxgate-comment: gemm -->\n\nnew",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_false(r.created);
    assert_int_equal(r.id, 9);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "GET", "/issues/3/comments"), 3);
    assert_int_equal(count(reqs, "PATCH", "/issues/comments/9"), 1);
    json_decref(reqs);
}

static void test_installation_token_login(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, APP_TOKEN);
    char login[64];
    bool assumed = false;
    pg_diag d;
    assert_int_equal(pg_gh_token_login(c, login, sizeof login, &assumed, &d), PG_OK);
    assert_string_equal(login, "github-actions[bot]");
    assert_true(assumed);
    /* Its comments are by github-actions[bot]: a second run updates the first. */
    pg_gh_comment_result r;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 1, "ptxgate", login,
                                           "<!-- ptxgate-comment: ptxgate -->\n1",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_true(r.created);
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 1, "ptxgate", login,
                                           "<!-- ptxgate-comment: ptxgate -->\n2",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_false(r.created);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_new_mode_creates_every_time(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pg_gh_comment_publish(c, "o/r", 2, "ptxgate", "octocat",
                                               "<!-- ptxgate-comment: ptxgate -->\nbody",
                                               PG_GH_COMMENT_NEW, &r, &d), PG_OK);
        assert_true(r.created);
    }
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/issues/2/comments"), 2);
    json_decref(reqs);
}

static pg_gh_annotation *make_annotations(size_t n)
{
    pg_gh_annotation *a = calloc(n, sizeof *a);
    for (size_t i = 0; i < n; i++) {
        char m[64];
        snprintf(m, sizeof m, "problem %zu", i);
        a[i].path = strdup("k.ptx");
        a[i].start_line = a[i].end_line = (long)i + 1;
        a[i].level = i % 2 ? PG_GH_WARNING : PG_GH_FAILURE;
        a[i].title = strdup("ptxgate assemble FAIL: t / k");
        a[i].message = strdup(m);
    }
    return a;
}

static void free_annotations(pg_gh_annotation *a, size_t n)
{
    pg_gh_annotations all = {a, n, {0}, 0};
    pg_gh_annotations_free(&all);
}

static const char *const k_sha = "0123456789abcdef0123456789abcdef01234567";

static void test_check_run_annotation_batches(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_annotation *a = make_annotations(120);
    pg_gh_check_spec spec = {"ptxgate", k_sha, "failure", "FAIL", "## ptxgate: FAIL\n", NULL,
                             "ptxgate-ext-1"};
    pg_gh_check_result r;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_gh_check_run_publish(c, "o/r", &spec, a, 120, &r, &d), PG_OK);
    assert_int_equal(r.annotations_sent, 120);
    assert_int_equal(r.requests, 3);
    assert_true(r.id > 0);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/check-runs"), 1);
    assert_int_equal(count(reqs, "PATCH", "/check-runs/"), 2);
    size_t sizes[3], k = 0, i;
    json_t *q;
    json_array_foreach(reqs, i, q) {
        json_t *ann = json_object_get(json_object_get(json_object_get(q, "body"), "output"),
                                      "annotations");
        if (ann && k < 3)
            sizes[k++] = json_array_size(ann);
    }
    assert_int_equal(k, 3);
    assert_int_equal(sizes[0], 50);
    assert_int_equal(sizes[1], 50);
    assert_int_equal(sizes[2], 20);
    json_t *first = json_object_get(json_array_get(reqs, 0), "body");
    assert_string_equal(json_string_value(json_object_get(first, "head_sha")), k_sha);
    assert_string_equal(json_string_value(json_object_get(first, "conclusion")), "failure");
    json_decref(reqs);
    free_annotations(a, 120);
}

static void test_check_run_uncertain_create_is_not_reposted(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"path\": \"/repos/o/r/check-runs\", \"status\": 502, \"apply\": true}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_annotation *a = make_annotations(60);
    pg_gh_check_spec spec = {"ptxgate gpu", k_sha, "success", "PASS", "ok", NULL, "ext-42"};
    pg_gh_check_result r;
    pg_diag d;
    assert_int_equal(pg_gh_check_run_publish(c, "o/r", &spec, a, 60, &r, &d), PG_OK);
    assert_int_equal(r.annotations_sent, 60);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/check-runs"), 1);
    assert_int_equal(count(reqs, "GET", "/commits/"), 1);
    assert_int_equal(count(reqs, "PATCH", "/check-runs/"), 1);
    json_decref(reqs);
    free_annotations(a, 60);
}

static void test_server_errors_back_off(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"GET\", "
                   "\"path\": \"/repos/o/r/issues\", \"status\": 502, \"times\": 2}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 4, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_int_equal(f.n_sleeps, 2);
    assert_true(f.sleeps[0] == 1.0 && f.sleeps[1] == 2.0);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_server_errors_give_up(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"GET\", "
                   "\"status\": 503, \"times\": 100}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d),
                     PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "gave up after 5 attempts"));
    assert_int_equal(f.n_sleeps, 4); /* 1 + 2 + 4 + 8 s */
    assert_true(f.sleeps[3] == 8.0);
    assert_no_token(d.message);
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_rate_limit_waits_for_reset(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"status\": 403, \"reset_in\": 30, \"headers\": {\"x-ratelimit-remaining\": "
                   "\"0\"}, \"body\": {\"message\": \"API rate limit exceeded\"}}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 4, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_NEW, &r, &d), PG_OK);
    assert_int_equal(f.n_sleeps, 1);
    assert_true(f.sleeps[0] >= 25 && f.sleeps[0] <= 33);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    /* A rate-limited create was refused by GitHub, so sending it again is safe. */
    assert_int_equal(count(reqs, "POST", "/issues/4/comments"), 2);
    json_decref(reqs);
}

static void test_retry_after_is_honoured(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"GET\", "
                   "\"status\": 429, \"headers\": {\"retry-after\": \"7\"}}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d), PG_OK);
    assert_int_equal(f.n_sleeps, 1);
    assert_true(f.sleeps[0] == 7.0);
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_rate_limit_past_budget_gives_up(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"GET\", "
                   "\"status\": 403, \"reset_in\": 3600, \"headers\": {\"x-ratelimit-remaining\": "
                   "\"0\"}}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d),
                     PG_ERR_INFRA);
    assert_int_equal(f.n_sleeps, 0);
    assert_non_null(strstr(d.message, "budget"));
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_uncertain_create_relists_before_posting(void **st)
{
    (void)st;
    /* The create happened although the client saw a 502: found on re-listing, not re-posted. */
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"status\": 502, \"apply\": true}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 8, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_true(r.created);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/issues/8/comments"), 1);
    assert_int_equal(count(reqs, "GET", "/issues/8/comments"), 2);
    json_decref(reqs);

    /* New mode: recognised by its nonce line. */
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"status\": 500, \"apply\": true}]}",
               "");
    c = client_for(&f, TOKEN);
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 8, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_NEW, &r, &d), PG_OK);
    pg_gh_client_free(c);
    fake_stop(&f);
    reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/issues/8/comments"), 1);
    json_decref(reqs);
}

static void test_uncertain_create_not_applied_is_sent_once_more(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"status\": 502}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 8, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_true(r.created);
    assert_int_equal(f.n_sleeps, 0);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/issues/8/comments"), 2);
    json_decref(reqs);
}

static void test_validation_error_message(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, TOKEN);
    size_t n = 70000;
    char *huge = malloc(n + 1);
    memset(huge, 'x', n);
    huge[n] = '\0';
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 8, "ptxgate", "octocat", huge,
                                           PG_GH_COMMENT_NEW, &r, &d), PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "HTTP 422"));
    assert_non_null(strstr(d.message, "body is too long"));
    assert_no_token(d.message);
    /* pg_gh_comment_body keeps bodies under the limit. */
    char *body = pg_gh_comment_body("<!-- ptxgate-comment: ptxgate -->", huge, NULL);
    assert_true(strlen(body) <= PG_GH_COMMENT_MAX_BYTES);
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 8, "ptxgate", "octocat", body,
                                           PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    free(body);
    free(huge);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_bad_token_message_has_no_token(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, "tok-wrong-SECRET-000");
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d),
                     PG_ERR_INFRA);
    assert_int_equal(rep.status, 401);
    assert_non_null(strstr(d.message, "Bad credentials"));
    assert_no_token(d.message);
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    char *dump = json_dumps(reqs, 0);
    assert_no_token(dump); /* the fake records "auth": valid|invalid|none only */
    free(dump);
    json_decref(reqs);
}

static void test_foreign_link_is_refused(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, k_state_basic, "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "http://127.0.0.2:1/steal?page=2", NULL, &rep, &d),
                     PG_ERR_INPUT);
    char prefix_trick[256];
    snprintf(prefix_trick, sizeof prefix_trick, "%s.evil.example/x", f.url);
    assert_int_equal(pg_gh_call(c, "GET", prefix_trick, NULL, &rep, &d), PG_ERR_INPUT);
    assert_int_equal(pg_gh_client_requests(c), 0);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_enterprise_prefix(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"per_page_max\": 1, \"tokens\": {\"" TOKEN "\": \"octocat\"}, "
                   "\"comments\": {\"5\": [{\"id\": 1, \"user\": {\"login\": \"a\"}, \"body\": "
                   "\"x\"}]}}",
               "/api/v3");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    for (int i = 0; i < 2; i++)
        assert_int_equal(pg_gh_comment_publish(c, "o/r", 5, "ptxgate", "octocat",
                                               "<!-- ptxgate-comment: ptxgate -->\nx",
                                               PG_GH_COMMENT_UPDATE, &r, &d), PG_OK);
    assert_false(r.created);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    size_t i;
    json_t *q;
    json_array_foreach(reqs, i, q)
        assert_true(strncmp(json_string_value(json_object_get(q, "path")), "/api/v3/", 8) == 0);
    json_decref(reqs);
}

static void test_proxy_from_environment(void **st)
{
    (void)st;
    /* libcurl takes http_proxy from the environment: the fake, as a proxy, sees the API host. */
    fake f;
    fake_start(&f, k_state_basic, "");
    char proxy[160];
    snprintf(proxy, sizeof proxy, "%s", f.url);
    setenv("http_proxy", proxy, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");
    /* a loopback address nothing listens on (plain http is refused for any other host) */
    snprintf(f.url, sizeof f.url, "http://127.0.0.9");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d), PG_OK);
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    unsetenv("http_proxy");
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(json_array_size(reqs), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "proxied_host")),
                        "127.0.0.9");
    json_decref(reqs);
}

static void test_secondary_rate_limit_waits_a_minute_then_backs_off(void **st)
{
    (void)st;
    /* GitHub's secondary limit: 403, no retry-after, no x-ratelimit-* headers, only the text. */
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"POST\", "
                   "\"status\": 403, \"times\": 2, \"body\": {\"message\": \"You have exceeded a "
                   "secondary rate limit. Please wait a few minutes before you try again.\"}}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_comment_result r;
    pg_diag d;
    assert_int_equal(pg_gh_comment_publish(c, "o/r", 4, "ptxgate", "octocat",
                                           "<!-- ptxgate-comment: ptxgate -->\nx",
                                           PG_GH_COMMENT_NEW, &r, &d), PG_OK);
    assert_int_equal(f.n_sleeps, 2);
    assert_true(f.sleeps[0] == 60.0);
    assert_true(f.sleeps[1] == 120.0);
    pg_gh_client_free(c);
    fake_stop(&f);
    json_t *reqs = requests(&f);
    assert_int_equal(count(reqs, "POST", "/issues/4/comments"), 3);
    json_decref(reqs);
}

static void test_secondary_rate_limit_is_bounded(void **st)
{
    (void)st;
    fake f;
    fake_start(&f, "{\"tokens\": {\"" TOKEN "\": \"octocat\"}, \"rules\": [{\"method\": \"GET\", "
                   "\"status\": 403, \"times\": 100, \"body\": {\"message\": \"You have exceeded a "
                   "secondary rate limit.\"}}]}",
               "");
    pg_gh_client *c = client_for(&f, TOKEN);
    pg_gh_reply rep;
    pg_diag d;
    assert_int_equal(pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments", NULL, &rep, &d),
                     PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "secondary rate limit"));
    assert_non_null(strstr(d.message, "gave up"));
    /* 60 + 120 s waited; 240 more would pass the 300 s budget */
    assert_int_equal(f.n_sleeps, 2);
    assert_true(pg_gh_client_waited(c) == 180.0);
    pg_gh_reply_free(&rep);
    pg_gh_client_free(c);
    fake_stop(&f);
}

static void test_plain_http_refused_except_loopback(void **st)
{
    (void)st;
    static const char *const refused[] = {
        "http://api.github.com", "http://example.com:80/api/v3", "http://128.0.0.1/",
        "http://127.0.0.1.example.com/", "http://127.0.0.1@example.com/",
        "https://user:pw@api.github.com", "ftp://127.0.0.1/", "api.github.com", "",
        "http://[::2]/", "http://localhost.example.com/"};
    static const char *const accepted[] = {
        "https://api.github.com", "https://ghe.example.com/api/v3/", "http://127.0.0.1:8080",
        "http://127.255.0.3/api/v3", "http://localhost:1/", "http://LOCALHOST", "http://[::1]:99/"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        pg_gh_client_config cfg = {.api_url = refused[i], .token = TOKEN};
        pg_gh_client *c = NULL;
        pg_diag d;
        pg_diag_clear(&d);
        if (pg_gh_client_new(&cfg, &c, &d) != PG_ERR_INPUT)
            fail_msg("accepted %s", refused[i]);
        assert_null(c);
        assert_string_equal(d.field, "api-url");
        assert_null(strstr(d.message, "pw"));
    }
    pg_diag d;
    pg_diag_clear(&d);
    pg_gh_client_config bad = {.api_url = "http://api.github.com/x", .token = TOKEN};
    pg_gh_client *c = NULL;
    assert_int_equal(pg_gh_client_new(&bad, &c, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "refusing http://api.github.com: the token would be sent in clear"));
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        pg_gh_client_config cfg = {.api_url = accepted[i], .token = TOKEN};
        c = NULL;
        if (pg_gh_client_new(&cfg, &c, &d) != PG_OK)
            fail_msg("refused %s: %s", accepted[i], d.message);
        pg_gh_client_free(c);
    }
}

int main(void)
{
    /* Only the fake is ever talked to: no proxy from the caller's environment. */
    static const char *const k_proxy_vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
                                               "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof k_proxy_vars / sizeof k_proxy_vars[0]; i++)
        unsetenv(k_proxy_vars[i]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comment_create_then_update),
        cmocka_unit_test(test_planted_marker_is_not_updated),
        cmocka_unit_test(test_pagination_finds_comment_on_page_three),
        cmocka_unit_test(test_installation_token_login),
        cmocka_unit_test(test_new_mode_creates_every_time),
        cmocka_unit_test(test_check_run_annotation_batches),
        cmocka_unit_test(test_check_run_uncertain_create_is_not_reposted),
        cmocka_unit_test(test_server_errors_back_off),
        cmocka_unit_test(test_server_errors_give_up),
        cmocka_unit_test(test_rate_limit_waits_for_reset),
        cmocka_unit_test(test_retry_after_is_honoured),
        cmocka_unit_test(test_rate_limit_past_budget_gives_up),
        cmocka_unit_test(test_uncertain_create_relists_before_posting),
        cmocka_unit_test(test_uncertain_create_not_applied_is_sent_once_more),
        cmocka_unit_test(test_validation_error_message),
        cmocka_unit_test(test_bad_token_message_has_no_token),
        cmocka_unit_test(test_foreign_link_is_refused),
        cmocka_unit_test(test_enterprise_prefix),
        cmocka_unit_test(test_proxy_from_environment),
        cmocka_unit_test(test_secondary_rate_limit_waits_a_minute_then_backs_off),
        cmocka_unit_test(test_secondary_rate_limit_is_bounded),
        cmocka_unit_test(test_plain_http_refused_except_loopback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
