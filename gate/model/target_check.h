/* The static half of instruction verification: each target of a target set (targets.h) looked
 * up in the PTX instruction inventory (ptx/inventory.h) and in the SASS opcode inventory of the
 * cubin (ptx/sass_listing.h). Pure: data in, per-target findings out.
 *
 * A PTX instruction counts for a target when the target's pattern matches its mnemonic AND the
 * table classifies it into the target's family (so "cp.async" is not proven by a
 * cp.async.bulk.tensor, which is a more specific family). A SASS instruction counts when its
 * opcode family is one of the target's SASS families.
 * Reasons: absent_in_ptx (no PTX instruction counts), other_sass_family (PTX has it, the cubin
 * has none of the target's SASS families but others of the same PTX family: an e4m3 task's
 * QGMMA wanted, HGMMA made, because the wgmma's operand types are not the task's),
 * removed_by_ptxas (PTX has it, the disassembled cubin has no SASS of its family at all).
 * Without a listing the SASS part is "not checked", which is never a pass. */
#ifndef PG_MODEL_TARGET_CHECK_H
#define PG_MODEL_TARGET_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "../ptx/inventory.h"
#include "../ptx/sass_listing.h"
#include "arch_table.h"
#include "targets.h"

#define PG_TC_MAX_LINES 8   /* line numbers kept per mnemonic */
#define PG_TC_MAX_GROUPS 4  /* mnemonics kept per list (found, nearest) */
#define PG_TC_MAX_OPCODES 8 /* distinct SASS opcodes kept per target */

/* One distinct PTX mnemonic: how often it occurs and where (first lines). */
typedef struct {
    const char *mnemonic; /* borrowed from the PTX inventory */
    size_t count;
    int lines[PG_TC_MAX_LINES];
    int n_lines;
    int relation;         /* nearest only: 0 same family (other modifiers), 1 same group of the
                             table ("tensor_core_mma"), 2 same opcode */
} pg_tc_mnemonic;

typedef struct {
    char opcode[64];      /* "HGMMA.64x128x16.F32.BF16" */
    size_t count;
} pg_tc_opcode;

typedef struct {
    const pg_target *target;          /* borrowed from the set */
    /* PTX */
    size_t ptx_count;                 /* instructions that count for the target */
    int ptx_lines[PG_TC_MAX_LINES];   /* the first lines where they are, ascending */
    int n_ptx_lines;
    pg_tc_mnemonic found[PG_TC_MAX_GROUPS];   /* their mnemonics, by first line */
    int n_found;
    size_t found_kinds;               /* distinct mnemonics in all (n_found keeps the first) */
    pg_tc_mnemonic nearest[PG_TC_MAX_GROUPS]; /* related instructions that do not count, by
                                                 relation then first line */
    int n_nearest;
    /* SASS */
    bool sass_checked;                /* a listing was given */
    size_t sass_count;                /* instructions of the target's SASS families */
    pg_tc_opcode opcodes[PG_TC_MAX_OPCODES]; /* most frequent first, ties by first appearance */
    int n_opcodes;
    size_t opcode_kinds;              /* distinct opcodes in all */
    /* SASS of the PTX family's other SASS families (the arch table's, not the target's): the
     * most frequent one and how many instructions of them in all */
    char other_family[PG_SASS_FAMILY_MAX];
    size_t other_family_count;
    const char *reason;               /* NULL, "absent_in_ptx", "other_sass_family" or
                                         "removed_by_ptxas" (static strings) */
} pg_tc_result;

/* Check every target of set: out has set->n_targets entries (caller-owned). sass may be NULL
 * (no disassembly: sass_checked false). Errors: PG_ERR_INFRA when out of memory. */
pg_status pg_target_check(const pg_target_set *set, const pg_arch_table *table,
                          const pg_ptx_inventory *ptx, const pg_sass_listing *sass,
                          pg_tc_result *out, pg_diag *d);

/* One line for reports (n bytes, always NUL-terminated), e.g.
 * "wgmma.mma_async absent in PTX; nearest: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
 *  ×64 at lines 876, 880, 884, 888, …" (at most 4 lines per mnemonic, then "…");
 * "wgmma.mma_async in PTX ×8 (lines 120, 131) but no HGMMA in the SASS: removed by ptxas";
 * "wgmma.mma_async in PTX ×8 (lines 120, 131) but no QGMMA in the SASS, only HGMMA of the same
 *  PTX family (16 instructions: operand types other than the target's)" (the most frequent
 *  other family named; the count is of all of them);
 * "wgmma.mma_async: PTX ×8 (lines 120, 131), SASS HGMMA.64x128x16.F32.BF16 ×16". */
void pg_tc_describe(const pg_tc_result *r, char *buf, size_t n);

#endif
