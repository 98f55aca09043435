/* Growing an array by doubling: the one rule behind the parsers' growable arrays (PTX
 * inventory, ptxas log). */
#ifndef PG_BASE_GROW_H
#define PG_BASE_GROW_H

#include <stddef.h>

/* arr (n elements of elem bytes, room for *cap) with room for one more: when full, reallocated
 * to twice *cap (first when *cap is 0) and *cap updated. Returns the array to use from now on,
 * or NULL when out of memory: arr is then unchanged and still the caller's to free. */
void *pg_grow(void *arr, size_t n, size_t *cap, size_t first, size_t elem);

#endif
