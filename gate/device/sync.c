/* Waiting for the GPU with a deadline: polling instead of a blocking synchronize, so a kernel
 * that never ends becomes a TIMEOUT result rather than a hung gate. */
#include "device_internal.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

pg_status pg_dev_wait(pg_device *dev, CUevent ev, double deadline, double timeout_s, pg_diag *d)
{
    const pg_cu_api *cu = dev->cu;
    /* Short kernels finish within the first polls; long ones are polled less and less often
     * (the period grows by a quarter per poll up to 2 ms) so the host thread does not spin. */
    long sleep = PG_WAIT_FIRST_SLEEP_US;
    for (;;) {
        CUresult r = ev ? cu->EventQuery(ev) : cu->StreamQuery(dev->stream);
        if (r == CUDA_SUCCESS)
            return PG_OK;
        if (r != CUDA_ERROR_NOT_READY)
            /* Whatever the stream reports now was raised by the work on it. */
            return pg_dev_check(dev, r, PG_FAIL_KERNEL, ev ? "cuEventQuery" : "cuStreamQuery",
                                d);
        if (pg_dev_now() >= deadline) {
            char reason[128];
            snprintf(reason, sizeof(reason), "TIMEOUT: kernel still running after %.3g s",
                     timeout_s);
            pg_dev_mark_broken(dev, true, reason);
            return pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL, "%s", reason);
        }
        sleep_us(sleep);
        sleep += sleep / 4;
        if (sleep > PG_WAIT_MAX_SLEEP_US)
            sleep = PG_WAIT_MAX_SLEEP_US;
    }
}

pg_status pg_device_sync(pg_device *dev, double timeout_s, pg_diag *d)
{
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (!(timeout_s > 0))
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "sync timeout must be positive, got %g s", timeout_s);
    return pg_dev_wait(dev, NULL, pg_dev_now() + timeout_s, timeout_s, d);
}
