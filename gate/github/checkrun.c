/* The check run (see checkrun.h). The verdict comes as its results word (publish read it with
 * the results reader); the json looked into here is GitHub's: the REST API's replies (check
 * runs listed, created, updated), a separate input from results, read where they arrive. */
#include "checkrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "github/workflow.h"
#include "report/results_read.h"
#include "base/utf8.h"

/* The verdict word as the results enum; anything but "pass", "fail", "error" and "skipped"
 * (NULL included) counts as a failure, so a verdict the gate cannot read never passes. */
static pg_res_status verdict_of(const char *verdict)
{
    pg_res_status v = PG_RES_FAIL;
    (void)pg_res_status_parse(verdict, &v);
    return v;
}

const char *pg_gh_check_conclusion(const char *verdict, size_t not_judged)
{
    if (verdict_of(verdict) != PG_RES_PASS)
        return "failure";
    return not_judged ? "action_required" : "success";
}

char *pg_gh_check_title(const char *verdict, const size_t by_verdict[4], size_t not_judged,
                        const char *reason, char *buf, size_t n)
{
    char counts[160], why[200];
    pg_res_status v = verdict_of(verdict);
    snprintf(counts, sizeof counts, "%zu passed, %zu failed, %zu errored, %zu skipped",
             by_verdict[PG_RES_PASS], by_verdict[PG_RES_FAIL], by_verdict[PG_RES_ERROR],
             by_verdict[PG_RES_SKIPPED]);
    /* One line: control characters (newlines included) become spaces. */
    snprintf(why, sizeof why, "%.160s", reason ? reason : "");
    for (char *p = why; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (v == PG_RES_ERROR)
        snprintf(buf, n, "INFRASTRUCTURE: the gate could not judge %zu submission%s (not a kernel "
                 "failure) · %s", by_verdict[PG_RES_ERROR],
                 by_verdict[PG_RES_ERROR] == 1 ? "" : "s", counts);
    else if (v == PG_RES_PASS && not_judged)
        snprintf(buf, n, "NOT JUDGED ON A GPU: %s · %zu submission%s passed the offline stages "
                 "only · %s", why[0] ? why : "no GPU stage ran", not_judged,
                 not_judged == 1 ? "" : "s", counts);
    else
        snprintf(buf, n, "%s: %s%s%s", v == PG_RES_PASS ? "PASS" : "FAIL",
                 counts, not_judged ? " · not judged on a GPU: " : "",
                 not_judged ? (why[0] ? why : "no GPU stage ran") : "");
    return buf;
}

static bool is_sha(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    return n == 40;
}

/* {title, summary, annotations: a[from .. from+count)} */
static json_t *output_object(const pg_gh_check_spec *spec, const char *summary,
                             const pg_gh_annotation *a, size_t from, size_t count)
{
    json_t *o = json_pack("{s:s, s:s}", "title", spec->title, "summary", summary);
    json_t *list = json_array();
    if (!o || !list) {
        json_decref(o);
        json_decref(list);
        return NULL;
    }
    for (size_t i = from; i < from + count; i++) {
        json_t *x = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "path", a[i].path, "start_line",
                              (json_int_t)a[i].start_line, "end_line", (json_int_t)a[i].end_line,
                              "annotation_level", pg_gh_level_name(a[i].level), "title",
                              a[i].title, "message", a[i].message);
        if (!x || json_array_append_new(list, x) != 0) {
            json_decref(o);
            json_decref(list);
            return NULL;
        }
    }
    json_object_set_new(o, "annotations", list);
    return o;
}

/* A check run whose external_id is this run's (spec: the pg_gh_check_spec). */
static bool is_this_run(const json_t *check_run, const void *spec)
{
    const char *want = ((const pg_gh_check_spec *)spec)->external_id;
    const char *ext = json_string_value(json_object_get(check_run, "external_id"));
    return ext && want && strcmp(ext, want) == 0;
}

/* Find this run's check among the commit's check runs named spec->name. */
static pg_status find_check(pg_gh_client *c, const char *repo, const pg_gh_check_spec *spec,
                            pg_gh_check_result *out, pg_diag *d)
{
    char url[4096];
    /* check_name is a query value: percent-encode everything but unreserved characters. */
    char enc[1024] = "";
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)spec->name; *p && k + 4 < sizeof enc; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~')
            enc[k++] = (char)*p;
        else
            k += (size_t)snprintf(enc + k, sizeof enc - k, "%%%02X", *p);
    }
    enc[k] = '\0';
    snprintf(url, sizeof url, "/repos/%s/commits/%s/check-runs?check_name=%s&filter=all&per_page=100",
             repo, spec->head_sha, enc);
    return pg_gh_find_first(c, url, "check_runs", 20, is_this_run, spec, &out->id,
                            out->html_url, sizeof out->html_url, d);
}

pg_status pg_gh_check_run_publish(pg_gh_client *c, const char *repo, const pg_gh_check_spec *spec,
                                  const pg_gh_annotation *a, size_t n, pg_gh_check_result *out,
                                  pg_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!is_sha(spec->head_sha))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--sha",
                           "expected a commit SHA of 40 lower-case hex digits, got '%.*s'",
                           PG_UTF8_CUT(spec->head_sha ? spec->head_sha : "", 64),
                           spec->head_sha ? spec->head_sha : "");
    pg_status st = PG_OK;
    pg_gh_reply r = {0};
    json_t *req = NULL;
    char path[1024], when[32];
    bool cut = false;
    char *summary = pg_gh_truncate_markdown(
        spec->summary, PG_GH_CHECK_TEXT_MAX - 512,
        "*The summary was cut to fit the check run; the full report is in the job summary.*",
        &cut);
    if (!summary)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
    time_t now = (time_t)pg_gh_client_now(c);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);

    size_t first = n < PG_GH_CHECK_BATCH ? n : PG_GH_CHECK_BATCH;
    json_t *output = output_object(spec, summary, a, 0, first);
    req = output ? json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "name", spec->name, "head_sha",
                             spec->head_sha, "status", "completed", "conclusion",
                             spec->conclusion, "completed_at", when, "output", output)
                 : NULL;
    if (req && spec->external_id)
        json_object_set_new(req, "external_id", json_string(spec->external_id));
    if (req && spec->details_url && spec->details_url[0])
        json_object_set_new(req, "details_url", json_string(spec->details_url));
    if (!req) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
        goto done;
    }
    snprintf(path, sizeof path, "/repos/%s/check-runs", repo);
    for (int tries = 0; tries < 2; tries++) {
        pg_gh_reply_free(&r);
        out->requests++;
        st = pg_gh_call(c, "POST", path, req, &r, d);
        if (st == PG_OK) {
            pg_gh_object_ref(r.json, &out->id, out->html_url, sizeof out->html_url);
            break;
        }
        if (r.status == 403 && !strstr(d->message, "rate limit")) {
            char m[sizeof d->message];
            snprintf(m, sizeof m, "%s (only GitHub App tokens such as GITHUB_TOKEN with the "
                     "checks: write permission can create check runs)", d->message);
            snprintf(d->message, sizeof d->message, "%s", m);
        }
        if (!r.uncertain || !spec->external_id)
            goto done;
        pg_diag keep = *d;
        if (find_check(c, repo, spec, out, d) != PG_OK || !out->id) {
            *d = keep;
            out->id = 0;
            continue;
        }
        st = PG_OK;
        break;
    }
    if (st != PG_OK)
        goto done;
    out->annotations_sent = first;
    snprintf(path, sizeof path, "/repos/%s/check-runs/%lld", repo, out->id);
    for (size_t from = first; from < n; from += PG_GH_CHECK_BATCH) {
        size_t count = n - from < PG_GH_CHECK_BATCH ? n - from : PG_GH_CHECK_BATCH;
        json_t *o = output_object(spec, summary, a, from, count);
        json_t *patch = o ? json_pack("{s:o}", "output", o) : NULL;
        if (!patch) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
            goto done;
        }
        pg_gh_reply_free(&r);
        out->requests++;
        st = pg_gh_call(c, "PATCH", path, patch, &r, d);
        json_decref(patch);
        if (st != PG_OK)
            goto done;
        out->annotations_sent += count;
    }
done:
    pg_gh_reply_free(&r);
    json_decref(req);
    free(summary);
    return st;
}
