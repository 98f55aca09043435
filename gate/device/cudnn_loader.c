/* cuDNN, loaded at run time: dlopen("libcudnn.so.9"), every function the baseline calls, and
 * the library's own version. ptxgate never links libcudnn, so a machine without cuDNN still
 * runs everything but the attention baseline, which then reports why. */
#include "cudnn_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pg_dnn_api g_api;
static pg_status g_status = PG_ERR_INFRA;
static char g_reason[sizeof(((pg_diag *)0)->message)];

void pg_dnn_version_text(long v, char *buf, size_t n)
{
    /* cuDNN 9 encodes major * 10000 + minor * 100 + patch (cudnn_version.h). */
    snprintf(buf, n, "%ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
}

static void load_once(void)
{
    /* libcudnn.so.9 is the shim that loads the graph and engine libraries; it exports the
     * backend API. libcudnn_graph.so.9 alone serves it too. Never dlclosed (the engines keep
     * threads and the runtime inside them). */
    static const char *const names[] = {"libcudnn.so.9", "libcudnn_graph.so.9"};
    void *lib = NULL;
    char errs[600] = "";
    for (size_t i = 0; i < 2 && !lib; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *e = dlerror();
            size_t used = strlen(errs);
            snprintf(errs + used, sizeof errs - used, "%s%s", used ? "; " : "",
                     e ? e : names[i]);
        }
    }
    if (!lib) {
        snprintf(g_reason, sizeof g_reason, "no cuDNN: libcudnn.so.9 not found (%s)", errs);
        return;
    }
#define PG_DNN_FETCH(field, sym, ret, params)                                                  \
    {                                                                                          \
        void *p = dlsym(lib, #sym);                                                            \
        if (!p) {                                                                              \
            snprintf(g_reason, sizeof g_reason, "cuDNN library without %s: not cuDNN 9?",      \
                     #sym);                                                                    \
            return;                                                                            \
        }                                                                                      \
        g_api.field = (ret(*) params)p;                                                        \
    }
    PG_DNN_FUNCTIONS(PG_DNN_FETCH)
#undef PG_DNN_FETCH
    g_api.version = (long)g_api.GetVersion();
    if (g_api.version / 10000 != 9) {
        char v[32];
        pg_dnn_version_text(g_api.version, v, sizeof v);
        snprintf(g_reason, sizeof g_reason,
                 "cuDNN %s is not supported: the backend graph API of cuDNN 9 is needed (built "
                 "against %d.%d)",
                 v, CUDNN_MAJOR, CUDNN_MINOR);
        return;
    }
    g_status = PG_OK;
}

pg_status pg_dnn_load(const pg_dnn_api **out, pg_diag *d)
{
    pg_status st = pg_load_once(&g_once, load_once, &g_status, g_reason, "no cuDNN", d);
    *out = st == PG_OK ? &g_api : NULL;
    return st;
}

long pg_cudnn_version(char *reason, size_t n)
{
    const pg_dnn_api *api;
    pg_diag d;
    pg_diag_clear(&d);
    if (pg_dnn_load(&api, &d) != PG_OK) {
        if (reason && n)
            snprintf(reason, n, "%s", d.message);
        return 0;
    }
    return api->version;
}

/* The status names of cudnn_graph.h, for messages that stay readable without the library. */
static const char *status_name(cudnnStatus_t s)
{
#define PG_DNN_STATUS(x)                                                                       \
    case x:                                                                                    \
        return #x;
    switch ((int)s) {
        PG_DNN_STATUS(CUDNN_STATUS_SUCCESS)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
        PG_DNN_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
        PG_DNN_STATUS(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
        PG_DNN_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
        PG_DNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
        PG_DNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR)
        PG_DNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
        PG_DNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
        PG_DNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED)
        PG_DNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
        PG_DNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    default:
        return NULL;
    }
#undef PG_DNN_STATUS
}

void pg_dnn_describe(const pg_dnn_api *api, cudnnStatus_t s, char *buf, size_t n)
{
    const char *name = status_name(s);
    const char *text = api && api->GetErrorString ? api->GetErrorString(s) : NULL;
    char last[384] = "";
    if (api && api->GetLastErrorString)
        api->GetLastErrorString(last, sizeof last);
    for (char *c = last; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    char code[48];
    if (!name) {
        snprintf(code, sizeof code, "cudnnStatus_t %d", (int)s);
        name = code;
    }
    if (text)
        snprintf(buf, n, "%s (%s)", name, text);
    else
        snprintf(buf, n, "%s", name);
    if (last[0]) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, ": %s", last);
    }
}
