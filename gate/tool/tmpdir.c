/* The run's private temporary folder, its owner record and the sweep of stale ones (see
 * tmpdir.h). */
#include "tmpdir.h"

#include "base/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REMOVE_MAX_DEPTH 16

size_t pg_tmpdir_owner_format(const pg_tmpdir_owner *o, char *buf, size_t n)
{
    int k = snprintf(buf, n, "ptxgate-owner 1\npid %ld\nstart %llu\nboot %s\n", o->pid,
                     o->start_ticks, o->boot_id);
    return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

/* A boot id as the kernel writes it: 36 characters of hex digits and dashes. */
static bool boot_id_ok(const char *s, size_t len)
{
    if (len != 36)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(isxdigit((unsigned char)s[i]) || s[i] == '-'))
            return false;
    return true;
}

/* Parse "<key> <decimal>\n" at *p; advance past it. */
static bool parse_number_line(const char **p, const char *key, unsigned long long *v)
{
    size_t k = strlen(key);
    if (strncmp(*p, key, k) != 0 || (*p)[k] != ' ' || !isdigit((unsigned char)(*p)[k + 1]))
        return false;
    char *end;
    errno = 0;
    *v = strtoull(*p + k + 1, &end, 10);
    if (errno || *end != '\n')
        return false;
    *p = end + 1;
    return true;
}

bool pg_tmpdir_owner_parse(const char *text, pg_tmpdir_owner *o)
{
    static const char head[] = "ptxgate-owner 1\n";
    memset(o, 0, sizeof *o);
    if (!text || strncmp(text, head, sizeof head - 1) != 0)
        return false;
    const char *p = text + sizeof head - 1;
    unsigned long long pid, start;
    if (!parse_number_line(&p, "pid", &pid) || pid == 0 || pid > 0x7fffffffULL ||
        !parse_number_line(&p, "start", &start) || strncmp(p, "boot ", 5) != 0)
        return false;
    p += 5;
    const char *nl = strchr(p, '\n');
    if (!nl || nl[1] != '\0' || !boot_id_ok(p, (size_t)(nl - p)))
        return false;
    o->pid = (long)pid;
    o->start_ticks = start;
    memcpy(o->boot_id, p, 36);
    o->boot_id[36] = '\0';
    return true;
}

bool pg_tmpdir_stat_start_ticks(const char *stat_text, unsigned long long *ticks)
{
    const char *p = stat_text ? strrchr(stat_text, ')') : NULL;
    if (!p)
        return false;
    p++;
    /* After the name: field 3 (state) is the first; the start time is field 22. */
    for (int field = 3; field < 22; field++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return false;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    char *end;
    errno = 0;
    *ticks = strtoull(p, &end, 10);
    return errno == 0 && (*end == ' ' || *end == '\n' || *end == '\0');
}

/* Read at most n-1 bytes of path (no link followed) into buf; false when it cannot be read. */
static bool read_small(int dirfd, const char *path, char *buf, size_t n)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat sb;
    size_t len = 0;
    bool ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    while (ok && len + 1 < n) {
        ssize_t k = read(fd, buf + len, n - 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            ok = false;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    buf[ok ? len : 0] = '\0';
    return ok;
}

static bool read_boot_id(char out[40])
{
    char buf[64];
    if (!read_small(AT_FDCWD, "/proc/sys/kernel/random/boot_id", buf, sizeof buf))
        return false;
    size_t len = strcspn(buf, "\n");
    if (!boot_id_ok(buf, len))
        return false;
    memcpy(out, buf, 36);
    out[36] = '\0';
    return true;
}

static bool read_start_ticks(long pid, unsigned long long *ticks, bool *gone)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    *gone = false;
    if (!read_small(AT_FDCWD, path, buf, sizeof buf)) {
        *gone = errno == ENOENT || errno == ESRCH;
        return false;
    }
    return pg_tmpdir_stat_start_ticks(buf, ticks);
}

bool pg_tmpdir_self_owner(pg_tmpdir_owner *o)
{
    bool gone;
    memset(o, 0, sizeof *o);
    o->pid = (long)getpid();
    return read_boot_id(o->boot_id) && read_start_ticks(o->pid, &o->start_ticks, &gone);
}

bool pg_tmpdir_owner_alive(const pg_tmpdir_owner *o)
{
    char boot[40];
    struct stat sb;
    if (!read_boot_id(boot) || stat("/proc/self/stat", &sb) != 0)
        return true; /* no /proc: nothing can be proved */
    if (strcmp(boot, o->boot_id) != 0)
        return false;
    unsigned long long start;
    bool gone;
    if (!read_start_ticks(o->pid, &start, &gone))
        return !gone;
    return start == o->start_ticks;
}

/* "ptxgate." and six characters of mkdtemp's alphabet. */
static bool stale_name(const char *name)
{
    if (strncmp(name, "ptxgate.", 8) != 0 || strlen(name) != 14)
        return false;
    for (const char *p = name + 8; *p; p++)
        if (!isalnum((unsigned char)*p))
            return false;
    return true;
}

int pg_tmpdir_sweep(const char *base)
{
    int removed = 0;
    int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (bfd < 0)
        return 0;
    DIR *dp = fdopendir(bfd);
    if (!dp) {
        close(bfd);
        return 0;
    }
    struct dirent *e;
    char path[4096 + 64], text[512];
    while ((e = readdir(dp))) {
        struct stat sb;
        if (!stale_name(e->d_name) || fstatat(bfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
            continue;
        int dfd = openat(bfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
            continue;
        pg_tmpdir_owner o;
        bool ours = read_small(dfd, PG_TMPDIR_OWNER_FILE, text, sizeof text) &&
                    pg_tmpdir_owner_parse(text, &o);
        close(dfd);
        if (!ours || pg_tmpdir_owner_alive(&o))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", base, e->d_name) >= sizeof path)
            continue;
        pg_tmpdir_remove(path);
        removed += fstatat(bfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0;
    }
    closedir(dp);
    return removed;
}

pg_status pg_tmpdir_create(char *path, size_t n, int *stale_removed, pg_diag *d)
{
    const char *base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    int swept = pg_tmpdir_sweep(base);
    if (stale_removed)
        *stale_removed = swept;
    if ((size_t)snprintf(path, n, "%s/ptxgate.XXXXXX", base) >= n) {
        path[0] = '\0';
        return pg_diag_set(d, PG_ERR_INFRA, base, 0, NULL,
                           "cannot create a temporary folder: the path is too long");
    }
    if (!mkdtemp(path)) {
        int e = errno;
        path[0] = '\0';
        return pg_diag_set(d, PG_ERR_INFRA, base, 0, NULL, "cannot create a temporary folder: %s",
                           strerror(e));
    }
    pg_tmpdir_owner o;
    char text[256];
    size_t len = 0;
    bool have = pg_tmpdir_self_owner(&o) && (len = pg_tmpdir_owner_format(&o, text, sizeof text));
    int e = 0;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 || mkdirat(dfd, PG_TMPDIR_TOOLS_SUBDIR, 0700) != 0)
        e = errno;
    /* The record through the safe writer, by descriptor inside the folder mkdtemp just made:
     * renamed whole into place, so a sweep never sees a partial record. */
    if (!e && have) { /* without /proc there is no record, and no sweep will ever judge it */
        pg_outdir od = {.fd = dfd};
        snprintf(od.path, sizeof od.path, "%s", path);
        pg_diag wd;
        if (pg_outdir_write(&od, PG_TMPDIR_OWNER_FILE, text, len, &wd) != PG_OK)
            e = errno ? errno : EIO;
    }
    if (dfd >= 0)
        close(dfd);
    if (e) {
        pg_tmpdir_remove(path);
        pg_status st = pg_diag_set(d, PG_ERR_INFRA, path, 0, NULL,
                                   "cannot set up the temporary folder: %s", strerror(e));
        path[0] = '\0';
        return st;
    }
    return PG_OK;
}

/* Remove what the folder open as dfd holds; async-signal-safe. A few passes, since entries
 * removed while reading may make the kernel skip others. */
static void remove_entries(int dfd, int depth)
{
    struct dirent64_raw {
        unsigned long long d_ino;
        long long d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
    };
    for (int pass = 0; pass < 4; pass++) {
        bool removed = false;
        char buf[2048] __attribute__((aligned(8)));
        long n;
        if (lseek(dfd, 0, SEEK_SET) != 0)
            return;
        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
                const char *name = e->d_name;
                off += e->d_reclen;
                if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                    continue;
                if (unlinkat(dfd, name, 0) == 0) {
                    removed = true;
                    continue;
                }
                if (depth >= REMOVE_MAX_DEPTH)
                    continue;
                int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0)
                    continue;
                remove_entries(sub, depth + 1);
                close(sub);
                removed |= unlinkat(dfd, name, AT_REMOVEDIR) == 0;
            }
        if (!removed)
            return;
    }
}

void pg_tmpdir_remove(const char *dir)
{
    if (!dir || !dir[0])
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return; /* gone, or not a folder (a link is never followed) */
    remove_entries(fd, 0);
    close(fd);
    rmdir(dir);
}
