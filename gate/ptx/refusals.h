/* PTX that ptxgate refuses before ptxas runs: modules that cannot become the one whole-program
 * cubin the gate loads, times and inspects.
 *
 * - Dynamic parallelism and the CUDA device runtime: a used, external declaration of a device
 *   runtime function (cudaLaunchDevice, cudaLaunchDeviceV2, cudaGetParameterBuffer,
 *   cudaGetParameterBufferV2, the __cudaCDP2* names nvcc 12+ emits for a device-side <<<...>>>,
 *   and any other cuda* function). They need the device runtime library and a device link
 *   step; ptxgate assembles one PTX module with ptxas and links nothing.
 * - Unresolved externals: an ".extern .func" that the module uses but never defines. ptxas itself
 *   provides vprintf, malloc, free and __assertfail (printf, device malloc and assert work
 *   without linking: checked with ptxas 13.0), so those are accepted.
 * A declaration no instruction uses is accepted: ptxas ignores it. "Used" means named by an
 * instruction operand (a call or a function address), see inventory.h.
 * Shared with the worker isolation work: the same check guards every way a module is built. */
#ifndef PG_PTX_REFUSALS_H
#define PG_PTX_REFUSALS_H

#include "../base/diag.h"
#include "inventory.h"

/* PG_OK when the module is acceptable. Otherwise PG_ERR_INPUT with d->file = file, d->line =
 * the line of the first offending declaration, and a message naming the function, why it is
 * refused and what to do instead. */
pg_status pg_ptx_check_refusals(const pg_ptx_inventory *inv, const char *file, pg_diag *d);

#endif
