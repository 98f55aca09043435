/* The worker's status events as typed values: one encoder that every sender of the status
 * channel uses (worker_main.c) and one decoder that the parent uses (worker.c), which checks
 * each line before anything of it is used (worker_event.c). Private to gate/pipeline.
 *
 * On the channel (worker.h) an event is one compact JSON object on one line, its kind in "ev"
 * first, its fields after it in the order of the table below; reals with 17 significant digits,
 * a real that is not finite as the string "nan", "inf" or "-inf" (pg_wire_real), the peaks'
 * NaN as null. Fields per kind ("?": may be left out, then read as null / empty):
 *   ready        startup_s: real, seconds from exec until the GPU was open (worker's clock)
 *   device       info: the GPU's fingerprint and limits (pg_device_info_to_json, every field)
 *   unavailable  reason: string; no usable GPU, the worker ends
 *   heating      (none); the heater's GEMM runs
 *   heat_failed  reason: string; the heater's GEMM could not be prepared
 *   progress     workload?: string|null (null: a submission-level stage), stage: string,
 *                status?: string|null (null: the stage starts), message?: string|null
 *   stage        record: object, a submission-level stage record (the load stage)
 *   workload     index: integer >= 0, the task workload's index; final: boolean (its last
 *                snapshot); record: object with "name" (string) and "stages" (array), the
 *                workload's results record; perf?: [{"index": integer >= 0, "result":
 *                pg_cmp_result_to_json}], the comparisons recorded for the run's Holm step at
 *                their position in the performance stage's comparisons (0 vs the library, 2 vs
 *                the accepted kernel); peaks?: {"tflops": real|null, "write_gbps": real|null}
 *                |null, the device's measured peaks (TFLOP/s, GB/s); baseline_events?:
 *                [string], the stored-baseline notes added since the last snapshot
 *   stopped      reason: string; the GPU context broke, the worker stops early
 *   done         (none); nothing more will be reported
 * A member not named here is ignored (a newer sender may add one). */
#ifndef PG_PIPELINE_WORKER_EVENT_H
#define PG_PIPELINE_WORKER_EVENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "device/device.h"
#include "stats/comparison.h"

typedef enum {
    PG_WEV_READY,
    PG_WEV_DEVICE,
    PG_WEV_UNAVAILABLE,
    PG_WEV_HEATING,
    PG_WEV_HEAT_FAILED,
    PG_WEV_PROGRESS,
    PG_WEV_STAGE,
    PG_WEV_WORKLOAD,
    PG_WEV_STOPPED,
    PG_WEV_DONE
} pg_wev_kind;

/* One comparison for the run's Holm step: its position in the performance stage's comparisons
 * and its full result. */
typedef struct {
    int index;
    pg_cmp_result result;
} pg_wev_perf;

/* One event. kind says which member of the union holds its fields (none for heating, done).
 * Strings and records are borrowed: from the sender's data when encoding, from the decoded line
 * (root) when decoding, so they live until pg_worker_event_release. */
typedef struct {
    pg_wev_kind kind;
    union {
        struct {
            double startup_s;
        } ready;
        pg_device_info device;
        const char *reason; /* unavailable, heat_failed, stopped */
        struct {
            const char *workload, *stage, *status, *message; /* NULL: null */
        } progress;
        struct {
            json_t *record;
        } stage;
        struct {
            int index;
            bool final;
            json_t *record;
            const char *name;  /* decoded only: the record's "name" */
            pg_wev_perf *perf; /* n_perf entries; decoded: owned by the event */
            size_t n_perf;
            bool have_peaks;   /* false: the peaks travel as null */
            double peak_tflops, peak_write_gbps; /* NaN: that measurement failed */
            json_t *baseline_events; /* array of strings; NULL: [] */
        } workload;
    };
    json_t *root; /* decoded: the line's JSON, which owns the strings and records */
} pg_worker_event;

/* The name of a kind on the channel ("ready", "workload", ...); NULL for a value outside the
 * enum. */
const char *pg_wev_kind_name(pg_wev_kind kind);

/* Encode ev as one line: *line (malloc'd, the caller frees it) holds *len bytes, the compact
 * JSON object and a newline, NUL-terminated after it. Borrows everything in ev (records are
 * referenced, never taken). Strings that are not valid UTF-8 travel with U+FFFD in place of the
 * bad bytes (pg_jstr; NULL: ""). Errors: PG_ERR_INFRA when out of memory, for a kind outside
 * the enum, or when a kind that needs a record (stage, workload) or a stage name (progress) has
 * none (d says which; d may be NULL); *line is then NULL and *len 0. */
pg_status pg_worker_event_encode(const pg_worker_event *ev, char **line, size_t *len,
                                 pg_diag *d);

/* Decode the len bytes of line (one status line, with or without its newline) into *ev, after
 * checking that it is a JSON object whose "ev" names a known kind and whose fields of that kind
 * are present (when required) and of the types above. On success the caller owns *ev and ends
 * it with pg_worker_event_release; a record it keeps needs its own reference (json_incref),
 * and workload.perf may be taken over by setting the member to NULL (then free() it).
 * Errors: PG_ERR_INPUT for a line that is not JSON, not an object, without a known "ev", or
 * with a field missing or of the wrong type; d names the field ("perf[1].result") and what was
 * expected (d may be NULL: the parent only counts bad lines). *ev is then empty (release is a
 * no-op on it). Never crashes on any input. */
pg_status pg_worker_event_decode(const char *line, size_t len, pg_worker_event *ev,
                                 pg_diag *d);

/* Free what a decoded event owns (its line's JSON, its perf list unless taken) and empty it.
 * No-op for an event that was not decoded (root NULL: one a sender filled, one zeroed, one
 * whose decode failed), so a sender's own perf list is never freed here. */
void pg_worker_event_release(pg_worker_event *ev);

#endif
