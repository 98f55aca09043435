/* JSON loading and located field getters (see jsonget.h). */
#include "jsonget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

pg_status pg_json_text_start(const char *path, const char *text, size_t *len, const char **start,
                             pg_diag *d)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t n = len ? *len : strlen(text);
    *start = text;
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        *start = text + 3;
        if (len)
            *len -= 3;
        return PG_OK;
    }
    const char *enc = NULL;
    if (n >= 4 && ((u[0] == 0 && u[1] == 0 && u[2] == 0xFE && u[3] == 0xFF) ||
                   (u[0] == 0xFF && u[1] == 0xFE && u[2] == 0 && u[3] == 0)))
        enc = "UTF-32";
    else if (n >= 2 && ((u[0] == 0xFE && u[1] == 0xFF) || (u[0] == 0xFF && u[1] == 0xFE)))
        enc = "UTF-16";
    if (!enc)
        return PG_OK;
    *start = NULL;
    return pg_diag_set(d, PG_ERR_INPUT, path, 1, NULL,
                       "the file is %s (it starts with a %s byte-order mark); JSON files are "
                       "read as UTF-8: save it as UTF-8",
                       enc, enc);
}

pg_status pg_json_load(const char *path, json_t **out, pg_diag *d)
{
    *out = NULL;
    char *text = NULL;
    const char *start;
    size_t len = 0;
    pg_status st = pg_file_read(path, PG_JSON_MAX_FILE_BYTES, &text, &len, d);
    if (st != PG_OK)
        return st;
    if ((st = pg_json_text_start(path, text, &len, &start, d)) != PG_OK) {
        free(text);
        return st;
    }
    json_error_t err;
    json_t *root = json_loadb(start, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root)
        return pg_diag_set(d, PG_ERR_INPUT, path, err.line, NULL,
                           "malformed JSON at line %d column %d: %s", err.line, err.column,
                           err.text);
    if (!json_is_object(root)) {
        pg_diag_set(d, PG_ERR_INPUT, path, 1, NULL,
                    "expected a JSON object at the top level, found %s", pg_json_type_name(root));
        json_decref(root);
        return PG_ERR_INPUT;
    }
    *out = root;
    return PG_OK;
}

pg_jctx pg_jctx_member(const pg_jctx *parent, const char *key)
{
    pg_jctx c = {.file = parent->file};
    pg_jctx_field(parent, key, c.path, sizeof c.path);
    return c;
}

pg_jctx pg_jctx_index(const pg_jctx *parent, size_t i)
{
    pg_jctx c = {.file = parent->file};
    snprintf(c.path, sizeof c.path, "%s[%zu]", parent->path, i);
    return c;
}

const char *pg_jctx_field(const pg_jctx *ctx, const char *key, char *buf, size_t n)
{
    if (ctx->path[0])
        snprintf(buf, n, "%s.%s", ctx->path, key);
    else
        snprintf(buf, n, "%s", key);
    return buf;
}

const char *pg_json_type_name(const json_t *v)
{
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "unknown";
}

/* Shared lookup: NULL *v with PG_OK means "absent and optional". */
static pg_status lookup(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                        json_t **v, pg_diag *d)
{
    char f[300];
    *v = json_object_get(obj, key);
    if (!*v && required)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "required field is missing");
    return PG_OK;
}

static pg_status wrong_type(const pg_jctx *ctx, const char *key, const char *want,
                            const json_t *v, pg_diag *d)
{
    char f[300];
    return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                       "expected %s, found %s", want, pg_json_type_name(v));
}

pg_status pg_jget_string(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         const char **out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_string(v))
        return wrong_type(ctx, key, "a string", v, d);
    *out = json_string_value(v);
    return PG_OK;
}

pg_status pg_jget_int(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                      int64_t *out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_integer(v))
        return wrong_type(ctx, key, "an integer", v, d);
    *out = (int64_t)json_integer_value(v);
    return PG_OK;
}

pg_status pg_jget_number(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         double *out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_number(v))
        return wrong_type(ctx, key, "a number", v, d);
    *out = json_number_value(v);
    return PG_OK;
}

pg_status pg_jget_bool(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                       bool *out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_boolean(v))
        return wrong_type(ctx, key, "true or false", v, d);
    *out = json_is_true(v);
    return PG_OK;
}

pg_status pg_jget_object(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         json_t **out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_object(v))
        return wrong_type(ctx, key, "an object", v, d);
    *out = v;
    return PG_OK;
}

pg_status pg_jget_array(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                        json_t **out, pg_diag *d)
{
    json_t *v;
    pg_status st = lookup(obj, ctx, key, required, &v, d);
    if (st != PG_OK || !v)
        return st;
    if (!json_is_array(v))
        return wrong_type(ctx, key, "an array", v, d);
    *out = v;
    return PG_OK;
}

pg_status pg_jcheck_keys(const json_t *obj, const pg_jctx *ctx, const char *const *allowed,
                         pg_diag *d)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, key) == 0)
                ok = true;
        if (!ok) {
            char f[300], list[512] = "";
            size_t used = 0;
            for (const char *const *a = allowed; *a && used < sizeof list; a++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         a == allowed ? "" : ", ", *a);
            return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                               "unknown field; allowed here: %s", list);
        }
    }
    return PG_OK;
}

pg_status pg_jget_string_copy(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                              bool nonempty, char *dst, size_t n, pg_diag *d)
{
    const char *s = NULL;
    char f[300];
    pg_status st = pg_jget_string(obj, ctx, key, required, &s, d);
    if (st != PG_OK || !s)
        return st;
    if (nonempty && !s[0])
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "expected a non-empty string");
    if (strlen(s) >= n)
        return pg_diag_set(d, PG_ERR_INPUT, ctx->file, 0, pg_jctx_field(ctx, key, f, sizeof f),
                           "string is too long (%zu characters, at most %zu)", strlen(s), n - 1);
    snprintf(dst, n, "%s", s);
    return PG_OK;
}

bool pg_is_identifier(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

void *pg_json_load_new(const char *path, json_t **root, size_t size, pg_status *st, pg_diag *d)
{
    *st = pg_json_load(path, root, d);
    if (*st != PG_OK)
        return NULL;
    void *obj = calloc(1, size);
    if (!obj)
        *st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    return obj;
}
