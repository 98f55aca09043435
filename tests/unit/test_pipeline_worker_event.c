/* Unit tests of the worker's status events (gate/pipeline/worker_event.h): every kind survives
 * encode -> line -> decode with every field (non-finite numbers included), the bytes on the
 * channel keep the order the GPU tests' probe reads, ownership of records and perf lists, and
 * every kind of malformed line is refused with a located PG_ERR_INPUT and nothing left to free.
 * Links the pipeline library (no GPU is touched). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/worker_event.h"

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Encode ev, check it is one line, decode it into *back (the caller releases it). */
static void trip(const pg_worker_event *ev, pg_worker_event *back)
{
    char *line = NULL;
    size_t len = 0;
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_worker_event_encode(ev, &line, &len, &d), PG_OK);
    assert_non_null(line);
    assert_int_equal(strlen(line), len);
    assert_true(len > 1 && line[len - 1] == '\n');
    assert_null(memchr(line, '\n', len - 1));
    assert_int_equal(pg_worker_event_decode(line, len, back, &d), PG_OK);
    assert_int_equal(back->kind, ev->kind);
    assert_non_null(back->root);
    free(line);
}

/* The exact line of ev. */
static void assert_line(const pg_worker_event *ev, const char *want)
{
    char *line = NULL;
    size_t len = 0;
    assert_int_equal(pg_worker_event_encode(ev, &line, &len, NULL), PG_OK);
    assert_string_equal(line, want);
    free(line);
}

static void test_kind_names(void **state)
{
    (void)state;
    const char *names[] = {"ready", "device", "unavailable", "heating", "heat_failed",
                           "progress", "stage", "workload", "stopped", "done"};
    for (int k = PG_WEV_READY; k <= PG_WEV_DONE; k++)
        assert_string_equal(pg_wev_kind_name((pg_wev_kind)k), names[k]);
    assert_null(pg_wev_kind_name((pg_wev_kind)(PG_WEV_DONE + 1)));
    assert_null(pg_wev_kind_name((pg_wev_kind)-1));
}

static void test_ready_round_trip(void **state)
{
    (void)state;
    const double values[] = {1.2345678901234567, 0.0, 3e-9, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        pg_worker_event ev = {.kind = PG_WEV_READY}, back;
        ev.ready.startup_s = values[i];
        trip(&ev, &back);
        assert_true(same(back.ready.startup_s, values[i]));
        pg_worker_event_release(&back);
        assert_null(back.root);
    }
    pg_worker_event ev = {.kind = PG_WEV_READY};
    ev.ready.startup_s = INFINITY;
    assert_line(&ev, "{\"ev\":\"ready\",\"startup_s\":\"inf\"}\n");
}

static void test_device_round_trip(void **state)
{
    (void)state;
    pg_worker_event ev = {.kind = PG_WEV_DEVICE}, back;
    pg_device_info *i = &ev.device;
    snprintf(i->name, sizeof i->name, "NVIDIA H200");
    snprintf(i->uuid, sizeof i->uuid, "GPU-0123");
    snprintf(i->pci_bus_id, sizeof i->pci_bus_id, "0000:19:00.0");
    snprintf(i->driver_version, sizeof i->driver_version, "580.159.04");
    i->ordinal = 3;
    i->cc_major = 9;
    i->sm_count = 132;
    i->memory_bytes = 150754820096LL;
    i->cudnn_version = 91400;
    i->max_grid_dim[0] = 2147483647;
    i->max_block_dim[2] = 64;
    i->power_limit_w = 700.25;
    i->ecc = -1;
    trip(&ev, &back);
    assert_memory_equal(&back.device, &ev.device, sizeof ev.device);
    pg_worker_event_release(&back);
    /* A power limit that is not a number still travels (as "nan"). */
    i->power_limit_w = NAN;
    trip(&ev, &back);
    assert_true(isnan(back.device.power_limit_w));
    assert_string_equal(back.device.uuid, "GPU-0123");
    pg_worker_event_release(&back);
}

static void test_reason_kinds_round_trip(void **state)
{
    (void)state;
    const pg_wev_kind kinds[] = {PG_WEV_UNAVAILABLE, PG_WEV_HEAT_FAILED, PG_WEV_STOPPED};
    for (size_t k = 0; k < 3; k++) {
        pg_worker_event ev = {.kind = kinds[k]}, back;
        ev.reason = "CUDA_ERROR_NO_DEVICE: no CUDA-capable device \"0\"";
        trip(&ev, &back);
        assert_string_equal(back.reason, ev.reason);
        pg_worker_event_release(&back);
        /* Bytes that are not UTF-8 (a hostile kernel name in a message) travel as U+FFFD. */
        ev.reason = "bad \xff byte";
        trip(&ev, &back);
        assert_string_equal(back.reason, "bad \xEF\xBF\xBD byte");
        pg_worker_event_release(&back);
    }
    /* The GPU tests' probe reads this line with sed: "ev" first, then "reason". */
    pg_worker_event ev = {.kind = PG_WEV_UNAVAILABLE};
    ev.reason = "no GPU";
    assert_line(&ev, "{\"ev\":\"unavailable\",\"reason\":\"no GPU\"}\n");
}

static void test_bare_kinds_round_trip(void **state)
{
    (void)state;
    pg_worker_event heating = {.kind = PG_WEV_HEATING}, done = {.kind = PG_WEV_DONE}, back;
    trip(&heating, &back);
    pg_worker_event_release(&back);
    trip(&done, &back);
    pg_worker_event_release(&back);
    assert_line(&done, "{\"ev\":\"done\"}\n");
    assert_line(&heating, "{\"ev\":\"heating\"}\n");
}

static void test_progress_round_trip(void **state)
{
    (void)state;
    pg_worker_event ev = {.kind = PG_WEV_PROGRESS}, back;
    ev.progress.stage = "load";
    trip(&ev, &back);
    assert_string_equal(back.progress.stage, "load");
    assert_null(back.progress.workload);
    assert_null(back.progress.status);
    assert_null(back.progress.message);
    pg_worker_event_release(&back);
    assert_line(&ev, "{\"ev\":\"progress\",\"workload\":null,\"stage\":\"load\",\"status\":null,"
                     "\"message\":null}\n");
    ev.progress.workload = "m257_n513_k1000";
    ev.progress.stage = "performance";
    ev.progress.status = "pass";
    ev.progress.message = "";
    trip(&ev, &back);
    assert_string_equal(back.progress.workload, "m257_n513_k1000");
    assert_string_equal(back.progress.stage, "performance");
    assert_string_equal(back.progress.status, "pass");
    assert_string_equal(back.progress.message, "");
    pg_worker_event_release(&back);
    /* Left out reads as null (an older sender). */
    const char *bare = "{\"ev\":\"progress\",\"stage\":\"verify\"}";
    assert_int_equal(pg_worker_event_decode(bare, strlen(bare), &back, NULL), PG_OK);
    assert_string_equal(back.progress.stage, "verify");
    assert_null(back.progress.workload);
    pg_worker_event_release(&back);
}

static void test_stage_round_trip_and_ownership(void **state)
{
    (void)state;
    json_t *rec = json_pack("{s:s, s:s, s:s, s:f, s:{s:s}}", "stage", "load", "status", "pass",
                            "message", "module loaded", "duration_s", 0.25, "details", "image",
                            "cubin (ptxas)");
    pg_worker_event ev = {.kind = PG_WEV_STAGE}, back;
    ev.stage.record = rec;
    trip(&ev, &back);
    assert_int_equal(rec->refcount, 1); /* the encoder only borrowed it */
    assert_true(json_equal(back.stage.record, rec));
    /* A record the consumer keeps outlives the event. */
    json_t *kept = json_incref(back.stage.record);
    pg_worker_event_release(&back);
    assert_null(back.root);
    assert_true(json_equal(kept, rec));
    json_decref(kept);
    json_decref(rec);
}

static void test_workload_round_trip(void **state)
{
    (void)state;
    json_t *rec = json_pack("{s:s, s:[{s:s, s:s}], s:s}", "name", "m2048_n2048_k2048", "stages",
                            "stage", "correctness", "status", "pass", "status", "PASSED");
    json_t *events = json_pack("[s, s]", "m2048_n2048_k2048: drift 1.2 %", "second note");
    pg_wev_perf perf[2];
    memset(perf, 0, sizeof perf);
    perf[0].index = 0;
    perf[0].result.verdict = PG_CMP_FAIL;
    perf[0].result.blocks = 48;
    perf[0].result.assignments = 4294967296ull;
    perf[0].result.exact = true;
    perf[0].result.ratio_estimate = 1.0123456789012345;
    perf[0].result.acf1_log_ratio = NAN;
    perf[0].result.mde_ratio = INFINITY;
    perf[0].result.p_fail_seq = 1e-300;
    perf[1].index = 2;
    perf[1].result.verdict = PG_CMP_FAST;
    perf[1].result.look = 2;
    perf[1].result.skew_log_ratio = -INFINITY;
    perf[1].result.holm_changed = true;
    pg_worker_event ev = {.kind = PG_WEV_WORKLOAD}, back;
    ev.workload.index = 7;
    ev.workload.final = true;
    ev.workload.record = rec;
    ev.workload.perf = perf;
    ev.workload.n_perf = 2;
    ev.workload.have_peaks = true;
    ev.workload.peak_tflops = 812.5;
    ev.workload.peak_write_gbps = NAN; /* that measurement failed: null on the channel */
    ev.workload.baseline_events = events;
    trip(&ev, &back);
    assert_int_equal(rec->refcount, 1);
    assert_int_equal(events->refcount, 1);
    assert_int_equal(back.workload.index, 7);
    assert_true(back.workload.final);
    assert_true(json_equal(back.workload.record, rec));
    assert_string_equal(back.workload.name, "m2048_n2048_k2048");
    assert_int_equal(back.workload.n_perf, 2);
    for (int k = 0; k < 2; k++) {
        const pg_cmp_result *a = &perf[k].result, *b = &back.workload.perf[k].result;
        assert_int_equal(back.workload.perf[k].index, perf[k].index);
        assert_int_equal(b->verdict, a->verdict);
        assert_int_equal(b->blocks, a->blocks);
        assert_int_equal(b->look, a->look);
        assert_int_equal(b->assignments, a->assignments);
        assert_int_equal(b->exact, a->exact);
        assert_int_equal(b->holm_changed, a->holm_changed);
        assert_true(same(b->ratio_estimate, a->ratio_estimate) &&
                    same(b->acf1_log_ratio, a->acf1_log_ratio) &&
                    same(b->mde_ratio, a->mde_ratio) && same(b->p_fail_seq, a->p_fail_seq) &&
                    same(b->skew_log_ratio, a->skew_log_ratio));
    }
    assert_true(back.workload.have_peaks);
    assert_true(back.workload.peak_tflops == 812.5 && isnan(back.workload.peak_write_gbps));
    assert_true(json_equal(back.workload.baseline_events, events));
    /* The consumer takes the perf list: release leaves it alone. */
    pg_wev_perf *taken = back.workload.perf;
    back.workload.perf = NULL;
    pg_worker_event_release(&back);
    assert_int_equal(taken[1].index, 2);
    free(taken);

    /* Not final, no comparisons, peaks not measured, no notes: null peaks and [] notes. */
    pg_worker_event lean = {.kind = PG_WEV_WORKLOAD};
    lean.workload.index = 0;
    lean.workload.record = rec;
    trip(&lean, &back);
    assert_false(back.workload.final);
    assert_int_equal(back.workload.n_perf, 0);
    assert_null(back.workload.perf);
    assert_false(back.workload.have_peaks);
    assert_int_equal(json_array_size(back.workload.baseline_events), 0);
    pg_worker_event_release(&back);
    json_decref(rec);
    json_decref(events);
}

/* A workload event as the fake worker of the tests sends it: peaks null, notes left out. */
static void test_workload_optional_fields(void **state)
{
    (void)state;
    const char *line = "{\"ev\": \"workload\", \"index\": 1, \"final\": false, \"record\": "
                       "{\"name\": \"w\", \"stages\": []}, \"perf\": [], \"peaks\": null}\n";
    pg_worker_event back;
    assert_int_equal(pg_worker_event_decode(line, strlen(line), &back, NULL), PG_OK);
    assert_int_equal(back.workload.index, 1);
    assert_false(back.workload.have_peaks);
    assert_null(back.workload.baseline_events);
    pg_worker_event_release(&back);
    const char *peaks = "{\"ev\":\"workload\",\"index\":1,\"final\":true,\"record\":{\"name\":\"w\","
                        "\"stages\":[]},\"peaks\":{\"tflops\":null,\"write_gbps\":3000}}";
    assert_int_equal(pg_worker_event_decode(peaks, strlen(peaks), &back, NULL), PG_OK);
    assert_true(back.workload.have_peaks && isnan(back.workload.peak_tflops) &&
                back.workload.peak_write_gbps == 3000.0);
    pg_worker_event_release(&back);
}

/* Each line refused: PG_ERR_INPUT, nothing owned, the message (and field) saying what. */
static void refused(const char *line, const char *field, const char *message_part)
{
    pg_worker_event ev;
    memset(&ev, 0x5a, sizeof ev); /* decode must not trust what was there */
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = pg_worker_event_decode(line, line ? strlen(line) : 0, &ev, &d);
    if (st != PG_ERR_INPUT)
        fail_msg("accepted or wrong status %d: %s", (int)st, line ? line : "(null)");
    assert_null(ev.root);
    assert_int_equal(d.status, PG_ERR_INPUT);
    assert_string_equal(d.file, "worker status line");
    if (field)
        assert_string_equal(d.field, field);
    if (message_part && !strstr(d.message, message_part))
        fail_msg("message \"%s\" lacks \"%s\"", d.message, message_part);
    pg_worker_event_release(&ev); /* a no-op */
}

static void test_malformed_lines(void **state)
{
    (void)state;
    /* Not JSON, or not one object. */
    refused(NULL, NULL, "not JSON");
    refused("", NULL, "not JSON");
    refused("ready", NULL, "not JSON");
    refused("{\"ev\":\"done\"", NULL, "not JSON");
    refused("{\"ev\":\"done\"} {\"ev\":\"done\"}", NULL, "not JSON");
    refused("[\"ev\", \"done\"]", NULL, "found an array");
    refused("42", NULL, NULL);
    /* The kind. */
    refused("{}", "ev", "missing");
    refused("{\"ev\":7}", "ev", "string");
    refused("{\"ev\":\"teleport\"}", "ev", "unknown event kind \"teleport\"");
    refused("{\"ev\":\"DONE\"}", "ev", "unknown event kind");
    /* Required fields missing or mistyped, per kind. */
    refused("{\"ev\":\"ready\"}", "startup_s", "missing");
    refused("{\"ev\":\"ready\",\"startup_s\":\"soon\"}", "startup_s", "number");
    refused("{\"ev\":\"ready\",\"startup_s\":null}", "startup_s", NULL);
    refused("{\"ev\":\"device\"}", "info", "missing");
    refused("{\"ev\":\"device\",\"info\":{\"name\":\"NVIDIA H200\"}}", "info", "fingerprint");
    refused("{\"ev\":\"device\",\"info\":[]}", "info", NULL);
    refused("{\"ev\":\"unavailable\"}", "reason", "missing");
    refused("{\"ev\":\"stopped\",\"reason\":3}", "reason", NULL);
    refused("{\"ev\":\"heat_failed\",\"reason\":null}", "reason", NULL);
    refused("{\"ev\":\"progress\",\"workload\":\"w\",\"status\":null}", "stage", "missing");
    refused("{\"ev\":\"progress\",\"stage\":7}", "stage", NULL);
    refused("{\"ev\":\"progress\",\"stage\":\"load\",\"status\":1}", "status", "string or null");
    refused("{\"ev\":\"progress\",\"stage\":\"load\",\"workload\":[]}", "workload", NULL);
    refused("{\"ev\":\"progress\",\"stage\":\"load\",\"message\":{}}", "message", NULL);
    refused("{\"ev\":\"stage\"}", "record", "missing");
    refused("{\"ev\":\"stage\",\"record\":\"load\"}", "record", NULL);
    /* The workload event: its record first of all. */
    const char *rec = "\"record\":{\"name\":\"w\",\"stages\":[]}";
    char line[512];
    refused("{\"ev\":\"workload\",\"index\":0,\"final\":true}", "record", "missing");
    refused("{\"ev\":\"workload\",\"index\":0,\"final\":true,\"record\":null}", "record", NULL);
    refused("{\"ev\":\"workload\",\"index\":0,\"final\":true,\"record\":{\"stages\":[]}}",
            "record.name", "missing");
    refused("{\"ev\":\"workload\",\"index\":0,\"final\":true,\"record\":{\"name\":\"w\"}}",
            "record.stages", "missing");
    refused("{\"ev\":\"workload\",\"index\":0,\"final\":true,\"record\":{\"name\":\"w\","
            "\"stages\":{}}}",
            "record.stages", NULL);
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"final\":true,%s}", rec);
    refused(line, "index", "missing");
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":-1,\"final\":true,%s}", rec);
    refused(line, "index", "index");
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":\"0\",\"final\":true,%s}", rec);
    refused(line, "index", NULL);
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":4294967296,\"final\":true,%s}",
             rec);
    refused(line, "index", "index");
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":0,%s}", rec);
    refused(line, "final", "missing");
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":0,\"final\":1,%s}", rec);
    refused(line, "final", NULL);
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"perf\":{}}",
             rec);
    refused(line, "perf", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"perf\":[7]}", rec);
    refused(line, "perf[0]", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"perf\":[{\"index\":0}]}", rec);
    refused(line, "perf[0].result", "missing");
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"perf\":[{\"index\":-2,"
             "\"result\":{}}]}",
             rec);
    refused(line, "perf[0].index", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"perf\":[{\"index\":0,"
             "\"result\":{\"verdict\":0}}]}",
             rec);
    refused(line, "perf[0].result", "comparison result");
    snprintf(line, sizeof line, "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"peaks\":7}",
             rec);
    refused(line, "peaks", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"peaks\":{\"tflops\":\"fast\","
             "\"write_gbps\":1}}",
             rec);
    refused(line, "peaks.tflops", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"baseline_events\":\"note\"}",
             rec);
    refused(line, "baseline_events", NULL);
    snprintf(line, sizeof line,
             "{\"ev\":\"workload\",\"index\":0,\"final\":true,%s,\"baseline_events\":[\"a\",2]}",
             rec);
    refused(line, "baseline_events[1]", NULL);
}

/* A perf list that fails late (its second entry) leaves nothing allocated (valgrind / ASan
 * builds see it) and the event empty. */
static void test_malformed_after_perf_allocated(void **state)
{
    (void)state;
    char line[4096];
    pg_wev_perf perf = {0, {.verdict = PG_CMP_PASS}};
    json_t *rec = json_pack("{s:s, s:[]}", "name", "w", "stages");
    pg_worker_event ev = {.kind = PG_WEV_WORKLOAD};
    ev.workload.record = rec;
    ev.workload.perf = &perf;
    ev.workload.n_perf = 1;
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(pg_worker_event_encode(&ev, &text, &len, NULL), PG_OK);
    /* Append a broken second entry inside the perf list. */
    char *end = strstr(text, "}}],\"peaks\"");
    assert_non_null(end);
    snprintf(line, sizeof line, "%.*s}},{\"index\":1}%s", (int)(end - text), text, end + 2);
    free(text);
    pg_diag d;
    pg_diag_clear(&d);
    assert_int_equal(pg_worker_event_decode(line, strlen(line), &ev, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "perf[1].result");
    assert_null(ev.root);
    assert_null(ev.workload.perf);
    json_decref(rec);
}

static void test_encode_errors(void **state)
{
    (void)state;
    char *line = (char *)"untouched";
    size_t len = 9;
    pg_diag d;
    pg_diag_clear(&d);
    pg_worker_event progress = {.kind = PG_WEV_PROGRESS};
    assert_int_equal(pg_worker_event_encode(&progress, &line, &len, &d), PG_ERR_INFRA);
    assert_null(line);
    assert_int_equal(len, 0);
    assert_string_equal(d.field, "stage");
    pg_worker_event stage = {.kind = PG_WEV_STAGE}, workload = {.kind = PG_WEV_WORKLOAD};
    assert_int_equal(pg_worker_event_encode(&stage, &line, &len, &d), PG_ERR_INFRA);
    assert_string_equal(d.field, "record");
    assert_int_equal(pg_worker_event_encode(&workload, &line, &len, &d), PG_ERR_INFRA);
    assert_string_equal(d.field, "record");
    assert_null(line);
    pg_worker_event odd = {.kind = (pg_wev_kind)42};
    assert_int_equal(pg_worker_event_encode(&odd, &line, &len, NULL), PG_ERR_INFRA);
    assert_null(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_ready_round_trip),
        cmocka_unit_test(test_device_round_trip),
        cmocka_unit_test(test_reason_kinds_round_trip),
        cmocka_unit_test(test_bare_kinds_round_trip),
        cmocka_unit_test(test_progress_round_trip),
        cmocka_unit_test(test_stage_round_trip_and_ownership),
        cmocka_unit_test(test_workload_round_trip),
        cmocka_unit_test(test_workload_optional_fields),
        cmocka_unit_test(test_malformed_lines),
        cmocka_unit_test(test_malformed_after_perf_allocated),
        cmocka_unit_test(test_encode_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
