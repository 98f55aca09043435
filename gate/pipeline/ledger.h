/* The stage ledger: the typed record of the stages a submission or one workload went through
 * (ledger.c), private to gate/pipeline. Each entry keeps what the pipeline decides on later (its
 * kind, status, message, duration) next to its JSON record in the results, which is a
 * write-only handle: details are written into it, nothing is read back from it. */
#ifndef PG_PIPELINE_LEDGER_H
#define PG_PIPELINE_LEDGER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/results_read.h"

/* The stages the pipeline records, in no particular order. */
typedef enum {
    PG_STAGE_MANIFEST,     /* a batch's manifest that could not be prepared */
    PG_STAGE_SUPPORTS,     /* a workload the manifest's "supports" declines */
    PG_STAGE_ASSEMBLE,
    PG_STAGE_LOAD,
    PG_STAGE_CORRECTNESS,
    PG_STAGE_INSTRUCTIONS,
    PG_STAGE_PERFORMANCE,
    PG_STAGE_VERIFY,
    PG_STAGE_SANITIZE,
    PG_STAGE_WORKER,       /* a worker that ended between the stages of a workload */
    PG_STAGE_KIND_COUNT
} pg_stage_kind;

/* The kind's name as the results spell it ("assemble", ...; "?" out of range). from_name: back
 * from that spelling; false (*out untouched) for any other text or NULL. */
const char *pg_stage_kind_name(pg_stage_kind k);
bool pg_stage_kind_from_name(const char *name, pg_stage_kind *out);
/* "pass", "fail", "error", "skipped" back to the status; false (*out untouched) otherwise. */
bool pg_stage_status_from_name(const char *name, pg_res_status *out);

/* One stage. */
typedef struct {
    pg_stage_kind kind;
    pg_res_status status;
    char *message;      /* owned, never NULL: as written into the record (valid UTF-8) */
    double duration_s;  /* as written: rounded to the microsecond */
    json_t *record;     /* write-only: the stage's results record (one reference owned) */
    json_t *details;    /* write-only: the record's "details" object (borrowed from record) */
} pg_stage_entry;

/* A new entry with a new record {"stage": name, "status": "skipped", "message": "",
 * "duration_s": 0.0, "details": {}}, in no ledger. NULL when out of memory. Free with
 * pg_stage_entry_free (the record lives on where it was added to the results). */
pg_stage_entry *pg_stage_entry_new(pg_stage_kind kind);
/* An entry for a record written elsewhere (the instructions stage's writer, a worker's record
 * as decoded): takes the reference to record; details may be NULL (nothing to write into);
 * status, message (copied; NULL = "") and duration_s as the record says them. NULL when out of
 * memory or record is NULL (the reference is released then). */
pg_stage_entry *pg_stage_entry_wrap(pg_stage_kind kind, json_t *record, json_t *details,
                                    pg_res_status status, const char *message,
                                    double duration_s);
void pg_stage_entry_free(pg_stage_entry *e);
/* Set the status ("pass", "fail", "error" or "skipped"; anything else is recorded as "error"),
 * duration (rounded to the microsecond) and message (printf format; cut at a whole character
 * past 4095 bytes; invalid UTF-8 becomes U+FFFD) of the entry and of its record alike. A NULL
 * entry (out of memory, a full ledger) does nothing. */
void pg_stage_finish(pg_stage_entry *e, const char *status, double duration_s, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
/* The typed fields only, for a record its own writer has just rewritten with the same status,
 * message and duration (the instructions stage). NULL e does nothing. */
void pg_stage_entry_note(pg_stage_entry *e, pg_res_status status, const char *message,
                         double duration_s);
/* The record's details object to write into (borrowed; NULL for a NULL entry). */
json_t *pg_stage_details(pg_stage_entry *e);
/* Status name and message of e ("" for a NULL entry, which matches no status). */
const char *pg_stage_status(const pg_stage_entry *e);
const char *pg_stage_message(const pg_stage_entry *e);
/* e is of kind k with status st (false for NULL). */
bool pg_stage_is(const pg_stage_entry *e, pg_stage_kind k, pg_res_status st);

/* The stages of one owner (a submission, one workload) in the order they were recorded, and the
 * owner's JSON "stages" array they are appended to. Zero-initialized: empty, no array. */
#define PG_LEDGER_MAX 64
typedef struct {
    pg_stage_entry **items; /* owned, each entry owned */
    size_t n, cap;
    json_t *array;          /* write-only: the results' "stages" array (one reference owned);
                               NULL: entries are kept typed only */
} pg_ledger;

/* Start an empty ledger writing into array (its reference is taken; NULL allowed). Releases
 * whatever l held before. */
void pg_ledger_init(pg_ledger *l, json_t *array);
/* Free every entry and drop the array's reference; l is empty again. */
void pg_ledger_release(pg_ledger *l);
/* Append e (taken) and its record to the array. Returns e, or NULL when out of memory or at
 * PG_LEDGER_MAX entries (e is freed then; its record is not in the results). NULL e: NULL. */
pg_stage_entry *pg_ledger_push(pg_ledger *l, pg_stage_entry *e);
/* pg_ledger_push(l, pg_stage_entry_new(kind)). */
pg_stage_entry *pg_ledger_begin(pg_ledger *l, pg_stage_kind kind);
/* Entry i (NULL past the end), the last entry (NULL when empty), and the first / last entry of
 * kind k (NULL when none). All borrowed from l. */
pg_stage_entry *pg_ledger_at(const pg_ledger *l, size_t i);
pg_stage_entry *pg_ledger_last(const pg_ledger *l);
pg_stage_entry *pg_ledger_find(const pg_ledger *l, pg_stage_kind k);
pg_stage_entry *pg_ledger_find_last(const pg_ledger *l, pg_stage_kind k);

#endif
