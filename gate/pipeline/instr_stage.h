/* The instructions stage's result as a typed value (issue 16): filled once per submission by
 * the static half (stage_instructions.c), copied per workload, completed by the runtime half
 * (instr_runtime.c), and written as the stage record of docs/results.md by
 * pg_instr_stage_json. Nothing here reads a record back: the parts only ever written (the PTX
 * and SASS listings' details, the verification run's details) are kept as JSON fragments that
 * the writer copies out unchanged. */
#ifndef PG_INSTR_STAGE_H
#define PG_INSTR_STAGE_H

#include <stdbool.h>

#include <jansson.h>

#include "model/arch_table.h"
#include "model/targets.h"

#define PG_INSTR_TEXT_MAX 256    /* bytes of a target pattern or family name, NUL included */
#define PG_INSTR_REASON_MAX 2400 /* bytes of a runtime reason ("unknown": why), NUL included */
#define PG_INSTR_SUMMARY_MAX 2048
#define PG_INSTR_MESSAGE_MAX 4096

/* One target's record (details.targets[i]). Strings are NUL-terminated, "" where the record has
 * null unless a flag says otherwise. */
typedef struct {
    char target[PG_INSTR_TEXT_MAX];  /* the pattern as the task writes it, "wgmma.mma_async" */
    char family[PG_INSTR_TEXT_MAX];  /* its PTX family in the arch table */
    char sass_families[PG_ARCH_MAX_SASS][PG_SASS_FAMILY_MAX]; /* "HGMMA", ... */
    int n_sass;
    char status[16];                 /* "pass", "fail" or "unknown" */
    char reason[32];                 /* "absent_in_ptx", "other_sass_family",
                                        "removed_by_ptxas", "never_executed",
                                        "coverage_too_low"; "" = null */
    char summary[PG_INSTR_SUMMARY_MAX];
    long long ptx_count;             /* PTX instructions that count for the target */
    bool sass_counted;               /* sass.count is a number (the SASS part was checked) */
    long long sass_count;
    json_t *ptx;                     /* owned: the record's "ptx" object as written (count,
                                        lines, mnemonics, nearest); NULL writes {} */
    json_t *sass;                    /* owned: the record's "sass" object (status, count,
                                        opcodes); NULL writes {} */
    /* runtime: status "not measured" (static), "measured" or "unknown"; numbers NaN = null */
    char rt_status[16];
    double rt_executed, rt_coverage, rt_min_coverage;
    bool rt_has_reason;              /* runtime.reason is a string (rt_reason), else null */
    char rt_reason[PG_INSTR_REASON_MAX];
} pg_instr_target;

/* The stage record. */
typedef struct pg_instr_stage {
    char status[16];                 /* "pass", "fail", "error" or "skipped" */
    char message[PG_INSTR_MESSAGE_MAX];
    double duration_s;               /* written as is (callers round) */
    char policy[16];                 /* details.policy: "require", "warn" or "off" */
    char arch[64];                   /* details.arch */
    json_t *table, *ptx, *sass;      /* owned: details.table, .ptx, .sass as written; NULL =
                                        absent (the check did not run) */
    char sass_status[16];            /* details.sass.status ("checked", "skipped", "error"; ""
                                        when absent) */
    char sass_reason[1024];          /* details.sass.reason ("" = null) */
    bool has_targets;                /* details.targets and details.rule are written */
    int n_targets;
    pg_instr_target targets[PG_MAX_TARGETS];
    json_t *runtime;                 /* owned: details.runtime of the verification run, or NULL */
} pg_instr_stage;

/* The rule text written as details.rule. */
extern const char pg_instr_rule[];

/* A new zeroed stage ("skipped", message "", no details but policy and arch ""), or NULL when
 * out of memory. Free with pg_instr_stage_free. */
pg_instr_stage *pg_instr_stage_new(void);
/* A deep copy (fragments copied), or NULL when out of memory or st is NULL. */
pg_instr_stage *pg_instr_stage_copy(const pg_instr_stage *st);
/* Release st and its fragments; NULL is fine. */
void pg_instr_stage_free(pg_instr_stage *st);

/* Default a target's runtime part: "not measured", numbers and reason null. */
void pg_instr_target_runtime_clear(pg_instr_target *t);

/* Derive status and message from the targets under the policy (docs/instructions.md): a failed
 * target fails the stage (policy warn: a pass with a warning), an unchecked SASS part makes it
 * skipped (error when the disassembler failed), else pass; the message names the targets and,
 * when measured, their executed counts and coverage. */
void pg_instr_stage_finish(pg_instr_stage *st);

/* The runtime half's entry point (docs/instructions.md, "Runtime fields"): record for target
 * (its pattern as the task writes it, "wgmma.mma_async") the executed count of its SASS
 * instructions over the submission's launches of one workload, and coverage = executed tensor
 * work / required work (NaN when not computed) against min_coverage (e.g. 0.99; NaN: no
 * requirement). Sets the target's runtime {status "measured", executed_count, coverage,
 * min_coverage, reason}: reason never_executed when executed <= 0, coverage_too_low when
 * coverage < min_coverage, else null; a runtime reason fails the target unless a static reason
 * already did; then the stage's status and message are derived again (pg_instr_stage_finish).
 * Non-finite executed records null (not measured). An unknown target name changes nothing. */
void pg_instr_record_runtime(pg_instr_stage *st, const char *target, double executed,
                             double coverage, double min_coverage);

/* Set status, message (printf format; cut at a whole character when longer than the buffer)
 * and duration (rounded to the microsecond), as pg_stage_finish does for a record. */
void pg_instr_stage_end(pg_instr_stage *st, const char *status, double duration_s,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The stage record {"stage": "instructions", status, message, duration_s, details: {policy,
 * arch[, table, ptx, sass][, targets, rule][, runtime]}} with the key order of
 * docs/results.md. New reference; NULL when out of memory. */
json_t *pg_instr_stage_json(const pg_instr_stage *st);

#endif
