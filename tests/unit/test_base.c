/* gate/base: located diagnostics, bounded reads, atomic writes and file sets, JSON getters. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/diag.h"
#include "base/fileio.h"
#include "base/jsonget.h"

static char g_dir[512];

static int setup(void **state)
{
    snprintf(g_dir, sizeof g_dir, "%s/base.%d", PG_TEST_TMP, (int)getpid());
    mkdir(PG_TEST_TMP, 0755);
    return mkdir(g_dir, 0755);
}

static void write_text(const char *name, const char *text)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static void test_diag_format(void **state)
{
    pg_diag d;
    char buf[256];
    pg_diag_set(&d, PG_ERR_INPUT, "m.json", 3, "launches[0].grid", "expected %s", "an array");
    assert_string_equal(pg_diag_format(&d, buf, sizeof buf),
                        "m.json:3: field 'launches[0].grid': expected an array");
    pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "no GPU");
    assert_string_equal(pg_diag_format(&d, buf, sizeof buf), "no GPU");
    assert_int_equal(d.status, PG_ERR_INFRA);
}

static void test_read_limits(void **state)
{
    write_text("small.txt", "hello");
    char p[700], *text = NULL;
    size_t len;
    pg_diag d;
    snprintf(p, sizeof p, "%s/small.txt", g_dir);
    assert_int_equal(pg_file_read(p, 100, &text, &len, &d), PG_OK);
    assert_string_equal(text, "hello");
    assert_int_equal(len, 5);
    free(text);
    assert_int_equal(pg_file_read(p, 4, &text, &len, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "the limit is 4 bytes"));
    assert_int_equal(pg_file_read(g_dir, 100, &text, &len, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "not a regular file"));
    snprintf(p, sizeof p, "%s/missing", g_dir);
    assert_int_equal(pg_file_read(p, 100, &text, &len, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, p);
}

/* A set with a file whose folder went away meanwhile: nothing of it is written, and no
 * temporary is left; the same set without it is written. */
static void test_fileset_all_or_nothing(void **state)
{
    char ok[700], gone[700], *text = NULL;
    pg_diag d;
    pg_outdir dir, sub;
    snprintf(ok, sizeof ok, "%s/a.txt", g_dir);
    snprintf(gone, sizeof gone, "%s/gone", g_dir);
    assert_int_equal(pg_outdir_open(&dir, g_dir, 0, "--output", &d), PG_OK);
    assert_int_equal(pg_outdir_open_sub(&dir, "gone", PG_OUTDIR_CREATE, &sub, &d), PG_OK);
    assert_int_equal(rmdir(gone), 0);
    pg_fileset *s = pg_fileset_new();
    assert_int_equal(pg_fileset_stage(s, &dir, "a.txt", "A", 1, &d), PG_OK);
    assert_int_equal(pg_fileset_stage(s, &sub, "b.txt", "B", 1, &d), PG_OK);
    assert_int_equal(pg_fileset_commit(s, &d), PG_ERR_INPUT);
    pg_fileset_free(s);
    assert_non_null(strstr(d.file, "gone/b.txt"));
    assert_int_equal(access(ok, F_OK), -1); /* nothing half-written */
    DIR *list = opendir(g_dir);
    assert_non_null(list);
    for (struct dirent *e; (e = readdir(list)) != NULL;)
        if (strstr(e->d_name, ".tmp."))
            fail_msg("temporary left: %s", e->d_name);
    closedir(list);
    pg_outdir_close(&sub);

    s = pg_fileset_new();
    assert_int_equal(pg_fileset_stage(s, &dir, "a.txt", "A", 1, &d), PG_OK);
    assert_int_equal(pg_fileset_commit(s, &d), PG_OK);
    pg_fileset_free(s);
    pg_outdir_close(&dir);
    assert_int_equal(pg_file_read(ok, 10, &text, NULL, &d), PG_OK);
    assert_string_equal(text, "A");
    free(text);
}

static void test_json_load_and_getters(void **state)
{
    write_text("bad.json", "{\n  \"a\": 1,\n  \"b\": \n}\n");
    write_text("arr.json", "[1]");
    write_text("good.json", "{\"s\": \"x\", \"i\": 7, \"n\": 2.5, \"o\": {\"k\": true}}");
    char p[700];
    json_t *root = NULL;
    pg_diag d;
    snprintf(p, sizeof p, "%s/bad.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_ERR_INPUT);
    assert_int_equal(d.line, 4);
    assert_non_null(strstr(d.message, "malformed JSON at line 4"));
    snprintf(p, sizeof p, "%s/arr.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "expected a JSON object"));

    snprintf(p, sizeof p, "%s/good.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_OK);
    pg_jctx top = {.file = p, .path = ""};
    const char *s = NULL;
    int64_t i = 0;
    double n = 0;
    json_t *o = NULL;
    assert_int_equal(pg_jget_string(root, &top, "s", true, &s, &d), PG_OK);
    assert_string_equal(s, "x");
    assert_int_equal(pg_jget_int(root, &top, "i", true, &i, &d), PG_OK);
    assert_int_equal(i, 7);
    assert_int_equal(pg_jget_number(root, &top, "i", true, &n, &d), PG_OK);
    assert_int_equal(pg_jget_int(root, &top, "n", true, &i, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "n");
    assert_non_null(strstr(d.message, "expected an integer, found a real number"));
    assert_int_equal(pg_jget_object(root, &top, "o", true, &o, &d), PG_OK);
    pg_jctx oc = pg_jctx_member(&top, "o");
    bool flag = false;
    assert_int_equal(pg_jget_bool(o, &oc, "k", true, &flag, &d), PG_OK);
    assert_true(flag);
    assert_int_equal(pg_jget_string(o, &oc, "missing", true, &s, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "o.missing");
    assert_int_equal(pg_jget_string(o, &oc, "missing", false, &s, &d), PG_OK);
    static const char *const allowed[] = {"s", "i", NULL};
    assert_int_equal(pg_jcheck_keys(root, &top, allowed, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "n");
    assert_non_null(strstr(d.message, "allowed here: s, i"));
    pg_jctx ic = pg_jctx_index(&oc, 2);
    assert_string_equal(ic.path, "o[2]");
    json_decref(root);
}

/* A UTF-8 byte-order mark is accepted (and a malformed file's line still counts from 1); a
 * UTF-16 or UTF-32 one is named. */
static void test_json_byte_order_mark(void **state)
{
    (void)state;
    write_text("bom.json", "\xef\xbb\xbf{\"a\": 1}");
    write_text("bom_bad.json", "\xef\xbb\xbf{\n\"a\": }");
    write_text("bom_only.json", "\xef\xbb\xbf");
    char p[700];
    json_t *root = NULL;
    pg_diag d;
    snprintf(p, sizeof p, "%s/bom.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_OK);
    assert_int_equal(json_integer_value(json_object_get(root, "a")), 1);
    json_decref(root);
    snprintf(p, sizeof p, "%s/bom_bad.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_ERR_INPUT);
    assert_int_equal(d.line, 2);
    snprintf(p, sizeof p, "%s/bom_only.json", g_dir);
    assert_int_equal(pg_json_load(p, &root, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "malformed JSON"));

    const char *start;
    size_t len = 6;
    assert_int_equal(pg_json_text_start("f.json", "\xef\xbb\xbf{}\n", &len, &start, &d), PG_OK);
    assert_string_equal(start, "{}\n");
    assert_int_equal(len, 3);
    assert_int_equal(pg_json_text_start("f.json", "{}", NULL, &start, &d), PG_OK);
    assert_string_equal(start, "{}");
    const char utf16le[] = {(char)0xFF, (char)0xFE, '{', 0, '}', 0};
    len = sizeof utf16le;
    assert_int_equal(pg_json_text_start("f.json", utf16le, &len, &start, &d), PG_ERR_INPUT);
    assert_null(start);
    assert_string_equal(d.file, "f.json");
    assert_non_null(strstr(d.message, "the file is UTF-16"));
    assert_non_null(strstr(d.message, "save it as UTF-8"));
    const char utf16be[] = {(char)0xFE, (char)0xFF, 0, '{'};
    len = sizeof utf16be;
    assert_int_equal(pg_json_text_start("f.json", utf16be, &len, &start, &d), PG_ERR_INPUT);
    const char utf32le[] = {(char)0xFF, (char)0xFE, 0, 0, '{', 0, 0, 0};
    len = sizeof utf32le;
    assert_int_equal(pg_json_text_start("f.json", utf32le, &len, &start, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "the file is UTF-32"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_read_limits),
        cmocka_unit_test(test_fileset_all_or_nothing),
        cmocka_unit_test(test_json_load_and_getters),
        cmocka_unit_test(test_json_byte_order_mark),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
