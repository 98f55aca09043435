/* Holm–Bonferroni step-down (see holm.h). */
#include "holm.h"

#include <math.h>
#include <stdlib.h>

/* Ascending order of p, NaN last, ties by index: an insertion sort is enough for the tens of
 * comparisons of one run and keeps the order stable without a qsort context pointer. */
static size_t *sorted_order(const double *p, size_t m)
{
    size_t *ord = malloc(m * sizeof *ord);
    if (!ord)
        return NULL;
    for (size_t i = 0; i < m; i++) {
        double key = isnan(p[i]) ? INFINITY : p[i];
        size_t j = i;
        while (j > 0 && (isnan(p[ord[j - 1]]) ? INFINITY : p[ord[j - 1]]) > key) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    return ord;
}

size_t pg_holm(const double *p, size_t m, double alpha, bool *reject)
{
    for (size_t i = 0; i < m; i++)
        reject[i] = false;
    if (m == 0)
        return 0;
    size_t *ord = sorted_order(p, m);
    size_t rejected = 0;
    if (ord) {
        for (size_t i = 0; i < m; i++) {
            double pi = p[ord[i]];
            if (isnan(pi) || !(pi <= alpha / (double)(m - i)))
                break;
            reject[ord[i]] = true;
            rejected++;
        }
    } else { /* no memory: Bonferroni, which rejects a subset of Holm's rejections */
        for (size_t i = 0; i < m; i++) {
            reject[i] = p[i] <= alpha / (double)m;
            rejected += reject[i];
        }
    }
    free(ord);
    return rejected;
}

void pg_holm_adjust(const double *p, size_t m, double *adj)
{
    if (m == 0)
        return;
    size_t *ord = sorted_order(p, m);
    if (!ord) { /* no memory: Bonferroni-adjusted values, never smaller than Holm's */
        for (size_t i = 0; i < m; i++)
            adj[i] = isnan(p[i]) ? NAN : fmin(1.0, (double)m * p[i]);
        return;
    }
    double running = 0.0;
    for (size_t i = 0; i < m; i++) {
        double pi = p[ord[i]];
        if (isnan(pi)) {
            adj[ord[i]] = NAN;
            continue;
        }
        double v = fmin(1.0, (double)(m - i) * pi);
        running = fmax(running, v);
        adj[ord[i]] = running;
    }
    free(ord);
}
