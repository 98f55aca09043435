/* The settings of two results files that can explain a changed outcome in `ptxgate compare`
 * (docs/compare.md "Settings that differ"): the run's settings (sets, seed, timing, min_speedup
 * and mode overrides, accepted kernel override), its stored-baseline settings, its environment
 * (GPU, driver, CUDA, ptxas, cuBLASLt, cuDNN, ptxgate version), and per pair of workloads the
 * arch, the instructions policy, min_speedup and the timing mode each ran with. Each difference
 * names the stages it can change. Pure: reads jansson values, never prints. */
#ifndef PG_REPORT_COMPARE_SETTINGS_H
#define PG_REPORT_COMPARE_SETTINGS_H

#include <jansson.h>
#include <stdbool.h>

/* The run-level differences of two results roots (borrowed) as a new array of
 * {"setting": name, "old": value, "new": value, "scope": "run", "stages": [stage names]};
 * values are copied as they are in the files (null when absent). old_env and new_env are
 * compare's side records (compare.c env_json: "gpu", "driver_version", ...). NULL on
 * out-of-memory. */
json_t *pg_compare_run_settings(const json_t *old_root, const json_t *new_root,
                                const json_t *old_env, const json_t *new_env);

/* The settings one pair ran with that differ: old_sub/new_sub are the submissions' objects,
 * old_wl/new_wl the workloads' (borrowed, from the results files). A new array of
 * {"setting", "old", "new", "stages"} (arch; instructions policy; min_speedup; mode), possibly
 * empty; NULL on out-of-memory. */
json_t *pg_compare_pair_settings(const json_t *old_sub, const json_t *old_wl,
                                 const json_t *new_sub, const json_t *new_wl);

/* Whether difference entry e (of either function) can change stage's outcome. */
bool pg_compare_setting_affects(const json_t *e, const char *stage);

/* Fold the pairs' differences into the run list: one entry per setting name with scope
 * "pairs", "pairs" = how many pairs differ in it and the first pair's old and new values.
 * run_list gains the entries; pair_diffs is borrowed. Returns false on out-of-memory. */
bool pg_compare_settings_add_pair(json_t *run_list, const json_t *pair_diffs);

#endif
