/* JUnit XML writer (libxml2 xmlTextWriter) and XSD validation (see junit.h, docs/reports.md). */
#include "junit.h"
#include "xml_writer.h"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlwriter.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "results_read.h"

#define NAME_MAX_BYTES 512          /* names from the results (task, submission, workload) */
#define MESSAGE_MAX_BYTES 4096      /* failure/error/skipped message attribute */
#define BODY_MAX_BYTES (64 * 1024)  /* failure/error body */
#define OUT_MAX_BYTES (64 * 1024)   /* testcase system-out */
#define DIAGS_IN_MESSAGE 3          /* assemble diagnostics quoted in a message attribute */
#define DIAGS_IN_BODY 50            /* ... and in the body */
#define DETAILS_MAX_DEPTH 12
#define XSD_MAX_BYTES (4u * 1024u * 1024u)

/* ---- a map of strings to counts: the names taken, the suites found ---- */

typedef struct {
    char *key; /* NULL: a free slot */
    size_t value;
} strmap_slot;

typedef struct {
    strmap_slot *slots;
    size_t cap, n; /* cap: a power of two, at least twice n */
} strmap;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of key, or NULL when absent. */
static strmap_slot *strmap_find(const strmap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    for (size_t j = fnv1a(key) & (m->cap - 1); m->slots[j].key; j = (j + 1) & (m->cap - 1))
        if (strcmp(m->slots[j].key, key) == 0)
            return &m->slots[j];
    return NULL;
}

/* Add key (copied) with value, or find it: 1 added, 0 already present (its value unchanged),
 * -1 out of memory. *slot (may be NULL) is key's slot, valid until the next add. */
static int strmap_add(strmap *m, const char *key, size_t value, strmap_slot **slot)
{
    strmap_slot *found = strmap_find(m, key);
    if (found) {
        if (slot)
            *slot = found;
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        strmap_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].key) {
                size_t j = fnv1a(m->slots[i].key) & (cap - 1);
                while (slots[j].key)
                    j = (j + 1) & (cap - 1);
                slots[j] = m->slots[i];
            }
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    size_t j = fnv1a(key) & (m->cap - 1);
    while (m->slots[j].key)
        j = (j + 1) & (m->cap - 1);
    if (!(m->slots[j].key = strdup(key)))
        return -1;
    m->slots[j].value = value;
    m->n++;
    if (slot)
        *slot = &m->slots[j];
    return 1;
}

static void strmap_free(strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* ---- the plan: suites and testcases in emission order, names final ---- */

typedef struct {
    char *name;
    size_t tests, failures, errors, skipped;
    double time_s;
} suite;

typedef struct {
    size_t suite;
    char *classname, *name;
    const pg_res_submission *sub;
    const pg_res_stage *stage;
} tcase;

typedef struct {
    suite *suites;
    size_t n_suites;
    tcase *cases;
    size_t n_cases, cap_cases;
    size_t *sub_suite; /* suite index of each submission */
    strmap used;       /* "C\x1f<classname>" and "P\x1f<classname>\x1f<name>" (values unused) */
    strmap next;       /* such a key without "#n" -> the n to try next for it */
    bool oom;
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->n_suites; i++)
        free(p->suites[i].name);
    free(p->suites);
    for (size_t i = 0; i < p->n_cases; i++) {
        free(p->cases[i].classname);
        free(p->cases[i].name);
    }
    free(p->cases);
    free(p->sub_suite);
    strmap_free(&p->used);
    strmap_free(&p->next);
}

/* Cleaned one-line copy of s, or of fallback when that leaves nothing (malloc'd; NULL on
 * out-of-memory). Names are never empty: the schemas require them. */
static char *clean_name(const char *s, const char *fallback)
{
    pg_text t;
    pg_text_init(&t, NAME_MAX_BYTES * 2);
    pg_rtext_add_clean(&t, s, PG_CLEAN_ONE_LINE, NAME_MAX_BYTES);
    if (t.len == 0)
        pg_text_add(&t, fallback);
    return pg_text_take(&t, NULL);
}

/* a + b + c + e as a malloc'd string (NULL on out-of-memory); any part may be NULL. */
static char *join(const char *a, const char *b, const char *c, const char *e)
{
    pg_text t;
    pg_text_init(&t, SIZE_MAX / 2);
    pg_text_add(&t, a);
    pg_text_add(&t, b);
    pg_text_add(&t, c);
    pg_text_add(&t, e);
    return pg_text_take(&t, NULL);
}

/* base, or base + "#n" for n > 1 (malloc'd; base is consumed). */
static char *numbered(char *base, unsigned n)
{
    if (!base || n <= 1)
        return base;
    char suffix[16];
    snprintf(suffix, sizeof suffix, "#%u", n);
    char *s = join(base, suffix, NULL, NULL);
    free(base);
    return s;
}

/* Reserve key "<tag>[\x1f<scope>]\x1f<name><suffix>" for n = 1, 2, ...: the first free n. Every
 * n below the last one given to the same unsuffixed key is taken (the set only grows), so the
 * search resumes there: many names that clean alike cost linear time, not quadratic. */
static int reserve(plan *p, char tag, const char *scope, const char *name, unsigned *n_out)
{
    pg_text k;
    pg_text_init(&k, SIZE_MAX / 2);
    pg_text_addf(&k, "%c%s%s\x1f%s", tag, scope ? "\x1f" : "", scope ? scope : "", name);
    char *base = pg_text_take(&k, NULL);
    if (!base)
        return -1;
    const strmap_slot *known = strmap_find(&p->next, base);
    size_t from = known ? known->value : 0;
    for (unsigned n = from > 1 ? (unsigned)from : 1;; n++) {
        char suffix[16] = "";
        if (n > 1)
            snprintf(suffix, sizeof suffix, "#%u", n);
        char *key = join(base, suffix, NULL, NULL);
        int r = key ? strmap_add(&p->used, key, 0, NULL) : -1;
        free(key);
        if (r != 0) {
            /* the next search for base resumes after n (out of memory for that: only the
             * shortcut is lost) */
            strmap_slot *next = NULL;
            if (r > 0 && strmap_add(&p->next, base, 0, &next) >= 0)
                next->value = (size_t)n + 1;
            free(base);
            *n_out = n;
            return r;
        }
    }
}

/* base made unique among the names reserved under tag and scope (NULL: none): base, or base +
 * "#n" for the first free n > 1. base is consumed (NULL: it was not allocated); NULL on
 * out-of-memory. */
static char *unique_name(plan *p, char tag, const char *scope, char *base)
{
    unsigned n = 1;
    if (!base || reserve(p, tag, scope, base, &n) < 0) {
        free(base);
        return NULL;
    }
    return numbered(base, n);
}

static void add_case(plan *p, size_t si, const char *classname, const char *stage_name,
                     const char *what, const pg_res_submission *sub, const pg_res_stage *st)
{
    if (p->oom)
        return;
    if (p->n_cases == p->cap_cases) {
        size_t cap = p->cap_cases ? p->cap_cases * 2 : 32;
        tcase *c = realloc(p->cases, cap * sizeof *c);
        if (!c) {
            p->oom = true;
            return;
        }
        p->cases = c;
        p->cap_cases = cap;
    }
    char *name = unique_name(p, 'P', classname, join(stage_name, "[", what, "]"));
    char *cn = strdup(classname);
    if (!name || !cn) {
        free(name);
        free(cn);
        p->oom = true;
        return;
    }
    p->cases[p->n_cases++] =
        (tcase){.suite = si, .classname = cn, .name = name, .sub = sub, .stage = st};
    suite *s = &p->suites[si];
    s->tests++;
    s->time_s += st->duration_s;
    s->failures += st->status == PG_RES_FAIL;
    s->errors += st->status == PG_RES_ERROR;
    s->skipped += st->status == PG_RES_SKIPPED;
}

/* Group submissions into suites by (cleaned) task, in order of first appearance, and name every
 * testcase uniquely. */
static pg_status plan_build(const pg_results *r, plan *p, pg_diag *d)
{
    memset(p, 0, sizeof *p);
    if (r->n_subs) {
        p->suites = calloc(r->n_subs, sizeof *p->suites);
        p->sub_suite = calloc(r->n_subs, sizeof *p->sub_suite);
        if (!p->suites || !p->sub_suite)
            goto oom;
    }
    /* Suites found through a hash map (cleaned task -> suite), and the submissions grouped
     * by suite in their order (a counting sort): linear in the number of submissions. */
    strmap suite_of = {0};
    size_t *order = calloc(r->n_subs ? r->n_subs : 1, sizeof *order);
    size_t *first = calloc(r->n_subs + 2, sizeof *first);
    if (!order || !first) {
        free(order);
        free(first);
        goto oom;
    }
    for (size_t i = 0; i < r->n_subs; i++) {
        char *task = clean_name(r->subs[i].task, "(unnamed task)");
        if (!task) {
            p->oom = true;
            break;
        }
        strmap_slot *known = NULL;
        int added = strmap_add(&suite_of, task, p->n_suites, &known);
        if (added < 0) {
            free(task);
            p->oom = true;
            break;
        }
        size_t si = known->value;
        if (added)
            p->suites[p->n_suites++].name = task;
        else
            free(task);
        p->sub_suite[i] = si;
        first[si + 2]++;
    }
    strmap_free(&suite_of);
    for (size_t si = 2; si < p->n_suites + 2; si++)
        first[si] += first[si - 1];
    for (size_t i = 0; !p->oom && i < r->n_subs; i++)
        order[first[p->sub_suite[i] + 1]++] = i;
    for (size_t si = 0; !p->oom && si < p->n_suites; si++) {
        for (size_t o = first[si]; o < first[si + 1]; o++) {
            size_t i = order[o];
            const pg_res_submission *s = &r->subs[i];
            char *sub = clean_name(s->name, "(unnamed)");
            char *classname =
                sub ? unique_name(p, 'C', NULL, join(p->suites[si].name, ".", sub, NULL)) : NULL;
            free(sub);
            if (!classname) {
                p->oom = true;
                break;
            }
            for (size_t k = 0; k < s->n_stages; k++)
                add_case(p, si, classname, s->stages[k].stage, "all", s, &s->stages[k]);
            for (size_t w = 0; w < s->n_workloads; w++) {
                char *wname = clean_name(s->workloads[w].name, "");
                if (!wname)
                    p->oom = true;
                for (size_t k = 0; wname && k < s->workloads[w].n_stages; k++)
                    add_case(p, si, classname, s->workloads[w].stages[k].stage, wname, s,
                             &s->workloads[w].stages[k]);
                free(wname);
            }
            free(classname);
            if (p->oom)
                break;
        }
    }
    free(order);
    free(first);
    if (!p->oom)
        return PG_OK;
oom:
    return pg_diag_set(d, PG_ERR_INFRA, r->file, 0, NULL, "out of memory rendering JUnit");
}

/* ---- the numbers of a stage, for messages and bodies ---- */

/* Append one item, separated from the previous one by sep. */
static void item(pg_text *t, bool *first, const char *sep)
{
    if (!*first)
        pg_text_add(t, sep);
    *first = false;
}

static pg_status assemble_numbers(const pg_res_stage *s, pg_text *t, const char *sep,
                                  size_t max_diags, bool *first, pg_diag *d)
{
    /* Errors and warnings; ptxas "info" lines stay in system-out. */
    pg_res_ptx_diag shown[DIAGS_IN_BODY];
    size_t n, more;
    pg_status st = pg_res_ptx_diags_shown(
        s, shown, max_diags < DIAGS_IN_BODY ? max_diags : DIAGS_IN_BODY, &n, &more, d);
    if (st != PG_OK)
        return st;
    for (size_t k = 0; k < n; k++) {
        const pg_res_ptx_diag g = shown[k];
        item(t, first, sep);
        if (g.line.has)
            pg_text_addf(t, "PTX line %lld: ", (long long)g.line.v);
        if (g.severity[0]) {
            pg_rtext_add_clean(t, g.severity, PG_CLEAN_ONE_LINE, 32);
            pg_text_add(t, ": ");
        }
        pg_rtext_add_clean(t, g.message, PG_CLEAN_ONE_LINE, 512);
    }
    if (more) {
        item(t, first, sep);
        pg_text_addf(t, "%zu more diagnostic%s", more, more == 1 ? "" : "s");
    }
    const pg_res_resources *res = &s->detail.u.assemble.res;
    const struct {
        pg_res_int v;
        const char *label, *unit;
    } k_ints[] = {{res->registers, "registers", ""},
                  {res->spill_store_bytes, "spill stores", " B"},
                  {res->spill_load_bytes, "spill loads", " B"},
                  {res->shared_bytes, "shared", " B"},
                  {res->stack_frame_bytes, "stack frame", " B"}};
    for (size_t i = 0; i < sizeof k_ints / sizeof k_ints[0]; i++) {
        pg_res_int v = k_ints[i].v;
        if (v.has) {
            item(t, first, sep);
            pg_text_addf(t, "%s %lld%s", k_ints[i].label, (long long)v.v, k_ints[i].unit);
        }
    }
    return PG_OK;
}

static pg_status correctness_numbers(const pg_res_stage *s, pg_text *t, const char *sep,
                                     bool *first, pg_diag *d)
{
    (void)d;
    const pg_res_correctness *c = &s->detail.u.correctness;
    const struct {
        pg_res_num v;
        const char *label;
    } k_nums[] = {{c->max_absolute_error, "max abs error"},
                  {c->max_relative_error, "max rel error"},
                  {c->relative_l2_error, "rel L2 error"}};
    for (size_t i = 0; i < sizeof k_nums / sizeof k_nums[0]; i++) {
        pg_res_num v = k_nums[i].v;
        if (v.has) {
            item(t, first, sep);
            pg_text_addf(t, "%s %.3g", k_nums[i].label, v.v);
        }
    }
    pg_res_int bad = c->bad_elements;
    if (bad.has) {
        item(t, first, sep);
        pg_text_addf(t, "bad elements %lld", (long long)bad.v);
    }
    pg_res_num atol = c->atol, rtol = c->rtol, l2 = c->max_rel_l2;
    if (atol.has && rtol.has) {
        item(t, first, sep);
        pg_text_addf(t, "tolerance atol %g, rtol %g", atol.v, rtol.v);
        if (l2.has)
            pg_text_addf(t, ", max rel L2 %g", l2.v);
    }
    return PG_OK;
}

/* "candidate median 1.234 ms [1.230, 1.240], 590.2 TFLOP/s" */
static void timing_item(const pg_res_timing *tm, const char *arm, pg_text *t, const char *sep,
                        bool *first)
{
    pg_res_num med = tm->median_ms, lo = tm->ci_low_ms, hi = tm->ci_high_ms, tf = tm->tflops;
    if (!med.has && !tf.has)
        return;
    item(t, first, sep);
    pg_text_add(t, arm);
    if (med.has) {
        pg_text_addf(t, " median %.4f ms", med.v);
        if (lo.has && hi.has)
            pg_text_addf(t, " [%.4f, %.4f]", lo.v, hi.v);
    }
    if (tf.has)
        pg_text_addf(t, "%s%.1f TFLOP/s", med.has ? ", " : " ", tf.v);
}

static pg_status performance_numbers(const pg_results *r, const pg_res_stage *s, pg_text *t,
                                     const char *sep, bool *first, pg_diag *d)
{
    (void)d;
    const pg_res_performance *p = &s->detail.u.performance;
    pg_res_num est = p->speedup_estimate, lo = p->speedup_ci_low, hi = p->speedup_ci_high,
               conf = p->speedup_confidence, min = p->min_speedup;
    if (!conf.has)
        conf = r->confidence;
    if (est.has) {
        item(t, first, sep);
        pg_text_addf(t, "speedup %.3f×", est.v);
        if (lo.has && hi.has) {
            pg_text_addf(t, " [%.3f, %.3f]", lo.v, hi.v);
            if (conf.has)
                pg_text_addf(t, " (%g%% CI)", conf.v * 100.0);
        }
        if (p->over_accepted) /* the library refused the configuration */
            pg_text_addf(t, " over the accepted kernel");
    }
    if (min.has) {
        item(t, first, sep);
        pg_text_addf(t, "min speedup %.3g", min.v);
    }
    timing_item(&p->candidate, "candidate", t, sep, first);
    timing_item(&p->baseline, "baseline", t, sep, first);
    return PG_OK;
}

/* Failed targets of an instructions stage: "target: reason" (message), or with their
 * one-line findings (body, verbose). */
static pg_status instructions_numbers(const pg_res_stage *s, pg_text *t, const char *sep,
                                      bool verbose, bool *first, pg_diag *d)
{
    (void)d;
    for (size_t i = 0; i < s->detail.u.instructions.n_targets; i++) {
        const pg_res_instr_target tg = s->detail.u.instructions.targets[i];
        if (!verbose && strcmp(tg.status, "fail") != 0)
            continue;
        item(t, first, sep);
        pg_rtext_add_clean(t, tg.target, PG_CLEAN_ONE_LINE, 128);
        pg_text_add(t, ": ");
        pg_rtext_add_clean(t, tg.reason ? tg.reason : tg.status, PG_CLEAN_ONE_LINE, 64);
        if (verbose && tg.summary[0]) {
            pg_text_add(t, " — ");
            pg_rtext_add_clean(t, tg.summary, PG_CLEAN_ONE_LINE, 1024);
        }
        if (verbose && tg.runtime_status[0]) {
            pg_text_add(t, "; runtime ");
            pg_rtext_add_clean(t, tg.runtime_status, PG_CLEAN_ONE_LINE, 64);
            if (tg.executed_count.has)
                pg_text_addf(t, ", executed %.0f", tg.executed_count.v);
            if (tg.coverage.has)
                pg_text_addf(t, ", coverage %.4g", tg.coverage.v);
        }
    }
    return PG_OK;
}

/* The numbers of stage s as items joined by sep. */
static pg_status stage_numbers(const pg_results *r, const pg_res_stage *s, pg_text *t,
                               const char *sep, size_t max_diags, pg_diag *d)
{
    bool first = true;
    switch (s->detail.kind) {
    case PG_RES_STAGE_INSTRUCTIONS:
        return instructions_numbers(s, t, sep, max_diags > DIAGS_IN_MESSAGE, &first, d);
    case PG_RES_STAGE_ASSEMBLE: return assemble_numbers(s, t, sep, max_diags, &first, d);
    case PG_RES_STAGE_CORRECTNESS: return correctness_numbers(s, t, sep, &first, d);
    case PG_RES_STAGE_PERFORMANCE: return performance_numbers(r, s, t, sep, &first, d);
    default: return PG_OK;
    }
}

/* ---- details as "key: value" lines ---- */

static void dump_scalar(pg_text *t, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: pg_rtext_add_clean(t, json_string_value(v), PG_CLEAN_ONE_LINE, 4096); break;
    case JSON_INTEGER: pg_text_addf(t, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: pg_text_addf(t, "%.6g", json_real_value(v)); break;
    case JSON_TRUE: pg_text_add(t, "true"); break;
    case JSON_FALSE: pg_text_add(t, "false"); break;
    case JSON_NULL: pg_text_add(t, "null"); break;
    default: pg_text_add(t, "…"); break;
    }
}

static bool all_scalars(const json_t *a)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) if (json_is_object(v) || json_is_array(v)) return false;
    return true;
}

static void dump_value(pg_text *t, const char *key, const json_t *v, int depth)
{
    if (json_is_object(v) && json_object_size(v) > 0 && depth < DETAILS_MAX_DEPTH) {
        const char *k;
        const json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            pg_text sub;
            pg_text_init(&sub, 1024);
            if (key[0])
                pg_text_addf(&sub, "%s.", key);
            pg_rtext_add_clean(&sub, k, PG_CLEAN_ONE_LINE, 128);
            char *path = pg_text_take(&sub, NULL);
            if (!path) {
                t->oom = true;
                return;
            }
            dump_value(t, path, m, depth + 1);
            free(path);
        }
        return;
    }
    if (json_is_array(v) && json_array_size(v) > 0 && !all_scalars(v) &&
        depth < DETAILS_MAX_DEPTH) {
        size_t i;
        const json_t *m;
        json_array_foreach(v, i, m) {
            char path[1100];
            snprintf(path, sizeof path, "%s[%zu]", key, i);
            dump_value(t, path, m, depth + 1);
        }
        return;
    }
    if (!key[0] && json_is_object(v))
        return; /* empty details: nothing to show */
    pg_text_addf(t, "%s:", key);
    if (json_is_string(v) && !json_string_length(v)) {
        pg_text_add(t, " \"\"\n");
    } else if (json_is_object(v)) {
        pg_text_add(t, json_object_size(v) ? " {…}\n" : " {}\n");
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *m;
        pg_text_add(t, " [");
        json_array_foreach(v, i, m) {
            if (i)
                pg_text_add(t, ", ");
            if (json_is_object(m) || json_is_array(m))
                pg_text_add(t, "…");
            else
                dump_scalar(t, m);
        }
        pg_text_add(t, "]\n");
    } else if (json_is_string(v) && strpbrk(json_string_value(v), "\r\n")) {
        /* A multi-line text (a compiler log): one indented line per line. */
        const char *s = json_string_value(v);
        pg_text_add(t, "\n");
        while (*s) {
            size_t n = strcspn(s, "\r\n");
            char line[4096];
            size_t m = n < sizeof line - 1 ? n : sizeof line - 1;
            memcpy(line, s, m);
            line[m] = '\0';
            pg_text_add(t, "  ");
            pg_rtext_add_clean(t, line, 0, 0);
            pg_text_add(t, "\n");
            s += n;
            if (*s == '\r' && s[1] == '\n')
                s++;
            if (*s)
                s++;
        }
    } else {
        pg_text_add(t, " ");
        dump_scalar(t, v);
        pg_text_add(t, "\n");
    }
}


/* ---- where a failing testcase points (docs/reports.md, "Locations") ---- */

typedef struct {
    char *file; /* relative to the run's working directory; malloc'd */
    long line;  /* >= 1 */
} location;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = s ? strlen(s) : 0, k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* path relative to wd (when it lies below it), without "./" prefixes, cleaned to one line
 * (malloc'd; NULL on out-of-memory). Relative paths are relative to wd already. */
static char *relative_path(const char *path, const char *wd)
{
    if (!path || !path[0])
        path = "results.json";
    size_t w = wd ? strlen(wd) : 0;
    while (w > 1 && wd[w - 1] == '/')
        w--;
    if (w > 1 && path[0] == '/' && strncmp(path, wd, w) == 0 && path[w] == '/')
        path += w + 1;
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return clean_name(path, "results.json");
}

/* The location of a failed or errored stage: the kernel source at the first diagnostic's line
 * — nvcc's .cu line, or ptxas's PTX line (assemble), the failed target's PTX line
 * (instructions) — when the source is PTX or the line is a .cu line; the .cu source at line 1
 * when the only line known is one of the PTX nvcc made of it; else the manifest at line 1 (the
 * stage concerns the whole submission). */
static pg_status locate(const pg_results *r, const pg_res_submission *sub, const pg_res_stage *s,
                        location *out, pg_diag *d)
{
    const char *file = sub->manifest;
    long line = 1;
    bool ptx = ends_with(sub->source, ".ptx"), cu = ends_with(sub->source, ".cu");
    long at = 0;
    if (s->detail.kind == PG_RES_STAGE_ASSEMBLE) {
        const char *cu_file = cu ? s->detail.u.assemble.cu_file : NULL;
        long cu_line = cu ? s->detail.u.assemble.cu_line : 0;
        long ptx_line = s->detail.u.assemble.ptx_line;
        if (cu_line > 0) {
            file = cu_file && cu_file[0] ? cu_file : sub->source;
            line = cu_line;
        } else if (ptx_line > 0) {
            at = ptx_line;
        }
    } else if (s->detail.kind == PG_RES_STAGE_INSTRUCTIONS) {
        at = s->detail.u.instructions.failed_line;
    } else if (s->detail.kind == PG_RES_STAGE_MANIFEST) {
        /* a batch's unusable manifest: the line of the field its loader named */
        if (s->detail.u.manifest.line > 0)
            line = s->detail.u.manifest.line;
    }
    if (at > 0 && ptx) {
        file = sub->source;
        line = at;
    } else if (at > 0 && cu) {
        file = sub->source; /* the PTX line is nvcc's output, not a .cu line */
    }
    out->line = line;
    out->file = relative_path(file, r->working_directory);
    if (!out->file)
        return pg_diag_set(d, PG_ERR_INFRA, r->file, 0, NULL, "out of memory rendering JUnit");
    return PG_OK;
}

/* ---- writing ---- */


/* A run property, left out when the run did not record it. */
static void write_property(pg_xw *x, const char *name, const char *value)
{
    if (value)
        pg_xw_property(x, name, value);
}

/* The run-wide properties (the version, the verdict, the environment fingerprint), written once:
 * in the first suite. junit-10 allows no properties under <testsuites>, and xunitparser keeps
 * one property table for all suites, failing on a name repeated in a second suite. */
static void write_properties(pg_xw *x, const pg_results *r)
{
    const pg_res_env *e = &r->env;
    char b1[32], b2[32];
    pg_xw_start(x, "properties");
    write_property(x, "ptxgate.version", r->tool_version ? r->tool_version : "unknown");
    write_property(x, "verdict", pg_res_status_name(r->verdict));
    write_property(x, "gpu.name", e->gpu_name);
    write_property(x, "gpu.compute_capability", e->compute_capability);
    write_property(x, "gpu_skip_reason", e->gpu_skip_reason);
    write_property(x, "driver_version", e->driver_version);
    write_property(x, "cuda_version",
                   e->cuda_driver_api_version.has
                       ? pg_res_cuda_version(e->cuda_driver_api_version.v, b1, sizeof b1)
                       : NULL);
    write_property(x, "ptxas_version", e->ptxas_version);
    write_property(x, "cublaslt_version",
                   e->cublaslt_version.has
                       ? pg_res_cublaslt_version(e->cublaslt_version.v, b2, sizeof b2)
                       : NULL);
    pg_xw_end(x);
}

static pg_status write_testcase(pg_xw *x, const pg_results *r, const tcase *c, pg_diag *d)
{
    const pg_res_stage *s = c->stage;
    pg_status st = PG_OK;
    pg_text msg, body, out;
    pg_text_init(&msg, MESSAGE_MAX_BYTES + 64);
    pg_text_init(&body, BODY_MAX_BYTES);
    pg_text_init(&out, OUT_MAX_BYTES);

    location loc = {NULL, 0};
    bool failed = s->status == PG_RES_FAIL || s->status == PG_RES_ERROR;
    if (failed && (st = locate(r, c->sub, s, &loc, d)) != PG_OK)
        goto done;
    pg_xw_start(x, "testcase");
    pg_xw_attr(x, "name", c->name);
    pg_xw_attr(x, "classname", c->classname);
    pg_xw_attr_seconds(x, "time", s->duration_s);
    if (failed) {
        pg_xw_attr(x, "file", loc.file);
        pg_xw_attrz(x, "line", (size_t)loc.line);
    }

    if (failed) {
        pg_text numbers;
        pg_text_init(&numbers, MESSAGE_MAX_BYTES);
        pg_rtext_add_clean(&msg, s->message, PG_CLEAN_ONE_LINE, 1024);
        st = stage_numbers(r, s, &numbers, "; ", DIAGS_IN_MESSAGE, d);
        if (st == PG_OK && numbers.len) {
            pg_text_add(&msg, msg.len ? " — " : "");
            pg_text_add(&msg, numbers.data);
        }
        pg_text_free(&numbers);
        if (st != PG_OK)
            goto done;
        /* "path:line: message" first: the form reporters that read the text parse */
        pg_text_addf(&body, "%s:%ld: ", loc.file, loc.line);
        pg_rtext_add_clean(&body, s->message[0] ? s->message : s->stage, 0, 16384);
        pg_text_add(&body, "\n");
        if ((st = stage_numbers(r, s, &body, "\n", DIAGS_IN_BODY, d)) != PG_OK)
            goto done;
        pg_text_add(&body, "\n");
        pg_xw_start(x, s->status == PG_RES_FAIL ? "failure" : "error");
        pg_xw_attr(x, "message", msg.data ? msg.data : "");
        pg_xw_attr(x, "type", s->stage);
        pg_xw_text(x, body.data ? body.data : "");
        pg_xw_end(x);
    } else if (s->status == PG_RES_SKIPPED) {
        pg_rtext_add_clean(&msg, s->message, PG_CLEAN_ONE_LINE, MESSAGE_MAX_BYTES);
        pg_xw_start(x, "skipped");
        pg_xw_attr(x, "message", msg.len ? msg.data : "no reason recorded");
        pg_xw_end(x);
    }

    pg_text_addf(&out, "status: %s\n", pg_res_status_name(s->status));
    if (s->message[0]) {
        pg_text_add(&out, "message: ");
        pg_rtext_add_clean(&out, s->message, PG_CLEAN_ONE_LINE, 4096);
        pg_text_add(&out, "\n");
    }
    dump_value(&out, "", s->details, 0);
    if (out.truncated)
        pg_text_add(&out, "\n… (truncated; the full record is in the results json)\n");
    pg_xw_text_element(x, "system-out", out.data ? out.data : "");
    pg_xw_end(x);
    if (msg.oom || body.oom || out.oom)
        st = pg_diag_set(d, PG_ERR_INFRA, r->file, 0, s->ctx.path, "out of memory rendering JUnit");
done:
    free(loc.file);
    pg_text_free(&msg);
    pg_text_free(&body);
    pg_text_free(&out);
    return st;
}

static pg_status write_document(pg_xw *x, const pg_results *r, const plan *p, pg_diag *d)
{
    size_t tests = 0, failures = 0, errors = 0;
    for (size_t i = 0; i < p->n_suites; i++) {
        tests += p->suites[i].tests;
        failures += p->suites[i].failures;
        errors += p->suites[i].errors;
    }
    char *host = clean_name(r->env.hostname, "unknown");
    if (!host)
        return pg_diag_set(d, PG_ERR_INFRA, r->file, 0, NULL, "out of memory rendering JUnit");

    pg_xw_junit_start(x, "ptxgate", tests, failures, errors);
    /* The run's wall time in ms, shared out over the suites in proportion to their stages'
     * time (equally when none took any), largest remainders first: the suites' times add up
     * to the root's exactly (reporters that sum the suites show the run's time). */
    double wall_ms = r->duration_s > 0 ? r->duration_s * 1000.0 + 0.5 : 0.0;
    unsigned long long total_ms = wall_ms < 1e15 ? (unsigned long long)wall_ms : 0;
    unsigned long long *share = calloc(p->n_suites ? p->n_suites : 1, sizeof *share);
    double *rest = calloc(p->n_suites ? p->n_suites : 1, sizeof *rest);
    if (!share || !rest) {
        free(share);
        free(rest);
        free(host);
        return pg_diag_set(d, PG_ERR_INFRA, r->file, 0, NULL, "out of memory rendering JUnit");
    }
    double weights = 0;
    for (size_t i = 0; i < p->n_suites; i++)
        weights += p->suites[i].time_s;
    unsigned long long given = 0;
    for (size_t i = 0; i < p->n_suites; i++) {
        double exact = weights > 0 ? (double)total_ms * (p->suites[i].time_s / weights)
                                   : (double)total_ms / (double)p->n_suites;
        share[i] = (unsigned long long)exact;
        rest[i] = exact - (double)share[i];
        given += share[i];
    }
    while (p->n_suites && given < total_ms) {
        size_t best = 0;
        for (size_t i = 1; i < p->n_suites; i++)
            if (rest[i] > rest[best])
                best = i;
        share[best]++;
        rest[best] = -1;
        given++;
    }
    pg_xw_attr_seconds(x, "time", (double)total_ms / 1000.0);
    pg_status st = PG_OK;
    size_t c = 0;
    for (size_t si = 0; si < p->n_suites && st == PG_OK; si++) {
        const suite *s = &p->suites[si];
        pg_xw_start(x, "testsuite");
        pg_xw_attr(x, "name", s->name);
        pg_xw_attrz(x, "tests", s->tests);
        pg_xw_attrz(x, "failures", s->failures);
        pg_xw_attrz(x, "errors", s->errors);
        pg_xw_attrz(x, "skipped", s->skipped);
        pg_xw_attr_seconds(x, "time", (double)share[si] / 1000.0);
        pg_xw_junit_timestamp(x, r->started_utc);
        pg_xw_attr(x, "hostname", host);
        pg_xw_attrz(x, "id", si);
        if (si == 0)
            write_properties(x, r);
        for (; c < p->n_cases && p->cases[c].suite == si && st == PG_OK; c++)
            st = write_testcase(x, r, &p->cases[c], d);
        pg_xw_end(x);
    }
    pg_xw_end(x);
    if (!x->failed && xmlTextWriterEndDocument(x->w) < 0)
        x->failed = true;
    free(share);
    free(rest);
    free(host);
    return st;
}

pg_status pg_report_junit(const json_t *results, const char *results_file, char **out, size_t *len,
                          pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    pg_results r;
    plan p;
    memset(&p, 0, sizeof p);
    pg_res_locale loc = {0};
    xmlBufferPtr buf = NULL;
    pg_xw x = {0};
    pg_status st = pg_results_read(results, results_file, &r, d);
    if (st != PG_OK)
        return st;
    if ((st = pg_res_locale_enter(&loc, d)) != PG_OK)
        goto done;
    if ((st = plan_build(&r, &p, d)) != PG_OK)
        goto done;
    xmlInitParser();
    buf = pg_xw_buffer_new();
    x.w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
    if (!x.w) {
        st = pg_diag_set(d, PG_ERR_INFRA, r.file, 0, NULL, "libxml2 could not create a writer");
        goto done;
    }
    if (xmlTextWriterSetIndent(x.w, 1) < 0 || xmlTextWriterSetIndentString(x.w, BAD_CAST "  ") < 0)
        x.failed = true;
    st = write_document(&x, &r, &p, d);
    if (st == PG_OK)
        st = pg_xw_finish(&x, buf, true, r.file, "libxml2 failed writing JUnit XML",
                          "out of memory rendering JUnit", out, len, d);
done:
    pg_xw_release(&x, buf);
    plan_free(&p);
    pg_res_locale_leave(&loc);
    pg_results_free(&r);
    return st;
}

/* ---- validation ---- */

typedef struct {
    bool seen;
    int line;
    char message[1024];
} first_error;

#if LIBXML_VERSION >= 21200
static void capture_error(void *ctx, const xmlError *e)
#else
static void capture_error(void *ctx, xmlErrorPtr e)
#endif
{
    first_error *f = ctx;
    if (f->seen || !e || e->level < XML_ERR_ERROR)
        return;
    f->seen = true;
    f->line = e->line;
    snprintf(f->message, sizeof f->message, "%s", e->message ? e->message : "unknown error");
    f->message[strcspn(f->message, "\n")] = '\0';
}

/* Parse text without network, DTD loading or entity expansion; errors are captured, not printed. */
static xmlDocPtr parse_quietly(const char *text, size_t len, const char *url, first_error *f)
{
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return NULL;
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, text, (int)len, url, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        f->seen = true;
        f->line = e ? e->line : 0;
        snprintf(f->message, sizeof f->message, "%s",
                 e && e->message ? e->message : "not well-formed XML");
        f->message[strcspn(f->message, "\n")] = '\0';
    }
    xmlFreeParserCtxt(ctxt);
    return doc;
}

pg_status pg_junit_validate(const char *xml, size_t len, const char *xsd_path, pg_diag *d)
{
    pg_status st;
    char *xsd = NULL;
    size_t xsd_len = 0;
    xmlDocPtr sdoc = NULL, doc = NULL;
    xmlSchemaParserCtxtPtr pctxt = NULL;
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr vctxt = NULL;
    first_error f = {0};
    pg_diag rd;

    xmlInitParser();
    if (pg_file_read(xsd_path, XSD_MAX_BYTES, &xsd, &xsd_len, &rd) != PG_OK) {
        st = pg_diag_set(d, PG_ERR_INFRA, xsd_path, 0, NULL, "cannot load the XML schema: %s",
                         rd.message);
        goto done;
    }
    if (!(sdoc = parse_quietly(xsd, xsd_len, xsd_path, &f))) {
        st = pg_diag_set(d, PG_ERR_INFRA, xsd_path, f.line, NULL,
                         "cannot load the XML schema: %s", f.message);
        goto done;
    }
    if ((pctxt = xmlSchemaNewDocParserCtxt(sdoc)) != NULL) {
        xmlSchemaSetParserStructuredErrors(pctxt, capture_error, &f);
        schema = xmlSchemaParse(pctxt);
    }
    if (!schema) {
        st = pg_diag_set(d, PG_ERR_INFRA, xsd_path, f.line, NULL, "cannot load the XML schema: %s",
                         f.seen ? f.message : "libxml2 rejected it");
        goto done;
    }
    memset(&f, 0, sizeof f); /* report the document's first error, not the schema's */
    if (len > INT_MAX) {
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "XML text too large to validate");
        goto done;
    }
    if (!(doc = parse_quietly(xml, len, "junit.xml", &f))) {
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, f.line, NULL, "line %d: XML not well-formed: %s",
                         f.line, f.message);
        goto done;
    }
    if (!(vctxt = xmlSchemaNewValidCtxt(schema))) {
        st = pg_diag_set(d, PG_ERR_INFRA, xsd_path, 0, NULL, "libxml2 could not create a validator");
        goto done;
    }
    xmlSchemaSetValidStructuredErrors(vctxt, capture_error, &f);
    int rc = xmlSchemaValidateDoc(vctxt, doc);
    if (rc == 0)
        st = PG_OK;
    else if (rc > 0)
        st = pg_diag_set(d, PG_ERR_INPUT, NULL, f.line, NULL, "line %d: not valid against %s: %s",
                         f.line, xsd_path, f.seen ? f.message : "validation failed");
    else
        st = pg_diag_set(d, PG_ERR_INFRA, xsd_path, 0, NULL, "libxml2 validation failed internally");
done:
    if (vctxt)
        xmlSchemaFreeValidCtxt(vctxt);
    if (doc)
        xmlFreeDoc(doc);
    if (schema)
        xmlSchemaFree(schema);
    if (pctxt)
        xmlSchemaFreeParserCtxt(pctxt);
    if (sdoc)
        xmlFreeDoc(sdoc);
    free(xsd);
    return st;
}
