/* One HTTP request over libcurl, nothing more: the transport under the GitHub REST client. It
 * keeps the response status, body and the few headers the client's retry and pagination rules
 * read. Proxies come from the usual environment variables (http_proxy, https_proxy, HTTPS_PROXY,
 * ALL_PROXY, NO_PROXY), as libcurl reads them; only http and https URLs are accepted and
 * redirects are not followed. Nothing here prints, and no header value is ever copied into a
 * diagnostic, so the Authorization header cannot leak through an error message. */
#ifndef PG_GITHUB_HTTP_H
#define PG_GITHUB_HTTP_H

#include <stddef.h>

#include "base/diag.h"

/* Largest response body kept (bytes); a larger one is a transport error. */
#define PG_GH_HTTP_MAX_BODY (16u * 1024u * 1024u)

/* A response. status is 0 when no HTTP response arrived (then transport_error says why). Header
 * values are "" when the header was absent. body is NUL-terminated, owned by the response. */
typedef struct {
    long status;
    char *body;
    size_t body_len;
    char retry_after[64];          /* retry-after */
    char ratelimit_remaining[32];  /* x-ratelimit-remaining */
    char ratelimit_reset[32];      /* x-ratelimit-reset (epoch seconds) */
    char link[4096];               /* link (pagination) */
    char transport_error[256];     /* curl's reason when status is 0 */
} pg_gh_response;

/* Send method (GET, POST, PATCH, ...) to url with the given "Name: value" header lines
 * (NULL-terminated list, may be NULL) and body (NULL for none). timeout_s bounds the whole
 * transfer (connect included). *resp is reset first, then filled; free it with
 * pg_gh_response_free on every path. A failed connection or an over-long body is not an error
 * here: it returns PG_OK with resp->status 0 and transport_error set, so the caller's retry rule
 * decides. Errors: PG_ERR_INFRA when libcurl cannot be set up or memory runs out;
 * PG_ERR_INPUT for a URL that is not http(s). */
pg_status pg_gh_http_send(const char *method, const char *url, const char *const *headers,
                          const char *body, long timeout_s, pg_gh_response *resp, pg_diag *d);

/* Check a REST API base URL before any token is sent to it: https://, or http:// only to a
 * loopback host (an IPv4 address in 127.0.0.0/8, [::1], or localhost: a local fake or proxy;
 * anything else would send the token in clear). The URL is parsed by libcurl's URL API, so
 * "http://127.0.0.1@example.com/" counts as example.com; user names or passwords in the URL
 * are refused. Returns PG_OK when acceptable; PG_ERR_INPUT (field "api-url") otherwise, the
 * message naming the scheme and host but never the rest of the URL; PG_ERR_INFRA when libcurl
 * runs out of memory. */
pg_status pg_gh_http_check_api_url(const char *url, pg_diag *d);

/* Release the body and reset *resp. resp may be zeroed or NULL. */
void pg_gh_response_free(pg_gh_response *resp);

#endif
