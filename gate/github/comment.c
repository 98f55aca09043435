/* The sticky pull-request comment (see comment.h). It reads no results (the body is the
 * summary markdown, written from the typed results by report/markdown.h); the json looked into
 * here is GitHub's: the REST API's replies (the token's user, the pull request's comments, the
 * comment created or updated), a separate input from results, read where they arrive. */
#include "comment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "github/workflow.h"
#include "report/markdown.h"
#include "base/utf8.h"

pg_status pg_gh_comment_mode_parse(const char *s, pg_gh_comment_mode *out, pg_diag *d)
{
    if (s && strcmp(s, "off") == 0)
        *out = PG_GH_COMMENT_OFF;
    else if (s && strcmp(s, "update") == 0)
        *out = PG_GH_COMMENT_UPDATE;
    else if (s && strcmp(s, "new") == 0)
        *out = PG_GH_COMMENT_NEW;
    else
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--comment",
                           "expected off, update or new, got '%.*s'", PG_UTF8_CUT(s ? s : "", 100),
                           s ? s : "");
    return PG_OK;
}

bool pg_gh_comment_key_valid(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > 64)
        return false;
    for (; *key; key++)
        if (!((*key >= 'a' && *key <= 'z') || (*key >= 'A' && *key <= 'Z') ||
              (*key >= '0' && *key <= '9') || *key == '.' || *key == '_' || *key == '-'))
            return false;
    return true;
}

char *pg_gh_comment_marker(const char *key, char *buf, size_t n)
{
    snprintf(buf, n, "<!-- ptxgate-comment: %s -->", key);
    return buf;
}

char *pg_gh_comment_body(const char *marker, const char *markdown, const char *run_url)
{
    char *url = run_url && run_url[0] ? pg_report_markdown_url(run_url) : NULL;
    char note[1400], footer[1400];
    snprintf(note, sizeof note, "*The summary was cut to fit a comment; the full report is in the "
             "job summary and the reports artifact%s%s%s.*", url ? " of [the workflow run](" : "",
             url ? url : "", url ? ")" : "");
    snprintf(footer, sizeof footer, "\n---\n*ptxgate%s%s%s*\n", url ? " · [workflow run](" : "",
             url ? url : "", url ? ")" : "");
    size_t fixed = strlen(marker) + 2 + strlen(footer);
    bool cut = false;
    char *md = pg_gh_truncate_markdown(markdown, PG_GH_COMMENT_MAX_BYTES - fixed, note, &cut);
    char *body = NULL;
    if (md) {
        size_t n = fixed + strlen(md) + 1;
        body = malloc(n);
        if (body)
            snprintf(body, n, "%s\n\n%s%s", marker, md, footer);
    }
    free(md);
    free(url);
    return body;
}

pg_status pg_gh_token_login(pg_gh_client *c, char *login, size_t n, bool *assumed, pg_diag *d)
{
    pg_gh_reply r;
    *assumed = false;
    pg_status st = pg_gh_call(c, "GET", "/user", NULL, &r, d);
    const char *l = json_string_value(json_object_get(r.json, "login"));
    if (st == PG_OK && l && l[0]) {
        snprintf(login, n, "%s", l);
    } else if (r.status == 401 || r.status == 403 || r.status == 404) {
        pg_diag_clear(d);
        snprintf(login, n, "github-actions[bot]");
        *assumed = true;
        st = PG_OK;
    } else if (st == PG_OK) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "GitHub API: GET /user: no login");
    }
    pg_gh_reply_free(&r);
    return st;
}

/* First line of s equals line. */
static bool first_line_is(const char *s, const char *line)
{
    size_t n = strlen(line);
    return s && strncmp(s, line, n) == 0 && (s[n] == '\n' || s[n] == '\r' || s[n] == '\0');
}

/* The sticky comment sought: its author and the first line of its body. */
typedef struct {
    const char *author, *line;
} sticky;

static bool is_sticky(const json_t *comment, const void *want)
{
    const sticky *w = want;
    const char *body = json_string_value(json_object_get(comment, "body"));
    const char *who = json_string_value(json_object_get(json_object_get(comment, "user"), "login"));
    return who && strcasecmp(who, w->author) == 0 && first_line_is(body, w->line);
}

/* Find the first comment by author whose first line is line; *id = 0 when none. */
static pg_status find_comment(pg_gh_client *c, const char *repo, long pr, const char *line,
                              const char *author, pg_gh_comment_result *out, pg_diag *d)
{
    char url[4096];
    snprintf(url, sizeof url, "/repos/%s/issues/%ld/comments?per_page=100", repo, pr);
    sticky want = {author, line};
    /* 100 pages: 10 000 comments at most */
    return pg_gh_find_first(c, url, NULL, 100, is_sticky, &want, &out->id, out->html_url,
                            sizeof out->html_url, d);
}

static pg_status send_body(pg_gh_client *c, const char *method, const char *path,
                           const char *body, pg_gh_comment_result *out, pg_gh_reply *r,
                           pg_diag *d)
{
    json_t *req = json_pack("{s:s}", "body", body);
    if (!req)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    pg_status st = pg_gh_call(c, method, path, req, r, d);
    json_decref(req);
    if (st == PG_OK) {
        pg_gh_object_ref(r->json, &out->id, out->html_url, sizeof out->html_url);
    }
    return st;
}

pg_status pg_gh_comment_publish(pg_gh_client *c, const char *repo, long pr, const char *key,
                                const char *author, const char *body, pg_gh_comment_mode mode,
                                pg_gh_comment_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    char marker[128], line[160], path[1024], nonce[17];
    pg_gh_reply r = {0};
    char *text = NULL;
    pg_status st;
    if (!pg_gh_comment_key_valid(key))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--comment-key",
                           "expected 1-64 characters of A-Z a-z 0-9 . _ -");
    pg_gh_comment_marker(key, marker, sizeof marker);
    snprintf(line, sizeof line, "%s", marker);
    text = strdup(body);
    if (mode == PG_GH_COMMENT_NEW) {
        /* Each new comment gets its own first line, so an uncertain create can be recognised. */
        if ((st = pg_gh_random_token(nonce, sizeof nonce, d)) != PG_OK)
            goto done;
        snprintf(line, sizeof line, "<!-- ptxgate-comment: %s nonce=%s -->", key, nonce);
        size_t n = strlen(body) + strlen(line) + 2;
        free(text);
        text = malloc(n);
        if (text) {
            bool has_marker = first_line_is(body, marker);
            snprintf(text, n, "%s%s%s", line, has_marker ? "" : "\n",
                     has_marker ? body + strlen(marker) : body);
        }
    }
    if (!text) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    if (mode == PG_GH_COMMENT_UPDATE) {
        if ((st = find_comment(c, repo, pr, line, author, out, d)) != PG_OK)
            goto done;
        if (out->id) {
            snprintf(path, sizeof path, "/repos/%s/issues/comments/%lld", repo, out->id);
            st = send_body(c, "PATCH", path, text, out, &r, d);
            goto done;
        }
    }
    snprintf(path, sizeof path, "/repos/%s/issues/%ld/comments", repo, pr);
    for (int tries = 0; tries < 2; tries++) {
        pg_gh_reply_free(&r);
        st = send_body(c, "POST", path, text, out, &r, d);
        if (st == PG_OK) {
            out->created = true;
            goto done;
        }
        if (!r.uncertain)
            goto done;
        /* The create may have happened: look before creating again. */
        pg_diag keep = *d;
        if (find_comment(c, repo, pr, line, author, out, d) != PG_OK) {
            *d = keep;
            goto done;
        }
        if (out->id) {
            out->created = true;
            st = PG_OK;
            goto done;
        }
        *d = keep;
    }
done:
    pg_gh_reply_free(&r);
    free(text);
    return st;
}
