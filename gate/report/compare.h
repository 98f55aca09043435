/* `ptxgate compare`: two results files (OLD and NEW: two model versions, two commits) paired by
 * (task, submission name) and workload name, turned into the comparison model, a JSON object
 * (docs/compare.md) that the markdown and JUnit writers render and `compare.json` stores.
 *
 * Calling sequence:
 *     pg_compare_options o;
 *     pg_compare_options_init(&o);               // then --alpha, --fail-on, ...
 *     json_t *model;
 *     if (pg_compare_build(old, "old.json", new, "new.json", &o, &model, d) != PG_OK) ...
 *     ... pg_compare_markdown(model, ...), pg_compare_junit(model, ...) ...
 *     exit code = model.gate.exit_code (0 or 1)
 *
 * Outcomes. Each workload's stages are read as one chain: the submission's stages (assemble,
 * load), then the workload's (correctness, instructions, performance). A stage's outcome is its
 * status, except that a stage skipped or absent after an earlier stage failed counts as "fail"
 * (blocked by the kernel's own failure: a kernel that stops assembling has also stopped being
 * correct) and after an earlier error as "error". A transition pass → fail is a regression,
 * fail → pass a fix; any change involving error or skipped is "not comparable" (the machine,
 * not the kernel, changed). The compared stages are assemble, correctness, instructions and
 * performance, each when it appears in either file. */
#ifndef PG_REPORT_COMPARE_H
#define PG_REPORT_COMPARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* What makes the comparison fail (exit 1); a set of bits, 0 = never. */
enum {
    PG_FAIL_ON_CORRECTNESS = 1u, /* a correctness pass → fail (blocked included) */
    PG_FAIL_ON_REGRESSION = 2u,  /* a pass → fail in any compared stage (= a JUnit failure) */
    PG_FAIL_ON_SIGNIFICANT = 4u  /* McNemar on correctness or Wilcoxon on log speedups rejects
                                    "no change" at alpha (two-sided) with NEW worse */
};

/* fast_p thresholds (KernelBench's fast_p: correct and speedup > p), in this order. */
#define PG_COMPARE_N_FAST_P 4
extern const double pg_compare_fast_p[PG_COMPARE_N_FAST_P]; /* 0.5, 0.8, 1.0, 1.2 */

typedef struct {
    double alpha;         /* level of the McNemar and Wilcoxon tests, in (0, 1); default 0.05 */
    double confidence;    /* of the bootstrap intervals, in (0, 1); default 0.95 */
    size_t resamples;     /* bootstrap resamples, default 10000 */
    uint64_t seed;        /* bootstrap seed (each interval uses it), default 20261129 */
    unsigned fail_on;     /* PG_FAIL_ON_* bits; default CORRECTNESS | SIGNIFICANT */
} pg_compare_options;

void pg_compare_options_init(pg_compare_options *o);

/* Parse a --fail-on value: "never", or a comma-separated list of "correctness", "regression",
 * "significant" ("any" = all three). Errors: PG_ERR_INPUT naming --fail-on and the bad word. */
pg_status pg_compare_parse_fail_on(const char *text, unsigned *out, pg_diag *d);

/* Pair old_res and new_res (results json roots; *_file name them in diagnostics) and build the
 * model into *out (a new reference the caller json_decref's; NULL on error).
 * Errors: PG_ERR_INPUT for a malformed results file (pg_results_read's checks: the message names
 * the file and the JSON path), a submission whose (task, name) occurs twice in one file, or a
 * workload name that occurs twice in one submission (compare could not pair them);
 * PG_ERR_INFRA on out-of-memory. */
pg_status pg_compare_build(const json_t *old_res, const char *old_file, const json_t *new_res,
                           const char *new_file, const pg_compare_options *o, json_t **out,
                           pg_diag *d);

/* The aggregate half of pg_compare_build, a function of the model's "workloads" records and
 * "settings" only: fills "stages" (per side the count of each outcome, "judged" = pass + fail
 * and "pass_rate" = pass / judged, null when nothing was judged; transitions, McNemar),
 * "fast_p", "speedup" (geometric means, bootstrap intervals, Wilcoxon), "tasks" and "gate".
 * Exposed for tests.
 * Errors: PG_ERR_INFRA on out-of-memory. */
pg_status pg_compare_summarize(json_t *model, const pg_compare_options *o, pg_diag *d);

/* Largest markdown rendered (bytes); past it the per-workload table is cut with a note. */
#define PG_COMPARE_MARKDOWN_MAX_BYTES (768u * 1024u)

/* Markdown for $GITHUB_STEP_SUMMARY from the model: the gate verdict and its reasons, the two
 * sides (files, GPUs, differences of environment), pass rates and transitions per stage with
 * McNemar, fast_p, geometric-mean speedups with intervals and the Wilcoxon test, a mermaid
 * xychart of per-task geometric-mean speedups (OLD and NEW bars side by side per task, at most
 * 30 tasks), the changed workloads, and the unpaired ones. Untrusted names are escaped as in
 * the results summary (pg_report_markdown_inline). *out is malloc'd, owned by the caller; *len
 * (may be NULL) its length. Errors: PG_ERR_INFRA on out-of-memory. */
pg_status pg_compare_markdown(const json_t *model, char **out, size_t *len, pg_diag *d);

/* JUnit XML from the model: one <testsuite> per task (order of first appearance), one
 * <testcase> per paired workload (classname "<task>.<submission>", name "<workload>", time 0):
 * <failure type="regression"> when any compared stage went pass → fail (the stages in the
 * message), <skipped> when nothing regressed but a compared stage is not comparable (error or
 * skipped on a side), else passed; the transitions and speedups in <system-out>. Valid under
 * schemas/junit.xsd. Errors: PG_ERR_INFRA when libxml2 fails or memory runs out. */
pg_status pg_compare_junit(const json_t *model, char **out, size_t *len, pg_diag *d);

#endif
