/* Where a guarded device buffer sits inside its virtual-memory mapping, and the scan of its
 * canary bytes: pure arithmetic behind gate/device's guarded allocations (docs/isolation.md).
 *
 * Layout of one guarded buffer (addresses grow to the right):
 *
 *   | guard (unmapped) | front canary | buffer | back canary | guard (unmapped) |
 *                      ^ mapping start                      ^ mapping end
 *
 * The mapping is a whole number of allocation-granularity units. The buffer's start must stay
 * 256-byte aligned (the alignment cudaMalloc gives and kernels assume), so its end is placed at
 * the mapping's end exactly when its size is a multiple of 256; otherwise the back canary covers
 * the < 256 bytes between. A write past the end then either changes a canary byte or faults in
 * the unmapped guard; a write before the start changes the front canary or faults. */
#ifndef PG_BASE_GUARD_H
#define PG_BASE_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Alignment of every buffer start, bytes. */
#define PG_GUARD_ALIGN 256

typedef struct {
    size_t guard_bytes;   /* unmapped reserved bytes before and after the mapping, each */
    size_t map_bytes;     /* mapped bytes, a multiple of the granularity */
    size_t reserve_bytes; /* guard + map + guard: the virtual range reserved */
    size_t front_bytes;   /* from the mapping's start to the buffer's start: the front canary */
    size_t back_bytes;    /* from the buffer's end to the mapping's end: the back canary (< 256) */
} pg_guard_layout;

/* Plan the layout of a buffer of `bytes` (>= 1) for a mapping granularity `granularity` (a
 * power of two >= PG_GUARD_ALIGN; the driver's minimum, 2 MiB on Hopper) with at least
 * `guard_min` unmapped bytes on each side (rounded up to the granularity). false when an
 * argument is out of range or the sizes overflow. */
bool pg_guard_plan(size_t bytes, size_t granularity, size_t guard_min, pg_guard_layout *out);

/* Canary bytes of p[0..n) that no longer hold `pattern`: their count, and the offsets of the
 * first and last changed byte (unchanged when none changed). */
size_t pg_canary_scan(const unsigned char *p, size_t n, unsigned char pattern, size_t *first,
                      size_t *last);

#endif
