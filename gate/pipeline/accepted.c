/* The task's accepted kernel: the previously accepted submission that a candidate must not be
 * slower than (issue 4, item 6). It is validated, assembled and loaded like a candidate and
 * re-measured in the same process as one more arm of the performance blocks; its numbers are
 * never read from a file. A candidate whose cubin holds the same code (byte-identical, or equal
 * code sections: gate/ptx/cubin_code.h) needs no timing at all. One per manifest path is
 * prepared and assembled per run (per shard, when sharded) for all the submissions of its task. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "results_json.h"
#include "run.h"
#include "submission.h"
#include "submission_stages.h"
#include "ptx/cubin_code.h"


/* One accepted kernel of the run, prepared (nvcc included) and assembled once for every
 * submission of its task, also in a shard (never compacted: shard_filter.c): its manifest
 * path, and the assemble outcome once there is one. */
struct pg_accepted_entry {
    char path[PG_PATH_MAX];
    pg_submission *a;
    bool assembled;
    char status[16];
    char *message;
};

/* The run's entry for path, or NULL. */
static struct pg_accepted_entry *cache_find(pg_run *run, const char *path)
{
    for (size_t i = 0; i < run->n_accepted_cache; i++)
        if (strcmp(run->accepted_cache[i].path, path) == 0)
            return &run->accepted_cache[i];
    return NULL;
}

static struct pg_accepted_entry *cache_entry_of(pg_run *run, const pg_submission *a)
{
    for (size_t i = 0; i < run->n_accepted_cache; i++)
        if (run->accepted_cache[i].a == a)
            return &run->accepted_cache[i];
    return NULL;
}

void pg_accepted_cache_free(pg_run *run)
{
    for (size_t i = 0; i < run->n_accepted_cache; i++) {
        if (run->accepted_cache[i].a) {
            pg_submission_release(run->accepted_cache[i].a);
            free(run->accepted_cache[i].a);
        }
        free(run->accepted_cache[i].message);
    }
    free(run->accepted_cache);
    run->accepted_cache = NULL;
    run->n_accepted_cache = 0;
}

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
    /* The accepted kernel submitted as a candidate (the bundled examples, a suite of accepted
     * kernels): the same file is the same kernel, so it is neither compiled nor assembled a
     * second time. (In a shard the candidate's compaction is its accepted kernel's too:
     * shard_filter.c compacts it once.) */
    char real_a[PG_PATH_MAX], real_s[PG_PATH_MAX];
    pg_diag rd;
    if (pg_path_resolve(path, real_a, sizeof real_a, &rd) == PG_OK &&
        pg_path_resolve(s->manifest->file, real_s, sizeof real_s, &rd) == PG_OK &&
        strcmp(real_a, real_s) == 0) {
        s->accepted.kernel = s;
        s->accepted.shared = true;
        s->accepted.self = true;
        return PG_OK;
    }
    /* Every submission of a task selects the same workloads, so one accepted kernel serves
     * them all: prepared, compiled and assembled once per run (per shard). A shard keeps it
     * whole and gives each submission its plans of the workloads that submission kept
     * (shard_filter.c), so it is shared there too, whatever those are. */
    struct pg_accepted_entry *e = cache_find(run, path);
    if (e) {
        s->accepted.kernel = e->a;
        s->accepted.shared = true;
        if (strcmp(e->a->task->id, s->task->id) != 0)
            return pg_diag_set(d, PG_ERR_INPUT, file, 0, field,
                               "the accepted kernel '%s' is for task '%s', expected '%s'", path,
                               e->a->task->id, s->task->id);
        return PG_OK;
    }
    pg_submission *a = calloc(1, sizeof *a);
    if (!a)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    struct pg_accepted_entry *grown =
        realloc(run->accepted_cache, (run->n_accepted_cache + 1) * sizeof *grown);
    if (!grown) {
        free(a);
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    }
    run->accepted_cache = grown;
    e = &run->accepted_cache[run->n_accepted_cache++];
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    e->a = a; /* the run owns it, also when preparing it fails below */
    s->accepted.shared = true;
    s->accepted.kernel = a;
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
    /* Same task and the same --workloads filter; each manifest's `supports` may decline other
     * workloads, so plans are matched by task workload (pg_accepted_plan), not by position. */
    return PG_OK;
}

const pg_plan *pg_accepted_plan(const pg_submission *s, int i)
{
    const pg_submission *a = s->accepted.kernel;
    for (int j = 0; a && j < a->n_workloads; j++)
        if (a->workloads[j] == s->workloads[i])
            return &a->plans[j];
    return NULL;
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
    return s->accepted.identical_by && strcmp(s->accepted.identical_by, "code_sections") == 0
               ? "same code sections; only path-dependent debug sections differ"
               : "byte-identical cubin";
}

const char *pg_accepted_identical_reason(const pg_submission *s)
{
    return s->accepted.identical_by && strcmp(s->accepted.identical_by, "code_sections") == 0
               ? "SASS-identical: the cubin's code sections (.text, .nv.info, .nv.constant, "
                 ".nv.shared, symbols) equal the accepted kernel's; only sections that depend "
                 "on the source path (debug line tables, file names) differ"
               : "SASS-identical: the cubin is byte-identical to the accepted kernel's";
}

void pg_accepted_assemble(pg_run *run, pg_submission *s)
{
    pg_submission *a = s->accepted.kernel;
    if (!a)
        return;
    const pg_stage_entry *cand_st = pg_ledger_at(&s->stages, 0);
    const char *cand = pg_stage_status(cand_st);
    /* A candidate that did not assemble is never timed: its accepted kernel is not needed. */
    if (strcmp(cand, "fail") == 0) {
        s->accepted.usable = false;
        snprintf(s->accepted.note, sizeof s->accepted.note,
                 "the accepted kernel was not assembled: the candidate did not assemble");
        json_object_set_new(s->json, "accepted_kernel",
                            json_pack("{s:o, s:o, s:s, s:s, s:b}", "manifest",
                                      pg_jstr(a->manifest->file), "source",
                                      pg_jstr(a->manifest->source), "assemble", "skipped",
                                      "message", s->accepted.note, "cubin_identical", false));
        return;
    }
    if (s->accepted.self) {
        /* Its own accepted kernel: the candidate's assembly is the accepted kernel's. */
        s->accepted.usable = strcmp(cand, "pass") == 0 && s->cubin_path[0];
        s->accepted.identical = s->accepted.usable;
        s->accepted.identical_by = s->accepted.identical ? pg_cubin_match_name(PG_CUBIN_SAME_BYTES)
                                                         : NULL;
        if (!s->accepted.usable)
            snprintf(s->accepted.note, sizeof s->accepted.note,
                     "the accepted kernel (this submission's own manifest) did not assemble");
        json_object_set_new(
            s->json, "accepted_kernel",
            json_pack("{s:o, s:o, s:s, s:o, s:b, s:o}", "manifest", pg_jstr(s->manifest->file),
                      "source", pg_jstr(s->manifest->source), "assemble", cand, "message",
                      pg_jstr(pg_stage_message(cand_st)),
                      "cubin_identical", s->accepted.identical, "identical_by",
                      s->accepted.identical_by ? json_string(s->accepted.identical_by)
                                               : json_null()));
        return;
    }
    /* Assembled once per run: later submissions of the task take the first one's outcome and
     * its cubin (the same file, in the run's temporary folder until the run ends). */
    struct pg_accepted_entry *e = s->accepted.shared ? cache_entry_of(run, a) : NULL;
    pg_submission_results_init(a, json_object());
    if (e && e->assembled) {
        pg_stage_finish(pg_ledger_begin(&a->stages, PG_STAGE_ASSEMBLE), e->status, 0.0, "%s",
                        e->message ? e->message : "");
    } else {
        pg_stage_assemble(run, a);
    }
    const pg_stage_entry *st = pg_ledger_at(&a->stages, 0);
    const char *status = pg_stage_status(st);
    if (e && !e->assembled) {
        e->assembled = true;
        snprintf(e->status, sizeof e->status, "%s", status);
        e->message = strdup(pg_stage_message(st));
    }
    s->accepted.usable = strcmp(status, "pass") == 0 && a->cubin_path[0];
    if (!s->accepted.usable)
        snprintf(s->accepted.note, sizeof s->accepted.note,
                 "the accepted kernel did not assemble: %s", pg_stage_message(st));
    pg_cubin_match m = s->accepted.usable && s->cubin_path[0]
                           ? same_code(s->cubin_path, a->cubin_path)
                           : PG_CUBIN_DIFFERENT;
    s->accepted.identical = m != PG_CUBIN_DIFFERENT;
    s->accepted.identical_by = pg_cubin_match_name(m);
    json_object_set_new(s->json, "accepted_kernel",
                        json_pack("{s:o, s:o, s:s, s:o, s:b, s:o}", "manifest",
                                  pg_jstr(a->manifest->file), "source",
                                  pg_jstr(a->manifest->source), "assemble", status, "message",
                                  pg_jstr(pg_stage_message(st)),
                                  "cubin_identical", s->accepted.identical, "identical_by",
                                  s->accepted.identical_by
                                      ? json_string(s->accepted.identical_by)
                                      : json_null()));
    json_t *aj = a->json;
    pg_submission_results_release(a);
    a->json = NULL;
    json_decref(aj);
}

void pg_accepted_load(pg_run *run, pg_submission *s)
{
    pg_submission *a = s->accepted.kernel;
    if (!a || !s->accepted.usable || s->accepted.identical)
        return;
    a->json = NULL;
    s->accepted.kernels = calloc((size_t)(a->manifest->n_launches + a->manifest->n_setup),
                                 sizeof *s->accepted.kernels);
    char log[4096] = "";
    pg_diag d;
    pg_diag_clear(&d);
    pg_status st = s->accepted.kernels
                       ? pg_submission_load_module(run, a, &s->accepted.module,
                                                   s->accepted.kernels, log, sizeof log, &d)
                       : pg_diag_set(&d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (st != PG_OK) {
        char msg[2400];
        s->accepted.usable = false;
        snprintf(s->accepted.note, sizeof s->accepted.note,
                 "the accepted kernel did not load: %s", pg_diag_format(&d, msg, sizeof msg));
    }
}

void pg_accepted_release(pg_submission *s)
{
    if (s->accepted.module)
        pg_module_unload(s->accepted.module);
    free(s->accepted.kernels);
    if (s->accepted.kernel && !s->accepted.shared) {
        pg_submission_release(s->accepted.kernel);
        free(s->accepted.kernel);
    }
    s->accepted.module = NULL;
    s->accepted.kernels = NULL;
    s->accepted.kernel = NULL;
}
