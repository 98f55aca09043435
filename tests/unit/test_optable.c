/* Typed option tables (base/optable.h) on a small settings struct: the table check, defaults,
 * argv splitting (given rows, last value wins, --name=value, "--", unknown options, missing
 * arguments, --help before bad values), each kind's conversion with its range or choices and
 * its message, custom parsers, the record's order and nulls, and the job written and read back
 * field for field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/optable.h"

typedef enum { COLOR_RED, COLOR_GREEN, COLOR_BLUE } color;

typedef struct {
    bool verbose;   /* --verbose */
    bool energy;    /* --no-energy (inverted) */
    const char *name;
    const char *tag; /* nonempty, optional in the job */
    int count;
    int64_t bytes;
    size_t size;
    double ratio;   /* record: null unless > 0 */
    double level;
    bool skip;      /* --if-missing skip|fail */
    color col;
    const char *mode; /* by name */
    int pair[2];    /* custom: "A/B" */
} demo;

static json_t *text(const char *s)
{
    return json_string(s);
}

static pg_status parse_pair(const pg_opt *row, const char *t, void *obj, pg_diag *d)
{
    demo *o = obj;
    (void)row;
    if (sscanf(t, "%d/%d", &o->pair[0], &o->pair[1]) != 2)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--pair", "expected A/B, found '%s'", t);
    return PG_OK;
}

static json_t *record_pair(const pg_opt *row, const void *obj, const void *ctx)
{
    const demo *o = obj;
    (void)row;
    return json_pack("[i, i, i]", o->pair[0], o->pair[1], *(const int *)ctx);
}

static const pg_opt_choice k_skip[] = {{"skip", 1}, {"fail", 0}, {NULL, 0}};
static const pg_opt_choice k_color[] = {
    {"red", COLOR_RED}, {"green", COLOR_GREEN}, {"blue", COLOR_BLUE}, {NULL, 0}};
static const pg_opt_choice k_mode[] = {{"cold", 0}, {"sustained", 0}, {NULL, 0}};

#define F(f) PG_OPT_FIELD(demo, f)
static const pg_opt k_demo[] = {
    {"verbose", NULL, "Say more.", PG_OPT_FLAG, F(verbose), .rec_key = "verbose", .rec_pos = 3},
    {"no-energy", NULL, "No energy.", PG_OPT_FLAG, F(energy), .def = 1, .flags = PG_OPT_INVERT,
     .job_key = "energy", .job_pos = 1},
    {"name", "TEXT", "A name.", PG_OPT_STRING, F(name), .def_str = "anon", .rec_key = "name",
     .rec_pos = 1, .job_key = "name", .job_pos = 2},
    {"tag", "TEXT", "A tag.", PG_OPT_STRING, F(tag), .flags = PG_OPT_NONEMPTY | PG_OPT_JOB_OPTIONAL,
     .rec_key = "tag", .rec_pos = 2, .job_key = "tag", .job_pos = 3},
    {"count", "N", "A count.", PG_OPT_INT, F(count), .lo = 1, .hi = 10, .def = 3,
     .job_key = "count", .job_pos = 4},
    {"bytes", "N", "Bytes.", PG_OPT_INT, F(bytes), .lo = 0, .hi = 1099511627776.0, .def = 7,
     .rec_key = "bytes", .rec_pos = 4, .job_key = "bytes", .job_pos = 5},
    {"size", "N", "A size.", PG_OPT_INT, F(size), .lo = 1, .hi = 1e12, .def = 64,
     .job_key = "size", .job_pos = 6},
    {"ratio", "X", "A ratio.", PG_OPT_REAL, F(ratio), .lo = 1e-9, .hi = 1e9,
     .flags = PG_OPT_REC_POSITIVE, .rec_key = "ratio", .rec_pos = 5, .job_key = "ratio",
     .job_pos = 7},
    {"level", "X", "A level.", PG_OPT_REAL, F(level), .lo = 0.5, .hi = 0.9999, .def = 0.95,
     .job_key = "level", .job_pos = 8},
    {"if-missing", "skip|fail", "Skip or fail.", PG_OPT_CHOICE, F(skip), .choices = k_skip},
    {"color", "C", "A color.", PG_OPT_CHOICE, F(col), .choices = k_color, .def = COLOR_GREEN,
     .rec_key = "color", .rec_pos = 6, .job_key = "color", .job_pos = 9},
    {"mode", "M", "A mode.", PG_OPT_CHOICE, F(mode), .choices = k_mode,
     .flags = PG_OPT_NAME | PG_OPT_JOB_OPTIONAL, .rec_key = "mode", .rec_pos = 7,
     .job_key = "mode", .job_pos = 10},
    {"pair", "A/B", "A pair.", PG_OPT_CUSTOM, F(pair), .parse = parse_pair, .rec_key = "pair",
     .rec_pos = 8, .record = record_pair},
    {0},
};
#undef F

/* argv from a NUL-separated list; the command name first. */
typedef struct {
    char buf[512];
    char *argv[32];
    int argc;
} args_of;

static void make_args(args_of *a, const char *const *words)
{
    size_t used = 0;
    a->argc = 0;
    a->argv[a->argc++] = strcpy(a->buf, "demo");
    used = 5;
    for (int i = 0; words[i]; i++) {
        a->argv[a->argc++] = strcpy(a->buf + used, words[i]);
        used += strlen(words[i]) + 1;
    }
    a->argv[a->argc] = NULL;
}

static pg_opt_argv_result split(const char *const *words, pg_opt_args *out, const char **bad)
{
    static args_of a;
    make_args(&a, words);
    return pg_opt_parse_argv(k_demo, a.argc, a.argv, out, bad);
}

/* Set one option from its command-line text; the status and the message. */
static pg_status set(demo *o, const char *name, const char *t, char *msg)
{
    pg_diag d;
    pg_diag_clear(&d);
    for (const pg_opt *r = k_demo; r->name; r++)
        if (strcmp(r->name, name) == 0) {
            pg_status st = pg_opt_set(r, o, t, &d);
            strcpy(msg, d.message);
            return st;
        }
    fail_msg("no row %s", name);
    return PG_ERR_INFRA;
}

static void test_table_valid_and_invalid(void **state)
{
    (void)state;
    char why[256];
    assert_true(pg_opt_table_valid(k_demo, why, sizeof why));
    assert_int_equal(pg_opt_count(k_demo), 13);
    pg_opt bad[3];
    memcpy(bad, k_demo, 2 * sizeof *bad);
    memset(&bad[2], 0, sizeof bad[2]);
    bad[1].name = "verbose"; /* two rows of one name */
    assert_false(pg_opt_table_valid(bad, why, sizeof why));
    assert_non_null(strstr(why, "--verbose"));
    memcpy(bad, k_demo, 2 * sizeof *bad);
    bad[0].rec_pos = 2; /* record positions 1.. with a gap */
    bad[1].job_pos = 0;
    bad[1].job_key = NULL;
    assert_false(pg_opt_table_valid(bad, why, sizeof why));
    assert_non_null(strstr(why, "record position 1"));
    memcpy(bad, &k_demo[4], sizeof *bad); /* an INT default outside its range */
    bad[0].def = 11;
    bad[0].job_pos = 0;
    bad[0].job_key = NULL;
    memset(&bad[1], 0, sizeof bad[1]);
    assert_false(pg_opt_table_valid(bad, why, sizeof why));
}

static void test_defaults(void **state)
{
    (void)state;
    demo o;
    memset(&o, 0x5a, sizeof o);
    o.pair[0] = o.pair[1] = -1;
    pg_opt_defaults(k_demo, &o);
    assert_false(o.verbose);
    assert_true(o.energy);
    assert_string_equal(o.name, "anon");
    assert_null(o.tag);
    assert_int_equal(o.count, 3);
    assert_int_equal(o.bytes, 7);
    assert_int_equal(o.size, 64);
    assert_true(o.ratio == 0 && o.level == 0.95);
    assert_false(o.skip);
    assert_int_equal(o.col, COLOR_GREEN);
    assert_null(o.mode);
    assert_int_equal(o.pair[0], -1); /* custom rows keep what they had */
}

static void test_argv_split(void **state)
{
    (void)state;
    pg_opt_args a;
    const char *bad;
    const char *w1[] = {"--count", "4", "x.json", "--name=first", "--verbose", "--name",
                        "second", "--", "--count", NULL};
    assert_int_equal(split(w1, &a, &bad), PG_OPT_ARGS_OK);
    assert_int_equal(a.npos, 2);
    assert_string_equal(a.positional[0], "x.json");
    assert_string_equal(a.positional[1], "--count"); /* after "--": an argument */
    assert_true(a.given == ((1u << 0) | (1u << 2) | (1u << 4)));
    assert_string_equal(a.text[2], "second"); /* the last one wins */
    assert_string_equal(a.text[4], "4");
    assert_null(a.text[0]);
    assert_true(pg_opt_given(k_demo, &a, offsetof(demo, count)));
    assert_false(pg_opt_given(k_demo, &a, offsetof(demo, bytes)));
    assert_string_equal(pg_opt_text(k_demo, &a, offsetof(demo, name)), "second");
    assert_null(pg_opt_text(k_demo, &a, offsetof(demo, tag)));
    pg_opt_args_free(&a);

    const char *w2[] = {"--colour", "red", NULL};
    assert_int_equal(split(w2, &a, &bad), PG_OPT_ARGS_UNKNOWN);
    assert_string_equal(bad, "--colour");
    pg_opt_args_free(&a);
    const char *w3[] = {"x.json", "--count", NULL};
    assert_int_equal(split(w3, &a, &bad), PG_OPT_ARGS_NEEDS_VALUE);
    assert_string_equal(bad, "--count");
    pg_opt_args_free(&a);
    const char *w4[] = {"--count", "zero", "--help", "--bogus", NULL};
    assert_int_equal(split(w4, &a, &bad), PG_OPT_ARGS_HELP); /* before converting anything */
    pg_opt_args_free(&a);
    const char *w5[] = {"--bogus", "--help", NULL};
    assert_int_equal(split(w5, &a, &bad), PG_OPT_ARGS_UNKNOWN);
    pg_opt_args_free(&a);
    const char *w6[] = {"--verbose=yes", NULL}; /* a flag takes no argument */
    assert_int_equal(split(w6, &a, &bad), PG_OPT_ARGS_NO_VALUE);
    assert_string_equal(bad, "--verbose=yes");
    pg_opt_args_free(&a);
}

static void test_integers(void **state)
{
    (void)state;
    demo o;
    char msg[2048];
    pg_opt_defaults(k_demo, &o);
    assert_int_equal(set(&o, "count", "10", msg), PG_OK);
    assert_int_equal(o.count, 10);
    assert_int_equal(set(&o, "count", "1", msg), PG_OK);
    assert_int_equal(o.count, 1);
    const char *bad[] = {"0", "11", "-1", "3x", "", " 4x", "zero", "99999999999999999999", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(set(&o, "count", bad[i], msg), PG_ERR_INPUT);
        char want[128];
        snprintf(want, sizeof want, "--count: expected an integer from 1 to 10, got '%s'",
                 bad[i]);
        assert_string_equal(msg, want);
        assert_int_equal(o.count, 1); /* untouched */
    }
    /* 8-byte fields take values past 2^32 and print their range whole. */
    assert_int_equal(set(&o, "bytes", "1099511627776", msg), PG_OK);
    assert_true(o.bytes == (int64_t)1 << 40);
    assert_int_equal(set(&o, "bytes", "1099511627777", msg), PG_ERR_INPUT);
    assert_string_equal(msg, "--bytes: expected an integer from 0 to 1099511627776, got "
                             "'1099511627777'");
    assert_int_equal(set(&o, "size", "5000000000", msg), PG_OK);
    assert_true(o.size == (size_t)5000000000ULL);
}

static void test_reals(void **state)
{
    (void)state;
    demo o;
    char msg[2048];
    pg_opt_defaults(k_demo, &o);
    assert_int_equal(set(&o, "ratio", "1.5", msg), PG_OK);
    assert_true(o.ratio == 1.5);
    assert_int_equal(set(&o, "level", "0.9999", msg), PG_OK);
    assert_true(o.level == 0.9999);
    const char *bad[] = {"0", "1e10", "nan", "inf", "1.5x", "", "abc", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(set(&o, "ratio", bad[i], msg), PG_ERR_INPUT);
        char want[128];
        snprintf(want, sizeof want, "--ratio: expected a number from 1e-09 to 1e+09, got '%s'",
                 bad[i]);
        assert_string_equal(msg, want);
    }
    assert_true(o.ratio == 1.5);
    assert_int_equal(set(&o, "level", "1", msg), PG_ERR_INPUT);
    assert_string_equal(msg, "--level: expected a number from 0.5 to 0.9999, got '1'");
}

static void test_choices_flags_strings(void **state)
{
    (void)state;
    demo o;
    char msg[2048];
    pg_opt_defaults(k_demo, &o);
    assert_int_equal(set(&o, "if-missing", "skip", msg), PG_OK);
    assert_true(o.skip);
    assert_int_equal(set(&o, "if-missing", "maybe", msg), PG_ERR_INPUT);
    assert_string_equal(msg, "--if-missing: expected 'skip' or 'fail', got 'maybe'");
    assert_int_equal(set(&o, "color", "blue", msg), PG_OK);
    assert_int_equal(o.col, COLOR_BLUE);
    assert_int_equal(set(&o, "color", "Blue", msg), PG_ERR_INPUT); /* exact names only */
    assert_string_equal(msg, "--color: expected 'red', 'green' or 'blue', got 'Blue'");
    char mode_text[] = "sustained";
    assert_int_equal(set(&o, "mode", mode_text, msg), PG_OK);
    assert_string_equal(o.mode, "sustained");
    assert_ptr_equal(o.mode, k_mode[1].name); /* the table's name, not the argument */
    assert_int_equal(set(&o, "mode", "", msg), PG_ERR_INPUT);
    assert_string_equal(msg, "--mode: expected 'cold' or 'sustained', got ''");
    assert_int_equal(set(&o, "verbose", NULL, msg), PG_OK);
    assert_true(o.verbose);
    assert_int_equal(set(&o, "no-energy", NULL, msg), PG_OK);
    assert_false(o.energy);
    assert_int_equal(set(&o, "name", "", msg), PG_OK); /* "" is a name unless NONEMPTY */
    assert_string_equal(o.name, "");
    assert_int_equal(set(&o, "tag", "", msg), PG_ERR_INPUT);
    assert_string_equal(msg, "--tag: expected a value, got an empty string");
    assert_null(o.tag);
}

static void test_apply_and_custom(void **state)
{
    (void)state;
    demo o;
    pg_opt_args a;
    const char *bad;
    pg_diag d;
    pg_opt_defaults(k_demo, &o);
    const char *w1[] = {"--pair", "3/4", "--color", "red", "f", NULL};
    assert_int_equal(split(w1, &a, &bad), PG_OPT_ARGS_OK);
    assert_int_equal(pg_opt_apply(k_demo, &a, &o, &d), PG_OK);
    assert_int_equal(o.pair[0], 3);
    assert_int_equal(o.pair[1], 4);
    assert_int_equal(o.col, COLOR_RED);
    pg_opt_args_free(&a);
    /* Rows are converted in table order: the first bad one in it is the one reported. */
    const char *w2[] = {"--pair", "x", "--count", "0", NULL};
    assert_int_equal(split(w2, &a, &bad), PG_OPT_ARGS_OK);
    assert_int_equal(pg_opt_apply(k_demo, &a, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.message, "--count: expected an integer from 1 to 10, got '0'");
    assert_string_equal(d.field, "");
    pg_opt_args_free(&a);
    const char *w3[] = {"--pair", "x", NULL};
    assert_int_equal(split(w3, &a, &bad), PG_OPT_ARGS_OK);
    assert_int_equal(pg_opt_apply(k_demo, &a, &o, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "--pair"); /* a located diagnostic of its parser */
    pg_opt_args_free(&a);
}

static void test_record_order_and_nulls(void **state)
{
    (void)state;
    demo o;
    pg_opt_defaults(k_demo, &o);
    o.pair[0] = 1;
    o.pair[1] = 2;
    int ctx = 9;
    pg_opt_writer w = {text, &ctx};
    json_t *r = pg_opt_record(k_demo, &o, &w);
    char *s = json_dumps(r, JSON_COMPACT);
    assert_string_equal(s, "{\"name\":\"anon\",\"tag\":null,\"verbose\":false,\"bytes\":7,"
                           "\"ratio\":null,\"color\":\"green\",\"mode\":null,\"pair\":[1,2,9]}");
    free(s);
    json_decref(r);
    o.ratio = 2.5;
    o.mode = "cold";
    o.tag = "t";
    r = pg_opt_record(k_demo, &o, &w);
    assert_true(json_real_value(json_object_get(r, "ratio")) == 2.5);
    assert_string_equal(json_string_value(json_object_get(r, "mode")), "cold");
    assert_string_equal(json_string_value(json_object_get(r, "tag")), "t");
    json_decref(r);
}

static void test_job_round_trip(void **state)
{
    (void)state;
    demo o, back;
    pg_opt_defaults(k_demo, &o);
    pg_opt_writer w = {text, NULL};
    /* Defaults: the optional strings left out, everything else present in position order. */
    json_t *j = pg_opt_job(k_demo, &o, &w);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    assert_string_equal(s, "{\"energy\":true,\"name\":\"anon\",\"count\":3,\"bytes\":7,"
                           "\"size\":64,\"ratio\":0.0,\"level\":0.94999999999999996,"
                           "\"color\":\"green\"}");
    free(s);
    json_decref(j);
    /* Every job row away from its default, then back. */
    o.energy = false;
    o.name = "n";
    o.tag = "t";
    o.count = 9;
    o.bytes = (int64_t)1 << 40;
    o.size = 123456789012;
    o.ratio = 1.25;
    o.level = 0.6;
    o.col = COLOR_BLUE;
    o.mode = "sustained";
    j = pg_opt_job(k_demo, &o, &w);
    pg_opt_defaults(k_demo, &back);
    pg_jctx ctx = {.file = "job.json", .path = "options"};
    pg_diag d;
    assert_int_equal(pg_opt_job_read(k_demo, &back, j, &ctx, &d), PG_OK);
    assert_int_equal(back.energy, o.energy);
    assert_string_equal(back.name, o.name);
    assert_string_equal(back.tag, o.tag);
    assert_int_equal(back.count, o.count);
    assert_true(back.bytes == o.bytes);
    assert_true(back.size == o.size);
    assert_true(back.ratio == o.ratio && back.level == o.level);
    assert_int_equal(back.col, o.col);
    assert_string_equal(back.mode, o.mode);
    /* Rows without a job key are not carried. */
    assert_false(back.skip != false || back.verbose);
    /* Errors name the file and the field. */
    json_object_del(j, "count");
    assert_int_equal(pg_opt_job_read(k_demo, &back, j, &ctx, &d), PG_ERR_INPUT);
    assert_string_equal(d.file, "job.json");
    assert_string_equal(d.field, "options.count");
    json_object_set_new(j, "count", json_string("9"));
    assert_int_equal(pg_opt_job_read(k_demo, &back, j, &ctx, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "options.count");
    json_object_set_new(j, "count", json_integer(9));
    json_object_set_new(j, "color", json_string("purple"));
    assert_int_equal(pg_opt_job_read(k_demo, &back, j, &ctx, &d), PG_ERR_INPUT);
    assert_string_equal(d.field, "options.color");
    assert_string_equal(d.message, "expected 'red', 'green' or 'blue', got 'purple'");
    json_object_set_new(j, "color", json_string("red"));
    json_object_del(j, "tag"); /* optional: reads as NULL */
    back.tag = "stale";
    assert_int_equal(pg_opt_job_read(k_demo, &back, j, &ctx, &d), PG_OK);
    assert_null(back.tag);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_valid_and_invalid),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_argv_split),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_choices_flags_strings),
        cmocka_unit_test(test_apply_and_custom),
        cmocka_unit_test(test_record_order_and_nulls),
        cmocka_unit_test(test_job_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
