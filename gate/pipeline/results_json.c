/* Small builders for the results model (docs/results.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

json_t *pg_stage_new(const char *stage)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:{}}", "stage", stage, "status", "skipped", "message",
                     "", "duration_s", 0.0, "details");
}

void pg_stage_finish(json_t *stage, const char *status, double duration_s, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_object_set_new(stage, "status", json_string(status));
    json_object_set_new(stage, "message", json_string(msg));
    /* Rounded to the microsecond so the JSON stays readable. */
    json_object_set_new(stage, "duration_s", json_real(round(duration_s * 1e6) / 1e6));
}

json_t *pg_stage_details(json_t *stage)
{
    return json_object_get(stage, "details");
}

const char *pg_stage_status(const json_t *stage)
{
    return json_string_value(json_object_get(stage, "status"));
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
