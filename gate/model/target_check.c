/* Static instruction verification: targets against the PTX and SASS inventories (see
 * target_check.h). */
#include "target_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the PTX inventory holds per distinct mnemonic. */
typedef struct {
    const char *mnemonic;
    int family; /* table classification, -1 when none */
    pg_tc_mnemonic agg;
} distinct;

typedef struct {
    const char *ptr;
    size_t index;
} by_ptr;

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const by_ptr *)a)->ptr, y = (uintptr_t)((const by_ptr *)b)->ptr;
    return x < y ? -1 : x > y;
}

static int cmp_first_line(const void *a, const void *b)
{
    const pg_tc_mnemonic *x = a, *y = b;
    if (x->relation != y->relation)
        return x->relation - y->relation;
    return x->lines[0] - y->lines[0];
}

/* Count and first lines of every distinct mnemonic; *out has inv->n_mnemonics entries. */
static pg_status aggregate(const pg_arch_table *table, const pg_ptx_inventory *inv,
                           distinct **out, pg_diag *d)
{
    size_t n = inv->n_mnemonics;
    distinct *ds = calloc(n ? n : 1, sizeof *ds);
    by_ptr *map = calloc(n ? n : 1, sizeof *map);
    if (!ds || !map) {
        free(ds);
        free(map);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory checking targets");
    }
    for (size_t k = 0; k < n; k++) {
        ds[k].mnemonic = inv->mnemonics[k];
        ds[k].family = pg_arch_table_classify(table, inv->mnemonics[k]);
        ds[k].agg.mnemonic = inv->mnemonics[k];
        map[k] = (by_ptr){inv->mnemonics[k], k};
    }
    qsort(map, n, sizeof *map, cmp_ptr);
    for (size_t i = 0; i < inv->n_instrs; i++) {
        by_ptr key = {inv->instrs[i].mnemonic, 0};
        const by_ptr *hit = bsearch(&key, map, n, sizeof *map, cmp_ptr);
        if (!hit)
            continue;
        pg_tc_mnemonic *a = &ds[hit->index].agg;
        if (a->n_lines < PG_TC_MAX_LINES)
            a->lines[a->n_lines++] = inv->instrs[i].line;
        a->count++;
    }
    free(map);
    *out = ds;
    return PG_OK;
}

/* Keep m in list (max PG_TC_MAX_GROUPS, ordered by relation then first line). */
static void keep(pg_tc_mnemonic *list, int *n, const pg_tc_mnemonic *m)
{
    if (*n < PG_TC_MAX_GROUPS) {
        list[(*n)++] = *m;
    } else if (cmp_first_line(m, &list[*n - 1]) < 0) {
        list[*n - 1] = *m;
    } else {
        return;
    }
    qsort(list, (size_t)*n, sizeof *list, cmp_first_line);
}

/* Insert line into the ascending list of the first PG_TC_MAX_LINES lines. */
static void merge_line(pg_tc_result *r, int line)
{
    int i = r->n_ptx_lines;
    if (i == PG_TC_MAX_LINES) {
        if (line >= r->ptx_lines[i - 1])
            return;
        i--;
    } else {
        r->n_ptx_lines++;
    }
    while (i > 0 && r->ptx_lines[i - 1] > line) {
        r->ptx_lines[i] = r->ptx_lines[i - 1];
        i--;
    }
    r->ptx_lines[i] = line;
}

static void check_ptx(const pg_target *tg, const pg_arch_table *table, const distinct *ds,
                      size_t n, pg_tc_result *r)
{
    const pg_arch_family *fam = &table->families[tg->family];
    for (size_t k = 0; k < n; k++) {
        pg_tc_mnemonic m = ds[k].agg;
        if (m.count == 0)
            continue;
        bool matches = pg_pattern_matches(&tg->pattern, ds[k].mnemonic);
        if (matches && ds[k].family == tg->family) {
            r->ptx_count += m.count;
            r->found_kinds++;
            for (int i = 0; i < m.n_lines; i++)
                merge_line(r, m.lines[i]);
            m.relation = 0;
            keep(r->found, &r->n_found, &m);
            continue;
        }
        char opcode[PG_PATTERN_MAX_PART];
        pg_mnemonic_opcode(ds[k].mnemonic, opcode, sizeof opcode);
        const char *group = ds[k].family >= 0 ? table->families[ds[k].family].group : "";
        if (ds[k].family == tg->family)
            m.relation = 0;
        else if (fam->group[0] && strcmp(group, fam->group) == 0)
            m.relation = 1;
        else if (strcmp(opcode, tg->pattern.opcode) == 0)
            m.relation = 2;
        else
            continue;
        keep(r->nearest, &r->n_nearest, &m);
    }
    /* Instructions that only share the opcode ("cp.async.commit_group" for
     * cp.async.bulk.tensor) are shown only when nothing closer exists. */
    while (r->n_nearest > 1 && r->nearest[r->n_nearest - 1].relation == 2 &&
           r->nearest[0].relation < 2)
        r->n_nearest--;
}

/* Index of family in list (n names), or -1. */
static int family_index(const char *family, const char (*list)[PG_SASS_FAMILY_MAX], int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(family, list[k]) == 0)
            return k;
    return -1;
}

static void check_sass(const pg_target *tg, const pg_arch_family *fam,
                       const pg_sass_listing *sass, pg_tc_result *r)
{
    /* Distinct opcodes in order of first appearance, then sorted by count (stable). */
    pg_tc_opcode all[64];
    size_t n_all = 0;
    size_t other[PG_ARCH_MAX_SASS] = {0};
    r->sass_checked = true;
    for (size_t i = 0; i < sass->n_instrs; i++) {
        const pg_sass_instr *in = &sass->instrs[i];
        bool proves = family_index(in->family, tg->sass, tg->n_sass) >= 0;
        if (!proves) {
            /* the PTX family's other SASS families: what ptxas made instead */
            int k = family_index(in->family, fam->sass, fam->n_sass);
            if (k >= 0)
                other[k]++;
            continue;
        }
        r->sass_count++;
        size_t j = 0;
        while (j < n_all && strcmp(all[j].opcode, in->opcode) != 0)
            j++;
        if (j == n_all) {
            r->opcode_kinds++;
            if (n_all == sizeof all / sizeof all[0])
                continue;
            snprintf(all[n_all].opcode, sizeof all[0].opcode, "%s", in->opcode);
            all[n_all++].count = 0;
        }
        all[j].count++;
    }
    for (size_t i = 1; i < n_all; i++) /* insertion sort: stable, count descending */
        for (size_t j = i; j > 0 && all[j].count > all[j - 1].count; j--) {
            pg_tc_opcode t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    for (size_t i = 0; i < n_all && r->n_opcodes < PG_TC_MAX_OPCODES; i++)
        r->opcodes[r->n_opcodes++] = all[i];
    size_t most = 0;
    for (int k = 0; k < fam->n_sass; k++) {
        r->other_family_count += other[k];
        if (other[k] > most) {
            most = other[k];
            snprintf(r->other_family, sizeof r->other_family, "%s", fam->sass[k]);
        }
    }
}

pg_status pg_target_check(const pg_target_set *set, const pg_arch_table *table,
                          const pg_ptx_inventory *ptx, const pg_sass_listing *sass,
                          pg_tc_result *out, pg_diag *d)
{
    distinct *ds = NULL;
    pg_status st = aggregate(table, ptx, &ds, d);
    if (st != PG_OK)
        return st;
    for (int t = 0; t < set->n_targets; t++) {
        pg_tc_result *r = &out[t];
        memset(r, 0, sizeof *r);
        r->target = &set->targets[t];
        check_ptx(r->target, table, ds, ptx->n_mnemonics, r);
        if (sass)
            check_sass(r->target, &table->families[r->target->family], sass, r);
        bool no_sass = r->sass_checked && r->sass_count == 0;
        r->reason = r->ptx_count == 0                         ? "absent_in_ptx"
                    : no_sass && r->other_family_count > 0 ? "other_sass_family"
                    : no_sass                              ? "removed_by_ptxas"
                                                           : NULL;
    }
    free(ds);
    return PG_OK;
}

/* Line numbers a description shows per mnemonic (the records keep PG_TC_MAX_LINES). */
#define DESCRIBE_LINES 4

/* " ×N at lines a, b, c, …" / " ×N (lines a, b)". */
static size_t describe_mnemonic(const pg_tc_mnemonic *m, bool parens, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, " ×%zu%s", m->count, parens ? " (lines " : " at lines ");
    int shown = m->n_lines < DESCRIBE_LINES ? m->n_lines : DESCRIBE_LINES;
    for (int i = 0; i < shown && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%d", i ? ", " : "", m->lines[i]);
    if (used < n && m->count > (size_t)shown)
        used += (size_t)snprintf(buf + used, n - used, ", …");
    if (used < n && parens)
        used += (size_t)snprintf(buf + used, n - used, ")");
    return used;
}

void pg_tc_describe(const pg_tc_result *r, char *buf, size_t n)
{
    const pg_target *tg = r->target;
    size_t used = 0;
#define ADD(...)                                                                                  \
    do {                                                                                          \
        if (used < n)                                                                             \
            used += (size_t)snprintf(buf + used, n - used, __VA_ARGS__);                          \
    } while (0)
    if (n == 0)
        return;
    buf[0] = '\0';
    if (r->ptx_count == 0) {
        ADD("%s absent in PTX", tg->pattern.text);
        if (r->n_nearest == 0)
            ADD(" (no related instruction found)");
        for (int i = 0; i < r->n_nearest; i++) {
            ADD("%s%s", i ? "; " : "; nearest: ", r->nearest[i].mnemonic);
            if (used < n)
                used += describe_mnemonic(&r->nearest[i], false, buf + used, n - used);
        }
        return;
    }
    ADD("%s%s PTX", tg->pattern.text, r->reason ? " in" : ":");
    if (used < n) {
        pg_tc_mnemonic all = {.count = r->ptx_count, .n_lines = r->n_ptx_lines};
        memcpy(all.lines, r->ptx_lines, sizeof all.lines);
        used += describe_mnemonic(&all, true, buf + used, n - used);
    }
    if (!r->sass_checked) {
        ADD("; SASS not checked");
    } else if (r->sass_count == 0) {
        ADD(" but no ");
        for (int k = 0; k < tg->n_sass; k++)
            ADD("%s%s", k == 0 ? "" : k + 1 == tg->n_sass ? " or " : ", ", tg->sass[k]);
        if (r->other_family_count > 0)
            ADD(" in the SASS, only %s of the same PTX family (%zu instruction%s: operand "
                "types other than the target's)", r->other_family, r->other_family_count,
                r->other_family_count == 1 ? "" : "s");
        else
            ADD(" in the SASS: removed by ptxas");
    } else {
        ADD(", SASS");
        for (int i = 0; i < r->n_opcodes; i++)
            ADD("%s %s ×%zu", i ? "," : "", r->opcodes[i].opcode, r->opcodes[i].count);
        if (r->opcode_kinds > (size_t)r->n_opcodes)
            ADD(", …");
    }
#undef ADD
}
