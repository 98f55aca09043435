/* When to retry a GitHub API request, and how long to wait first: a pure function of the
 * response's status and headers, the attempt number and the clock, so the rules are tested with
 * plain numbers. The order follows GitHub's guidance for rate limits: honour retry-after; else,
 * when x-ratelimit-remaining is 0, wait until x-ratelimit-reset; else (a secondary rate limit
 * without headers: a 429, or a 403 whose body says "secondary rate limit") wait at least a minute
 * and back off exponentially (GitHub's REST API guide, "Best practices": wait at least one
 * minute before retrying, with exponentially increasing waits while it persists). Server errors (5xx) and
 * failed connections back off exponentially from a second, but only for requests that are safe
 * to repeat: a create (POST) whose outcome is unknown is never sent again blindly — the caller
 * lists what exists first. Waiting is bounded per wait and in total, so a run never hangs on an
 * hour-long reset. */
#ifndef PG_GITHUB_RETRY_H
#define PG_GITHUB_RETRY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int max_attempts;           /* requests per call, the first included (>= 1) */
    double server_delay_s;      /* first wait after a 5xx or a failed connection; doubles */
    double rate_limit_delay_s;  /* first wait after a rate limit that names no time; doubles */
    double max_delay_s;         /* longest single wait */
    double max_total_wait_s;    /* longest total wait over all attempts of one call */
} pg_gh_retry_policy;

/* 5 attempts, 1 s server back-off, 60 s rate-limit back-off, waits of at most 300 s and 300 s in
 * total. */
pg_gh_retry_policy pg_gh_retry_default(void);

typedef enum {
    PG_GH_DONE,      /* the response is final (success or an error to report) */
    PG_GH_RETRY,     /* wait delay_s, then send the same request again */
    PG_GH_GIVE_UP,   /* retryable, but out of attempts or of waiting budget (reason says which) */
    PG_GH_UNCERTAIN  /* a non-repeatable request failed in a way that may have applied it */
} pg_gh_retry_action;

typedef struct {
    long status;                     /* HTTP status; 0 = no response (connection failure) */
    bool idempotent;                 /* GET, PATCH, PUT, DELETE: safe to send again */
    const char *retry_after;         /* header values, NULL or "" when absent */
    const char *ratelimit_remaining;
    const char *ratelimit_reset;
    int attempt;                     /* requests made so far in this call, this one included */
    double waited_s;                 /* seconds already waited in this call */
    double now;                      /* the clock, epoch seconds (for x-ratelimit-reset) */
    bool secondary_limit;            /* the body says "secondary rate limit" (pg_gh_secondary_limit) */
} pg_gh_retry_in;

typedef struct {
    pg_gh_retry_action action;
    double delay_s;    /* for PG_GH_RETRY */
    bool rate_limited; /* the response was a rate limit */
    char reason[200];  /* for RETRY, GIVE_UP and UNCERTAIN: why, in words */
} pg_gh_retry_out;

/* Decide what to do after one response. p and in must be non-NULL. */
pg_gh_retry_out pg_gh_retry_decide(const pg_gh_retry_policy *p, const pg_gh_retry_in *in);

/* Whether a response body is GitHub's secondary rate limit refusal: its text contains
 * "secondary rate limit" (any case; GitHub's message reads "You have exceeded a secondary rate
 * limit. Please wait a few minutes before you try again."). body may be NULL. Only the first
 * 64 KiB are looked at. */
bool pg_gh_secondary_limit(const char *body);

/* The URL of rel="next" in a Link header into out (n bytes). Returns false when there is none
 * (or it does not fit). */
bool pg_gh_link_next(const char *link, char *out, size_t n);

#endif
