/* Bounded reads and atomic writes (see fileio.h). */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pg_status pg_file_read(const char *path, size_t max_bytes, char **out, size_t *len, pg_diag *d)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot open: %s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "not a regular file");
    if ((size_t)st.st_size > max_bytes)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                           "file is %lld bytes; the limit is %zu bytes", (long long)st.st_size,
                           max_bytes);
    FILE *f = fopen(path, "rb");
    if (!f)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot open: %s", strerror(errno));
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        fclose(f);
        return pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL, "out of memory");
    }
    size_t got = fread(buf, 1, (size_t)st.st_size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "read error");
    }
    buf[got] = '\0';
    *out = buf;
    if (len)
        *len = got;
    return PG_OK;
}

static pg_status write_tmp(const char *tmp, const char *path, const void *data, size_t len,
                           pg_diag *d)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        char dir[1024];
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot write into folder '%s': %s",
                           pg_path_dirname(dir, sizeof dir, path), strerror(errno));
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "write failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "write failed: %s", strerror(errno));
    }
    return PG_OK;
}

pg_status pg_file_write_atomic(const char *path, const void *data, size_t len, pg_diag *d)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    pg_status st = write_tmp(tmp, path, data, len, d);
    if (st != PG_OK)
        return st;
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "rename failed: %s", strerror(e));
    }
    return PG_OK;
}

struct pg_fileset_entry {
    char *path;
    char *data;
    size_t len;
    bool kept; /* commit: the earlier file at path is kept as its ".old" name */
};

struct pg_fileset {
    struct pg_fileset_entry *items;
    size_t count, cap;
};

pg_fileset *pg_fileset_new(void)
{
    return calloc(1, sizeof(pg_fileset));
}

pg_status pg_fileset_stage(pg_fileset *s, const char *path, const void *data, size_t len, pg_diag *d)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        void *p = realloc(s->items, cap * sizeof(*s->items));
        if (!p)
            return pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL, "out of memory");
        s->items = p;
        s->cap = cap;
    }
    struct pg_fileset_entry *e = &s->items[s->count];
    e->path = strdup(path);
    e->data = malloc(len ? len : 1);
    e->kept = false;
    if (!e->path || !e->data) {
        free(e->path);
        free(e->data);
        return pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL, "out of memory");
    }
    memcpy(e->data, data, len);
    e->len = len;
    s->count++;
    return PG_OK;
}

/* "<path>.<what>.<pid>": the temporary ("tmp") and the kept earlier file ("old") of path. */
static char *side_name(char *out, size_t n, const char *path, const char *what)
{
    snprintf(out, n, "%s.%s.%ld", path, what, (long)getpid());
    return out;
}

pg_status pg_file_check_replaceable(const char *path, pg_diag *d)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? PG_OK
                               : pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                                             "cannot replace the file: %s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                           "is a folder; cannot replace it with a file (remove or rename it)");
    return PG_OK;
}

/* Keep the earlier file at e->path, if any, under its "old" name until the set is in place:
 * a hard link (the file stays at its name meanwhile), else a copy. */
static pg_status keep_old(struct pg_fileset_entry *e, pg_diag *d)
{
    char old[4200];
    side_name(old, sizeof old, e->path, "old");
    struct stat st;
    if (lstat(e->path, &st) != 0) {
        if (errno == ENOENT)
            return PG_OK;
        return pg_diag_set(d, PG_ERR_INPUT, e->path, 0, NULL, "cannot replace the file: %s",
                           strerror(errno));
    }
    unlink(old);
    if (link(e->path, old) == 0) {
        e->kept = true;
        return PG_OK;
    }
    /* A file system without hard links: a copy. */
    char *text = NULL;
    size_t len = 0;
    pg_status st2 = pg_file_read(e->path, SIZE_MAX - 1, &text, &len, d);
    if (st2 == PG_OK)
        st2 = write_tmp(old, e->path, text, len, d);
    free(text);
    if (st2 != PG_OK) {
        char why[sizeof d->message];
        snprintf(why, sizeof why, "%s", d->message);
        return pg_diag_set(d, st2, e->path, 0, NULL,
                           "cannot keep the earlier file while replacing it: %s", why);
    }
    e->kept = true;
    return PG_OK;
}

static void drop_kept(struct pg_fileset_entry *e)
{
    char old[4200];
    if (e->kept)
        unlink(side_name(old, sizeof old, e->path, "old"));
    e->kept = false;
}

pg_status pg_fileset_commit(pg_fileset *s, pg_diag *d)
{
    char tmp[4200], old[4200];
    size_t i;
    pg_status st = PG_OK;
    /* A folder where a file of the set goes is refused before anything is written. */
    for (i = 0; i < s->count && st == PG_OK; i++)
        st = pg_file_check_replaceable(s->items[i].path, d);
    if (st != PG_OK)
        return st;
    /* Write every temporary first, so a full disk or read-only folder fails before any
     * final name changes. */
    for (i = 0; i < s->count; i++) {
        st = write_tmp(side_name(tmp, sizeof tmp, s->items[i].path, "tmp"), s->items[i].path,
                       s->items[i].data, s->items[i].len, d);
        if (st != PG_OK)
            break;
    }
    for (size_t j = 0; j < s->count && st == PG_OK; j++)
        st = keep_old(&s->items[j], d);
    if (st != PG_OK) {
        for (size_t j = 0; j < s->count; j++) {
            unlink(side_name(tmp, sizeof tmp, s->items[j].path, "tmp"));
            drop_kept(&s->items[j]);
        }
        return st;
    }
    for (i = 0; i < s->count; i++) {
        if (rename(side_name(tmp, sizeof tmp, s->items[i].path, "tmp"), s->items[i].path) == 0)
            continue;
        /* Put the set back as it was: the earlier files where there were some, none where
         * there were none. */
        int e = errno;
        const char *lost = NULL;
        for (size_t j = 0; j < s->count; j++) {
            struct pg_fileset_entry *it = &s->items[j];
            if (j >= i) {
                unlink(side_name(tmp, sizeof tmp, it->path, "tmp"));
                drop_kept(it); /* the earlier file is still in place */
            } else if (it->kept) {
                if (rename(side_name(old, sizeof old, it->path, "old"), it->path) != 0 && !lost)
                    lost = it->path;
                it->kept = false;
            } else {
                unlink(it->path);
            }
        }
        if (lost)
            return pg_diag_set(d, PG_ERR_INPUT, s->items[i].path, 0, NULL,
                               "cannot replace the file: %s; the earlier '%s' could not be put "
                               "back and is kept as '%s'",
                               strerror(e), lost, side_name(old, sizeof old, lost, "old"));
        return pg_diag_set(d, PG_ERR_INPUT, s->items[i].path, 0, NULL,
                           "cannot replace the file: %s (the earlier files are left as they "
                           "were)",
                           strerror(e));
    }
    for (i = 0; i < s->count; i++)
        drop_kept(&s->items[i]);
    return PG_OK;
}

void pg_fileset_free(pg_fileset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->items[i].path);
        free(s->items[i].data);
    }
    free(s->items);
    free(s);
}

char *pg_path_join(char *out, size_t n, const char *dir, const char *name)
{
    if (name[0] == '/' || !dir || !dir[0])
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return out;
}

char *pg_path_dirname(char *out, size_t n, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, n, ".");
    else if (slash == path)
        snprintf(out, n, "/");
    else
        snprintf(out, n, "%.*s", (int)(slash - path), path);
    return out;
}
