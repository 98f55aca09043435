/* Resolved paths, containment and the submission root (see pathroot.h). */
#include "pathroot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool pg_path_is_inside(const char *dir, const char *path)
{
    if (!dir || !path || dir[0] != '/' || path[0] != '/')
        return false;
    size_t n = strlen(dir);
    if (n == 1)
        return true; /* "/" holds every absolute path */
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

pg_status pg_path_resolve(const char *path, char *out, size_t n, pg_diag *d)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf))
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "cannot resolve the path: %s",
                           strerror(errno));
    if (strlen(buf) >= n)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL, "the resolved path is too long");
    memcpy(out, buf, strlen(buf) + 1);
    return PG_OK;
}

char *pg_root_find_upward(const char *start, const char *marker, char *out, size_t n)
{
    char dir[PATH_MAX];
    snprintf(out, n, "%s", start);
    snprintf(dir, sizeof dir, "%s", start);
    for (;;) {
        char probe[PATH_MAX + 64];
        struct stat sb;
        snprintf(probe, sizeof probe, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, marker);
        if (lstat(probe, &sb) == 0) {
            snprintf(out, n, "%s", dir);
            return out;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0)
            return out;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

pg_status pg_root_default(char *out, size_t n, pg_diag *d)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, "--root",
                           "cannot read the current folder: %s", strerror(errno));
    char resolved[PATH_MAX];
    if (!realpath(cwd, resolved))
        return pg_diag_set(d, PG_ERR_INFRA, cwd, 0, "--root", "cannot resolve the current folder: %s",
                           strerror(errno));
    pg_root_find_upward(resolved, ".git", out, n);
    return PG_OK;
}

bool pg_dirset_add_resolved(pg_dirset *s, const char *dir)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->dirs[i], dir) == 0)
            return false;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        char **dirs = realloc(s->dirs, (size_t)cap * sizeof *dirs);
        if (!dirs)
            return false;
        s->dirs = dirs;
        s->cap = cap;
    }
    if (!(s->dirs[s->n] = strdup(dir)))
        return false;
    s->n++;
    return true;
}

bool pg_dirset_add(pg_dirset *s, const char *dir)
{
    char buf[PATH_MAX];
    struct stat sb;
    if (!dir || !dir[0] || !realpath(dir, buf) || stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false;
    return pg_dirset_add_resolved(s, buf);
}

const char *pg_dirset_find(const pg_dirset *s, const char *path)
{
    for (int i = 0; s && i < s->n; i++)
        if (pg_path_is_inside(s->dirs[i], path))
            return s->dirs[i];
    return NULL;
}

void pg_dirset_free(pg_dirset *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        free(s->dirs[i]);
    free(s->dirs);
    memset(s, 0, sizeof *s);
}
