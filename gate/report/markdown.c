/* Markdown summary writer (see markdown.h, docs/reports.md). */
#include "markdown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_read.h"

#define DASH "—"
#define NAME_MAX_BYTES 200          /* names in headings, cells and lists */
#define MESSAGE_MAX_BYTES 400       /* stage messages and diagnostics */
#define DIAGS_SHOWN 5               /* assemble diagnostics listed per submission */
#define ENTRIES_SHOWN 8             /* assemble entries (kernels) listed per submission */
#define ROWS_SHOWN 500              /* workload rows per submission table */
#define SKIPPED_SHOWN 200           /* items of the "Skipped stages" list */
#define SUBMISSION_BUDGET (128u * 1024u) /* room kept free before starting a submission */
#define BASELINE_NOTES_SHOWN 20     /* notes of the stored-baselines section */

/* ---- escaping ---- */

static bool md_punct(uint32_t c)
{
    return c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '|' ||
           c == '~' || c == '$';
}

static bool ascii_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Append untrusted text s as inline markdown: one line, at most max_bytes of s, no HTML, no
 * markdown syntax, no @mentions. Control and bidi characters are already U+FFFD after
 * pg_rtext_add_clean. An '_' between two ASCII letters or digits stays as it is: GFM never reads
 * it as emphasis, and names like gemm_bf16_nt stay readable. */
static void md_text(pg_rtext *t, const char *s, size_t max_bytes)
{
    pg_rtext c;
    pg_rtext_init(&c, max_bytes * 2 + 16);
    pg_rtext_add_clean(&c, s, PG_CLEAN_ONE_LINE, max_bytes);
    for (size_t i = 0; i < c.len;) {
        uint32_t cp;
        size_t k = pg_utf8_next(c.data + i, &cp);
        if (cp == '<')
            pg_rtext_add(t, "&lt;");
        else if (cp == '>')
            pg_rtext_add(t, "&gt;");
        else if (cp == '&')
            pg_rtext_add(t, "&amp;");
        else if (cp == '@')
            pg_rtext_add(t, "@\u200D"); /* a zero-width joiner: no mention, no notification */
        else if (cp == '_' && i > 0 && ascii_alnum(c.data[i - 1]) && ascii_alnum(c.data[i + 1]))
            pg_rtext_add(t, "_");
        else if (md_punct(cp)) {
            char e[3] = {'\\', (char)cp, '\0'};
            pg_rtext_add(t, e);
        } else
            pg_rtext_addn(t, c.data + i, k);
        i += k;
    }
    if (c.oom)
        t->oom = true;
    pg_rtext_free(&c);
}

/* md_text, or DASH for NULL/empty. */
static void md_text_or_dash(pg_rtext *t, const char *s, size_t max_bytes)
{
    if (s && s[0])
        md_text(t, s, max_bytes);
    else
        pg_rtext_add(t, DASH);
}

/* "<stage>[<workload>]" escaped (the JUnit testcase name). */
static void md_stage_name(pg_rtext *t, const char *stage, const char *workload)
{
    pg_rtext n;
    pg_rtext_init(&n, 2 * NAME_MAX_BYTES + 64);
    pg_rtext_add(&n, stage);
    pg_rtext_add(&n, "[");
    pg_rtext_add_clean(&n, workload, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
    pg_rtext_add(&n, "]");
    md_text(t, n.data, 2 * NAME_MAX_BYTES + 64);
    pg_rtext_free(&n);
}

/* ---- header ---- */

static void write_title(pg_rtext *t, const pg_results *r)
{
    size_t subs[4] = {0}, recs[4] = {0};
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        subs[s->verdict]++;
        for (size_t k = 0; k < s->n_stages; k++)
            recs[s->stages[k].status]++;
        for (size_t w = 0; w < s->n_workloads; w++)
            for (size_t k = 0; k < s->workloads[w].n_stages; k++)
                recs[s->workloads[w].stages[k].status]++;
    }
    pg_rtext_addf(t, "## ptxgate: %s\n\n", pg_res_status_word(r->verdict));
    pg_rtext_addf(t, "%zu submission%s: %zu PASS, %zu FAIL, %zu ERROR", r->n_subs,
                  r->n_subs == 1 ? "" : "s", subs[PG_RES_PASS], subs[PG_RES_FAIL],
                  subs[PG_RES_ERROR]);
    if (subs[PG_RES_SKIPPED])
        pg_rtext_addf(t, ", %zu SKIPPED", subs[PG_RES_SKIPPED]);
    pg_rtext_addf(t, " · stages: %zu passed, %zu failed, %zu errored, %zu skipped · exit code %lld "
                     "· %.1f s · started %s",
                  recs[PG_RES_PASS], recs[PG_RES_FAIL], recs[PG_RES_ERROR], recs[PG_RES_SKIPPED],
                  (long long)r->exit_code, r->duration_s, r->started_utc);
    if (r->tool_version) {
        pg_rtext_add(t, " · ptxgate ");
        md_text(t, r->tool_version, 64);
    }
    pg_rtext_add(t, "\n\n");
}

static void write_environment(pg_rtext *t, const pg_results *r)
{
    const pg_res_env *e = &r->env;
    char b[32];
    pg_rtext_add(t, "**Environment:** ");
    if (e->has_gpu) {
        md_text_or_dash(t, e->gpu_name, NAME_MAX_BYTES);
        if (e->compute_capability || e->sm_count.has) {
            pg_rtext_add(t, " (");
            if (e->compute_capability) {
                pg_rtext_add(t, "compute capability ");
                md_text(t, e->compute_capability, 16);
            }
            if (e->sm_count.has)
                pg_rtext_addf(t, "%s%lld SMs", e->compute_capability ? ", " : "",
                              (long long)e->sm_count.v);
            pg_rtext_add(t, ")");
        }
    } else {
        pg_rtext_add(t, "GPU not used: ");
        md_text(t, e->gpu_skip_reason ? e->gpu_skip_reason : "no reason recorded",
                MESSAGE_MAX_BYTES);
    }
    pg_rtext_add(t, " · driver ");
    md_text_or_dash(t, e->driver_version, 64);
    pg_rtext_addf(t, " · CUDA %s",
                  e->cuda_driver_api_version.has
                      ? pg_res_cuda_version(e->cuda_driver_api_version.v, b, sizeof b)
                      : DASH);
    pg_rtext_add(t, " · ptxas ");
    md_text_or_dash(t, e->ptxas_version, 64);
    pg_rtext_addf(t, " · cuBLASLt %s",
                  e->cublaslt_version.has
                      ? pg_res_cublaslt_version(e->cublaslt_version.v, b, sizeof b)
                      : DASH);
    pg_rtext_add(t, " · host ");
    md_text_or_dash(t, e->hostname, NAME_MAX_BYTES);
    pg_rtext_add(t, "\n\n");
}

/* The stored baselines the run used (results "baselines", docs/baselines.md): the folder, the
 * GPU key and policies, then its notes (fingerprint changes, missing files, drift). Nothing when
 * the run used no baselines folder, or looked nothing up and has no note. */
static pg_status write_baselines(pg_rtext *t, const json_t *root, const char *file, pg_diag *d)
{
    pg_jctx top = {.file = file ? file : "results.json", .path = ""};
    const char *dir = NULL, *key = NULL, *key_source = NULL, *missing = NULL, *drift = NULL;
    const json_t *notes = NULL;
    pg_res_num tol;
    pg_status st = pg_res_get_string(root, &top, "baselines.dir", &dir, d);
    if (st == PG_OK)
        st = pg_res_get_string(root, &top, "baselines.gpu_key", &key, d);
    if (st == PG_OK)
        st = pg_res_get_string(root, &top, "baselines.gpu_key_source", &key_source, d);
    if (st == PG_OK)
        st = pg_res_get_string(root, &top, "baselines.on_missing_baseline", &missing, d);
    if (st == PG_OK)
        st = pg_res_get_string(root, &top, "baselines.on_drift", &drift, d);
    if (st == PG_OK)
        st = pg_res_get_number(root, &top, "baselines.drift_tolerance", &tol, d);
    if (st == PG_OK)
        st = pg_res_get_array(root, &top, "baselines.notes", &notes, d);
    /* Nothing was looked up (no GPU and no --gpu-key) and nothing to say: no section. */
    if (st != PG_OK || !dir || (!key && json_array_size(notes) == 0))
        return st;
    pg_rtext_add(t, "**Stored baselines:** ");
    md_text(t, dir, NAME_MAX_BYTES);
    if (key) {
        pg_rtext_add(t, " · GPU key ");
        md_text(t, key, 64);
        if (key_source) {
            pg_rtext_add(t, " (");
            md_text(t, key_source, NAME_MAX_BYTES);
            pg_rtext_add(t, ")");
        }
    }
    pg_rtext_add(t, " · missing baseline: ");
    md_text_or_dash(t, missing, 16);
    pg_rtext_add(t, " · runner drift: ");
    md_text_or_dash(t, drift, 16);
    if (tol.has)
        pg_rtext_addf(t, " beyond %.1f %%", 100.0 * tol.v);
    pg_rtext_add(t, "\n\n");
    size_t n = json_array_size(notes);
    for (size_t i = 0; i < n && i < BASELINE_NOTES_SHOWN; i++) {
        const json_t *note = json_array_get(notes, i);
        if (!json_is_string(note)) {
            char f[64];
            snprintf(f, sizeof f, "baselines.notes[%zu]", i);
            return pg_diag_set(d, PG_ERR_INPUT, top.file, 0, f, "expected a string");
        }
        pg_rtext_add(t, "- ");
        md_text(t, json_string_value(note), MESSAGE_MAX_BYTES);
        pg_rtext_add(t, "\n");
    }
    if (n > BASELINE_NOTES_SHOWN)
        pg_rtext_addf(t, "- … %zu more in the results json\n", n - BASELINE_NOTES_SHOWN);
    if (n)
        pg_rtext_add(t, "\n");
    return PG_OK;
}

/* ---- submission stages ---- */

/* "168 registers, 0 B spill stores, 0 B spill loads, ..." from obj (ptxas numbers at ctx). */
static pg_status register_summary(pg_rtext *t, const json_t *obj, const pg_jctx *ctx, bool *wrote,
                                  pg_diag *d)
{
    static const struct {
        const char *key, *label;
    } k_items[] = {{"registers", " registers"},
                   {"spill_store_bytes", " B spill stores"},
                   {"spill_load_bytes", " B spill loads"},
                   {"shared_bytes", " B shared"},
                   {"stack_frame_bytes", " B stack"}};
    for (size_t i = 0; i < sizeof k_items / sizeof k_items[0]; i++) {
        pg_res_int v;
        pg_status st = pg_res_get_int(obj, ctx, k_items[i].key, &v, d);
        if (st != PG_OK)
            return st;
        if (v.has) {
            pg_rtext_add(t, *wrote ? ", " : "");
            pg_rtext_addf(t, "%lld%s", (long long)v.v, k_items[i].label);
            *wrote = true;
        }
    }
    return PG_OK;
}

/* Registers and spills of the whole module, or else of each entry. */
static pg_status write_assemble_numbers(pg_rtext *t, const pg_res_stage *s, pg_diag *d)
{
    bool wrote = false;
    pg_status st = register_summary(t, s->details, &s->details_ctx, &wrote, d);
    if (st != PG_OK || wrote)
        return st;
    const json_t *entries = NULL;
    if ((st = pg_res_detail_array(s, "entries", &entries, d)) != PG_OK)
        return st;
    pg_jctx list = pg_jctx_member(&s->details_ctx, "entries");
    size_t n = json_array_size(entries);
    for (size_t i = 0; i < n && i < ENTRIES_SHOWN; i++) {
        pg_jctx ec = pg_jctx_index(&list, i);
        const json_t *e = json_array_get(entries, i);
        if (!json_is_object(e))
            return pg_diag_set(d, PG_ERR_INPUT, ec.file, 0, ec.path,
                               "expected an entry (an object), found %s", pg_json_type_name(e));
        const char *name = NULL;
        if ((st = pg_res_get_string(e, &ec, "name", &name, d)) != PG_OK)
            return st;
        pg_rtext_add(t, i ? "; " : "");
        md_text_or_dash(t, name, NAME_MAX_BYTES);
        pg_rtext_add(t, ": ");
        bool any = false;
        if ((st = register_summary(t, e, &ec, &any, d)) != PG_OK)
            return st;
        if (!any)
            pg_rtext_add(t, DASH);
    }
    if (n > ENTRIES_SHOWN)
        pg_rtext_addf(t, "; %zu more entries", n - ENTRIES_SHOWN);
    return PG_OK;
}

/* The first error and warning diagnostics (ptxas "info" lines are resource chatter, left to the
 * results json). */
static pg_status write_diagnostics(pg_rtext *t, const pg_res_stage *s, pg_diag *d)
{
    pg_res_ptx_diag shown[DIAGS_SHOWN];
    size_t n, more;
    pg_status st = pg_res_ptx_diags_shown(s, shown, DIAGS_SHOWN, &n, &more, d);
    if (st != PG_OK)
        return st;
    for (size_t k = 0; k < n; k++) {
        const pg_res_ptx_diag g = shown[k];
        pg_rtext_add(t, "  - ");
        if (g.line.has)
            pg_rtext_addf(t, "PTX line %lld: ", (long long)g.line.v);
        if (g.severity[0]) {
            md_text(t, g.severity, 32);
            pg_rtext_add(t, ": ");
        }
        md_text_or_dash(t, g.message, MESSAGE_MAX_BYTES);
        pg_rtext_add(t, "\n");
    }
    if (more)
        pg_rtext_addf(t, "  - … %zu more diagnostic%s in the results json\n", more,
                      more == 1 ? "" : "s");
    return PG_OK;
}

static pg_status write_submission_stage(pg_rtext *t, const pg_res_stage *s, pg_diag *d)
{
    pg_status st = PG_OK;
    pg_rtext_add(t, "- ");
    md_text(t, s->stage, 64);
    pg_rtext_addf(t, ": %s", pg_res_status_word(s->status));
    bool is_assemble = strcmp(s->stage, "assemble") == 0;
    if (s->status != PG_RES_PASS && s->message[0]) {
        pg_rtext_add(t, " — ");
        md_text(t, s->message, MESSAGE_MAX_BYTES);
    } else if (is_assemble && s->status == PG_RES_PASS) {
        pg_rtext_add(t, " — ");
        size_t before = t->len;
        if ((st = write_assemble_numbers(t, s, d)) != PG_OK)
            return st;
        if (t->len == before)
            md_text_or_dash(t, s->message, MESSAGE_MAX_BYTES);
    }
    if (s->status != PG_RES_SKIPPED)
        pg_rtext_addf(t, " (%.3f s)", s->duration_s);
    pg_rtext_add(t, "\n");
    if (is_assemble)
        st = write_diagnostics(t, s, d);
    return st;
}

/* ---- target instructions ---- */

/* The first workload stage named "instructions" that has targets, or NULL. */
static const pg_res_stage *instructions_shown(const pg_res_submission *s)
{
    for (size_t w = 0; w < s->n_workloads; w++) {
        const pg_res_stage *st =
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "instructions");
        const json_t *targets = NULL;
        pg_diag d;
        if (st && pg_res_detail_array(st, "targets", &targets, &d) == PG_OK &&
            json_array_size(targets) > 0)
            return st;
    }
    return NULL;
}

/* True when every workload's instructions stage says what shown says. */
static bool instructions_uniform(const pg_res_submission *s, const pg_res_stage *shown)
{
    for (size_t w = 0; w < s->n_workloads; w++) {
        const pg_res_stage *st =
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "instructions");
        if (st && (st->status != shown->status || strcmp(st->message, shown->message) != 0))
            return false;
    }
    return true;
}

/* One row per target of the instructions stage shown (docs/instructions.md). */
static pg_status write_instructions(pg_rtext *t, const pg_res_submission *s,
                                    const pg_res_stage *st, pg_diag *d)
{
    const char *policy = NULL, *arch = NULL;
    const json_t *targets = NULL;
    pg_status rc;
    if ((rc = pg_res_detail_string(st, "policy", &policy, d)) != PG_OK ||
        (rc = pg_res_detail_string(st, "arch", &arch, d)) != PG_OK ||
        (rc = pg_res_detail_array(st, "targets", &targets, d)) != PG_OK)
        return rc;
    bool warn = policy && strcmp(policy, "warn") == 0;
    pg_rtext_add(t, "Target instructions (");
    md_text_or_dash(t, arch, 32);
    pg_rtext_add(t, ", policy ");
    md_text_or_dash(t, policy, 32);
    pg_rtext_addf(t, "): %s", pg_res_status_word(st->status));
    if (!instructions_uniform(s, st))
        pg_rtext_add(t, " in the first workload; the others are listed below");
    pg_rtext_add(t, "\n\n| target | status | finding | executed |\n|---|---|---|---|\n");
    for (size_t i = 0; i < json_array_size(targets); i++) {
        pg_res_instr_target tg;
        if ((rc = pg_res_instr_target_get(st, targets, i, &tg, d)) != PG_OK)
            return rc;
        pg_rtext_add(t, "| ");
        md_text(t, tg.target, NAME_MAX_BYTES);
        pg_rtext_add(t, " | ");
        bool failed = strcmp(tg.status, "fail") == 0;
        pg_rtext_add(t, failed && warn ? "WARN" : failed ? "FAIL" : strcmp(tg.status, "pass") == 0 ? "PASS" : "UNKNOWN");
        if (tg.reason) {
            pg_rtext_add(t, " (");
            md_text(t, tg.reason, 64);
            pg_rtext_add(t, ")");
        }
        pg_rtext_add(t, " | ");
        md_text_or_dash(t, tg.summary, MESSAGE_MAX_BYTES);
        pg_rtext_add(t, " | ");
        if (tg.executed_count.has) {
            pg_rtext_addf(t, "%.0f", tg.executed_count.v);
            if (tg.coverage.has)
                pg_rtext_addf(t, ", coverage %.4g", tg.coverage.v);
        } else {
            md_text_or_dash(t, tg.runtime_status, 64);
        }
        pg_rtext_add(t, " |\n");
    }
    pg_rtext_add(t, "\n");
    return PG_OK;
}

/* ---- the workload table ---- */

/* A rate cell: TFLOP/s "%.1f". */
static void cell_rate(pg_rtext *t, pg_res_num v)
{
    pg_rtext_add(t, " | ");
    if (v.has)
        pg_rtext_addf(t, "%.1f", v.v);
    else
        pg_rtext_add(t, DASH);
}

/* An error cell: "%.3g". */
static void cell_error(pg_rtext *t, pg_res_num v)
{
    pg_rtext_add(t, " | ");
    if (v.has)
        pg_rtext_addf(t, "%.3g", v.v);
    else
        pg_rtext_add(t, DASH);
}

static void write_status_cell(pg_rtext *t, const pg_res_workload *w)
{
    size_t skipped = 0;
    for (size_t k = 0; k < w->n_stages; k++)
        skipped += w->stages[k].status == PG_RES_SKIPPED;
    if (w->verdict == PG_RES_SKIPPED ||
        (w->n_stages > 0 && skipped == w->n_stages && w->verdict == PG_RES_PASS)) {
        pg_rtext_add(t, "SKIPPED");
        return;
    }
    pg_rtext_add(t, pg_res_status_word(w->verdict));
    bool first = true;
    for (size_t k = 0; k < w->n_stages; k++) {
        const pg_res_stage *s = &w->stages[k];
        if (s->status != PG_RES_FAIL && s->status != PG_RES_ERROR)
            continue;
        pg_rtext_add(t, first ? " (" : ", ");
        first = false;
        md_text(t, s->stage, 64);
        if (s->status != w->verdict)
            pg_rtext_addf(t, " %s", pg_res_status_word(s->status));
    }
    if (!first)
        pg_rtext_add(t, ")");
}

static pg_status write_row(pg_rtext *t, const pg_res_workload *w, pg_diag *d)
{
    const pg_res_stage *perf = pg_res_find_stage(w->stages, w->n_stages, "performance");
    const pg_res_stage *cor = pg_res_find_stage(w->stages, w->n_stages, "correctness");
    pg_res_num cand = {0}, base = {0}, est = {0}, lo = {0}, hi = {0}, abs_err = {0}, l2 = {0};
    pg_res_int bad = {0};
    pg_status st;
    if (perf && ((st = pg_res_detail_number(perf, "candidate.tflops", &cand, d)) != PG_OK ||
                 (st = pg_res_detail_number(perf, "baseline.tflops", &base, d)) != PG_OK ||
                 (st = pg_res_detail_number(perf, "speedup.estimate", &est, d)) != PG_OK ||
                 (st = pg_res_detail_number(perf, "speedup.ci_low", &lo, d)) != PG_OK ||
                 (st = pg_res_detail_number(perf, "speedup.ci_high", &hi, d)) != PG_OK))
        return st;
    if (cor && ((st = pg_res_detail_number(cor, "max_absolute_error", &abs_err, d)) != PG_OK ||
                (st = pg_res_detail_number(cor, "relative_l2_error", &l2, d)) != PG_OK ||
                (st = pg_res_detail_int(cor, "bad_elements", &bad, d)) != PG_OK))
        return st;
    pg_rtext_add(t, "| ");
    md_text_or_dash(t, w->name, NAME_MAX_BYTES);
    pg_rtext_add(t, " | ");
    write_status_cell(t, w);
    cell_rate(t, cand);
    cell_rate(t, base);
    pg_rtext_add(t, " | ");
    if (est.has && lo.has && hi.has)
        pg_rtext_addf(t, "%.3f× [%.3f, %.3f]", est.v, lo.v, hi.v);
    else if (est.has)
        pg_rtext_addf(t, "%.3f×", est.v);
    else
        pg_rtext_add(t, DASH);
    cell_error(t, abs_err);
    cell_error(t, l2);
    pg_rtext_add(t, " | ");
    if (bad.has)
        pg_rtext_addf(t, "%lld", (long long)bad.v);
    else
        pg_rtext_add(t, DASH);
    pg_rtext_add(t, " |\n");
    return PG_OK;
}

static void write_table_header(pg_rtext *t, const pg_results *r)
{
    double conf = r->confidence.has ? r->confidence.v : 0.95;
    pg_rtext_addf(t,
                  "| workload | status | candidate TFLOP/s | baseline TFLOP/s | speedup [%g%% CI] "
                  "| max abs error | rel L2 error | bad elements |\n"
                  "|---|---|--:|--:|--:|--:|--:|--:|\n",
                  conf * 100.0);
}

/* One line per passed performance stage: its message says the verdict (PASS, FAST, or an
 * INCONCLUSIVE warning) with the estimate and interval; failures are listed above already. */
static void write_verdict_lines(pg_rtext *t, const pg_res_submission *s)
{
    bool any = false;
    for (size_t w = 0; w < s->n_workloads && w < ROWS_SHOWN; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (st->status != PG_RES_PASS || strcmp(st->stage, "performance") != 0 ||
                !st->message[0])
                continue;
            if (!any)
                pg_rtext_add(t, "\nPerformance verdicts:\n\n");
            any = true;
            pg_rtext_add(t, "- ");
            md_stage_name(t, st->stage, s->workloads[w].name);
            pg_rtext_add(t, ": ");
            md_text(t, st->message, MESSAGE_MAX_BYTES);
            pg_rtext_add(t, "\n");
        }
}

/* Instructions stages that passed or were skipped with another message than the target table
 * shows (a warning under policy warn, a workload whose runtime counts differ). */
static void write_instruction_others(pg_rtext *t, const pg_res_submission *s,
                                     const pg_res_stage *shown)
{
    bool any = false;
    for (size_t w = 0; shown && w < s->n_workloads && w < ROWS_SHOWN; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (strcmp(st->stage, "instructions") != 0 || st == shown ||
                st->status == PG_RES_FAIL || st->status == PG_RES_ERROR ||
                (st->status == shown->status && strcmp(st->message, shown->message) == 0))
                continue;
            if (!any)
                pg_rtext_add(t, "\nTarget instructions in the other workloads:\n\n");
            any = true;
            pg_rtext_add(t, "- ");
            md_stage_name(t, st->stage, s->workloads[w].name);
            pg_rtext_addf(t, ": %s — ", pg_res_status_word(st->status));
            md_text_or_dash(t, st->message, MESSAGE_MAX_BYTES);
            pg_rtext_add(t, "\n");
        }
}

/* Workload stages that failed or errored, with their messages; instructions stages that say
 * what the target table (shown) says are not repeated. */
static void write_problems(pg_rtext *t, const pg_res_submission *s, const pg_res_stage *shown)
{
    bool any = false;
    for (size_t w = 0; w < s->n_workloads && w < ROWS_SHOWN; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (st->status != PG_RES_FAIL && st->status != PG_RES_ERROR)
                continue;
            if (shown && strcmp(st->stage, "instructions") == 0 && st->status == shown->status &&
                strcmp(st->message, shown->message) == 0)
                continue;
            if (!any)
                pg_rtext_add(t, "\nFailed and errored stages:\n\n");
            any = true;
            pg_rtext_add(t, "- ");
            md_stage_name(t, st->stage, s->workloads[w].name);
            pg_rtext_addf(t, ": %s — ", pg_res_status_word(st->status));
            md_text_or_dash(t, st->message, MESSAGE_MAX_BYTES);
            pg_rtext_add(t, "\n");
        }
    write_verdict_lines(t, s);
}

static pg_status write_submission(pg_rtext *t, const pg_results *r, const pg_res_submission *s,
                                  pg_diag *d)
{
    pg_status st;
    pg_rtext_addf(t, "### %s: ", pg_res_status_word(s->verdict));
    md_text(t, s->task, NAME_MAX_BYTES);
    pg_rtext_add(t, " / ");
    md_text(t, s->name, NAME_MAX_BYTES);
    pg_rtext_add(t, "\n\n- task: ");
    md_text(t, s->task, NAME_MAX_BYTES);
    pg_rtext_add(t, " · source: ");
    md_text_or_dash(t, s->source, NAME_MAX_BYTES);
    pg_rtext_add(t, " · arch: ");
    md_text_or_dash(t, s->arch, 32);
    pg_rtext_add(t, "\n");
    for (size_t k = 0; k < s->n_stages; k++)
        if ((st = write_submission_stage(t, &s->stages[k], d)) != PG_OK)
            return st;
    pg_rtext_add(t, "\n");
    if (s->n_workloads == 0) {
        pg_rtext_add(t, "No workloads.\n\n");
        return PG_OK;
    }
    const pg_res_stage *instr = instructions_shown(s);
    if (instr && (st = write_instructions(t, s, instr, d)) != PG_OK)
        return st;
    write_table_header(t, r);
    for (size_t w = 0; w < s->n_workloads && w < ROWS_SHOWN; w++)
        if ((st = write_row(t, &s->workloads[w], d)) != PG_OK)
            return st;
    if (s->n_workloads > ROWS_SHOWN)
        pg_rtext_addf(t, "\n… %zu more workloads in the results json.\n",
                      s->n_workloads - ROWS_SHOWN);
    write_problems(t, s, instr);
    write_instruction_others(t, s, instr);
    pg_rtext_add(t, "\n");
    return PG_OK;
}

/* ---- skipped stages ---- */

/* One list item per submission and distinct reason: without a GPU every stage of every workload
 * skips for the same reason, and listing each one buries the report. */
typedef struct {
    const pg_res_stage *stage;
    const char *workload;
    bool listed;
} skipped_ref;

static void skipped_group(pg_rtext *t, const pg_res_submission *s, skipped_ref *refs, size_t n,
                          size_t first, size_t *items)
{
    const char *why = refs[first].stage->message;
    size_t count = 0;
    for (size_t j = first; j < n; j++)
        if (!refs[j].listed && strcmp(refs[j].stage->message, why) == 0) {
            refs[j].listed = true;
            count++;
        }
    if (*items == 0)
        pg_rtext_add(t, "### Skipped stages\n\n");
    if (++*items > SKIPPED_SHOWN)
        return;
    pg_rtext_add(t, "- ");
    md_text(t, s->task, NAME_MAX_BYTES);
    pg_rtext_add(t, " / ");
    md_text(t, s->name, NAME_MAX_BYTES);
    pg_rtext_add(t, ": ");
    md_stage_name(t, refs[first].stage->stage, refs[first].workload);
    if (count > 1)
        pg_rtext_addf(t, " and %zu more stage%s", count - 1, count > 2 ? "s" : "");
    pg_rtext_add(t, " — ");
    md_text(t, why[0] ? why : "no reason recorded", MESSAGE_MAX_BYTES);
    pg_rtext_add(t, "\n");
}

static void write_skipped(pg_rtext *t, const pg_results *r)
{
    size_t items = 0;
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        size_t cap = s->n_stages, n = 0;
        for (size_t w = 0; w < s->n_workloads; w++)
            cap += s->workloads[w].n_stages;
        skipped_ref *refs = calloc(cap ? cap : 1, sizeof *refs);
        if (!refs)
            continue;
        for (size_t k = 0; k < s->n_stages; k++)
            if (s->stages[k].status == PG_RES_SKIPPED)
                refs[n++] = (skipped_ref){&s->stages[k], "all", false};
        for (size_t w = 0; w < s->n_workloads; w++)
            for (size_t k = 0; k < s->workloads[w].n_stages; k++)
                if (s->workloads[w].stages[k].status == PG_RES_SKIPPED)
                    refs[n++] = (skipped_ref){&s->workloads[w].stages[k], s->workloads[w].name, false};
        for (size_t j = 0; j < n; j++)
            if (!refs[j].listed)
                skipped_group(t, s, refs, n, j, &items);
        free(refs);
    }
    if (items > SKIPPED_SHOWN)
        pg_rtext_addf(t, "- … %zu more in the results json\n", items - SKIPPED_SHOWN);
    if (items)
        pg_rtext_add(t, "\n");
}

pg_status pg_report_markdown(const json_t *results, const char *results_file, char **out,
                             size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_results r;
    pg_res_locale loc = {0};
    pg_rtext t;
    pg_rtext_init(&t, PG_MARKDOWN_MAX_BYTES);
    pg_status st = pg_results_read(results, results_file, &r, d);
    if (st != PG_OK)
        return st;
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK)
        goto done;
    write_title(&t, &r);
    write_environment(&t, &r);
    if ((st = write_baselines(&t, results, results_file, d)) != PG_OK)
        goto done;
    size_t i = 0;
    for (; i < r.n_subs && t.len + SUBMISSION_BUDGET < PG_MARKDOWN_MAX_BYTES; i++)
        if ((st = write_submission(&t, &r, &r.subs[i], d)) != PG_OK)
            goto done;
    if (i < r.n_subs)
        pg_rtext_addf(&t, "… %zu more submissions are left out to stay within GitHub's summary "
                          "size limit; the results json has them all.\n\n",
                      r.n_subs - i);
    write_skipped(&t, &r);
    if (t.oom) {
        st = pg_diag_set(d, PG_ERR_INFRA, r.file, 0, NULL, "out of memory rendering markdown");
        goto done;
    }
    *out = pg_rtext_take(&t, len);
    st = PG_OK;
done:
    pg_rtext_free(&t);
    pg_res_locale_leave(&loc);
    pg_results_free(&r);
    return st;
}

char *pg_report_markdown_inline(const char *s, size_t max_bytes)
{
    pg_rtext t;
    pg_rtext_init(&t, max_bytes * 8 + 64);
    pg_rtext_add(&t, "");
    md_text(&t, s, max_bytes);
    if (t.oom) {
        pg_rtext_free(&t);
        return NULL;
    }
    return pg_rtext_take(&t, NULL);
}
