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

static bool is_runtime_function(const char *name)
{
    return strncmp(name, "cuda", 4) == 0;
}

static bool is_any_function(const char *name)
{
    (void)name;
    return true;
}

/* The refusals in the order they are looked for, device launches first (the more specific
 * explanation): which undefined functions each names, and what it says (one %s: the name). */
static const struct {
    bool (*names)(const char *);
    const char *message;
} k_refusals[] = {
    {is_device_launch,
     "dynamic parallelism is not supported: '%s' launches a kernel from the GPU "
     "(a device-side <<<...>>> or cudaLaunchDevice), which needs the CUDA device "
     "runtime and a device link step; ptxgate assembles one PTX module into one "
     "cubin without linking. Launch every kernel from the manifest instead"},
    {is_runtime_function,
     "'%s' is a CUDA device runtime function: it needs the device runtime library "
     "and a device link step, and ptxgate assembles one PTX module into one cubin "
     "without linking. Remove the call"},
    {is_any_function,
     "unresolved external function '%s': it is declared .extern but not defined in "
     "this module, and ptxgate links nothing (ptxas provides only vprintf, malloc, "
     "free and __assertfail). Define it in the PTX"},
};

pg_status pg_ptx_check_refusals(const pg_ptx_inventory *inv, const char *file, pg_diag *d)
{
    for (size_t pass = 0; pass < sizeof k_refusals / sizeof k_refusals[0]; pass++)
        for (size_t i = 0; i < inv->n_functions; i++) {
            const pg_ptx_function *f = &inv->functions[i];
            /* A declaration nothing uses is harmless: ptxas accepts it (checked with 13.0). */
            if (!f->is_extern || f->has_body || !f->referenced || provided_by_ptxas(f->name))
                continue;
            if (k_refusals[pass].names(f->name))
                return pg_diag_set(d, PG_ERR_INPUT, file, f->line, NULL, k_refusals[pass].message,
                                   f->name);
        }
    return PG_OK;
}
