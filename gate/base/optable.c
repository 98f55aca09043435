/* Typed option tables (see optable.h): argv splitting, conversion, defaults, record and job. */
#include "base/optable.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool row_end(const pg_opt *r)
{
    return !r->name && !r->rec_key && !r->job_key;
}

size_t pg_opt_count(const pg_opt *table)
{
    size_t n = 0;
    while (!row_end(&table[n]))
        n++;
    return n;
}

void *pg_opt_field(const pg_opt *row, void *obj)
{
    return (char *)obj + row->offset;
}

static const void *field_of(const pg_opt *row, const void *obj)
{
    return (const char *)obj + row->offset;
}

/* Integers and codes by the field's size: 1 is a bool, 4 an int (or an int-sized enum), 8 an
 * int64_t, uint64_t or size_t (all below 2^63 here). */
static void store_int(const pg_opt *row, void *obj, long long v)
{
    void *p = pg_opt_field(row, obj);
    if (row->size == 1) {
        bool b = v != 0;
        memcpy(p, &b, 1);
    } else if (row->size == 4) {
        int i = (int)v;
        memcpy(p, &i, 4);
    } else {
        int64_t i = (int64_t)v;
        memcpy(p, &i, 8);
    }
}

static long long load_int(const pg_opt *row, const void *obj)
{
    const void *p = field_of(row, obj);
    if (row->size == 1) {
        bool b;
        memcpy(&b, p, 1);
        return b;
    }
    if (row->size == 4) {
        int i;
        memcpy(&i, p, 4);
        return i;
    }
    int64_t i;
    memcpy(&i, p, 8);
    return (long long)i;
}

static void store_str(const pg_opt *row, void *obj, const char *s)
{
    memcpy(pg_opt_field(row, obj), &s, sizeof s);
}

static const char *load_str(const pg_opt *row, const void *obj)
{
    const char *s;
    memcpy(&s, field_of(row, obj), sizeof s);
    return s;
}

static void store_real(const pg_opt *row, void *obj, double v)
{
    memcpy(pg_opt_field(row, obj), &v, sizeof v);
}

static double load_real(const pg_opt *row, const void *obj)
{
    double v;
    memcpy(&v, field_of(row, obj), sizeof v);
    return v;
}

static const pg_opt_choice *choice_named(const pg_opt *row, const char *name)
{
    for (const pg_opt_choice *c = row->choices; c && c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static const char *choice_name(const pg_opt *row, long long code)
{
    for (const pg_opt_choice *c = row->choices; c && c->name; c++)
        if (c->code == code)
            return c->name;
    return NULL;
}

static bool has_choice_code(const pg_opt *row, long long code)
{
    return choice_name(row, code) != NULL;
}

bool pg_opt_table_valid(const pg_opt *table, char *why, size_t n)
{
    size_t rows = pg_opt_count(table);
    if (rows > PG_OPT_MAX) {
        snprintf(why, n, "%zu rows, more than %d", rows, PG_OPT_MAX);
        return false;
    }
    int max_rec = 0, max_job = 0;
    for (size_t i = 0; i < rows; i++) {
        const pg_opt *r = &table[i];
        const char *id = r->name ? r->name : r->rec_key ? r->rec_key : r->job_key;
        for (size_t j = 0; r->name && j < i; j++)
            if (table[j].name && strcmp(table[j].name, r->name) == 0) {
                snprintf(why, n, "--%s: two rows", r->name);
                return false;
            }
        bool size_ok = true;
        switch (r->kind) {
        case PG_OPT_FLAG:
            size_ok = r->size == 1;
            break;
        case PG_OPT_STRING:
            size_ok = r->size == sizeof(const char *);
            break;
        case PG_OPT_INT:
            size_ok = (r->size == 4 || r->size == 8) && r->lo <= r->hi && r->def >= r->lo &&
                      r->def <= r->hi;
            break;
        case PG_OPT_REAL:
            size_ok = r->size == sizeof(double) && r->lo <= r->hi;
            break;
        case PG_OPT_CHOICE:
            size_ok = r->choices && r->choices[0].name &&
                      ((r->flags & PG_OPT_NAME)
                           ? r->size == sizeof(const char *) &&
                                 (!r->def_str || choice_named(r, r->def_str))
                           : (r->size == 1 || r->size == 4) &&
                                 has_choice_code(r, (long long)r->def));
            break;
        case PG_OPT_CUSTOM:
            size_ok = (!r->name || r->parse) && (!r->rec_pos || r->record) && !r->job_pos;
            break;
        }
        if (!size_ok) {
            snprintf(why, n, "%s: field size, range, choices or default do not fit its kind", id);
            return false;
        }
        if ((r->rec_pos > 0) != (r->rec_key != NULL) || (r->job_pos > 0) != (r->job_key != NULL)) {
            snprintf(why, n, "%s: a key without a position or a position without a key", id);
            return false;
        }
        max_rec = r->rec_pos > max_rec ? r->rec_pos : max_rec;
        max_job = r->job_pos > max_job ? r->job_pos : max_job;
    }
    for (int face = 0; face < 2; face++)
        for (int pos = 1; pos <= (face ? max_job : max_rec); pos++) {
            int seen = 0;
            for (size_t i = 0; i < rows; i++)
                seen += (face ? table[i].job_pos : table[i].rec_pos) == pos;
            if (seen != 1) {
                snprintf(why, n, "%s position %d: %d rows", face ? "job" : "record", pos, seen);
                return false;
            }
        }
    return true;
}

void pg_opt_defaults(const pg_opt *table, void *obj)
{
    for (const pg_opt *r = table; !row_end(r); r++) {
        switch (r->kind) {
        case PG_OPT_FLAG:
        case PG_OPT_INT:
            store_int(r, obj, (long long)r->def);
            break;
        case PG_OPT_CHOICE:
            if (r->flags & PG_OPT_NAME)
                store_str(r, obj, r->def_str ? choice_named(r, r->def_str)->name : NULL);
            else
                store_int(r, obj, (long long)r->def);
            break;
        case PG_OPT_STRING:
            store_str(r, obj, r->def_str);
            break;
        case PG_OPT_REAL:
            store_real(r, obj, r->def);
            break;
        case PG_OPT_CUSTOM:
            break;
        }
    }
}

pg_opt_argv_result pg_opt_parse_argv(const pg_opt *table, int argc, char **argv, pg_opt_args *a,
                                     const char **bad)
{
    size_t n = pg_opt_count(table);
    memset(a, 0, sizeof *a);
    *bad = NULL;
    struct option *lo = calloc(n + 2, sizeof *lo);
    int *row_of = calloc(n + 1, sizeof *row_of);
    a->positional = calloc((size_t)argc + 1, sizeof(char *));
    if (!lo || !row_of || !a->positional || n > PG_OPT_MAX) {
        free(lo);
        free(row_of);
        pg_opt_args_free(a);
        return PG_OPT_ARGS_UNKNOWN;
    }
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!table[i].name)
            continue;
        lo[k].name = table[i].name;
        lo[k].has_arg = table[i].arg ? required_argument : no_argument;
        lo[k].val = 1000 + k;
        row_of[k++] = (int)i;
    }
    lo[k].name = "help";
    lo[k].val = 'h';
    optind = 1;
    opterr = 0;
    int c;
    pg_opt_argv_result res = PG_OPT_ARGS_OK;
    /* "-" first: positional arguments are returned in order as option 1. */
    while ((c = getopt_long(argc, argv, "-h", lo, NULL)) != -1) {
        if (c == 1) {
            a->positional[a->npos++] = optarg;
        } else if (c == 'h') {
            res = PG_OPT_ARGS_HELP;
            break;
        } else if (c >= 1000) {
            int row = row_of[c - 1000];
            a->given |= (uint64_t)1 << row;
            a->text[row] = optarg;
        } else {
            /* getopt_long names a known option's own value in optopt when it lacks its
             * argument or a flag got one. */
            *bad = argv[optind - 1];
            bool known = optopt >= 1000 && optopt - 1000 < k;
            res = !known ? PG_OPT_ARGS_UNKNOWN
                  : table[row_of[optopt - 1000]].arg ? PG_OPT_ARGS_NEEDS_VALUE
                                                      : PG_OPT_ARGS_NO_VALUE;
            break;
        }
    }
    while (res == PG_OPT_ARGS_OK && optind < argc)
        a->positional[a->npos++] = argv[optind++];
    free(lo);
    free(row_of);
    return res;
}

void pg_opt_args_free(pg_opt_args *a)
{
    free(a->positional);
    a->positional = NULL;
    a->npos = 0;
}

static int row_at(const pg_opt *table, size_t offset)
{
    size_t n = pg_opt_count(table);
    for (size_t i = 0; i < n; i++)
        if (table[i].name && table[i].offset == offset)
            return (int)i;
    return -1;
}

bool pg_opt_given(const pg_opt *table, const pg_opt_args *a, size_t offset)
{
    int i = row_at(table, offset);
    return i >= 0 && (a->given >> i & 1);
}

const char *pg_opt_text(const pg_opt *table, const pg_opt_args *a, size_t offset)
{
    int i = row_at(table, offset);
    return i >= 0 && (a->given >> i & 1) ? a->text[i] : NULL;
}

/* "'a', 'b' or 'c'" into buf. */
static const char *choice_list(const pg_opt *row, char *buf, size_t n)
{
    size_t used = 0, count = 0;
    while (row->choices[count].name)
        count++;
    buf[0] = '\0';
    for (size_t i = 0; i < count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s'%s'",
                                 i == 0 ? "" : i + 1 == count ? " or " : ", ",
                                 row->choices[i].name);
    return buf;
}

pg_status pg_opt_set(const pg_opt *row, void *obj, const char *text, pg_diag *d)
{
    const char *name = row->name ? row->name : "?";
    if (row->kind == PG_OPT_FLAG) {
        store_int(row, obj, !(row->flags & PG_OPT_INVERT));
        return PG_OK;
    }
    if (!text)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "--%s: expected a value", name);
    if ((row->flags & PG_OPT_NONEMPTY) && !text[0])
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "--%s: expected a value, got an empty string", name);
    if (row->parse)
        return row->parse(row, text, obj, d);
    char *end;
    errno = 0;
    switch (row->kind) {
    case PG_OPT_STRING:
        store_str(row, obj, text);
        return PG_OK;
    case PG_OPT_INT: {
        long x = strtol(text, &end, 10);
        if (errno || end == text || *end || x < row->lo || x > row->hi)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "--%s: expected an integer from %lld to %lld, got '%s'", name,
                               (long long)row->lo, (long long)row->hi, text);
        store_int(row, obj, x);
        return PG_OK;
    }
    case PG_OPT_REAL: {
        double x = strtod(text, &end);
        if (errno || end == text || *end || !(x >= row->lo && x <= row->hi))
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                               "--%s: expected a number from %g to %g, got '%s'", name, row->lo,
                               row->hi, text);
        store_real(row, obj, x);
        return PG_OK;
    }
    case PG_OPT_CHOICE: {
        const pg_opt_choice *c = choice_named(row, text);
        char list[512];
        if (!c)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "--%s: expected %s, got '%s'",
                               name, choice_list(row, list, sizeof list), text);
        if (row->flags & PG_OPT_NAME)
            store_str(row, obj, c->name);
        else
            store_int(row, obj, c->code);
        return PG_OK;
    }
    default:
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "--%s: no conversion", name);
    }
}

pg_status pg_opt_apply(const pg_opt *table, const pg_opt_args *a, void *obj, pg_diag *d)
{
    size_t n = pg_opt_count(table);
    for (size_t i = 0; i < n; i++) {
        if (!(a->given >> i & 1))
            continue;
        pg_status st = pg_opt_set(&table[i], obj, a->text[i], d);
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}

static json_t *text_or_null(const pg_opt_writer *w, const char *s)
{
    return s ? w->text(s) : json_null();
}

/* The generic rendering of row's value (record: nulls for unset values; job: as read back). */
static json_t *render(const pg_opt *row, const void *obj, const pg_opt_writer *w, bool job)
{
    switch (row->kind) {
    case PG_OPT_FLAG:
        return json_boolean(load_int(row, obj));
    case PG_OPT_INT:
        return json_integer((json_int_t)load_int(row, obj));
    case PG_OPT_REAL: {
        double v = load_real(row, obj);
        return !job && (row->flags & PG_OPT_REC_POSITIVE) && !(v > 0) ? json_null()
                                                                       : json_real(v);
    }
    case PG_OPT_STRING:
        return job && !load_str(row, obj) ? w->text("") : text_or_null(w, load_str(row, obj));
    case PG_OPT_CHOICE:
        if (row->flags & PG_OPT_NAME)
            return text_or_null(w, load_str(row, obj));
        return text_or_null(w, choice_name(row, load_int(row, obj)));
    case PG_OPT_CUSTOM:
        break;
    }
    return json_null();
}

static const pg_opt *row_at_pos(const pg_opt *table, int pos, bool job)
{
    for (const pg_opt *r = table; !row_end(r); r++)
        if ((job ? r->job_pos : r->rec_pos) == pos)
            return r;
    return NULL;
}

json_t *pg_opt_record(const pg_opt *table, const void *obj, const pg_opt_writer *w)
{
    json_t *out = json_object();
    const pg_opt *r;
    for (int pos = 1; out && (r = row_at_pos(table, pos, false)); pos++) {
        json_t *v = r->record ? r->record(r, obj, w->ctx) : render(r, obj, w, false);
        if (!v || json_object_set_new(out, r->rec_key, v) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

json_t *pg_opt_job(const pg_opt *table, const void *obj, const pg_opt_writer *w)
{
    json_t *out = json_object();
    const pg_opt *r;
    for (int pos = 1; out && (r = row_at_pos(table, pos, true)); pos++) {
        bool by_name = r->kind == PG_OPT_STRING || (r->flags & PG_OPT_NAME);
        if (by_name && (r->flags & PG_OPT_JOB_OPTIONAL) && !load_str(r, obj))
            continue;
        json_t *v = render(r, obj, w, true);
        if (!v || json_object_set_new(out, r->job_key, v) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

pg_status pg_opt_job_read(const pg_opt *table, void *obj, const json_t *job, const pg_jctx *ctx,
                          pg_diag *d)
{
    const pg_opt *r;
    for (int pos = 1; (r = row_at_pos(table, pos, true)); pos++) {
        bool required = !(r->flags & PG_OPT_JOB_OPTIONAL);
        pg_status st = PG_OK;
        switch (r->kind) {
        case PG_OPT_FLAG: {
            bool b = false;
            if ((st = pg_jget_bool(job, ctx, r->job_key, true, &b, d)) == PG_OK)
                store_int(r, obj, b);
            break;
        }
        case PG_OPT_INT: {
            int64_t v = 0;
            if ((st = pg_jget_int(job, ctx, r->job_key, true, &v, d)) == PG_OK)
                store_int(r, obj, v);
            break;
        }
        case PG_OPT_REAL: {
            double v = 0;
            if ((st = pg_jget_number(job, ctx, r->job_key, true, &v, d)) == PG_OK)
                store_real(r, obj, v);
            break;
        }
        case PG_OPT_STRING: {
            const char *s = NULL;
            if ((st = pg_jget_string(job, ctx, r->job_key, required, &s, d)) == PG_OK)
                store_str(r, obj, s);
            break;
        }
        case PG_OPT_CHOICE: {
            const char *s = NULL;
            char f[300], list[512];
            st = pg_jget_string(job, ctx, r->job_key, required, &s, d);
            const pg_opt_choice *c = s ? choice_named(r, s) : NULL;
            if (st == PG_OK && s && !c)
                st = pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0,
                                 pg_jctx_field(ctx, r->job_key, f, sizeof f),
                                 "expected %s, got '%s'", choice_list(r, list, sizeof list), s);
            else if (st == PG_OK && (r->flags & PG_OPT_NAME))
                store_str(r, obj, c ? c->name : NULL);
            else if (st == PG_OK && c)
                store_int(r, obj, c->code);
            break;
        }
        case PG_OPT_CUSTOM:
            break;
        }
        if (st != PG_OK)
            return st;
    }
    return PG_OK;
}
