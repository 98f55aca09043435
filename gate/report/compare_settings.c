/* Settings differences of two compared runs and the stages each can change (see
 * compare_settings.h). */
#include "compare_settings.h"

#include <stddef.h>
#include <string.h>

#include "results_read_compare.h"

/* Stage lists: which outcomes a setting can change. */
static const char *const k_all[] = {"assemble", "correctness", "instructions", "performance",
                                    NULL};
static const char *const k_corr[] = {"correctness", NULL};
static const char *const k_perf[] = {"performance", NULL};
static const char *const k_instr[] = {"instructions", NULL};
static const char *const k_gpu[] = {"correctness", "instructions", "performance", NULL};
static const char *const k_driver[] = {"correctness", "performance", NULL};
static const char *const k_ptxas[] = {"assemble", "instructions", NULL};

static json_t *stage_list(const char *const *stages)
{
    json_t *a = json_array();
    for (size_t i = 0; a && stages[i]; i++)
        json_array_append_new(a, json_string(stages[i]));
    return a;
}

static json_t *or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

/* Append {"setting", "old", "new", "scope", "stages"} when a and b differ. */
static void add_if_differs(json_t *out, const char *setting, const json_t *a, const json_t *b,
                           const char *scope, const char *const *stages)
{
    if (json_equal(a ? a : json_null(), b ? b : json_null()) || (!a && !b))
        return;
    json_t *e = json_pack("{s:s, s:o, s:o, s:o}", "setting", setting, "old", or_null(a), "new",
                          or_null(b), "stages", stage_list(stages));
    if (e && scope)
        json_object_set_new(e, "scope", json_string(scope));
    if (e)
        json_array_append_new(out, e);
}

/* The baselines record without its per-run findings (tasks, notes): what was asked for. */
static json_t *baseline_settings(const pg_res_cmp_run *run)
{
    if (!run->baselines)
        return NULL;
    json_t *c = json_deep_copy(run->baselines);
    json_object_del(c, "tasks");
    json_object_del(c, "notes");
    return c;
}

json_t *pg_compare_run_settings(const json_t *old_root, const json_t *new_root,
                                const json_t *old_env, const json_t *new_env)
{
    static const struct {
        size_t field; /* offset into pg_res_cmp_run */
        const char *setting;
        const char *const *stages;
    } settings[] = {
        {offsetof(pg_res_cmp_run, correctness_sets), "sets", k_corr},
        {offsetof(pg_res_cmp_run, seed), "seed", k_corr},
        {offsetof(pg_res_cmp_run, min_speedup_override), "min_speedup", k_perf},
        {offsetof(pg_res_cmp_run, timing_mode_override), "mode", k_perf},
        {offsetof(pg_res_cmp_run, accepted_kernel_override), "accepted kernel", k_perf},
        {offsetof(pg_res_cmp_run, warmup), "warmup", k_perf},
        {offsetof(pg_res_cmp_run, repetitions), "repetitions", k_perf},
        {offsetof(pg_res_cmp_run, confidence), "confidence", k_perf},
    };
    static const struct {
        size_t field; /* PG_CMP_ENV_* */
        const char *setting;
        const char *const *stages;
    } env[] = {
        {PG_CMP_ENV_GPU, "GPU", k_gpu},
        {PG_CMP_ENV_COMPUTE_CAPABILITY, "compute capability", k_gpu},
        {PG_CMP_ENV_DRIVER, "driver", k_driver},
        {PG_CMP_ENV_CUDA, "CUDA", k_driver},
        {PG_CMP_ENV_PTXAS, "ptxas", k_ptxas},
        {PG_CMP_ENV_CUBLASLT, "cuBLASLt", k_perf},
        {PG_CMP_ENV_CUDNN, "cuDNN", k_perf},
        {PG_CMP_ENV_TOOL, "ptxgate version", k_all},
    };
    json_t *out = json_array();
    if (!out)
        return NULL;
    pg_res_cmp_run ra, rb;
    pg_res_cmp_run_read(old_root, &ra);
    pg_res_cmp_run_read(new_root, &rb);
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        add_if_differs(out, settings[i].setting,
                       *(const json_t *const *)((const char *)&ra + settings[i].field),
                       *(const json_t *const *)((const char *)&rb + settings[i].field), "run",
                       settings[i].stages);
    json_t *ba = baseline_settings(&ra), *bb = baseline_settings(&rb);
    add_if_differs(out, "baselines", ba, bb, "run", k_perf);
    json_decref(ba);
    json_decref(bb);
    pg_cmp_side ea, eb;
    pg_cmp_side_read(old_env, &ea);
    pg_cmp_side_read(new_env, &eb);
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        add_if_differs(out, env[i].setting, ea.env[env[i].field], eb.env[env[i].field], "run",
                       env[i].stages);
    return out;
}

json_t *pg_compare_pair_settings(const json_t *old_sub, const json_t *old_wl,
                                 const json_t *new_sub, const json_t *new_wl)
{
    json_t *out = json_array();
    if (!out)
        return NULL;
    pg_res_cmp_pair a, b;
    pg_res_cmp_pair_read(old_sub, old_wl, &a);
    pg_res_cmp_pair_read(new_sub, new_wl, &b);
    add_if_differs(out, "arch", a.arch, b.arch, NULL, k_all);
    add_if_differs(out, "instructions policy", a.policy, b.policy, NULL, k_instr);
    add_if_differs(out, "min_speedup", a.min_speedup, b.min_speedup, NULL, k_perf);
    add_if_differs(out, "mode", a.mode, b.mode, NULL, k_perf);
    return out;
}

bool pg_compare_setting_affects(const json_t *e, const char *stage)
{
    pg_cmp_setting_diff x;
    pg_cmp_setting_diff_read(e, &x);
    for (size_t i = 0; i < x.n_stages; i++)
        if (strcmp(x.stages[i], stage) == 0)
            return true;
    return false;
}

bool pg_compare_settings_add_pair(json_t *run_list, const json_t *pair_diffs)
{
    size_t i, j;
    const json_t *e;
    json_array_foreach(pair_diffs, i, e) {
        pg_cmp_setting_diff x, y;
        pg_cmp_setting_diff_read(e, &x);
        json_t *r, *found = NULL;
        long long n = 0;
        json_array_foreach(run_list, j, r) {
            pg_cmp_setting_diff_read(r, &y);
            if (y.per_pairs && strcmp(y.setting, x.setting) == 0) {
                found = r;
                n = y.pairs;
            }
        }
        if (found) {
            json_object_set_new(found, "pairs", json_integer((json_int_t)n + 1));
            continue;
        }
        json_t *c = json_deep_copy(e);
        if (!c || json_object_set_new(c, "scope", json_string("pairs")) != 0 ||
            json_object_set_new(c, "pairs", json_integer(1)) != 0 ||
            json_array_append_new(run_list, c) != 0)
            return false;
    }
    return true;
}
