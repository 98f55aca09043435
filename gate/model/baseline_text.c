/* Readable text of stored baselines (see baseline_text.h). */
#include "baseline_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void symbols(FILE *f, const pg_baseline_workload *w)
{
    for (int i = 0; i < w->n_symbols; i++)
        fprintf(f, "%s%s=%lld", i ? " " : "", w->symbol_names[i], (long long)w->symbol_values[i]);
}

static void environment(FILE *f, const pg_fingerprint *e)
{
    json_t *j = pg_fingerprint_to_json(e);
    const char *k;
    json_t *v;
    int i = 0;
    json_object_foreach(j, k, v) {
        /* Four fields per line. */
        const char *sep = i == 0 ? "  environment: " : i % 4 == 0 ? "\n               " : "; ";
        fprintf(f, "%s%s ", sep, k);
        i++;
        if (json_is_string(v))
            fprintf(f, "%s", json_string_value(v));
        else if (json_is_integer(v))
            fprintf(f, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            fprintf(f, "%.1f", json_real_value(v));
        else if (json_is_boolean(v))
            fprintf(f, "%s", json_is_true(v) ? "on" : "off");
        else
            fprintf(f, "unknown");
    }
    fprintf(f, "\n");
    json_decref(j);
}

static void vendor_time(FILE *f, const pg_baseline_workload *w)
{
    fprintf(f, "%.4f ms [%.4f, %.4f]", w->median_ms, w->ci_low_ms, w->ci_high_ms);
}

static void speedup(FILE *f, const pg_baseline_workload *w)
{
    fprintf(f, "%.3fx [%.3f, %.3f]", w->speedup, w->speedup_ci_low, w->speedup_ci_high);
}

/* Close the memory stream; *buf is only final after fclose. */
static char *finish(FILE *f, char **buf)
{
    if (fclose(f) != 0) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

/* What the pinned choice is called: cuBLASLt's algorithm, cuDNN's engine configuration. */
static const char *config_word(const pg_baseline_workload *w)
{
    return pg_baseline_workload_is_cudnn(w) ? "configuration" : "algorithm";
}

char *pg_baseline_show_text(const pg_baseline *b)
{
    char *buf = NULL, algo[PG_CUDNN_CONFIG_TEXT_MAX];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "%s on %s%s%s%s\n", b->task, b->gpu_key, b->file[0] ? " (" : "", b->file,
            b->file[0] ? ")" : "");
    fprintf(f, "  measured %s by ptxgate %s\n", b->measured_utc, b->tool_version);
    environment(f, &b->env);
    if (b->has_accepted)
        fprintf(f, "  accepted kernel: %s (sha256 %.16s…), source %s (sha256 %.16s…)\n",
                b->accepted_manifest, b->accepted_manifest_sha256, b->accepted_source,
                b->accepted_source_sha256);
    else
        fprintf(f, "  accepted kernel: none\n");
    for (int i = 0; i < b->n_workloads; i++) {
        const pg_baseline_workload *w = &b->workloads[i];
        fprintf(f, "  %s (", w->name);
        symbols(f, w);
        fprintf(f, ")\n    %-9s ", pg_baseline_library_label(w));
        vendor_time(f, w);
        fprintf(f, " (%.0f %% CI, %lld launches, %s mode, %d blocks of %d+%d)\n",
                100.0 * w->confidence, (long long)w->samples, w->mode, w->blocks, w->warmup,
                w->timed);
        fprintf(f, "    %s %s; workspace %lld bytes; heuristic rank %d of %d %s\n",
                config_word(w), pg_baseline_vendor_config_text(w, algo, sizeof algo),
                (long long)w->workspace_bytes, w->heuristic_rank, w->candidates_timed,
                pg_baseline_workload_is_cudnn(w) ? "tried" : "timed");
        if (w->has_accepted) {
            fprintf(f, "    accepted  %.4f ms [%.4f, %.4f]; speedup vs %s ",
                    w->accepted_median_ms, w->accepted_ci_low_ms, w->accepted_ci_high_ms,
                    pg_baseline_library_label(w));
            speedup(f, w);
            fprintf(f, "\n");
        }
    }
    return finish(f, &buf);
}

static void workload_diff(FILE *f, const pg_baseline_workload *o, const pg_baseline_workload *n)
{
    char a[PG_CUDNN_CONFIG_TEXT_MAX], b[PG_CUDNN_CONFIG_TEXT_MAX];
    fprintf(f, "  %s: %s ", n->name, pg_baseline_library_label(n));
    vendor_time(f, o);
    fprintf(f, " → ");
    vendor_time(f, n);
    bool overlap = n->ci_low_ms <= o->ci_high_ms && o->ci_low_ms <= n->ci_high_ms;
    fprintf(f, " (%+.2f %%, intervals %s)", 100.0 * (n->median_ms / o->median_ms - 1.0),
            overlap ? "overlap" : "disjoint");
    if (pg_baseline_vendor_config_equal(o, n))
        fprintf(f, "; %s unchanged\n", config_word(n));
    else
        fprintf(f, "; %s %s → %s\n", config_word(n),
                pg_baseline_vendor_config_text(o, a, sizeof a),
                pg_baseline_vendor_config_text(n, b, sizeof b));
    if (strcmp(o->mode, n->mode) != 0)
        fprintf(f, "    timing mode %s → %s\n", o->mode, n->mode);
    if (o->has_accepted && n->has_accepted) {
        fprintf(f, "    accepted kernel speedup ");
        speedup(f, o);
        fprintf(f, " → ");
        speedup(f, n);
        fprintf(f, "\n");
    } else if (n->has_accepted) {
        fprintf(f, "    accepted kernel speedup ");
        speedup(f, n);
        fprintf(f, " (new)\n");
    } else if (o->has_accepted) {
        fprintf(f, "    accepted kernel: no longer measured\n");
    }
}

static void workload_new(FILE *f, const pg_baseline_workload *n)
{
    char a[PG_CUDNN_CONFIG_TEXT_MAX];
    fprintf(f, "  %s: new: %s ", n->name, pg_baseline_library_label(n));
    vendor_time(f, n);
    fprintf(f, "; %s %s", config_word(n), pg_baseline_vendor_config_text(n, a, sizeof a));
    if (n->has_accepted) {
        fprintf(f, "; accepted kernel speedup ");
        speedup(f, n);
    }
    fprintf(f, "\n");
}

char *pg_baseline_diff_text(const pg_baseline *old, const pg_baseline *n, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "%s on %s: %s (%s)\n", n->task, n->gpu_key, path, old ? "updated" : "new file");
    if (old) {
        pg_fingerprint_change ch[PG_FINGERPRINT_FIELDS];
        int k = pg_fingerprint_diff(&old->env, &n->env, ch);
        for (int i = 0; i < k; i++)
            fprintf(f, "%s%s %s → %s", i ? "; " : "  environment: ", ch[i].field, ch[i].stored,
                    ch[i].live);
        fprintf(f, "%s", k ? "\n" : "  environment: unchanged\n");
        if (old->has_accepted != n->has_accepted ||
            strcmp(old->accepted_manifest, n->accepted_manifest) != 0 ||
            strcmp(old->accepted_source, n->accepted_source) != 0)
            fprintf(f, "  accepted kernel: %s → %s\n",
                    old->has_accepted ? old->accepted_manifest : "none",
                    n->has_accepted ? n->accepted_manifest : "none");
        else if (n->has_accepted &&
                 (strcmp(old->accepted_manifest_sha256, n->accepted_manifest_sha256) != 0 ||
                  strcmp(old->accepted_source_sha256, n->accepted_source_sha256) != 0))
            fprintf(f,
                    "  accepted kernel changed: %s sha256 %.16s… → %.16s…, %s sha256 %.16s… "
                    "→ %.16s…\n",
                    n->accepted_manifest, old->accepted_manifest_sha256,
                    n->accepted_manifest_sha256, n->accepted_source,
                    old->accepted_source_sha256, n->accepted_source_sha256);
    }
    for (int i = 0; i < n->n_workloads; i++) {
        const pg_baseline_workload *o = old ? pg_baseline_find(old, n->workloads[i].name) : NULL;
        if (o)
            workload_diff(f, o, &n->workloads[i]);
        else
            workload_new(f, &n->workloads[i]);
    }
    for (int i = 0; old && i < old->n_workloads; i++)
        if (!pg_baseline_find(n, old->workloads[i].name))
            fprintf(f, "  %s: removed\n", old->workloads[i].name);
    return finish(f, &buf);
}
