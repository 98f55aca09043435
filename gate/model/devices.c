/* The device list of a multi-GPU runner and its hand-out policy (devices.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"

pg_status pg_devices_parse(const char *text, int *out, int *n, pg_diag *d)
{
    *n = 0;
    const char *p = text ? text : "";
    for (;;) {
        if (*p < '0' || *p > '9')
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                               "expected comma-separated device ordinals (e.g. 0,1), found '%s'",
                               text ? text : "");
        long v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p++ - '0');
            if (v > PG_DEVICE_ORDINAL_MAX)
                return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                                   "expected ordinals 0..%d, found '%s'", PG_DEVICE_ORDINAL_MAX,
                                   text);
        }
        for (int i = 0; i < *n; i++)
            if (out[i] == (int)v)
                return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                                   "device %ld is listed twice in '%s'", v, text);
        if (*n == PG_DEVICES_MAX)
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                               "at most %d devices, found more in '%s'", PG_DEVICES_MAX, text);
        out[(*n)++] = (int)v;
        if (*p == '\0')
            return PG_OK;
        if (*p != ',')
            return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, "--devices",
                               "expected comma-separated device ordinals (e.g. 0,1), found '%s'",
                               text);
        p++;
    }
}

void pg_devices_order(const int *cost, size_t n, size_t *order)
{
    /* Insertion sort: stable, so equal costs keep ascending indices; n is a run's submissions. */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && cost[order[j - 1]] < cost[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

double pg_devices_simulate(const int *cost, size_t n, int n_devices, const size_t *order,
                           pg_devices_slot *slot)
{
    double free_at[PG_DEVICES_MAX] = {0}, makespan = 0;
    if (n_devices > PG_DEVICES_MAX)
        n_devices = PG_DEVICES_MAX;
    for (size_t k = 0; k < n; k++) {
        int best = 0;
        for (int dv = 1; dv < n_devices; dv++)
            if (free_at[dv] < free_at[best])
                best = dv;
        size_t i = order[k];
        slot[i].device = best;
        slot[i].start = free_at[best];
        slot[i].end = free_at[best] + cost[i];
        free_at[best] = slot[i].end;
        if (slot[i].end > makespan)
            makespan = slot[i].end;
    }
    return makespan;
}
