/* Offline checks of the range profiler's host half (pg_metrics_host_check in gate/device/device.h,
 * no GPU needed): CUPTI accepts every metric of every data/metrics/<chip>.json file for its chip,
 * and the metric lists of the usual target sets need few replay passes. Skips with the reason
 * only when CUPTI's host library cannot run here (libnvperf_host.so missing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "model/metric_table.h"

#define METRICS PG_SOURCE_DIR "/data/metrics"

static int passes_for(const pg_metric_table *t, const char *const *fams, size_t nf,
                      const char *path)
{
    const char *metrics[PG_METRIC_MAX_REQUEST];
    size_t n = 0;
    int passes = 0;
    pg_diag d;
    char buf[4096];
    pg_diag_clear(&d);
    if (pg_metric_table_request(t, fams, nf, path, metrics, PG_METRIC_MAX_REQUEST, &n, &d) != PG_OK ||
        pg_metrics_host_check(t->chip, metrics, n, &passes, &d) != PG_OK)
        fail_msg("%s: %s", t->chip, pg_diag_format(&d, buf, sizeof buf));
    return passes;
}

/* The host library works here, or the test skips with CUPTI's reason. */
static int setup(void **state)
{
    const char *m[] = {"sm__cycles_elapsed.max"};
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_metrics_host_check("GH100", m, 1, NULL, &d) != PG_OK) {
        printf("SKIP: CUPTI's profiler host API cannot run here: %s\n", d.message);
        *state = (void *)1;
    }
    return 0;
}

static void skip_if_unavailable(void **state)
{
    if (*state)
        skip();
}

/* Every metric of every family of every shipped chip file, one list per file. */
static void test_every_shipped_metric_is_known(void **state)
{
    skip_if_unavailable(state);
    DIR *dir = opendir(METRICS);
    assert_non_null(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(dir))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", METRICS, e->d_name);
        pg_metric_table *t = NULL;
        pg_diag d;
        char buf[4096];
        pg_diag_clear(&d);
        if (pg_metric_table_load(path, &t, &d) != PG_OK)
            fail_msg("%s", pg_diag_format(&d, buf, sizeof buf));
        const char *fams[PG_METRIC_MAX_FAMILIES];
        for (int i = 0; i < t->n_families; i++)
            fams[i] = t->families[i].name;
        /* Each family alone, so a failure names the family's file entry ... */
        for (int i = 0; i < t->n_families; i++)
            assert_true(passes_for(t, &fams[i], 1, NULL) >= 1);
        /* ... and all together: the pass count of the whole file. */
        int all = passes_for(t, fams, (size_t)t->n_families, NULL);
        printf("%s: %d families, all metrics in %d passes\n", t->chip, t->n_families, all);
        assert_true(all >= 1 && all <= PG_RANGEPROF_MAX_PASSES);
        pg_metric_table_free(t);
        files++;
    }
    closedir(dir);
    assert_true(files >= 2);
}

/* The target sets of the shipped tasks, and their pass counts as CUPTI 13.0 computes them. A
 * change here changes the verification run's wall time (one replay of the launches per pass). */
static void test_target_set_passes(void **state)
{
    skip_if_unavailable(state);
    pg_metric_table *gh = NULL, *gb = NULL;
    pg_diag d;
    assert_int_equal(pg_metric_table_load(METRICS "/gh100.json", &gh, &d), PG_OK);
    assert_int_equal(pg_metric_table_load(METRICS "/gb100.json", &gb, &d), PG_OK);
    const char *sm90a[] = {"HGMMA", "UTMALDG"};
    const char *sm100a[] = {"UTCHMMA", "UTMALDG"};
    const char *mma[] = {"HMMA", "LDSM"};
    /* bf16 tasks: the tensor path of their input dtype only. */
    int p90 = passes_for(gh, sm90a, 2, "bf16"), p100 = passes_for(gb, sm100a, 2, "bf16"),
        pmma = passes_for(gh, mma, 2, "bf16"), p90_fp16 = passes_for(gh, sm90a, 2, "fp16");
    printf("passes (bf16): GH100 HGMMA+UTMALDG %d, GB100 UTCHMMA+UTMALDG %d, GH100 HMMA+LDSM %d; "
           "(fp16) GH100 HGMMA+UTMALDG %d\n",
           p90, p100, pmma, p90_fp16);
    /* SASS-patched counts take a pass of their own; the bf16 math-op counter fits in one more. */
    assert_int_equal(p90, 2);
    assert_int_equal(p100, 2);
    assert_true(pmma >= 1 && pmma <= 3);
    assert_true(p90_fp16 >= 2 && p90_fp16 <= 3);
    pg_metric_table_free(gh);
    pg_metric_table_free(gb);
}

static void test_unknown_metric_named(void **state)
{
    skip_if_unavailable(state);
    const char *m[] = {"sm__sass_inst_executed_op_shared_gmma.sum",
                       "sm__sass_inst_executed_op_utcmma.sum"}; /* a GB100 counter */
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_metrics_host_check("GH100", m, 2, NULL, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "metrics[1]");
    assert_non_null(strstr(d.message, "'sm__sass_inst_executed_op_utcmma.sum' is not known for "
                                      "chip GH100"));
    /* ... and the same name is fine on GB100. */
    int passes = 0;
    assert_int_equal(pg_metrics_host_check("GB100", &m[1], 1, &passes, &d), PG_OK);
    assert_int_equal(passes, 1);
}

static void test_unknown_chip_unavailable(void **state)
{
    skip_if_unavailable(state);
    const char *m[] = {"sm__cycles_elapsed.max"};
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_metrics_host_check("GZ999", m, 1, NULL, &d);
    assert_int_equal(st, PG_ERR_UNAVAILABLE);
    assert_non_null(strstr(d.message, "CUPTI_ERROR_INVALID_CHIP_NAME in cuptiProfilerHostInitialize"));
    assert_non_null(strstr(d.message, "fix: "));
    assert_int_equal(pg_metrics_host_check("GH100", m, 0, NULL, &d), PG_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_every_shipped_metric_is_known, setup),
        cmocka_unit_test_setup(test_target_set_passes, setup),
        cmocka_unit_test_setup(test_unknown_metric_named, setup),
        cmocka_unit_test_setup(test_unknown_chip_unavailable, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
