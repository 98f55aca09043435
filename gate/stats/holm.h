/* Holm's step-down multiple-testing procedure: which of m hypotheses to reject so that the
 * probability of rejecting any true one (the family-wise error rate) is at most alpha, for any
 * dependence between the p-values (Holm 1979, Scand. J. Statist. 6:65–70). Pure functions. */
#ifndef PG_STATS_HOLM_H
#define PG_STATS_HOLM_H

#include <stdbool.h>
#include <stddef.h>

/* Sort the p-values ascending, p_(1) <= ... <= p_(m); reject H_(1..i−1) where i is the first
 * step with p_(i) > alpha / (m − i + 1), or all m when there is no such step.
 * reject[0..m) is written by the caller's index (reject[i] for p[i]); p is not modified. A NaN
 * p-value is never rejected and counts as 1. Ties keep the input order (the outcome does not
 * depend on it). m == 0 does nothing. Returns the number rejected. */
size_t pg_holm(const double *p, size_t m, double alpha, bool *reject);

/* Holm-adjusted p-values: adj_(i) = max_{j <= i} min(1, (m − j + 1)·p_(j)) in sorted order,
 * written to adj[0..m) by the caller's index, so that pg_holm rejects p[i] at level alpha exactly
 * when adj[i] <= alpha (the same as R's p.adjust(p, "holm")). NaN gives NaN. */
void pg_holm_adjust(const double *p, size_t m, double *adj);

#endif
