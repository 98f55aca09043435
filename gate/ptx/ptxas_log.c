/* Parsing ptxas, driver JIT and nvcc output into diagnostics and per-entry usage (see
 * ptxas_log.h). Line by line; a line that matches no known form is ignored. */
#include "ptxas_log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/grow.h"

typedef struct {
    pg_ptxas_log *log;
    size_t cap_diags, cap_entries;
    int compiling; /* entry index of the last "Compiling entry function", -1 if none */
    int props;     /* entry index of the last "Function properties for", -1 if not an entry */
} log_state;

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A severity word at s ("error", "warning", "info", "fatal"; nvcc also "catastrophic error",
 * "remark") followed by blanks and ':' or " #NNN-D:". On a match sets *sev and returns the
 * message start (blanks skipped), else NULL. */
static const char *match_severity(const char *s, pg_severity *sev)
{
    static const struct { const char *word; pg_severity sev; } words[] = {
        {"catastrophic error", PG_SEV_ERROR}, {"error", PG_SEV_ERROR},
        {"fatal", PG_SEV_ERROR},              {"warning", PG_SEV_WARNING},
        {"info", PG_SEV_INFO},                {"remark", PG_SEV_INFO},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(s, words[i].word, n) != 0)
            continue;
        const char *p = skip_blanks(s + n);
        if (*p == '#') /* nvcc diagnostic number: "warning #177-D:" */
            while (*p && *p != ':' && *p != ' ')
                p++;
        if (*p != ':')
            continue;
        *sev = words[i].sev;
        return skip_blanks(p + 1);
    }
    return NULL;
}

static pg_status add_diag(log_state *ls, pg_severity sev, const char *file, size_t file_len,
                          int line, const char *msg)
{
    pg_ptxas_log *l = ls->log;
    l->n_errors += sev == PG_SEV_ERROR;
    l->n_warnings += sev == PG_SEV_WARNING;
    if (l->n_diags >= PG_PTXAS_MAX_DIAGS)
        return PG_OK;
    pg_ptxas_diag *nd = pg_grow(l->diags, (size_t)l->n_diags, &ls->cap_diags, 16, sizeof *nd);
    if (!nd)
        return PG_ERR_INFRA;
    l->diags = nd;
    pg_ptxas_diag *dg = &l->diags[l->n_diags++];
    memset(dg, 0, sizeof *dg);
    dg->severity = sev;
    dg->line = line;
    if (file_len > sizeof dg->file - 1)
        file_len = sizeof dg->file - 1;
    memcpy(dg->file, file, file_len);
    snprintf(dg->message, sizeof dg->message, "%s", msg);
    return PG_OK;
}

/* Append an entry named name[0..len); sets ls->compiling to it. */
static pg_status add_entry(log_state *ls, const char *name, size_t len)
{
    pg_ptxas_log *l = ls->log;
    if (l->n_entries >= PG_PTXAS_MAX_ENTRIES) {
        ls->compiling = -1;
        return PG_OK;
    }
    pg_ptxas_entry_usage *ne =
        pg_grow(l->entries, (size_t)l->n_entries, &ls->cap_entries, 8, sizeof *ne);
    if (!ne)
        return PG_ERR_INFRA;
    l->entries = ne;
    pg_ptxas_entry_usage *e = &l->entries[l->n_entries];
    memset(e, 0, sizeof *e);
    if (len > sizeof e->entry - 1)
        len = sizeof e->entry - 1;
    memcpy(e->entry, name, len);
    ls->compiling = l->n_entries++;
    return PG_OK;
}

/* "168 registers" style items: the number and what follows it. */
static bool item_number(const char *item, long *v, const char **what)
{
    char *end;
    if (!isdigit((unsigned char)*item))
        return false;
    *v = strtol(item, &end, 10);
    *what = skip_blanks(end);
    return true;
}

/* "Used 168 registers, used 1 barriers, 32768 bytes smem, 400 bytes cmem[0]" and
 * "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads": comma-separated items. */
static void apply_items(pg_ptxas_entry_usage *e, const char *s)
{
    while (*s) {
        s = skip_blanks(s);
        if (strncasecmp(s, "used ", 5) == 0)
            s = skip_blanks(s + 5);
        long v;
        const char *w;
        if (item_number(s, &v, &w)) {
            if (strncmp(w, "registers", 9) == 0)
                e->registers = (int)v;
            else if (strncmp(w, "barriers", 8) == 0)
                e->barriers = (int)v;
            else if (strncmp(w, "bytes smem", 10) == 0)
                e->shared_bytes = v;
            else if (strncmp(w, "bytes cmem[0]", 13) == 0)
                e->constant0_bytes = v;
            else if (strncmp(w, "bytes stack frame", 17) == 0)
                e->stack_frame_bytes = v;
            else if (strncmp(w, "bytes spill stores", 18) == 0)
                e->spill_store_bytes = v;
            else if (strncmp(w, "bytes spill loads", 17) == 0)
                e->spill_load_bytes = v;
        }
        const char *comma = strchr(s, ',');
        if (!comma)
            break;
        s = comma + 1;
    }
}

/* The usage facts carried by an info message. */
static pg_status apply_info(log_state *ls, const char *msg)
{
    static const char compiling[] = "Compiling entry function '";
    static const char props[] = "Function properties for ";
    pg_ptxas_log *l = ls->log;
    if (strncmp(msg, compiling, sizeof compiling - 1) == 0) {
        const char *name = msg + sizeof compiling - 1;
        const char *q = strchr(name, '\'');
        ls->props = -1;
        return add_entry(ls, name, q ? (size_t)(q - name) : strlen(name));
    }
    if (strncmp(msg, props, sizeof props - 1) == 0) {
        const char *name = msg + sizeof props - 1;
        size_t len = strlen(name);
        while (len > 0 && isspace((unsigned char)name[len - 1]))
            len--;
        ls->props = -1;
        for (int i = l->n_entries - 1; i >= 0; i--)
            if (strlen(l->entries[i].entry) == len && strncmp(l->entries[i].entry, name, len) == 0) {
                ls->props = i;
                break;
            }
        return PG_OK;
    }
    if (strncmp(msg, "Used ", 5) == 0) {
        if (ls->compiling < 0) { /* the driver JIT may omit "Compiling entry function" */
            pg_status st = add_entry(ls, "", 0);
            if (st != PG_OK || ls->compiling < 0)
                return st;
        }
        apply_items(&l->entries[ls->compiling], msg);
    }
    return PG_OK;
}

/* "ptxas <rest>": "sev : msg" or "FILE, line N; sev : msg". */
static pg_status parse_ptxas_line(log_state *ls, const char *rest)
{
    pg_severity sev;
    const char *msg = match_severity(rest, &sev);
    const char *file = rest;
    size_t file_len = 0;
    long line = 0;
    if (!msg) {
        const char *at = strstr(rest, ", line ");
        char *end;
        if (!at)
            return PG_OK;
        line = strtol(at + 7, &end, 10);
        if (end == at + 7 || *end != ';')
            return PG_OK;
        msg = match_severity(skip_blanks(end + 1), &sev);
        if (!msg)
            return PG_OK;
        file_len = (size_t)(at - rest);
    }
    pg_status st = add_diag(ls, sev, file, file_len, (int)line, msg);
    if (st == PG_OK && sev == PG_SEV_INFO)
        st = apply_info(ls, msg);
    return st;
}

/* nvcc front end: "FILE(LINE): error: msg". */
static pg_status parse_nvcc_line(log_state *ls, const char *s)
{
    const char *open = strstr(s, "): ");
    if (!open || isspace((unsigned char)s[0]))
        return PG_OK;
    const char *lp = open;
    while (lp > s && isdigit((unsigned char)lp[-1]))
        lp--;
    if (lp == open || lp == s || lp[-1] != '(')
        return PG_OK;
    pg_severity sev;
    const char *msg = match_severity(open + 3, &sev);
    if (!msg)
        return PG_OK;
    return add_diag(ls, sev, s, (size_t)(lp - 1 - s), atoi(lp), msg);
}

static pg_status parse_line(log_state *ls, const char *s)
{
    if (strncmp(s, "ptxas ", 6) == 0)
        return parse_ptxas_line(ls, skip_blanks(s + 6));
    const char *t = skip_blanks(s);
    if (t != s && isdigit((unsigned char)*t) && strstr(t, "bytes stack frame")) {
        if (ls->props >= 0)
            apply_items(&ls->log->entries[ls->props], t);
        return PG_OK;
    }
    return parse_nvcc_line(ls, s);
}

pg_status pg_ptxas_log_parse(const char *text, pg_ptxas_log *out)
{
    memset(out, 0, sizeof *out);
    log_state ls = {.log = out, .compiling = -1, .props = -1};
    char line[2048];
    pg_status st = PG_OK;
    for (const char *p = text ? text : ""; *p && st == PG_OK;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        size_t keep = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, keep);
        while (keep > 0 && (line[keep - 1] == '\r' || line[keep - 1] == ' '))
            keep--;
        line[keep] = '\0';
        st = parse_line(&ls, line);
        p += len + (nl ? 1 : 0);
    }
    if (st != PG_OK)
        pg_ptxas_log_free(out);
    return st;
}

void pg_ptxas_log_free(pg_ptxas_log *l)
{
    if (!l)
        return;
    free(l->diags);
    free(l->entries);
    memset(l, 0, sizeof *l);
}

bool pg_ptxas_parse_version(const char *version_output, char *out, size_t n)
{
    const char *from = NULL;
    const char *rel = version_output ? strstr(version_output, "release ") : NULL;
    if (n > 0)
        out[0] = '\0';
    if (!rel || n == 0)
        return false;
    const char *v = strstr(rel, ", V");
    const char *eol = strchr(rel, '\n');
    if (v && (!eol || v < eol) && isdigit((unsigned char)v[3]))
        from = v + 3;
    else if (isdigit((unsigned char)rel[8]))
        from = rel + 8;
    else
        return false;
    size_t len = 0;
    while ((isdigit((unsigned char)from[len]) || from[len] == '.') && len + 1 < n)
        len++;
    memcpy(out, from, len);
    out[len] = '\0';
    return true;
}
