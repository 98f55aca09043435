/* The performance stage's decision, apart from its measurement (as NVBench keeps measurement
 * apart from its summaries): the comparisons' configurations, the group-sequential stop rule the
 * measurement asks at each look, and the stage's verdict and message from what was measured.
 * Pure functions over plain structs: no device, no JSON, no output. The pipeline measures
 * (gate/pipeline/perf_measure.h) and records (gate/pipeline/stage_performance.c).
 *
 * The three comparisons (issue 4 design; docs/performance.md, docs/statistics.md), each on
 * per-block log ratios d_b = ln(T_num,b / T_den,b) through comparison.h:
 *   - main: the candidate against the vendor baseline (cuBLASLt or cuDNN), FAIL threshold
 *     λ = ln(1/min_speedup);
 *   - canary: the baseline against itself (A/A), λ = ln(1+δ); when it rejects the machine, not the
 *     kernel, is at fault and the stage is an infrastructure error;
 *   - regression: the candidate against the task's accepted kernel, λ = ln(1+δ_regression); a
 *     SASS-identical candidate needs no timing (the pipeline decides that before timing).
 * Without a vendor arm (the library refused the configuration, NOT_SUPPORTED, and the task's
 * baseline is optional: issue 17) the accepted kernel takes the baseline's place: main is then
 * the regression comparison (candidate against the accepted kernel, λ = ln(1+δ_regression)),
 * the canary is the accepted kernel against itself, and there is no third comparison. */
#ifndef PG_STATS_PERF_VERDICT_H
#define PG_STATS_PERF_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "stats/comparison.h"
#include "stats/order_stats.h"

/* What the decision reads of the run's options and the task (the pipeline fills it once). */
typedef struct {
    double min_speedup;          /* required speedup over the vendor library (> 0): the task's,
                                    or --min-speedup */
    double regression_tolerance; /* δ_regression as a fraction; <= 0: the default of
                                    pg_cmp_default_delta for the accepted kernel's probe time */
    double confidence;           /* of every reported interval (--confidence), in (0, 1) */
    uint64_t seed;               /* the run's --seed */
    int workload;                /* the task's workload index, mixed into the comparisons' seed */
    int n_comparisons;           /* the run's performance comparisons (Holm's m); < 1 counts 1 */
    double run_alpha;            /* the run's false-FAIL level, for the comparisons and,
                                    separately, the canaries (0.01) */
    bool reference_is_accepted;  /* no vendor arm: the baseline arm is the accepted kernel and
                                    main is judged as the regression comparison (see above) */
} pg_perf_settings;

/* The comparisons' configurations (comparison.h) and their tolerances (fractions). */
typedef struct {
    pg_cmp_config main, canary, regression;
    double delta, delta_regression;
} pg_perf_configs;

/* Configure the three comparisons from the settings and the probe (one launch per arm, ms per
 * work launch; NaN when the probe did not run):
 *   δ = pg_cmp_default_delta(probe_baseline_ms), 0.05 when that is not finite;
 *   main: pg_cmp_config_min_speedup(min_speedup, δ), alpha = run_alpha / m (Holm's first step:
 *     the pipeline applies the rest over the run, pg_cmp_holm_finalize);
 *   canary: pg_cmp_config_default(δ), alpha = run_alpha / (2 m): its own family, both
 *     directions (pg_cmp_canary_rejects);
 *   regression: pg_cmp_config_default(δ_regression), alpha as main; δ_regression the task's
 *     tolerance when > 0, else pg_cmp_default_delta(probe_accepted_ms), 0.05 when not finite;
 *   reference_is_accepted: the baseline arm is the accepted kernel, so probe_accepted_ms is
 *     read from probe_baseline_ms and main = the regression configuration (alpha as main);
 *   all three: confidence from the settings and seed = seed ^ (0x9E3779B97F4A7C15 ·
 *     (workload + 1)) (the golden-ratio constant of splitmix64: workloads get distinct seeds). */
void pg_perf_configure(const pg_perf_settings *s, double probe_baseline_ms,
                       double probe_accepted_ms, pg_perf_configs *k);

/* The comparisons at one look. regression is all zero when the accepted kernel is not timed. */
typedef struct {
    pg_cmp_result main, canary, regression;
} pg_perf_comparisons;

/* Evaluate look `look` (0-based) on the first n blocks of each comparison's per-block log
 * ratios (d_main: candidate/baseline, d_canary: canary/baseline, d_regression:
 * candidate/accepted, or NULL when the accepted kernel is not timed; n entries each, in
 * measurement order) into *out (regression left as it is when d_regression is NULL). Returns
 * true when the measurement may stop: main and regression decisive (pg_cmp_decisive) and the
 * canary not rejecting; the canary only needs to not FAIL. */
bool pg_perf_look(const pg_perf_configs *k, const double *d_main, const double *d_canary,
                  const double *d_regression, size_t n, int look, pg_perf_comparisons *out);

/* What the measurement gave the decision (borrowed pointers, valid during pg_perf_decide). */
typedef struct {
    /* How the device part ended. */
    bool completed;           /* every device step returned PG_OK; then the fields below hold */
    bool kernel_failed;       /* a kernel faulted or timed out (the device's PG_FAIL_KERNEL) */
    const pg_diag *failure;   /* what failed, when !completed */
    /* What was timed. */
    const char *mode;         /* "cold" or "sustained" */
    const char *vendor_label; /* "cuBLASLt" or "cuDNN" */
    int blocks;               /* blocks measured up to the stopping look */
    /* Every timed launch of blocks 0..blocks-1 in measurement order, ms per work launch,
     * n_samples each; accepted_ms NULL when the accepted kernel was not timed. */
    const double *candidate_ms, *baseline_ms, *accepted_ms;
    size_t n_samples;
    const double *d_main;     /* per-block ln(T_cand / T_base), blocks entries */
    pg_perf_comparisons cmp;  /* the comparisons at the stopping look */
    int other_processes;      /* most other compute processes seen while timing; -1 unknown */
    /* The workload's work and the run's measured peaks (NaN: not measured). */
    double flop;              /* FLOP of one work launch */
    double bytes;             /* bytes of all the workload's tensors */
    double peak_tflops;       /* dense matrix rate, TFLOP/s */
    double peak_write_gbps;   /* write bandwidth, GB/s (10^9 bytes/s) */
    /* The task's accepted kernel. */
    bool has_accepted;        /* the task names one (and it was not turned off) */
    bool accepted_timed;      /* timed as an arm: usable and not SASS-identical */
    bool accepted_identical;  /* SASS-identical to the candidate: PASS without timing */
    const char *accepted_identical_text; /* the phrase for that (static), when identical */
    const char *accepted_note;           /* why it was not compared, when neither */
} pg_perf_measurement;

/* The stage's outcome, in the order the rules are tried. */
typedef enum {
    PG_PERF_KERNEL_FAILED,   /* fail: a kernel failed while timed */
    PG_PERF_DEVICE_ERROR,    /* error: a device step failed (infrastructure) */
    PG_PERF_IMPLAUSIBLE,     /* fail: the candidate beat the speed-of-light floor */
    PG_PERF_OTHER_PROCESSES, /* error: other compute processes shared the GPU while timing */
    PG_PERF_CANARY_REJECTED, /* error: the A/A canary showed a difference: too noisy to judge */
    PG_PERF_FAIL,            /* fail: slower than required, or than the accepted kernel */
    PG_PERF_INCONCLUSIVE,    /* pass, with a warning: the main comparison did not decide */
    PG_PERF_FAST,            /* pass: shown faster than the vendor library itself */
    PG_PERF_PASS             /* pass */
} pg_perf_outcome;

/* Speed-of-light slack (issue 4 item 8): a candidate is implausible below (1 − slack) × the
 * floor; 20 % covers a peak measured under other clocks and the memset being a write-only
 * bandwidth. */
#define PG_PERF_SOL_SLACK 0.2

typedef struct {
    pg_perf_outcome outcome;
    const char *status;   /* the stage's status: "pass", "fail" or "error" (static) */
    char message[4096];   /* the stage's message (cut at a whole UTF-8 character) */
    /* The rest only when the measurement completed (zero otherwise). */
    pg_sample_summary candidate, baseline, accepted; /* median intervals at the confidence;
                                                        accepted zero when not timed */
    double speedup, speedup_ci_low, speedup_ci_high; /* 1 / the main ratio and its interval */
    double peak_tflops;   /* the run's peak raised to the baseline's fastest launch when that is
                             faster (the library bounds the reachable rate from below) */
    double floor_ms;      /* speed-of-light floor: max(flop / peak, bytes / write bandwidth), ms;
                             NaN when neither peak is known */
    bool implausible;     /* candidate median < (1 − PG_PERF_SOL_SLACK) × floor_ms */
    double faster_p;      /* sign-flip p-value of "candidate faster than the baseline" */
    pg_cmp_verdict main_shown;     /* the main verdict as reported: FAST shows as PASS (beating
                                      the requirement; FAST is kept for beating the library) */
    bool main_fail, regression_fail;
    bool record_main, record_regression; /* comparisons that go to the run's Holm step */
} pg_perf_verdict;

/* The verdict of one workload's performance stage, tried in order: a failed device part
 * (kernel failure: fail; else error), an implausible candidate (fail), other compute processes
 * (error), a rejecting canary (error), a FAIL of the main or the regression comparison (fail),
 * an INCONCLUSIVE main comparison (pass with a warning), then FAST when faster_p <= the main
 * alpha, else PASS. An INCONCLUSIVE regression comparison is a warning in the message. The
 * message names the numbers behind the verdict (docs/performance.md). k from pg_perf_configure
 * with the same settings. */
void pg_perf_decide(const pg_perf_settings *s, const pg_perf_configs *k,
                    const pg_perf_measurement *m, pg_perf_verdict *v);

#endif
