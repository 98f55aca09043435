/* The JUnit writer: schema validity (ours and Jenkins' junit-10), exact counts, testcase names,
 * numbers in failure messages, escaping of hostile text, determinism, located errors for
 * malformed results, the validator itself, and the results JSON Schema checked against the
 * fixtures. Fixtures: tests/data/results/<name>.json; expected outputs:
 * tests/data/results/expected/<name>.junit.xml (PG_UPDATE_GOLDEN=1 rewrites them). */
#include <libxml/parser.h>
#include <locale.h>
#include <libxml/tree.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "report/junit.h"

#define RESULTS_DIR PG_TEST_DATA "/results"
#define OWN_XSD PG_SOURCE_DIR "/schemas/junit.xsd"
#define RESULTS_SCHEMA PG_SOURCE_DIR "/schemas/results.schema.json"

#include "results_fixtures.h"

static char *render(const json_t *j, size_t *len)
{
    char *out = NULL;
    size_t n = 0;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_report_junit(j, "results.json", &out, &n, &d);
    if (st != PG_OK) {
        char buf[4096];
        print_error("%s\n", pg_diag_format(&d, buf, sizeof buf));
    }
    assert_int_equal(st, PG_OK);
    assert_non_null(out);
    assert_int_equal(strlen(out), n);
    if (len)
        *len = n;
    return out;
}

static char *render_fixture(const char *name, size_t *len)
{
    json_t *j = load_fixture(name);
    char *out = render(j, len);
    json_decref(j);
    return out;
}

static xmlDocPtr parse_xml(const char *xml, size_t len)
{
    xmlDocPtr doc = xmlReadMemory(xml, (int)len, "junit.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    return doc;
}

static bool is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Attribute value as a malloc'd string ("" when absent) - caller frees with xmlFree. */
static char *attr(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    return v ? (char *)v : (char *)xmlStrdup(BAD_CAST "");
}

static long attr_long(const xmlNode *n, const char *name)
{
    char *v = attr(n, name);
    assert_true(v[0] != '\0');
    char *end;
    long x = strtol(v, &end, 10);
    assert_true(*end == '\0');
    xmlFree(v);
    return x;
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is_el(c, name))
            return c;
    return NULL;
}

/* ---- schema validity ---- */

static void test_every_fixture_validates_against_own_xsd(void **state)
{
    for (const char *const *f = k_fixtures; *f; f++) {
        size_t len;
        char *xml = render_fixture(*f, &len);
        pg_diag d;
        pg_diag_clear(&d);
        pg_status st = pg_junit_validate(xml, len, OWN_XSD, &d);
        if (st != PG_OK) {
            char buf[4096];
            print_error("%s: %s\n", *f, pg_diag_format(&d, buf, sizeof buf));
        }
        assert_int_equal(st, PG_OK);
        free(xml);
    }
}

/* xml without the file="…" and line="…" attributes of its testcases (malloc'd): the two
 * location attributes junit-10 lacks (schemas/junit.xsd says why they are there). Attribute
 * values are escaped by libxml2, so a value holds no '"'. */
static char *without_locations(const char *xml, size_t *len)
{
    size_t n = strlen(xml);
    char *out = malloc(n + 1), *o = out;
    assert_non_null(out);
    bool in_testcase = false;
    for (const char *p = xml; *p;) {
        if (!in_testcase && strncmp(p, "<testcase ", 10) == 0)
            in_testcase = true;
        else if (in_testcase && *p == '>')
            in_testcase = false;
        if (in_testcase && (strncmp(p, " file=\"", 7) == 0 || strncmp(p, " line=\"", 7) == 0)) {
            const char *q = strchr(p + 7, '"');
            assert_non_null(q);
            p = q + 1;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    *len = (size_t)(o - out);
    return out;
}

/* Jenkins' junit-10.xsd is not ours to ship: PTXGATE_JUNIT10_XSD names a copy when there is
 * one (docs/reports.md). Everything but the testcases' file and line attributes must be valid
 * there. */
static void test_every_fixture_validates_against_jenkins_xsd(void **state)
{
    const char *JENKINS_XSD = getenv("PTXGATE_JUNIT10_XSD");
    if (!JENKINS_XSD || access(JENKINS_XSD, R_OK) != 0) {
        print_message("SKIP: PTXGATE_JUNIT10_XSD %s; JUnit output not checked against Jenkins "
                      "junit-10.xsd\n", JENKINS_XSD ? "names no readable file" : "is not set");
        skip();
    }
    for (const char *const *f = k_fixtures; *f; f++) {
        size_t len;
        char *xml = render_fixture(*f, &len);
        pg_diag d;
        pg_diag_clear(&d);
        size_t slen;
        char *strict = without_locations(xml, &slen);
        pg_status st = pg_junit_validate(strict, slen, JENKINS_XSD, &d);
        free(strict);
        if (st != PG_OK) {
            char buf[4096];
            print_error("%s: %s\n", *f, pg_diag_format(&d, buf, sizeof buf));
        }
        assert_int_equal(st, PG_OK);
        free(xml);
    }
}

/* ---- counts ---- */

/* Stage records by status in the results json: pass, fail, error, skipped. */
static void count_records(const json_t *j, long counts[4])
{
    static const char *const k_status[] = {"pass", "fail", "error", "skipped"};
    memset(counts, 0, 4 * sizeof counts[0]);
    size_t i, k, w;
    json_t *s, *st, *wl;
    json_array_foreach(json_object_get(j, "submissions"), i, s) {
        json_array_foreach(json_object_get(s, "stages"), k, st) {
            for (int c = 0; c < 4; c++)
                counts[c] += strcmp(json_string_value(json_object_get(st, "status")),
                                    k_status[c]) == 0;
        }
        json_array_foreach(json_object_get(s, "workloads"), w, wl) {
            json_array_foreach(json_object_get(wl, "stages"), k, st) {
                for (int c = 0; c < 4; c++)
                    counts[c] += strcmp(json_string_value(json_object_get(st, "status")),
                                        k_status[c]) == 0;
            }
        }
    }
}

static void test_counts_equal_children(void **state)
{
    for (const char *const *f = k_fixtures; *f; f++) {
        json_t *j = load_fixture(*f);
        long want[4];
        count_records(j, want);
        size_t len;
        char *xml = render(j, &len);
        xmlDocPtr doc = parse_xml(xml, len);
        const xmlNode *root = xmlDocGetRootElement(doc);
        assert_true(is_el(root, "testsuites"));
        long all_tests = 0, all_fail = 0, all_err = 0, all_skip = 0;
        for (const xmlNode *s = root->children; s; s = s->next) {
            if (!is_el(s, "testsuite"))
                continue;
            long tests = 0, fail = 0, err = 0, skip_n = 0;
            for (const xmlNode *c = s->children; c; c = c->next) {
                if (!is_el(c, "testcase"))
                    continue;
                tests++;
                int outcomes = 0;
                for (const xmlNode *o = c->children; o; o = o->next) {
                    fail += is_el(o, "failure");
                    err += is_el(o, "error");
                    skip_n += is_el(o, "skipped");
                    outcomes += is_el(o, "failure") + is_el(o, "error") + is_el(o, "skipped");
                }
                assert_true(outcomes <= 1);
            }
            assert_int_equal(attr_long(s, "tests"), tests);
            assert_int_equal(attr_long(s, "failures"), fail);
            assert_int_equal(attr_long(s, "errors"), err);
            assert_int_equal(attr_long(s, "skipped"), skip_n);
            all_tests += tests, all_fail += fail, all_err += err, all_skip += skip_n;
        }
        assert_int_equal(attr_long(root, "tests"), all_tests);
        assert_int_equal(attr_long(root, "failures"), all_fail);
        assert_int_equal(attr_long(root, "errors"), all_err);
        /* ... and they are the stage records of the results, one testcase each. */
        assert_int_equal(all_tests, want[0] + want[1] + want[2] + want[3]);
        assert_int_equal(all_fail, want[1]);
        assert_int_equal(all_err, want[2]);
        assert_int_equal(all_skip, want[3]);
        xmlFreeDoc(doc);
        free(xml);
        json_decref(j);
    }
}

/* ---- names ---- */

/* "classname\x1fname" of every testcase, in document order. */
static size_t testcase_keys(const xmlNode *root, char keys[][600], size_t max)
{
    size_t n = 0;
    for (const xmlNode *s = root->children; s; s = s->next)
        for (const xmlNode *c = is_el(s, "testsuite") ? s->children : NULL; c; c = c->next) {
            if (!is_el(c, "testcase"))
                continue;
            assert_true(n < max);
            char *cn = attr(c, "classname"), *nm = attr(c, "name");
            snprintf(keys[n++], 600, "%s\x1f%s", cn, nm);
            xmlFree(cn);
            xmlFree(nm);
        }
    return n;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void test_testcase_names_as_specified(void **state)
{
    static char got[256][600], want[256][600];
    for (const char *const *f = k_fixtures; *f; f++) {
        if (strcmp(*f, "hostile") == 0)
            continue; /* names with duplicates: test_duplicates_get_unique_names */
        json_t *j = load_fixture(*f);
        size_t len, nw = 0;
        char *xml = render(j, &len);
        xmlDocPtr doc = parse_xml(xml, len);
        size_t ng = testcase_keys(xmlDocGetRootElement(doc), got, 256);
        size_t i, k, w;
        json_t *s, *st, *wl;
        json_array_foreach(json_object_get(j, "submissions"), i, s) {
            const char *task = json_string_value(json_object_get(s, "task"));
            const char *name = json_string_value(json_object_get(s, "name"));
            json_array_foreach(json_object_get(s, "stages"), k, st)
                snprintf(want[nw++], 600, "%s.%s\x1f%s[all]", task, name,
                         json_string_value(json_object_get(st, "stage")));
            json_array_foreach(json_object_get(s, "workloads"), w, wl) {
                json_array_foreach(json_object_get(wl, "stages"), k, st)
                    snprintf(want[nw++], 600, "%s.%s\x1f%s[%s]", task, name,
                             json_string_value(json_object_get(st, "stage")),
                             json_string_value(json_object_get(wl, "name")));
            }
        }
        assert_int_equal(ng, nw);
        qsort(got, ng, sizeof got[0], cmp_key);
        qsort(want, nw, sizeof want[0], cmp_key);
        for (size_t x = 0; x < ng; x++) {
            assert_string_equal(got[x], want[x]);
            if (x > 0)
                assert_string_not_equal(got[x], got[x - 1]); /* unique */
        }
        xmlFreeDoc(doc);
        free(xml);
        json_decref(j);
    }
}

static void test_one_suite_per_task_in_order_of_first_appearance(void **state)
{
    size_t len;
    char *xml = render_fixture("multi_task", &len);
    xmlDocPtr doc = parse_xml(xml, len);
    const xmlNode *root = xmlDocGetRootElement(doc);
    const char *want_suites[] = {"gemm_bf16_nt", "gemm_fp16_nt"};
    size_t n = 0;
    for (const xmlNode *s = root->children; s; s = s->next) {
        if (!is_el(s, "testsuite"))
            continue;
        assert_true(n < 2);
        char *name = attr(s, "name");
        assert_string_equal(name, want_suites[n]);
        xmlFree(name);
        if (n == 0) { /* submissions 0 and 2 both belong here, in that order */
            const xmlNode *first = child(s, "testcase");
            char *cn = attr(first, "classname");
            assert_string_equal(cn, "gemm_bf16_nt.tiled");
            xmlFree(cn);
            assert_int_equal(attr_long(s, "tests"), 8);
        }
        n++;
    }
    assert_int_equal(n, 2);
    assert_non_null(strstr(xml, "classname=\"gemm_bf16_nt.wgmma\""));
    assert_non_null(strstr(xml, "classname=\"gemm_fp16_nt.tiled\""));
    xmlFreeDoc(doc);
    free(xml);
}

static void test_duplicates_get_unique_names(void **state)
{
    static char keys[256][600];
    size_t len;
    char *xml = render_fixture("hostile", &len);
    xmlDocPtr doc = parse_xml(xml, len);
    size_t n = testcase_keys(xmlDocGetRootElement(doc), keys, 256);
    assert_int_equal(n, 12);
    qsort(keys, n, sizeof keys[0], cmp_key);
    for (size_t i = 1; i < n; i++)
        assert_string_not_equal(keys[i], keys[i - 1]);
    /* Two submissions share task and name: the second classname is numbered; a workload name
     * repeated within a submission numbers the testcase name. */
    assert_non_null(strstr(xml, "classname=\"gemm_bf16_nt.&lt;script&gt;alert(1)&lt;/script&gt;#2\""));
    assert_non_null(strstr(xml, "name=\"correctness[m4096|n4096`k4096`&lt;b&gt;bold&lt;/b&gt;]#2\""));
    assert_non_null(strstr(xml, "name=\"correctness[m4096|n4096`k4096`&lt;b&gt;bold&lt;/b&gt;]#3\""));
    xmlFreeDoc(doc);
    free(xml);
}

/* Many submissions of distinct tasks, and many workloads whose names clean to the same text
 * (one results file of a few megabytes): suites are found through a hash map and the
 * numbering resumes at the last number a name got, so this renders in about a second (it was
 * quadratic: 12 000 such names took a minute, these minutes). The names are as before: #2, #3, ... */
static void test_many_entries_scale(void **state)
{
    enum { N_TASKS = 3000, N_CLASH = 20000 };
    json_t *j = load_fixture("multi_task");
    json_t *subs = json_object_get(j, "submissions");
    json_t *proto = json_deep_copy(json_array_get(subs, 0));
    json_t *wl = json_deep_copy(json_array_get(json_object_get(proto, "workloads"), 0));
    json_array_clear(subs);
    for (int i = 0; i < N_TASKS; i++) {
        char task[32];
        snprintf(task, sizeof task, "t%d", i);
        json_t *s = json_deep_copy(proto);
        json_object_set_new(s, "task", json_string(task));
        json_array_append_new(subs, s);
    }
    /* Three control characters each, the digits of i in base 28 (tab, newline and carriage
     * return left out): all clean to "w" and three U+FFFD. */
    static const char ctl[28] = {1,  2,  3,  4,  5,  6,  7,  8,  11, 12, 14, 15, 16, 17,
                                 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    json_t *clash = json_deep_copy(proto), *wls = json_array();
    json_object_set_new(clash, "task", json_string("clash"));
    for (int i = 0; i < N_CLASH; i++) {
        char name[8] = {'w', ctl[i % 28], ctl[i / 28 % 28], ctl[i / 784]};
        json_t *w = json_deep_copy(wl);
        json_object_set_new(w, "name", json_string(name));
        json_array_append_new(wls, w);
    }
    json_object_set_new(clash, "workloads", wls);
    json_array_append_new(subs, clash);
    size_t len;
    char *xml = render(j, &len);
    xmlDocPtr doc = parse_xml(xml, len);
    size_t suites = 0;
    for (const xmlNode *s = xmlDocGetRootElement(doc)->children; s; s = s->next)
        suites += is_el(s, "testsuite");
    assert_int_equal(suites, N_TASKS + 1);
    const char *stage = json_string_value(
        json_object_get(json_array_get(json_object_get(wl, "stages"), 0), "stage"));
    char want[96];
    snprintf(want, sizeof want, "name=\"%s[w\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd]#%d\"", stage,
             N_CLASH);
    assert_non_null(strstr(xml, want));
    snprintf(want, sizeof want, "name=\"%s[w\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd]#%d\"", stage,
             N_CLASH + 1);
    assert_null(strstr(xml, want));
    xmlFreeDoc(doc);
    free(xml);
    json_decref(wl);
    json_decref(proto);
    json_decref(j);
}

/* ---- content ---- */

static void test_failure_messages_carry_the_numbers(void **state)
{
    size_t len;
    char *xml = render_fixture("performance_fail", &len);
    const char *f = strstr(xml, "<failure message=\"");
    assert_non_null(f);
    const char *end = strstr(f, "</failure>");
    assert_non_null(end);
    const char *msg_end = strstr(f, "\" type=\"performance\">");
    assert_non_null(msg_end);
    /* in the message attribute */
    const char *needles[] = {"speedup 0.150× [0.141, 0.160] (95% CI)", "min speedup 0.2",
                             "candidate median 5.0620 ms [5.0367, 5.0822], 118.8 TFLOP/s",
                             "baseline median 0.7593 ms [0.7555, 0.7623], 791.9 TFLOP/s"};
    for (size_t i = 0; i < 4; i++) {
        const char *hit = strstr(f, needles[i]);
        assert_non_null(hit);
        assert_true(hit < msg_end);
        /* ... and in the body */
        const char *body_hit = strstr(msg_end, needles[i]);
        assert_non_null(body_hit);
        assert_true(body_hit < end);
    }
    free(xml);

    xml = render_fixture("correctness_fail", &len);
    f = strstr(xml, "<failure message=\"");
    assert_non_null(f);
    assert_non_null(strstr(f, "max abs error 3.5; max rel error 1; rel L2 error 0.0871; bad "
                              "elements 1234; tolerance atol 0.01, rtol 0.01, max rel L2 0.01\" "
                              "type=\"correctness\">"));
    assert_non_null(strstr(f, "\nbad elements 1234\n"));
    free(xml);

    xml = render_fixture("assemble_fail", &len);
    assert_non_null(strstr(xml, "<failure message=\"ptxas failed: 2 errors, 1 warning — PTX line "
                                "8: error: Unknown symbol 'r9'; PTX line 41: error: Arguments "
                                "mismatch for instruction 'mma'; PTX line 3: warning: Unused "
                                "parameter 'ldc'; 1 more diagnostic\" type=\"assemble\">"));
    free(xml);
}


/* Without a vendor arm the speedup is named for what it is over. */
static void test_speedup_over_the_accepted_kernel_is_named(void **state)
{
    (void)state;
    size_t len;
    json_t *j = load_fixture("performance_fail");
    json_object_set_new(perf_details(j, 0, 0), "reference", json_string("accepted"));
    char *xml = render(j, &len);
    assert_non_null(strstr(xml, "speedup 0.150× [0.141, 0.160] (95% CI) over the accepted kernel"));
    free(xml);
    json_decref(j);
}

static void test_error_and_skipped_outcomes(void **state)
{
    size_t len;
    char *xml = render_fixture("infra_error", &len);
    const char *e = strstr(xml, "<error message=\"cuBLASLt returned no algorithm");
    assert_non_null(e);
    assert_non_null(strstr(e, "candidate median 1.0190 ms [1.0140, 1.0230], 590.1 TFLOP/s\" "
                              "type=\"performance\">"));
    assert_null(strstr(xml, "<failure"));
    free(xml);

    xml = render_fixture("gpu_skipped", &len);
    assert_non_null(strstr(xml, "<testcase name=\"load[all]\" classname=\"gemm_bf16_nt.tiled\" "
                                "time=\"0.000\">\n      <skipped message=\"GPU unavailable: no "
                                "CUDA device: cuInit returned CUDA_ERROR_NO_DEVICE (100)\"/>"));
    assert_non_null(strstr(xml, "hostname=\"ci-cpu-7\""));
    assert_non_null(strstr(xml, "<property name=\"gpu_skip_reason\""));
    assert_null(strstr(xml, "<property name=\"gpu.name\""));
    free(xml);
}

static void test_suite_attributes_and_system_out(void **state)
{
    size_t len;
    char *xml = render_fixture("all_pass", &len);
    assert_non_null(strstr(xml, "<testsuites name=\"ptxgate\" tests=\"6\" failures=\"0\" "
                                "errors=\"0\" time=\"41.200\">"));
    assert_non_null(strstr(xml, "<testsuite name=\"gemm_bf16_nt\" tests=\"6\" failures=\"0\" "
                                "errors=\"0\" skipped=\"0\" time=\"41.200\" "
                                "timestamp=\"2026-11-29T10:00:00\" hostname=\"runner-1\" id=\"0\">"));
    assert_non_null(strstr(xml, "<testcase name=\"assemble[all]\" "
                                "classname=\"gemm_bf16_nt.tiled\" time=\"0.412\">"));
    /* details as key: value lines */
    assert_non_null(strstr(xml, "\nregisters: 168\n"));
    assert_non_null(strstr(xml, "\ncandidate.tflops: 590.084\n"));
    assert_non_null(strstr(xml, "\nspeedup.ci_high: 0.75\n"));
    assert_non_null(strstr(xml, "\nsets[2].first_bad_index: null\n"));
    assert_non_null(strstr(xml, "\nlog:\n  ptxas info    : Compiling entry function"));
    /* no file/line attributes where nothing failed, no testcase properties */
    assert_null(strstr(xml, " file=\""));
    assert_null(strstr(xml, " line=\""));
    assert_int_equal(xml[len - 1], '\n');
    free(xml);

    /* hostname missing -> "unknown" */
    json_t *j = load_fixture("all_pass");
    json_object_del(json_object_get(j, "environment"), "hostname");
    xml = render(j, &len);
    assert_non_null(strstr(xml, "hostname=\"unknown\""));
    free(xml);
    json_decref(j);

    /* names that clean to nothing still give a valid document */
    j = load_fixture("all_pass");
    json_object_set_new(json_object_get(j, "environment"), "hostname", json_string("\n\t"));
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(sub, "task", json_string(""));
    json_object_set_new(sub, "name", json_string("\r\n"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "hostname=\"unknown\""));
    assert_non_null(strstr(xml, "<testsuite name=\"(unnamed task)\""));
    assert_non_null(strstr(xml, "classname=\"(unnamed task).(unnamed)\""));
    pg_diag d;
    assert_int_equal(pg_junit_validate(xml, len, OWN_XSD, &d), PG_OK);
    free(xml);
    json_decref(j);
}

/* ---- hostile text ---- */

static bool valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        int n = *u < 0x80 ? 1 : (*u & 0xE0) == 0xC0 ? 2 : (*u & 0xF0) == 0xE0 ? 3
                : (*u & 0xF8) == 0xF0 ? 4 : 0;
        if (!n)
            return false;
        for (int i = 1; i < n; i++)
            if ((u[i] & 0xC0) != 0x80)
                return false;
        u += n;
    }
    return true;
}

static void test_hostile_text_is_escaped_and_round_trips(void **state)
{
    size_t len;
    char *xml = render_fixture("hostile", &len);
    assert_true(valid_utf8(xml));
    assert_null(strstr(xml, "<script"));
    assert_null(strstr(xml, "<img"));
    assert_null(strstr(xml, "<b>"));
    assert_null(strstr(xml, "\x01"));
    assert_null(strstr(xml, "\x1b"));
    assert_null(strstr(xml, "\u202e"));
    /* The parsed attribute is the original text again (escaping, not mangling). */
    xmlDocPtr doc = parse_xml(xml, len);
    const xmlNode *suite = child(xmlDocGetRootElement(doc), "testsuite");
    const xmlNode *tc = child(suite, "testcase");
    char *cn = attr(tc, "classname");
    assert_string_equal(cn, "gemm_bf16_nt.<script>alert(1)</script>");
    xmlFree(cn);
    char *host = attr(suite, "hostname");
    assert_string_equal(host, "host<&>\"@someone");
    xmlFree(host);
    char *msg = attr(child(tc, "failure"), "message");
    assert_null(strchr(msg, '\n')); /* messages stay on one line */
    assert_non_null(strstr(msg, "<img src=x onerror=alert(1)> & ping"));
    xmlFree(msg);
    xmlFreeDoc(doc);
    free(xml);
}

/* ---- determinism ---- */

static void test_render_is_deterministic(void **state)
{
    for (const char *const *f = k_fixtures; *f; f++) {
        json_t *j = load_fixture(*f);
        size_t l1, l2, l3;
        char *a = render(j, &l1);
        char *b = render(j, &l2);
        assert_int_equal(l1, l2);
        assert_memory_equal(a, b, l1);
        /* results.json written and read back renders the same bytes (what `ptxgate report`
         * relies on) */
        char *text = json_dumps(j, JSON_INDENT(2));
        json_error_t e;
        json_t *back = json_loads(text, JSON_REJECT_DUPLICATES, &e);
        assert_non_null(back);
        char *c = render(back, &l3);
        assert_int_equal(l1, l3);
        assert_memory_equal(a, c, l1);
        free(a);
        free(b);
        free(c);
        free(text);
        json_decref(back);
        json_decref(j);
    }
}

static void test_locale_does_not_change_numbers(void **state)
{
    const char *const k_comma_locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                           "fr_FR.utf8",  "ru_RU.UTF-8", NULL};
    json_t *j = load_fixture("performance_fail");
    char *c_locale = render(j, NULL);
    const char *used = NULL;
    for (const char *const *l = k_comma_locales; *l && !used; l++)
        if (setlocale(LC_ALL, *l))
            used = *l;
    if (!used) {
        print_message("SKIP: no comma-decimal locale installed (de_DE, fr_FR, ru_RU); "
                      "locale independence not exercised\n");
        free(c_locale);
        json_decref(j);
        skip();
    }
    char probe[32];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    char *other = render(j, NULL);
    setlocale(LC_ALL, "C");
    assert_string_equal(probe, "1,5"); /* the locale really changes printf ... */
    assert_string_equal(other, c_locale); /* ... but not the report */
    free(other);
    free(c_locale);
    json_decref(j);
}

static void test_matches_expected_output(void **state)
{
    bool update = getenv("PG_UPDATE_GOLDEN") != NULL;
    for (const char *const *f = k_fixtures; *f; f++) {
        size_t len;
        char *xml = render_fixture(*f, &len);
        char path[1024];
        snprintf(path, sizeof path, RESULTS_DIR "/expected/%s.junit.xml", *f);
        pg_diag d;
        if (update) {
            assert_int_equal(pg_file_write_atomic(path, xml, len, &d), PG_OK);
        } else {
            char *want = NULL;
            size_t wlen = 0;
            assert_int_equal(pg_file_read(path, 1u << 24, &want, &wlen, &d), PG_OK);
            if (wlen != len || memcmp(want, xml, len) != 0)
                print_error("%s differs from the rendering (PG_UPDATE_GOLDEN=1 rewrites it)\n",
                            path);
            assert_int_equal(wlen, len);
            assert_memory_equal(want, xml, len);
            free(want);
        }
        free(xml);
    }
}

/* ---- malformed results ---- */

static void expect_input_error(json_t *j, const char *field, const char *words)
{
    char *out = (char *)1;
    size_t len = 7;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_report_junit(j, "bad.json", &out, &len, &d);
    if (st != PG_ERR_INPUT)
        print_error("expected an input error at %s, got status %d\n", field, (int)st);
    assert_int_equal(st, PG_ERR_INPUT);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_int_equal(d.status, PG_ERR_INPUT);
    assert_string_equal(d.file, "bad.json");
    assert_string_equal(d.field, field);
    if (words && !strstr(d.message, words))
        print_error("message \"%s\" lacks \"%s\"\n", d.message, words);
    assert_true(!words || strstr(d.message, words));
}

static void test_malformed_results_name_the_path(void **state)
{
    json_t *j = load_fixture("all_pass");
    json_object_del(j, "submissions");
    expect_input_error(j, "submissions", "missing");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(j, "submissions", json_object());
    expect_input_error(j, "submissions", "an array");
    json_decref(j);

    j = load_fixture("all_pass");
    json_t *st0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                                 "stages"), 0);
    json_object_set_new(st0, "status", json_string("passed"));
    expect_input_error(j, "submissions[0].stages[0].status", "pass, fail, error, skipped");
    json_decref(j);

    j = load_fixture("all_pass");
    json_t *w0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                                "workloads"), 0);
    json_t *perf = json_array_get(json_object_get(w0, "stages"), 1);
    json_object_set_new(json_object_get(json_object_get(perf, "details"), "candidate"), "tflops",
                        json_string("fast"));
    expect_input_error(j, "submissions[0].workloads[0].stages[1].details.candidate.tflops",
                       "a number");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(j, "started_utc", json_string("yesterday"));
    expect_input_error(j, "started_utc", "UTC");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(json_array_get(json_object_get(w0 = json_array_get(json_object_get(
                            json_array_get(json_object_get(j, "submissions"), 0), "workloads"), 1),
                                                       "stages"), 0),
                        "duration_s", json_real(-1.0));
    expect_input_error(j, "submissions[0].workloads[1].stages[0].duration_s", ">= 0");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(j, "schema_version", json_integer(2));
    expect_input_error(j, "schema_version", "expected 1");
    json_decref(j);

    j = json_array();
    char *out = NULL;
    pg_diag d;
    assert_int_equal(pg_report_junit(j, "bad.json", &out, NULL, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "bad.json");
    json_decref(j);
}

/* ---- the validator ---- */

static void test_validator_reports_problems(void **state)
{
    pg_diag d;
    const char *ok = "<testsuites tests=\"0\" failures=\"0\" errors=\"0\"/>";
    assert_int_equal(pg_junit_validate(ok, strlen(ok), OWN_XSD, &d), PG_OK);

    assert_int_equal(pg_junit_validate(ok, strlen(ok), PG_TEST_TMP "/no-such.xsd", &d),
                     PG_ERR_INFRA);
    assert_non_null(strstr(d.message, "cannot load the XML schema"));

    const char *broken = "<testsuites>\n<testsuite>\n</testsuites>";
    assert_int_equal(pg_junit_validate(broken, strlen(broken), OWN_XSD, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "not well-formed"));
    assert_int_equal(d.line, 3);

    const char *dup =
        "<testsuites tests=\"2\" failures=\"0\" errors=\"0\">\n"
        "<testsuite name=\"t\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.0\" "
        "timestamp=\"2026-11-29T10:00:00\" hostname=\"h\">\n"
        "<testcase name=\"a\" classname=\"c\" time=\"0.0\"/>\n"
        "<testcase name=\"a\" classname=\"c\" time=\"0.0\"/>\n"
        "</testsuite>\n</testsuites>\n";
    assert_int_equal(pg_junit_validate(dup, strlen(dup), OWN_XSD, &d), PG_ERR_INPUT);
    assert_int_equal(d.line, 4);
    assert_non_null(strstr(d.message, "line 4"));

    const char *no_time =
        "<testsuites tests=\"1\" failures=\"0\" errors=\"0\">\n"
        "<testsuite name=\"t\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.0\" "
        "timestamp=\"2026-11-29T10:00:00Z\" hostname=\"h\"/>\n</testsuites>\n";
    assert_int_equal(pg_junit_validate(no_time, strlen(no_time), OWN_XSD, &d), PG_ERR_INPUT);
    assert_int_equal(d.line, 2);
}

/* ---- schemas/results.schema.json: self-consistent, and the fixtures are valid under it ----
 * (the validator of the schema subset: schema_subset.h). */
#include "schema_subset.h"

static void test_results_schema_is_consistent_and_fixtures_valid(void **state)
{
    json_t *schema = NULL;
    pg_diag d;
    assert_int_equal(pg_json_load(RESULTS_SCHEMA, &schema, &d), PG_OK);
    g_schema_root = schema;
    assert_string_equal(json_string_value(json_object_get(schema, "$schema")),
                        "https://json-schema.org/draft/2020-12/schema");
    check_schema(schema, "");
    char why[512];
    for (const char *const *f = k_fixtures; *f; f++) {
        json_t *j = load_fixture(*f);
        why[0] = '\0';
        int errs = schema_errors(schema, j, "", why, sizeof why);
        if (errs)
            print_error("%s: %d schema errors, first %s\n", *f, errs, why);
        assert_int_equal(errs, 0);
        json_decref(j);
    }
    /* ... and it does reject things. */
    json_t *j = load_fixture("all_pass");
    json_object_set_new(j, "surprise", json_true());
    why[0] = '\0';
    assert_true(schema_errors(schema, j, "", why, sizeof why) > 0);
    json_object_del(j, "surprise");
    json_object_set_new(json_object_get(j, "environment"), "gpu", json_null());
    why[0] = '\0';
    assert_true(schema_errors(schema, j, "", why, sizeof why) > 0); /* skip reason must be set */
    json_decref(j);
    json_decref(schema);
}


/* ---- locations and times (docs/reports.md, "Locations") ---- */

static void test_failure_locations(void **state)
{
    (void)state;
    size_t len;
    /* .ptx source: the first ptxas diagnostic with a line (an error at line 8), also as the
     * failure text's first line */
    char *xml = render_fixture("assemble_fail", &len);
    assert_non_null(strstr(xml, "classname=\"gemm_bf16_nt.broken\" time=\"0.087\" "
                                "file=\"tasks/gemm_bf16_nt/examples/broken.ptx\" line=\"8\">"));
    assert_non_null(strstr(xml, "type=\"assemble\">tasks/gemm_bf16_nt/examples/broken.ptx:8: "
                                "ptxas failed: 2 errors, 1 warning\n"));
    free(xml);

    /* an absolute path below settings.working_directory comes out relative to it */
    json_t *j = load_fixture("assemble_fail");
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(json_object_get(j, "settings"), "working_directory",
                        json_string("/home/r/repo/"));
    json_object_set_new(sub, "source", json_string("/home/r/repo/k/x.ptx"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"k/x.ptx\" line=\"8\""));
    free(xml);
    /* outside it: kept as recorded (never "../") */
    json_object_set_new(sub, "source", json_string("/elsewhere/x.ptx"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"/elsewhere/x.ptx\" line=\"8\""));
    free(xml);
    /* a .cu source whose only line is a PTX line of nvcc's output: the .cu at line 1 */
    json_object_set_new(sub, "source", json_string("k/x.cu"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"k/x.cu\" line=\"1\""));
    free(xml);
    /* ... and at nvcc's own .cu line when it reported one */
    json_t *assemble = json_array_get(json_object_get(sub, "stages"), 0);
    json_object_set_new(json_object_get(assemble, "details"), "nvcc",
                        json_pack("{s:[{s:s, s:i, s:s}, {s:s, s:i, s:s}]}", "diagnostics",
                                  "severity", "info", "line", 3, "message", "x", "severity",
                                  "error", "line", 17, "message", "identifier undefined"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"k/x.cu\" line=\"17\""));
    assert_non_null(strstr(xml, ">k/x.cu:17: "));
    free(xml);
    /* no line anywhere: the manifest at line 1 */
    json_object_set_new(sub, "source", json_string("k/x.ptx"));
    json_object_del(json_object_get(assemble, "details"), "diagnostics");
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"tasks/gemm_bf16_nt/examples/broken.json\" line=\"1\""));
    pg_diag d;
    assert_int_equal(pg_junit_validate(xml, len, OWN_XSD, &d), PG_OK);
    free(xml);
    json_decref(j);

    /* instructions: the first failed target's PTX line (its nearest instruction's when it is
     * absent) for a .ptx source; the .cu source at line 1 */
    xml = render_fixture("instructions_fail", &len);
    assert_non_null(strstr(xml, "file=\"tasks/gemm_bf16_nt/examples/tiled_mma.cu\" line=\"1\""));
    free(xml);
    j = load_fixture("instructions_fail");
    sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(sub, "source", json_string("tasks/t/k.ptx"));
    xml = render(j, &len);
    assert_non_null(strstr(xml, "file=\"tasks/t/k.ptx\" line=\"876\""));
    free(xml);
    json_decref(j);

    /* correctness, performance: the manifest */
    xml = render_fixture("correctness_fail", &len);
    assert_non_null(strstr(xml, ".json\" line=\"1\">"));
    free(xml);
    /* a passing or skipped testcase carries no location */
    xml = render_fixture("gpu_skipped", &len);
    assert_null(strstr(xml, " file=\""));
    free(xml);
}

/* The value of attribute name in the n-th element tag (0-based) whose text starts with tag. */
static double nth_attr(const char *xml, const char *tag, int n, const char *name)
{
    const char *p = xml;
    for (int i = 0; i <= n; i++) {
        p = strstr(p, tag);
        assert_non_null(p);
        p += strlen(tag);
    }
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *v = strstr(p, key);
    assert_non_null(v);
    assert_true(v < strchr(p, '>'));
    return strtod(v + strlen(key), NULL);
}

static void test_suite_times_add_up_and_properties_once(void **state)
{
    (void)state;
    json_t *j = load_fixture("multi_task");
    static const double k_durations[] = {20.5, 0.001, 0.002, 7.3333, 0};
    for (size_t k = 0; k < sizeof k_durations / sizeof k_durations[0]; k++) {
        json_object_set_new(j, "duration_s", json_real(k_durations[k]));
        size_t len;
        char *xml = render(j, &len);
        double root = nth_attr(xml, "<testsuites ", 0, "time");
        double a = nth_attr(xml, "<testsuite ", 0, "time"), b = nth_attr(xml, "<testsuite ", 1, "time");
        /* whole milliseconds that add up exactly */
        assert_int_equal((long)(a * 1000 + 0.5) + (long)(b * 1000 + 0.5), (long)(root * 1000 + 0.5));
        if (k == 0) {
            /* shared in proportion to the suites' testcase times (5.832 s and 2.923 s) */
            assert_true(a > b && a > 13.6 && a < 13.7);
        }
        /* one properties block: the run-wide one, in the first suite */
        const char *props = strstr(xml, "<properties>");
        assert_non_null(props);
        assert_null(strstr(props + 1, "<properties>"));
        assert_true(props < strstr(xml, "<testcase "));
        free(xml);
    }
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_validates_against_own_xsd),
        cmocka_unit_test(test_every_fixture_validates_against_jenkins_xsd),
        cmocka_unit_test(test_counts_equal_children),
        cmocka_unit_test(test_testcase_names_as_specified),
        cmocka_unit_test(test_one_suite_per_task_in_order_of_first_appearance),
        cmocka_unit_test(test_duplicates_get_unique_names),
        cmocka_unit_test(test_many_entries_scale),
        cmocka_unit_test(test_failure_messages_carry_the_numbers),
        cmocka_unit_test(test_speedup_over_the_accepted_kernel_is_named),
        cmocka_unit_test(test_error_and_skipped_outcomes),
        cmocka_unit_test(test_suite_attributes_and_system_out),
        cmocka_unit_test(test_failure_locations),
        cmocka_unit_test(test_suite_times_add_up_and_properties_once),
        cmocka_unit_test(test_hostile_text_is_escaped_and_round_trips),
        cmocka_unit_test(test_render_is_deterministic),
        cmocka_unit_test(test_locale_does_not_change_numbers),
        cmocka_unit_test(test_matches_expected_output),
        cmocka_unit_test(test_malformed_results_name_the_path),
        cmocka_unit_test(test_validator_reports_problems),
        cmocka_unit_test(test_results_schema_is_consistent_and_fixtures_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
