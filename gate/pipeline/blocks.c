/* The block protocol of the performance stage (cold mode): a block runs every arm once, in an
 * order drawn per block from a logged seed; each arm does w untimed launches then r timed ones
 * (L2 flushed before each timed launch), and its block statistic is the median of the r times.
 * Blocks, not launches, are the unit of inference: a level shift inside one process moves whole
 * blocks, and the paired per-block log ratios absorb it (measurements on the H200 test machine, Timing).
 * Also the heat soak that brings clocks to steady state before the first block. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/order_stats.h"
#include "blocks.h"
#include "results_json.h"

/* splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed generator for block orders. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void pg_block_order(uint64_t seed, int block, size_t n_arms, int *order)
{
    uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(block + 1));
    for (size_t i = 0; i < n_arms; i++)
        order[i] = (int)i;
    for (size_t i = n_arms; i > 1; i--) { /* Fisher–Yates */
        size_t j = (size_t)(splitmix64(&s) % i);
        int t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

void pg_block_data_init(pg_block_data *data)
{
    memset(data, 0, sizeof *data);
    for (size_t i = 0; i < PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS; i++)
        data->gpu_ms[i] = data->sm_clock_mhz[i] = NAN;
    data->cupti_used = true;
    data->other_processes = -1;
}

/* Time one arm in one block: events (the statistic), CUPTI (while it works) and NVML. */
static pg_status time_arm(pg_device *dev, const pg_block_plan *p, int a, int b, double *times,
                          double *gpu, pg_block_data *data, pg_diag *d)
{
    pg_status st;
    bool cupti = p->cupti && data->cupti_used;
    if (p->watch && (st = pg_envwatch_begin(dev, d)) != PG_OK)
        return st;
    if (cupti) {
        st = pg_device_time_arm(dev, &p->arms[a], p->warmup, p->reps, !p->no_flush,
                                p->timeout_s, times, gpu, d);
        if (st == PG_ERR_INFRA && strncmp(d->message, "CUPTI", 5) == 0) {
            /* No profiling permission, another profiler attached...: keep events. */
            snprintf(data->cupti_error, sizeof data->cupti_error, "%s", d->message);
            data->cupti_used = false;
            cupti = false;
        }
    }
    if (!cupti)
        st = pg_device_time(dev, &p->arms[a], 1, p->warmup, p->reps, !p->no_flush, p->timeout_s,
                            times, d);
    pg_env_watch w;
    pg_diag wd;
    if (p->watch && pg_envwatch_end(dev, &w, &wd) == PG_OK && w.available) {
        size_t k = (size_t)a * PG_BLOCK_MAX_BLOCKS + (size_t)b;
        data->nvml_used = true;
        data->sm_clock_mhz[k] = w.samples > 0 ? w.sm_clock_mhz_median : NAN;
        data->hw_slowdown |= w.hw_slowdown;
        data->thermal |= w.thermal_slowdown;
        data->power_cap |= w.power_cap;
        if (w.other_compute_processes > data->other_processes)
            data->other_processes = w.other_compute_processes;
        if (w.energy_j > 0)
            data->energy_j += w.energy_j;
        data->watched_s += w.wall_s;
    }
    if (st == PG_OK && cupti)
        data->gpu_ms[(size_t)a * PG_BLOCK_MAX_BLOCKS + (size_t)b] = pg_median(gpu, (size_t)p->reps);
    data->launches += p->warmup + p->reps;
    return st;
}

/* A block is flagged when its arms' median SM clocks differ by more than 2 % (issue 4: the
 * arms did not run at the same speed) or NVML saw a hardware or thermal slowdown during it. */
static bool block_flagged(const pg_block_plan *p, int b, const pg_block_data *data,
                          bool slowdown)
{
    double lo = INFINITY, hi = 0;
    for (size_t a = 0; a < p->n_arms; a++) {
        double c = data->sm_clock_mhz[a * PG_BLOCK_MAX_BLOCKS + (size_t)b];
        if (isfinite(c)) {
            lo = fmin(lo, c);
            hi = fmax(hi, c);
        }
    }
    return slowdown || (hi > 0 && hi > lo * 1.02);
}

pg_status pg_blocks_run(pg_device *dev, const pg_block_plan *p, int first, int last,
                        double *block_ms, double *all_ms, pg_block_data *data, pg_diag *d)
{
    int order[PG_BLOCK_MAX_ARMS];
    double *times = malloc((size_t)p->reps * sizeof *times);
    double *gpu = malloc((size_t)p->reps * sizeof *gpu);
    if (!times || !gpu) {
        free(times);
        free(gpu);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    pg_status st = PG_OK;
    for (int b = first; b < last && st == PG_OK; b++) {
        bool hw_before = data->hw_slowdown || data->thermal;
        pg_block_order(p->seed, b, p->n_arms, order);
        for (size_t i = 0; i < p->n_arms && st == PG_OK; i++) {
            int a = order[i];
            st = time_arm(dev, p, a, b, times, gpu, data, d);
            if (st != PG_OK)
                break;
            block_ms[(size_t)a * PG_BLOCK_MAX_BLOCKS + (size_t)b] = pg_median(times, (size_t)p->reps);
            if (all_ms)
                memcpy(all_ms + ((size_t)a * PG_BLOCK_MAX_BLOCKS + (size_t)b) * (size_t)p->reps,
                       times, (size_t)p->reps * sizeof *times);
        }
        bool slowdown = !hw_before && (data->hw_slowdown || data->thermal);
        if (st == PG_OK && p->watch && block_flagged(p, b, data, slowdown)) {
            data->flagged++;
            if (data->reruns < p->max_reruns) {
                data->reruns++;
                b--; /* measure this block again, same arm order */
            }
        }
    }
    free(times);
    free(gpu);
    return st;
}

pg_status pg_heat_soak(pg_device *dev, const pg_arm *arms, size_t n_arms, double timeout_s,
                       double since_warm_s, pg_soak_result *out, pg_diag *d)
{
    /* Run all arms back to back for >= 2 s and until three consecutive 100 ms windows agree
     * within 0.5 % (cap 10 s): the first ~50 launches on the H200 ran up to 17 % faster than
     * steady state under the 700 W cap (measured on the H200 test machine). A GPU that was
     * timing moments ago is past that burst: 0.5 s, and the same agreement. */
    bool warm = since_warm_s >= 0 && since_warm_s <= PG_SOAK_WARM_S;
    /* Warm, the cap is 3 s: a slow drift between workloads (a heavier kernel heating the GPU
     * further) moves both arms of a block alike, and the blocks pair them. */
    const double min_s = warm ? 0.5 : 2.0, window_s = 0.1, agree = 0.005, cap_s = warm ? 3.0 : 10.0;
    double t0 = pg_now_s(), recent[3] = {0, 0, 0};
    int windows = 0;
    double round_ms[PG_BLOCK_MAX_ARMS];
    memset(out, 0, sizeof *out);
    out->warm_start = warm;
    out->min_s = min_s;
    for (;;) {
        double w0 = pg_now_s(), sum = 0;
        int rounds = 0;
        while (pg_now_s() - w0 < window_s) {
            pg_status st = pg_device_time(dev, arms, n_arms, 0, 1, false, timeout_s, round_ms, d);
            if (st != PG_OK)
                return st;
            for (size_t a = 0; a < n_arms; a++)
                sum += round_ms[a];
            rounds++;
        }
        recent[windows % 3] = sum / rounds;
        windows++;
        double elapsed = pg_now_s() - t0;
        bool steady = false;
        if (windows >= 3) {
            double lo = fmin(recent[0], fmin(recent[1], recent[2]));
            double hi = fmax(recent[0], fmax(recent[1], recent[2]));
            steady = hi <= lo * (1.0 + agree);
        }
        if ((elapsed >= min_s && steady) || elapsed >= cap_s) {
            out->seconds = elapsed;
            out->windows = windows;
            out->steady = steady;
            out->last_window_round_ms = recent[(windows - 1) % 3];
            return PG_OK;
        }
    }
}
