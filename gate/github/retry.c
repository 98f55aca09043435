/* Retry and pagination rules of the GitHub REST client (see retry.h). */
#include "retry.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

pg_gh_retry_policy pg_gh_retry_default(void)
{
    pg_gh_retry_policy p = {5, 1.0, 60.0, 300.0, 300.0};
    return p;
}

/* A non-negative integer header value, or -1. */
static double header_number(const char *s)
{
    if (!s || !s[0])
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (errno || end == s || *end || !(v >= 0) || !isfinite(v))
        return -1;
    return v;
}

static double backoff(double first, int attempt)
{
    int k = attempt > 1 ? attempt - 1 : 0;
    if (k > 30)
        k = 30;
    return first * (double)(1u << k);
}

pg_gh_retry_out pg_gh_retry_decide(const pg_gh_retry_policy *p, const pg_gh_retry_in *in)
{
    pg_gh_retry_out o;
    memset(&o, 0, sizeof o);
    o.action = PG_GH_DONE;
    long s = in->status;
    double retry_after = header_number(in->retry_after);
    double remaining = header_number(in->ratelimit_remaining);
    double reset = header_number(in->ratelimit_reset);
    bool server = s == 0 || s >= 500;
    bool limited = (s == 403 || s == 429) &&
                   (s == 429 || retry_after >= 0 || remaining == 0 || in->secondary_limit);
    if (!server && !limited)
        return o;

    double delay;
    if (limited) {
        /* GitHub refused the request without acting on it: repeating even a POST is safe. */
        o.rate_limited = true;
        if (retry_after >= 0) {
            delay = retry_after;
            snprintf(o.reason, sizeof o.reason, "rate limited (HTTP %ld), retry-after %.0f s", s,
                     retry_after);
        } else if (remaining == 0 && reset >= 0) {
            delay = reset - in->now + 1;
            if (delay < 1)
                delay = 1;
            snprintf(o.reason, sizeof o.reason,
                     "rate limited (HTTP %ld), x-ratelimit-remaining 0, reset in %.0f s", s, delay);
        } else {
            delay = backoff(p->rate_limit_delay_s, in->attempt);
            snprintf(o.reason, sizeof o.reason,
                     "%s (HTTP %ld) without a reset time, backing off %.0f s",
                     in->secondary_limit ? "secondary rate limit" : "rate limited", s, delay);
        }
    } else {
        if (!in->idempotent) {
            o.action = PG_GH_UNCERTAIN;
            snprintf(o.reason, sizeof o.reason, "%s%.0ld; the request may or may not have been "
                     "applied, so it is not sent again blindly",
                     s ? "HTTP " : "no response", s);
            return o;
        }
        delay = backoff(p->server_delay_s, in->attempt);
        if (s)
            snprintf(o.reason, sizeof o.reason, "HTTP %ld, backing off %.0f s", s, delay);
        else
            snprintf(o.reason, sizeof o.reason, "no response, backing off %.0f s", delay);
    }
    if (in->attempt >= p->max_attempts) {
        o.action = PG_GH_GIVE_UP;
        char r[sizeof o.reason];
        snprintf(r, sizeof r, "%s", o.reason);
        snprintf(o.reason, sizeof o.reason, "gave up after %d attempts (%s)", in->attempt, r);
        return o;
    }
    if (delay > p->max_delay_s || in->waited_s + delay > p->max_total_wait_s) {
        o.action = PG_GH_GIVE_UP;
        char r[sizeof o.reason];
        snprintf(r, sizeof r, "%s", o.reason);
        snprintf(o.reason, sizeof o.reason,
                 "gave up: waiting %.0f s more would pass the %.0f s budget (%s)", delay,
                 p->max_total_wait_s, r);
        return o;
    }
    o.action = PG_GH_RETRY;
    o.delay_s = delay;
    return o;
}

bool pg_gh_secondary_limit(const char *body)
{
    static const char needle[] = "secondary rate limit";
    const size_t m = sizeof needle - 1;
    for (size_t i = 0; body && body[i] && i < 64 * 1024; i++) {
        size_t k = 0;
        while (k < m && body[i + k] && tolower((unsigned char)body[i + k]) == needle[k])
            k++;
        if (k == m)
            return true;
    }
    return false;
}

bool pg_gh_link_next(const char *link, char *out, size_t n)
{
    /* Link: <https://…?page=2>; rel="next", <https://…?page=5>; rel="last" */
    const char *p = link;
    while (p && *p) {
        const char *lt = strchr(p, '<');
        if (!lt)
            return false;
        const char *gt = strchr(lt, '>');
        if (!gt)
            return false;
        const char *end = strchr(gt, ',');
        size_t plen = end ? (size_t)(end - gt) : strlen(gt);
        char params[512];
        snprintf(params, sizeof params, "%.*s", (int)(plen < sizeof params ? plen : sizeof params - 1), gt);
        if (strstr(params, "rel=\"next\"") || strstr(params, "rel=next")) {
            size_t ulen = (size_t)(gt - lt - 1);
            if (ulen + 1 > n || ulen == 0)
                return false;
            memcpy(out, lt + 1, ulen);
            out[ulen] = '\0';
            return true;
        }
        p = end ? end + 1 : NULL;
    }
    return false;
}
