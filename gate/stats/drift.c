/* Runner drift decision over two median intervals (see drift.h). */
#include "drift.h"

#include <math.h>

static bool interval_ok(double median, double low, double high)
{
    return isfinite(median) && isfinite(low) && isfinite(high) && low > 0 && low <= median &&
           median <= high;
}

pg_drift pg_drift_decide(double stored_median, double stored_low, double stored_high,
                         double live_median, double live_low, double live_high, double tolerance)
{
    pg_drift r = {.kind = PG_DRIFT_UNKNOWN, .ratio = NAN, .ratio_low = NAN, .ratio_high = NAN,
                  .tolerance = tolerance};
    if (!interval_ok(stored_median, stored_low, stored_high) ||
        !interval_ok(live_median, live_low, live_high) || !(tolerance > 0 && tolerance < 1))
        return r;
    r.ratio = live_median / stored_median;
    r.ratio_low = live_low / stored_high;
    r.ratio_high = live_high / stored_low;
    if (r.ratio_low > 1.0 + tolerance)
        r.kind = PG_DRIFT_SLOWER;
    else if (r.ratio_high < 1.0 / (1.0 + tolerance))
        r.kind = PG_DRIFT_FASTER;
    else
        r.kind = PG_DRIFT_NONE;
    return r;
}

const char *pg_drift_kind_name(pg_drift_kind k)
{
    switch (k) {
    case PG_DRIFT_NONE: return "none";
    case PG_DRIFT_SLOWER: return "slower";
    case PG_DRIFT_FASTER: return "faster";
    case PG_DRIFT_UNKNOWN: break;
    }
    return "unknown";
}
