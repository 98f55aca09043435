/* GitHub Actions files and texts, without a network: $GITHUB_OUTPUT lines and heredocs with a
 * delimiter absent from the value, the step summary kept under its limit with a pointer note,
 * event payloads (pull_request, workflow_run), annotations from the results fixtures (PTX lines,
 * .cu sources, manifests for failures without a line, workspace-relative paths), workflow-command
 * escaping against injection, the comment body's marker, cap and escaped footer, and the
 * markdown escaping shared with the summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "github/annotations.h"
#include "github/comment.h"
#include "github/workflow.h"
#include "report/markdown.h"

static char *slurp(const char *path)
{
    char *text = NULL;
    pg_diag d;
    assert_int_equal(pg_file_read(path, 1u << 24, &text, NULL, &d), PG_OK);
    return text;
}

static void test_outputs_single_and_multiline(void **st)
{
    (void)st;
    const char *path = PG_TEST_TMP "/gh-output.txt";
    unlink(path);
    pg_diag d;
    assert_int_equal(pg_gh_output_append(path, "conclusion", "fail", &d), PG_OK);
    assert_int_equal(pg_gh_output_append(path, "comment-url", "", &d), PG_OK);
    const char *evil = "line one\nghadelimiter_x\nconclusion=pass\r\nend";
    assert_int_equal(pg_gh_output_append(path, "multi", evil, &d), PG_OK);
    assert_int_equal(pg_gh_output_append(path, "bad name", "x", &d), PG_ERR_INPUT);
    assert_int_equal(pg_gh_output_append(path, "x=y", "x", &d), PG_ERR_INPUT);
    char *text = slurp(path);
    assert_true(strncmp(text, "conclusion=fail\ncomment-url=\nmulti<<ghadelimiter_", 48) == 0);
    /* The delimiter line closes the value and occurs in it nowhere. */
    char delim[64];
    assert_int_equal(sscanf(text + strlen("conclusion=fail\ncomment-url=\nmulti<<"), "%63s", delim),
                     1);
    assert_true(strlen(delim) > 20);
    assert_null(strstr(evil, delim));
    char want[512];
    snprintf(want, sizeof want, "multi<<%s\n%s\n%s\n", delim, evil, delim);
    assert_non_null(strstr(text, want));
    free(text);
    assert_int_equal(pg_gh_output_append("/nonexistent/dir/out", "a", "b", &d), PG_ERR_INPUT);
}

/* A step file that is a symbolic link or a FIFO is refused, never appended through: the file
 * the link points to keeps its bytes, and opening the FIFO does not block. */
static void test_outputs_never_through_a_link(void **st)
{
    (void)st;
    const char *victim = PG_TEST_TMP "/gh-victim.txt", *link = PG_TEST_TMP "/gh-linked-output";
    const char *fifo = PG_TEST_TMP "/gh-fifo-output";
    unlink(link);
    unlink(fifo);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("secret\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    pg_diag d;
    assert_int_equal(pg_gh_output_append(link, "conclusion", "pass", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "symbolic link"));
    bool cut = false;
    assert_int_equal(pg_gh_summary_append(link, "# x\n", 1024, NULL, NULL, &cut, &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_gh_output_append(fifo, "conclusion", "pass", &d), PG_ERR_INPUT);
    char *text = slurp(victim);
    assert_string_equal(text, "secret\n");
    free(text);
    unlink(link);
    unlink(fifo);
}

static void test_random_tokens_differ(void **st)
{
    (void)st;
    char a[33], b[33];
    pg_diag d;
    assert_int_equal(pg_gh_random_token(a, sizeof a, &d), PG_OK);
    assert_int_equal(pg_gh_random_token(b, sizeof b, &d), PG_OK);
    assert_int_equal(strlen(a), 32);
    assert_string_not_equal(a, b);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
}

static void test_truncate_markdown_at_a_line(void **st)
{
    (void)st;
    bool cut = true;
    char *s = pg_gh_truncate_markdown("short\n", 100, "NOTE", &cut);
    assert_string_equal(s, "short\n");
    assert_false(cut);
    free(s);
    s = pg_gh_truncate_markdown("| a | b |\n| c | d |\n| e | f |\n", 29, "NOTE", &cut);
    assert_true(cut);
    assert_string_equal(s, "| a | b |\n| c | d |\n\nNOTE\n");
    assert_true(strlen(s) <= 29);
    free(s);
}

static void test_summary_append_respects_limit(void **st)
{
    (void)st;
    const char *path = PG_TEST_TMP "/gh-summary.md";
    unlink(path);
    pg_diag d;
    size_t written = 0;
    bool cut = true;
    assert_int_equal(pg_gh_summary_append(path, "# earlier step\n", 1000, NULL, &written, &cut, &d),
                     PG_OK);
    assert_int_equal(written, 15);
    assert_false(cut);
    /* 100 lines of 20 bytes into the 985 bytes left: cut, with the note. */
    char big[2100] = "";
    for (int i = 0; i < 100; i++)
        strcat(big, "| row | 0123456789|\n");
    assert_int_equal(pg_gh_summary_append(path, big, 1000, "**cut**: see the artifact", &written,
                                          &cut, &d), PG_OK);
    assert_true(cut);
    char *text = slurp(path);
    assert_true(strlen(text) <= 1000);
    assert_non_null(strstr(text, "\n**cut**: see the artifact\n"));
    assert_true(strncmp(text, "# earlier step\n| row |", 22) == 0);
    free(text);
}

static void test_event_payloads(void **st)
{
    (void)st;
    const char *path = PG_TEST_TMP "/gh-event.json";
    FILE *f = fopen(path, "w");
    fputs("{\"pull_request\": {\"number\": 42, \"head\": {\"sha\": \"abc123\", \"repo\": "
          "{\"full_name\": \"fork/k\"}}}, \"repository\": {\"full_name\": \"org/k\"}}", f);
    fclose(f);
    pg_gh_event ev;
    pg_diag d;
    assert_int_equal(pg_gh_event_read(path, &ev, &d), PG_OK);
    assert_int_equal(ev.pr, 42);
    assert_string_equal(ev.head_sha, "abc123");
    assert_string_equal(ev.head_repo, "fork/k");
    assert_string_equal(ev.base_repo, "org/k");
    f = fopen(path, "w");
    fputs("{\"workflow_run\": {\"head_sha\": \"def\", \"head_repository\": {\"full_name\": "
          "\"org/k\"}, \"pull_requests\": [{\"number\": 7}]}}", f);
    fclose(f);
    assert_int_equal(pg_gh_event_read(path, &ev, &d), PG_OK);
    assert_int_equal(ev.pr, 7);
    assert_string_equal(ev.head_sha, "def");
    f = fopen(path, "w");
    fputs("{\"ref\": \"refs/heads/main\"}", f);
    fclose(f);
    assert_int_equal(pg_gh_event_read(path, &ev, &d), PG_OK);
    assert_int_equal(ev.pr, 0);
    assert_string_equal(ev.head_sha, "");
    f = fopen(path, "w");
    fputs("{not json", f);
    fclose(f);
    assert_int_equal(pg_gh_event_read(path, &ev, &d), PG_ERR_INPUT);
}

static void load_results(const char *name, json_t **json, pg_results *r)
{
    char path[512];
    snprintf(path, sizeof path, PG_TEST_DATA "/results/%s.json", name);
    pg_diag d;
    assert_int_equal(pg_json_load(path, json, &d), PG_OK);
    assert_int_equal(pg_results_read(*json, path, r, &d), PG_OK);
}

static void test_annotations_at_ptx_lines(void **st)
{
    (void)st;
    json_t *j;
    pg_results r;
    load_results("assemble_fail", &j, &r);
    pg_gh_annotations a;
    pg_diag d;
    assert_int_equal(pg_gh_annotations_build(&r, NULL, &a, &d), PG_OK);
    assert_int_equal(a.n, 4);
    assert_int_equal(a.count[PG_GH_FAILURE], 3);
    assert_int_equal(a.count[PG_GH_WARNING], 1);
    assert_string_equal(a.items[0].path, "tasks/gemm_bf16_nt/examples/broken.ptx");
    assert_int_equal(a.items[0].start_line, 8);
    assert_string_equal(a.items[0].message, "error: Unknown symbol 'r9'");
    assert_string_equal(a.items[0].title, "ptxgate assemble FAIL: gemm_bf16_nt / broken");
    assert_int_equal(a.items[2].level, PG_GH_WARNING);
    assert_int_equal(a.items[3].start_line, 1); /* "assembly aborted" has no line */
    char *cmd = pg_gh_annotation_command(&a.items[0]);
    assert_string_equal(cmd, "::error file=tasks/gemm_bf16_nt/examples/broken.ptx,line=8,endLine=8,"
                             "title=ptxgate assemble FAIL%3A gemm_bf16_nt / broken::error: Unknown "
                             "symbol 'r9'\n");
    free(cmd);
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
}

static void test_annotations_for_failures_without_lines(void **st)
{
    (void)st;
    json_t *j;
    pg_results r;
    load_results("correctness_fail", &j, &r);
    pg_gh_annotations a;
    pg_diag d;
    assert_int_equal(pg_gh_annotations_build(&r, "/home/runner/ws/k", &a, &d), PG_OK);
    assert_true(a.n >= 1);
    for (size_t i = 0; i < a.n; i++) {
        assert_int_equal(a.items[i].level, PG_GH_FAILURE);
        assert_int_equal(a.items[i].start_line, 1);
        assert_non_null(strstr(a.items[i].path, ".json")); /* the manifest */
        assert_non_null(strstr(a.items[i].title, "correctness["));
    }
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
    load_results("all_pass", &j, &r);
    assert_int_equal(pg_gh_annotations_build(&r, NULL, &a, &d), PG_OK);
    assert_int_equal(a.count[PG_GH_FAILURE], 0);
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
}

/* The same instructions failure on two workloads of tiled_mma is one annotation for both. */
static void test_repeated_workload_failures_are_one_annotation(void **st)
{
    (void)st;
    json_t *j;
    pg_results r;
    load_results("instructions_fail", &j, &r);
    pg_gh_annotations a;
    pg_diag d;
    assert_int_equal(pg_gh_annotations_build(&r, NULL, &a, &d), PG_OK);
    size_t instr = 0;
    for (size_t i = 0; i < a.n; i++) {
        if (!strstr(a.items[i].title, "ptxgate instructions"))
            continue;
        instr++;
        assert_int_equal(a.items[i].workloads, 2);
        assert_string_equal(a.items[i].title,
                            "ptxgate instructions[2 workloads] FAIL: gemm_bf16_nt / tiled_mma");
        assert_non_null(strstr(a.items[i].message, "wgmma.mma_async absent in PTX"));
    }
    assert_int_equal(instr, 1);
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
}

static void test_annotations_of_hostile_results_stay_commands(void **st)
{
    (void)st;
    json_t *j;
    pg_results r;
    load_results("hostile", &j, &r);
    pg_gh_annotations a;
    pg_diag d;
    assert_int_equal(pg_gh_annotations_build(&r, NULL, &a, &d), PG_OK);
    for (size_t i = 0; i < a.n; i++) {
        char *cmd = pg_gh_annotation_command(&a.items[i]);
        /* One line, one command: no CR or LF before the final newline. */
        size_t len = strlen(cmd);
        assert_true(len > 0 && cmd[len - 1] == '\n');
        assert_null(memchr(cmd, '\n', len - 1));
        assert_null(memchr(cmd, '\r', len));
        assert_true(strncmp(cmd, "::", 2) == 0);
        free(cmd);
    }
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
}

static void test_workflow_command_escaping(void **st)
{
    (void)st;
    pg_gh_annotation x = {"/w/a,b:c.ptx", 3, 3, PG_GH_WARNING, "M=4096,N=4096: 100%",
                          "bad\r\n::error::injected 50%", NULL, 0};
    char *cmd = pg_gh_annotation_command(&x);
    assert_string_equal(cmd, "::warning file=/w/a%2Cb%3Ac.ptx,line=3,endLine=3,title=M=4096%2CN=4096%3A "
                             "100%25::bad%0D%0A::error::injected 50%25\n");
    free(cmd);
}

static void test_workspace_relative_paths(void **st)
{
    (void)st;
    json_t *j;
    pg_results r;
    load_results("assemble_fail", &j, &r);
    /* Rewrite the source as an absolute path under a workspace. */
    json_t *sub = json_array_get(json_object_get(j, "submissions"), 0);
    json_object_set_new(sub, "source", json_string("/ws/repo/./k/broken.ptx"));
    pg_results_free(&r);
    pg_diag d;
    assert_int_equal(pg_results_read(j, "x.json", &r, &d), PG_OK);
    pg_gh_annotations a;
    assert_int_equal(pg_gh_annotations_build(&r, "/ws/repo/", &a, &d), PG_OK);
    assert_string_equal(a.items[0].path, "k/broken.ptx");
    pg_gh_annotations_free(&a);
    pg_results_free(&r);
    json_decref(j);
}

static void test_comment_body(void **st)
{
    (void)st;
    char marker[128];
    assert_true(pg_gh_comment_key_valid("gemm.h200_v1-x"));
    assert_false(pg_gh_comment_key_valid("a -->"));
    assert_false(pg_gh_comment_key_valid(""));
    pg_gh_comment_marker("gemm", marker, sizeof marker);
    assert_string_equal(marker, "<!-- ptxgate-comment: gemm -->");
    char *b = pg_gh_comment_body(marker, "## ptxgate: PASS\n", "https://x.example/r/<b>@me");
    assert_true(strncmp(b, "<!-- ptxgate-comment: gemm -->\n\n## ptxgate: PASS\n", 48) == 0);
    assert_null(strstr(b, "<b>"));
    assert_null(strstr(b, "@me"));
    free(b);
    /* A huge summary is cut at a line, with the note, under 60 000 bytes. */
    size_t n = 200000;
    char *md = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        md[i] = i % 50 == 49 ? '\n' : 'x';
    md[n] = '\0';
    b = pg_gh_comment_body(marker, md, "https://x.example/run/1");
    assert_true(strlen(b) <= PG_GH_COMMENT_MAX_BYTES);
    assert_non_null(strstr(b, "The summary was cut"));
    assert_non_null(strstr(b, "(https://x.example/run/1)"));
    free(b);
    free(md);
    pg_gh_comment_mode m;
    pg_diag d;
    assert_int_equal(pg_gh_comment_mode_parse("update", &m, &d), PG_OK);
    assert_int_equal(m, PG_GH_COMMENT_UPDATE);
    assert_int_equal(pg_gh_comment_mode_parse("always", &m, &d), PG_ERR_INPUT);
}

static void test_markdown_inline_escaping(void **st)
{
    (void)st;
    char *s = pg_report_markdown_inline("<img src=x> @team [link](http://e) | *x*\n`y`", 400);
    /* the markdown link, an autolink candidate, becomes a code span: never a link */
    assert_string_equal(s, "&lt;img src=x&gt; @\u200Dteam `[link](http://e)` \\| \\*x\\* \\`y\\`");
    free(s);
    s = pg_report_markdown_inline(NULL, 10);
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_single_and_multiline),
        cmocka_unit_test(test_outputs_never_through_a_link),
        cmocka_unit_test(test_random_tokens_differ),
        cmocka_unit_test(test_truncate_markdown_at_a_line),
        cmocka_unit_test(test_summary_append_respects_limit),
        cmocka_unit_test(test_event_payloads),
        cmocka_unit_test(test_annotations_at_ptx_lines),
        cmocka_unit_test(test_annotations_for_failures_without_lines),
        cmocka_unit_test(test_repeated_workload_failures_are_one_annotation),
        cmocka_unit_test(test_annotations_of_hostile_results_stay_commands),
        cmocka_unit_test(test_workflow_command_escaping),
        cmocka_unit_test(test_workspace_relative_paths),
        cmocka_unit_test(test_comment_body),
        cmocka_unit_test(test_markdown_inline_escaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
