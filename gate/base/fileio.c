/* Bounded reads and safe atomic writes (see fileio.h). */
#include "fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/* "<where>/<name>" for messages. */
static const char *shown(char *out, size_t n, const pg_outdir *o, const char *name)
{
    return pg_path_join(out, n, o->path, name);
}

/* Whether the open folder fd lies in the current folder or below it (where a checkout's files
 * are). Linux names an open descriptor's folder in /proc/self/fd; when either name is unknown
 * the answer is yes, so a link there is refused rather than followed. */
static bool inside_cwd(int fd)
{
    char cwd[4096], where[4096], link[64];
    if (!getcwd(cwd, sizeof cwd))
        return true;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, where, sizeof where - 1);
    if (n <= 0)
        return true;
    where[n] = '\0';
    size_t c = strlen(cwd);
    if (strcmp(cwd, "/") == 0)
        return true;
    return strncmp(where, cwd, c) == 0 && (where[c] == '\0' || where[c] == '/');
}

/* Open component name of the open folder fd as a folder (see pg_outdir_open). Messages name
 * the whole path and, for a component on the way (not last), that component (prefix: the path
 * up to it). Returns the new descriptor, or -1 with d set. */
static int open_component(int fd, const char *name, const char *path, const char *prefix,
                          bool last, unsigned flags, const char *field, pg_diag *d)
{
    const int dir_flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    char part[4200] = "", named[4200] = "";
    if (!last) {
        snprintf(part, sizeof part, "'%s' on the way ", prefix);
        snprintf(named, sizeof named, " '%s'", prefix);
    }
    int sub = openat(fd, name, dir_flags | O_NOFOLLOW);
    if (sub < 0 && errno == ENOENT && (flags & PG_OUTDIR_CREATE)) {
        if (mkdirat(fd, name, 0755) != 0 && errno != EEXIST) {
            pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot create the folder%s: %s",
                        named, strerror(errno));
            return -1;
        }
        sub = openat(fd, name, dir_flags | O_NOFOLLOW);
    }
    if (sub >= 0)
        return sub;
    int e = errno;
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot open the folder%s: %s",
                    named, strerror(e));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        if ((flags & PG_OUTDIR_FOLLOW_LINKS) || (!last && !inside_cwd(fd))) {
            sub = openat(fd, name, dir_flags);
            if (sub < 0)
                pg_diag_set(d, PG_ERR_INPUT, path, 0, field,
                            "cannot open the folder the symbolic link%s points to: %s",
                            named, strerror(errno));
            return sub;
        }
        pg_diag_set(d, PG_ERR_INPUT, path, 0, field,
                    "%sis a symbolic link; ptxgate does not write through links (name the "
                    "folder itself, or give --follow-output-link to follow a link the command "
                    "line names)",
                    part);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "%s%s", part,
                    last ? "the output path is not a folder" : "is not a folder");
        return -1;
    }
    pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot open the folder%s: %s", named,
                strerror(e));
    return -1;
}

pg_status pg_outdir_open(pg_outdir *o, const char *path, unsigned flags, const char *field,
                         pg_diag *d)
{
    o->fd = -1;
    o->field = field;
    snprintf(o->path, sizeof o->path, "%s", path ? path : "");
    if (!path || !path[0])
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, field, "expected a folder, got ''");
    if (strlen(path) >= sizeof o->path - 300)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, field, "the path is too long");
    int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot open the folder: %s",
                           strerror(errno));
    char prefix[4096];
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        const char *rest = p + n;
        while (*rest == '/')
            rest++;
        char name[4096];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        snprintf(prefix, sizeof prefix, "%.*s", (int)(p + n - path), path);
        p += n;
        if (strcmp(name, ".") == 0)
            continue;
        if (n > 255) {
            close(fd);
            return pg_diag_set(d, PG_ERR_INPUT, prefix, 0, field, "the name is too long");
        }
        int sub = open_component(fd, name, path, prefix, *rest == '\0', flags, field, d);
        close(fd);
        if (sub < 0)
            return d->status;
        fd = sub;
    }
    o->fd = fd;
    return PG_OK;
}

pg_status pg_outdir_open_sub(const pg_outdir *parent, const char *name, unsigned flags,
                             pg_outdir *o, pg_diag *d)
{
    char where[4096];
    o->fd = -1;
    o->field = parent->field;
    pg_path_join(where, sizeof where, parent->path, name);
    snprintf(o->path, sizeof o->path, "%s", where);
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
        strlen(name) > 255)
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, parent->field,
                           "expected one folder name");
    int sub = open_component(parent->fd, name, where, where, true, flags, parent->field, d);
    if (sub < 0)
        return d->status;
    o->fd = sub;
    return PG_OK;
}

void pg_outdir_close(pg_outdir *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
}

pg_status pg_outdir_check_replaceable(const pg_outdir *o, const char *name, pg_diag *d)
{
    char where[4400];
    struct stat st;
    if (fstatat(o->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? PG_OK
                               : pg_diag_set(d, PG_ERR_INPUT, shown(where, sizeof where, o, name),
                                             0, NULL, "cannot replace the file: %s",
                                             strerror(errno));
    if (S_ISREG(st.st_mode))
        return PG_OK;
    shown(where, sizeof where, o, name);
    if (S_ISDIR(st.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                           "is a folder; cannot replace it with a file (remove or rename it)");
    const char *what = S_ISLNK(st.st_mode)    ? "a symbolic link"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                       "is %s, not a regular file; ptxgate never writes through or replaces it "
                       "(remove it)",
                       what);
}

/* A private name next to name: ".<name>.<what>.<16 hex digits>" (what: "tmp" or "old"), the
 * digits from getrandom, so no one can create it in advance; name is cut to keep within
 * NAME_MAX. */
static char *private_name(char *out, size_t n, const char *name, const char *what)
{
    static unsigned long long counter;
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
            ((unsigned long long)getpid() << 40) ^ ++counter * 0x9E3779B97F4A7C15ull;
    }
    snprintf(out, n, ".%.200s.%s.%016llx", name, what, r);
    return out;
}

/* Create a new private file next to name (O_CREAT|O_EXCL|O_NOFOLLOW; another name on a
 * clash), write data, fsync and close it; *tmp receives its name. On failure nothing is left. */
static pg_status write_private(const pg_outdir *o, const char *name, const char *what,
                               const void *data, size_t len, char *tmp, size_t tmp_n, pg_diag *d)
{
    char where[4400];
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 16; tries++) {
        fd = openat(o->fd, private_name(tmp, tmp_n, name, what),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return pg_diag_set(d, PG_ERR_INPUT, shown(where, sizeof where, o, name), 0, NULL,
                           "cannot write into folder '%s': %s", o->path, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlinkat(o->fd, tmp, 0);
            return pg_diag_set(d, PG_ERR_INPUT, shown(where, sizeof where, o, name), 0, NULL,
                               "write failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlinkat(o->fd, tmp, 0);
        return pg_diag_set(d, PG_ERR_INPUT, shown(where, sizeof where, o, name), 0, NULL,
                           "write failed: %s", strerror(e));
    }
    return PG_OK;
}

pg_status pg_outdir_write(const pg_outdir *o, const char *name, const void *data, size_t len,
                          pg_diag *d)
{
    char tmp[300], where[4400];
    pg_status st = pg_outdir_check_replaceable(o, name, d);
    if (st == PG_OK)
        st = write_private(o, name, "tmp", data, len, tmp, sizeof tmp, d);
    if (st != PG_OK)
        return st;
    if (renameat(o->fd, tmp, o->fd, name) != 0) {
        int e = errno;
        unlinkat(o->fd, tmp, 0);
        return pg_diag_set(d, PG_ERR_INPUT, shown(where, sizeof where, o, name), 0, NULL,
                           "rename failed: %s", strerror(e));
    }
    return PG_OK;
}

void pg_outdir_remove(const pg_outdir *o, const char *name)
{
    struct stat st;
    if (o->fd >= 0 && fstatat(o->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        unlinkat(o->fd, name, 0);
}

pg_status pg_file_write_safe(const char *path, unsigned flags, const void *data, size_t len,
                             pg_diag *d)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "expected a file name, not a folder");
    pg_outdir o;
    pg_status st = pg_outdir_open(&o, pg_path_dirname(dir, sizeof dir, path), flags, NULL, d);
    if (st == PG_OK)
        st = pg_outdir_write(&o, name, data, len, d);
    pg_outdir_close(&o);
    return st;
}

pg_status pg_file_write_atomic(const char *path, const void *data, size_t len, pg_diag *d)
{
    return pg_file_write_safe(path, PG_OUTDIR_FOLLOW_LINKS, data, len, d);
}

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

pg_status pg_fileset_stage(pg_fileset *s, const pg_outdir *dir, const char *name,
                           const void *data, size_t len, pg_diag *d)
{
    char where[4400];
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        void *p = realloc(s->items, cap * sizeof(*s->items));
        if (!p)
            return pg_diag_set(d, PG_ERR_INFRA, shown(where, sizeof where, dir, name), 0, NULL,
                               "out of memory");
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
        return pg_diag_set(d, PG_ERR_INFRA, shown(where, sizeof where, dir, name), 0, NULL,
                           "out of memory");
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
    return a == b || (fstat(a->fd, &sa) == 0 && fstat(b->fd, &sb) == 0 &&
                      sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

/* Keep the earlier file at e's name, if any, under a private "old" name until the set is in
 * place: a hard link (the file stays at its name meanwhile), else a copy. */
static pg_status keep_old(struct pg_fileset_entry *e, pg_diag *d)
{
    char where[4400];
    int dfd = e->dir->fd;
    struct stat st;
    shown(where, sizeof where, e->dir, e->name);
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
        if (linkat(dfd, e->name, dfd, private_name(e->old, sizeof e->old, e->name, "old"), 0) ==
            0)
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
            st2 = write_private(e->dir, e->name, "old", text, got, e->old, sizeof e->old, d);
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
            e->duplicate = strcmp(s->items[j].name, e->name) == 0 &&
                           same_dir(s->items[j].dir, e->dir);
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
            st = write_private(s->items[i].dir, s->items[i].name, "tmp", s->items[i].data,
                               s->items[i].len, s->items[i].tmp, sizeof s->items[i].tmp, d);
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
        if (e->duplicate ||
            renameat(e->dir->fd, e->tmp, e->dir->fd, e->name) == 0) {
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
        shown(where, sizeof where, e->dir, e->name);
        if (lost) {
            char lost_at[4400], kept_at[4400];
            return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                               "cannot replace the file: %s; the earlier '%s' could not be put "
                               "back and is kept as '%s'",
                               strerror(err), shown(lost_at, sizeof lost_at, lost->dir, lost->name),
                               shown(kept_at, sizeof kept_at, lost->dir, lost->old));
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
