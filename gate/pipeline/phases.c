/* Where a GPU stage's time went (see stage.h, pg_phase): seconds per phase, accumulated by
 * the workload context's primitives and written into the stage's details as "phases_s", so a
 * benchmark (bench/suite_speed.py) can say which part of a stage to make faster. */
#include <math.h>

#include "results_json.h"
#include "stage.h"

static const char *const phase_names[PG_PHASE_COUNT] = {
    [PG_PHASE_FILL] = "fill",           [PG_PHASE_CHECKSUM] = "checksum",
    [PG_PHASE_KERNEL] = "kernel",       [PG_PHASE_GUARDS] = "guards",
    [PG_PHASE_REFERENCE] = "reference", [PG_PHASE_COMPARE] = "compare",
    [PG_PHASE_ARMS] = "arms_setup",
    [PG_PHASE_PROBE] = "probe",         [PG_PHASE_SOAK] = "heat_soak",
    [PG_PHASE_BLOCKS] = "blocks",       [PG_PHASE_PEAKS] = "peaks",
};

void pg_phase_add(pg_wctx *c, pg_phase phase, double since_s)
{
    if (phase >= 0 && phase < PG_PHASE_COUNT)
        c->phases.seconds[phase] += pg_now_s() - since_s;
}

void pg_phases_reset(pg_wctx *c)
{
    for (int i = 0; i < PG_PHASE_COUNT; i++)
        c->phases.seconds[i] = 0;
}

json_t *pg_phases_json(const pg_wctx *c)
{
    json_t *j = json_object();
    for (int i = 0; i < PG_PHASE_COUNT; i++)
        if (c->phases.seconds[i] > 0)
            json_object_set_new(j, phase_names[i],
                                json_real(round(c->phases.seconds[i] * 1e4) / 1e4));
    return j;
}
