/* The typed state of a submission's results while the run builds them (wl_state.c), private
 * to gate/pipeline: the submission's stage ledger and per selected workload its name, stage
 * ledger, PTXBench status and performance outcome, each next to the write-only JSON record the
 * results hold. Whatever the pipeline decides on later is read here, never from the JSON. */
#ifndef PG_PIPELINE_WL_STATE_H
#define PG_PIPELINE_WL_STATE_H

#include <jansson.h>
#include <stdbool.h>

#include "ledger.h"
#include "model/manifest.h"

/* Comparisons a performance stage records (candidate_vs_<library>, aa_canary,
 * candidate_vs_accepted). */
#define PG_PERF_MAX_COMPARISONS 4

/* One of the stage's details.comparisons: its name and its record (write-only, borrowed from
 * the stage's record), for the run's Holm step. */
typedef struct {
    char name[64];
    json_t *record;
} pg_perf_cmp;

/* What the performance stage of a workload decided that later steps use. */
typedef struct {
    pg_perf_cmp cmps[PG_PERF_MAX_COMPARISONS]; /* in the order of details.comparisons */
    int n_cmps;
    bool have_baseline;     /* the vendor baseline was timed with finite numbers: */
    double baseline_ms[3];  /* its median, ci_low and ci_high (details.baseline) */
    char mode[16];          /* details.mode ("cold", "sustained"); "" when not written */
    bool vendor_refused;    /* the library refused the configuration (NOT_SUPPORTED,
                               baseline.optional): nothing of it was timed or searched */
} pg_perf_state;

/* One selected workload of a submission. */
typedef struct {
    int task_index;         /* into task->workloads */
    const char *name;       /* the workload's name (borrowed from the task) */
    json_t *json;           /* write-only: its results record (one reference owned) */
    pg_ledger stages;       /* writing into the record's "stages" */
    char ptxbench[32];      /* the PTXBench status written ("SKIPPED", "TIMEOUT", ...) */
    pg_perf_state perf;
    json_t *clusters;       /* write-only: its "max_active_clusters" array (borrowed from
                               json); NULL until the first launch's value is recorded */
    bool clusters_of[2 * PG_MAX_LAUNCHES]; /* launches whose value is in clusters */
} pg_wl_state;

/* Start w for task workload task_index named name (borrowed) with record json and its
 * "stages" array (references taken of both; the status as the record spells it). Releases
 * what w held. */
void pg_wl_state_init(pg_wl_state *w, int task_index, const char *name, json_t *json,
                      json_t *stages, const char *ptxbench);
void pg_wl_state_release(pg_wl_state *w);
/* Write the PTXBench status into the state and the record. */
void pg_wl_set_ptxbench(pg_wl_state *w, const char *status);
/* The verify stage runs when the candidate's timed launches completed: the last stage is the
 * performance stage and it passed, or failed on its numbers (not "kernel failed ..."). */
bool pg_wl_timing_completed(const pg_wl_state *w);

#endif
