/* SASS listings as `nvdisasm --print-code` and `cuobjdump -sass` print them, turned into an
 * opcode inventory: one record per machine instruction with its opcode, opcode family, guard
 * predicate, address and function.
 *
 * What is read:
 * - an instruction line starts (after blanks) with its address in a comment (slash, star, hex
 *   digits, star, slash: "/ *0a80* /" without the blanks), then an optional '{' or '}'
 *   (dual-issue braces of older architectures), an optional guard ("@P0", "@!P0", "@UP0",
 *   "@!UPT"), then the opcode ("HGMMA.64x128x16.F32.BF16"), operands, and ';' or '}'; a
 *   trailing encoding comment ("/ * 0x000fe40000000800 * /") is ignored;
 * - the opcode family is the opcode's first dotted component: HGMMA.64x128x16.F32.BF16 → HGMMA,
 *   UTMALDG.2D → UTMALDG, EXIT → EXIT;
 * - functions: nvdisasm's ".section .text.<name>" (only .text sections hold code: data lines
 *   in other sections, which also carry addresses, are skipped) and cuobjdump's
 *   "Function : <name>";
 * - the first ".headerflags" line is kept; labels (".L_x_12:"), directives, "//" comments and
 *   cuobjdump's header and separator lines are skipped.
 * Opcodes are upper-case words ([A-Z][A-Z0-9_]*, then dotted parts of [A-Za-z0-9_]); a line
 * whose text after the address is anything else (a ".byte" data line) is not an instruction. */
#ifndef PG_PTX_SASS_LISTING_H
#define PG_PTX_SASS_LISTING_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

#define PG_SASS_MAX_INSTRS (8u << 20)
#define PG_SASS_MAX_FUNCS 4096

typedef struct {
    char opcode[64];    /* "HGMMA.64x128x16.F32.BF16" (cut at 63 bytes) */
    char family[32];    /* "HGMMA" */
    char predicate[16]; /* "P0", "!UP0", "" when unguarded */
    long address;       /* from the address comment */
    int line;           /* 1-based line in the listing */
    int function;       /* index into functions; -1 before any function header */
} pg_sass_instr;

typedef struct {
    pg_sass_instr *instrs;  /* n_instrs in listing order */
    size_t n_instrs;
    char (*functions)[256]; /* n_functions names in order of appearance */
    size_t n_functions;
    char headerflags[256];  /* the first .headerflags value without quotes; "" when absent */
} pg_sass_listing;

/* Parse text[0..len) into *out (zeroed first; always safe to free). file names the listing in
 * messages (may be NULL). Errors: PG_ERR_INPUT when the listing is over the limits above;
 * PG_ERR_INFRA when out of memory. A listing without instructions is not an error
 * (n_instrs 0; the caller decides). */
pg_status pg_sass_listing_parse(const char *text, size_t len, const char *file,
                                pg_sass_listing *out, pg_diag *d);

void pg_sass_listing_free(pg_sass_listing *l);

/* Instructions of family `family` ("HGMMA"). */
size_t pg_sass_listing_count_family(const pg_sass_listing *l, const char *family);

#endif
