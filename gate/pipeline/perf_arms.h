/* The timed arms of the performance stage (perf_arms.c), private to gate/pipeline. */
#ifndef PG_PIPELINE_PERF_ARMS_H
#define PG_PIPELINE_PERF_ARMS_H

#include "stage.h"
#include "vendor_arm.h"

/* Arm indices: the candidate, cuBLASLt, the cuBLASLt A/A canary, and the accepted kernel. */
enum { PG_ARM_CAND, PG_ARM_BASE, PG_ARM_CANARY, PG_ARM_ACCEPTED, PG_PERF_MAX_ARMS };
/* Most rotated copies in sustained mode (small workloads would otherwise need hundreds). */
#define PG_PERF_MAX_COPIES 64

typedef struct {
    pg_wctx *c;                       /* the candidate's workload (borrowed), copy 0 */
    bool sustained;
    bool has_accepted;
    int n_arms;                       /* 3, or 4 with the accepted kernel as its own arm */
    pg_arm arms[PG_PERF_MAX_ARMS];
    int launches[PG_PERF_MAX_ARMS];   /* work launches per arm launch: 1 (cold) or the graph's k */
    int copies;                       /* rotated copies (1 in cold mode) */
    pg_wctx cand[PG_PERF_MAX_COPIES]; /* copies 1.. of the candidate's buffers */
    int n_cand;
    pg_wctx acc[PG_PERF_MAX_COPIES];  /* the accepted kernel per copy, inputs borrowed */
    int n_acc;
    pg_vendor *baseline;            /* cuBLASLt or cuDNN on copy 0 (vendor_arm.c); NULL
                                       when reference_is_accepted */
    /* The library refused the configuration (NOT_SUPPORTED), the task's baseline is optional
     * and the accepted kernel is timed: the accepted kernel is then the baseline arm (and the
     * canary), there is no PG_ARM_ACCEPTED arm, and vendor_refusal says why (issue 17). */
    bool reference_is_accepted;
    char vendor_refusal[sizeof(((pg_diag *)0)->message)];
    pg_buffer *base_out[PG_PERF_MAX_COPIES]; /* GEMM baseline outputs of copies 1.. */
    pg_sgraph *graph[PG_PERF_MAX_ARMS];
} pg_perf_arms;

/* Rotated copies for sustained mode: ceil(3 × L2 / bytes of one set of tensors), from 1 to
 * PG_PERF_MAX_COPIES; 1 when either size is unknown (0). Sizes in bytes. */
int pg_perf_rotation_copies(size_t set_bytes, long long l2_bytes);

/* Build the arms for workload c (its kernels loaded, its inputs filled): the vendor baseline
 * prepared on c's inputs (cuBLASLt or cuDNN), the accepted kernel's workloads when with_accepted
 * (c->s->accepted.kernel loaded), and in sustained mode the rotated copies and one graph per arm
 * (>= 20 ms each). cuBLASLt rotates over the copies like the kernels; cuDNN binds its buffers
 * in its plan's variant pack, so its graph repeats on copy 0 (the attention workloads' tensors
 * are far larger than L2). p is
 * caller-owned; release it with pg_perf_arms_release on every path (also after an error).
 * Errors: the device's (allocation, cuBLASLt, graph capture), PG_FAIL_KERNEL when a kernel
 * faults while the graphs are sized. */
pg_status pg_perf_arms_setup(pg_perf_arms *p, pg_wctx *c, bool sustained, bool with_accepted,
                             double timeout_s, pg_diag *d);
void pg_perf_arms_release(pg_perf_arms *p);

/* Energy of one arm's work, measured back to back (a graph of >= 50 ms in cold mode, the arm's
 * own graph in sustained mode) for at least min_s seconds inside one NVML watch. */
typedef struct {
    bool measured;              /* NVML's energy counter moved during the window */
    long long launches;         /* work launches in the window */
    double energy_j, wall_s;    /* J over the window, s */
    double energy_per_launch_j; /* energy_j / launches */
    double power_w;             /* energy_j / wall_s */
    double busy_ms;             /* graph time inside the window (events), ms */
    double sm_clock_mhz;        /* NVML median over the window */
} pg_arm_energy;
pg_status pg_perf_arm_energy(pg_perf_arms *p, int arm, double min_s, double timeout_s,
                             pg_arm_energy *out, pg_diag *d);

#endif
