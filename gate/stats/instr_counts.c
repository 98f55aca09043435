/* Executed-instruction verdicts: counts, tensor FLOPs and work coverage of target SASS families
 * from range-profiler values. */
#include "instr_counts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *pg_instr_verdict_name(pg_instr_verdict v)
{
    switch (v) {
    case PG_INSTR_PASS:
        return "pass";
    case PG_INSTR_NEVER_EXECUTED:
        return "never_executed";
    case PG_INSTR_COVERAGE_TOO_LOW:
        return "coverage_too_low";
    }
    return "unknown";
}

/* The value measured for metric m. */
static pg_status value_of(const char *m, const char *family, const char *const *metrics,
                          const double *values, size_t n, double *out, pg_diag *d)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(metrics[i], m) != 0)
            continue;
        double v = values[i];
        if (!isfinite(v) || v < 0)
            return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                               "CUPTI returned %g for metric %s (family %s): expected a finite "
                               "count >= 0",
                               v, m, family);
        *out = v;
        return PG_OK;
    }
    return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "metrics",
                       "no value for metric %s, which family %s needs: request the metrics of "
                       "pg_metric_table_request",
                       m, family);
}

static pg_status sum_of(const char (*list)[PG_METRIC_NAME_MAX], int n_list, const char *family,
                        const char *const *metrics, const double *values, size_t n,
                        double *sum, pg_diag *d)
{
    *sum = 0;
    for (int i = 0; i < n_list; i++) {
        double v;
        pg_status st = value_of(list[i], family, metrics, values, n, &v, d);
        if (st != PG_OK)
            return st;
        *sum += v;
    }
    return PG_OK;
}

pg_status pg_instr_evaluate(const pg_metric_table *t, const char *const *families,
                            size_t n_families, const char *path, const char *const *metrics,
                            const double *values, size_t n_values, double required_flops,
                            double min_coverage,
                            pg_instr_result *out, pg_diag *d)
{
    if (n_families == 0 || n_families > PG_METRIC_MAX_FAMILIES)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "families",
                           "expected 1 to %d target families, found %zu",
                           PG_METRIC_MAX_FAMILIES, n_families);
    if (!(min_coverage > 0 && min_coverage <= 1))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "min_coverage",
                           "expected a coverage in (0, 1], found %g", min_coverage);
    pg_instr_result r;
    memset(&r, 0, sizeof r);
    r.required_flops = required_flops;
    r.min_coverage = min_coverage;
    /* Math-op metrics already summed into tensor_flops, so a metric two target families list
     * counts once. */
    const char *seen[PG_METRIC_MAX_FAMILIES * PG_METRIC_MAX_PATHS * PG_METRIC_MAX_TERMS];
    size_t n_seen = 0;
    bool any_math = false;
    for (size_t i = 0; i < n_families; i++) {
        const pg_metric_family *f = pg_metric_table_find(t, families[i]);
        if (!f) {
            char field[32];
            snprintf(field, sizeof field, "families[%zu]", i);
            return pg_diag_set(d, PG_ERR_INPUT, t->file, 0, field,
                               "no execution counter for SASS family '%s' on chip %s",
                               families[i], t->chip);
        }
        pg_instr_family_result *fr = &r.families[r.n_families++];
        snprintf(fr->family, sizeof fr->family, "%s", f->name);
        double add, sub;
        pg_status st = sum_of(f->count_add, f->n_count_add, f->name, metrics, values, n_values,
                              &add, d);
        if (st == PG_OK)
            st = sum_of(f->count_subtract, f->n_count_subtract, f->name, metrics, values,
                        n_values, &sub, d);
        if (st != PG_OK)
            return st;
        fr->count = add > sub ? add - sub : 0;
        fr->has_math_ops = f->n_paths > 0;
        for (int p = 0; p < f->n_paths; p++) {
            const pg_metric_path *mp = &f->math_ops[p];
            if (path && strcmp(mp->path, path) != 0)
                continue;
            for (int j = 0; j < mp->n_metrics; j++) {
                double v;
                st = value_of(mp->metrics[j], f->name, metrics, values, n_values, &v, d);
                if (st != PG_OK)
                    return st;
                fr->math_ops += v;
                bool dup = false;
                for (size_t k = 0; k < n_seen && !dup; k++)
                    dup = strcmp(seen[k], mp->metrics[j]) == 0;
                if (!dup) {
                    seen[n_seen++] = mp->metrics[j];
                    r.tensor_flops += v * t->flops_per_math_op;
                }
            }
        }
        fr->flops = fr->math_ops * t->flops_per_math_op;
        bool executed = fr->count > 0 || fr->math_ops > 0;
        fr->verdict = executed ? PG_INSTR_PASS : PG_INSTR_NEVER_EXECUTED;
        any_math |= fr->has_math_ops;
    }
    r.has_coverage = any_math && required_flops > 0;
    if (r.has_coverage) {
        r.coverage = r.tensor_flops / required_flops;
        for (int i = 0; i < r.n_families; i++)
            if (r.families[i].has_math_ops && r.families[i].verdict == PG_INSTR_PASS &&
                r.coverage < min_coverage)
                r.families[i].verdict = PG_INSTR_COVERAGE_TOO_LOW;
    }
    r.verdict = PG_INSTR_PASS;
    for (int i = 0; i < r.n_families && r.verdict == PG_INSTR_PASS; i++)
        r.verdict = r.families[i].verdict;
    *out = r;
    return PG_OK;
}
