/* Cubin comparison by content (gate/ptx/cubin_code.h): the ELF64 section headers read with
 * bounds checks, the code sections matched by name. Layout: the System V ABI's ELF64 header
 * (e_shoff at 0x28, e_shentsize/e_shnum/e_shstrndx at 0x3a) and section header (64 bytes). */
#include "cubin_code.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SHT_NOBITS 8u
#define SHF_INFO_LINK 0x40u

typedef struct {
    uint32_t name, type;
    uint64_t flags, offset, size;
    uint32_t link, info;
    uint64_t align, entsize;
} section;

typedef struct {
    const unsigned char *p;
    size_t n;
    const section *sh; /* points into a caller buffer of count entries */
    size_t count;
    uint64_t strtab_off, strtab_size;
} elf;

static uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t u64(const unsigned char *p) { return u32(p) | (uint64_t)u32(p + 4) << 32; }

/* [off, off + len) inside a file of n bytes, without overflow. */
static bool inside(uint64_t off, uint64_t len, size_t n)
{
    return off <= n && len <= n - off;
}

/* The header fields and the section table (into sh, cap entries) of an ELF64 little-endian
 * file; false when malformed or with more than cap sections. */
static bool parse(const unsigned char *p, size_t n, section *sh, size_t cap, elf *e)
{
    static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
    if (n < 64 || memcmp(p, magic, 4) != 0 || p[4] != 2 /* ELFCLASS64 */ ||
        p[5] != 1 /* little-endian */)
        return false;
    uint64_t shoff = u64(p + 0x28);
    uint16_t shentsize = u16(p + 0x3a), shnum = u16(p + 0x3c), shstrndx = u16(p + 0x3e);
    if (shentsize != 64 || shnum == 0 || shnum > cap || shstrndx >= shnum ||
        !inside(shoff, (uint64_t)shnum * 64u, n))
        return false;
    for (size_t i = 0; i < shnum; i++) {
        const unsigned char *h = p + shoff + i * 64;
        sh[i] = (section){u32(h), u32(h + 4), u64(h + 8), u64(h + 24), u64(h + 32),
                          u32(h + 40), u32(h + 44), u64(h + 48), u64(h + 56)};
        if (sh[i].type != SHT_NOBITS && !inside(sh[i].offset, sh[i].size, n))
            return false;
    }
    *e = (elf){p, n, sh, shnum, sh[shstrndx].offset, sh[shstrndx].size};
    return sh[shstrndx].type != SHT_NOBITS;
}

/* Section i's name, or NULL when it is not a NUL-terminated string inside .shstrtab. */
static const char *name_of(const elf *e, size_t i)
{
    if (i >= e->count || e->sh[i].name >= e->strtab_size)
        return NULL;
    const char *s = (const char *)e->p + e->strtab_off + e->sh[i].name;
    size_t room = (size_t)(e->strtab_size - e->sh[i].name);
    return memchr(s, '\0', room) ? s : NULL;
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_code_section(const char *name)
{
    static const char *const prefixes[] = {".text.",      ".nv.info",   ".nv.shared.",
                                           ".nv.constant", ".nv.global", ".nv.callgraph",
                                           ".rel.text.",  ".rela.text.", ".rel.nv.",
                                           ".rela.nv."};
    if (strcmp(name, ".symtab") == 0 || strcmp(name, ".strtab") == 0)
        return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(name, prefixes[i]))
            return true;
    return false;
}

/* The index of the section named name in e, or e->count. */
static size_t find(const elf *e, const char *name)
{
    for (size_t i = 0; i < e->count; i++) {
        const char *n = name_of(e, i);
        if (n && strcmp(n, name) == 0)
            return i;
    }
    return e->count;
}

/* Whether the section references a and b make (indices, 0 = none) name the same section. */
static bool same_ref(const elf *ea, uint32_t ra, const elf *eb, uint32_t rb)
{
    if (ra == 0 || rb == 0)
        return ra == rb;
    const char *na = name_of(ea, ra), *nb = name_of(eb, rb);
    return na && nb && strcmp(na, nb) == 0;
}

/* Every code section of x has its equal in y. */
static bool covered(const elf *x, const elf *y)
{
    for (size_t i = 1; i < x->count; i++) {
        const char *name = name_of(x, i);
        if (!name)
            return false;
        if (!is_code_section(name))
            continue;
        size_t j = find(y, name);
        if (j == y->count)
            return false;
        const section *s = &x->sh[i], *t = &y->sh[j];
        if (s->type != t->type || s->flags != t->flags || s->size != t->size ||
            s->align != t->align || s->entsize != t->entsize ||
            !same_ref(x, s->link, y, t->link))
            return false;
        if ((s->flags & SHF_INFO_LINK) ? !same_ref(x, s->info, y, t->info) : s->info != t->info)
            return false;
        if (s->type != SHT_NOBITS && memcmp(x->p + s->offset, y->p + t->offset, s->size) != 0)
            return false;
    }
    return true;
}

const char *pg_cubin_match_name(pg_cubin_match m)
{
    return m == PG_CUBIN_SAME_BYTES ? "bytes" : m == PG_CUBIN_SAME_CODE ? "code_sections" : NULL;
}

pg_status pg_cubin_compare(const unsigned char *a, size_t na, const unsigned char *b, size_t nb,
                           pg_cubin_match *out, pg_diag *d)
{
    (void)d;
    *out = PG_CUBIN_DIFFERENT;
    if (na == nb && memcmp(a, b, na) == 0) {
        *out = PG_CUBIN_SAME_BYTES;
        return PG_OK;
    }
    /* 512 sections cover any cubin ptxas writes for one module (a few per kernel). */
    enum { CAP = 512 };
    static _Thread_local section sa[CAP], sb[CAP];
    elf ea, eb;
    if (!parse(a, na, sa, CAP, &ea) || !parse(b, nb, sb, CAP, &eb))
        return PG_OK;
    /* e_type (0x10), e_machine (0x12), e_flags (0x30: the SASS architecture and ABI). */
    if (u16(a + 0x10) != u16(b + 0x10) || u16(a + 0x12) != u16(b + 0x12) ||
        u32(a + 0x30) != u32(b + 0x30))
        return PG_OK;
    if (covered(&ea, &eb) && covered(&eb, &ea))
        *out = PG_CUBIN_SAME_CODE;
    return PG_OK;
}
