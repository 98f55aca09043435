/* Round-robin split of the sorted work items (see shard.h). */
#include "shard.h"

#include <stdlib.h>
#include <string.h>

pg_status pg_shard_parse(const char *text, pg_shard *out, pg_diag *d)
{
    const char *slash = strchr(text, '/');
    char *end1 = NULL, *end2 = NULL;
    long i = -1, n = -1;
    if (slash && slash != text && slash[1] >= '0' && slash[1] <= '9' && text[0] >= '0' &&
        text[0] <= '9') {
        i = strtol(text, &end1, 10);
        n = strtol(slash + 1, &end2, 10);
    }
    if (!end1 || end1 != slash || !end2 || *end2 || n < 1 || n > PG_SHARD_MAX || i < 1 || i > n)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--shard",
                           "expected i/n with 1 <= i <= n <= %d (e.g. 2/4), got '%s'",
                           PG_SHARD_MAX, text);
    out->index = (int)i;
    out->count = (int)n;
    return PG_OK;
}

/* qsort has no context pointer: sort indices with the items in a file-local pointer. */
static const pg_work_item *g_items;

static int cmp_items(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const pg_work_item *x = &g_items[a], *y = &g_items[b];
    int c = strcmp(x->task, y->task);
    if (!c)
        c = strcmp(x->submission, y->submission);
    if (!c)
        c = strcmp(x->workload, y->workload);
    if (!c)
        c = strcmp(x->manifest, y->manifest);
    if (!c) /* keep equal items in input order: the result must not depend on qsort */
        c = a < b ? -1 : a > b ? 1 : 0;
    return c;
}

pg_status pg_shard_assign(const pg_work_item *items, size_t n, int count, int *shard_of,
                          pg_diag *d)
{
    if (count < 1 || count > PG_SHARD_MAX)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--shard",
                           "expected 1 to %d shards, got %d", PG_SHARD_MAX, count);
    if (n == 0)
        return PG_OK;
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (size_t k = 0; k < n; k++)
        order[k] = k;
    g_items = items;
    qsort(order, n, sizeof *order, cmp_items);
    g_items = NULL;
    for (size_t k = 0; k < n; k++)
        shard_of[order[k]] = (int)(k % (size_t)count) + 1;
    free(order);
    return PG_OK;
}
