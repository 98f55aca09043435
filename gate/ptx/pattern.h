/* PTX instruction patterns: an opcode plus a SET of required modifiers ("wgmma.mma_async",
 * "cp.async.bulk.tensor"), and matching them against instruction mnemonics as PTX writes them
 * ("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16").
 *
 * A mnemonic splits at '.' into its opcode (the first component: "wgmma", "cp", "mma") and its
 * modifiers (the rest: "mma_async", "sync", "aligned", ...). A pattern matches a mnemonic when
 * the opcodes are equal and every modifier of the pattern is among the mnemonic's modifiers, in
 * any order (valid PTX writes modifiers in different orders). Never a substring test:
 * "mma.sync" does not match "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32" (its opcode is
 * "wmma"). */
#ifndef PG_PTX_PATTERN_H
#define PG_PTX_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#define PG_PATTERN_MAX_TEXT 128 /* bytes of a pattern as written, NUL included */
#define PG_PATTERN_MAX_MODS 12  /* required modifiers of one pattern */
#define PG_PATTERN_MAX_PART 48  /* bytes of one component, NUL included */

typedef struct {
    char text[PG_PATTERN_MAX_TEXT];                   /* as written: "cp.async.bulk.tensor" */
    char opcode[PG_PATTERN_MAX_PART];                 /* "cp" */
    char mods[PG_PATTERN_MAX_MODS][PG_PATTERN_MAX_PART]; /* {"async", "bulk", "tensor"}, unique */
    int n_mods;
} pg_instr_pattern;

/* Parse text into *out. The opcode is [a-z][a-z0-9_]*; each modifier is one or more of
 * [A-Za-z0-9_] and "::" between such runs ("shared::cta", "kind::f16"); no empty component,
 * no duplicate modifier, at most PG_PATTERN_MAX_MODS modifiers and PG_PATTERN_MAX_PART - 1
 * bytes per component. Returns false with a one-line reason in err (n bytes) otherwise. */
bool pg_pattern_parse(const char *text, pg_instr_pattern *out, char *err, size_t n);

/* True when p matches the mnemonic (opcode equal, p's modifiers a subset of the mnemonic's
 * modifiers). mnemonic: the dotted instruction word without predicate or operands. */
bool pg_pattern_matches(const pg_instr_pattern *p, const char *mnemonic);

/* True when every mnemonic `specific` matches is matched by `general` too: same opcode and
 * general's modifiers a subset of specific's. */
bool pg_pattern_contains(const pg_instr_pattern *general, const pg_instr_pattern *specific);

/* The opcode of a mnemonic (its first dotted component) into out (n bytes). */
void pg_mnemonic_opcode(const char *mnemonic, char *out, size_t n);

#endif
