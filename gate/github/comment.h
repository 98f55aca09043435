/* The sticky pull-request comment: one comment per (pull request, key), found again by a hidden
 * marker on its first line *and* by its author being the token's own account, so a comment that
 * someone else planted with the same marker is never edited. Listing is paginated (100 per
 * page). A create whose outcome is unknown (a 5xx or a dropped connection) is not sent again
 * blindly: the comments are listed again first. Bodies are capped at 60 000 characters (GitHub
 * refuses 65 536). Needs the pull-requests: write permission. */
#ifndef PG_GITHUB_COMMENT_H
#define PG_GITHUB_COMMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "github/client.h"

/* Bodies are cut to at most this many bytes (so at most as many characters). */
#define PG_GH_COMMENT_MAX_BYTES 60000u

typedef enum {
    PG_GH_COMMENT_OFF,    /* no comment */
    PG_GH_COMMENT_UPDATE, /* edit the sticky comment, or create it when there is none */
    PG_GH_COMMENT_NEW     /* a new comment on every run */
} pg_gh_comment_mode;

/* "off" | "update" | "new". Errors: PG_ERR_INPUT naming the flag "comment" and the choices. */
pg_status pg_gh_comment_mode_parse(const char *s, pg_gh_comment_mode *out, pg_diag *d);

/* A key is 1-64 characters of [A-Za-z0-9._-] (it goes inside an HTML comment). */
bool pg_gh_comment_key_valid(const char *key);

/* The marker line for key: "<!-- ptxgate-comment: KEY -->". buf of n bytes. */
char *pg_gh_comment_marker(const char *key, char *buf, size_t n);

/* The comment body: marker line, then markdown (already safe markdown, e.g. the summary), cut at
 * a line boundary to fit PG_GH_COMMENT_MAX_BYTES with a note pointing at run_url (may be NULL;
 * escaped), then a footer line linking run_url when given. malloc'd; NULL on out-of-memory. */
char *pg_gh_comment_body(const char *marker, const char *markdown, const char *run_url);

/* The login whose comments are ours. GET /user answers it for user tokens; installation tokens
 * (GITHUB_TOKEN and other GitHub App tokens) cannot read /user, and then the login is
 * "github-actions[bot]", the author of GITHUB_TOKEN's comments, and *assumed is set (another
 * App's token needs the author given explicitly). Errors: PG_ERR_INFRA for other API failures. */
pg_status pg_gh_token_login(pg_gh_client *c, char *login, size_t n, bool *assumed, pg_diag *d);

typedef struct {
    long long id;        /* the comment's id */
    char html_url[512];
    bool created;        /* true: created, false: an existing comment was updated */
} pg_gh_comment_result;

/* Publish body on pull request pr of repo ("owner/name") in mode (UPDATE or NEW) as author
 * (the token's login): UPDATE finds the first comment whose first line is the marker for key
 * and whose author is author (case-insensitive) and edits it, else creates one; NEW always
 * creates. An uncertain create is followed by one listing: the comment is taken when it exists
 * (UPDATE: by marker; NEW: by its exact first line, which carries a nonce), else created once
 * more. *out is zeroed first. Errors: PG_ERR_INFRA (API failures, with GitHub's message). */
pg_status pg_gh_comment_publish(pg_gh_client *c, const char *repo, long pr, const char *key,
                                const char *author, const char *body, pg_gh_comment_mode mode,
                                pg_gh_comment_result *out, pg_diag *d);

#endif
