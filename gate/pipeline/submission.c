/* Offline validation of one submission: manifest, task, source (a .cu is compiled to PTX here,
 * device code only), the PTX .entry signatures against the bindings, and every workload's launch
 * plan. Input errors stop the run before any GPU work; a .cu that does not compile or a PTX whose
 * signatures cannot be read is a result (the assemble stage fails), not an input error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "model/binding.h"
#include "run.h"
#include "submission.h"
#include "instr_stage.h"
#include "ptx/heap_calls.h"
#include "ptx/refusals.h"

/* A source or PTX above --max-ptx-bytes is an input error, found before anything reads it. */
static pg_status check_size(const pg_run *run, const char *path, const char *what, pg_diag *d)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return PG_OK; /* reading it reports what is wrong */
    if ((unsigned long long)sb.st_size > (unsigned long long)run->o->max_ptx_bytes)
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                           "the %s is %lld bytes, above the limit of %zu bytes (--max-ptx-bytes)",
                           what, (long long)sb.st_size, run->o->max_ptx_bytes);
    return PG_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The workloads the run covers: all, or those the --workloads filter selects for this task
 * (model/workload_filter.h). None selected is not an error here: pg_check_run reports the
 * filter's unused items, then the tasks left without a workload, over the whole run. */
static pg_status select_workloads(const pg_run *run, pg_submission *s, pg_diag *d)
{
    const pg_task *t = s->task;
    s->workloads = calloc((size_t)t->n_workloads, sizeof(int));
    if (!s->workloads)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    if (!run->wfilter) {
        for (int i = 0; i < t->n_workloads; i++)
            s->workloads[s->n_workloads++] = i;
        return PG_OK;
    }
    pg_workload_filter_apply(run->wfilter, t, s->workloads, &s->n_workloads);
    return PG_OK;
}

/* " (M=257, N=513, K=1000)": a workload's symbols for messages. */
static const char *symbols_text(const pg_task *t, const pg_workload *w, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, " (");
    for (int k = 0; k < t->n_symbols && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%lld", k ? ", " : "", t->symbols[k],
                                 (long long)w->values[k]);
    if (used < n)
        snprintf(buf + used, n - used, ")");
    return buf;
}

/* The manifest's "supports" constraint: a selected workload it declines moves from
 * s->workloads to s->declined (recorded not_applicable, never run, so a tensor map that
 * cannot be encoded for it is no error). Declining a required workload of the task (selected
 * or not) is an input error, and so is declining every selected workload (nothing to judge). */
static pg_status decline_workloads(pg_submission *s, pg_diag *d)
{
    const pg_task *t = s->task;
    const pg_manifest *m = s->manifest;
    char syms[512];
    if (!m->supports[0])
        return PG_OK;
    for (int i = 0; i < t->n_workloads; i++) {
        bool ok = true;
        pg_status st = pg_manifest_supports(m, t, &t->workloads[i], &ok, d);
        if (st != PG_OK)
            return st;
        if (!ok && t->workloads[i].required)
            return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "supports",
                               "'%s' declines workload '%s'%s, which task '%s' marks required "
                               "(its headline workload): a submission must support it",
                               m->supports, t->workloads[i].name,
                               symbols_text(t, &t->workloads[i], syms, sizeof syms), t->id);
    }
    s->declined = calloc((size_t)(s->n_workloads ? s->n_workloads : 1), sizeof(int));
    if (!s->declined)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    int kept = 0;
    for (int i = 0; i < s->n_workloads; i++) {
        bool ok = true;
        pg_status st = pg_manifest_supports(m, t, &t->workloads[s->workloads[i]], &ok, d);
        if (st != PG_OK)
            return st;
        if (ok)
            s->workloads[kept++] = s->workloads[i];
        else
            s->declined[s->n_declined++] = s->workloads[i];
    }
    s->n_workloads = kept;
    if (kept == 0 && s->n_declined > 0)
        return pg_diag_set(d, PG_ERR_INPUT, m->file, 0, "supports",
                           "'%s' declines every selected workload (%d of them, e.g. '%s'%s): "
                           "nothing would be judged",
                           m->supports, s->n_declined, t->workloads[s->declined[0]].name,
                           symbols_text(t, &t->workloads[s->declined[0]], syms, sizeof syms));
    return PG_OK;
}

static pg_status compile_cu(pg_run *run, pg_submission *s, int index, pg_diag *d)
{
    snprintf(s->ptx_path, sizeof s->ptx_path, "%s/submission%d.ptx", run->tmpdir, index);
    /* Nothing is compiled before every file it includes is known to be one nvcc may read. */
    pg_status st = pg_cu_check_includes(run, s, index, d);
    if (st != PG_OK || !s->includes_ok)
        return st;
    st = pg_compile_cu_to_ptx(s->manifest->source, s->arch, s->ptx_path, s->nvcc_extra,
                              run->o->timeout_s,
                              &s->cu_result, d);
    if (st == PG_ERR_INPUT)
        return st; /* e.g. a malformed arch string */
    /* nvcc missing or failing is recorded in the assemble stage. */
    s->cu_compiled = st == PG_OK && s->cu_result.ok;
    pg_diag_clear(d);
    return pg_cu_filter_log(run, &s->cu_result, &s->cu_dropped, d);
}

/* The manifest's source must resolve, links followed, inside the submission root or the tasks
 * folder (trusted configuration: its example kernels, e.g. those of an installed package, are
 * checked from any folder). */
static pg_status check_source_root(const pg_run *run, const pg_submission *s, pg_diag *d)
{
    char real[PG_PATH_MAX];
    pg_diag rd;
    if (pg_path_resolve(s->manifest->source, real, sizeof real, &rd) != PG_OK)
        return pg_diag_set(d, PG_ERR_INPUT, s->manifest->file, 0, "source",
                           "source '%s' cannot be resolved: %s", s->manifest->source_field_value,
                           rd.message);
    if (pg_path_is_inside(run->root, real) ||
        (run->tasks_root[0] && pg_path_is_inside(run->tasks_root, real)))
        return PG_OK;
    return pg_diag_set(d, PG_ERR_INPUT, s->manifest->file, 0, "source",
                       "source '%s' resolves to '%s', outside the submission root '%s' (--root) "
                       "and the tasks folder",
                       s->manifest->source_field_value, real, run->root);
}

/* The manifest's compile options as tool arguments (s->nvcc_extra, s->ptxas_extra): every
 * include folder resolved against the manifest's folder, links followed, and inside the
 * submission root or the tasks folder, else an input error naming compile.include_dirs[i]. */
static pg_status compile_args(const pg_run *run, pg_submission *s, pg_diag *d)
{
    const pg_compile_options *c = &s->manifest->compile;
    int k = 0;
    if (c->std[0]) {
        snprintf(s->std_arg, sizeof s->std_arg, "-std=%s", c->std);
        s->nvcc_extra[k++] = s->std_arg;
    }
    for (int i = 0; i < c->n_flags; i++)
        s->nvcc_extra[k++] = c->flags[i];
    for (int i = 0; i < c->n_include_dirs; i++) {
        char joined[PG_PATH_MAX], real[PG_PATH_MAX], f[64];
        pg_diag rd;
        snprintf(f, sizeof f, "compile.include_dirs[%d]", i);
        pg_path_join(joined, sizeof joined, s->manifest->dir, c->include_dirs[i]);
        if (pg_path_resolve(joined, real, sizeof real, &rd) != PG_OK)
            return pg_diag_set(d, PG_ERR_INPUT, s->manifest->file, 0, f,
                               "include folder '%s' cannot be resolved: %s", c->include_dirs[i],
                               rd.message);
        struct stat sb;
        if (stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return pg_diag_set(d, PG_ERR_INPUT, s->manifest->file, 0, f,
                               "include folder '%s' ('%s') is not a folder", c->include_dirs[i],
                               real);
        if (!pg_path_is_inside(run->root, real) &&
            !(run->tasks_root[0] && pg_path_is_inside(run->tasks_root, real)))
            return pg_diag_set(d, PG_ERR_INPUT, s->manifest->file, 0, f,
                               "include folder '%s' resolves to '%s', outside the submission root "
                               "'%s' (--root) and the tasks folder",
                               c->include_dirs[i], real, run->root);
        snprintf(s->include_args[i], sizeof s->include_args[i], "-I%s", real);
        s->nvcc_extra[k++] = s->include_args[i];
    }
    s->nvcc_extra[k] = NULL;
    for (int i = 0; i < c->n_ptxas_flags; i++)
        s->ptxas_extra[i] = c->ptxas_flags[i];
    s->ptxas_extra[c->n_ptxas_flags] = NULL;
    return PG_OK;
}

/* The instruction inventory of the PTX and the refusals checked on it (ptx/refusals.h).
 * Neither is an input error here: a refusal fails the assemble stage, an inventory the gate
 * cannot build makes the instructions stage an error. */
static void read_instructions(pg_submission *s, const char *text, size_t len)
{
    pg_diag id;
    pg_diag_clear(&id);
    char shown[PG_PATH_MAX + 32];
    snprintf(shown, sizeof shown, "PTX generated from %s", s->manifest->source);
    const char *name = s->from_cu ? shown : s->manifest->source;
    if (pg_ptx_inventory_build(text, len, name, &s->inventory, &id) != PG_OK) {
        pg_diag_format(&id, s->inventory_error, sizeof s->inventory_error);
        return;
    }
    s->has_inventory = true;
    if (pg_ptx_check_refusals(&s->inventory, name, &id) != PG_OK) {
        snprintf(s->refusal, sizeof s->refusal, "%s", id.message);
        s->refusal_line = id.line;
    }
}

/* The instruction policy, the task's targets checked against the arch tables (input errors
 * naming the task file and field), and the target set of this submission's arch. */
static pg_status resolve_targets(const pg_run *run, pg_submission *s, pg_diag *d)
{
    snprintf(s->instr_policy, sizeof s->instr_policy, "%s",
             run->o->instructions ? run->o->instructions : s->task->instructions);
    if (strcmp(s->instr_policy, "off") == 0)
        return PG_OK;
    pg_status st = pg_targets_check_task(s->task, run->o->arch_dir, d);
    if (st != PG_OK || !pg_targets_lists_ptx(s->task, s->arch))
        return st;
    st = pg_arch_table_load(run->o->arch_dir, s->arch, &s->arch_table, d);
    if (st == PG_OK)
        st = pg_targets_resolve(s->task, s->arch, s->arch_table, &s->targets, &s->has_targets,
                                d);
    return st;
}

/* The values of the device symbols, when the manifest uses them: the GPU's when one is at hand
 * (not --no-gpu), else the reference part of the arch's table (assumed). An arch without such
 * a table is an input error naming the manifest's arch. */
static pg_status resolve_device_symbols(pg_run *run, pg_submission *s, pg_diag *d)
{
    s->uses_device_symbols = pg_manifest_uses_device_symbols(s->manifest);
    if (!s->uses_device_symbols)
        return PG_OK;
    const pg_device_info *info = run->o->no_gpu ? NULL : pg_run_device_info(run);
    if (info) {
        pg_device_symbols_from_device(info->sm_count, info->l2_bytes,
                                      info->max_shared_per_block_optin, info->name,
                                      &s->device_symbols);
        return PG_OK;
    }
    pg_arch_table *t = NULL;
    pg_status st = run->o->arch_dir ? pg_arch_table_load(run->o->arch_dir, s->arch, &t, d)
                                    : pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                                                  "no architecture tables are installed");
    if (st == PG_OK)
        st = pg_device_symbols_from_arch(t, &s->device_symbols, d);
    pg_arch_table_free(t);
    if (st != PG_OK) {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", d->message);
        return pg_diag_set(d, st, s->manifest->file, 0, "launches",
                           "the manifest uses device symbols (num_sms, l2_bytes, "
                           "max_dynamic_shared_bytes) and no GPU is at hand, so they take the "
                           "values of the %s table's reference_device: %s", s->arch, msg);
    }
    return PG_OK;
}

/* One plan per selected workload. */
static pg_status build_plans(pg_submission *s, pg_diag *d)
{
    s->plans = calloc((size_t)(s->n_workloads ? s->n_workloads : 1), sizeof(pg_plan));
    if (!s->plans)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (int i = 0; i < s->n_workloads; i++) {
        pg_status st = pg_plan_build_on(s->task, s->manifest,
                                        &s->task->workloads[s->workloads[i]],
                                        s->uses_device_symbols ? &s->device_symbols : NULL,
                                        &s->plans[i], d);
        if (st != PG_OK)
            return st; /* the message names the workload */
    }
    return PG_OK;
}

static pg_status resolve_and_build_plans(pg_run *run, pg_submission *s, pg_diag *d)
{
    pg_status st = resolve_device_symbols(run, s, d);
    return st == PG_OK ? build_plans(s, d) : st;
}

/* Manifest, its task, and the manifest checked against the task. */
static pg_status load_manifest_and_task(pg_run *run, const char *manifest_path, pg_submission *s,
                                        pg_diag *d)
{
    pg_status st = pg_manifest_load(manifest_path, &s->manifest, d);
    if (st != PG_OK)
        return st;
    st = pg_task_load(run->o->tasks_dir, s->manifest->task, &s->task, d);
    if (st != PG_OK) {
        if (!d->file[0]) {
            /* An unknown task id is the manifest's fault: name the manifest. */
            char msg[2048];
            snprintf(msg, sizeof msg, "%s", d->message);
            pg_diag_set(d, st, s->manifest->file, 0, "task", "%s", msg);
        }
        return st;
    }
    return pg_manifest_check_task(s->manifest, s->task, d);
}

pg_status pg_submission_prepare_worker(pg_run *run, const char *manifest_path, const char *arch,
                                       const char *ptx_path, const char *cubin_path,
                                       const int *workloads, int n_workloads, pg_submission *s,
                                       pg_diag *d)
{
    memset(s, 0, sizeof *s);
    pg_status st = load_manifest_and_task(run, manifest_path, s, d);
    if (st != PG_OK)
        return st;
    snprintf(s->arch, sizeof s->arch, "%s", arch);
    snprintf(s->ptx_path, sizeof s->ptx_path, "%s", ptx_path);
    snprintf(s->cubin_path, sizeof s->cubin_path, "%s", cubin_path);
    s->cu_compiled = true;
    st = resolve_targets(run, s, d);
    if (st != PG_OK)
        return st;
    s->workloads = calloc((size_t)(n_workloads ? n_workloads : 1), sizeof(int));
    if (!s->workloads)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    for (int i = 0; i < n_workloads; i++) {
        if (workloads[i] < 0 || workloads[i] >= s->task->n_workloads)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "workloads",
                               "workload index %d outside the task's %d workloads", workloads[i],
                               s->task->n_workloads);
        s->workloads[s->n_workloads++] = workloads[i];
    }
    return resolve_and_build_plans(run, s, d);
}

pg_status pg_submission_prepare(pg_run *run, const char *manifest_path, int index,
                                pg_submission *s, pg_diag *d)
{
    memset(s, 0, sizeof *s);
    pg_status st = load_manifest_and_task(run, manifest_path, s, d);
    if (st != PG_OK)
        return st;
    snprintf(s->arch, sizeof s->arch, "%s",
             run->o->arch           ? run->o->arch
             : s->manifest->arch[0] ? s->manifest->arch
                                    : s->task->default_arch);
    snprintf(s->cubin_path, sizeof s->cubin_path, "%s/submission%d.cubin", run->tmpdir, index);
    st = resolve_targets(run, s, d);
    if (st != PG_OK)
        return st;

    st = check_source_root(run, s, d);
    if (st == PG_OK)
        st = compile_args(run, s, d);
    if (st != PG_OK)
        return st;
    s->from_cu = ends_with(s->manifest->source, ".cu");
    st = check_size(run, s->manifest->source, s->from_cu ? "CUDA source" : "PTX", d);
    if (st != PG_OK)
        return st;
    if (s->from_cu) {
        st = compile_cu(run, s, index, d);
        if (st != PG_OK)
            return st;
    } else {
        snprintf(s->ptx_path, sizeof s->ptx_path, "%s", s->manifest->source);
        s->cu_compiled = true;
    }

    if (s->cu_compiled) {
        char *text = NULL;
        size_t len = 0;
        st = check_size(run, s->ptx_path, "PTX nvcc made of the CUDA source", d);
        if (st != PG_OK && s->from_cu) {
            /* Named by the .cu and its manifest, not the temporary file (gone after the run). */
            char msg[2048];
            snprintf(msg, sizeof msg, "%s", d->message);
            char *what = strstr(msg, "PTX nvcc made of the CUDA source");
            st = pg_diag_set(d, st, s->manifest->file, 0, "source",
                             "the PTX nvcc generated from '%s'%s", s->manifest->source,
                             what ? what + strlen("PTX nvcc made of the CUDA source") : msg);
        }
        if (st == PG_OK)
            st = pg_file_read(s->ptx_path, run->o->max_ptx_bytes, &text, &len, d);
        if (st != PG_OK)
            return st;
        int line = 0;
        char callee[64];
        if (pg_ptx_find_heap_call(text, callee, sizeof callee, &line)) {
            char where[PG_PATH_MAX + 64];
            if (s->from_cu)
                snprintf(where, sizeof where, "PTX line %d (generated from %s)", line,
                         s->manifest->source);
            else
                snprintf(where, sizeof where, "%s line %d", s->manifest->source, line);
            snprintf(s->heap_refusal, sizeof s->heap_refusal,
                     "refused: %s calls %s: device-heap allocations outlive the "
                     "launch, so a kernel that allocates per call leaks device memory on every "
                     "launch (and can keep state between calls); allocate scratch memory as a "
                     "manifest workspace instead",
                     where, callee);
        }
        pg_diag sd;
        pg_diag_clear(&sd);
        const char *nul = memchr(text, '\0', len);
        if (nul) {
            snprintf(s->sig_error, sizeof s->sig_error, "the PTX contains a NUL byte at offset %zu",
                     (size_t)(nul - text));
        } else if (pg_ptx_parse_signatures(text, s->manifest->source, &s->sig, &sd) == PG_OK) {
            s->has_sig = true;
        } else if (s->from_cu) {
            /* The line is one of the generated PTX, not of the .cu. */
            snprintf(s->sig_error, sizeof s->sig_error, "PTX line %ld (generated from %s): %s%s%s%s",
                     sd.line, s->manifest->source, sd.field[0] ? "field '" : "", sd.field,
                     sd.field[0] ? "': " : "", sd.message);
        } else {
            pg_diag_format(&sd, s->sig_error, sizeof s->sig_error);
        }
        if (!nul)
            read_instructions(s, text, len);
        free(text);
        if (s->has_sig) {
            st = pg_binding_check(s->manifest, &s->sig, s->manifest->source, s->from_cu, d);
            if (st != PG_OK)
                return st;
        }
    }

    st = select_workloads(run, s, d);
    if (st == PG_OK)
        st = decline_workloads(s, d);
    if (st == PG_OK)
        st = resolve_and_build_plans(run, s, d);
    if (st != PG_OK || run->defer_accepted)
        return st;
    return pg_accepted_prepare(run, s, index, d);
}

void pg_submission_release(pg_submission *s)
{
    pg_accepted_release(s);
    pg_submission_results_release(s);
    free(s->pending);
    s->pending = NULL;
    free(s->declined);
    s->declined = NULL;
    if (s->plans)
        for (int i = 0; i < s->n_workloads; i++)
            pg_plan_free(&s->plans[i]);
    free(s->plans);
    free(s->workloads);
    if (s->has_sig)
        pg_ptx_module_info_free(&s->sig);
    pg_ptx_inventory_free(&s->inventory);
    pg_arch_table_free(s->arch_table);
    pg_instr_stage_free(s->instr);
    if (s->from_cu)
        pg_assemble_result_free(&s->cu_result);
    pg_manifest_free(s->manifest);
    pg_task_free(s->task);
    memset(s, 0, sizeof *s);
}
