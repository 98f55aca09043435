/* The GitHub REST client (see client.h). */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "github/http.h"
#include "base/utf8.h"

struct pg_gh_client {
    char *api_url;
    char *auth_header; /* "Authorization: Bearer …", wiped on free */
    char *ua_header;
    pg_gh_client_config cfg;
    long requests;
    double waited;
};

static void real_sleep(double s, void *ctx)
{
    (void)ctx;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double real_now(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *dup_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, fmt, a, b ? b : "");
    return p;
}

pg_status pg_gh_client_new(const pg_gh_client_config *config, pg_gh_client **out, pg_diag *d)
{
    *out = NULL;
    const char *url = config->api_url ? config->api_url : "";
    pg_status st = pg_gh_http_check_api_url(url, d);
    if (st != PG_OK)
        return st;
    pg_gh_client *c = calloc(1, sizeof *c);
    if (!c)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    c->cfg = *config;
    if (c->cfg.retry.max_attempts < 1)
        c->cfg.retry = pg_gh_retry_default();
    if (!c->cfg.sleep_fn)
        c->cfg.sleep_fn = real_sleep;
    if (!c->cfg.now_fn)
        c->cfg.now_fn = real_now;
    c->api_url = strdup(url);
    if (c->api_url) {
        size_t n = strlen(c->api_url);
        while (n > 8 && c->api_url[n - 1] == '/')
            c->api_url[--n] = '\0';
    }
    c->ua_header = dup_printf("User-Agent: %s%s",
                              config->user_agent ? config->user_agent : "ptxgate/" PG_VERSION, NULL);
    if (config->token && config->token[0])
        c->auth_header = dup_printf("Authorization: Bearer %s%s", config->token, NULL);
    c->cfg.token = NULL; /* only the header copy is kept */
    if (!c->api_url || !c->ua_header || (config->token && config->token[0] && !c->auth_header)) {
        pg_gh_client_free(c);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    *out = c;
    return PG_OK;
}

void pg_gh_client_free(pg_gh_client *c)
{
    if (!c)
        return;
    if (c->auth_header) {
        volatile char *p = c->auth_header;
        while (*p)
            *p++ = 0;
        free(c->auth_header);
    }
    free(c->api_url);
    free(c->ua_header);
    free(c);
}

void pg_gh_reply_free(pg_gh_reply *r)
{
    if (!r)
        return;
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

void pg_gh_object_ref(const json_t *obj, long long *id, char *html_url, size_t n)
{
    *id = json_integer_value(json_object_get(obj, "id"));
    const char *h = json_string_value(json_object_get(obj, "html_url"));
    snprintf(html_url, n, "%s", h ? h : "");
}

pg_status pg_gh_find_first(pg_gh_client *c, const char *path, const char *items_key,
                           int max_pages, pg_gh_item_match match, const void *ctx,
                           long long *id, char *html_url, size_t n, pg_diag *d)
{
    char url[sizeof ((pg_gh_reply *)0)->next];
    snprintf(url, sizeof url, "%s", path);
    *id = 0;
    for (int page = 0; page < max_pages && url[0]; page++) {
        pg_gh_reply r;
        pg_status st = pg_gh_call(c, "GET", url, NULL, &r, d);
        if (st != PG_OK) {
            pg_gh_reply_free(&r);
            return st;
        }
        size_t i;
        const json_t *item;
        json_array_foreach(items_key ? json_object_get(r.json, items_key) : r.json, i, item) {
            if (match(item, ctx)) {
                pg_gh_object_ref(item, id, html_url, n);
                break;
            }
        }
        snprintf(url, sizeof url, "%s", *id ? "" : r.next);
        pg_gh_reply_free(&r);
    }
    return PG_OK;
}

long pg_gh_client_requests(const pg_gh_client *c) { return c->requests; }
double pg_gh_client_waited(const pg_gh_client *c) { return c->waited; }
double pg_gh_client_now(const pg_gh_client *c) { return c->cfg.now_fn(c->cfg.clock_ctx); }

/* The path part of url for messages (never the query: it may be long). */
static void short_path(const char *url, const char *api, char *out, size_t n)
{
    const char *p = strncmp(url, api, strlen(api)) == 0 ? url + strlen(api) : url;
    size_t k = strcspn(p, "?");
    snprintf(out, n, "%.*s", PG_UTF8_CUT(p, k < 300 ? k : 300), p);
}

/* GitHub's error text from a body: message, then the first errors[].message or .code. */
static void github_message(const json_t *j, char *out, size_t n)
{
    out[0] = '\0';
    const char *m = json_string_value(json_object_get(j, "message"));
    const json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
    const char *e = json_string_value(json_object_get(e0, "message"));
    if (!e)
        e = json_string_value(json_object_get(e0, "code"));
    if (!e)
        e = json_string_value(e0);
    m = m ? m : "";
    e = e ? e : "";
    snprintf(out, n, "%.*s%s%.*s", PG_UTF8_CUT(m, 300), m, m[0] && e[0] ? ": " : "",
             PG_UTF8_CUT(e, 300), e);
    pg_utf8_trim_cut(out);
    /* The text comes from the server: keep it on one line and printable. */
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

static bool is_idempotent(const char *method)
{
    return strcmp(method, "POST") != 0;
}

pg_status pg_gh_call(pg_gh_client *c, const char *method, const char *path, const json_t *body,
                     pg_gh_reply *reply, pg_diag *d)
{
    memset(reply, 0, sizeof *reply);
    char *url = NULL, *text = NULL;
    char where[400];
    pg_status st = PG_OK;
    pg_gh_response resp = {0};
    size_t alen = strlen(c->api_url);
    if (path[0] == '/')
        url = dup_printf("%s%s", c->api_url, path);
    else if (strncmp(path, c->api_url, alen) == 0 && (path[alen] == '/' || path[alen] == '?'))
        url = strdup(path);
    else
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "GitHub API: refusing to send the token to a URL outside %s",
                           c->api_url);
    if (!url)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    short_path(url, c->api_url, where, sizeof where);
    if (body) {
        text = json_dumps(body, JSON_COMPACT);
        if (!text) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
    }
    const char *headers[8];
    size_t nh = 0;
    headers[nh++] = "Accept: application/vnd.github+json";
    headers[nh++] = "X-GitHub-Api-Version: " PG_GH_API_VERSION;
    headers[nh++] = c->ua_header;
    headers[nh++] = "Expect:"; /* no 100-continue round trip */
    if (body)
        headers[nh++] = "Content-Type: application/json";
    if (c->auth_header)
        headers[nh++] = c->auth_header;
    headers[nh] = NULL;
    double waited = 0;
    for (int attempt = 1;; attempt++) {
        pg_gh_response_free(&resp);
        c->requests++;
        st = pg_gh_http_send(method, url, headers, text, c->cfg.timeout_s, &resp, d);
        if (st != PG_OK)
            goto done;
        pg_gh_retry_in in = {resp.status,       is_idempotent(method), resp.retry_after,
                             resp.ratelimit_remaining, resp.ratelimit_reset, attempt, waited,
                             c->cfg.now_fn(c->cfg.clock_ctx), pg_gh_secondary_limit(resp.body)};
        pg_gh_retry_out o = pg_gh_retry_decide(&c->cfg.retry, &in);
        if (o.action == PG_GH_RETRY) {
            c->cfg.sleep_fn(o.delay_s, c->cfg.clock_ctx);
            waited += o.delay_s;
            c->waited += o.delay_s;
            continue;
        }
        reply->status = resp.status;
        if (resp.body && resp.body[0])
            reply->json = json_loads(resp.body, 0, NULL);
        if (resp.status >= 200 && resp.status < 300) {
            pg_gh_link_next(resp.link, reply->next, sizeof reply->next);
            goto done;
        }
        char msg[700];
        github_message(reply->json, msg, sizeof msg);
        if (o.action == PG_GH_UNCERTAIN || o.action == PG_GH_GIVE_UP) {
            reply->uncertain = o.action == PG_GH_UNCERTAIN;
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "GitHub API: %s %s: %s%s%s%s", method,
                             where, o.reason, resp.status ? "" : " (", resp.status ? "" :
                             resp.transport_error, resp.status ? "" : ")");
        } else {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "GitHub API: %s %s: HTTP %ld%s%s",
                             method, where, resp.status, msg[0] ? ": " : "", msg);
        }
        goto done;
    }
done:
    pg_gh_response_free(&resp);
    free(text);
    free(url);
    return st;
}
