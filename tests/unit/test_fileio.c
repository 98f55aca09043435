/* gate/base/fileio.h's safe writes against what a pull request can commit into the folder a
 * report goes to: a symbolic link, FIFO or folder at a file's name is refused and what it
 * points to is left byte for byte; links at the old predictable temporary names change
 * nothing; a hard link at a name is replaced, never written into; an output folder that is a
 * link, or reached through a link inside the current folder, is refused unless links are
 * followed on request. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static char g_dir[512], g_cwd[4096];

static int setup(void **state)
{
    static int n;
    snprintf(g_dir, sizeof g_dir, "%s/fileio.%d.%d", PG_TEST_TMP, (int)getpid(), n++);
    mkdir(PG_TEST_TMP, 0755);
    if (!getcwd(g_cwd, sizeof g_cwd) || mkdir(g_dir, 0755) != 0)
        return -1;
    /* Relative paths below are inside the current folder, as a checkout's files are. */
    return chdir(g_dir);
}

static int teardown(void **state)
{
    return chdir(g_cwd);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_content(const char *path, const char *want)
{
    char *text = NULL;
    pg_diag d;
    if (pg_file_read(path, 1 << 20, &text, NULL, &d) != PG_OK)
        fail_msg("%s: %s", path, d.message);
    assert_string_equal(text, want);
    free(text);
}

/* No hidden private file (".<name>.tmp.*" or ".<name>.old.*") is left in dir. */
static void assert_no_private_files(const char *dir)
{
    DIR *list = opendir(dir);
    assert_non_null(list);
    for (struct dirent *e; (e = readdir(list)) != NULL;)
        if (e->d_name[0] == '.' && (strstr(e->d_name, ".tmp.") || strstr(e->d_name, ".old.")))
            fail_msg("left behind: %s/%s", dir, e->d_name);
    closedir(list);
}

static void open_out(pg_outdir *o, const char *path, unsigned flags)
{
    pg_diag d;
    if (pg_outdir_open(o, path, flags, "--output", &d) != PG_OK)
        fail_msg("%s: %s", path, d.message);
}

/* A link at the file's name is refused naming it; its target and the link stay as they were. */
static void test_link_at_name_is_refused(void **state)
{
    put("victim", "secret");
    mkdir("out", 0755);
    assert_int_equal(symlink("../victim", "out/summary.md"), 0);
    pg_outdir o;
    pg_diag d;
    open_out(&o, "out", 0);
    assert_int_equal(pg_outdir_write(&o, "summary.md", "report", 6, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "out/summary.md");
    assert_non_null(strstr(d.message, "is a symbolic link, not a regular file"));
    assert_content("victim", "secret");
    struct stat st;
    assert_int_equal(lstat("out/summary.md", &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* A dangling link (to a file the write would create) is refused the same way. */
    assert_int_equal(symlink("../created", "out/junit.xml"), 0);
    assert_int_equal(pg_outdir_write(&o, "junit.xml", "x", 1, &d), PG_ERR_INPUT);
    assert_int_equal(access("created", F_OK), -1);
    assert_no_private_files("out");
    pg_outdir_close(&o);
}

/* A FIFO at the name is refused at once (no open that would block), a folder too. */
static void test_fifo_and_folder_at_name(void **state)
{
    mkdir("out", 0755);
    assert_int_equal(mkfifo("out/results.json", 0644), 0);
    assert_int_equal(mkdir("out/junit.xml", 0755), 0);
    pg_outdir o;
    pg_diag d;
    open_out(&o, "out", 0);
    assert_int_equal(pg_outdir_write(&o, "results.json", "{}", 2, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "is a FIFO, not a regular file"));
    assert_int_equal(pg_outdir_check_replaceable(&o, "junit.xml", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "is a folder"));
    assert_int_equal(pg_outdir_check_replaceable(&o, "missing.md", &d), PG_OK);
    pg_outdir_remove(&o, "results.json"); /* only regular files are removed */
    struct stat st;
    assert_int_equal(lstat("out/results.json", &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_no_private_files("out");
    pg_outdir_close(&o);
}

/* The earlier writer's temporary names ("<name>.tmp.<pid>" for the next pids) planted as links
 * to a victim: the write neither touches the victim nor the links. */
static void test_links_at_old_temporary_names(void **state)
{
    put("victim", "secret");
    mkdir("out", 0755);
    char name[64];
    for (int pid = (int)getpid(); pid < (int)getpid() + 64; pid++) {
        snprintf(name, sizeof name, "out/summary.md.tmp.%d", pid);
        assert_int_equal(symlink("../victim", name), 0);
        snprintf(name, sizeof name, "out/summary.md.old.%d", pid);
        assert_int_equal(symlink("../victim", name), 0);
    }
    pg_outdir o;
    pg_diag d;
    open_out(&o, "out", 0);
    assert_int_equal(pg_outdir_write(&o, "summary.md", "report", 6, &d), PG_OK);
    pg_fileset *s = pg_fileset_new();
    assert_int_equal(pg_fileset_stage(s, &o, "summary.md", "again", 5, &d), PG_OK);
    assert_int_equal(pg_fileset_commit(s, &d), PG_OK);
    pg_fileset_free(s);
    pg_outdir_close(&o);
    assert_content("victim", "secret");
    assert_content("out/summary.md", "again");
    struct stat st;
    assert_int_equal(lstat("out/summary.md", &st), 0);
    assert_true(S_ISREG(st.st_mode));
    snprintf(name, sizeof name, "out/summary.md.tmp.%d", (int)getpid());
    assert_int_equal(lstat(name, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_no_private_files("out");
}

/* A hard link at the name: the name gets a new file, the other name keeps the old bytes. */
static void test_hard_link_is_replaced_not_written(void **state)
{
    mkdir("out", 0755);
    put("victim", "secret");
    assert_int_equal(link("victim", "out/results.json"), 0);
    pg_diag d;
    assert_int_equal(pg_file_write_safe("out/results.json", 0, "{}", 2, &d), PG_OK);
    assert_content("victim", "secret");
    assert_content("out/results.json", "{}");
}

/* The output folder: a link is refused, as the folder and on the way inside the current
 * folder; followed only on request; missing folders are made; a file on the way is named. */
static void test_output_folder_links(void **state)
{
    mkdir("elsewhere", 0755);
    assert_int_equal(symlink("elsewhere", "linked"), 0);
    pg_outdir o;
    pg_diag d;
    assert_int_equal(pg_outdir_open(&o, "linked", PG_OUTDIR_CREATE, "--output", &d), PG_ERR_INPUT);
    assert_int_equal(o.fd, -1);
    assert_string_equal(d.file, "linked");
    assert_string_equal(d.field, "--output");
    assert_non_null(strstr(d.message, "is a symbolic link; ptxgate does not write through links"));
    assert_int_equal(pg_outdir_open(&o, "./linked/", PG_OUTDIR_CREATE, "--output", &d),
                     PG_ERR_INPUT);
    assert_int_equal(pg_outdir_open(&o, "linked/sub", PG_OUTDIR_CREATE, "--output", &d),
                     PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "'linked' on the way is a symbolic link"));
    assert_int_equal(access("elsewhere/sub", F_OK), -1);
    char abs[1200];
    snprintf(abs, sizeof abs, "%s/linked/sub", g_dir);
    assert_int_equal(pg_outdir_open(&o, abs, PG_OUTDIR_CREATE, "--output", &d), PG_ERR_INPUT);
    /* Followed when asked. */
    open_out(&o, "linked/sub", PG_OUTDIR_CREATE | PG_OUTDIR_FOLLOW_LINKS);
    assert_int_equal(pg_outdir_write(&o, "r.md", "x", 1, &d), PG_OK);
    pg_outdir_close(&o);
    assert_content("elsewhere/sub/r.md", "x");
    /* Missing levels are made; a file on the way is named. */
    open_out(&o, "a/b/c", PG_OUTDIR_CREATE);
    pg_outdir_close(&o);
    struct stat st;
    assert_int_equal(stat("a/b/c", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    put("file", "f");
    assert_int_equal(pg_outdir_open(&o, "file/x", PG_OUTDIR_CREATE, "--output", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "'file' on the way is not a folder"));
    assert_int_equal(pg_outdir_open(&o, "file", PG_OUTDIR_CREATE, "--output", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "the output path is not a folder"));
    assert_int_equal(pg_outdir_open(&o, "missing", 0, "--output", &d), PG_ERR_INPUT);
    assert_int_equal(pg_outdir_open(&o, "", PG_OUTDIR_CREATE, "--output", &d), PG_ERR_INPUT);
}

/* A link on the way that lies outside the current folder (the machine's own layout) is
 * followed; the folder itself still may not be one. */
static void test_link_outside_current_folder(void **state)
{
    mkdir("work", 0755);
    mkdir("runner", 0755);
    mkdir("runner/reports", 0755);
    assert_int_equal(symlink("runner", "linked-runner"), 0);
    assert_int_equal(symlink("runner/reports", "linked-reports"), 0);
    assert_int_equal(chdir("work"), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/linked-runner/reports", g_dir);
    pg_outdir o;
    pg_diag d;
    open_out(&o, path, 0);
    pg_outdir_close(&o);
    snprintf(path, sizeof path, "%s/linked-reports", g_dir);
    assert_int_equal(pg_outdir_open(&o, path, 0, "--output", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "is a symbolic link"));
    /* A trailing "." does not make the folder a component on the way. */
    snprintf(path, sizeof path, "%s/linked-reports/./", g_dir);
    assert_int_equal(pg_outdir_open(&o, path, 0, "--output", &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "is a symbolic link"));
    assert_int_equal(chdir(g_dir), 0);
}

/* A subfolder (baseline refresh's <gpu-key>) is made or opened, never through a link. */
static void test_subfolder(void **state)
{
    mkdir("b", 0755);
    mkdir("elsewhere", 0755);
    assert_int_equal(symlink("../elsewhere", "b/h200-sxm"), 0);
    pg_outdir o, sub;
    pg_diag d;
    open_out(&o, "b", 0);
    assert_int_equal(pg_outdir_open_sub(&o, "h200-sxm", PG_OUTDIR_CREATE, &sub, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "b/h200-sxm");
    assert_int_equal(pg_outdir_open_sub(&o, "h100", PG_OUTDIR_CREATE, &sub, &d), PG_OK);
    pg_outdir_close(&sub);
    assert_int_equal(pg_outdir_open_sub(&o, "../x", PG_OUTDIR_CREATE, &sub, &d), PG_ERR_INPUT);
    pg_outdir_close(&o);
    /* A file through a linked folder: refused unless followed. */
    assert_int_equal(pg_file_write_safe("b/h200-sxm/t.json", PG_OUTDIR_CREATE, "{}", 2, &d),
                     PG_ERR_INPUT);
    assert_int_equal(access("elsewhere/t.json", F_OK), -1);
    assert_int_equal(pg_file_write_safe("b/h200-sxm/t.json", PG_OUTDIR_FOLLOW_LINKS, "{}", 2, &d),
                     PG_OK);
    assert_content("elsewhere/t.json", "{}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_link_at_name_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_and_folder_at_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links_at_old_temporary_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hard_link_is_replaced_not_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_folder_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_outside_current_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subfolder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
