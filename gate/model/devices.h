/* A multi-GPU runner (`ptxgate check --devices 0,1,...`): the device list and the pure policy that
 * decides which submission runs next on a free device, testable without processes or GPUs.
 *
 * Policy: whole submissions are the unit (a submission's kernel, its accepted kernel and its
 * module stay in one worker process, as on one GPU). Submissions are handed out longest first:
 * descending cost (the number of workloads it runs on the GPU), ties by ascending submission
 * index, so the order depends only on the inputs. Each device runs at most one worker at a time
 * and takes the next submission of that order as soon as its previous one is done (list
 * scheduling; longest-processing-time first keeps the makespan within 4/3 of the optimum, Graham
 * 1969, "Bounds on multiprocessing timing anomalies"). Which device gets which submission
 * depends on completion times; the results do not (they are kept in submission order). */
#ifndef PG_MODEL_DEVICES_H
#define PG_MODEL_DEVICES_H

#include <stddef.h>

#include "base/diag.h"

/* Most devices in one list, and the largest ordinal (as --device). */
#define PG_DEVICES_MAX 64
#define PG_DEVICE_ORDINAL_MAX 1024

/* Parse "0,1,..." (decimal ordinals 0..PG_DEVICE_ORDINAL_MAX, comma-separated, no blanks, each
 * once, at most PG_DEVICES_MAX) into out[0..*n-1], in the given order. Errors: PG_ERR_INPUT
 * naming --devices, what was found and what was expected. */
pg_status pg_devices_parse(const char *text, int *out, int *n, pg_diag *d);

/* order[0..n-1] = the submission indices 0..n-1 sorted by descending cost[i], ties by ascending
 * index (the hand-out order of the policy above). cost[i] >= 0. */
void pg_devices_order(const int *cost, size_t n, size_t *order);

/* One submission's place in a simulated run. */
typedef struct {
    int device;   /* position in the device list, 0..n_devices-1 */
    double start; /* in units of cost */
    double end;
} pg_devices_slot;

/* Simulate the policy with durations equal to cost (zero-cost items take no time): slot[i] for
 * submission i. A free device takes the next item in `order`; when several are free at once, the
 * lowest position first. Returns the makespan. n_devices >= 1. */
double pg_devices_simulate(const int *cost, size_t n, int n_devices, const size_t *order,
                           pg_devices_slot *slot);

#endif
