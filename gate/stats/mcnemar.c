/* McNemar's exact test (see mcnemar.h). */
#include "mcnemar.h"

#include "binom.h"

pg_mcnemar_result pg_mcnemar_exact(size_t worse, size_t better)
{
    pg_mcnemar_result r = {.worse = worse, .better = better, .discordant = worse + better,
                           .p_two_sided = 1.0, .p_worse = 1.0};
    if (r.discordant == 0)
        return r;
    long n = (long)r.discordant;
    long k = (long)(worse < better ? worse : better);
    double two = 2.0 * pg_binom_cdf(k, n, 0.5);
    r.p_two_sided = two > 1.0 ? 1.0 : two;
    /* P(X >= b) = 1 − P(X <= b − 1) = P(X <= n − b) by symmetry: summed directly, no
     * cancellation for tiny tails. */
    r.p_worse = pg_binom_cdf(n - (long)worse, n, 0.5);
    return r;
}
