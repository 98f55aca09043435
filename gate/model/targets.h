/* Target instructions of a task for one architecture (task.json "targets", docs/formats.md),
 * parsed and checked against that architecture's PTX → SASS table (arch_table.h).
 *
 * A target is a PTX instruction pattern: an opcode plus a set of required modifiers
 * ("wgmma.mma_async", "cp.async.bulk.tensor", "mma.sync.m16n8k16"). It names the most specific
 * family of the table that contains it (arch_table.h, pg_arch_table_resolve); the SASS families
 * that prove it come from that family. The task's optional "sass" list narrows them: when some
 * of a target's families are listed there, only those prove it ("HGMMA" keeps a bf16 task's
 * wgmma.mma_async from being proven by the fp8 QGMMA). */
#ifndef PG_MODEL_TARGETS_H
#define PG_MODEL_TARGETS_H

#include <stdbool.h>

#include "../base/diag.h"
#include "../ptx/pattern.h"
#include "arch_table.h"
#include "task.h"

#define PG_MAX_TARGETS 16 /* PTX targets per architecture */

typedef struct {
    char field[96];                                   /* "targets.sm_90a.ptx[0]" */
    pg_instr_pattern pattern;                         /* as written: pattern.text */
    int family;                                       /* index into the arch table */
    char sass[PG_ARCH_MAX_SASS][PG_SASS_FAMILY_MAX];  /* SASS families that prove it (>= 1) */
    int n_sass;
} pg_target;

typedef struct {
    char arch[32];
    pg_target targets[PG_MAX_TARGETS];
    int n_targets;
} pg_target_set;

/* Resolve the task's target set for arch against table (whose arch must equal arch) into *out.
 * *found is false (and PG_OK) when the task lists no set for arch or the set's "ptx" list is
 * empty. Errors, PG_ERR_INPUT with file = the task file and field = the bad entry
 * ("targets.sm_90a.ptx[1]", "targets.sm_90a.sass[0]"): a string that is not a pattern; a
 * pattern no family of the table contains ("unknown PTX instruction family"), listing the
 * table's families; a family without SASS families (nothing can prove it); a pattern listed
 * twice; more than PG_MAX_TARGETS; a "sass" name the table does not know, or one that proves
 * none of the set's PTX targets. */
pg_status pg_targets_resolve(const pg_task *task, const char *arch, const pg_arch_table *table,
                             pg_target_set *out, bool *found, pg_diag *d);

/* Check every target set of the task against the table of its architecture in arch_dir
 * (a missing table is an error at "targets.<arch>"), so a task with a bad target fails before
 * anything runs, whatever architecture this run uses. Errors as above. */
pg_status pg_targets_check_task(const pg_task *task, const char *arch_dir, pg_diag *d);
/* The task's target set for arch lists at least one PTX target (false without targets, or
 * without a set for arch). */
bool pg_targets_lists_ptx(const pg_task *task, const char *arch);

#endif
