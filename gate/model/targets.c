/* Task target sets resolved against the per-architecture tables (see targets.h). */
#include "targets.h"

#include <stdio.h>
#include <string.h>

/* "wgmma.mma_async, mma.sync, ..." : the families of the table that SASS can prove. */
static void provable_families(const pg_arch_table *t, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < t->n_families && used < n; i++)
        if (t->families[i].n_sass > 0)
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "",
                                     t->families[i].ptx.text);
}

static void sass_list(const char (*sass)[PG_SASS_FAMILY_MAX], int n, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", sass[i]);
}

static pg_status resolve_ptx(const pg_task *task, const pg_arch_table *table, const json_t *arr,
                             pg_target_set *out, pg_diag *d)
{
    char err[256], known[2048], arch[32];
    snprintf(arch, sizeof arch, "%s", out->arch);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char field[96];
        snprintf(field, sizeof field, "targets.%s.ptx[%zu]", arch, i);
        if (out->n_targets == PG_MAX_TARGETS)
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, field,
                               "at most %d PTX targets per architecture", PG_MAX_TARGETS);
        pg_target *tg = &out->targets[out->n_targets];
        memset(tg, 0, sizeof *tg);
        snprintf(tg->field, sizeof tg->field, "%s", field);
        const char *s = json_string_value(json_array_get(arr, i));
        if (!s || !pg_pattern_parse(s, &tg->pattern, err, sizeof err))
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, tg->field,
                               "expected a PTX instruction pattern like \"wgmma.mma_async\": %s",
                               s ? err : "not a string");
        tg->family = pg_arch_table_resolve(table, &tg->pattern);
        if (tg->family < 0) {
            provable_families(table, known, sizeof known);
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, tg->field,
                               "unknown PTX instruction family '%s' for %s; the table %s knows: "
                               "%s",
                               s, out->arch, table->file, known);
        }
        const pg_arch_family *f = &table->families[tg->family];
        if (f->n_sass == 0)
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, tg->field,
                               "'%s' cannot be a target on %s: no SASS family proves %s (%s)", s,
                               out->arch, f->ptx.text, f->note[0] ? f->note : "none recorded");
        for (int j = 0; j < out->n_targets; j++)
            if (pg_pattern_contains(&out->targets[j].pattern, &tg->pattern) &&
                pg_pattern_contains(&tg->pattern, &out->targets[j].pattern))
                return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, tg->field,
                                   "'%s' repeats %s", s, out->targets[j].field);
        memcpy(tg->sass, f->sass, sizeof tg->sass);
        tg->n_sass = f->n_sass;
        out->n_targets++;
    }
    return PG_OK;
}

/* The "sass" list: known names that prove some target; then narrow each target to them. */
static pg_status narrow_sass(const pg_task *task, const pg_arch_table *table, const json_t *arr,
                             pg_target_set *out, pg_diag *d)
{
    char field[96], have[1024];
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        snprintf(field, sizeof field, "targets.%s.sass[%zu]", out->arch, i);
        if (!s || !pg_arch_table_knows_sass(table, s))
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, field,
                               "unknown SASS family '%s' for %s (not in %s)", s ? s : "",
                               out->arch, table->file);
        bool proves = false;
        size_t used = 0;
        have[0] = '\0';
        for (int t = 0; t < out->n_targets; t++) {
            char list[256];
            sass_list((const char(*)[PG_SASS_FAMILY_MAX])out->targets[t].sass,
                      out->targets[t].n_sass, list, sizeof list);
            if (used < sizeof have)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%s → %s",
                                         t ? "; " : "", out->targets[t].pattern.text, list);
            for (int k = 0; k < out->targets[t].n_sass; k++)
                proves |= strcmp(out->targets[t].sass[k], s) == 0;
        }
        if (!proves)
            return pg_diag_set(d, PG_ERR_INPUT, task->file, 0, field,
                               "'%s' proves none of the PTX targets of %s (%s)", s, out->arch,
                               have);
    }
    for (int t = 0; t < out->n_targets; t++) {
        pg_target *tg = &out->targets[t];
        char kept[PG_ARCH_MAX_SASS][PG_SASS_FAMILY_MAX];
        int n = 0;
        for (int k = 0; k < tg->n_sass; k++)
            for (size_t i = 0; i < json_array_size(arr); i++)
                if (strcmp(tg->sass[k], json_string_value(json_array_get(arr, i))) == 0) {
                    memcpy(kept[n++], tg->sass[k], sizeof kept[0]);
                    break;
                }
        if (n > 0) {
            memcpy(tg->sass, kept, sizeof kept);
            tg->n_sass = n;
        }
    }
    return PG_OK;
}

pg_status pg_targets_resolve(const pg_task *task, const char *arch, const pg_arch_table *table,
                             pg_target_set *out, bool *found, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    *found = false;
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    const json_t *set = task->targets ? json_object_get(task->targets, arch) : NULL;
    const json_t *ptx = json_object_get(set, "ptx"), *sass = json_object_get(set, "sass");
    if (!set || json_array_size(ptx) == 0)
        return PG_OK;
    pg_status st = resolve_ptx(task, table, ptx, out, d);
    if (st == PG_OK && sass)
        st = narrow_sass(task, table, sass, out, d);
    if (st != PG_OK) {
        out->n_targets = 0;
        return st;
    }
    *found = true;
    return PG_OK;
}

pg_status pg_targets_check_task(const pg_task *task, const char *arch_dir, pg_diag *d)
{
    const char *arch;
    json_t *v;
    if (!task->targets)
        return PG_OK;
    json_object_foreach(task->targets, arch, v) {
        pg_arch_table *table = NULL;
        pg_target_set set;
        bool found;
        char field[64];
        pg_status st = pg_arch_table_load(arch_dir, arch, &table, d);
        if (st == PG_ERR_INPUT && d && !d->file[0]) {
            char msg[2048];
            snprintf(msg, sizeof msg, "%s", d->message);
            snprintf(field, sizeof field, "targets.%s", arch);
            pg_diag_set(d, st, task->file, 0, field, "%s", msg);
        }
        if (st == PG_OK)
            st = pg_targets_resolve(task, arch, table, &set, &found, d);
        pg_arch_table_free(table);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

bool pg_targets_lists_ptx(const pg_task *task, const char *arch)
{
    const json_t *set = task->targets ? json_object_get(task->targets, arch) : NULL;
    return set && json_array_size(json_object_get(set, "ptx")) > 0;
}
