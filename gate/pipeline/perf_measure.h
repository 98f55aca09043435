/* The performance stage's measurement (perf_measure.c), private to gate/pipeline: the arms built,
 * one probe launch each, the heat soak, the timed blocks up to the look where the stop rule of
 * gate/stats/perf_verdict.h says stop, the device's peaks and the energy per arm. No verdict:
 * pg_perf_decide turns the result into one, stage_performance.c records both. */
#ifndef PG_PIPELINE_PERF_MEASURE_H
#define PG_PIPELINE_PERF_MEASURE_H

#include "blocks.h"
#include "stage.h"
#include "perf_arms.h"
#include "stats/perf_verdict.h"

/* What the stage reads of the run's options and the task, read once (stage_performance.c). */
typedef struct {
    const char *mode;         /* "cold" or "sustained": --timing-mode, else the task's, else cold */
    bool sustained;
    bool with_accepted;       /* the accepted kernel is timed: named, usable, not SASS-identical */
    double timeout_s;         /* per device step: 5 × --timeout, s */
    int max_warmup, max_reps; /* --warmup, --repetitions (most timed launches per arm and block) */
    bool energy;              /* measure energy per arm (--no-energy turns it off) */
    pg_perf_settings decide;  /* what the decision reads */
} pg_perf_stage_settings;

/* Seconds of back-to-back launches per arm for its energy: NVML's counter moves in steps of
 * about 10 ms, so 0.5 s bounds the quantisation error to about 2 % (docs/performance.md). */
#define PG_ENERGY_WINDOW_S 0.5

/* Everything the measurement produced. Times in ms per work launch (sustained graphs divided
 * by their launches). Block arrays are indexed [a * PG_BLOCK_MAX_BLOCKS + b], every timed launch
 * [(a * PG_BLOCK_MAX_BLOCKS + b) * reps + r] (pg_blocks_run). */
typedef struct {
    pg_perf_arms *arms;        /* owned; NULL when it could not be allocated */
    pg_status status;          /* PG_OK when every device step succeeded */
    pg_diag diag;              /* the failure otherwise */
    const char *vendor_label;  /* "cuBLASLt" or "cuDNN" (pg_vendor_label), or "the accepted
                                  kernel" when it is the baseline arm */
    int n_arms;                /* 3, or 4 with the accepted kernel as its own arm; 0 without
                                  arms */
    double probe_ms[PG_PERF_MAX_ARMS]; /* one launch each; NaN when not run */
    int warmup, reps;          /* per arm and block, from the probe */
    pg_soak_result soak;
    pg_perf_configs k;         /* pg_perf_configure on the probe */
    int blocks;                /* blocks measured up to the stopping look */
    double *block_ms, *all_ms; /* owned */
    double *d_main, *d_canary, *d_reg; /* per-block log ratios of the comparisons, owned */
    pg_block_data data;        /* CUPTI and NVML facts of the blocks */
    pg_perf_comparisons cmp;   /* at the stopping look */
    double decision_s;         /* from the stage's start to the end of the blocks */
    /* Energy per arm except the canary (measured after the blocks, when they completed):
     * the numbers, and when not measured why (--no-energy, the error, or no counter). */
    pg_arm_energy energy[PG_PERF_MAX_ARMS];
    char energy_why[PG_PERF_MAX_ARMS][sizeof(((pg_diag *)0)->message)];
    double energy_s;           /* wall time of the energy measurement */
    pg_perf_measurement view;  /* what pg_perf_decide reads: pointers into this record */
} pg_perf_measured;

/* Measure workload c (its kernels loaded, its timing inputs filled) as s says into *m
 * (caller-allocated, zeroed or not; release with pg_perf_measured_release on every path). t0 is
 * the stage's start (pg_now_s). The device steps, in order: the arms (pg_perf_arms_setup), one
 * probe launch per arm, the heat soak, blocks at the looks of k.main until pg_perf_look says
 * stop; when all succeeded, the run's peaks (once per run) and the energy of each distinct arm.
 * Adds the phases ARMS, PROBE, SOAK, BLOCKS and PEAKS to c and sets run->gpu_warm_t after
 * successful blocks. A failure leaves m->status and m->diag set (PG_FAIL_KERNEL when a kernel
 * faulted); m->view always holds what the decision needs, with the accepted kernel's facts from
 * c->s and the peaks as run holds them. When the vendor library refused the configuration and
 * the accepted kernel became the baseline arm (pg_perf_arms.reference_is_accepted), it turns
 * s->with_accepted off and s->decide.reference_is_accepted on, for the decision and the record
 * that follow. */
void pg_perf_measure(pg_wctx *c, pg_perf_stage_settings *s, double t0, pg_perf_measured *m);
/* Release the arms (pg_perf_arms_release) and free the arrays of m, then zero it (m->view is no
 * longer valid). A zeroed record is left as it is. */
void pg_perf_measured_release(pg_perf_measured *m);

#endif
