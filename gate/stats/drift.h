/* Runner drift: is the vendor library's live time on this runner still the time stored in its
 * baseline? A pure decision over two median intervals (docs/baselines.md). It never decides a
 * kernel's verdict (those come from the live, interleaved measurement alone); it tells whether
 * the runner itself changed (clocks, power, thermal state, another driver). */
#ifndef PG_STATS_DRIFT_H
#define PG_STATS_DRIFT_H

#include <stdbool.h>

typedef enum {
    PG_DRIFT_NONE,    /* the intervals do not show a change beyond the tolerance */
    PG_DRIFT_SLOWER,  /* the runner is shown slower than stored by more than the tolerance */
    PG_DRIFT_FASTER,  /* ... shown faster than stored by more than the tolerance */
    PG_DRIFT_UNKNOWN  /* an input is missing, not finite, not positive or not an interval */
} pg_drift_kind;

typedef struct {
    pg_drift_kind kind;
    double ratio;      /* live median / stored median */
    double ratio_low;  /* live interval low / stored interval high: the smallest ratio both
                          intervals allow */
    double ratio_high; /* live interval high / stored interval low: the largest */
    double tolerance;  /* as given */
} pg_drift;

/* Times in any one unit (ms in ptxgate), each a median with its interval (low <= median <=
 * high). tolerance δ in (0, 1). Drift is reported only when every ratio both intervals allow is
 * beyond the tolerance: SLOWER when ratio_low > 1 + δ, FASTER when ratio_high < 1 / (1 + δ)
 * (symmetric in log time). So two intervals that overlap after widening by δ never drift, and
 * an edit of a stored time by 10 % is found at δ = 5 % whenever the intervals are narrower than
 * about 2 % together (per-block noise of cuBLASLt on the H200 is ~0.1-0.8 %,
 * docs/performance.md). */
pg_drift pg_drift_decide(double stored_median, double stored_low, double stored_high,
                         double live_median, double live_low, double live_high, double tolerance);

/* "none", "slower", "faster", "unknown". */
const char *pg_drift_kind_name(pg_drift_kind k);

#endif
