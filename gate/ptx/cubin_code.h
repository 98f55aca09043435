/* Whether two cubins hold the same kernels: byte-identical, or equal in every ELF section that
 * carries code or launch data, ignoring what depends on the source path (debug line tables,
 * debug strings, the embedded PTX text with its .file names). */
#ifndef PG_PTX_CUBIN_CODE_H
#define PG_PTX_CUBIN_CODE_H

#include <stddef.h>

#include "base/diag.h"

typedef enum {
    PG_CUBIN_DIFFERENT,   /* the kernels may differ (or a file is not a cubin we can read) */
    PG_CUBIN_SAME_BYTES,  /* byte-identical files */
    PG_CUBIN_SAME_CODE,   /* the code sections are equal; only path-dependent sections differ */
} pg_cubin_match;

/* "bytes", "code_sections" or NULL for PG_CUBIN_DIFFERENT (static strings; the results'
 * accepted_kernel.identical_by). */
const char *pg_cubin_match_name(pg_cubin_match m);

/* Compare cubins a (na bytes) and b (nb bytes). The code sections are those whose names start
 * with ".text.", ".nv.info", ".nv.shared.", ".nv.constant", ".nv.global", ".nv.callgraph",
 * ".rel.text.", ".rela.text.", ".rel.nv.", ".rela.nv.", and ".symtab" and ".strtab" (kernel
 * names and the symbols relocations use). PG_CUBIN_SAME_CODE needs: the same ELF class, machine,
 * type and flags (the SASS architecture); the same set of code-section names; for each, the same
 * type, flags, size, alignment, entry size, the same linked section (by name), the same info
 * (by name when it is a section index, SHF_INFO_LINK), and the same bytes. Debug sections
 * (.debug_*, .nv_debug_*), notes and relocations of debug sections are not compared.
 * The input is untrusted: every offset and size is checked against the file, and anything that
 * is not a well-formed 64-bit little-endian ELF gives PG_CUBIN_DIFFERENT (conservative: the
 * candidate is then timed). *out is always set. Errors: none besides that (returns PG_OK). */
pg_status pg_cubin_compare(const unsigned char *a, size_t na, const unsigned char *b, size_t nb,
                           pg_cubin_match *out, pg_diag *d);

#endif
