/* PTX refused before assembly: dynamic parallelism and unresolved externals (see refusals.h). */
#include "refusals.h"

#include <string.h>

#include "../base/names.h"

/* Functions ptxas resolves itself in whole-program mode (checked with ptxas 13.0: a module
 * declaring them assembles without any library). */
static bool provided_by_ptxas(const char *name)
{
    static const char *const names[] = {"vprintf", "malloc", "free", "__assertfail", NULL};
    return pg_name_among(name, names);
}

static bool is_device_launch(const char *name)
{
    return strncmp(name, "cudaLaunchDevice", 16) == 0 ||
           strncmp(name, "cudaGetParameterBuffer", 22) == 0 || strncmp(name, "__cudaCDP", 9) == 0;
}

pg_status pg_ptx_check_refusals(const pg_ptx_inventory *inv, const char *file, pg_diag *d)
{
    /* Device launches first: they are the more specific explanation. */
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < inv->n_functions; i++) {
            const pg_ptx_function *f = &inv->functions[i];
            /* A declaration nothing uses is harmless: ptxas accepts it (checked with 13.0). */
            if (!f->is_extern || f->has_body || !f->referenced || provided_by_ptxas(f->name))
                continue;
            if (pass == 0 && is_device_launch(f->name))
                return pg_diag_set(
                    d, PG_ERR_INPUT, file, f->line, NULL,
                    "dynamic parallelism is not supported: '%s' launches a kernel from the GPU "
                    "(a device-side <<<...>>> or cudaLaunchDevice), which needs the CUDA device "
                    "runtime and a device link step; ptxgate assembles one PTX module into one "
                    "cubin without linking. Launch every kernel from the manifest instead",
                    f->name);
            if (pass == 1 && strncmp(f->name, "cuda", 4) == 0)
                return pg_diag_set(
                    d, PG_ERR_INPUT, file, f->line, NULL,
                    "'%s' is a CUDA device runtime function: it needs the device runtime library "
                    "and a device link step, and ptxgate assembles one PTX module into one cubin "
                    "without linking. Remove the call",
                    f->name);
            if (pass == 2)
                return pg_diag_set(
                    d, PG_ERR_INPUT, file, f->line, NULL,
                    "unresolved external function '%s': it is declared .extern but not defined in "
                    "this module, and ptxgate links nothing (ptxas provides only vprintf, malloc, "
                    "free and __assertfail). Define it in the PTX",
                    f->name);
        }
    return PG_OK;
}
