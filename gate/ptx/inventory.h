/* The instruction inventory of a PTX module: every instruction statement with its mnemonic,
 * predicate, 1-based line and enclosing function, and every function the module declares or
 * defines. Built on the PTX tokenizer (ptx_lexer.h), so comments, strings and directives never
 * count as instructions.
 *
 * Statements (PTX ISA, "Statements"):
 * - directive: a word starting with '.'; it ends at ';' or at the end of its line, except that
 *   a function header (.entry/.func, possibly spanning lines, with .maxntid and similar lines
 *   after it) ends at ';' (a declaration) or at the '{' that opens its body, and an initializer
 *   "= { ... }" may span lines;
 * - label: a word followed by ':' (an instruction may follow on the same line);
 * - instruction: an optional guard "@p" / "@!p", then the mnemonic word, then operands up to
 *   ';' (operands may span lines and hold vector braces "{%r1, %r2}");
 * - "{" and "}" at statement level open and close a scope (a function body, or a nested block
 *   such as the ones nvcc emits around inline asm and calls);
 * - a line starting with '#' is a preprocessor line: skipped, and uses_preprocessor is set
 *   (macros can hide instructions from any text inventory). */
#ifndef PG_PTX_INVENTORY_H
#define PG_PTX_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* Hard limits; a module over them is refused with PG_ERR_INPUT. */
#define PG_PTX_MAX_INSTRS (4u << 20)
#define PG_PTX_MAX_FUNCS 4096
#define PG_PTX_MAX_MNEMONIC 256 /* bytes of one mnemonic, NUL included */

typedef struct {
    const char *mnemonic;  /* "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"; one shared
                              copy per distinct mnemonic, owned by the inventory */
    int line;              /* 1-based line of the mnemonic */
    char predicate[32];    /* the guard register without '@' and '!' ("%p1"); "" when none */
    bool negated;          /* "@!p" */
    int function;          /* index into functions; -1 outside any function body */
} pg_ptx_instr;

typedef struct {
    char name[256];
    int line;              /* line of the first declaration or definition */
    bool is_entry;         /* .entry (else .func) */
    bool is_extern;        /* some declaration carries .extern */
    bool has_body;         /* defined in this module: a '{' body follows a header */
    bool referenced;       /* named by an instruction after its declaration ("call f, ...",
                              "mov.u64 %rd1, f") */
} pg_ptx_function;

typedef struct {
    pg_ptx_instr *instrs;  /* n_instrs, in source order */
    size_t n_instrs;
    pg_ptx_function *functions; /* n_functions, in order of first appearance, names unique */
    size_t n_functions;
    bool uses_preprocessor;
    char **mnemonics;      /* the distinct mnemonics, in order of first appearance */
    size_t n_mnemonics;
} pg_ptx_inventory;

/* Build the inventory of text[0..len) into *out (zeroed first; always safe to free).
 * file names the PTX in messages (may be NULL).
 * Errors: PG_ERR_INPUT with file and line for an unterminated comment or string, an instruction
 * without its ';', a '}' without '{', a '{' never closed, a mnemonic over PG_PTX_MAX_MNEMONIC
 * bytes or a module over the limits; PG_ERR_INFRA when out of memory. */
pg_status pg_ptx_inventory_build(const char *text, size_t len, const char *file,
                                 pg_ptx_inventory *out, pg_diag *d);

void pg_ptx_inventory_free(pg_ptx_inventory *inv);

/* Index of the function named name, or -1. */
int pg_ptx_inventory_find_function(const pg_ptx_inventory *inv, const char *name);

#endif
