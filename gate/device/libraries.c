/* The libraries a GPU run needs, found and versioned without a GPU for `ptxgate doctor`: the
 * driver and NVML by dlopen (no cuInit, no context), cuBLASLt and CUPTI as linked, cuDNN through
 * its loader. */
#include <cublasLt.h>
#include <cupti.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "device.h"

/* The file a dlopen handle came from (dlinfo's link map). */
static void handle_path(void *lib, char *out, size_t n)
{
    struct link_map *map = NULL;
    out[0] = '\0';
    if (lib && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
        snprintf(out, n, "%s", map->l_name);
}

/* The file holding symbol sym of this process. */
static void symbol_path(void *sym, char *out, size_t n)
{
    Dl_info info;
    out[0] = '\0';
    if (dladdr(sym, &info) && info.dli_fname)
        snprintf(out, n, "%s", info.dli_fname);
}

/* dlopen soname for p: the handle with p->path set, or NULL with p->reason saying why. */
static void *open_library(const char *soname, pg_library_probe *p)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(p->reason, sizeof p->reason, "%s not found (%s)", soname, e ? e : "");
        return NULL;
    }
    handle_path(lib, p->path, sizeof p->path);
    return lib;
}

static void probe_driver(pg_library_probe *p)
{
    void *lib = open_library("libcuda.so.1", p);
    if (!lib)
        return;
    int (*get)(int *) = (int (*)(int *))dlsym(lib, "cuDriverGetVersion");
    int v = 0;
    if (get && get(&v) == 0)
        snprintf(p->version, sizeof p->version, "%d.%d", v / 1000, v % 1000 / 10);
    else
        snprintf(p->reason, sizeof p->reason, "cuDriverGetVersion failed");
    dlclose(lib);
}

static void probe_nvml(pg_library_probe *p)
{
    void *lib = open_library("libnvidia-ml.so.1", p);
    if (!lib)
        return;
    /* nvml.h: nvmlReturn_t is an int enum, NVML_SUCCESS 0. */
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(lib, "nvmlShutdown");
    int (*version)(char *, unsigned) =
        (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
    int rc = init ? init() : -1;
    if (rc != 0)
        snprintf(p->reason, sizeof p->reason, "nvmlInit_v2 returned %d (no NVIDIA driver "
                 "running?)", rc);
    else if (!version || version(p->version, sizeof p->version) != 0)
        snprintf(p->reason, sizeof p->reason, "nvmlSystemGetDriverVersion failed");
    if (rc == 0 && shutdown)
        shutdown();
    dlclose(lib);
}

void pg_libraries_probe_run(pg_libraries_probe *out)
{
    memset(out, 0, sizeof *out);
    probe_driver(&out->driver);
    probe_nvml(&out->nvml);

    /* cuBLASLt encodes major * 10000 + minor * 100 + patch (cublasLt.h). */
    size_t v = cublasLtGetVersion();
    symbol_path((void *)cublasLtGetVersion, out->cublaslt.path, sizeof out->cublaslt.path);
    snprintf(out->cublaslt.version, sizeof out->cublaslt.version, "%zu.%zu.%zu", v / 10000,
             v / 100 % 100, v % 100);

    uint32_t api = 0;
    symbol_path((void *)cuptiGetVersion, out->cupti.path, sizeof out->cupti.path);
    if (cuptiGetVersion(&api) == CUPTI_SUCCESS)
        snprintf(out->cupti.version, sizeof out->cupti.version, "API %u", api);
    else
        snprintf(out->cupti.reason, sizeof out->cupti.reason, "cuptiGetVersion failed");

    char why[512] = "";
    long dnn = pg_cudnn_version(why, sizeof why);
    if (dnn > 0) {
        snprintf(out->cudnn.version, sizeof out->cudnn.version, "%ld.%ld.%ld", dnn / 10000,
                 dnn / 100 % 100, dnn % 100);
        void *lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        handle_path(lib, out->cudnn.path, sizeof out->cudnn.path);
        if (lib)
            dlclose(lib); /* drops only the reference RTLD_NOLOAD took */
    } else {
        snprintf(out->cudnn.reason, sizeof out->cudnn.reason, "%s", why);
    }
}
