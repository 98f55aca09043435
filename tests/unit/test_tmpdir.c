/* Tests for the run's temporary folder: the owner record's format and parser (partial or foreign
 * records refused), the start time read past a command name with spaces and parentheses, the
 * sweep (a dead owner's folder removed; a live owner's, one without a record, one that is a
 * link, and one of another name kept), the removal of a tree that follows no link, and a
 * created folder's record and tools' subfolder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool/tmpdir.h"

static const char k_boot[] = "0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static void test_owner_roundtrip(void **state)
{
    (void)state;
    pg_tmpdir_owner o = {.pid = 4242, .start_ticks = 987654321ULL}, back;
    memcpy(o.boot_id, k_boot, sizeof k_boot);
    char text[256];
    size_t n = pg_tmpdir_owner_format(&o, text, sizeof text);
    assert_true(n > 0);
    assert_string_equal(text, "ptxgate-owner 1\npid 4242\nstart 987654321\nboot "
                              "0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n");
    assert_true(pg_tmpdir_owner_parse(text, &back));
    assert_int_equal(back.pid, 4242);
    assert_true(back.start_ticks == 987654321ULL);
    assert_string_equal(back.boot_id, k_boot);
    assert_int_equal(pg_tmpdir_owner_format(&o, text, 20), 0); /* does not fit */
}

static void test_owner_refused(void **state)
{
    (void)state;
    pg_tmpdir_owner o;
    const char *bad[] = {
        "",
        "ptxgate-owner 1\npid 4242\n",                                      /* partial */
        "ptxgate-owner 1\npid 4242\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21", /* no \n */
        "ptxgate-owner 2\npid 4242\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n",
        "ptxgate-owner 1\npid 0\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n",
        "ptxgate-owner 1\npid -3\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n",
        "ptxgate-owner 1\npid 99999999999\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n",
        "ptxgate-owner 1\npid 12\nstart x\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\n",
        "ptxgate-owner 1\npid 12\nstart 5\nboot short\n",
        "ptxgate-owner 1\npid 12\nstart 5\nboot 0f3c2b9e-1d4a-4c6b-9a8e-7f6d5c4b3a21\nmore\n",
        "something else\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(pg_tmpdir_owner_parse(bad[i], &o));
    assert_false(pg_tmpdir_owner_parse(NULL, &o));
}

static void test_stat_start_ticks(void **state)
{
    (void)state;
    unsigned long long t = 0;
    /* Field 22 is the start time; the name may hold ") " itself. */
    const char *stat = "1234 (a) b (c) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
                       "55667788 1000 200 18446744073709551615\n";
    assert_true(pg_tmpdir_stat_start_ticks(stat, &t));
    assert_true(t == 55667788ULL);
    assert_false(pg_tmpdir_stat_start_ticks("1234 (sh) S 1 2 3\n", &t));
    assert_false(pg_tmpdir_stat_start_ticks("no parenthesis", &t));
    assert_false(pg_tmpdir_stat_start_ticks(NULL, &t));
}

static void test_self_alive(void **state)
{
    (void)state;
    pg_tmpdir_owner me;
    if (!pg_tmpdir_self_owner(&me))
        skip(); /* no /proc: liveness cannot be judged, the sweep keeps everything */
    assert_int_equal(me.pid, (long)getpid());
    assert_true(pg_tmpdir_owner_alive(&me));
    pg_tmpdir_owner reused = me;
    reused.start_ticks++; /* the same pid, another process */
    assert_false(pg_tmpdir_owner_alive(&reused));
    pg_tmpdir_owner rebooted = me;
    rebooted.boot_id[0] = rebooted.boot_id[0] == 'a' ? 'b' : 'a';
    assert_false(pg_tmpdir_owner_alive(&rebooted));
}

static void make_folder(const char *base, const char *name, const pg_tmpdir_owner *o,
                        char *path, size_t n)
{
    snprintf(path, n, "%s/%s", base, name);
    assert_int_equal(mkdir(path, 0700), 0);
    char file[4200], text[256];
    snprintf(file, sizeof file, "%s/sub", path);
    assert_int_equal(mkdir(file, 0700), 0);
    snprintf(file, sizeof file, "%s/sub/tmpxft_1.cpp", path);
    write_file(file, "x");
    if (o) {
        assert_true(pg_tmpdir_owner_format(o, text, sizeof text) > 0);
        snprintf(file, sizeof file, "%s/%s", path, PG_TMPDIR_OWNER_FILE);
        write_file(file, text);
    }
}

static void test_sweep(void **state)
{
    (void)state;
    pg_tmpdir_owner me;
    if (!pg_tmpdir_self_owner(&me))
        skip();
    char base[] = "/tmp/pg_test_sweep.XXXXXX";
    assert_non_null(mkdtemp(base));
    pg_tmpdir_owner dead = me;
    dead.start_ticks += 7;
    char stale[4200], live[4200], norecord[4200], othername[4200], target[4200], link[4200];
    make_folder(base, "ptxgate.dead01", &dead, stale, sizeof stale);
    make_folder(base, "ptxgate.live01", &me, live, sizeof live);
    make_folder(base, "ptxgate.norec1", NULL, norecord, sizeof norecord);
    make_folder(base, "other.dead01", &dead, othername, sizeof othername);
    /* A link named like a folder, to a folder with a dead owner: neither goes. */
    make_folder(base, "linktarget", &dead, target, sizeof target);
    snprintf(link, sizeof link, "%s/ptxgate.link01", base);
    assert_int_equal(symlink(target, link), 0);

    assert_int_equal(pg_tmpdir_sweep(base), 1);
    assert_false(exists(stale));
    assert_true(exists(live));
    assert_true(exists(norecord));
    assert_true(exists(othername));
    assert_true(exists(link));
    char file[4300];
    snprintf(file, sizeof file, "%s/sub/tmpxft_1.cpp", target);
    assert_true(exists(file));
    assert_int_equal(pg_tmpdir_sweep(base), 0);
    assert_int_equal(pg_tmpdir_sweep("/nonexistent/folder"), 0);

    unlink(link);
    const char *all[] = {live, norecord, othername, target};
    for (size_t i = 0; i < 4; i++)
        pg_tmpdir_remove(all[i]);
    assert_int_equal(rmdir(base), 0);
}

static void test_remove_follows_no_link(void **state)
{
    (void)state;
    char base[] = "/tmp/pg_test_remove.XXXXXX";
    assert_non_null(mkdtemp(base));
    char outside[4200], victim[4300], dir[4200], p[4400];
    snprintf(outside, sizeof outside, "%s/outside", base);
    assert_int_equal(mkdir(outside, 0700), 0);
    snprintf(victim, sizeof victim, "%s/victim.txt", outside);
    write_file(victim, "keep me");
    snprintf(dir, sizeof dir, "%s/run", base);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(p, sizeof p, "%s/a", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/a/b", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/a/b/f", dir);
    write_file(p, "deep");
    snprintf(p, sizeof p, "%s/a/to_outside", dir);
    assert_int_equal(symlink(outside, p), 0);
    snprintf(p, sizeof p, "%s/top", dir);
    write_file(p, "top");

    pg_tmpdir_remove(dir);
    assert_false(exists(dir));
    assert_true(exists(victim));
    /* A link given as the folder is not followed. */
    snprintf(p, sizeof p, "%s/link", base);
    assert_int_equal(symlink(outside, p), 0);
    pg_tmpdir_remove(p);
    assert_true(exists(victim));
    unlink(p);
    pg_tmpdir_remove(outside);
    assert_int_equal(rmdir(base), 0);
    pg_tmpdir_remove(NULL);
    pg_tmpdir_remove("");
}

static void test_create(void **state)
{
    (void)state;
    char base[] = "/tmp/pg_test_create.XXXXXX";
    assert_non_null(mkdtemp(base));
    setenv("TMPDIR", base, 1);
    char path[4096], file[4200];
    pg_diag d;
    int swept = -1;
    assert_int_equal(pg_tmpdir_create(path, sizeof path, &swept, &d), PG_OK);
    assert_int_equal(swept, 0);
    assert_int_equal(strncmp(path, base, strlen(base)), 0);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0700);
    snprintf(file, sizeof file, "%s/%s", path, PG_TMPDIR_TOOLS_SUBDIR);
    assert_true(exists(file));
    pg_tmpdir_owner me;
    if (pg_tmpdir_self_owner(&me)) {
        snprintf(file, sizeof file, "%s/%s", path, PG_TMPDIR_OWNER_FILE);
        FILE *f = fopen(file, "r");
        assert_non_null(f);
        char text[256] = {0};
        assert_true(fread(text, 1, sizeof text - 1, f) > 0);
        fclose(f);
        pg_tmpdir_owner o;
        assert_true(pg_tmpdir_owner_parse(text, &o));
        assert_int_equal(o.pid, me.pid);
        assert_true(o.start_ticks == me.start_ticks);
        /* Our own live folder survives a sweep. */
        assert_int_equal(pg_tmpdir_sweep(base), 0);
        assert_true(exists(path));
    }
    pg_tmpdir_remove(path);
    assert_false(exists(path));
    setenv("TMPDIR", "/nonexistent/folder", 1);
    assert_int_equal(pg_tmpdir_create(path, sizeof path, NULL, &d), PG_ERR_INFRA);
    assert_string_equal(path, "");
    assert_non_null(strstr(d.message, "cannot create a temporary folder"));
    unsetenv("TMPDIR");
    assert_int_equal(rmdir(base), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_owner_roundtrip), cmocka_unit_test(test_owner_refused),
        cmocka_unit_test(test_stat_start_ticks), cmocka_unit_test(test_self_alive),
        cmocka_unit_test(test_sweep),           cmocka_unit_test(test_remove_follows_no_link),
        cmocka_unit_test(test_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
