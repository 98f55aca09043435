/* ptxgate_bench: measures the performance verdict's own error rates on a GPU.
 *
 * (a) A/A: cuBLASLt bf16 GEMM against itself through the gate's block protocol and sign-flip
 *     comparisons, grouped in runs of C comparisons with the run-level Holm step; a run with any
 *     FAIL is a false alarm. Reported: false-FAIL rate per run and per comparison with
 *     Clopper–Pearson 95 % intervals.
 * (b) Power: the same GEMM followed by a calibrated delay (a one-warp kernel that waits on the
 *     GPU's global timer) so that the candidate is x % slower (x = 3 and 2), against the plain
 *     GEMM, tolerance δ = 1 %: the fraction of comparisons that FAIL.
 * (c) Agreement: the gate's block-median time of the GEMM against an independent plain events
 *     loop (same flush), alternating block by block, and the GPU wall time one comparison takes.
 * The method is printed at the top of the output; numbers are what this run measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gemm_blas.h"
#include "pipeline/blocks.h"       /* the gate's block protocol and heat soak */
#include "pipeline/results_json.h" /* pg_now_s */
#include "stats/binom.h"
#include "stats/comparison.h"
#include "stats/order_stats.h"

typedef struct {
    pg_blaslt_gemm *gemm;
    pg_device *dev;
    uint64_t spin_ns;
} gemm_arm;

static pg_status enqueue_gemm(void *ctx, pg_diag *d)
{
    gemm_arm *g = ctx;
    return pg_blaslt_gemm_enqueue(g->gemm, d);
}

static pg_status enqueue_gemm_spin(void *ctx, pg_diag *d)
{
    gemm_arm *g = ctx;
    pg_status st = pg_blaslt_gemm_enqueue(g->gemm, d);
    return st == PG_OK ? pg_device_spin(g->dev, g->spin_ns, d) : st;
}

static void die(const pg_diag *d)
{
    char buf[4096];
    fprintf(stderr, "ptxgate_bench: %s\n", pg_diag_format(d, buf, sizeof buf));
    exit(3);
}

/* One comparison of arms[0] (candidate) against arms[1] (baseline) through the gate's looks. */
static pg_cmp_result compare(pg_device *dev, const pg_arm *arms, const pg_cmp_config *cfg,
                             int warmup, int reps, uint64_t seed, double *wall_s)
{
    static double block_ms[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS];
    double dlog[PG_BLOCK_MAX_BLOCKS];
    pg_block_plan bp = {.arms = arms, .n_arms = 2, .warmup = warmup, .reps = reps, .seed = seed,
                        .timeout_s = 60, .cupti = true, .watch = true, .max_reruns = 7};
    static pg_block_data data;
    pg_block_data_init(&data);
    pg_cmp_result r;
    memset(&r, 0, sizeof r);
    pg_diag d;
    double t0 = pg_now_s();
    int done = 0;
    for (int look = 0; look < cfg->n_looks; look++) {
        if (pg_blocks_run(dev, &bp, done, cfg->looks[look], block_ms, NULL, &data, &d) != PG_OK)
            die(&d);
        done = cfg->looks[look];
        for (int b = 0; b < done; b++)
            dlog[b] = log(block_ms[b] / block_ms[PG_BLOCK_MAX_BLOCKS + b]);
        r = pg_cmp_evaluate(dlog, (size_t)done, cfg, look);
        if (pg_cmp_decisive(&r))
            break;
    }
    *wall_s = pg_now_s() - t0;
    return r;
}

/* Ratio of medians slow/plain from rounds that alternate the two arms (pg_device_time swaps
 * their order every round), so drift between calls cannot masquerade as a slowdown. */
static double interleaved_ratio(pg_device *dev, const pg_arm *slow, const pg_arm *plain, int reps,
                                double *plain_ms)
{
    pg_arm pair[2] = {*slow, *plain};
    double *t = malloc(2 * (size_t)reps * sizeof *t);
    pg_diag d;
    if (pg_device_time(dev, pair, 2, 5, reps, true, 120, t, &d) != PG_OK)
        die(&d);
    double s = pg_median(t, (size_t)reps), p = pg_median(t + reps, (size_t)reps);
    free(t);
    if (plain_ms)
        *plain_ms = p;
    return s / p;
}

static void print_rate(const char *what, size_t k, size_t n)
{
    double lo, hi;
    pg_binom_ci(k, n, 0.95, &lo, &hi);
    printf("%-44s %4zu / %-4zu = %6.2f %%   95%% CI [%.2f %%, %.2f %%]\n", what, k, n,
           100.0 * (double)k / (double)n, 100 * lo, 100 * hi);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                     atoi(argv[1]) < 1 || (argc > 2 && atoi(argv[2]) < 1) ||
                     (argc > 3 && atoi(argv[3]) < 0) || argc > 4)) {
        printf("usage: %s [RUNS [PER_RUN [POWER_N]]]\n"
               "  RUNS     A/A runs of PER_RUN comparisons each (default 20)\n"
               "  PER_RUN  comparisons per run (default 10)\n"
               "  POWER_N  comparisons with an injected slowdown per size (default 50)\n"
               "The method is printed at the top of a run (docs/performance.md).\n",
               argv[0]);
        return strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ? 0 : 2;
    }
    int runs = argc > 1 ? atoi(argv[1]) : 20, per_run = argc > 2 ? atoi(argv[2]) : 10;
    int power_n = argc > 3 ? atoi(argv[3]) : 50;
    int64_t M = 4096, N = 4096, K = 4096;
    pg_device *dev;
    pg_diag d;
    if (pg_device_open(0, &dev, &d) != PG_OK) {
        printf("SKIP: %s\n", d.message);
        return 77;
    }
    size_t ab = (size_t)M * K * 2, cb = (size_t)M * N * 2;
    pg_buffer *A, *B, *C;
    if (pg_buffer_alloc(dev, ab, &A, &d) || pg_buffer_alloc(dev, ab, &B, &d) ||
        pg_buffer_alloc(dev, cb, &C, &d) ||
        pg_buffer_fill_normal(A, PG_DTYPE_BF16, (size_t)M * K, 1, &d) ||
        pg_buffer_fill_normal(B, PG_DTYPE_BF16, (size_t)N * K, 2, &d))
        die(&d);
    pg_blaslt_gemm *gemm;
    pg_blaslt_choice choice;
    pg_gemm_problem p;
    pg_gemm_problem_nt(&p, PG_DTYPE_BF16, PG_DTYPE_BF16, M, N, K);
    if (pg_blaslt_gemm_prepare(dev, &p, A, B, NULL, C, 8, &gemm, &choice, &d))
        die(&d);
    gemm_arm plain = {gemm, dev, 0}, slow = {gemm, dev, 0};
    pg_arm a_plain = {.enqueue = enqueue_gemm, .ctx = &plain},
           a_slow = {.enqueue = enqueue_gemm_spin, .ctx = &slow};

    printf("ptxgate_bench on %s: cuBLASLt bf16 %lldx%lldx%lld (%s)\n",
           pg_device_get_info(dev)->name, (long long)M, (long long)N, (long long)K,
           choice.algorithm);
    printf("method: heat soak, then per comparison randomized interleaved blocks (2 warm-up +\n"
           "  10 timed launches per arm and block, L2 flushed before each timed launch, block\n"
           "  statistic = median), one-sided sign-flip tests on per-block log ratios at looks\n"
           "  16/32/64 (alpha split equally over looks), delta = 1 %%, run alpha 0.01 with\n"
           "  Holm over the %d comparisons of a run. A/A = the GEMM against itself. Power = the\n"
           "  GEMM plus a calibrated global-timer delay against the plain GEMM.\n", per_run);

    pg_soak_result soak;
    pg_arm both[2] = {a_plain, a_plain};
    if (pg_heat_soak(dev, both, 2, 120, INFINITY, &soak, &d) != PG_OK)
        die(&d);
    printf("heat soak: %.1f s, %d windows, steady %s\n", soak.seconds, soak.windows,
           soak.steady ? "yes" : "no");

    /* (c) agreement with an independent events loop: the two measurements alternate block by
     * block (one gate block, then 20 plain event-timed launches with the same flush), so both
     * see the same thermal and clock state; a first version that ran 200 plain launches before
     * 16 gate blocks disagreed by 3 % on its first pair after the soak (clock drift). */
    pg_cmp_config cfg;
    pg_cmp_config_default(&cfg, 0.01);
    cfg.alpha = pg_cmp_comparison_alpha(0.01, (size_t)per_run);
    double wall;
    enum { AGREE_BLOCKS = 16, AGREE_PLAIN = 20 };
    for (int rep = 0; rep < 3; rep++) {
        static double block_ms[PG_BLOCK_MAX_ARMS * PG_BLOCK_MAX_BLOCKS];
        double plain_ms[AGREE_BLOCKS * AGREE_PLAIN];
        pg_block_plan bp = {.arms = both, .n_arms = 2, .warmup = 2, .reps = 10,
                            .seed = 99 + (uint64_t)rep, .timeout_s = 60, .cupti = true,
                            .watch = true, .max_reruns = 7};
        static pg_block_data data;
        pg_block_data_init(&data);
        for (int b = 0; b < AGREE_BLOCKS; b++) {
            if (pg_blocks_run(dev, &bp, b, b + 1, block_ms, NULL, &data, &d) != PG_OK ||
                pg_device_time(dev, &a_plain, 1, 2, AGREE_PLAIN, true, 120,
                               plain_ms + b * AGREE_PLAIN, &d) != PG_OK)
                die(&d);
        }
        double gate = pg_median(block_ms, AGREE_BLOCKS), cupti = pg_median(data.gpu_ms, AGREE_BLOCKS);
        double ind = pg_median(plain_ms, AGREE_BLOCKS * AGREE_PLAIN);
        printf("agreement %d: gate block-median %.4f ms, independent events loop %.4f ms: "
               "%+.2f %%; CUPTI GPU time %.4f ms%s; flagged blocks %d\n",
               rep + 1, gate, ind, 100.0 * (gate / ind - 1.0), cupti,
               data.cupti_used ? "" : " (CUPTI off)", data.flagged);
    }

    /* calibrate the delay: the spin kernel's launch adds its own overhead, measured
     * interleaved; one correction step towards the target ratio. */
    slow.spin_ns = 0;
    double t0;
    double overhead_ratio = interleaved_ratio(dev, &a_slow, &a_plain, 200, &t0);
    double overhead_ms = (overhead_ratio - 1.0) * t0;
    printf("GEMM %.4f ms; an empty delay kernel after it adds %.2f %% (%.1f us)\n", t0,
           100 * (overhead_ratio - 1.0), 1e3 * overhead_ms);

    /* (a) A/A */
    size_t false_runs = 0, false_cmp = 0, total = 0;
    double wall_sum = 0, wall_max = 0;
    pg_cmp_result *res = calloc((size_t)per_run, sizeof *res);
    for (int r = 0; r < runs; r++) {
        for (int c = 0; c < per_run; c++) {
            res[c] = compare(dev, both, &cfg, 2, 10, 1000u * (uint64_t)r + (uint64_t)c, &wall);
            wall_sum += wall;
            wall_max = fmax(wall_max, wall);
            total++;
        }
        size_t fails = pg_cmp_holm_finalize(res, (size_t)per_run, 0.01);
        false_cmp += fails;
        false_runs += fails > 0;
    }
    print_rate("A/A runs with a false FAIL (per-run rate)", false_runs, (size_t)runs);
    print_rate("A/A comparisons that FAILed", false_cmp, total);
    printf("GPU wall time per comparison: mean %.3f s, max %.3f s\n", wall_sum / (double)total,
           wall_max);

    /* (b) power at injected slowdowns */
    const double injected[2] = {0.03, 0.02};
    for (int i = 0; i < 2; i++) {
        double want = t0 * injected[i] - overhead_ms;
        slow.spin_ns = want > 0 ? (uint64_t)(want * 1e6) : 0;
        double realized = interleaved_ratio(dev, &a_slow, &a_plain, 200, NULL);
        want += (1.0 + injected[i] - realized) * t0;
        slow.spin_ns = want > 0 ? (uint64_t)(want * 1e6) : 0;
        realized = interleaved_ratio(dev, &a_slow, &a_plain, 200, NULL);
        pg_arm pair[2] = {a_slow, a_plain};
        size_t hits = 0;
        for (int k = 0; k < power_n; k++) {
            pg_cmp_result r = compare(dev, pair, &cfg, 2, 10, 777000u + (uint64_t)k, &wall);
            hits += r.verdict == PG_CMP_FAIL;
        }
        char what[96];
        snprintf(what, sizeof what, "detected %.0f %% slowdown (realized %.2f %%)",
                 100 * injected[i], 100 * (realized - 1.0));
        print_rate(what, hits, (size_t)power_n);
    }
    free(res);
    pg_blaslt_gemm_free(gemm);
    pg_buffer_free(A);
    pg_buffer_free(B);
    pg_buffer_free(C);
    pg_device_close(dev);
    return 0;
}
