/* The instruction inventory of a PTX module (see inventory.h): a statement reader over the PTX
 * tokenizer. */
#include "inventory.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_lexer.h"
#include "../base/grow.h"
#include "../base/utf8.h"

#define MAX_TRACKED_DEPTH 64

/* An open-addressing table of indices + 1 into a list of names (0: an empty slot), linear
 * probing; n, its size, is 0 or a power of two. */
typedef struct {
    size_t *slots;
    size_t n;
} name_table;

typedef struct {
    pg_ptx_lexer lx;
    pg_ptx_inventory *inv;
    const char *file;
    pg_diag *d;
    size_t cap_instrs, cap_funcs, cap_mnemonics;
    name_table mnemonic_table; /* the set of mnemonics */
    name_table function_table; /* function names to their indices */
    int depth;          /* statement-level brace depth */
    int open_line[MAX_TRACKED_DEPTH];
    int pending;        /* function whose header ended at '{' about to be read, or -1 */
    int current;        /* function whose body is open, or -1 */
} builder;

static pg_status oom(builder *b)
{
    return pg_diag_set(b->d, PG_ERR_INFRA, b->file, 0, NULL,
                       "out of memory building the PTX instruction inventory");
}

static pg_status bad(builder *b, int line, const char *fmt, const char *arg)
{
    return pg_diag_set(b->d, PG_ERR_INPUT, b->file, line, NULL, fmt, arg);
}

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static const char *mnemonic_name(const builder *b, size_t index)
{
    return b->inv->mnemonics[index];
}

static const char *function_name(const builder *b, size_t index)
{
    return b->inv->functions[index].name;
}

typedef const char *(*name_of_fn)(const builder *b, size_t index);

/* Room in t for one more of count names: the table doubled (first slots when empty) and every
 * index placed again once it would be more than half full. False when out of memory (t then
 * as it was). */
static bool table_room(name_table *t, size_t count, size_t first, const builder *b,
                       name_of_fn name_of)
{
    if ((count + 1) * 2 <= t->n)
        return true;
    size_t n = t->n ? t->n * 2 : first;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->n; i++)
        if (t->slots[i]) {
            const char *m = name_of(b, t->slots[i] - 1);
            size_t j = hash(m, strlen(m)) & (n - 1);
            while (slots[j])
                j = (j + 1) & (n - 1);
            slots[j] = t->slots[i];
        }
    free(t->slots);
    t->slots = slots;
    t->n = n;
    return true;
}

/* The slot of t holding name s[0..len), else the empty slot where it would go (t->n > 0). */
static size_t table_slot(const name_table *t, const char *s, size_t len, const builder *b,
                         name_of_fn name_of)
{
    size_t j = hash(s, len) & (t->n - 1);
    for (; t->slots[j]; j = (j + 1) & (t->n - 1)) {
        const char *m = name_of(b, t->slots[j] - 1);
        if (strlen(m) == len && memcmp(m, s, len) == 0)
            break;
    }
    return j;
}

/* The shared copy of mnemonic s[0..n), or NULL when out of memory. */
static const char *intern(builder *b, const char *s, size_t n)
{
    pg_ptx_inventory *inv = b->inv;
    name_table *t = &b->mnemonic_table;
    if (!table_room(t, inv->n_mnemonics, 256, b, mnemonic_name))
        return NULL;
    size_t j = table_slot(t, s, n, b, mnemonic_name);
    if (t->slots[j])
        return inv->mnemonics[t->slots[j] - 1];
    char **p = pg_grow(inv->mnemonics, inv->n_mnemonics, &b->cap_mnemonics, 64, sizeof *p);
    if (!p)
        return NULL;
    inv->mnemonics = p;
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    inv->mnemonics[inv->n_mnemonics++] = copy;
    t->slots[j] = inv->n_mnemonics;
    return copy;
}

/* Index of function name[0..n), or -1. */
static int lookup_function(const builder *b, const char *name, size_t n)
{
    const name_table *t = &b->function_table;
    if (!t->n)
        return -1;
    size_t j = table_slot(t, name, n, b, function_name);
    return t->slots[j] ? (int)t->slots[j] - 1 : -1;
}

/* Enter function index (a name not in the table yet) into the function table. */
static bool fslots_add(builder *b, size_t index)
{
    name_table *t = &b->function_table;
    if (!table_room(t, b->inv->n_functions, 64, b, function_name))
        return false;
    const char *f = function_name(b, index);
    t->slots[table_slot(t, f, strlen(f), b, function_name)] = index + 1;
    return true;
}

/* Record a function header; merge with an earlier declaration of the same name. */
static pg_status add_function(builder *b, const pg_ptok *name, int line, bool is_entry,
                              bool is_extern, int *index)
{
    pg_ptx_inventory *inv = b->inv;
    char buf[256];
    if (name->len >= sizeof buf)
        return bad(b, line, "function name '%s…' is longer than 255 characters", "");
    memcpy(buf, name->text, name->len);
    buf[name->len] = '\0';
    int i = lookup_function(b, name->text, name->len);
    if (i < 0) {
        if (inv->n_functions >= PG_PTX_MAX_FUNCS)
            return bad(b, line, "more than 4096 functions%s", "");
        pg_ptx_function *p =
            pg_grow(inv->functions, inv->n_functions, &b->cap_funcs, 16, sizeof *p);
        if (!p)
            return oom(b);
        inv->functions = p;
        i = (int)inv->n_functions++;
        pg_ptx_function *f = &inv->functions[i];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", buf);
        f->line = line;
        if (!fslots_add(b, (size_t)i)) {
            inv->n_functions--;
            return oom(b);
        }
    }
    inv->functions[i].is_entry |= is_entry;
    inv->functions[i].is_extern |= is_extern;
    *index = i;
    return PG_OK;
}

/* A directive statement starting with word t (see inventory.h for where it ends). */
static pg_status read_directive(builder *b, pg_ptok t)
{
    bool is_func = false, is_entry = false, is_extern = false, assign = false, at_brace = false;
    bool have_name = false;
    pg_ptok name = {0};
    int paren = 0, brace = 0;
    for (pg_ptok u = t;; u = pg_ptx_lex_next(&b->lx)) {
        if (u.kind == PG_PTOK_WORD && paren == 0) {
            if (pg_ptok_is(&u, ".entry") || pg_ptok_is(&u, ".func")) {
                is_func = true;
                is_entry = pg_ptok_is(&u, ".entry");
            } else if (pg_ptok_is(&u, ".extern")) {
                is_extern = true;
            } else if (is_func && !have_name && u.text[0] != '.') {
                name = u;
                have_name = true;
            }
        } else if (u.kind == PG_PTOK_PUNCT) {
            char c = u.text[0];
            paren += c == '(' ? 1 : c == ')' && paren > 0 ? -1 : 0;
            assign |= c == '=';
            if (c == '{')
                brace++;
            else if (c == '}')
                brace--;
        }
        pg_ptok n = pg_ptx_lex_peek(&b->lx);
        if (n.kind == PG_PTOK_END || n.kind == PG_PTOK_ERROR)
            break;
        if (n.kind == PG_PTOK_NEWLINE && !is_func && paren == 0 && brace == 0)
            break;
        if (pg_ptok_is(&n, ";") && paren == 0 && brace == 0) {
            pg_ptx_lex_next(&b->lx);
            break;
        }
        if (pg_ptok_is(&n, "{") && paren == 0 && !assign) {
            at_brace = true;
            break;
        }
        if (pg_ptok_is(&n, "}") && brace == 0)
            break;
    }
    if (!is_func || !have_name)
        return PG_OK;
    int index = -1;
    pg_status st = add_function(b, &name, t.line, is_entry, is_extern, &index);
    if (st == PG_OK && at_brace && b->depth == 0)
        b->pending = index;
    return st;
}

/* An instruction whose mnemonic is t, guarded by guard (NULL: none). */
static pg_status read_instruction(builder *b, pg_ptok t, const pg_ptok *guard, bool negated)
{
    pg_ptx_inventory *inv = b->inv;
    char show[80];
    snprintf(show, sizeof show, "%.*s", PG_UTF8_CUT(t.text, t.len > 60 ? 60 : t.len), t.text);
    if (t.len >= PG_PTX_MAX_MNEMONIC)
        return bad(b, t.line, "instruction '%s…' is longer than 255 characters", show);
    if (inv->n_instrs >= PG_PTX_MAX_INSTRS)
        return bad(b, t.line, "more than 4194304 instructions%s", "");
    pg_ptx_instr *p = pg_grow(inv->instrs, inv->n_instrs, &b->cap_instrs, 256, sizeof *p);
    if (!p)
        return oom(b);
    inv->instrs = p;
    const char *m = intern(b, t.text, t.len);
    if (!m)
        return oom(b);
    pg_ptx_instr *in = &inv->instrs[inv->n_instrs++];
    memset(in, 0, sizeof *in);
    in->mnemonic = m;
    in->line = t.line;
    in->function = b->current;
    in->negated = negated;
    if (guard)
        snprintf(in->predicate, sizeof in->predicate, "%.*s",
                 guard->len > 31 ? 31 : (int)guard->len, guard->text);
    for (;;) {
        pg_ptok u = pg_ptx_lex_next(&b->lx);
        if (u.kind == PG_PTOK_ERROR)
            return bad(b, u.line, "%s", u.text);
        if (u.kind == PG_PTOK_END)
            return bad(b, t.line, "instruction '%s' is not terminated by ';'", show);
        if (pg_ptok_is(&u, ";"))
            return PG_OK;
        if (u.kind == PG_PTOK_WORD && u.text[0] != '%' && u.text[0] != '.') {
            int f = lookup_function(b, u.text, u.len);
            if (f >= 0)
                inv->functions[f].referenced = true;
        }
    }
}

/* "@p" / "@!p" then the guarded instruction. */
static pg_status read_guarded(builder *b, const pg_ptok *at)
{
    pg_ptok p = pg_ptx_lex_next(&b->lx);
    bool negated = pg_ptok_is(&p, "!");
    if (negated)
        p = pg_ptx_lex_next(&b->lx);
    if (p.kind != PG_PTOK_WORD)
        return bad(b, at->line, "expected a predicate register after '@'%s", "");
    pg_ptok m = pg_ptx_lex_next(&b->lx);
    if (m.kind != PG_PTOK_WORD || m.text[0] == '.')
        return bad(b, at->line, "expected an instruction after the guard '@%s'",
                   negated ? "!" : "");
    return read_instruction(b, m, &p, negated);
}

static pg_status read_module(builder *b)
{
    for (;;) {
        pg_ptok t = pg_ptx_lex_next(&b->lx);
        pg_status st = PG_OK;
        switch (t.kind) {
        case PG_PTOK_END:
            if (b->depth > 0)
                return bad(b, b->open_line[b->depth < MAX_TRACKED_DEPTH ? b->depth - 1 : 0],
                           "'{' is never closed by '}'%s", "");
            return PG_OK;
        case PG_PTOK_ERROR:
            return bad(b, t.line, "%s", t.text);
        case PG_PTOK_NEWLINE:
        case PG_PTOK_STRING:
            break;
        case PG_PTOK_PUNCT:
            if (t.text[0] == '{') {
                if (b->depth < MAX_TRACKED_DEPTH)
                    b->open_line[b->depth] = t.line;
                if (b->depth++ == 0 && b->pending >= 0) {
                    b->current = b->pending;
                    b->inv->functions[b->current].has_body = true;
                }
                b->pending = -1;
            } else if (t.text[0] == '}') {
                if (b->depth == 0)
                    return bad(b, t.line, "'}' without a matching '{'%s", "");
                if (--b->depth == 0)
                    b->current = -1;
            } else if (t.text[0] == '@') {
                st = read_guarded(b, &t);
            } else if (t.text[0] == '#') {
                b->inv->uses_preprocessor = true;
                for (pg_ptok u = pg_ptx_lex_peek(&b->lx);
                     u.kind != PG_PTOK_NEWLINE && u.kind != PG_PTOK_END &&
                     u.kind != PG_PTOK_ERROR;
                     u = pg_ptx_lex_peek(&b->lx))
                    pg_ptx_lex_next(&b->lx);
            }
            break;
        case PG_PTOK_WORD:
            if (t.text[0] == '.') {
                st = read_directive(b, t);
            } else {
                pg_ptok n = pg_ptx_lex_peek(&b->lx);
                if (pg_ptok_is(&n, ":"))
                    pg_ptx_lex_next(&b->lx); /* a label */
                else
                    st = read_instruction(b, t, NULL, false);
            }
            break;
        }
        if (st != PG_OK)
            return st;
    }
}

pg_status pg_ptx_inventory_build(const char *text, size_t len, const char *file,
                                 pg_ptx_inventory *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    builder b = {.inv = out, .file = file, .d = d, .pending = -1, .current = -1};
    pg_ptx_lexer_init(&b.lx, text, len);
    pg_status st = read_module(&b);
    free(b.mnemonic_table.slots);
    free(b.function_table.slots);
    if (st != PG_OK)
        pg_ptx_inventory_free(out);
    return st;
}

void pg_ptx_inventory_free(pg_ptx_inventory *inv)
{
    if (!inv)
        return;
    for (size_t i = 0; i < inv->n_mnemonics; i++)
        free(inv->mnemonics[i]);
    free(inv->mnemonics);
    free(inv->instrs);
    free(inv->functions);
    memset(inv, 0, sizeof *inv);
}

int pg_ptx_inventory_find_function(const pg_ptx_inventory *inv, const char *name)
{
    for (size_t i = 0; i < inv->n_functions; i++)
        if (strcmp(inv->functions[i].name, name) == 0)
            return (int)i;
    return -1;
}
