/* GitHub Actions step files and event payloads (see workflow.h). */
#include "workflow.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/jsonget.h"
#include "base/utf8.h"

pg_status pg_gh_random_token(char *buf, size_t n, pg_diag *d)
{
    unsigned char raw[64];
    size_t want = (n - 1 + 1) / 2;
    if (n < 9 || want > sizeof raw)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "bad random token size");
    size_t got = 0;
    while (got < want) {
        ssize_t k = getrandom(raw + got, want - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no randomness: %s",
                               strerror(errno));
        got += (size_t)k;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i + 1 < n; i++)
        buf[i] = hex[(raw[i / 2] >> ((i % 2) * 4)) & 15];
    buf[n - 1] = '\0';
    return PG_OK;
}

static bool valid_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

/* Append data to path (created when missing): the runner's own step file, appended to in
 * place (the runner reads it after the step), but never through a symbolic link, and never to
 * a FIFO, device or folder (O_NOFOLLOW|O_NONBLOCK, then a regular-file check), as ptxgate's
 * other writes (base/fileio.h). */
static pg_status append_file(const char *path, const char *data, size_t len, pg_diag *d)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot append: %s",
                           errno == ELOOP ? "it is a symbolic link" : strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot append: not a regular file");
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot append: write failed");
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot append: write failed");
    return PG_OK;
}

pg_status pg_gh_output_append(const char *path, const char *name, const char *value, pg_diag *d)
{
    if (!valid_name(name))
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "bad output name '%.*s'",
                           PG_UTF8_CUT(name ? name : "", 100), name ? name : "");
    if (!value)
        value = "";
    pg_status st;
    if (!strpbrk(value, "\r\n")) {
        size_t n = strlen(name) + strlen(value) + 3;
        char *line = malloc(n);
        if (!line)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        snprintf(line, n, "%s=%s\n", name, value);
        st = append_file(path, line, strlen(line), d);
        free(line);
        return st;
    }
    char delim[48] = "ghadelimiter_";
    do {
        if ((st = pg_gh_random_token(delim + 13, sizeof delim - 13, d)) != PG_OK)
            return st;
    } while (strstr(value, delim));
    size_t n = strlen(name) + strlen(value) + 2 * strlen(delim) + 8;
    char *text = malloc(n);
    if (!text)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    snprintf(text, n, "%s<<%s\n%s\n%s\n", name, delim, value, delim);
    st = append_file(path, text, strlen(text), d);
    free(text);
    return st;
}

char *pg_gh_truncate_markdown(const char *markdown, size_t max_bytes, const char *note,
                              bool *truncated)
{
    size_t len = strlen(markdown);
    if (truncated)
        *truncated = false;
    if (len <= max_bytes)
        return strdup(markdown);
    if (truncated)
        *truncated = true;
    size_t nlen = note ? strlen(note) : 0;
    size_t room = max_bytes > nlen + 2 ? max_bytes - nlen - 2 : 0;
    /* Cut after the last newline that fits, so no table row, entity or UTF-8 character is cut. */
    size_t cut = room;
    while (cut > 0 && markdown[cut - 1] != '\n')
        cut--;
    char *out = malloc(cut + nlen + 3);
    if (!out)
        return NULL;
    memcpy(out, markdown, cut);
    size_t k = cut;
    if (nlen) {
        out[k++] = '\n';
        memcpy(out + k, note, nlen);
        k += nlen;
        out[k++] = '\n';
    }
    out[k] = '\0';
    return out;
}

pg_status pg_gh_summary_append(const char *path, const char *markdown, size_t limit,
                               const char *note, size_t *written, bool *truncated, pg_diag *d)
{
    struct stat st;
    size_t have = stat(path, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    size_t room = limit > have ? limit - have : 0;
    bool cut = false;
    char *text = pg_gh_truncate_markdown(markdown, room, note, &cut);
    if (!text)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    size_t n = strlen(text);
    if (n > room) /* even the note does not fit */
        n = 0;
    pg_status rc = n ? append_file(path, text, n, d) : PG_OK;
    if (rc == PG_OK && n == 0) {
        /* Make sure the file exists, so a reader can tell "nothing fitted" from "not run". */
        rc = append_file(path, "", 0, d);
    }
    free(text);
    if (written)
        *written = rc == PG_OK ? n : 0;
    if (truncated)
        *truncated = cut;
    return rc;
}

static void copy_str(char *dst, size_t n, const json_t *v)
{
    const char *s = json_string_value(v);
    snprintf(dst, n, "%s", s ? s : "");
}

pg_status pg_gh_event_read(const char *path, pg_gh_event *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    json_t *ev = NULL;
    pg_status st = pg_json_load(path, &ev, d);
    if (st != PG_OK)
        return st;
    copy_str(out->base_repo, sizeof out->base_repo,
             json_object_get(json_object_get(ev, "repository"), "full_name"));
    const json_t *pr = json_object_get(ev, "pull_request");
    const json_t *run = json_object_get(ev, "workflow_run");
    if (json_is_object(pr)) {
        json_int_t n = json_integer_value(json_object_get(pr, "number"));
        out->pr = n > 0 ? (long)n : 0;
        const json_t *head = json_object_get(pr, "head");
        copy_str(out->head_sha, sizeof out->head_sha, json_object_get(head, "sha"));
        copy_str(out->head_repo, sizeof out->head_repo,
                 json_object_get(json_object_get(head, "repo"), "full_name"));
    } else if (json_is_object(run)) {
        copy_str(out->head_sha, sizeof out->head_sha, json_object_get(run, "head_sha"));
        copy_str(out->head_repo, sizeof out->head_repo,
                 json_object_get(json_object_get(run, "head_repository"), "full_name"));
        const json_t *first = json_array_get(json_object_get(run, "pull_requests"), 0);
        json_int_t n = json_integer_value(json_object_get(first, "number"));
        out->pr = n > 0 ? (long)n : 0;
    }
    json_decref(ev);
    return PG_OK;
}
