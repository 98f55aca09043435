/* Private to gate/device: what the range profiler (rangeprof.c) and its GPU-free host half
 * (rangeprof_host.c) share: CUPTI result classification and the host object + config image.
 * cupti_profiler_host.h includes the C++ header <string> although it uses nothing from it;
 * device.cmake puts an empty `string` on this library's private include path so it compiles as
 * C. Never included outside gate/device. */
#ifndef PG_DEVICE_RANGEPROF_INTERNAL_H
#define PG_DEVICE_RANGEPROF_INTERNAL_H

#include <cupti_profiler_host.h>
#include <cupti_result.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/* PG_OK for CUPTI_SUCCESS. The results that mean "profiling cannot run here" (no permission,
 * counters busy, another profiler, virtual or MIG device, unknown chip, ...) are
 * PG_ERR_UNAVAILABLE with "NAME in call: why; fix: what to do"; any other result is
 * PG_ERR_INFRA "NAME in call: CUPTI's message". */
pg_status pg_rp_check(CUptiResult r, const char *call, pg_diag *d);

/* A host object for the range profiler on `chip` with `metrics` added, and its config image.
 * availability: the counter availability image of the device, or NULL offline. On success the
 * caller owns *host (pg_rp_host_release) and *config (free()); *passes is CUPTI's pass count for
 * the image. A metric the chip does not know is PG_ERR_INPUT naming it (each metric is probed
 * on its own when the whole list is refused). */
typedef struct {
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    size_t passes;
} pg_rp_host;
pg_status pg_rp_host_setup(const char *chip, const uint8_t *availability,
                           const char *const *metrics, size_t n, pg_rp_host *out, pg_diag *d);
void pg_rp_host_release(pg_rp_host *h);

#endif
