/* The markdown summary: title and environment lines, the workload table with its formatted
 * numbers, assemble diagnostics, the skipped-stage list, escaping of hostile text, the size cap,
 * determinism (also under a comma-decimal locale when one is installed) and located errors for
 * malformed results. Fixtures: tests/data/results/<name>.json; expected outputs:
 * tests/data/results/expected/<name>.md (PG_UPDATE_GOLDEN=1 rewrites them). */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "report/markdown.h"

#define RESULTS_DIR PG_TEST_DATA "/results"

#include "results_fixtures.h"

static char *render(const json_t *j, size_t *len)
{
    char *out = NULL;
    size_t n = 0;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_report_markdown(j, "results.json", &out, &n, &d);
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

static char *render_fixture(const char *name)
{
    json_t *j = load_fixture(name);
    char *out = render(j, NULL);
    json_decref(j);
    return out;
}

/* The output contains line as a whole line. */
static void assert_line(const char *md, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = md; (p = strstr(p, line)) != NULL; p++)
        if ((p == md || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return;
    print_error("missing line: %s\n--- in ---\n%s\n", line, md);
    fail();
}

/* text occurs in md exactly once. */
static void assert_said_once(const char *md, const char *text)
{
    const char *first = strstr(md, text);
    assert_non_null(first);
    assert_null(strstr(first + 1, text));
}

static void test_title_and_environment(void **state)
{
    char *md = render_fixture("all_pass");
    assert_true(strncmp(md, "## ptxgate: PASS\n", 17) == 0);
    assert_line(md, "1 submission: 1 PASS, 0 FAIL, 0 ERROR · stages: 6 passed, 0 failed, 0 errored, 0 "
                    "skipped · exit code 0 · 41.2 s · started 2026-11-29T10:00:00Z · ptxgate 0.1.0");
    assert_line(md, "**Environment:** NVIDIA H200 (compute capability 9.0, 132 SMs) · driver "
                    "580.159.04 · CUDA 13.0 · ptxas 13.0.88 · cuBLASLt 13.1.0 · host runner-1");
    assert_null(strstr(md, "Skipped stages")); /* nothing skipped: no list */
    free(md);

    /* An infrastructure error is titled as such, apart from kernel failures. */
    md = render_fixture("infra_error");
    assert_true(strncmp(md, "## ptxgate: INFRASTRUCTURE ERROR\n", 33) == 0);
    assert_non_null(strstr(md, "> **Infrastructure error:** the gate could not judge"));
    assert_line(md, "### 1 · INFRASTRUCTURE ERROR: gemm_bf16_nt / tiled");
    free(md);

    /* No GPU stage ran: the title says so with the reason, the reason is said once. */
    md = render_fixture("gpu_skipped");
    const char *reason = "no CUDA device: cuInit returned CUDA_ERROR_NO_DEVICE (100)";
    char want[512];
    snprintf(want, sizeof want, "## ptxgate: PASS · not judged on a GPU: %s\n", reason);
    assert_true(strncmp(md, want, strlen(want)) == 0);
    assert_non_null(strstr(md, "> **Not judged on a GPU:** 1 of 1 submission passed only the "
                               "offline stages"));
    assert_said_once(md, reason);
    assert_line(md, "1 submission: 0 PASS, 0 FAIL, 0 ERROR, 1 SKIPPED · stages: 0 passed, 0 "
                    "failed, 0 errored, 6 skipped · exit code 0 · 0.9 s · started "
                    "2026-11-29T10:00:00Z · ptxgate 0.1.0");
    assert_line(md, "**Environment:** GPU not used (the reason is in the title) · driver — · "
                    "CUDA — · ptxas — · cuBLASLt — · host ci-cpu-7");
    assert_line(md, "### 1 · SKIPPED, not judged on a GPU: gemm_bf16_nt / tiled");
    assert_line(md, "| [1](#ptxgate-1) | gemm_bf16_nt / tiled | SKIPPED, not judged on a GPU | — "
                    "| — |");
    free(md);
}

static void test_submission_and_table(void **state)
{
    char *md = render_fixture("all_pass");
    /* the overview: one row per submission, linked to its section */
    assert_line(md, "| # | submission | verdict | failing stage | speedup at the headline "
                    "workload |");
    assert_line(md, "| [1](#ptxgate-1) | gemm_bf16_nt / tiled | PASS | — | 0.745× [0.741, "
                    "0.750] at m8192_n7168_k5120 |");
    assert_line(md, "<a name=\"ptxgate-1\"></a>");
    assert_line(md, "### 1 · PASS: gemm_bf16_nt / tiled");
    /* a passing submission's tables are collapsed */
    assert_line(md, "<details><summary>2 workloads: targets, numbers and verdicts</summary>");
    assert_line(md, "</details>");
    assert_line(md, "- task: gemm_bf16_nt · source: tasks/gemm_bf16_nt/examples/tiled_mma.cu · "
                    "arch: sm_90a");
    assert_line(md, "- assemble: PASS — 168 registers, 0 B spill stores, 0 B spill loads, 0 B "
                    "shared, 0 B stack (0.412 s)");
    assert_line(md, "- load: PASS (0.011 s)");
    assert_line(md, "| workload | status | candidate TFLOP/s | baseline TFLOP/s | speedup [95% CI] "
                    "| max abs error | rel L2 error | bad elements |");
    assert_line(md, "| m8192_n7168_k5120 | PASS | 590.1 | 791.9 | 0.745× [0.741, 0.750] | 0.0625 "
                    "| 0.0021 | 0 |");
    assert_line(md, "| m4096_n4096_k4096 | PASS | 558.5 | 670.8 | 0.833× [0.828, 0.837] | 0.0312 "
                    "| 0.00184 | 0 |");
    free(md);

    md = render_fixture("performance_fail");
    assert_null(strstr(md, "<details>")); /* a failing submission's table is open */
    assert_line(md, "| m8192_n7168_k5120 | FAIL (performance) | 118.8 | 791.9 | 0.150× [0.141, "
                    "0.160] | 0.0625 | 0.0021 | 0 |");
    assert_line(md, "- performance\\[m8192_n7168_k5120\\]: FAIL — speedup 0.150× \\[0.141, "
                    "0.160\\] (95% CI): upper bound below the minimum 0.2");
    free(md);

    md = render_fixture("correctness_fail");
    assert_line(md, "| m8192_n7168_k5120 | FAIL (correctness) | — | — | — | 3.5 | 0.0871 | 1234 |");
    assert_line(md, "| m4096_n4096_k4096 | PASS | 558.5 | 670.8 | 0.833× [0.828, 0.837] | 0.0312 "
                    "| 0.00184 | 0 |");
    free(md);

    md = render_fixture("infra_error");
    assert_line(md, "| m8192_n7168_k5120 | ERROR (performance) | 590.1 | — | — | 0.0625 | 0.0021 "
                    "| 0 |");
    free(md);

    /* The interval's confidence comes from the settings. */
    json_t *j = load_fixture("all_pass");
    json_object_set_new(json_object_get(j, "settings"), "confidence", json_real(0.99));
    md = render(j, NULL);
    assert_non_null(strstr(md, "| speedup [99% CI] |"));
    free(md);
    json_decref(j);
}


/* A speedup over the accepted kernel (the library refused the configuration) is not one over
 * the library: the table's speedup cell stays empty. */
static void test_speedup_over_the_accepted_kernel_is_left_out(void **state)
{
    (void)state;
    json_t *j = load_fixture("all_pass");
    json_object_set_new(perf_details(j, 0, 0), "reference", json_string("accepted"));
    char *md = render(j, NULL);
    assert_line(md, "| m8192_n7168_k5120 | PASS | 590.1 | 791.9 | — | 0.0625 | 0.0021 | 0 |");
    assert_line(md, "| m4096_n4096_k4096 | PASS | 558.5 | 670.8 | 0.833× [0.828, 0.837] | 0.0312 "
                    "| 0.00184 | 0 |");
    free(md);
    json_decref(j);
}

static void test_assemble_diagnostics_with_ptx_lines(void **state)
{
    /* registers and spills per entry when the module has several */
    char *multi = render_fixture("multi_task");
    assert_line(multi, "- assemble: PASS — gemm_wgmma_main: 232 registers, 0 B spill stores, 0 B "
                       "spill loads, 0 B shared, 0 B stack; gemm_wgmma_tail: 96 registers, 16 B "
                       "spill stores, 16 B spill loads, 0 B shared, 0 B stack (0.398 s)");
    free(multi);

    char *md = render_fixture("assemble_fail");
    assert_line(md, "- assemble: FAIL — ptxas failed: 2 errors, 1 warning (0.087 s)");
    assert_line(md, "  - PTX line 8: error: Unknown symbol 'r9'");
    assert_line(md, "  - PTX line 41: error: Arguments mismatch for instruction 'mma'");
    assert_line(md, "  - PTX line 3: warning: Unused parameter 'ldc'");
    assert_line(md, "  - error: Ptx assembly aborted due to errors"); /* line 0: none shown */
    assert_line(md, "- load: SKIPPED — not run: assemble failed");
    assert_line(md, "| m4096_n4096_k4096 | SKIPPED | — | — | — | — | — | — |");
    free(md);
}

static void test_skipped_stages_are_listed_with_reasons(void **state)
{
    char *md = render_fixture("gpu_skipped");
    const char *list = strstr(md, "\n### Skipped stages\n\n");
    assert_non_null(list);
    assert_line(list, "- ptxas not found: the driver JIT compiles the PTX at load instead (no "
                      "resource usage, diagnostics only from the driver): assemble\\[all\\] of "
                      "gemm_bf16_nt / tiled");
    /* Stages skipped for the same reason are one item, with a count; the run's no-GPU reason
     * is not repeated. */
    assert_line(list, "- GPU unavailable: no GPU (the reason is above): 5 stages of gemm_bf16_nt "
                      "/ tiled");
    assert_null(strstr(list, "correctness\\[m8192_n7168_k5120\\]"));
    /* every workload skipped and nothing measured: one line, not a table of dashes */
    assert_line(md, "All 2 workloads (m8192_n7168_k5120, m4096_n4096_k4096): SKIPPED; nothing "
                    "measured.");
    free(md);

    /* Many submissions skipped for one reason: one item naming a few of them. */
    json_t *j = load_fixture("gpu_skipped");
    json_t *subs = json_object_get(j, "submissions");
    for (int i = 0; i < 19; i++)
        json_array_append_new(subs, json_deep_copy(json_array_get(subs, 0)));
    md = render(j, NULL);
    list = strstr(md, "\n### Skipped stages\n\n");
    assert_non_null(list);
    assert_line(list, "- GPU unavailable: no GPU (the reason is above): 100 stages of 20 "
                      "submissions (gemm_bf16_nt / tiled, gemm_bf16_nt / tiled, gemm_bf16_nt / "
                      "tiled, gemm_bf16_nt / tiled and 16 more)");
    const char *reason = "cuInit returned CUDA_ERROR_NO_DEVICE";
    assert_said_once(md, reason); /* said once for 20 submissions */
    free(md);
    json_decref(j);
}

/* ---- hostile text ---- */

/* Unescaped '|' in a line (a '|' after an odd run of backslashes is escaped). */
static int raw_pipes(const char *line, size_t n)
{
    int pipes = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] != '|')
            continue;
        size_t bs = 0;
        while (bs < i && line[i - 1 - bs] == '\\')
            bs++;
        pipes += bs % 2 == 0;
    }
    return pipes;
}

/* Our own HTML: the section anchors and the <details> around a passing submission's tables. */
static bool own_tag(const char *p)
{
    static const char *const k_tags[] = {"<a name=\"ptxgate-", "</a>", "<details><summary>",
                                         "</summary>", "</details>"};
    for (size_t i = 0; i < sizeof k_tags / sizeof k_tags[0]; i++)
        if (strncmp(p, k_tags[i], strlen(k_tags[i])) == 0)
            return true;
    return false;
}

/* Outside code spans: no raw '<' but our own tags, no unescaped backtick/emphasis/strike-through
 * (the only markup is our bold "**…:**" labels), nothing GFM autolinks (://, www., an '@' not
 * followed by a zero-width joiner); inside code spans (opened and closed by one unescaped
 * backtick on the same line): no space, '|' or '<'. */
static void assert_inert(const char *md)
{
    bool code = false;
    for (const char *p = md; *p; p++) {
        bool escaped = p > md && p[-1] == '\\' && !(p > md + 1 && p[-2] == '\\');
        if (*p == '`' && !escaped) {
            code = !code;
            continue;
        }
        if (code) {
            assert_true(*p != ' ' && *p != '|' && *p != '<' && *p != '\n');
            continue;
        }
        if (*p == '<')
            assert_true(own_tag(p));
        if (*p == '*' && !escaped)
            assert_true(strncmp(p, "**", 2) == 0 || (p > md && p[-1] == '*'));
        if (*p == '~')
            assert_true(escaped);
        assert_false(strncmp(p, "://", 3) == 0);
        assert_false(strncasecmp(p, "www.", 4) == 0);
        if (*p == '@')
            assert_true(strncmp(p, "@\u200D", 4) == 0);
    }
    assert_false(code);
}

static void test_hostile_text_is_neutralized(void **state)
{
    char *md = render_fixture("hostile");
    assert_null(strstr(md, "<script"));
    assert_null(strstr(md, "<img"));
    assert_null(strstr(md, "<b>"));
    assert_null(strstr(md, "@someone"));
    assert_null(strstr(md, "@org"));
    assert_non_null(strstr(md, "@\u200Dsomeone")); /* still readable */
    assert_null(strstr(md, "\x01"));
    assert_null(strstr(md, "\x1b"));
    assert_null(strstr(md, "\u202e"));
    /* the markdown link is shown as code, never as a link */
    assert_non_null(strstr(md, " `[link](http://evil.example)`"));
    assert_non_null(strstr(md, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(md, "bad &amp; worse"));
    assert_inert(md);
    /* every workload table line has exactly the 9 column separators, every overview line 6;
     * newlines collapsed in cells */
    size_t rows = 0, overview = 0;
    for (const char *line = md; *line;) {
        size_t n = strcspn(line, "\n");
        if (line[0] == '|') {
            int pipes = raw_pipes(line, n);
            assert_true(pipes == 9 || pipes == 6);
            rows += pipes == 9;
            overview += pipes == 6;
        }
        line += n + (line[n] == '\n');
    }
    assert_int_equal(rows, 2 * (2 + 2)); /* two tables: header, rule, two rows */
    assert_int_equal(overview, 2 + 2);   /* header, rule, two submissions */
    assert_line(md, "| m4096\\|n4096\\`k4096\\`&lt;b&gt;bold&lt;/b&gt; | FAIL (correctness) | — "
                    "| — | — | 0.5 | 0.015 | 7 |");
    /* the multi-line message stays on its list line */
    assert_non_null(strstr(md, "ping @\u200Dorg/team second line \\| pipe (0.050 s)\n"));
    free(md);
}

/* Untrusted text that GFM or GitHub would turn into links, mentions or references. */
static void test_autolinks_are_neutralized(void **state)
{
    static const struct {
        const char *in, *out;
    } k_cases[] = {
        {"see http://evil.example/x?a=1 now", "see `http://evil.example/x?a=1` now"},
        {"HTTPS://EVIL.EXAMPLE", "`HTTPS://EVIL.EXAMPLE`"},
        {"go to www.evil.example.", "go to `www.evil.example.`"},
        {"WWW.Evil.example", "`WWW.Evil.example`"},
        {"mail admin@evil.example", "mail `admin@evil.example`"},
        {"cc @someone", "cc @\u200Dsomeone"},
        {"fixes #12 and owner/repo#3", "fixes #\u200D12 and owner/repo#\u200D3"},
        {"[x](http://evil.example)", "`[x](http://evil.example)`"},
        {"<http://evil.example>", "&lt;`http://evil.example`&gt;"},
        {"a|http://evil.example|b", "a\\|`http://evil.example`\\|b"},
        {"x`http://evil.example`y", "x\\``http://evil.example`\\`y"},
        {"ftp://e.example&x=<b>", "`ftp://e.example`&amp;x=&lt;b&gt;"},
        {"javascript://%0aalert(1)", "`javascript://%0aalert(1)`"},
        {"gemm_bf16_nt", "gemm_bf16_nt"},
    };
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        char *out = pg_report_markdown_inline(k_cases[i].in, 400);
        assert_non_null(out);
        if (strcmp(out, k_cases[i].out) != 0)
            print_error("in:   %s\nout:  %s\nwant: %s\n", k_cases[i].in, out, k_cases[i].out);
        assert_string_equal(out, k_cases[i].out);
        assert_inert(out);
        free(out);
    }
    /* In a kernel name and a compiler message of a whole report. */
    json_t *j = load_fixture("assemble_fail");
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(sub, "name", json_string("k http://evil.example/|x @a #1 www.b.example"));
    json_t *st = json_array_get(json_object_get(sub, "stages"), 0);
    json_object_set_new(st, "message", json_string("ptxas: see https://evil.example/`a`b"));
    char *md = render(j, NULL);
    assert_non_null(strstr(md, "k `http://evil.example/`\\|x @\u200Da #\u200D1 `www.b.example`"));
    assert_non_null(strstr(md, "ptxas: see `https://evil.example/`\\`a\\`b"));
    assert_inert(md);
    free(md);
    json_decref(j);
}

/* The workflow run's URL that ptxgate links itself stays a working link destination; anything
 * else is no link at all. */
static void test_url_for_links(void **state)
{
    (void)state;
    char *u = pg_report_markdown_url("https://github.example/kernels/gemm_x/actions/runs/77");
    assert_non_null(u);
    assert_string_equal(u, "https://github.example/kernels/gemm_x/actions/runs/77");
    free(u);
    assert_null(pg_report_markdown_url("javascript:alert(1)"));
    assert_null(pg_report_markdown_url("https://x.example/a) [y](https://evil.example"));
    assert_null(pg_report_markdown_url("https://x.example/a b"));
    assert_null(pg_report_markdown_url("https://x.example/<b>"));
    assert_null(pg_report_markdown_url(NULL));
}

/* A performance number is shown only when the submission passed verify. */
static void test_timing_void_after_failed_verify(void **state)
{
    json_t *j = load_fixture("all_pass");
    json_t *w0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"),
                                                               0),
                                                "workloads"),
                                0);
    json_array_append_new(json_object_get(w0, "stages"),
                          json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", "verify", "status",
                                    "fail", "message",
                                    "the last timed launch left a wrong output", "duration_s",
                                    0.1, "details"));
    json_object_set_new(w0, "verdict", json_string("fail"));
    json_object_set_new(json_array_get(json_object_get(j, "submissions"), 0), "verdict",
                        json_string("fail"));
    char *md = render(j, NULL);
    assert_null(strstr(md, "0.745×"));
    assert_null(strstr(md, "0.833×"));
    assert_null(strstr(md, "590.1"));
    assert_line(md, "| [1](#ptxgate-1) | gemm_bf16_nt / tiled | FAIL | verify | timing void: "
                    "failed verify |");
    assert_line(md, "| m8192_n7168_k5120 | FAIL (verify) | — | — | timing void: failed verify | "
                    "0.0625 | 0.0021 | 0 |");
    assert_line(md, "| m4096_n4096_k4096 | PASS | — | — | timing void: failed verify | 0.0312 | "
                    "0.00184 | 0 |");
    assert_non_null(strstr(md, "Performance verdicts: timing void: failed verify"));
    free(md);
    json_decref(j);
}

static void test_long_text_is_cut(void **state)
{
    json_t *j = load_fixture("all_pass");
    char name[2000];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    json_t *w0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "submissions"), 0),
                                                "workloads"), 0);
    json_object_set_new(w0, "name", json_string(name));
    char *md = render(j, NULL);
    char want[300];
    memset(want, 'x', 200);
    strcpy(want + 200, "… | PASS |");
    assert_non_null(strstr(md, want));
    free(md);
    json_decref(j);
}

static void test_size_is_capped(void **state)
{
    json_t *j = load_fixture("all_pass");
    json_t *subs = json_object_get(j, "submissions");
    json_t *one = json_array_get(subs, 0);
    for (int i = 0; i < 3000; i++)
        json_array_append_new(subs, json_deep_copy(one));
    size_t len;
    char *md = render(j, &len);
    assert_true(len <= PG_MARKDOWN_MAX_BYTES);
    assert_non_null(strstr(md, "more submissions are left out to stay within GitHub's summary "
                               "size limit"));
    free(md);
    json_decref(j);
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
    json_t *j = load_fixture("all_pass");
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
        json_t *j = load_fixture(*f);
        size_t len;
        char *md = render(j, &len);
        json_decref(j);
        char path[1024];
        snprintf(path, sizeof path, RESULTS_DIR "/expected/%s.md", *f);
        pg_diag d;
        if (update) {
            assert_int_equal(pg_file_write_atomic(path, md, len, &d), PG_OK);
        } else {
            char *want = NULL;
            size_t wlen = 0;
            assert_int_equal(pg_file_read(path, 1u << 24, &want, &wlen, &d), PG_OK);
            if (wlen != len || memcmp(want, md, len) != 0)
                print_error("%s differs from the rendering (PG_UPDATE_GOLDEN=1 rewrites it)\n",
                            path);
            assert_int_equal(wlen, len);
            assert_memory_equal(want, md, len);
            free(want);
        }
        free(md);
    }
}

/* ---- malformed results ---- */

static void expect_input_error(json_t *j, const char *field, const char *words)
{
    char *out = (char *)1;
    size_t len = 7;
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_report_markdown(j, "bad.json", &out, &len, &d);
    if (st != PG_ERR_INPUT)
        print_error("expected an input error at %s, got status %d\n", field, (int)st);
    assert_int_equal(st, PG_ERR_INPUT);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_string_equal(d.file, "bad.json");
    assert_string_equal(d.field, field);
    if (!strstr(d.message, words))
        print_error("message \"%s\" lacks \"%s\"\n", d.message, words);
    assert_non_null(strstr(d.message, words));
}

static void test_malformed_results_name_the_path(void **state)
{
    json_t *j = load_fixture("all_pass");
    json_object_del(j, "submissions");
    expect_input_error(j, "submissions", "missing");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(j, "submissions", json_string("none"));
    expect_input_error(j, "submissions", "an array");
    json_decref(j);

    j = load_fixture("all_pass");
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(sub, "task", json_integer(7));
    expect_input_error(j, "submissions[0].task", "a string");
    json_decref(j);

    j = load_fixture("all_pass");
    sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_t *cor = json_array_get(
        json_object_get(json_array_get(json_object_get(sub, "workloads"), 1), "stages"), 0);
    json_object_set_new(json_object_get(cor, "details"), "bad_elements", json_real(1.5));
    expect_input_error(j, "submissions[0].workloads[1].stages[0].details.bad_elements",
                       "an integer");
    json_decref(j);

    j = load_fixture("assemble_fail");
    sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_t *diag = json_array_get(
        json_object_get(json_object_get(json_array_get(json_object_get(sub, "stages"), 0),
                                        "details"),
                        "diagnostics"),
        1);
    json_object_set_new(diag, "line", json_string("41"));
    expect_input_error(j, "submissions[0].stages[0].details.diagnostics[1].line", "an integer");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(json_object_get(j, "environment"), "gpu", json_string("H200"));
    expect_input_error(j, "environment.gpu", "an object");
    json_decref(j);

    j = load_fixture("all_pass");
    json_object_set_new(j, "verdict", json_string("PASS"));
    expect_input_error(j, "verdict", "pass, fail, error");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_title_and_environment),
        cmocka_unit_test(test_submission_and_table),
        cmocka_unit_test(test_speedup_over_the_accepted_kernel_is_left_out),
        cmocka_unit_test(test_assemble_diagnostics_with_ptx_lines),
        cmocka_unit_test(test_skipped_stages_are_listed_with_reasons),
        cmocka_unit_test(test_hostile_text_is_neutralized),
        cmocka_unit_test(test_autolinks_are_neutralized),
        cmocka_unit_test(test_timing_void_after_failed_verify),
        cmocka_unit_test(test_url_for_links),
        cmocka_unit_test(test_long_text_is_cut),
        cmocka_unit_test(test_size_is_capped),
        cmocka_unit_test(test_render_is_deterministic),
        cmocka_unit_test(test_locale_does_not_change_numbers),
        cmocka_unit_test(test_matches_expected_output),
        cmocka_unit_test(test_malformed_results_name_the_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
