/* JUnit XML of `ptxgate compare` (libxml2 xmlTextWriter), rendered from the comparison model
 * alone (see compare.h). */
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "xml_writer.h"
#include "results_read.h"
#include "results_read_compare.h"

#define NAME_MAX_BYTES 512

/* Cleaned one-line copy (malloc'd, never empty; NULL on out-of-memory). */
static char *clean(const char *s, const char *suffix)
{
    pg_text t;
    pg_text_init(&t, NAME_MAX_BYTES * 2 + 32);
    pg_rtext_add_clean(&t, s, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
    if (t.len == 0)
        pg_text_add(&t, "unnamed");
    pg_text_add(&t, suffix);
    return pg_text_take(&t, NULL);
}

typedef enum { TC_PASS, TC_FAIL, TC_SKIP } tc_outcome;

typedef struct {
    const pg_cmp_record *rec;
    size_t suite;
    tc_outcome outcome;
    char *classname, *name;
} tcase;

typedef struct {
    const char *task;
    size_t tests, failures, skipped;
} tsuite;



/* Regression → failure; else a non-comparable change, or correctness not judged on a side →
 * skipped; else passed. */
/* The recorded outcome of stage on a side, or NULL when the side records none. */
static const pg_cmp_outcome *recorded(const pg_cmp_rec_side *side, const char *stage)
{
    for (size_t i = 0; i < side->n_outcomes; i++)
        if (strcmp(side->outcomes[i].stage, stage) == 0)
            return &side->outcomes[i];
    return NULL;
}

static tc_outcome classify(const pg_cmp_record *rec, pg_text *why)
{
    bool regression = false, other = false;
    for (size_t i = 0; i < rec->n_changes; i++) {
        regression |= rec->changes[i].kind == PG_CMP_REGRESSION;
        other |= rec->changes[i].kind == PG_CMP_NOT_COMPARABLE;
    }
    const pg_cmp_rec_side *sides[2] = {&rec->old_side, &rec->new_side};
    for (int s = 0; s < 2; s++) {
        const pg_cmp_outcome *o = recorded(sides[s], "correctness");
        other |= o && (o->outcome == PG_RES_ERROR || o->outcome == PG_RES_SKIPPED);
    }
    pg_cmp_change_kind want = regression ? PG_CMP_REGRESSION : PG_CMP_NOT_COMPARABLE;
    bool first = true;
    for (size_t i = 0; i < rec->n_changes; i++) {
        const pg_cmp_change *c = &rec->changes[i];
        if (c->kind != want)
            continue;
        pg_text_addf(why, "%s%s %s → %s", first ? "" : "; ", c->stage,
                     pg_res_status_name(c->old_outcome), pg_res_status_name(c->new_outcome));
        first = false;
    }
    if (regression)
        return TC_FAIL;
    if (other && first)
        pg_text_add(why, "correctness was not judged on one side (error or skipped)");
    /* A stage that ran on one side only was not judged by the comparison: say which. */
    for (size_t i = 0; i < rec->n_not_judged; i++) {
        const char *stage = rec->not_judged[i];
        const pg_cmp_outcome *o = recorded(&rec->old_side, stage);
        const pg_cmp_outcome *n = recorded(&rec->new_side, stage);
        if (!o || !n || o->outcome == n->outcome)
            continue; /* not run on either side: nothing was compared, nothing lost */
        pg_text_addf(why, "%s%s not judged (%s → %s)", first && !other ? "" : "; ", stage,
                     pg_res_status_name(o->outcome), pg_res_status_name(n->outcome));
        first = false;
        other = true;
    }
    return other ? TC_SKIP : TC_PASS;
}

static void side_text(pg_text *t, const char *label, const pg_cmp_rec_side *side)
{
    pg_text_addf(t, "%s: verdict %s", label, side->verdict);
    for (size_t i = 0; i < side->n_outcomes; i++)
        pg_text_addf(t, ", %s %s", side->outcomes[i].stage,
                     pg_res_status_name(side->outcomes[i].outcome));
    if (!isnan(side->speedup))
        pg_text_addf(t, "; speedup %.4fx", side->speedup);
    pg_text_add(t, "\n");
}

static void write_case(pg_xw *x, const tcase *c)
{
    pg_text why, out;
    pg_text_init(&why, 4096);
    pg_text_init(&out, 8192);
    pg_text_add(&why, "");
    classify(c->rec, &why);
    pg_xw_start(x, "testcase");
    pg_xw_attr(x, "name", c->name);
    pg_xw_attr(x, "classname", c->classname);
    pg_xw_attr(x, "time", "0.000");
    if (c->outcome == TC_FAIL) {
        pg_xw_start(x, "failure");
        pg_xw_attr(x, "message", why.data);
        pg_xw_attr(x, "type", "regression");
        pg_xw_text(x, "pass → fail between OLD and NEW: ");
        pg_xw_text(x, why.data);
        pg_xw_text(x, "\n");
        pg_xw_end(x);
    } else if (c->outcome == TC_SKIP) {
        pg_xw_start(x, "skipped");
        pg_text msg;
        pg_text_init(&msg, 4200);
        pg_text_addf(&msg, "not comparable: %s", why.data);
        pg_xw_attr(x, "message", msg.data ? msg.data : "not comparable");
        pg_text_free(&msg);
        pg_xw_end(x);
    }
    side_text(&out, "OLD", &c->rec->old_side);
    side_text(&out, "NEW", &c->rec->new_side);
    if (!isnan(c->rec->log_speedup_ratio))
        pg_text_addf(&out, "speedup NEW / OLD: %.4f\n", exp(c->rec->log_speedup_ratio));
    pg_xw_start(x, "system-out");
    pg_xw_text(x, out.data ? out.data : "");
    pg_xw_end(x);
    pg_xw_end(x);
    if (why.oom || out.oom)
        x->failed = true;
    pg_text_free(&why);
    pg_text_free(&out);
}

static void write_properties(pg_xw *x, const pg_cmp_view *m)
{
    char b[64];
    pg_xw_start(x, "properties");
    pg_xw_property(x, "ptxgate.version", m->tool_version);
    pg_xw_property(x, "compare.old", m->old_side.file);
    pg_xw_property(x, "compare.new", m->new_side.file);
    pg_xw_property(x, "compare.verdict", m->gate_verdict);
    const pg_cmp_mcnemar *mc = NULL;
    for (size_t i = 0; i < m->n_stages; i++)
        if (strcmp(m->stages[i].stage, "correctness") == 0)
            mc = &m->stages[i].mcnemar;
    if (mc) {
        /* json_number_value read a missing p-value as 0 */
        snprintf(b, sizeof b, "%.6g", isnan(mc->p_value) ? 0.0 : mc->p_value);
        pg_xw_property(x, "compare.mcnemar_correctness_p", b);
    }
    if (!isnan(m->wilcoxon.p_value)) {
        snprintf(b, sizeof b, "%.6g", m->wilcoxon.p_value);
        pg_xw_property(x, "compare.wilcoxon_log_speedup_p", b);
    }
    pg_xw_end(x);
}

/* "<classname>\n<name>": both are one-line cleaned text, so the key is unambiguous. NULL on
 * out-of-memory. */
static char *case_key(const char *classname, const char *name)
{
    size_t a = strlen(classname), b = strlen(name);
    char *k = malloc(a + b + 2);
    if (k) {
        memcpy(k, classname, a);
        k[a] = '\n';
        memcpy(k + a + 1, name, b + 1);
    }
    return k;
}

/* Suites (one per task, in order of first appearance) and test cases. Lookups go through hash
 * maps (jansson objects), so a comparison of many workloads, or of many whose names clean to
 * the same text, plans in linear time. */
static pg_status plan(const pg_cmp_view *m, tsuite **suites, size_t *n_suites, tcase **cases,
                      size_t *n_cases)
{
    size_t n = m->n_records;
    *cases = calloc(n ? n : 1, sizeof **cases);
    *suites = calloc(n ? n : 1, sizeof **suites);
    *n_cases = *n_suites = 0;
    pg_cmp_names suite_of, taken, next_number;
    bool maps = pg_cmp_names_init(&suite_of) & pg_cmp_names_init(&taken) &
                pg_cmp_names_init(&next_number);
    pg_status st = PG_OK;
    if (!*cases || !*suites || !maps)
        st = PG_ERR_INFRA;
    for (size_t i = 0; i < n; i++) {
        if (st != PG_OK)
            break;
        const pg_cmp_record *rec = &m->records[i];
        tcase *c = &(*cases)[(*n_cases)++];
        c->rec = rec;
        const char *task = rec->task;
        long long known = pg_cmp_names_get(&suite_of, task);
        size_t s = known >= 0 ? (size_t)known : *n_suites;
        if (known < 0) {
            (*suites)[(*n_suites)++].task = task;
            pg_cmp_names_set(&suite_of, task, (long long)s);
        }
        c->suite = s;
        pg_text why;
        pg_text_init(&why, 4096);
        c->outcome = classify(rec, &why);
        pg_text_free(&why);
        char *sub = clean(rec->submission, "");
        pg_text cn;
        pg_text_init(&cn, NAME_MAX_BYTES * 6);
        pg_rtext_add_clean(&cn, task, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
        pg_text_add(&cn, ".");
        pg_text_add(&cn, sub ? sub : "");
        free(sub);
        c->classname = pg_text_take(&cn, NULL);
        /* Cleaning can make two names equal: number the later ones (#2, #3, ...). The numbers
         * below the last one given to a name are all taken, so the search resumes there. */
        char *base = c->classname ? clean(rec->workload, "") : NULL;
        char *base_key = base ? case_key(c->classname, base) : NULL, *key = NULL;
        long long k = base_key ? pg_cmp_names_get(&next_number, base_key) : 0;
        for (k = k > 1 ? k : 1; base_key; k++) {
            char suffix[32] = "";
            if (k > 1)
                snprintf(suffix, sizeof suffix, "#%lld", (long long)k);
            free(c->name);
            free(key);
            c->name = clean(rec->workload, suffix);
            key = c->name ? case_key(c->classname, c->name) : NULL;
            if (!key || pg_cmp_names_get(&taken, key) < 0)
                break;
        }
        if (key) {
            pg_cmp_names_set(&taken, key, 1);
            pg_cmp_names_set(&next_number, base_key, k + 1);
        }
        if (!c->classname || !c->name || !key)
            st = PG_ERR_INFRA;
        free(key);
        free(base_key);
        free(base);
        tsuite *su = &(*suites)[s];
        su->tests++;
        su->failures += c->outcome == TC_FAIL;
        su->skipped += c->outcome == TC_SKIP;
    }
    pg_cmp_names_free(&suite_of);
    pg_cmp_names_free(&taken);
    pg_cmp_names_free(&next_number);
    return st;
}

/* The cases of suite s are cases[order[first[s] .. first[s + 1])], in their order. */
static void write_document(pg_xw *x, const pg_cmp_view *m, const tsuite *suites, size_t n_suites,
                           const tcase *cases, const size_t *order, const size_t *first)
{
    size_t tests = 0, failures = 0;
    for (size_t i = 0; i < n_suites; i++) {
        tests += suites[i].tests;
        failures += suites[i].failures;
    }
    char *host = clean(m->new_side.hostname, "");
    pg_xw_junit_start(x, "ptxgate compare", tests, failures, 0);
    pg_xw_attr(x, "time", "0.000");
    for (size_t s = 0; s < n_suites; s++) {
        char *name = clean(suites[s].task, "");
        pg_xw_start(x, "testsuite");
        pg_xw_attr(x, "name", name ? name : "unnamed");
        pg_xw_attrz(x, "tests", suites[s].tests);
        pg_xw_attrz(x, "failures", suites[s].failures);
        pg_xw_attrz(x, "errors", 0);
        pg_xw_attrz(x, "skipped", suites[s].skipped);
        pg_xw_attr(x, "time", "0.000");
        pg_xw_junit_timestamp(x, m->new_side.started_utc);
        pg_xw_attr(x, "hostname", host ? host : "unknown");
        pg_xw_attrz(x, "id", s);
        write_properties(x, m);
        for (size_t c = first[s]; c < first[s + 1]; c++)
            write_case(x, &cases[order[c]]);
        pg_xw_end(x);
        free(name);
    }
    pg_xw_end(x);
    if (!x->failed && xmlTextWriterEndDocument(x->w) < 0)
        x->failed = true;
    free(host);
}

pg_status pg_compare_junit(const json_t *model, char **out, size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    tsuite *suites = NULL;
    tcase *cases = NULL;
    size_t n_suites = 0, n_cases = 0, *order = NULL, *first = NULL;
    xmlBufferPtr buf = NULL;
    pg_xw x = {0};
    pg_cmp_view view;
    pg_status st = pg_cmp_view_read(model, &view, d);
    if (st != PG_OK)
        return st;
    pg_res_locale loc;
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK) {
        pg_cmp_view_free(&view);
        return st;
    }
    if (plan(&view, &suites, &n_suites, &cases, &n_cases) != PG_OK) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory rendering JUnit");
        goto done;
    }
    xmlInitParser();
    buf = pg_xw_buffer_new();
    x.w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
    if (!x.w) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "libxml2 could not create a writer");
        goto done;
    }
    if (xmlTextWriterSetIndent(x.w, 1) < 0 || xmlTextWriterSetIndentString(x.w, BAD_CAST "  ") < 0)
        x.failed = true;
    /* The cases grouped by suite, each group in the cases' order (a counting sort). */
    order = malloc((n_cases ? n_cases : 1) * sizeof *order);
    first = calloc(n_suites + 2, sizeof *first);
    if (!order || !first) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory rendering JUnit");
        goto done;
    }
    for (size_t c = 0; c < n_cases; c++)
        first[cases[c].suite + 2]++;
    for (size_t s = 2; s < n_suites + 2; s++)
        first[s] += first[s - 1];
    for (size_t c = 0; c < n_cases; c++)
        order[first[cases[c].suite + 1]++] = c;
    write_document(&x, &view, suites, n_suites, cases, order, first);
    st = pg_xw_finish(&x, buf, true, NULL, "libxml2 failed writing JUnit XML",
                      "out of memory rendering JUnit", out, len, d);
done:
    pg_xw_release(&x, buf);
    for (size_t i = 0; i < n_cases; i++) {
        free(cases[i].classname);
        free(cases[i].name);
    }
    free(cases);
    free(suites);
    free(order);
    free(first);
    pg_res_locale_leave(&loc);
    pg_cmp_view_free(&view);
    return st;
}
