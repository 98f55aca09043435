/* Guarded-buffer layout and canary scans (see guard.h). */
#include "guard.h"

#include <stdint.h>

static bool round_up(size_t v, size_t unit, size_t *out)
{
    if (v > SIZE_MAX - (unit - 1))
        return false;
    *out = (v + unit - 1) / unit * unit;
    return true;
}

bool pg_guard_plan(size_t bytes, size_t granularity, size_t guard_min, pg_guard_layout *out)
{
    bool pow2 = granularity && (granularity & (granularity - 1)) == 0;
    if (!out || bytes == 0 || !pow2 || granularity < PG_GUARD_ALIGN)
        return false;
    size_t back = (PG_GUARD_ALIGN - bytes % PG_GUARD_ALIGN) % PG_GUARD_ALIGN;
    size_t map, guard;
    if (bytes > SIZE_MAX - back || !round_up(bytes + back, granularity, &map) ||
        !round_up(guard_min ? guard_min : 1, granularity, &guard) || guard > (SIZE_MAX - map) / 2)
        return false;
    out->guard_bytes = guard;
    out->map_bytes = map;
    out->reserve_bytes = map + 2 * guard;
    out->back_bytes = back;
    out->front_bytes = map - bytes - back;
    return true;
}

size_t pg_canary_scan(const unsigned char *p, size_t n, unsigned char pattern, size_t *first,
                      size_t *last)
{
    size_t changed = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern) {
            if (changed++ == 0 && first)
                *first = i;
            if (last)
                *last = i;
        }
    return changed;
}
