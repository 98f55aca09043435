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

#define NAME_MAX_BYTES 512

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

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
    const json_t *rec;
    size_t suite;
    tc_outcome outcome;
    char *classname, *name;
} tcase;

typedef struct {
    const char *task;
    size_t tests, failures, skipped;
} tsuite;


static void property(pg_xw *x, const char *name, const char *value)
{
    pg_text t;
    pg_text_init(&t, 2048);
    pg_rtext_add_clean(&t, value, PG_CLEAN_ONE_LINE, 1024);
    pg_xw_start(x, "property");
    pg_xw_attr(x, "name", name);
    pg_xw_attr(x, "value", t.data ? t.data : "");
    pg_xw_end(x);
    pg_text_free(&t);
}

/* Regression → failure; else a non-comparable change, or correctness not judged on a side →
 * skipped; else passed. */
static tc_outcome classify(const json_t *rec, pg_text *why)
{
    size_t i;
    const json_t *c;
    bool regression = false, other = false;
    json_array_foreach(json_object_get(rec, "changes"), i, c) {
        const char *kind = str(c, "kind");
        regression |= strcmp(kind, "regression") == 0;
        other |= strcmp(kind, "not_comparable") == 0;
    }
    static const char *const sides[2] = {"old", "new"};
    for (int s = 0; s < 2; s++) {
        const char *o = json_string_value(json_object_get(
            json_object_get(json_object_get(rec, sides[s]), "outcomes"), "correctness"));
        other |= o && (strcmp(o, "error") == 0 || strcmp(o, "skipped") == 0);
    }
    const char *want = regression ? "regression" : "not_comparable";
    bool first = true;
    json_array_foreach(json_object_get(rec, "changes"), i, c) {
        if (strcmp(str(c, "kind"), want) != 0)
            continue;
        pg_text_addf(why, "%s%s %s → %s", first ? "" : "; ", str(c, "stage"), str(c, "old"),
                     str(c, "new"));
        first = false;
    }
    if (regression)
        return TC_FAIL;
    if (other && first)
        pg_text_add(why, "correctness was not judged on one side (error or skipped)");
    /* A stage that ran on one side only was not judged by the comparison: say which. */
    const json_t *nj;
    json_array_foreach(json_object_get(rec, "not_judged"), i, nj) {
        const char *stage = json_string_value(nj);
        const char *o = json_string_value(json_object_get(
            json_object_get(json_object_get(rec, "old"), "outcomes"), stage));
        const char *n = json_string_value(json_object_get(
            json_object_get(json_object_get(rec, "new"), "outcomes"), stage));
        if (!o || !n || strcmp(o, n) == 0)
            continue; /* not run on either side: nothing was compared, nothing lost */
        pg_text_addf(why, "%s%s not judged (%s → %s)", first && !other ? "" : "; ", stage, o,
                     n);
        first = false;
        other = true;
    }
    return other ? TC_SKIP : TC_PASS;
}

static void side_text(pg_text *t, const char *label, const json_t *side)
{
    pg_text_addf(t, "%s: verdict %s", label, str(side, "verdict"));
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(side, "outcomes"), k, v)
        pg_text_addf(t, ", %s %s", k, json_string_value(v));
    const json_t *sp = json_object_get(side, "speedup");
    if (json_is_number(sp))
        pg_text_addf(t, "; speedup %.4fx", json_number_value(sp));
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
    side_text(&out, "OLD", json_object_get(c->rec, "old"));
    side_text(&out, "NEW", json_object_get(c->rec, "new"));
    const json_t *lr = json_object_get(c->rec, "log_speedup_ratio");
    if (json_is_number(lr))
        pg_text_addf(&out, "speedup NEW / OLD: %.4f\n", exp(json_number_value(lr)));
    pg_xw_start(x, "system-out");
    pg_xw_text(x, out.data ? out.data : "");
    pg_xw_end(x);
    pg_xw_end(x);
    if (why.oom || out.oom)
        x->failed = true;
    pg_text_free(&why);
    pg_text_free(&out);
}

static void write_properties(pg_xw *x, const json_t *m)
{
    char b[64];
    const json_t *gate = json_object_get(m, "gate");
    pg_xw_start(x, "properties");
    property(x, "ptxgate.version", str(json_object_get(m, "tool"), "version"));
    property(x, "compare.old", str(json_object_get(m, "old"), "file"));
    property(x, "compare.new", str(json_object_get(m, "new"), "file"));
    property(x, "compare.verdict", str(gate, "verdict"));
    const json_t *mc = NULL;
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(m, "stages"), i, s) if (strcmp(str(s, "stage"), "correctness") == 0) mc =
        json_object_get(s, "mcnemar");
    if (mc) {
        snprintf(b, sizeof b, "%.6g", json_number_value(json_object_get(mc, "p_value")));
        property(x, "compare.mcnemar_correctness_p", b);
    }
    const json_t *wp = json_object_get(json_object_get(json_object_get(m, "speedup"), "wilcoxon"),
                                       "p_value");
    if (json_is_number(wp)) {
        snprintf(b, sizeof b, "%.6g", json_number_value(wp));
        property(x, "compare.wilcoxon_log_speedup_p", b);
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
static pg_status plan(const json_t *m, tsuite **suites, size_t *n_suites, tcase **cases,
                      size_t *n_cases)
{
    const json_t *recs = json_object_get(m, "workloads");
    size_t n = json_array_size(recs), i;
    *cases = calloc(n ? n : 1, sizeof **cases);
    *suites = calloc(n ? n : 1, sizeof **suites);
    *n_cases = *n_suites = 0;
    json_t *suite_of = json_object(), *taken = json_object(), *next_number = json_object();
    pg_status st = PG_OK;
    if (!*cases || !*suites || !suite_of || !taken || !next_number)
        st = PG_ERR_INFRA;
    const json_t *rec;
    json_array_foreach(recs, i, rec) {
        if (st != PG_OK)
            break;
        tcase *c = &(*cases)[(*n_cases)++];
        c->rec = rec;
        const char *task = str(rec, "task");
        const json_t *known = json_object_get(suite_of, task);
        size_t s = known ? (size_t)json_integer_value(known) : *n_suites;
        if (!known) {
            (*suites)[(*n_suites)++].task = task;
            json_object_set_new(suite_of, task, json_integer((json_int_t)s));
        }
        c->suite = s;
        pg_text why;
        pg_text_init(&why, 4096);
        c->outcome = classify(rec, &why);
        pg_text_free(&why);
        char *sub = clean(str(rec, "submission"), "");
        pg_text cn;
        pg_text_init(&cn, NAME_MAX_BYTES * 6);
        pg_rtext_add_clean(&cn, task, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
        pg_text_add(&cn, ".");
        pg_text_add(&cn, sub ? sub : "");
        free(sub);
        c->classname = pg_text_take(&cn, NULL);
        /* Cleaning can make two names equal: number the later ones (#2, #3, ...). The numbers
         * below the last one given to a name are all taken, so the search resumes there. */
        char *base = c->classname ? clean(str(rec, "workload"), "") : NULL;
        char *base_key = base ? case_key(c->classname, base) : NULL, *key = NULL;
        json_int_t k = base_key ? json_integer_value(json_object_get(next_number, base_key)) : 0;
        for (k = k > 1 ? k : 1; base_key; k++) {
            char suffix[32] = "";
            if (k > 1)
                snprintf(suffix, sizeof suffix, "#%lld", (long long)k);
            free(c->name);
            free(key);
            c->name = clean(str(rec, "workload"), suffix);
            key = c->name ? case_key(c->classname, c->name) : NULL;
            if (!key || !json_object_get(taken, key))
                break;
        }
        if (key) {
            json_object_set_new(taken, key, json_true());
            json_object_set_new(next_number, base_key, json_integer(k + 1));
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
    json_decref(suite_of);
    json_decref(taken);
    json_decref(next_number);
    return st;
}

/* The cases of suite s are cases[order[first[s] .. first[s + 1])], in their order. */
static void write_document(pg_xw *x, const json_t *m, const tsuite *suites, size_t n_suites,
                           const tcase *cases, const size_t *order, const size_t *first)
{
    size_t tests = 0, failures = 0;
    for (size_t i = 0; i < n_suites; i++) {
        tests += suites[i].tests;
        failures += suites[i].failures;
    }
    const json_t *nw = json_object_get(m, "new");
    char timestamp[64];
    snprintf(timestamp, sizeof timestamp, "%s", str(nw, "started_utc"));
    timestamp[strcspn(timestamp, "Z")] = '\0';
    char *host = clean(str(nw, "hostname"), "");
    if (!x->failed && xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL) < 0)
        x->failed = true;
    pg_xw_start(x, "testsuites");
    pg_xw_attr(x, "name", "ptxgate compare");
    pg_xw_attrz(x, "tests", tests);
    pg_xw_attrz(x, "failures", failures);
    pg_xw_attrz(x, "errors", 0);
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
        pg_xw_attr(x, "timestamp", timestamp);
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
    pg_res_locale loc;
    pg_status st = pg_res_locale_enter(&loc, d);
    if (st != PG_OK)
        return st;
    if (plan(model, &suites, &n_suites, &cases, &n_cases) != PG_OK) {
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
    write_document(&x, model, suites, n_suites, cases, order, first);
    xmlFreeTextWriter(x.w);
    x.w = NULL;
    if (x.failed) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "libxml2 failed writing JUnit XML");
        goto done;
    }
    size_t n = (size_t)xmlBufferLength(buf);
    char *text = malloc(n + 2);
    if (!text) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory rendering JUnit");
        goto done;
    }
    memcpy(text, xmlBufferContent(buf), n);
    if (n == 0 || text[n - 1] != '\n')
        text[n++] = '\n';
    text[n] = '\0';
    *out = text;
    if (len)
        *len = n;
done:
    if (x.w)
        xmlFreeTextWriter(x.w);
    if (buf)
        xmlBufferFree(buf);
    for (size_t i = 0; i < n_cases; i++) {
        free(cases[i].classname);
        free(cases[i].name);
    }
    free(cases);
    free(suites);
    free(order);
    free(first);
    pg_res_locale_leave(&loc);
    return st;
}
