/* GPU keys from device names (see gpu_key.h for the rule). */
#include "gpu_key.h"

#include <stdio.h>
#include <string.h>

#define PG_GPU_KEY_WORDS 16

static bool is_memory_word(const char *w)
{
    static const char *const hbm[] = {"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", NULL};
    for (const char *const *h = hbm; *h; h++)
        if (strcmp(w, *h) == 0)
            return true;
    size_t n = strlen(w);
    if (n < 3 || strcmp(w + n - 2, "gb") != 0)
        return false;
    for (size_t i = 0; i + 2 < n; i++)
        if (w[i] < '0' || w[i] > '9')
            return false;
    return true;
}

/* "sxm", "pcie", "nvl" for a form factor word, else NULL. */
static const char *form_factor(const char *w)
{
    if (strcmp(w, "pcie") == 0)
        return "pcie";
    if (strcmp(w, "nvl") == 0)
        return "nvl";
    if (strncmp(w, "sxm", 3) == 0 && (w[3] == '\0' || (w[3] >= '2' && w[3] <= '5' && !w[4])))
        return "sxm";
    return NULL;
}

static bool is_sxm_family(const char *w)
{
    static const char *const fam[] = {"a100", "h100", "h200", "h20", "b100", "b200", "b300",
                                      NULL};
    for (const char *const *f = fam; *f; f++)
        if (strcmp(w, *f) == 0)
            return true;
    return false;
}

bool pg_gpu_key_from_name(const char *name, char *out, size_t n)
{
    char words[PG_GPU_KEY_WORDS][PG_GPU_KEY_MAX];
    int nw = 0;
    size_t len = 0;
    out[0] = '\0';
    /* Split into lower-case [a-z0-9] words. */
    for (const char *p = name ? name : "";; p++) {
        char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        bool word_char = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (word_char) {
            if (nw == PG_GPU_KEY_WORDS || len + 1 >= PG_GPU_KEY_MAX)
                return false;
            words[nw][len++] = c;
        } else if (len > 0) {
            words[nw++][len] = '\0';
            len = 0;
        }
        if (!*p)
            break;
    }
    const char *form = NULL;
    char key[PG_GPU_KEY_MAX * 2] = "";
    size_t kl = 0;
    int kept = 0;
    for (int i = 0; i < nw; i++) {
        const char *w = words[i];
        if (i == 0 && strcmp(w, "nvidia") == 0)
            continue;
        if (is_memory_word(w))
            continue;
        const char *ff = form_factor(w);
        if (ff) {
            form = ff;
            continue;
        }
        if (kept == 0 && is_sxm_family(w))
            form = form ? form : "sxm";
        int k = snprintf(key + kl, sizeof key - kl, "%s%s", kept ? "-" : "", w);
        if (k < 0 || (size_t)k >= sizeof key - kl)
            return false;
        kl += (size_t)k;
        kept++;
    }
    if (kept == 0)
        return false;
    if (form && snprintf(key + kl, sizeof key - kl, "-%s", form) >= (int)(sizeof key - kl))
        return false;
    if (strlen(key) + 1 > n || !pg_gpu_key_valid(key))
        return false;
    snprintf(out, n, "%s", key);
    return true;
}

bool pg_gpu_key_valid(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n >= PG_GPU_KEY_MAX)
        return false;
    if (!((key[0] >= 'a' && key[0] <= 'z') || (key[0] >= '0' && key[0] <= '9')))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = key[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}
