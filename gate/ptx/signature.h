/* .entry signatures and module directives (.version, .target, .address_size) read from PTX text.
 *
 * A small real tokenizer, not a line matcher: // and block comments and string literals are
 * skipped, so a comment that mentions ".entry fake(" is never taken for a kernel. Understood:
 * .visible/.weak/.extern linkage; .entry with or without a parameter list; .param with .align N;
 * the types .u8..u64, .s8..s64, .b8..b128, .f16, .f16x2, .bf16, .bf16x2, .f32, .f64, .pred; array
 * parameters "name[128]" (also "name[2][3]"); pointer modifiers (".ptr.global.align 16", spaced or
 * not); and the performance directives between the parameter list and the body (.maxntid,
 * .reqntid, .minnctapersm, .maxnreg, .explicitcluster, .reqnctapercluster, .maxclusterrank, and
 * any other directive, which is skipped). Bodies are skipped by brace matching. */
#ifndef PG_PTX_SIGNATURE_H
#define PG_PTX_SIGNATURE_H

#include <stdbool.h>

#include "../base/diag.h"

/* Hard limits: a module over them is refused with PG_ERR_INPUT. */
#define PG_PTX_MAX_ENTRIES 4096
#define PG_PTX_MAX_PARAMS 4096 /* per entry */

typedef struct {
    char name[256];
    char type[16];        /* ".u64", ".b8" */
    unsigned size_bytes;  /* element size * array length (all dimensions) */
    unsigned align_bytes; /* .align N when given, otherwise the element size */
    unsigned array_len;   /* 0 = scalar; product of all dimensions for "x[2][3]" */
    int line;             /* 1-based line of the .param */
} pg_ptx_param;

typedef struct {
    char name[256];
    pg_ptx_param *params; /* n_params items, owned by the module info */
    int n_params;
    int line;             /* 1-based line of the .entry directive */
    bool visible;         /* declared with .visible */
    unsigned reqntid[3];  /* all 0 when absent; missing dimensions are 1 (".reqntid 128" = 128,1,1) */
    unsigned maxntid[3];  /* same convention */
} pg_ptx_entry;

typedef struct {
    char version[16];     /* ".version 8.7" -> "8.7"; "" if absent */
    int version_line;     /* 0 if absent */
    char target[128];     /* ".target sm_90a, debug" -> "sm_90a" (first target word) */
    char targets_raw[128];/* the whole list as written: "sm_90a, debug" */
    int target_line;      /* 0 if absent */
    int address_size;     /* 32 or 64; 0 if absent */
    pg_ptx_entry *entries;/* n_entries items in source order, owned by the module info */
    int n_entries;
    bool uses_device_runtime; /* names a CUDA device runtime function (cudaLaunchDevice, ...) */
} pg_ptx_module_info;

/* Parse PTX text into *out. ptx: NUL-terminated text; file: the name used in messages only (may be
 * NULL). Only defined entries (with a body) are listed; an ".extern .entry" declaration is checked
 * but not listed. Text without any .entry is OK (n_entries 0); the caller decides.
 * *out is always initialized; on success release it with pg_ptx_module_info_free, on error it is
 * left empty (nothing to free, freeing is harmless).
 * Errors: PG_ERR_INPUT with file and line for an unterminated comment or string, a malformed
 * .param list, a missing ')' or '}', an unknown parameter type, a name over 255 characters, a
 * duplicate entry or a module over the limits above; PG_ERR_INFRA when out of memory. */
pg_status pg_ptx_parse_signatures(const char *ptx, const char *file, pg_ptx_module_info *out,
                                  pg_diag *d);

/* Release everything owned by m and leave it empty. m may be NULL. */
void pg_ptx_module_info_free(pg_ptx_module_info *m);

/* The entry called name, or NULL if none. The pointer lives as long as m. */
const pg_ptx_entry *pg_ptx_find_entry(const pg_ptx_module_info *m, const char *name);

#endif
