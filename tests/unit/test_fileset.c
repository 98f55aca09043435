/* gate/base/fileio.h's file sets when a commit fails half-way: renameat() and linkat() are made
 * to fail on demand (the linker's --wrap, set in tests/CMakeLists.txt). A folder in a file's place
 * is refused before anything is written; a rename that fails after others succeeded puts the
 * earlier files back byte for byte (kept by hard link, or by copy where link fails) and removes
 * the new ones that had none; no temporary or kept file is left behind. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fileio.h"

int __real_renameat(int from_dir, const char *from, int to_dir, const char *to);
int __real_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags);

static int g_rename_calls, g_fail_rename[4]; /* 1-based call numbers that fail (0: none) */
static int g_link_fails;                     /* link() fails with EPERM */

int __wrap_renameat(int from_dir, const char *from, int to_dir, const char *to)
{
    g_rename_calls++;
    for (int i = 0; i < 4; i++)
        if (g_fail_rename[i] == g_rename_calls) {
            errno = EIO;
            return -1;
        }
    return __real_renameat(from_dir, from, to_dir, to);
}

int __wrap_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags)
{
    if (g_link_fails) {
        errno = EPERM;
        return -1;
    }
    return __real_linkat(from_dir, from, to_dir, to, flags);
}

static char g_dir[512];
static pg_outdir g_out;

static int setup(void **state)
{
    static int n;
    snprintf(g_dir, sizeof g_dir, "%s/fileset.%d.%d", PG_TEST_TMP, (int)getpid(), n++);
    mkdir(PG_TEST_TMP, 0755);
    g_rename_calls = 0;
    memset(g_fail_rename, 0, sizeof g_fail_rename);
    g_link_fails = 0;
    pg_diag d;
    if (mkdir(g_dir, 0755) != 0 || pg_outdir_open(&g_out, g_dir, 0, "--output", &d) != PG_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    pg_outdir_close(&g_out);
    return 0;
}

static char *path_of(const char *name)
{
    static char p[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", g_dir, name);
    return p[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_content(const char *name, const char *want)
{
    char *text = NULL;
    pg_diag d;
    if (pg_file_read(path_of(name), 1 << 20, &text, NULL, &d) != PG_OK)
        fail_msg("%s: %s", name, d.message);
    assert_string_equal(text, want);
    free(text);
}

/* The folder holds exactly these entries (space-separated, sorted), hidden ones included:
 * nothing else is left. */
static void assert_entries(const char *want)
{
    struct dirent **list;
    int n = scandir(g_dir, &list, NULL, alphasort);
    assert_true(n >= 0);
    char got[1024] = "";
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? " " : "",
                     list[i]->d_name);
        free(list[i]);
    }
    free(list);
    assert_string_equal(got, want);
}

static pg_status commit3(const char *a, const char *b, const char *c, pg_diag *d)
{
    pg_fileset *s = pg_fileset_new();
    assert_non_null(s);
    assert_int_equal(pg_fileset_stage(s, &g_out, "a.json", a, strlen(a), d), PG_OK);
    assert_int_equal(pg_fileset_stage(s, &g_out, "b.xml", b, strlen(b), d), PG_OK);
    assert_int_equal(pg_fileset_stage(s, &g_out, "c.md", c, strlen(c), d), PG_OK);
    pg_status st = pg_fileset_commit(s, d);
    pg_fileset_free(s);
    return st;
}

static void test_success_replaces_and_cleans_up(void **state)
{
    put("a.json", "old a");
    pg_diag d;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_OK);
    assert_content("a.json", "new a");
    assert_content("b.xml", "new b");
    assert_content("c.md", "new c");
    assert_entries("a.json b.xml c.md");
}

/* A folder where a file of the set goes: refused before anything is written or renamed. */
static void test_folder_in_place_is_refused_first(void **state)
{
    put("a.json", "old a");
    put("c.md", "old c");
    assert_int_equal(mkdir(path_of("b.xml"), 0755), 0);
    pg_diag d;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path_of("b.xml"));
    assert_non_null(strstr(d.message, "is a folder"));
    assert_int_equal(g_rename_calls, 0);
    assert_content("a.json", "old a");
    assert_content("c.md", "old c");
    assert_entries("a.json b.xml c.md");
}

/* The third rename fails: the first two files are put back as they were, the third (which had
 * no earlier file) stays absent. */
static void test_failed_rename_puts_earlier_files_back(void **state)
{
    put("a.json", "old a");
    put("b.xml", "old b");
    g_fail_rename[0] = 3;
    pg_diag d;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path_of("c.md"));
    assert_non_null(strstr(d.message, "earlier files are left as they were"));
    assert_content("a.json", "old a");
    assert_content("b.xml", "old b");
    assert_entries("a.json b.xml");
}

/* Where hard links fail, the earlier files are kept by copy, with the same result. */
static void test_without_hard_links(void **state)
{
    put("a.json", "old a");
    put("c.md", "old c");
    g_link_fails = 1;
    g_fail_rename[0] = 2;
    pg_diag d;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_ERR_INPUT);
    assert_string_equal(d.file, path_of("b.xml"));
    assert_content("a.json", "old a");
    assert_content("c.md", "old c");
    assert_entries("a.json c.md");
    g_fail_rename[0] = 0;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_OK);
    assert_content("a.json", "new a");
    assert_entries("a.json b.xml c.md");
}

/* If putting an earlier file back fails too, it is not deleted: the message says where it is. */
static void test_earlier_file_never_lost(void **state)
{
    put("a.json", "old a");
    g_fail_rename[0] = 2; /* b.xml into place */
    g_fail_rename[1] = 3; /* a.json back */
    pg_diag d;
    assert_int_equal(commit3("new a", "new b", "new c", &d), PG_ERR_INPUT);
    /* "... is kept as '<folder>/.a.json.old.<hex>'" */
    const char *at = strstr(d.message, "is kept as '");
    assert_non_null(at);
    at += strlen("is kept as '");
    char kept[800];
    snprintf(kept, sizeof kept, "%.*s", (int)strcspn(at, "'"), at);
    char want[700];
    snprintf(want, sizeof want, "%s/.a.json.old.", g_dir);
    assert_true(strncmp(kept, want, strlen(want)) == 0);
    assert_content(kept + strlen(g_dir) + 1, "old a");
}

/* A file staged twice in one folder (the JUnit copy naming the report itself) is written once
 * and the set commits. */
static void test_same_file_twice(void **state)
{
    pg_fileset *s = pg_fileset_new();
    pg_diag d;
    assert_int_equal(pg_fileset_stage(s, &g_out, "j.xml", "x", 1, &d), PG_OK);
    assert_int_equal(pg_fileset_stage(s, &g_out, "j.xml", "x", 1, &d), PG_OK);
    assert_int_equal(pg_fileset_commit(s, &d), PG_OK);
    pg_fileset_free(s);
    assert_content("j.xml", "x");
    assert_entries("j.xml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_success_replaces_and_cleans_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_in_place_is_refused_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_rename_puts_earlier_files_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_without_hard_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_earlier_file_never_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_file_twice, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
