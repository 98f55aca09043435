/* Growing an array by doubling (see grow.h). */
#include "grow.h"

#include <stdlib.h>

void *pg_grow(void *arr, size_t n, size_t *cap, size_t first, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t grown = *cap ? *cap * 2 : first;
    void *p = realloc(arr, grown * elem);
    if (p)
        *cap = grown;
    return p;
}
