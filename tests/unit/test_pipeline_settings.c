/* The option table of `ptxgate check` (pipeline/settings.h): it is well formed, its defaults are
 * the documented ones, the results record and the worker job keep their keys in the documented
 * order, every job option survives write → read unchanged, and the command line's own rules
 * (--device with --devices, --no-gpu, --baselines none, --watchdog, --shard, --arch, --sanitize)
 * give the settings or the messages they gave before the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/settings.h"

/* The command line words after "check" into o (defaults first, as the command does). */
static pg_status parse(const char *const *words, pg_check_options *o, pg_diag *d)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"check";
    for (int i = 0; words[i]; i++)
        argv[argc++] = (char *)words[i];
    argv[argc] = NULL;
    pg_opt_args a;
    const char *bad;
    pg_check_options_init(o);
    pg_diag_clear(d);
    assert_int_equal(pg_opt_parse_argv(pg_check_option_table(), argc, argv, &a, &bad),
                     PG_OPT_ARGS_OK);
    pg_status st = pg_opt_apply(pg_check_option_table(), &a, o, d);
    if (st == PG_OK)
        st = pg_check_options_finish(o, &a, d);
    pg_opt_args_free(&a);
    return st;
}

static void test_table_well_formed(void **state)
{
    (void)state;
    char why[256] = "";
    if (!pg_opt_table_valid(pg_check_option_table(), why, sizeof why))
        fail_msg("%s", why);
    /* --help shows the options in this order (tests/cases/help_check_exact has the text). */
    const char *first[] = {"tasks", "root", "output", "junit-copy", "follow-output-link",
                           "device", "devices", "if-no-gpu", "no-gpu", "min-speedup"};
    for (int i = 0; i < 10; i++)
        assert_string_equal(pg_check_option_table()[i].name, first[i]);
}

static void test_defaults(void **state)
{
    (void)state;
    pg_check_options o;
    pg_check_options_init(&o);
    assert_string_equal(o.tasks_dir, "tasks");
    assert_string_equal(o.output_dir, "reports");
    assert_int_equal(o.device_ordinal, 0);
    assert_int_equal(o.n_devices, 0);
    assert_int_equal(o.correctness_sets, 3);
    assert_true(o.seed == 20261129);
    assert_int_equal(o.warmup, 2);
    assert_int_equal(o.repetitions, 10);
    assert_true(o.confidence == 0.95 && o.timeout_s == 60.0 && o.drift_tolerance == 0.05);
    assert_true(o.min_speedup_override == 0);
    assert_true(o.energy);
    assert_false(o.skip_without_gpu || o.no_gpu || o.quiet || o.recursive || o.no_isolation);
    assert_null(o.timing_mode);
    assert_null(o.instructions);
    assert_null(o.workloads);
    assert_int_equal(o.on_missing_baseline, PG_MISSING_MEASURE);
    assert_int_equal(o.on_drift, PG_ON_DRIFT_WARN);
    assert_true(o.max_ptx_bytes == (size_t)64 << 20);
    assert_true(o.watchdog.startup_s == 120 && o.watchdog.load_s == 300 &&
                o.watchdog.correctness_s == 900 && o.watchdog.performance_s == 1800 &&
                o.watchdog.verify_s == 300 && o.watchdog.exit_s == 30 &&
                o.watchdog.sanitize_s == 3600);
}

/* results.json "settings" (docs/results.md): keys in their order, values of the struct. */
static void test_settings_record(void **state)
{
    (void)state;
    pg_check_options o;
    pg_check_options_init(&o);
    o.min_speedup_override = 1.5;
    o.timing_mode = "sustained";
    o.worker_exe = "/bin/ptxgate";
    o.n_devices = 2;
    o.devices[0] = 2;
    o.devices[1] = 3;
    o.watchdog.load_s = 5;
    json_t *r = pg_check_settings_json(&o, 268435456);
    assert_non_null(json_object_get(r, "working_directory"));
    json_object_set_new(r, "working_directory", json_string("CWD"));
    char *s = json_dumps(r, JSON_COMPACT | JSON_REAL_PRECISION(17));
    assert_string_equal(s, "{\"correctness_sets\":3,\"seed\":20261129,\"warmup\":2,"
                           "\"repetitions\":10,\"flush_l2_bytes\":268435456,\"confidence\":"
                           "0.94999999999999996,\"min_speedup_override\":1.5,\"timeout_s\":60.0,"
                           "\"timing_mode_override\":\"sustained\",\"accepted_kernel_override\":"
                           "null,\"energy\":true,\"isolation\":\"process\",\"working_directory\":"
                           "\"CWD\",\"devices\":[2,3],\"sanitize\":null,\"max_ptx_bytes\":"
                           "67108864,\"watchdog_s\":{\"startup\":120.0,\"load\":5.0,"
                           "\"correctness\":900.0,\"performance\":1800.0,\"verify\":300.0,"
                           "\"exit\":30.0,\"sanitize\":3600.0}}");
    free(s);
    json_decref(r);
    /* In this process, one device, no override: the nulls and the device ordinal. */
    pg_check_options_init(&o);
    o.device_ordinal = 4;
    r = pg_check_settings_json(&o, 0);
    assert_true(json_is_null(json_object_get(r, "min_speedup_override")));
    assert_true(json_is_null(json_object_get(r, "watchdog_s")));
    assert_string_equal(json_string_value(json_object_get(r, "isolation")), "none");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(r, "devices"), 0)), 4);
    json_decref(r);
}

/* A value away from the default for each kind, as command-line text. */
static const char *other_text(const pg_opt *r, char *buf, size_t n)
{
    switch (r->kind) {
    case PG_OPT_INT:
        snprintf(buf, n, "%lld", (long long)(r->hi != r->def ? r->hi : r->lo));
        return buf;
    case PG_OPT_REAL:
        snprintf(buf, n, "%.17g", r->lo + (r->hi - r->lo) / 3);
        return buf;
    case PG_OPT_CHOICE: {
        int k = 0;
        while (r->choices[k + 1].name)
            k++;
        return r->choices[k].name; /* the last one: never a default here */
    }
    case PG_OPT_STRING:
        snprintf(buf, n, "value-of-%s", r->job_key);
        return buf;
    default:
        return NULL;
    }
}

static void assert_same_field(const pg_opt *r, const pg_check_options *a,
                              const pg_check_options *b)
{
    const char *pa = (const char *)a + r->offset, *pb = (const char *)b + r->offset;
    if (r->kind == PG_OPT_STRING || (r->kind == PG_OPT_CHOICE && (r->flags & PG_OPT_NAME))) {
        const char *sa, *sb;
        memcpy(&sa, pa, sizeof sa);
        memcpy(&sb, pb, sizeof sb);
        assert_non_null(sa);
        assert_non_null(sb);
        assert_string_equal(sa, sb);
    } else if (memcmp(pa, pb, r->size) != 0) {
        fail_msg("job key %s: read back differs", r->job_key);
    }
}

/* Every row the job carries, set away from its default, written and read back. */
static void test_job_round_trip_every_option(void **state)
{
    (void)state;
    pg_check_options o, back, def;
    pg_check_options_init(&o);
    pg_check_options_init(&def);
    char bufs[32][64];
    int used = 0;
    for (const pg_opt *r = pg_check_option_table(); r->name || r->rec_key || r->job_key; r++) {
        if (!r->job_key)
            continue;
        pg_diag d;
        char *buf = bufs[used++];
        if (!r->name) { /* found by the program (the arch tables' folder) */
            snprintf(buf, 64, "value-of-%s", r->job_key);
            *(const char **)pg_opt_field(r, &o) = buf;
            continue;
        }
        const char *t = other_text(r, buf, 64);
        if (pg_opt_set(r, &o, t, &d) != PG_OK)
            fail_msg("--%s %s: %s", r->name, t ? t : "", d.message);
        if (r->kind != PG_OPT_STRING && r->kind != PG_OPT_CHOICE &&
            memcmp((char *)&o + r->offset, (char *)&def + r->offset, r->size) == 0)
            fail_msg("--%s: the test value is the default", r->name);
    }
    assert_true(used >= 17);
    json_t *job = pg_check_job_options(&o);
    pg_check_options_init(&back);
    pg_diag d;
    if (pg_check_job_options_read(&back, job, "job.json", &d) != PG_OK)
        fail_msg("%s: %s", d.field, d.message);
    for (const pg_opt *r = pg_check_option_table(); r->name || r->rec_key || r->job_key; r++)
        if (r->job_key)
            assert_same_field(r, &o, &back);
    /* Written again from what was read: the same text. */
    json_t *again = pg_check_job_options(&back);
    char *s1 = json_dumps(job, JSON_COMPACT | JSON_REAL_PRECISION(17));
    char *s2 = json_dumps(again, JSON_COMPACT | JSON_REAL_PRECISION(17));
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    json_decref(again);
    json_decref(job);
}

/* The job's keys in the order worker.h documents; optional strings left out when NULL. */
static void test_job_keys(void **state)
{
    (void)state;
    pg_check_options o;
    pg_check_options_init(&o);
    o.arch_dir = "data/arch";
    json_t *job = pg_check_job_options(&o);
    char *s = json_dumps(job, JSON_COMPACT | JSON_REAL_PRECISION(17));
    assert_string_equal(s, "{\"device\":0,\"sets\":3,\"seed\":20261129,\"warmup\":2,"
                           "\"repetitions\":10,\"confidence\":0.94999999999999996,\"timeout_s\":"
                           "60.0,\"min_speedup_override\":0.0,\"energy\":true,\"arch_dir\":"
                           "\"data/arch\",\"on_missing_baseline\":\"measure\",\"on_drift\":"
                           "\"warn\",\"drift_tolerance\":0.050000000000000003}");
    free(s);
    /* A job without a required key is an input error naming it. */
    json_object_del(job, "on_drift");
    pg_diag d;
    assert_int_equal(pg_check_job_options_read(&o, job, "job.json", &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "job.json");
    assert_string_equal(d.field, "options.on_drift");
    json_decref(job);
}

static void test_command_line_rules(void **state)
{
    (void)state;
    pg_check_options o;
    pg_diag d;
    const char *w1[] = {"--device", "1", "--devices", "0,1", "m.json", NULL};
    assert_int_equal(parse(w1, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--device 1 and --devices 0,1: give one of them");
    const char *w2[] = {"--devices", "0,1", "--no-isolation", NULL};
    assert_int_equal(parse(w2, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--devices 0,1: several devices need worker processes; not "
                                   "with --no-isolation");
    const char *w3[] = {"--devices", "2", "--device", "2", NULL};
    assert_int_equal(parse(w3, &o, &d), PG_OK);
    assert_int_equal(o.device_ordinal, 2);
    assert_int_equal(o.n_devices, 1);
    const char *w4[] = {"--devices", "3,1", NULL};
    assert_int_equal(parse(w4, &o, &d), PG_OK);
    assert_int_equal(o.device_ordinal, 3);
    assert_int_equal(o.devices[1], 1);
    const char *w5[] = {"--devices", "0,0", NULL};
    assert_int_equal(parse(w5, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--devices"); /* model/devices.h's located message */
    /* --no-gpu skips the GPU stages unless --if-no-gpu says otherwise. */
    const char *w6[] = {"--no-gpu", NULL};
    assert_int_equal(parse(w6, &o, &d), PG_OK);
    assert_true(o.no_gpu && o.skip_without_gpu);
    const char *w7[] = {"--no-gpu", "--if-no-gpu", "fail", NULL};
    assert_int_equal(parse(w7, &o, &d), PG_OK);
    assert_true(o.no_gpu && !o.skip_without_gpu);
    const char *w8[] = {"--baselines", "none", "--no-energy", "--on-missing-baseline", "fail",
                        "--shard", "2/4", "--watchdog", "load=5,exit=3", "--mode", "cold", NULL};
    assert_int_equal(parse(w8, &o, &d), PG_OK);
    assert_null(o.baselines_dir);
    assert_false(o.energy);
    assert_int_equal(o.on_missing_baseline, PG_MISSING_FAIL);
    assert_int_equal(o.shard_index, 2);
    assert_int_equal(o.shard_count, 4);
    assert_true(o.watchdog.load_s == 5 && o.watchdog.exit_s == 3 && o.watchdog.startup_s == 120);
    assert_string_equal(o.timing_mode, "cold");
    const char *w9[] = {"--watchdog", "load", NULL};
    assert_int_equal(parse(w9, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--watchdog: expected STAGE=SECONDS with STAGE one of "
                                   "startup, load, correctness, performance, verify, exit, "
                                   "sanitize and 0.1 <= SECONDS <= 604800, got 'load'");
    const char *w10[] = {"--arch", "sm_9", NULL};
    assert_int_equal(parse(w10, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--arch: expected sm_ followed by 2-3 digits and an optional "
                                   "'a' (e.g. sm_90a), got 'sm_9'");
    const char *w11[] = {"--sanitize", "memcheck,memcheck", NULL};
    assert_int_equal(parse(w11, &o, &d), PG_ERR_INPUT);
    assert_non_null(strstr(d.message, "(each once), got 'memcheck,memcheck'"));
    const char *w12[] = {"--watchdog", "", NULL};
    assert_int_equal(parse(w12, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--watchdog: expected a value, got an empty string");
    const char *w13[] = {"--output", "o", "--junit-copy", "j.xml", "--recursive", "--quiet",
                         "--label", "v1", "--commit", "abc", "--commit-time",
                         "2026-01-01T00:00:00Z", "--sets", "7", "--min-speedup", "1.25", NULL};
    assert_int_equal(parse(w13, &o, &d), PG_OK);
    assert_string_equal(o.output_dir, "o");
    assert_string_equal(o.junit_copy, "j.xml");
    assert_true(o.recursive && o.quiet);
    assert_string_equal(o.label, "v1");
    assert_string_equal(o.commit, "abc");
    assert_string_equal(o.commit_time, "2026-01-01T00:00:00Z");
    assert_int_equal(o.correctness_sets, 7);
    assert_true(o.min_speedup_override == 1.25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_well_formed),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_settings_record),
        cmocka_unit_test(test_job_round_trip_every_option),
        cmocka_unit_test(test_job_keys),
        cmocka_unit_test(test_command_line_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
