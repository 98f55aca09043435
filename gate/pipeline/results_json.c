/* Small builders for the results model (docs/results.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results_json.h"
#include "run.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && s[0] < 0xC2) || (n == 4 && s[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong or surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

json_t *pg_jstr(const char *s)
{
    if (!s)
        return json_string("");
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t len = strlen(s);
    char *buf = malloc(3 * len + 1), *o = buf;
    if (!buf)
        return json_string("");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
            o += 3;
            p++;
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    v = json_string(buf);
    free(buf);
    return v ? v : json_string("");
}

pg_stage_entry *pg_stage_begin(pg_run *run, const pg_submission *s, pg_ledger *owner,
                               const char *workload, pg_stage_kind kind)
{
    pg_stage_entry *e = pg_ledger_begin(owner, kind);
    pg_progress(run, s, workload, pg_stage_kind_name(kind), NULL, NULL);
    return e;
}

json_t *pg_json_real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

double pg_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
