/* One HTTP request over libcurl (see http.h). */
#include "http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc = CURLE_OK;

static void global_init(void)
{
    g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* The body as it arrives; the chunk that would take it past the limit aborts the transfer. */
typedef struct {
    pg_text body;
    bool too_big;
} sink;

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    if (n > s->body.max - s->body.len) {
        s->too_big = true;
        return 0; /* aborts the transfer */
    }
    pg_text_addn(&s->body, data, n);
    return s->body.oom ? 0 : n;
}

/* Copy the value of header line "Name: value\r\n" into dst when its name is name. */
static void take_header(const char *line, size_t len, const char *name, char *dst, size_t n)
{
    size_t nl = strlen(name);
    if (len <= nl || line[nl] != ':' || strncasecmp(line, name, nl) != 0)
        return;
    const char *v = line + nl + 1;
    const char *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    size_t k = (size_t)(end - v) < n - 1 ? (size_t)(end - v) : n - 1;
    memcpy(dst, v, k);
    dst[k] = '\0';
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *user)
{
    pg_gh_response *r = user;
    size_t n = size * nmemb;
    /* A new status line (after a 100 Continue or a proxy CONNECT) starts a new header block. */
    if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        r->retry_after[0] = r->ratelimit_remaining[0] = r->ratelimit_reset[0] = r->link[0] = '\0';
        return n;
    }
    take_header(line, n, "retry-after", r->retry_after, sizeof r->retry_after);
    take_header(line, n, "x-ratelimit-remaining", r->ratelimit_remaining,
                sizeof r->ratelimit_remaining);
    take_header(line, n, "x-ratelimit-reset", r->ratelimit_reset, sizeof r->ratelimit_reset);
    take_header(line, n, "link", r->link, sizeof r->link);
    return n;
}

void pg_gh_response_free(pg_gh_response *resp)
{
    if (!resp)
        return;
    free(resp->body);
    memset(resp, 0, sizeof *resp);
}

/* "127.a.b.c" with decimal octets 0-255: an address in 127.0.0.0/8. */
static bool loopback_ipv4(const char *h)
{
    unsigned octet[4];
    int used = 0;
    if (sscanf(h, "%3u.%3u.%3u.%3u%n", &octet[0], &octet[1], &octet[2], &octet[3], &used) != 4 ||
        h[used] != '\0' || octet[0] != 127)
        return false;
    for (int i = 0; i < 4; i++)
        if (octet[i] > 255)
            return false;
    for (const char *p = h; *p; p++) /* digits and dots only (sscanf takes "+1", " 1") */
        if (!isdigit((unsigned char)*p) && *p != '.')
            return false;
    return true;
}

pg_status pg_gh_http_check_api_url(const char *url, pg_diag *d)
{
    pg_status st = PG_OK;
    char *scheme = NULL, *host = NULL, *user = NULL, *password = NULL;
    CURLU *u = curl_url();
    if (!u)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (!url || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0]) {
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "api-url",
                         "expected an https:// URL (for example https://api.github.com), got "
                         "something that is not a URL");
        goto done;
    }
    curl_url_get(u, CURLUPART_USER, &user, 0);
    curl_url_get(u, CURLUPART_PASSWORD, &password, 0);
    if (user || password) {
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "api-url",
                         "a user name or password in the API URL is refused (the token is sent "
                         "in the Authorization header)");
        goto done;
    }
    if (strcasecmp(scheme, "https") == 0)
        goto done;
    bool loopback = strcasecmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0 ||
                    loopback_ipv4(host);
    if (strcasecmp(scheme, "http") != 0 || !loopback)
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "api-url",
                         "refusing %.16s://%.200s: the token would be sent in clear; expected an "
                         "https:// URL (http:// only to a loopback host: 127.0.0.0/8, [::1], "
                         "localhost)",
                         scheme, host);
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(user);
    curl_free(password);
    curl_url_cleanup(u);
    return st;
}

pg_status pg_gh_http_send(const char *method, const char *url, const char *const *headers,
                          const char *body, long timeout_s, pg_gh_response *resp, pg_diag *d)
{
    memset(resp, 0, sizeof *resp);
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "api-url",
                           "expected an http:// or https:// URL");
    pthread_once(&g_once, global_init);
    if (g_init_rc != CURLE_OK)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "libcurl could not be initialised: %s",
                           curl_easy_strerror(g_init_rc));
    CURL *h = curl_easy_init();
    struct curl_slist *list = NULL;
    pg_status st = PG_OK;
    sink s = {.too_big = false};
    pg_text_init_bytes(&s.body, PG_GH_HTTP_MAX_BODY);
    if (!h) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "libcurl could not create a handle");
        goto done;
    }
    for (size_t i = 0; headers && headers[i]; i++) {
        struct curl_slist *l = curl_slist_append(list, headers[i]);
        if (!l) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
        list = l;
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    } else if (strcmp(method, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s > 0 ? timeout_s : 30L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout_s > 0 && timeout_s < 10 ? timeout_s : 10L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* whatever libcurl can decode */
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, resp);
    CURLcode rc = curl_easy_perform(h);
    /* The response owns what arrived, also when the transfer failed (the retry rule reads it). */
    bool oom = s.body.oom;
    resp->body = pg_text_release(&s.body, &resp->body_len);
    if (oom) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory reading a response");
        goto done;
    }
    if (rc != CURLE_OK) {
        /* curl_easy_strerror never contains header values: the token cannot appear here. */
        snprintf(resp->transport_error, sizeof resp->transport_error, "%s",
                 s.too_big ? "the response body is larger than 16 MiB" : curl_easy_strerror(rc));
        resp->status = 0;
        goto done;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
    if (!resp->body) {
        resp->body = calloc(1, 1);
        if (!resp->body)
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
done:
    curl_slist_free_all(list);
    if (h)
        curl_easy_cleanup(h);
    return st;
}
