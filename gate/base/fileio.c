/* Bounded reads and safe atomic writes (see fileio.h). */
#include "fileio.h"
#include "fileio_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
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

/* See fileio_internal.h. */
const char *pg_fileio_shown(char *out, size_t n, const pg_outdir *o, const char *name)
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
static int open_component(int fd, const char *name, const char *path, const char *prefix, bool last,
                          unsigned flags, const char *field, pg_diag *d)
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
            pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot create the folder%s: %s", named,
                        strerror(errno));
            return -1;
        }
        sub = openat(fd, name, dir_flags | O_NOFOLLOW);
    }
    if (sub >= 0)
        return sub;
    int e = errno;
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        pg_diag_set(d, PG_ERR_INPUT, path, 0, field, "cannot open the folder%s: %s", named,
                    strerror(e));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        if ((flags & PG_OUTDIR_FOLLOW_LINKS) || (!last && !inside_cwd(fd))) {
            sub = openat(fd, name, dir_flags);
            if (sub < 0)
                pg_diag_set(d, PG_ERR_INPUT, path, 0, field,
                            "cannot open the folder the symbolic link%s points to: %s", named,
                            strerror(errno));
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

/* Whether rest (the path after a component) names no further folder: only "." and "/". */
static bool no_more_components(const char *rest)
{
    for (; *rest; rest++)
        if (*rest != '/' && !(*rest == '.' && (rest[1] == '/' || rest[1] == '\0')))
            return false;
    return true;
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
        int sub = open_component(fd, name, path, prefix, no_more_components(rest), flags,
                                 field, d);
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
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, parent->field, "expected one folder name");
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
        return errno == ENOENT
                   ? PG_OK
                   : pg_diag_set(d, PG_ERR_INPUT, pg_fileio_shown(where, sizeof where, o, name), 0,
                                 NULL, "cannot replace the file: %s", strerror(errno));
    if (S_ISREG(st.st_mode))
        return PG_OK;
    pg_fileio_shown(where, sizeof where, o, name);
    if (S_ISDIR(st.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                           "is a folder; cannot replace it with a file (remove or rename it)");
    const char *what = S_ISLNK(st.st_mode)                          ? "a symbolic link"
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    return pg_diag_set(d, PG_ERR_INPUT, where, 0, NULL,
                       "is %s, not a regular file; ptxgate never writes through or replaces it "
                       "(remove it)",
                       what);
}

/* See fileio_internal.h: the digits come from getrandom (a clock-and-pid mix only where it
 * fails), so no one can create the name in advance. */
char *pg_fileio_private_name(char *out, size_t n, const char *name, const char *what)
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

/* See fileio_internal.h. */
pg_status pg_fileio_write_private(const pg_outdir *o, const char *name, const char *what,
                                  const void *data, size_t len, char *tmp, size_t tmp_n, pg_diag *d)
{
    char where[4400];
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 16; tries++) {
        fd = openat(o->fd, pg_fileio_private_name(tmp, tmp_n, name, what),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return pg_diag_set(d, PG_ERR_INPUT, pg_fileio_shown(where, sizeof where, o, name), 0, NULL,
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
            return pg_diag_set(d, PG_ERR_INPUT, pg_fileio_shown(where, sizeof where, o, name), 0,
                               NULL, "write failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlinkat(o->fd, tmp, 0);
        return pg_diag_set(d, PG_ERR_INPUT, pg_fileio_shown(where, sizeof where, o, name), 0, NULL,
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
        st = pg_fileio_write_private(o, name, "tmp", data, len, tmp, sizeof tmp, d);
    if (st != PG_OK)
        return st;
    if (renameat(o->fd, tmp, o->fd, name) != 0) {
        int e = errno;
        unlinkat(o->fd, tmp, 0);
        return pg_diag_set(d, PG_ERR_INPUT, pg_fileio_shown(where, sizeof where, o, name), 0, NULL,
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
