/* Loading JSON files with jansson and reading fields with errors that name the file and the
 * JSON path of the bad field ("workloads[2].symbols.M") and say what was expected. */
#ifndef PG_BASE_JSONGET_H
#define PG_BASE_JSONGET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

/* Largest JSON input file accepted (bytes). */
#define PG_JSON_MAX_FILE_BYTES (16u * 1024u * 1024u)

/* Parse the file at path (at most PG_JSON_MAX_FILE_BYTES). On success *out is a new reference the
 * caller releases with json_decref. A UTF-8 byte-order mark at the start is accepted (some
 * editors write one; pg_json_text_start). Errors: PG_ERR_INPUT for a missing file, a file in
 * UTF-16 or UTF-32, or malformed JSON (with the line and column jansson reports), or when the
 * top level is not an object. */
pg_status pg_json_load(const char *path, json_t **out, pg_diag *d);

/* pg_json_load, then a zeroed object of size bytes for what the file describes: returned (the
 * caller frees it), or NULL with *st the error: pg_json_load's, or PG_ERR_INFRA "out of memory"
 * (then *root is set, for the caller to release). */
void *pg_json_load_new(const char *path, json_t **root, size_t size, pg_status *st, pg_diag *d);

/* Where the JSON text of a file's bytes starts: after a UTF-8 byte-order mark (EF BB BF) when
 * there is one, so that it is accepted; *len (may be NULL) shrinks by as much. Errors:
 * PG_ERR_INPUT naming path when the bytes start with a UTF-16 or UTF-32 byte-order mark (JSON
 * files are UTF-8, RFC 8259: "save it as UTF-8"); *start is then NULL. text: NUL-terminated
 * or len bytes. */
pg_status pg_json_text_start(const char *path, const char *text, size_t *len, const char **start,
                             pg_diag *d);

/* Context for field getters: the file being read and the JSON path of the object the getters
 * look into ("" for the top level). */
typedef struct {
    const char *file;
    char path[256];
} pg_jctx;

/* Context for a member: ctx.path + "." + key (or "[i]" for pg_jctx_index). */
pg_jctx pg_jctx_member(const pg_jctx *parent, const char *key);
pg_jctx pg_jctx_index(const pg_jctx *parent, size_t i);
/* Full path of key inside ctx, written to buf. */
const char *pg_jctx_field(const pg_jctx *ctx, const char *key, char *buf, size_t n);

/* Getters. obj must be a JSON object. required=false: a missing key leaves *out unchanged and
 * returns PG_OK. A present key with the wrong type is PG_ERR_INPUT naming the field, the
 * expected type and the type found. Returned strings/objects are borrowed from obj. */
pg_status pg_jget_string(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         const char **out, pg_diag *d);
pg_status pg_jget_int(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                      int64_t *out, pg_diag *d);
/* Accepts JSON integers and reals. */
pg_status pg_jget_number(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         double *out, pg_diag *d);
pg_status pg_jget_bool(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                       bool *out, pg_diag *d);
pg_status pg_jget_object(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                         json_t **out, pg_diag *d);
pg_status pg_jget_array(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                        json_t **out, pg_diag *d);

/* String field copied into dst (n bytes, NUL-terminated). nonempty: "" is an error. A string of
 * n bytes or more is PG_ERR_INPUT ("string is too long"), never silently cut. */
pg_status pg_jget_string_copy(const json_t *obj, const pg_jctx *ctx, const char *key, bool required,
                              bool nonempty, char *dst, size_t n, pg_diag *d);

/* [A-Za-z_][A-Za-z0-9_]*: the names of symbols, tensors and workspaces. */
bool pg_is_identifier(const char *s);

/* Reject keys of obj not in the NULL-terminated list allowed (PG_ERR_INPUT naming the unknown
 * key and listing the allowed ones), so typos do not pass silently. */
pg_status pg_jcheck_keys(const json_t *obj, const pg_jctx *ctx, const char *const *allowed,
                         pg_diag *d);

/* Name of a JSON value's type ("object", "string", ...). */
const char *pg_json_type_name(const json_t *v);

#endif
