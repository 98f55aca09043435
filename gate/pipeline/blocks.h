/* The block protocol and the heat soak of the performance stage (blocks.c), private to
 * gate/pipeline. */
#ifndef PG_PIPELINE_BLOCKS_H
#define PG_PIPELINE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "device/device.h"

#define PG_BLOCK_MAX_ARMS 8
#define PG_BLOCK_MAX_BLOCKS 64 /* the last group-sequential look */
typedef struct {
    const pg_arm *arms;
    size_t n_arms;
    int warmup, reps; /* per arm and block; reps <= 10 */
    uint64_t seed;    /* block b's arm order comes from (seed, b) and is reproducible */
    double timeout_s; /* per arm and block */
    bool cupti;       /* also record CUPTI activity GPU time (cross-check; falls back when off) */
    bool watch;       /* NVML environment watch per arm and block, with flagging and re-runs */
    bool no_flush;    /* sustained mode: no L2 flush before timed launches (default: flush) */
    int max_reruns;   /* flagged blocks re-run at most this many times in total */
} pg_block_plan;
/* What the blocks measured besides the block statistic. Arrays are indexed
 * [a * PG_BLOCK_MAX_BLOCKS + b]; NaN where not measured. */
typedef struct {
    double gpu_ms[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS];       /* CUPTI median per block */
    double sm_clock_mhz[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS]; /* NVML median per block */
    bool cupti_used;          /* CUPTI times recorded; false after the first CUPTI failure */
    char cupti_error[512];    /* why CUPTI was turned off */
    bool nvml_used;
    int flagged;              /* blocks flagged (clock spread > 2 % or HW/thermal slowdown) */
    int reruns;               /* of those, re-run */
    int other_processes;      /* most other compute processes seen; -1 unknown */
    bool hw_slowdown, thermal, power_cap;
    double energy_j, watched_s; /* summed over the watched arm-blocks */
    int launches;             /* timed + untimed launches of all arms */
} pg_block_data;
/* Arm order of block b: a permutation of 0..n_arms-1 (Fisher–Yates over splitmix64). */
void pg_block_order(uint64_t seed, int block, size_t n_arms, int *order);
/* Run blocks [first, last): block_ms[a * PG_BLOCK_MAX_BLOCKS + b] = median of arm a's timed
 * launches in block b (ms); all_ms (may be NULL) receives every timed launch at
 * ((a * PG_BLOCK_MAX_BLOCKS + b) * reps + r). */
pg_status pg_blocks_run(pg_device *dev, const pg_block_plan *p, int first, int last,
                        double *block_ms, double *all_ms, pg_block_data *data, pg_diag *d);
/* Clear data before the first pg_blocks_run of a comparison. */
void pg_block_data_init(pg_block_data *data);
typedef struct {
    double seconds;               /* wall time of the soak */
    int windows;                  /* 100 ms windows run */
    bool steady;                  /* three consecutive windows agreed within 0.5 % */
    double last_window_round_ms;  /* mean time of one round of all arms in the last window */
    bool warm_start;              /* the GPU was timing until at most PG_SOAK_WARM_S ago */
    double min_s;                 /* the minimum the soak ran: 2 s cold, 0.5 s warm */
} pg_soak_result;
/* The heat soak: all arms back to back for at least 2 s (0.5 s when warm) and until three
 * consecutive 100 ms windows agree within 0.5 % (at most 10 s; 3 s when warm). since_warm_s: seconds since
 * the GPU last ran timing blocks (a previous workload, in this process or another worker of
 * the run; +inf or NaN: never). The GPU counts as warm within PG_SOAK_WARM_S of that: the
 * clocks and the power draw are those of steady timing, and the window agreement still has
 * to hold (docs/performance.md, step 4). */
#define PG_SOAK_WARM_S 10.0
pg_status pg_heat_soak(pg_device *dev, const pg_arm *arms, size_t n_arms, double timeout_s,
                       double since_warm_s, pg_soak_result *out, pg_diag *d);

#endif
