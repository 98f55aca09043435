/* gate/base/pathroot: containment of resolved paths, realpath through links, the repository's
 * top level as the submission root's default, and folder sets. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/pathroot.h"

static char g_dir[512];

static int setup(void **state)
{
    (void)state;
    char made[600];
    snprintf(made, sizeof made, "%s/pathroot.%d", PG_TEST_TMP, (int)getpid());
    mkdir(PG_TEST_TMP, 0755);
    if (mkdir(made, 0755) != 0 || !realpath(made, g_dir))
        return -1;
    return 0;
}

static void path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", g_dir, name);
}

static void test_is_inside(void **state)
{
    (void)state;
    assert_true(pg_path_is_inside("/a/b", "/a/b"));
    assert_true(pg_path_is_inside("/a/b", "/a/b/c"));
    assert_true(pg_path_is_inside("/a/b", "/a/b/c/d.cu"));
    assert_false(pg_path_is_inside("/a/b", "/a/bc"));   /* a sibling that shares a prefix */
    assert_false(pg_path_is_inside("/a/b", "/a"));
    assert_false(pg_path_is_inside("/a/b", "/etc/passwd"));
    assert_true(pg_path_is_inside("/", "/etc/passwd"));
    assert_false(pg_path_is_inside("/a/b", "a/b/c"));   /* relative paths are never inside */
    assert_false(pg_path_is_inside("a/b", "a/b/c"));
    assert_false(pg_path_is_inside(NULL, "/a"));
    assert_false(pg_path_is_inside("/a", NULL));
}

static void test_resolve_follows_links(void **state)
{
    (void)state;
    char in[700], out_dir[700], link[700], file[700], real[PATH_MAX];
    path(in, sizeof in, "root");
    path(out_dir, sizeof out_dir, "outside");
    mkdir(in, 0755);
    mkdir(out_dir, 0755);
    path(file, sizeof file, "outside/victim.txt");
    FILE *f = fopen(file, "w");
    fputs("secret\n", f);
    fclose(f);
    path(link, sizeof link, "root/linked.cu");
    assert_int_equal(symlink(file, link), 0);
    pg_diag d;
    assert_int_equal(pg_path_resolve(link, real, sizeof real, &d), PG_OK);
    assert_string_equal(real, file);
    assert_false(pg_path_is_inside(in, real));
    /* ".." through a linked folder goes up from the link's target, as the kernel does: the
     * lexical root/outside/victim.txt does not exist, the file opened is outside/victim.txt. */
    char linked_dir[700], dotdot[800];
    path(linked_dir, sizeof linked_dir, "root/inc");
    assert_int_equal(symlink(out_dir, linked_dir), 0);
    snprintf(dotdot, sizeof dotdot, "%s/../outside/victim.txt", linked_dir);
    assert_int_equal(pg_path_resolve(dotdot, real, sizeof real, &d), PG_OK);
    assert_string_equal(real, file);
    snprintf(dotdot, sizeof dotdot, "%s/victim.txt", linked_dir);
    assert_int_equal(pg_path_resolve(dotdot, real, sizeof real, &d), PG_OK);
    assert_string_equal(real, file);
    /* A missing file or a dangling link is an input error naming the path. */
    char dangling[700];
    path(dangling, sizeof dangling, "root/dangling");
    assert_int_equal(symlink("/nonexistent/x", dangling), 0);
    assert_int_equal(pg_path_resolve(dangling, real, sizeof real, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, dangling);
    assert_non_null(strstr(d.message, "cannot resolve"));
    char tiny[4];
    assert_int_equal(pg_path_resolve(file, tiny, sizeof tiny, &d), PG_ERR_INPUT);
}

static void test_find_upward(void **state)
{
    (void)state;
    char repo[700], deep[800], git[800], out[PATH_MAX];
    path(repo, sizeof repo, "repo");
    mkdir(repo, 0755);
    snprintf(git, sizeof git, "%s/.git", repo);
    mkdir(git, 0755);
    snprintf(deep, sizeof deep, "%s/a", repo);
    mkdir(deep, 0755);
    snprintf(deep, sizeof deep, "%s/a/b", repo);
    mkdir(deep, 0755);
    assert_string_equal(pg_root_find_upward(deep, ".git", out, sizeof out), repo);
    assert_string_equal(pg_root_find_upward(repo, ".git", out, sizeof out), repo);
    /* A worktree's .git is a file: it marks the top level too. */
    char wt[700], wtgit[800];
    path(wt, sizeof wt, "repo/a/wt");
    mkdir(wt, 0755);
    snprintf(wtgit, sizeof wtgit, "%s/.git", wt);
    FILE *f = fopen(wtgit, "w");
    fputs("gitdir: elsewhere\n", f);
    fclose(f);
    assert_string_equal(pg_root_find_upward(wt, ".git", out, sizeof out), wt);
    /* No marker anywhere above: the start itself. */
    assert_string_equal(pg_root_find_upward(deep, ".no-such-marker-here", out, sizeof out),
                        deep);
    assert_string_equal(pg_root_find_upward("/", ".no-such-marker-here", out, sizeof out), "/");
}

static void test_root_default_is_resolved(void **state)
{
    (void)state;
    char cwd[PATH_MAX], out[PATH_MAX], want[PATH_MAX], repo[700];
    assert_non_null(getcwd(cwd, sizeof cwd));
    path(repo, sizeof repo, "repo/a/b");
    assert_int_equal(chdir(repo), 0);
    pg_diag d;
    assert_int_equal(pg_root_default(out, sizeof out, &d), PG_OK);
    path(want, sizeof want, "repo");
    assert_string_equal(out, want);
    assert_int_equal(chdir(cwd), 0);
}

static void test_dirset(void **state)
{
    (void)state;
    pg_dirset s = {0};
    char in[700], file[700], missing[700];
    path(in, sizeof in, "root");
    path(file, sizeof file, "outside/victim.txt");
    path(missing, sizeof missing, "no-such-folder");
    assert_true(pg_dirset_add(&s, in));
    assert_false(pg_dirset_add(&s, in));      /* duplicate */
    assert_false(pg_dirset_add(&s, missing)); /* skipped */
    assert_false(pg_dirset_add(&s, file));    /* not a folder */
    assert_false(pg_dirset_add(&s, ""));
    assert_int_equal(s.n, 1);
    char inside[800];
    snprintf(inside, sizeof inside, "%s/k.cu", in);
    assert_string_equal(pg_dirset_find(&s, inside), in);
    assert_null(pg_dirset_find(&s, file));
    /* The linked folder root/inc resolves to outside/: adding it adds the target. */
    char linked[700], outside[700];
    path(linked, sizeof linked, "root/inc");
    path(outside, sizeof outside, "outside");
    assert_true(pg_dirset_add(&s, linked));
    assert_string_equal(s.dirs[1], outside);
    assert_string_equal(pg_dirset_find(&s, file), outside);
    assert_true(pg_dirset_add_resolved(&s, "/usr/include"));
    assert_string_equal(pg_dirset_find(&s, "/usr/include/stdio.h"), "/usr/include");
    pg_dirset_free(&s);
    assert_int_equal(s.n, 0);
    assert_null(pg_dirset_find(&s, file));
    pg_dirset_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_inside),
        cmocka_unit_test(test_resolve_follows_links),
        cmocka_unit_test(test_find_upward),
        cmocka_unit_test(test_root_default_is_resolved),
        cmocka_unit_test(test_dirset),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
