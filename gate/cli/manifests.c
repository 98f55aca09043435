/* Expanding `ptxgate check`'s MANIFEST|DIR arguments into manifest paths (see cli.h). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Deepest folder nesting followed with --recursive. */
#define PG_RECURSE_MAX_DEPTH 32

typedef struct {
    char **v;
    int n, cap;
    bool oom;
} strlist;

static void add(strlist *l, char *s)
{
    if (!s || l->oom) {
        l->oom = true;
        free(s);
        return;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            l->oom = true;
            free(s);
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_manifest_name(const char *name)
{
    size_t len = strlen(name);
    return len >= 6 && strcmp(name + len - 5, ".json") == 0 && strcmp(name, "task.json") != 0 &&
           strcmp(name, "results.json") != 0 && strcmp(name, "compare.json") != 0;
}

static char *join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return p;
}

/* The manifests in dir (and, when depth >= 0, in its subfolders down to the maximum depth).
 * Hidden entries and symbolic links to folders are not followed. *subfolders tells whether dir
 * has any subfolder (for the hint). */
static void scan(const char *dir, int depth, strlist *l, bool *subfolders)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = join(dir, e->d_name);
        struct stat lst, st;
        if (!path || lstat(path, &lst) != 0) {
            l->oom |= !path;
            free(path);
            continue;
        }
        if (S_ISDIR(lst.st_mode)) {
            *subfolders = true;
            if (depth >= 0 && depth < PG_RECURSE_MAX_DEPTH) {
                bool unused = false;
                scan(path, depth + 1, l, &unused);
            }
            free(path);
        } else if (is_manifest_name(e->d_name) && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            add(l, path);
        } else {
            free(path);
        }
    }
    if (dp)
        closedir(dp);
}

int pg_cli_expand_manifests(char **args, int n, bool recursive, char ***out, int *count)
{
    strlist l = {0};
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            fprintf(stderr, "ptxgate: %s: no such file or folder\n", args[i]);
            rc = 2;
        } else if (S_ISDIR(st.st_mode)) {
            int first = l.n;
            bool subfolders = false;
            scan(args[i], recursive ? 0 : -1, &l, &subfolders);
            if (!l.oom && l.n > first) /* l.v is NULL while nothing was found */
                qsort(l.v + first, (size_t)(l.n - first), sizeof *l.v, cmp_str);
            if (!l.oom && l.n == first) {
                fprintf(stderr, "ptxgate: %s: no *.json manifest in this folder%s\n", args[i],
                        !recursive && subfolders ? " (it has subfolders: --recursive searches "
                                                   "them too)"
                                                 : recursive ? " or below it" : "");
                rc = 2;
            }
        } else {
            add(&l, strdup(args[i]));
        }
    }
    if (rc == 0 && l.oom) {
        fprintf(stderr, "ptxgate: out of memory listing the manifests\n");
        rc = 3;
    }
    if (rc != 0) {
        for (int i = 0; i < l.n; i++)
            free(l.v[i]);
        free(l.v);
        l.v = NULL;
        l.n = 0;
    }
    *out = l.v;
    *count = l.n;
    return rc;
}
