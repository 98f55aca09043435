/* McNemar's exact test for paired pass/fail outcomes (the same workloads judged twice, e.g. by
 * two model versions): only the discordant pairs carry information, and under "no change" each
 * discordant pair is a pass→fail or a fail→pass with probability 1/2 (McNemar, Psychometrika 12
 * (1947) 153–157; the exact binomial form: Agresti, Categorical Data Analysis, 3rd ed., §11.1).
 * Pure functions. */
#ifndef PG_STATS_MCNEMAR_H
#define PG_STATS_MCNEMAR_H

#include <stddef.h>

typedef struct {
    size_t worse;       /* discordant pairs pass → fail (b) */
    size_t better;      /* discordant pairs fail → pass (c) */
    size_t discordant;  /* b + c */
    /* Two-sided exact p-value min(1, 2·P(X <= min(b, c))), X ~ Binomial(b + c, 1/2); 1 when
     * there is no discordant pair. The same as the binomial test's two-sided p-value (the
     * distribution is symmetric). */
    double p_two_sided;
    /* One-sided P(X >= b): the chance of at least this many pass → fail pairs under no change
     * (small: the NEW side is worse). 1 when there is no discordant pair. */
    double p_worse;
} pg_mcnemar_result;

/* The exact test from the two discordant counts. Exact to ~1e-12 for b + c <= 10^4 (binom.h's
 * CDF, summed in log space). */
pg_mcnemar_result pg_mcnemar_exact(size_t worse, size_t better);

#endif
