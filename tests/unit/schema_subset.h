/* A validator for the subset of JSON Schema 2020-12 that ptxgate's schemas (the JSON files in
 * schemas/) use, shared by the unit tests that check a schema and the files written for it. A
 * keyword outside the subset fails the test, so a schema cannot drift out of what is checked.
 * Header-only (static functions) for cmocka test programs: include it after <cmocka.h> and
 * <jansson.h>. Usage: g_schema_root = schema; check_schema(schema, "");
 * schema_errors(schema, doc, "", why, sizeof why) == 0. */
#ifndef PG_TESTS_SCHEMA_SUBSET_H
#define PG_TESTS_SCHEMA_SUBSET_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const json_t *g_schema_root;

static bool type_is(const json_t *v, const char *t)
{
    if (strcmp(t, "object") == 0) return json_is_object(v);
    if (strcmp(t, "array") == 0) return json_is_array(v);
    if (strcmp(t, "string") == 0) return json_is_string(v);
    if (strcmp(t, "integer") == 0) return json_is_integer(v);
    if (strcmp(t, "number") == 0) return json_is_number(v);
    if (strcmp(t, "boolean") == 0) return json_is_boolean(v);
    if (strcmp(t, "null") == 0) return json_is_null(v);
    fail_msg("unknown type %s", t);
    return false;
}

static const json_t *resolve_ref(const char *ref)
{
    const char *prefix = "#/$defs/";
    if (strncmp(ref, prefix, strlen(prefix)) != 0)
        fail_msg("unsupported $ref %s", ref);
    const json_t *target = json_object_get(json_object_get(g_schema_root, "$defs"),
                                           ref + strlen(prefix));
    if (!target)
        fail_msg("dangling $ref %s", ref);
    return target;
}

/* Number of errors of v against schema s; the first is described in why. */
static int schema_errors(const json_t *s, const json_t *v, const char *path, char *why, size_t n);

static int err_at(char *why, size_t n, const char *path, const char *what)
{
    if (!why[0])
        snprintf(why, n, "%s: %s", path[0] ? path : "(top)", what);
    return 1;
}

static int schema_errors(const json_t *s, const json_t *v, const char *path, char *why, size_t n)
{
    int errs = 0;
    const char *kw;
    const json_t *a;
    if (json_is_boolean(s))
        return json_is_true(s) ? 0 : err_at(why, n, path, "not allowed");
    assert_true(json_is_object(s));
    json_object_foreach((json_t *)s, kw, a) {
        if (!strcmp(kw, "$schema") || !strcmp(kw, "title") || !strcmp(kw, "description") ||
            !strcmp(kw, "$defs") || !strcmp(kw, "then") || !strcmp(kw, "else") ||
            !strcmp(kw, "$comment"))
            continue;
        if (!strcmp(kw, "$ref")) {
            errs += schema_errors(resolve_ref(json_string_value(a)), v, path, why, n);
        } else if (!strcmp(kw, "type")) {
            bool ok = false;
            if (json_is_string(a))
                ok = type_is(v, json_string_value(a));
            size_t i;
            const json_t *t;
            json_array_foreach(a, i, t) ok |= type_is(v, json_string_value(t));
            if (!ok)
                errs += err_at(why, n, path, "wrong type");
        } else if (!strcmp(kw, "const")) {
            if (!json_equal(a, (json_t *)v))
                errs += err_at(why, n, path, "not the const value");
        } else if (!strcmp(kw, "enum")) {
            bool ok = false;
            size_t i;
            const json_t *e;
            json_array_foreach(a, i, e) ok |= json_equal((json_t *)e, (json_t *)v);
            if (!ok)
                errs += err_at(why, n, path, "not in enum");
        } else if (!strcmp(kw, "required")) {
            size_t i;
            const json_t *k;
            json_array_foreach(a, i, k) if (json_is_object(v) &&
                                            !json_object_get(v, json_string_value(k)))
                errs += err_at(why, n, path, "required key missing");
        } else if (!strcmp(kw, "properties")) {
            const char *k;
            const json_t *sub;
            json_object_foreach((json_t *)a, k, sub) {
                const json_t *m = json_is_object(v) ? json_object_get(v, k) : NULL;
                if (m) {
                    char p[512];
                    snprintf(p, sizeof p, "%s.%s", path, k);
                    errs += schema_errors(sub, m, p, why, n);
                }
            }
        } else if (!strcmp(kw, "additionalProperties")) {
            const json_t *props = json_object_get(s, "properties");
            const char *k;
            const json_t *m;
            if (json_is_object(v))
                json_object_foreach((json_t *)v, k, m) {
                    if (props && json_object_get(props, k))
                        continue;
                    char p[512];
                    snprintf(p, sizeof p, "%s.%s", path, k);
                    errs += schema_errors(a, m, p, why, n);
                }
        } else if (!strcmp(kw, "items")) {
            size_t i;
            const json_t *m;
            if (json_is_array(v))
                json_array_foreach(v, i, m) {
                    char p[512];
                    snprintf(p, sizeof p, "%s[%zu]", path, i);
                    errs += schema_errors(a, m, p, why, n);
                }
        } else if (!strcmp(kw, "allOf")) {
            size_t i;
            const json_t *sub;
            json_array_foreach(a, i, sub) errs += schema_errors(sub, v, path, why, n);
        } else if (!strcmp(kw, "if")) {
            char scratch[8] = "";
            bool holds = schema_errors(a, v, path, scratch, sizeof scratch) == 0;
            const json_t *branch = json_object_get(s, holds ? "then" : "else");
            if (branch)
                errs += schema_errors(branch, v, path, why, n);
        } else if (!strcmp(kw, "pattern")) {
            if (json_is_string(v)) {
                regex_t re;
                assert_int_equal(regcomp(&re, json_string_value(a), REG_EXTENDED | REG_NOSUB), 0);
                if (regexec(&re, json_string_value(v), 0, NULL, 0) != 0)
                    errs += err_at(why, n, path, "does not match pattern");
                regfree(&re);
            }
        } else if (!strcmp(kw, "minLength")) {
            if (json_is_string(v) && (json_int_t)json_string_length(v) < json_integer_value(a))
                errs += err_at(why, n, path, "too short");
        } else if (!strcmp(kw, "minimum") || !strcmp(kw, "exclusiveMinimum") ||
                   !strcmp(kw, "exclusiveMaximum")) {
            if (json_is_number(v)) {
                double x = json_number_value(v), lim = json_number_value(a);
                bool ok = !strcmp(kw, "minimum") ? x >= lim
                          : !strcmp(kw, "exclusiveMinimum") ? x > lim : x < lim;
                if (!ok)
                    errs += err_at(why, n, path, "out of range");
            }
        } else {
            fail_msg("keyword %s is outside the subset this test checks", kw);
        }
    }
    return errs;
}

/* Every keyword is in the subset, every $ref resolves, every sub-schema is checked too. */
static void check_schema(const json_t *s, const char *path)
{
    static const char *const k_known[] = {
        "$schema", "title", "description", "$comment", "$defs", "$ref", "type", "const", "enum",
        "required", "properties", "additionalProperties", "items", "allOf", "if", "then", "else",
        "pattern", "minLength", "minimum", "exclusiveMinimum", "exclusiveMaximum", NULL};
    if (json_is_boolean(s))
        return;
    if (!json_is_object(s))
        fail_msg("%s: a schema must be an object or a boolean", path);
    const char *kw;
    const json_t *a;
    json_object_foreach((json_t *)s, kw, a) {
        bool known = false;
        for (const char *const *k = k_known; *k; k++)
            known |= strcmp(*k, kw) == 0;
        if (!known)
            fail_msg("%s: keyword %s is outside the subset this test checks", path, kw);
        char p[512];
        snprintf(p, sizeof p, "%s/%s", path, kw);
        if (!strcmp(kw, "$ref"))
            resolve_ref(json_string_value(a));
        else if (!strcmp(kw, "properties") || !strcmp(kw, "$defs")) {
            const char *k;
            const json_t *sub;
            json_object_foreach((json_t *)a, k, sub) {
                char q[600];
                snprintf(q, sizeof q, "%s/%s", p, k);
                check_schema(sub, q);
            }
        } else if (!strcmp(kw, "allOf")) {
            size_t i;
            const json_t *sub;
            json_array_foreach(a, i, sub) check_schema(sub, p);
        } else if (!strcmp(kw, "additionalProperties") || !strcmp(kw, "items") ||
                   !strcmp(kw, "if") || !strcmp(kw, "then") || !strcmp(kw, "else")) {
            check_schema(a, p);
        } else if (!strcmp(kw, "pattern")) {
            regex_t re;
            if (regcomp(&re, json_string_value(a), REG_EXTENDED | REG_NOSUB) != 0)
                fail_msg("%s: pattern does not compile", p);
            regfree(&re);
        }
    }
}

#endif
