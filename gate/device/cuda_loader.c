/* The CUDA driver, loaded at run time: dlopen("libcuda.so.1"), every entry point through
 * cuGetProcAddress, cuInit. ptxgate never links libcuda, so it starts (and reports "no GPU
 * driver") on machines without one. */
#include "device_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The loader runs once per process: the driver cannot be initialised twice, and a failed cuInit
 * stays failed, so the first outcome (and its reason) is the answer for every later open. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pg_cu_api g_api;
static pg_status g_status = PG_ERR_INFRA;
static char g_reason[sizeof(((pg_diag *)0)->message)];

/* Reasons end up on one line of a skip message. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

static bool fetch(PFN_cuGetProcAddress_v12000 get, const char *sym, void **out)
{
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    *out = NULL;
    CUresult r = get(sym, out, PG_CU_ABI_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (r == CUDA_ERROR_STUB_LIBRARY) {
        /* The toolkit's link-time stub found first on the library path. */
        snprintf(g_reason, sizeof(g_reason),
                 "no GPU driver: libcuda.so.1 is the CUDA toolkit's stub library "
                 "(CUDA_ERROR_STUB_LIBRARY from cuGetProcAddress)");
        return false;
    }
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*out) {
        snprintf(g_reason, sizeof(g_reason),
                 "GPU driver too old: cuGetProcAddress found no %s for CUDA %d.%d (result %d, "
                 "query %d)",
                 sym, PG_CU_ABI_VERSION / 1000, PG_CU_ABI_VERSION % 1000 / 10, (int)r,
                 (int)found);
        return false;
    }
    return true;
}

static void load_once(void)
{
    /* Never dlclosed: the driver starts threads and the runtime inside cuBLASLt keeps its own
     * handle; unloading it under them would crash at exit. */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(g_reason, sizeof(g_reason), "no GPU driver: libcuda.so.1 not found (%s)",
                 e ? e : "no dlerror");
        goto done;
    }
    PFN_cuGetProcAddress_v12000 get =
        (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
    if (!get) {
        const char *e = dlerror();
        snprintf(g_reason, sizeof(g_reason),
                 "GPU driver too old: libcuda.so.1 has no cuGetProcAddress_v2 (%s)",
                 e ? e : "no dlerror");
        goto done;
    }
    void *p;
#define PG_CU_FETCH(field, sym, type)                                                          \
    if (!fetch(get, #sym, &p))                                                                 \
        goto done;                                                                             \
    g_api.field = (type)p;
    PG_CU_FUNCTIONS(PG_CU_FETCH)
#undef PG_CU_FETCH

    CUresult r = g_api.Init(0);
    if (r != CUDA_SUCCESS) {
        const char *name = NULL, *text = NULL;
        if (g_api.GetErrorName(r, &name) != CUDA_SUCCESS || !name)
            name = "unknown CUresult";
        if (r == CUDA_ERROR_NO_DEVICE || g_api.GetErrorString(r, &text) != CUDA_SUCCESS || !text)
            snprintf(g_reason, sizeof(g_reason), "no CUDA device: cuInit returned %s", name);
        else
            snprintf(g_reason, sizeof(g_reason), "no CUDA device: cuInit returned %s (%s)",
                     name, text);
        goto done;
    }
    g_status = PG_OK;
done:
    one_line(g_reason);
}

pg_status pg_load_once(pthread_once_t *once, void (*init)(void), const pg_status *status,
                       const char *reason, const char *no_once, pg_diag *d)
{
    if (pthread_once(once, init) != 0)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s: pthread_once failed", no_once);
    if (*status != PG_OK)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "%s", reason);
    return PG_OK;
}

pg_status pg_cu_load(const pg_cu_api **out, pg_diag *d)
{
    pg_status st = pg_load_once(&g_once, load_once, &g_status, g_reason, "no GPU driver", d);
    *out = st == PG_OK ? &g_api : NULL;
    return st;
}

void pg_cu_describe(const pg_cu_api *cu, CUresult r, char *buf, size_t n)
{
    const char *name = NULL, *text = NULL;
    if (!cu || cu->GetErrorName(r, &name) != CUDA_SUCCESS || !name) {
        snprintf(buf, n, "CUresult %d", (int)r);
        return;
    }
    if (cu->GetErrorString(r, &text) != CUDA_SUCCESS || !text)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "%s: %s", name, text);
}

bool pg_cu_is_sticky(CUresult r)
{
    /* The errors cuda.h documents as "the process must be terminated and relaunched". */
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
        return true;
    default:
        return false;
    }
}
