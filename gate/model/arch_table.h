/* Per-architecture PTX → SASS family tables (data/arch/<arch>.json, docs/instructions.md,
 * schemas/arch.schema.json): for each PTX instruction family, an opcode plus a set of required
 * modifiers, the SASS opcode families whose presence in the disassembled cubin proves that the
 * family survived ptxas. One file per architecture, facts only, no code.
 *
 * Classification: an instruction belongs to the MOST SPECIFIC family whose pattern matches it
 * (the one with the most required modifiers; among equals, the first in the file). So
 * "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" is a
 * cp.async.bulk.tensor, not a cp.async, and "cp.async.commit_group" is its own family. */
#ifndef PG_MODEL_ARCH_TABLE_H
#define PG_MODEL_ARCH_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../ptx/pattern.h"

#define PG_ARCH_MAX_FAMILIES 256
#define PG_ARCH_MAX_SASS 8   /* SASS families per PTX family */
#define PG_SASS_FAMILY_MAX 24 /* bytes of a SASS family name, NUL included */

typedef struct {
    pg_instr_pattern ptx;                          /* "wgmma.mma_async" */
    char sass[PG_ARCH_MAX_SASS][PG_SASS_FAMILY_MAX]; /* {"HGMMA", "QGMMA", ...}; may be empty:
                                                      the family is then known (it classifies
                                                      instructions) but no SASS family proves it */
    int n_sass;
    char group[48];  /* related families share a group ("tensor_core_mma"); "" when none */
    char note[256];  /* "" when none */
} pg_arch_family;

/* The launch limits every GPU of the architecture shares, checked offline (launch_limits.h)
 * when no GPU is at hand ("launch_limits" in the file; present false when the file has none).
 * Units: threads, blocks, bytes. */
typedef struct {
    bool present;
    char source[512];                /* where the numbers come from */
    int max_threads_per_block;       /* 1024 */
    int max_block_dim[3];            /* 1024, 1024, 64 */
    int max_grid_dim[3];             /* 2^31 - 1, 65535, 65535 */
    int max_shared_per_block_optin;  /* bytes of shared memory per block with the opt-in
                                        (232448 = 227 KiB on sm_90a) */
    int max_cluster_blocks_portable; /* blocks per cluster without the opt-in (8) */
    int max_cluster_blocks;          /* with the non-portable opt-in, which ptxgate sets (16) */
} pg_arch_launch_limits;

/* The part whose numbers stand in for a GPU when none is at hand ("reference_device"; present
 * false when the file has none): the device symbols of manifest expressions take them, marked
 * assumed (device_symbols.h). */
typedef struct {
    bool present;
    char name[64];      /* "H200 SXM" */
    char source[512];   /* where the numbers come from */
    int num_sms;        /* 132 */
    int64_t l2_bytes;   /* 62914560 */
    int cluster_sms;    /* SMs that clusters of one launch can fill at one block per SM (optional
                           "cluster_sms", default num_sms): the offline max_active_clusters is
                           cluster_sms / cluster size (device_symbols.h) */
} pg_arch_reference_device;

typedef struct {
    char file[1024];              /* path as loaded */
    char arch[32];                /* "sm_90a"; equals the file name without .json */
    char source[512];             /* where the facts come from */
    pg_arch_family *families;     /* n_families, in file order, owned */
    int n_families;
    pg_arch_launch_limits launch; /* "launch_limits" */
    pg_arch_reference_device ref; /* "reference_device" */
} pg_arch_table;

/* Load and validate one table file. *out is owned by the caller (pg_arch_table_free); NULL on
 * error. Validates (each error PG_ERR_INPUT naming path, the JSON path and what was expected):
 * unknown keys; schema_version 1; arch a valid architecture name equal to the file name;
 * description and source strings; families 1..PG_ARCH_MAX_FAMILIES, each with a valid "ptx"
 * pattern (pattern.h) not repeated in the file, "sass" 0..PG_ARCH_MAX_SASS unique names of
 * [A-Z][A-Z0-9_]*, optional "group" ([a-z][a-z0-9_]*) and "note"; optional "launch_limits"
 * (pg_arch_launch_limits: all its keys, "source" a non-empty string, the others integers 1 to
 * 2^31 - 1, dimensions arrays of 3, max_cluster_blocks >= max_cluster_blocks_portable);
 * optional "reference_device" (all of "name", "source", "num_sms" 1 to 2^31 - 1, "l2_bytes"
 * 1 to 2^40; optional "cluster_sms" 1 to num_sms). */
pg_status pg_arch_table_load_file(const char *path, pg_arch_table **out, pg_diag *d);

/* Load dir/<arch>.json. A missing file is PG_ERR_INPUT ("no instruction table for sm_89 in
 * DIR (tables: sm_100a, sm_90a)"), file and field left empty for the caller to fill. */
pg_status pg_arch_table_load(const char *dir, const char *arch, pg_arch_table **out,
                             pg_diag *d);

void pg_arch_table_free(pg_arch_table *t);

/* Index of the family an instruction mnemonic belongs to (see the top of this file), or -1. */
int pg_arch_table_classify(const pg_arch_table *t, const char *mnemonic);

/* Index of the most specific family whose pattern contains p (every mnemonic p matches belongs
 * to it or to a more specific family), or -1: the family a target pattern names. */
int pg_arch_table_resolve(const pg_arch_table *t, const pg_instr_pattern *p);

/* True when some family lists the SASS family name. */
bool pg_arch_table_knows_sass(const pg_arch_table *t, const char *sass_family);

#endif
