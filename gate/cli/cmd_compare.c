/* `ptxgate compare`: compare two results files and write compare.json, compare-junit.xml and
 * compare.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "cli.h"
#include "options.h"
#include "report/compare.h"
#include "report/history.h"
#include "report/results_read_compare.h"

static pg_option k_options[] = {
    {"output", "DIR", "Folder for compare.json, compare-junit.xml and compare.md (created if missing). Default: reports.", NULL},
    {"follow-output-link", NULL, "Write through a symbolic link at the --output folder (or on the way to it) instead of refusing it (exit 2); only together with an explicit --output. A link at a file's own name is refused regardless.", NULL},
    {"fail-on", "LIST", "What fails the comparison (exit 1): never, or a comma-separated list of correctness (a correctness pass -> fail), regression (a pass -> fail in any compared stage), significant (McNemar on correctness or Wilcoxon on log speedups rejects 'no change' at --alpha with NEW worse), any (all three). Default: correctness,significant.", NULL},
    {"alpha", "X", "Level of the McNemar and Wilcoxon tests (two-sided), in (0, 0.5]. Default: 0.05.", NULL},
    {"confidence", "X", "Confidence of the bootstrap intervals of geometric-mean speedups, in (0.5, 1). Default: 0.95.", NULL},
    {"resamples", "N", "Bootstrap resamples. Default: 10000.", NULL},
    {"seed", "N", "Bootstrap seed (recorded in compare.json). Default: 20261129.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "compare",
    "ptxgate compare [options] OLD.json NEW.json",
    "Compare two results files (two model versions, two commits): stage transitions per "
    "workload, pass rates, fast_p, geometric-mean speedups and paired tests.",
    "Submissions are paired by (task, submission name), workloads by name; unpaired ones are\n"
    "listed, not compared. See docs/compare.md.\n"
    "Exit codes: 0 no regression per --fail-on, 1 a regression per --fail-on, 2 usage or\n"
    "input error (the message names the file and the field).",
    "  ptxgate compare runs/model-v1/results.json runs/model-v2/results.json\n"
    "  ptxgate compare --fail-on regression,significant --output cmp old.json new.json",
    k_options,
};

/* compare.md, then the speedup charts of the two versions (report/history.h, in the order OLD,
 * NEW), the same charts `ptxgate history` draws over many runs. */
static pg_status compare_markdown(const json_t *model, const json_t *const *roots,
                                  const char *const *files, char **out, size_t *len, pg_diag *d)
{
    char *md = NULL, *charts = NULL;
    size_t md_len = 0, charts_len = 0;
    pg_history_model hist = {0};
    pg_status st = pg_compare_markdown(model, &md, &md_len, d);
    if (st == PG_OK)
        st = pg_history_build(roots, files, 2, PG_HISTORY_BY_INPUT, &hist, d);
    if (st == PG_OK)
        st = pg_history_charts_markdown(&hist, &charts, &charts_len, d);
    pg_history_model_free(&hist);
    if (st == PG_OK && charts_len > 0) {
        static const char head[] = "\n## Speedup vs the vendor library, old → new\n\n";
        char *all = malloc(md_len + sizeof head + charts_len);
        if (!all) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        } else {
            memcpy(all, md, md_len);
            memcpy(all + md_len, head, sizeof head - 1);
            memcpy(all + md_len + sizeof head - 1, charts, charts_len);
            md_len += sizeof head - 1 + charts_len;
            all[md_len] = '\0';
            free(md);
            md = all;
        }
    }
    free(charts);
    if (st != PG_OK) {
        free(md);
        return st;
    }
    *out = md;
    *len = md_len;
    return PG_OK;
}

static pg_status write_set(const pg_outdir *dir, const json_t *model, const json_t *const *roots,
                           const char *const *files, pg_diag *d)
{
    char *json = json_dumps(model, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    char *md = NULL, *xml = NULL;
    size_t lens[3] = {json ? strlen(json) : 0, 0, 0};
    pg_status st = json ? PG_OK : pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (st == PG_OK)
        st = compare_markdown(model, roots, files, &md, &lens[2], d);
    if (st == PG_OK)
        st = pg_compare_junit(model, &xml, &lens[1], d);
    static const char *const names[] = {"compare.json", "compare-junit.xml", "compare.md"};
    const char *data[] = {json, xml, md};
    if (st == PG_OK)
        st = pg_cli_write_files(dir, 3, names, data, lens, d);
    free(json);
    free(md);
    free(xml);
    return st;
}

static void print_summary(const pg_cmp_view *m, const char *dir)
{
    printf("paired workloads: %lld, unpaired entries: %zu\n", m->paired_workloads,
           m->n_unpaired);
    for (size_t i = 0; i < m->n_stages; i++) {
        const pg_cmp_stage_sum *s = &m->stages[i];
        /* a p-value the model holds no number for prints as 0, as it always has */
        printf("  %-12s regressions %lld, fixes %lld, not comparable %lld, McNemar p %.3g\n",
               s->stage, s->regressions, s->fixes, s->not_comparable,
               isnan(s->mcnemar.p_value) ? 0.0 : s->mcnemar.p_value);
    }
    const pg_cmp_geomean *ratio = &m->speedup_ratio;
    if (!isnan(ratio->geomean))
        printf("  speedup NEW/OLD (geometric mean over %lld): %.4f [%.4f, %.4f], Wilcoxon p %.3g\n",
               ratio->n, ratio->geomean, isnan(ratio->ci_low) ? 0.0 : ratio->ci_low,
               isnan(ratio->ci_high) ? 0.0 : ratio->ci_high,
               isnan(m->wilcoxon.p_value) ? 0.0 : m->wilcoxon.p_value);
    for (size_t i = 0; i < m->n_reasons; i++)
        printf("  fails: %s\n", m->reasons[i]);
    printf("verdict: %s (exit %lld)\n", m->gate_verdict, m->exit_code);
    printf("reports: %s/compare.json, %s/compare-junit.xml, %s/compare.md\n", dir, dir, dir);
}

int pg_cmd_compare(int argc, char **argv)
{
    char **pos = NULL;
    int npos = 0;
    json_t *old_res = NULL, *new_res = NULL, *model = NULL;
    pg_cli_output where = {.dir.fd = -1, .copy_dir.fd = -1};
    int rc;
    if (!pg_options_parse_cmd(&k_spec, argc, argv, &pos, &npos, &rc))
        return rc;
    rc = 2;
    pg_diag d;
    pg_diag_clear(&d);
    pg_compare_options o;
    pg_compare_options_init(&o);
    if (npos != 2) {
        fprintf(stderr, "ptxgate compare: expected OLD.json and NEW.json (see 'ptxgate compare "
                        "--help')\n");
        goto done;
    }
    long v = (long)o.resamples;
    if (!pg_option_double(&k_spec, "alpha", 1e-9, 0.5, &o.alpha) ||
        !pg_option_double(&k_spec, "confidence", 0.5001, 0.9999, &o.confidence) ||
        !pg_option_int(&k_spec, "resamples", 100, 1000000, &v))
        goto done;
    o.resamples = (size_t)v;
    v = (long)o.seed;
    if (!pg_option_int(&k_spec, "seed", 0, 0x7fffffffL, &v))
        goto done;
    o.seed = (uint64_t)v;
    const char *fail_on = pg_option_value(&k_spec, "fail-on");
    if (fail_on && pg_compare_parse_fail_on(fail_on, &o.fail_on, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    const char *out, *no_copy;
    bool follow;
    if (!pg_cli_output_options(&k_spec, "reports", &out, &no_copy, &follow))
        goto done;
    static const char *const names[] = {"compare.json", "compare-junit.xml", "compare.md", NULL};
    if (pg_cli_check_inputs_apart(out, names, (const char *const *)pos, 2, &d) != PG_OK ||
        pg_cli_prepare_output(out, NULL, follow, names, &where, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    if (pg_cli_load_results(pos[0], &old_res, &d) != PG_OK ||
        pg_cli_load_results(pos[1], &new_res, &d) != PG_OK ||
        pg_compare_build(old_res, pos[0], new_res, pos[1], &o, &model, &d) != PG_OK) {
        /* A comparison that fails on its input must not leave an earlier one's reports
         * behind. (When writing fails below, the earlier ones are left whole instead.) */
        pg_cli_remove_outputs(&where, names);
        rc = pg_cli_fail(&d);
        goto done;
    }
    const json_t *roots[2] = {old_res, new_res};
    const char *files[2] = {pos[0], pos[1]};
    if (write_set(&where.dir, model, roots, files, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    pg_cmp_view view;
    if (pg_cmp_view_read(model, &view, &d) != PG_OK) {
        rc = pg_cli_fail(&d);
        goto done;
    }
    print_summary(&view, out);
    rc = (int)view.exit_code;
    pg_cmp_view_free(&view);
done:
    pg_cli_close_output(&where);
    json_decref(old_res);
    json_decref(new_res);
    json_decref(model);
    free(pos);
    return rc;
}
