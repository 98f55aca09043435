/* File sets written together, all or nothing (see fileio.h): every temporary first, the
 * earlier files kept aside under private names, then the renames, undone when one fails. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "fileio_internal.h"

struct pg_fileset_entry {
    const pg_outdir *dir;
    char *name;
    char *data;
    size_t len;
    char tmp[300];  /* commit: the private temporary's name ("" when none) */
    char old[300];  /* commit: the earlier file's kept name ("" when none is kept) */
    bool duplicate; /* the same folder and name as an earlier entry: written by that one */
};

struct pg_fileset {
    struct pg_fileset_entry *items;
    size_t count, cap;
};

pg_fileset *pg_fileset_new(void)
{
    return calloc(1, sizeof(pg_fileset));
}

pg_status pg_fileset_stage(pg_fileset *s, const pg_outdir *dir, const char *name, const void *data,
                           size_t len, pg_diag *d)
{
    char where[4400];
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        void *p = realloc(s->items, cap * sizeof(*s->items));
        if (!p)
            return pg_diag_set(d, PG_ERR_INFRA, pg_fileio_shown(where, sizeof where, dir, name), 0,
                               NULL, "out of memory");
        s->items = p;
        s->cap = cap;
    }
    struct pg_fileset_entry *e = &s->items[s->count];
    memset(e, 0, sizeof *e);
    e->dir = dir;
    e->name = strdup(name);
    e->data = malloc(len ? len : 1);
    if (!e->name || !e->data) {
        free(e->name);
        free(e->data);
        return pg_diag_set(d, PG_ERR_INFRA, pg_fileio_shown(where, sizeof where, dir, name), 0,
                           NULL, "out of memory");
    }
    memcpy(e->data, data, len);
    e->len = len;
    s->count++;
    return PG_OK;
}

/* Whether folders a and b are the same folder (device and inode of their descriptors). */
static bool same_dir(const pg_outdir *a, const pg_outdir *b)
{
    struct stat sa, sb;
    return a == b || (fstat(a->fd, &sa) == 0 && fstat(b->fd, &sb) == 0 && sa.st_dev == sb.st_dev &&
                      sa.st_ino == sb.st_ino);
}

/* Keep the earlier file at e's name, if any, under a private "old" name until the set is in
 * place: a hard link (the file stays at its name meanwhile), else a copy. */
static pg_status keep_old(struct pg_fileset_entry *e, pg_diag *d)
{
    char where[4400];
    int dfd = e->dir->fd;
    struct stat st;
    pg_fileio_shown(where, sizeof where, e->dir, e->name);
    if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return PG_OK;
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL, "cannot replace the file: %s",
                           strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) /* swapped in since the check: refused, never replaced */
        return pg_outdir_check_replaceable(e->dir, e->name, d);
    for (int tries = 0; tries < 16; tries++) {
        /* linkat without AT_SYMLINK_FOLLOW never follows a link at the name. */
        if (linkat(dfd, e->name, dfd, pg_fileio_private_name(e->old, sizeof e->old, e->name, "old"),
                   0) == 0)
            return PG_OK;
        if (errno != EEXIST)
            break;
    }
    e->old[0] = '\0';
    /* A file system without hard links: a copy. */
    char *text = NULL;
    pg_status st2 = PG_ERR_INPUT;
    int fd = openat(dfd, e->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat fst;
    if (fd >= 0 && fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) &&
        (text = malloc((size_t)fst.st_size + 1)) != NULL) {
        size_t got = 0;
        ssize_t r;
        while (got < (size_t)fst.st_size &&
               ((r = read(fd, text + got, (size_t)fst.st_size - got)) > 0 ||
                (r < 0 && errno == EINTR)))
            got += r > 0 ? (size_t)r : 0;
        if (got == (size_t)fst.st_size)
            st2 = pg_fileio_write_private(e->dir, e->name, "old", text, got, e->old, sizeof e->old,
                                          d);
        else
            pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL, "read error");
    } else {
        pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL, "cannot read it: %s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    free(text);
    if (st2 != PG_OK) {
        e->old[0] = '\0';
        char why[sizeof d->message];
        snprintf(why, sizeof why, "%s", d->message);
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                           "cannot keep the earlier file while replacing it: %s", why);
    }
    return PG_OK;
}

static void drop_tmp(struct pg_fileset_entry *e)
{
    if (e->tmp[0])
        unlinkat(e->dir->fd, e->tmp, 0);
    e->tmp[0] = '\0';
}

static void drop_kept(struct pg_fileset_entry *e)
{
    if (e->old[0])
        unlinkat(e->dir->fd, e->old, 0);
    e->old[0] = '\0';
}

pg_status pg_fileset_commit(pg_fileset *s, pg_diag *d)
{
    char where[4400];
    size_t i;
    pg_status st = PG_OK;
    for (i = 0; i < s->count; i++) {
        struct pg_fileset_entry *e = &s->items[i];
        e->tmp[0] = e->old[0] = '\0';
        e->duplicate = false;
        for (size_t j = 0; j < i && !e->duplicate; j++)
            e->duplicate =
                strcmp(s->items[j].name, e->name) == 0 && same_dir(s->items[j].dir, e->dir);
    }
    /* Anything but a regular file where a file of the set goes is refused before anything is
     * written. */
    for (i = 0; i < s->count && st == PG_OK; i++)
        st = pg_outdir_check_replaceable(s->items[i].dir, s->items[i].name, d);
    if (st != PG_OK)
        return st;
    /* Write every temporary first, so a full disk or read-only folder fails before any
     * final name changes. */
    for (i = 0; i < s->count && st == PG_OK; i++)
        if (!s->items[i].duplicate)
            st = pg_fileio_write_private(s->items[i].dir, s->items[i].name, "tmp", s->items[i].data,
                                         s->items[i].len, s->items[i].tmp, sizeof s->items[i].tmp,
                                         d);
    for (size_t j = 0; j < s->count && st == PG_OK; j++)
        if (!s->items[j].duplicate)
            st = keep_old(&s->items[j], d);
    if (st != PG_OK) {
        for (size_t j = 0; j < s->count; j++) {
            drop_tmp(&s->items[j]);
            drop_kept(&s->items[j]);
        }
        return st;
    }
    for (i = 0; i < s->count; i++) {
        struct pg_fileset_entry *e = &s->items[i];
        if (e->duplicate || renameat(e->dir->fd, e->tmp, e->dir->fd, e->name) == 0) {
            e->tmp[0] = '\0';
            continue;
        }
        /* Put the set back as it was: the earlier files where there were some, none where
         * there were none. */
        int err = errno;
        const struct pg_fileset_entry *lost = NULL;
        for (size_t j = 0; j < s->count; j++) {
            struct pg_fileset_entry *it = &s->items[j];
            if (it->duplicate)
                continue;
            if (j >= i) {
                drop_tmp(it);
                drop_kept(it); /* the earlier file is still in place */
            } else if (it->old[0]) {
                if (renameat(it->dir->fd, it->old, it->dir->fd, it->name) != 0 && !lost)
                    lost = it;
                else
                    it->old[0] = '\0';
            } else {
                unlinkat(it->dir->fd, it->name, 0);
            }
        }
        pg_fileio_shown(where, sizeof where, e->dir, e->name);
        if (lost) {
            char lost_at[4400], kept_at[4400];
            return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                               "cannot replace the file: %s; the earlier '%s' could not be put "
                               "back and is kept as '%s'",
                               strerror(err),
                               pg_fileio_shown(lost_at, sizeof lost_at, lost->dir, lost->name),
                               pg_fileio_shown(kept_at, sizeof kept_at, lost->dir, lost->old));
        }
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                           "cannot replace the file: %s (the earlier files are left as they "
                           "were)",
                           strerror(err));
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
        free(s->items[i].name);
        free(s->items[i].data);
    }
    free(s->items);
    free(s);
}
