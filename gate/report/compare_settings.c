/* Settings differences of two compared runs and the stages each can change (see
 * compare_settings.h). */
#include "compare_settings.h"

#include <string.h>

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
static json_t *baseline_settings(const json_t *root)
{
    const json_t *b = json_object_get(root, "baselines");
    if (!json_is_object(b))
        return NULL;
    json_t *c = json_deep_copy(b);
    json_object_del(c, "tasks");
    json_object_del(c, "notes");
    return c;
}

json_t *pg_compare_run_settings(const json_t *old_root, const json_t *new_root,
                                const json_t *old_env, const json_t *new_env)
{
    static const struct {
        const char *key, *setting;
        const char *const *stages;
    } settings[] = {
        {"correctness_sets", "sets", k_corr},
        {"seed", "seed", k_corr},
        {"min_speedup_override", "min_speedup", k_perf},
        {"timing_mode_override", "mode", k_perf},
        {"accepted_kernel_override", "accepted kernel", k_perf},
        {"warmup", "warmup", k_perf},
        {"repetitions", "repetitions", k_perf},
        {"confidence", "confidence", k_perf},
    }, env[] = {
        {"gpu", "GPU", k_gpu},
        {"compute_capability", "compute capability", k_gpu},
        {"driver_version", "driver", k_driver},
        {"cuda_version", "CUDA", k_driver},
        {"ptxas_version", "ptxas", k_ptxas},
        {"cublaslt_version", "cuBLASLt", k_perf},
        {"cudnn_version", "cuDNN", k_perf},
        {"tool_version", "ptxgate version", k_all},
    };
    json_t *out = json_array();
    if (!out)
        return NULL;
    const json_t *sa = json_object_get(old_root, "settings"), *sb = json_object_get(new_root,
                                                                                    "settings");
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        add_if_differs(out, settings[i].setting, json_object_get(sa, settings[i].key),
                       json_object_get(sb, settings[i].key), "run", settings[i].stages);
    json_t *ba = baseline_settings(old_root), *bb = baseline_settings(new_root);
    add_if_differs(out, "baselines", ba, bb, "run", k_perf);
    json_decref(ba);
    json_decref(bb);
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        add_if_differs(out, env[i].setting, json_object_get(old_env, env[i].key),
                       json_object_get(new_env, env[i].key), "run", env[i].stages);
    return out;
}

/* details.<key> of the workload's stage named stage, or NULL. */
static const json_t *stage_detail(const json_t *wl, const char *stage, const char *key)
{
    size_t i;
    const json_t *st;
    json_array_foreach(json_object_get(wl, "stages"), i, st) {
        const char *name = json_string_value(json_object_get(st, "stage"));
        if (name && strcmp(name, stage) == 0)
            return json_object_get(json_object_get(st, "details"), key);
    }
    return NULL;
}

json_t *pg_compare_pair_settings(const json_t *old_sub, const json_t *old_wl,
                                 const json_t *new_sub, const json_t *new_wl)
{
    json_t *out = json_array();
    if (!out)
        return NULL;
    add_if_differs(out, "arch", json_object_get(old_sub, "arch"),
                   json_object_get(new_sub, "arch"), NULL, k_all);
    add_if_differs(out, "instructions policy", stage_detail(old_wl, "instructions", "policy"),
                   stage_detail(new_wl, "instructions", "policy"), NULL, k_instr);
    add_if_differs(out, "min_speedup", stage_detail(old_wl, "performance", "min_speedup"),
                   stage_detail(new_wl, "performance", "min_speedup"), NULL, k_perf);
    add_if_differs(out, "mode", stage_detail(old_wl, "performance", "mode"),
                   stage_detail(new_wl, "performance", "mode"), NULL, k_perf);
    return out;
}

bool pg_compare_setting_affects(const json_t *e, const char *stage)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(e, "stages"), i, s) {
        if (strcmp(json_string_value(s), stage) == 0)
            return true;
    }
    return false;
}

bool pg_compare_settings_add_pair(json_t *run_list, const json_t *pair_diffs)
{
    size_t i, j;
    const json_t *e;
    json_array_foreach(pair_diffs, i, e) {
        const char *name = json_string_value(json_object_get(e, "setting"));
        json_t *r, *found = NULL;
        json_array_foreach(run_list, j, r) {
            if (strcmp(json_string_value(json_object_get(r, "setting")), name) == 0 &&
                strcmp(json_string_value(json_object_get(r, "scope")), "pairs") == 0)
                found = r;
        }
        if (found) {
            json_int_t n = json_integer_value(json_object_get(found, "pairs"));
            json_object_set_new(found, "pairs", json_integer(n + 1));
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
