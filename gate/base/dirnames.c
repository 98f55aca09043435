/* Naming what a folder holds in a message: sorted, joined names (see dirnames.h). */
#include "dirnames.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void pg_names_join(char **names, size_t k, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    qsort(names, k, sizeof names[0], cmp_str);
    for (size_t i = 0; i < k; i++) {
        if (used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
}

void pg_dir_stems(const char *dir, const char *suffix, char *out, size_t n)
{
    char *names[PG_DIRNAMES_MAX];
    size_t k = 0, ns = strlen(suffix);
    out[0] = '\0';
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) && k < PG_DIRNAMES_MAX) {
        size_t len = strlen(e->d_name);
        if (len > ns && e->d_name[0] != '.' && strcmp(e->d_name + len - ns, suffix) == 0 &&
            (names[k] = strndup(e->d_name, len - ns)))
            k++;
    }
    closedir(dp);
    pg_names_join(names, k, out, n);
}
