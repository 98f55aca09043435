/* Markdown summary writer (see markdown.h, docs/reports.md). */
#include "markdown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judged.h"
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
#define OVERVIEW_SHOWN 1000         /* rows of the overview table */

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

/* True when the segment [p, p+n) would become a link in GitHub-flavoured markdown by itself:
 * an extended autolink (a scheme followed by "://", "www.", any case) or an e-mail address
 * (an '@' followed later by a '.'). Checked on whole segments, so "xhttp://" counts too. */
static bool autolink_like(const char *p, size_t n)
{
    bool at = false;
    for (size_t i = 0; i < n; i++) {
        if (i + 3 <= n && memcmp(p + i, "://", 3) == 0)
            return true;
        if (i + 4 <= n && (p[i] == 'w' || p[i] == 'W') && (p[i + 1] == 'w' || p[i + 1] == 'W') &&
            (p[i + 2] == 'w' || p[i + 2] == 'W') && p[i + 3] == '.')
            return true;
        if (p[i] == '@')
            at = true;
        else if (p[i] == '.' && at)
            return true;
    }
    return false;
}

/* A segment is a run of bytes that may sit inside a one-backtick code span in a table cell: no
 * space, no backtick, no '|' (a '|' splits a table cell even inside a code span), and none of
 * < > & (kept as entities outside the span, so the document holds no raw HTML of the input). */
static bool segment_byte(char c)
{
    return c != ' ' && c != '`' && c != '|' && c != '<' && c != '>' && c != '&';
}

/* Append untrusted text s as inline markdown: one line, at most max_bytes of s, no HTML, no
 * markdown syntax, no @mentions, no links. Control and bidi characters are already U+FFFD after
 * pg_rtext_add_clean. A segment that GFM would autolink (a URL, www., an e-mail address) goes
 * into a code span as it is: code spans are never linked, and a segment holds no backtick or
 * '|', so one backtick delimits it in any cell. Elsewhere an '_' between two ASCII letters or
 * digits stays as it is (GFM never reads it as emphasis, and names like gemm_bf16_nt stay
 * readable), and a '#' before a digit gets a zero-width joiner (no issue reference). */
static void md_text(pg_text *t, const char *s, size_t max_bytes)
{
    pg_text c;
    pg_text_init(&c, max_bytes * 2 + 16);
    pg_rtext_add_clean(&c, s, PG_CLEAN_ONE_LINE, max_bytes);
    size_t seg_end = 0; /* end of the current plain segment, when inside one */
    for (size_t i = 0; i < c.len;) {
        if (i >= seg_end && segment_byte(c.data[i])) {
            size_t j = i;
            while (j < c.len && segment_byte(c.data[j]))
                j++;
            if (autolink_like(c.data + i, j - i)) {
                pg_text_add(t, "`");
                pg_text_addn(t, c.data + i, j - i);
                pg_text_add(t, "`");
                i = j;
                continue;
            }
            seg_end = j;
        }
        uint32_t cp;
        size_t k = pg_utf8_next(c.data + i, &cp);
        if (cp == '<')
            pg_text_add(t, "&lt;");
        else if (cp == '>')
            pg_text_add(t, "&gt;");
        else if (cp == '&')
            pg_text_add(t, "&amp;");
        else if (cp == '@')
            pg_text_add(t, "@\u200D"); /* a zero-width joiner: no mention, no notification */
        else if (cp == '#' && c.data[i + 1] >= '0' && c.data[i + 1] <= '9')
            pg_text_add(t, "#\u200D"); /* no reference to an issue or pull request */
        else if (cp == '_' && i > 0 && ascii_alnum(c.data[i - 1]) && ascii_alnum(c.data[i + 1]))
            pg_text_add(t, "_");
        else if (md_punct(cp)) {
            char e[3] = {'\\', (char)cp, '\0'};
            pg_text_add(t, e);
        } else
            pg_text_addn(t, c.data + i, k);
        i += k;
    }
    if (c.oom)
        t->oom = true;
    pg_text_free(&c);
}

/* md_text, or DASH for NULL/empty. */
static void md_text_or_dash(pg_text *t, const char *s, size_t max_bytes)
{
    if (s && s[0])
        md_text(t, s, max_bytes);
    else
        pg_text_add(t, DASH);
}

/* label as it is (our own text), then the value: md_text_or_dash. */
static void md_field(pg_text *t, const char *label, const char *s, size_t max_bytes)
{
    pg_text_add(t, label);
    md_text_or_dash(t, s, max_bytes);
}

/* "<stage>[<workload>]" escaped (the JUnit testcase name). */
static void md_stage_name(pg_text *t, const char *stage, const char *workload)
{
    pg_text n;
    pg_text_init(&n, 2 * NAME_MAX_BYTES + 64);
    pg_text_add(&n, stage);
    pg_text_add(&n, "[");
    pg_rtext_add_clean(&n, workload, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
    pg_text_add(&n, "]");
    md_text(t, n.data, 2 * NAME_MAX_BYTES + 64);
    pg_text_free(&n);
}

/* Starts the item "- <stage>[<workload>]" of a list of workload stages, with the list's
 * heading before its first item (*any: an item was written). */
static void stage_item(pg_text *t, bool *any, const char *heading, const char *stage,
                       const char *workload)
{
    if (!*any)
        pg_text_add(t, heading);
    *any = true;
    pg_text_add(t, "- ");
    md_stage_name(t, stage, workload);
}

/* ---- header ---- */

/* The verdict word of a submission as people read it: ERROR is the machine's fault, not the
 * kernel's, and a PASS without any GPU stage only covers the offline stages. */
static const char *verdict_words(const pg_results *r, const pg_res_submission *s)
{
    if (s->verdict == PG_RES_ERROR)
        return "INFRASTRUCTURE ERROR";
    if (pg_res_not_judged_on_gpu(r, s, NULL))
        return s->verdict == PG_RES_PASS ? "PASS offline, not judged on a GPU"
                                         : "SKIPPED, not judged on a GPU";
    return pg_res_status_word(s->verdict);
}

static void write_title(pg_text *t, const pg_results *r)
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
    const char *why = NULL;
    size_t unjudged = pg_res_count_not_judged_on_gpu(r, &why);
    pg_text_addf(t, "## ptxgate: %s",
                  r->verdict == PG_RES_ERROR ? "INFRASTRUCTURE ERROR"
                                             : pg_res_status_word(r->verdict));
    if (unjudged) {
        pg_text_add(t, " · not judged on a GPU: ");
        md_text(t, why, MESSAGE_MAX_BYTES);
    }
    pg_text_add(t, "\n\n");
    if (r->verdict == PG_RES_ERROR)
        pg_text_add(t, "> **Infrastructure error:** the gate could not judge everything (no GPU, "
                        "a missing tool, a worker that died, a failed vendor library); this is "
                        "not a verdict on the kernels. The failing stages are listed below.\n\n");
    if (unjudged)
        pg_text_addf(t, "> **Not judged on a GPU:** %zu of %zu submission%s passed only the "
                         "offline stages; correctness and performance did not run, so their "
                         "kernels are unjudged.\n\n",
                      unjudged, r->n_subs, r->n_subs == 1 ? "" : "s");
    pg_text_addf(t, "%zu submission%s: %zu PASS, %zu FAIL, %zu ERROR", r->n_subs,
                  r->n_subs == 1 ? "" : "s", subs[PG_RES_PASS], subs[PG_RES_FAIL],
                  subs[PG_RES_ERROR]);
    if (subs[PG_RES_SKIPPED])
        pg_text_addf(t, ", %zu SKIPPED", subs[PG_RES_SKIPPED]);
    pg_text_addf(t, " · stages: %zu passed, %zu failed, %zu errored, %zu skipped · exit code %lld "
                     "· %.1f s · started %s",
                  recs[PG_RES_PASS], recs[PG_RES_FAIL], recs[PG_RES_ERROR], recs[PG_RES_SKIPPED],
                  (long long)r->exit_code, r->duration_s, r->started_utc);
    if (r->tool_version) {
        pg_text_add(t, " · ptxgate ");
        md_text(t, r->tool_version, 64);
    }
    pg_text_add(t, "\n\n");
}

static void write_environment(pg_text *t, const pg_results *r)
{
    const pg_res_env *e = &r->env;
    char b[32];
    pg_text_add(t, "**Environment:** ");
    if (e->has_gpu) {
        md_text_or_dash(t, e->gpu_name, NAME_MAX_BYTES);
        if (e->compute_capability || e->sm_count.has) {
            pg_text_add(t, " (");
            if (e->compute_capability) {
                pg_text_add(t, "compute capability ");
                md_text(t, e->compute_capability, 16);
            }
            if (e->sm_count.has)
                pg_text_addf(t, "%s%lld SMs", e->compute_capability ? ", " : "",
                              (long long)e->sm_count.v);
            pg_text_add(t, ")");
        }
    } else {
        /* Said once: the title gives the reason when a submission went unjudged. */
        const char *why = NULL;
        pg_res_count_not_judged_on_gpu(r, &why);
        if (why && why == e->gpu_skip_reason) {
            pg_text_add(t, "GPU not used (the reason is in the title)");
        } else {
            pg_text_add(t, "GPU not used: ");
            md_text(t, e->gpu_skip_reason ? e->gpu_skip_reason : "no reason recorded",
                    MESSAGE_MAX_BYTES);
        }
    }
    md_field(t, " · driver ", e->driver_version, 64);
    pg_text_addf(t, " · CUDA %s",
                  e->cuda_driver_api_version.has
                      ? pg_res_cuda_version(e->cuda_driver_api_version.v, b, sizeof b)
                      : DASH);
    md_field(t, " · ptxas ", e->ptxas_version, 64);
    pg_text_addf(t, " · cuBLASLt %s",
                  e->cublaslt_version.has
                      ? pg_res_cublaslt_version(e->cublaslt_version.v, b, sizeof b)
                      : DASH);
    md_field(t, " · host ", e->hostname, NAME_MAX_BYTES);
    pg_text_add(t, "\n\n");
}

/* The stored baselines the run used (results "baselines", docs/baselines.md): the folder, the
 * GPU key and policies, then its notes (fingerprint changes, missing files, drift). Nothing when
 * the run used no baselines folder, or looked nothing up and has no note. */
static pg_status write_baselines(pg_text *t, const pg_results *r, pg_diag *d)
{
    (void)d;
    const pg_res_baselines *b = &r->baselines;
    /* Nothing was looked up (no GPU and no --gpu-key) and nothing to say: no section. */
    if (!b->dir || (!b->gpu_key && b->n_notes == 0))
        return PG_OK;
    pg_text_add(t, "**Stored baselines:** ");
    md_text(t, b->dir, NAME_MAX_BYTES);
    if (b->gpu_key) {
        pg_text_add(t, " · GPU key ");
        md_text(t, b->gpu_key, 64);
        if (b->gpu_key_source) {
            pg_text_add(t, " (");
            md_text(t, b->gpu_key_source, NAME_MAX_BYTES);
            pg_text_add(t, ")");
        }
    }
    md_field(t, " · missing baseline: ", b->on_missing_baseline, 16);
    md_field(t, " · runner drift: ", b->on_drift, 16);
    if (b->drift_tolerance.has)
        pg_text_addf(t, " beyond %.1f %%", 100.0 * b->drift_tolerance.v);
    pg_text_add(t, "\n\n");
    size_t n = b->n_notes;
    for (size_t i = 0; i < n && i < BASELINE_NOTES_SHOWN; i++) {
        pg_text_add(t, "- ");
        md_text(t, b->notes[i], MESSAGE_MAX_BYTES);
        pg_text_add(t, "\n");
    }
    if (n > BASELINE_NOTES_SHOWN)
        pg_text_addf(t, "- … %zu more in the results json\n", n - BASELINE_NOTES_SHOWN);
    if (n)
        pg_text_add(t, "\n");
    return PG_OK;
}

/* ---- submission stages ---- */

/* "168 registers, 0 B spill stores, 0 B spill loads, ..." from ptxas numbers. */
static void register_summary(pg_text *t, const pg_res_resources *r, bool *wrote)
{
    const struct {
        pg_res_int v;
        const char *label;
    } k_items[] = {{r->registers, " registers"},
                   {r->spill_store_bytes, " B spill stores"},
                   {r->spill_load_bytes, " B spill loads"},
                   {r->shared_bytes, " B shared"},
                   {r->stack_frame_bytes, " B stack"}};
    for (size_t i = 0; i < sizeof k_items / sizeof k_items[0]; i++) {
        pg_res_int v = k_items[i].v;
        if (v.has) {
            pg_text_add(t, *wrote ? ", " : "");
            pg_text_addf(t, "%lld%s", (long long)v.v, k_items[i].label);
            *wrote = true;
        }
    }
}

/* Registers and spills of the whole module, or else of each entry. */
static pg_status write_assemble_numbers(pg_text *t, const pg_res_stage *s, pg_diag *d)
{
    (void)d;
    bool wrote = false;
    const pg_res_assemble *a = &s->detail.u.assemble;
    register_summary(t, &a->res, &wrote);
    if (wrote)
        return PG_OK;
    size_t n = a->n_entries;
    for (size_t i = 0; i < n && i < ENTRIES_SHOWN; i++) {
        pg_text_add(t, i ? "; " : "");
        md_text_or_dash(t, a->entries[i].name, NAME_MAX_BYTES);
        pg_text_add(t, ": ");
        bool any = false;
        register_summary(t, &a->entries[i].res, &any);
        if (!any)
            pg_text_add(t, DASH);
    }
    if (n > ENTRIES_SHOWN)
        pg_text_addf(t, "; %zu more entries", n - ENTRIES_SHOWN);
    return PG_OK;
}

/* The first error and warning diagnostics (ptxas "info" lines are resource chatter, left to the
 * results json). */
static pg_status write_diagnostics(pg_text *t, const pg_res_stage *s, pg_diag *d)
{
    pg_res_ptx_diag shown[DIAGS_SHOWN];
    size_t n, more;
    pg_status st = pg_res_ptx_diags_shown(s, shown, DIAGS_SHOWN, &n, &more, d);
    if (st != PG_OK)
        return st;
    for (size_t k = 0; k < n; k++) {
        const pg_res_ptx_diag g = shown[k];
        pg_text_add(t, "  - ");
        if (g.line.has)
            pg_text_addf(t, "PTX line %lld: ", (long long)g.line.v);
        if (g.severity[0]) {
            md_text(t, g.severity, 32);
            pg_text_add(t, ": ");
        }
        md_text_or_dash(t, g.message, MESSAGE_MAX_BYTES);
        pg_text_add(t, "\n");
    }
    if (more)
        pg_text_addf(t, "  - … %zu more diagnostic%s in the results json\n", more,
                      more == 1 ? "" : "s");
    return PG_OK;
}

static void write_reason(pg_text *t, const pg_results *r, const char *why);

static pg_status write_submission_stage(pg_text *t, const pg_results *r, const pg_res_stage *s,
                                        pg_diag *d)
{
    pg_status st = PG_OK;
    pg_text_add(t, "- ");
    md_text(t, s->stage, 64);
    pg_text_addf(t, ": %s", pg_res_status_word(s->status));
    bool is_assemble = strcmp(s->stage, "assemble") == 0;
    if (s->status == PG_RES_SKIPPED && s->message[0]) {
        pg_text_add(t, " — ");
        write_reason(t, r, s->message);
    } else if (s->status != PG_RES_PASS && s->message[0]) {
        pg_text_add(t, " — ");
        md_text(t, s->message, MESSAGE_MAX_BYTES);
    } else if (is_assemble && s->status == PG_RES_PASS) {
        pg_text_add(t, " — ");
        size_t before = t->len;
        if ((st = write_assemble_numbers(t, s, d)) != PG_OK)
            return st;
        if (t->len == before)
            md_text_or_dash(t, s->message, MESSAGE_MAX_BYTES);
    }
    if (s->status != PG_RES_SKIPPED)
        pg_text_addf(t, " (%.3f s)", s->duration_s);
    pg_text_add(t, "\n");
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
        if (st && st->detail.kind == PG_RES_STAGE_INSTRUCTIONS &&
            st->detail.u.instructions.n_targets > 0)
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
static pg_status write_instructions(pg_text *t, const pg_res_submission *s,
                                    const pg_res_stage *st, pg_diag *d)
{
    (void)d;
    const pg_res_instructions *in = &st->detail.u.instructions;
    const char *policy = in->policy, *arch = in->arch;
    bool warn = policy && strcmp(policy, "warn") == 0;
    md_field(t, "Target instructions (", arch, 32);
    md_field(t, ", policy ", policy, 32);
    pg_text_addf(t, "): %s", pg_res_status_word(st->status));
    if (!instructions_uniform(s, st))
        pg_text_add(t, " in the first workload; the others are listed below");
    pg_text_add(t, "\n\n| target | status | finding | executed |\n|---|---|---|---|\n");
    for (size_t i = 0; i < in->n_targets; i++) {
        const pg_res_instr_target tg = in->targets[i];
        pg_text_add(t, "| ");
        md_text(t, tg.target, NAME_MAX_BYTES);
        pg_text_add(t, " | ");
        bool failed = strcmp(tg.status, "fail") == 0;
        pg_text_add(t, failed && warn ? "WARN" : failed ? "FAIL" : strcmp(tg.status, "pass") == 0 ? "PASS" : "UNKNOWN");
        if (tg.reason) {
            pg_text_add(t, " (");
            md_text(t, tg.reason, 64);
            pg_text_add(t, ")");
        }
        pg_text_add(t, " | ");
        md_text_or_dash(t, tg.summary, MESSAGE_MAX_BYTES);
        pg_text_add(t, " | ");
        if (tg.executed_count.has) {
            pg_text_addf(t, "%.0f", tg.executed_count.v);
            if (tg.coverage.has)
                pg_text_addf(t, ", coverage %.4g", tg.coverage.v);
        } else {
            md_text_or_dash(t, tg.runtime_status, 64);
        }
        pg_text_add(t, " |\n");
    }
    pg_text_add(t, "\n");
    return PG_OK;
}

/* ---- the workload table ---- */

/* Why a submission's timings must not be read, or NULL: a verify stage (the output of the last
 * timed launch checked again, docs/isolation.md) that did not pass means the kernel may have
 * skipped work while it was timed, so no performance number of it is shown. */
static const char *timing_void(const pg_res_submission *s)
{
    const char *why = NULL;
    for (size_t w = 0; w < s->n_workloads; w++) {
        const pg_res_stage *v =
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "verify");
        if (v && (v->status == PG_RES_FAIL || v->status == PG_RES_ERROR))
            return "timing void: failed verify";
        if (v && v->status == PG_RES_SKIPPED &&
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "performance") &&
            pg_res_find_stage(s->workloads[w].stages, s->workloads[w].n_stages, "performance")
                    ->status != PG_RES_SKIPPED)
            why = "timing void: verify did not run";
    }
    return why;
}

/* A number cell: v in fmt (TFLOP/s "%.1f", errors "%.3g"), DASH when absent. */
static void cell_number(pg_text *t, pg_res_num v, const char *fmt)
{
    pg_text_add(t, " | ");
    if (v.has)
        pg_text_addf(t, fmt, v.v);
    else
        pg_text_add(t, DASH);
}

static void write_status_cell(pg_text *t, const pg_res_workload *w)
{
    size_t skipped = 0;
    for (size_t k = 0; k < w->n_stages; k++)
        skipped += w->stages[k].status == PG_RES_SKIPPED;
    if (w->verdict == PG_RES_SKIPPED ||
        (w->n_stages > 0 && skipped == w->n_stages && w->verdict == PG_RES_PASS)) {
        pg_text_add(t, "SKIPPED");
        return;
    }
    pg_text_add(t, pg_res_status_word(w->verdict));
    bool first = true;
    for (size_t k = 0; k < w->n_stages; k++) {
        const pg_res_stage *s = &w->stages[k];
        if (s->status != PG_RES_FAIL && s->status != PG_RES_ERROR)
            continue;
        pg_text_add(t, first ? " (" : ", ");
        first = false;
        md_text(t, s->stage, 64);
        if (s->status != w->verdict)
            pg_text_addf(t, " %s", pg_res_status_word(s->status));
    }
    if (!first)
        pg_text_add(t, ")");
}

/* The numbers of one workload row (docs/reports.md). */
typedef struct {
    pg_res_num cand, base, est, lo, hi, abs_err, l2;
    pg_res_int bad;
} row_numbers;

static pg_status read_row(const pg_res_workload *w, row_numbers *n, pg_diag *d)
{
    const pg_res_stage *perf = pg_res_find_stage(w->stages, w->n_stages, "performance");
    const pg_res_stage *cor = pg_res_find_stage(w->stages, w->n_stages, "correctness");
    (void)d;
    memset(n, 0, sizeof *n);
    if (perf && perf->detail.kind == PG_RES_STAGE_PERFORMANCE) {
        const pg_res_performance *p = &perf->detail.u.performance;
        n->cand = p->candidate.tflops;
        n->base = p->baseline.tflops;
        /* the column is the speedup over the library; one over the accepted kernel (the
         * library refused the configuration) is in the stage's message only */
        if (!p->over_accepted) {
            n->est = p->speedup_estimate;
            n->lo = p->speedup_ci_low;
            n->hi = p->speedup_ci_high;
        }
    }
    if (cor && cor->detail.kind == PG_RES_STAGE_CORRECTNESS) {
        const pg_res_correctness *c = &cor->detail.u.correctness;
        n->abs_err = c->max_absolute_error;
        n->l2 = c->relative_l2_error;
        n->bad = c->bad_elements;
    }
    return PG_OK;
}

static bool row_has_numbers(const row_numbers *n)
{
    return n->cand.has || n->base.has || n->est.has || n->abs_err.has || n->l2.has || n->bad.has;
}

/* "0.833× [0.828, 0.837]", "0.833×" or DASH. */
static void write_speedup(pg_text *t, const row_numbers *n)
{
    if (n->est.has && n->lo.has && n->hi.has)
        pg_text_addf(t, "%.3f× [%.3f, %.3f]", n->est.v, n->lo.v, n->hi.v);
    else if (n->est.has)
        pg_text_addf(t, "%.3f×", n->est.v);
    else
        pg_text_add(t, DASH);
}

static pg_status write_row(pg_text *t, const pg_res_workload *w, const char *void_why,
                           pg_diag *d)
{
    row_numbers n;
    pg_status st = read_row(w, &n, d);
    if (st != PG_OK)
        return st;
    pg_text_add(t, "| ");
    md_text_or_dash(t, w->name, NAME_MAX_BYTES);
    pg_text_add(t, " | ");
    write_status_cell(t, w);
    if (void_why && (n.cand.has || n.base.has || n.est.has)) {
        pg_text_addf(t, " | %s | %s | %s", DASH, DASH, void_why);
    } else {
        cell_number(t, n.cand, "%.1f");
        cell_number(t, n.base, "%.1f");
        pg_text_add(t, " | ");
        write_speedup(t, &n);
    }
    cell_number(t, n.abs_err, "%.3g");
    cell_number(t, n.l2, "%.3g");
    pg_text_add(t, " | ");
    if (n.bad.has)
        pg_text_addf(t, "%lld", (long long)n.bad.v);
    else
        pg_text_add(t, DASH);
    pg_text_add(t, " |\n");
    return PG_OK;
}

static void write_table_header(pg_text *t, const pg_results *r)
{
    double conf = r->confidence.has ? r->confidence.v : 0.95;
    pg_text_addf(t,
                  "| workload | status | candidate TFLOP/s | baseline TFLOP/s | speedup [%g%% CI] "
                  "| max abs error | rel L2 error | bad elements |\n"
                  "|---|---|--:|--:|--:|--:|--:|--:|\n",
                  conf * 100.0);
}

/* When no workload row has a number and every status cell reads the same, one line says so
 * instead of a table of dashes: "All 6 workloads (a, b, c, …): FAIL (instructions); nothing
 * measured." Sets *done when it wrote that line. */
static pg_status write_compact_rows(pg_text *t, const pg_res_submission *s, bool *done,
                                    pg_diag *d)
{
    *done = false;
    if (s->n_workloads < 2)
        return PG_OK;
    pg_text first, cell;
    pg_text_init(&first, 4096);
    pg_text_add(&first, "");
    write_status_cell(&first, &s->workloads[0]);
    bool same = !first.oom;
    for (size_t w = 0; same && w < s->n_workloads; w++) {
        row_numbers n;
        pg_status st = read_row(&s->workloads[w], &n, d);
        if (st != PG_OK) {
            pg_text_free(&first);
            return st;
        }
        pg_text_init(&cell, 4096);
        pg_text_add(&cell, "");
        write_status_cell(&cell, &s->workloads[w]);
        same = !row_has_numbers(&n) && !cell.oom && strcmp(cell.data, first.data) == 0;
        pg_text_free(&cell);
    }
    if (same) {
        pg_text_addf(t, "All %zu workloads (", s->n_workloads);
        for (size_t w = 0; w < s->n_workloads && w < 4; w++) {
            pg_text_add(t, w ? ", " : "");
            md_text_or_dash(t, s->workloads[w].name, NAME_MAX_BYTES);
        }
        pg_text_addf(t, "%s): %s; nothing measured.\n", s->n_workloads > 4 ? ", …" : "",
                      first.data);
        *done = true;
    }
    pg_text_free(&first);
    return PG_OK;
}

/* One line per passed performance stage: its message says the verdict (PASS, FAST, or an
 * INCONCLUSIVE warning) with the estimate and interval; failures are listed above already.
 * Nothing but the reason when the submission's timings are void. */
static void write_verdict_lines(pg_text *t, const pg_res_submission *s, const char *void_why)
{
    bool any = false;
    for (size_t w = 0; w < s->n_workloads && w < ROWS_SHOWN; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (st->status != PG_RES_PASS || strcmp(st->stage, "performance") != 0 ||
                !st->message[0])
                continue;
            if (void_why) {
                pg_text_addf(t, "\nPerformance verdicts: %s (a kernel whose output is wrong "
                                 "after timing may have skipped work while it was timed; no "
                                 "timing of this submission is shown).\n", void_why);
                return;
            }
            stage_item(t, &any, "\nPerformance verdicts:\n\n", st->stage, s->workloads[w].name);
            pg_text_add(t, ": ");
            md_text(t, st->message, MESSAGE_MAX_BYTES);
            pg_text_add(t, "\n");
        }
}

/* Instructions stages that passed or were skipped with another message than the target table
 * shows (a warning under policy warn, a workload whose runtime counts differ). */
static void write_instruction_others(pg_text *t, const pg_res_submission *s,
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
            stage_item(t, &any, "\nTarget instructions in the other workloads:\n\n", st->stage,
                       s->workloads[w].name);
            pg_text_addf(t, ": %s — ", pg_res_status_word(st->status));
            md_text_or_dash(t, st->message, MESSAGE_MAX_BYTES);
            pg_text_add(t, "\n");
        }
}

/* Workload stages that failed or errored, with their messages; a message said by several
 * workloads is said once with their names ("instructions[a, b and 4 more]"), and instructions
 * stages that say what the target table (shown) says are not repeated. A performance message
 * of a submission whose timings are void gives only the reason. */
static void write_problems(pg_text *t, const pg_res_submission *s, const pg_res_stage *shown,
                           const char *void_why)
{
    bool any = false;
    size_t n = s->n_workloads < ROWS_SHOWN ? s->n_workloads : ROWS_SHOWN;
    for (size_t w = 0; w < n; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++) {
            const pg_res_stage *st = &s->workloads[w].stages[k];
            if (st->status != PG_RES_FAIL && st->status != PG_RES_ERROR)
                continue;
            if (shown && strcmp(st->stage, "instructions") == 0 && st->status == shown->status &&
                strcmp(st->message, shown->message) == 0)
                continue;
            /* Said already by an earlier workload? */
            bool said = false;
            for (size_t v = 0; v < w && !said; v++) {
                const pg_res_stage *o = pg_res_find_stage(s->workloads[v].stages,
                                                          s->workloads[v].n_stages, st->stage);
                said = o && o->status == st->status && strcmp(o->message, st->message) == 0;
            }
            if (said)
                continue;
            size_t same = 0;
            for (size_t v = w + 1; v < n; v++) {
                const pg_res_stage *o = pg_res_find_stage(s->workloads[v].stages,
                                                          s->workloads[v].n_stages, st->stage);
                same += o && o->status == st->status && strcmp(o->message, st->message) == 0;
            }
            stage_item(t, &any, "\nFailed and errored stages:\n\n", st->stage,
                       s->workloads[w].name);
            if (same)
                pg_text_addf(t, " and %zu more workload%s", same, same == 1 ? "" : "s");
            pg_text_addf(t, ": %s — ", pg_res_status_word(st->status));
            if (void_why && strcmp(st->stage, "performance") == 0)
                pg_text_add(t, void_why);
            else
                md_text_or_dash(t, st->message, MESSAGE_MAX_BYTES);
            pg_text_add(t, "\n");
        }
}

/* ---- the overview ---- */

/* The stages that failed or errored, distinct names in order ("assemble", "instructions,
 * performance"), or DASH. */
static void write_failing_stages(pg_text *t, const pg_res_submission *s)
{
    const char *names[4];
    size_t n = 0;
    bool more = false;
#define NOTE(st)                                                                                  \
    if ((st)->status == PG_RES_FAIL || (st)->status == PG_RES_ERROR) {                             \
        bool seen = false;                                                                         \
        for (size_t q = 0; q < n; q++)                                                             \
            seen = seen || strcmp(names[q], (st)->stage) == 0;                                     \
        if (!seen && n < 3)                                                                        \
            names[n++] = (st)->stage;                                                              \
        else if (!seen)                                                                            \
            more = true;                                                                           \
    }
    for (size_t k = 0; k < s->n_stages; k++)
        NOTE(&s->stages[k]);
    for (size_t w = 0; w < s->n_workloads; w++)
        for (size_t k = 0; k < s->workloads[w].n_stages; k++)
            NOTE(&s->workloads[w].stages[k]);
#undef NOTE
    if (!n)
        pg_text_add(t, DASH);
    for (size_t q = 0; q < n; q++) {
        pg_text_add(t, q ? ", " : "");
        md_text(t, names[q], 64);
    }
    if (more)
        pg_text_add(t, ", …");
}

/* One row per submission: its number (a link to its section), task / name, verdict, failing
 * stages, and the speedup at its headline workload (the first in the results: the first the
 * task lists, its headline size). */
static pg_status write_overview(pg_text *t, const pg_results *r, size_t shown, pg_diag *d)
{
    pg_text_add(t, "| # | submission | verdict | failing stage | speedup at the headline workload "
                    "|\n|--:|---|---|---|---|\n");
    for (size_t i = 0; i < shown; i++) {
        const pg_res_submission *s = &r->subs[i];
        pg_text_addf(t, "| [%zu](#ptxgate-%zu) | ", i + 1, i + 1);
        md_text(t, s->task, NAME_MAX_BYTES);
        pg_text_add(t, " / ");
        md_text(t, s->name, NAME_MAX_BYTES);
        pg_text_addf(t, " | %s | ", verdict_words(r, s));
        write_failing_stages(t, s);
        pg_text_add(t, " | ");
        row_numbers n = {0};
        pg_status st;
        if (s->n_workloads && (st = read_row(&s->workloads[0], &n, d)) != PG_OK)
            return st;
        const char *void_why = timing_void(s);
        if (void_why)
            pg_text_add(t, void_why);
        else if (n.est.has) {
            write_speedup(t, &n);
            pg_text_add(t, " at ");
            md_text(t, s->workloads[0].name, NAME_MAX_BYTES);
        } else
            pg_text_add(t, DASH);
        pg_text_add(t, " |\n");
    }
    if (shown < r->n_subs)
        pg_text_addf(t, "| … | %zu more in the results json | | | |\n", r->n_subs - shown);
    pg_text_add(t, "\n");
    return PG_OK;
}

/* ---- one submission ---- */

static pg_status write_workloads(pg_text *t, const pg_results *r, const pg_res_submission *s,
                                 pg_diag *d)
{
    pg_status st;
    const char *void_why = timing_void(s);
    const pg_res_stage *instr = instructions_shown(s);
    if (instr && (st = write_instructions(t, s, instr, d)) != PG_OK)
        return st;
    bool compact = false;
    if ((st = write_compact_rows(t, s, &compact, d)) != PG_OK)
        return st;
    if (!compact) {
        write_table_header(t, r);
        for (size_t w = 0; w < s->n_workloads && w < ROWS_SHOWN; w++)
            if ((st = write_row(t, &s->workloads[w], void_why, d)) != PG_OK)
                return st;
        if (s->n_workloads > ROWS_SHOWN)
            pg_text_addf(t, "\n… %zu more workloads in the results json.\n",
                          s->n_workloads - ROWS_SHOWN);
    }
    write_problems(t, s, instr, void_why);
    write_verdict_lines(t, s, void_why);
    write_instruction_others(t, s, instr);
    return PG_OK;
}

static pg_status write_submission(pg_text *t, const pg_results *r, size_t index, pg_diag *d)
{
    const pg_res_submission *s = &r->subs[index];
    pg_status st;
    pg_text_addf(t, "<a name=\"ptxgate-%zu\"></a>\n\n### %zu · %s: ", index + 1, index + 1,
                  verdict_words(r, s));
    md_text(t, s->task, NAME_MAX_BYTES);
    pg_text_add(t, " / ");
    md_text(t, s->name, NAME_MAX_BYTES);
    pg_text_add(t, "\n\n- task: ");
    md_text(t, s->task, NAME_MAX_BYTES);
    md_field(t, " · source: ", s->source, NAME_MAX_BYTES);
    md_field(t, " · arch: ", s->arch, 32);
    pg_text_add(t, "\n");
    for (size_t k = 0; k < s->n_stages; k++)
        if ((st = write_submission_stage(t, r, &s->stages[k], d)) != PG_OK)
            return st;
    pg_text_add(t, "\n");
    if (s->n_workloads == 0) {
        pg_text_add(t, "No workloads.\n\n");
        return PG_OK;
    }
    /* A passing submission's numbers are there to look up, not to read first: collapsed. */
    bool collapse = s->verdict == PG_RES_PASS || s->verdict == PG_RES_SKIPPED;
    if (collapse)
        pg_text_addf(t, "<details><summary>%zu workload%s: targets, numbers and verdicts"
                         "</summary>\n\n",
                      s->n_workloads, s->n_workloads == 1 ? "" : "s");
    if ((st = write_workloads(t, r, s, d)) != PG_OK)
        return st;
    pg_text_add(t, collapse ? "\n</details>\n\n" : "\n");
    return PG_OK;
}

/* ---- skipped stages ---- */

/* One list item per distinct reason over the whole run: without a GPU every stage of every
 * workload of every submission skips for the same reason, and listing each one buries the
 * report. The run's no-GPU reason, said in the title or the environment line, is not repeated. */
typedef struct {
    const pg_res_stage *stage;
    const pg_res_submission *sub;
    const char *workload;
    bool listed;
} skipped_ref;

#define SUBS_NAMED 4 /* submissions named per reason */

static void write_reason(pg_text *t, const pg_results *r, const char *why)
{
    const char *env = r->env.has_gpu ? NULL : r->env.gpu_skip_reason;
    const char *at = env && env[0] ? strstr(why, env) : NULL;
    if (!why[0]) {
        pg_text_add(t, "no reason recorded");
        return;
    }
    if (!at) {
        md_text(t, why, MESSAGE_MAX_BYTES);
        return;
    }
    pg_text n;
    pg_text_init(&n, 2 * MESSAGE_MAX_BYTES + 64);
    pg_text_addn(&n, why, (size_t)(at - why));
    pg_text_add(&n, "no GPU (the reason is above)");
    pg_text_add(&n, at + strlen(env));
    md_text(t, n.data ? n.data : "", MESSAGE_MAX_BYTES);
    pg_text_free(&n);
}

static void skipped_group(pg_text *t, const pg_results *r, skipped_ref *refs, size_t n,
                          size_t first, size_t *items)
{
    const char *why = refs[first].stage->message;
    size_t count = 0, subs = 0;
    const pg_res_submission *named[SUBS_NAMED];
    const pg_res_submission *last = NULL;
    for (size_t j = first; j < n; j++)
        if (!refs[j].listed && strcmp(refs[j].stage->message, why) == 0) {
            refs[j].listed = true;
            count++;
            if (refs[j].sub != last) {
                if (subs < SUBS_NAMED)
                    named[subs] = refs[j].sub;
                subs++;
                last = refs[j].sub;
            }
        }
    if (*items == 0)
        pg_text_add(t, "### Skipped stages\n\n");
    if (++*items > SKIPPED_SHOWN)
        return;
    pg_text_add(t, "- ");
    write_reason(t, r, why);
    pg_text_add(t, ": ");
    if (count == 1) {
        md_stage_name(t, refs[first].stage->stage, refs[first].workload);
        pg_text_add(t, " of ");
    } else {
        pg_text_addf(t, "%zu stages of ", count);
    }
    if (subs > 1)
        pg_text_addf(t, "%zu submissions (", subs);
    for (size_t q = 0; q < subs && q < SUBS_NAMED; q++) {
        pg_text_add(t, q ? ", " : "");
        md_text(t, named[q]->task, NAME_MAX_BYTES);
        pg_text_add(t, " / ");
        md_text(t, named[q]->name, NAME_MAX_BYTES);
    }
    if (subs > SUBS_NAMED)
        pg_text_addf(t, " and %zu more", subs - SUBS_NAMED);
    pg_text_add(t, subs > 1 ? ")\n" : "\n");
}

static void write_skipped(pg_text *t, const pg_results *r)
{
    size_t items = 0, cap = 0, n = 0;
    for (size_t i = 0; i < r->n_subs; i++) {
        cap += r->subs[i].n_stages;
        for (size_t w = 0; w < r->subs[i].n_workloads; w++)
            cap += r->subs[i].workloads[w].n_stages;
    }
    skipped_ref *refs = calloc(cap ? cap : 1, sizeof *refs);
    if (!refs) {
        t->oom = true;
        return;
    }
    for (size_t i = 0; i < r->n_subs; i++) {
        const pg_res_submission *s = &r->subs[i];
        for (size_t k = 0; k < s->n_stages; k++)
            if (s->stages[k].status == PG_RES_SKIPPED)
                refs[n++] = (skipped_ref){&s->stages[k], s, "all", false};
        for (size_t w = 0; w < s->n_workloads; w++)
            for (size_t k = 0; k < s->workloads[w].n_stages; k++)
                if (s->workloads[w].stages[k].status == PG_RES_SKIPPED)
                    refs[n++] = (skipped_ref){&s->workloads[w].stages[k], s,
                                              s->workloads[w].name, false};
    }
    for (size_t j = 0; j < n; j++)
        if (!refs[j].listed)
            skipped_group(t, r, refs, n, j, &items);
    free(refs);
    if (items > SKIPPED_SHOWN)
        pg_text_addf(t, "- … %zu more in the results json\n", items - SKIPPED_SHOWN);
    if (items)
        pg_text_add(t, "\n");
}

pg_status pg_report_markdown(const json_t *results, const char *results_file, char **out,
                             size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_results r;
    pg_res_locale loc = {0};
    pg_text t;
    pg_text_init(&t, PG_MARKDOWN_MAX_BYTES);
    pg_status st = pg_results_read(results, results_file, &r, d);
    if (st != PG_OK)
        return st;
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK)
        goto done;
    write_title(&t, &r);
    write_environment(&t, &r);
    if ((st = write_baselines(&t, &r, d)) != PG_OK)
        goto done;
    if ((st = write_overview(&t, &r, r.n_subs < OVERVIEW_SHOWN ? r.n_subs : OVERVIEW_SHOWN,
                             d)) != PG_OK)
        goto done;
    size_t i = 0;
    for (; i < r.n_subs && t.len + SUBMISSION_BUDGET < PG_MARKDOWN_MAX_BYTES; i++)
        if ((st = write_submission(&t, &r, i, d)) != PG_OK)
            goto done;
    if (i < r.n_subs)
        pg_text_addf(&t, "… %zu more submissions are left out to stay within GitHub's summary "
                          "size limit; the results json has them all.\n\n",
                      r.n_subs - i);
    write_skipped(&t, &r);
    st = pg_text_finish(&t, r.file, "out of memory rendering markdown", out, len, d);
done:
    pg_text_free(&t);
    pg_res_locale_leave(&loc);
    pg_results_free(&r);
    return st;
}

char *pg_report_markdown_url(const char *s)
{
    if (!s || (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0) ||
        strlen(s) > 1000)
        return NULL;
    for (const char *p = s; *p; p++)
        if (!ascii_alnum(*p) && !strchr("-._~:/?#[]@!$&'*+,;=%", *p))
            return NULL;
    return strdup(s);
}

char *pg_report_markdown_inline(const char *s, size_t max_bytes)
{
    pg_text t;
    pg_text_init(&t, max_bytes * 8 + 64);
    pg_text_add(&t, "");
    md_text(&t, s, max_bytes);
    if (t.oom) {
        pg_text_free(&t);
        return NULL;
    }
    return pg_text_take(&t, NULL);
}
