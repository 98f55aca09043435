/* The task's accepted kernel: the previously accepted submission that a candidate must not be
 * slower than (issue 4, item 6). It is validated, assembled and loaded like a candidate and
 * re-measured in the same process as one more arm of the performance blocks; its numbers are
 * never read from a file. A candidate whose cubin holds the same code (byte-identical, or equal
 * code sections: gate/ptx/cubin_code.h) needs no timing at all. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "internal.h"
#include "ptx/cubin_code.h"

/* Offset of the accepted kernel's temporary file names from the candidate's. */
#define PG_ACCEPTED_INDEX_BASE 100000

/* The accepted kernel's manifest: --accepted-kernel (or none), else the task's
 * gate.accepted_kernel relative to the task's folder. "" when there is none. */
static void accepted_path(const pg_run *run, const pg_task *t, char *out, size_t n)
{
    const char *opt = run->o->accepted_kernel;
    out[0] = '\0';
    if (opt && strcmp(opt, "none") == 0)
        return;
    if (opt && opt[0]) {
        snprintf(out, n, "%s", opt);
        return;
    }
    if (!t->accepted_kernel[0])
        return;
    char dir[PG_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", t->file);
    snprintf(out, n, "%s/%s", dirname(dir), t->accepted_kernel);
}

pg_status pg_accepted_prepare(pg_run *run, pg_submission *s, int index, pg_diag *d)
{
    char path[PG_PATH_MAX];
    accepted_path(run, s->task, path, sizeof path);
    if (!path[0] || index >= PG_ACCEPTED_INDEX_BASE)
        return PG_OK; /* none, or this is itself an accepted kernel */
    const char *field = run->o->accepted_kernel ? "--accepted-kernel" : "gate.accepted_kernel";
    const char *file = run->o->accepted_kernel ? NULL : s->task->file;
    pg_submission *a = calloc(1, sizeof *a);
    if (!a)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    s->accepted = a;
    pg_diag ad;
    pg_diag_clear(&ad);
    pg_status st = pg_submission_prepare(run, path, PG_ACCEPTED_INDEX_BASE + index, a, &ad);
    if (st != PG_OK) {
        char msg[2400];
        pg_diag_format(&ad, msg, sizeof msg);
        return pg_diag_set(d, st, file, 0, field, "the accepted kernel '%s' is not usable: %s",
                           path, msg);
    }
    a->is_accepted = true;
    if (strcmp(a->task->id, s->task->id) != 0)
        return pg_diag_set(d, PG_ERR_INPUT, file, 0, field,
                           "the accepted kernel '%s' is for task '%s', expected '%s'", path,
                           a->task->id, s->task->id);
    /* Same task and the same --workloads filter: a's plans line up with s's one for one. */
    return PG_OK;
}

/* Cubins with the same code run identical SASS: the regression comparison needs no timing.
 * Byte-identical, or equal code sections when only what depends on the source path differs
 * (an installed or moved copy of the accepted kernel: nvcc writes the path into the PTX). */
static pg_cubin_match same_code(const char *p, const char *q)
{
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    pg_diag d;
    pg_cubin_match m = PG_CUBIN_DIFFERENT;
    if (pg_file_read(p, (size_t)256 << 20, &a, &na, &d) == PG_OK &&
        pg_file_read(q, (size_t)256 << 20, &b, &nb, &d) == PG_OK)
        pg_cubin_compare((const unsigned char *)a, na, (const unsigned char *)b, nb, &m, &d);
    free(a);
    free(b);
    return m;
}

const char *pg_accepted_identical_text(const pg_submission *s)
{
    return s->accepted_identical_by && strcmp(s->accepted_identical_by, "code_sections") == 0
               ? "same code sections; only path-dependent debug sections differ"
               : "byte-identical cubin";
}

const char *pg_accepted_identical_reason(const pg_submission *s)
{
    return s->accepted_identical_by && strcmp(s->accepted_identical_by, "code_sections") == 0
               ? "SASS-identical: the cubin's code sections (.text, .nv.info, .nv.constant, "
                 ".nv.shared, symbols) equal the accepted kernel's; only sections that depend "
                 "on the source path (debug line tables, file names) differ"
               : "SASS-identical: the cubin is byte-identical to the accepted kernel's";
}

void pg_accepted_assemble(pg_run *run, pg_submission *s)
{
    pg_submission *a = s->accepted;
    if (!a)
        return;
    a->json = json_pack("{s:[]}", "stages");
    pg_stage_assemble(run, a);
    json_t *st = json_array_get(json_object_get(a->json, "stages"), 0);
    const char *status = pg_stage_status(st);
    s->accepted_usable = strcmp(status, "pass") == 0 && a->cubin_path[0];
    if (!s->accepted_usable)
        snprintf(s->accepted_note, sizeof s->accepted_note,
                 "the accepted kernel did not assemble: %s",
                 json_string_value(json_object_get(st, "message")));
    pg_cubin_match m = s->accepted_usable && s->cubin_path[0]
                           ? same_code(s->cubin_path, a->cubin_path)
                           : PG_CUBIN_DIFFERENT;
    s->accepted_identical = m != PG_CUBIN_DIFFERENT;
    s->accepted_identical_by = pg_cubin_match_name(m);
    json_object_set_new(s->json, "accepted_kernel",
                        json_pack("{s:o, s:o, s:s, s:o, s:b, s:o}", "manifest",
                                  pg_jstr(a->manifest->file), "source",
                                  pg_jstr(a->manifest->source), "assemble", status, "message",
                                  pg_jstr(json_string_value(json_object_get(st, "message"))),
                                  "cubin_identical", s->accepted_identical, "identical_by",
                                  s->accepted_identical_by
                                      ? json_string(s->accepted_identical_by)
                                      : json_null()));
    json_decref(a->json);
    a->json = NULL;
}

void pg_accepted_load(pg_run *run, pg_submission *s)
{
    pg_submission *a = s->accepted;
    if (!a || !s->accepted_usable || s->accepted_identical)
        return;
    a->json = NULL;
    s->accepted_kernels = calloc((size_t)a->manifest->n_launches, sizeof *s->accepted_kernels);
    char log[4096] = "";
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = s->accepted_kernels
                       ? pg_submission_load_module(run, a, &s->accepted_module,
                                                   s->accepted_kernels, log, sizeof log, &d)
                       : pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (st != PG_OK) {
        char msg[2400];
        s->accepted_usable = false;
        snprintf(s->accepted_note, sizeof s->accepted_note,
                 "the accepted kernel did not load: %s", pg_diag_format(&d, msg, sizeof msg));
    }
}

void pg_accepted_release(pg_submission *s)
{
    if (s->accepted_module)
        pg_module_unload(s->accepted_module);
    free(s->accepted_kernels);
    if (s->accepted) {
        pg_submission_release(s->accepted);
        free(s->accepted);
    }
    s->accepted_module = NULL;
    s->accepted_kernels = NULL;
    s->accepted = NULL;
}
