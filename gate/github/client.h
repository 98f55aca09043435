/* A small GitHub REST client: one authenticated JSON call at a time, with GitHub's required
 * headers (Authorization: Bearer, Accept: application/vnd.github+json, X-GitHub-Api-Version,
 * User-Agent), the retry rules of retry.h, and pagination links that are followed only on the
 * API's own origin (a Link header cannot send the token elsewhere). The base URL is the API URL
 * of the workflow (GITHUB_API_URL: https://api.github.com, or https://HOST/api/v3 on GitHub
 * Enterprise Server). The token is kept in memory only and never appears in a diagnostic.
 *
 * Calling sequence:
 *     pg_gh_client *c; pg_gh_client_new(&config, &c, d);
 *     pg_gh_reply r; pg_gh_call(c, "GET", "/repos/o/r/issues/1/comments?per_page=100", NULL, &r, d);
 *     ... r.json, r.next ...; pg_gh_reply_free(&r);
 *     pg_gh_client_free(c);
 */
#ifndef PG_GITHUB_CLIENT_H
#define PG_GITHUB_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"
#include "github/retry.h"

#define PG_GH_API_VERSION "2022-11-28"

typedef struct {
    const char *api_url;    /* base URL without a trailing slash (one is tolerated) */
    const char *token;      /* bearer token; NULL or "" sends no Authorization header */
    const char *user_agent; /* NULL: "ptxgate/<version>" */
    pg_gh_retry_policy retry;
    long timeout_s;         /* per request; 0: 30 s */
    /* Clock hooks for tests (NULL: the real clock and nanosleep). */
    void (*sleep_fn)(double seconds, void *ctx);
    double (*now_fn)(void *ctx);
    void *clock_ctx;
} pg_gh_client_config;

typedef struct pg_gh_client pg_gh_client;

/* Copy config into a new client (*out, owned by the caller: pg_gh_client_free).
 * Errors: PG_ERR_INPUT for an api_url that pg_gh_http_check_api_url refuses (not https://, and
 * not http:// to a loopback host; field "api-url"); PG_ERR_INFRA on out-of-memory. */
pg_status pg_gh_client_new(const pg_gh_client_config *config, pg_gh_client **out, pg_diag *d);
/* Release the client, wiping the token copy. c may be NULL. */
void pg_gh_client_free(pg_gh_client *c);

/* A reply: the final HTTP status, the parsed body (NULL when empty or not JSON; owned by the
 * reply), the next page's URL ("" when none), and uncertain = true when a non-repeatable request
 * failed in a way that may have applied it (the caller re-lists before trying again). */
typedef struct {
    long status;
    json_t *json;
    char next[4096];
    bool uncertain;
} pg_gh_reply;

void pg_gh_reply_free(pg_gh_reply *r);

/* Send one call. path is either "/repos/…" (appended to the API URL) or an absolute URL that
 * must start with the API URL (a pagination link). body is serialised as JSON (NULL: none).
 * Retries as retry.h decides, sleeping through the clock hooks. *reply is reset first and must
 * be released with pg_gh_reply_free on every path.
 * Returns PG_OK for a 2xx status. Errors: PG_ERR_INFRA for any other final status, a failed
 * connection or an exhausted retry budget, with a message "GitHub API: METHOD /path: HTTP 422:
 * <GitHub's message>" (reply->status keeps the status, reply->json the body); PG_ERR_INPUT for a
 * URL outside the API's origin. */
pg_status pg_gh_call(pg_gh_client *c, const char *method, const char *path, const json_t *body,
                     pg_gh_reply *reply, pg_diag *d);

/* The "id" and "html_url" of an object GitHub returned (a comment, a check run): *id 0 and
 * html_url "" (n bytes, cut to fit) for a member that is missing or of another type. */
void pg_gh_object_ref(const json_t *obj, long long *id, char *html_url, size_t n);

/* Accepts one item of a listing; ctx is the caller's. */
typedef bool (*pg_gh_item_match)(const json_t *item, const void *ctx);

/* Find the first item of a paged listing that match accepts: GET path, then each page's next
 * link, max_pages pages at the most (100 items a page when path asks per_page=100). items_key
 * names the member of a page's body that holds the items (NULL: the body is the array). The
 * found item's reference as pg_gh_object_ref gives it; *id = 0 when no item matched.
 * Errors: those of pg_gh_call, for the page that failed. */
pg_status pg_gh_find_first(pg_gh_client *c, const char *path, const char *items_key,
                           int max_pages, pg_gh_item_match match, const void *ctx,
                           long long *id, char *html_url, size_t n, pg_diag *d);

/* Requests sent so far, and seconds slept in waits (for tests and the run log). */
long pg_gh_client_requests(const pg_gh_client *c);
double pg_gh_client_waited(const pg_gh_client *c);
/* The clock the client uses (epoch seconds). */
double pg_gh_client_now(const pg_gh_client *c);

#endif
