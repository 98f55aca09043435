/* The environment fingerprint: what the driver says about the device (name, UUID, attributes,
 * launch limits, memory), then what NVML adds when libnvidia-ml.so.1 is present (clocks,
 * driver version, power limit, ECC mode). NVML is optional: absent, its fields stay 0 / ""
 * (ECC -1). */
#include "device_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The few NVML declarations used (no nvml.h on the build machine). nvmlReturn_t and
 * nvmlClockType_t are C enums, passed as int. */
typedef struct pg_nvml_device *pg_nvml_device_t;
typedef int (*pg_nvml_init_fn)(void);
typedef int (*pg_nvml_shutdown_fn)(void);
typedef int (*pg_nvml_by_uuid_fn)(const char *uuid, pg_nvml_device_t *device);
typedef int (*pg_nvml_driver_version_fn)(char *version, unsigned int length);
typedef int (*pg_nvml_clock_fn)(pg_nvml_device_t device, int type, unsigned int *clock);
typedef int (*pg_nvml_power_limit_fn)(pg_nvml_device_t device, unsigned int *milliwatts);
typedef int (*pg_nvml_ecc_fn)(pg_nvml_device_t device, int *current, int *pending);
#define PG_NVML_SUCCESS 0
#define PG_NVML_CLOCK_SM 1
#define PG_NVML_CLOCK_MEM 2
#define PG_NVML_DRIVER_VERSION_BUFFER 80

static void read_nvml(pg_device_info *info)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    pg_nvml_init_fn init = (pg_nvml_init_fn)dlsym(lib, "nvmlInit_v2");
    pg_nvml_shutdown_fn shutdown = (pg_nvml_shutdown_fn)dlsym(lib, "nvmlShutdown");
    pg_nvml_by_uuid_fn by_uuid = (pg_nvml_by_uuid_fn)dlsym(lib, "nvmlDeviceGetHandleByUUID");
    pg_nvml_driver_version_fn driver =
        (pg_nvml_driver_version_fn)dlsym(lib, "nvmlSystemGetDriverVersion");
    pg_nvml_clock_fn clock = (pg_nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    pg_nvml_clock_fn max_clock = (pg_nvml_clock_fn)dlsym(lib, "nvmlDeviceGetMaxClockInfo");
    /* Optional: a fingerprint without them is still a fingerprint. */
    pg_nvml_power_limit_fn power_limit =
        (pg_nvml_power_limit_fn)dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit");
    pg_nvml_ecc_fn ecc = (pg_nvml_ecc_fn)dlsym(lib, "nvmlDeviceGetEccMode");
    if (!init || !shutdown || !by_uuid || !driver || !clock || !max_clock)
        goto unload;
    if (init() != PG_NVML_SUCCESS)
        goto unload;
    char version[PG_NVML_DRIVER_VERSION_BUFFER] = "";
    if (driver(version, sizeof(version)) == PG_NVML_SUCCESS)
        snprintf(info->driver_version, sizeof(info->driver_version), "%s", version);
    pg_nvml_device_t nd = NULL;
    if (info->uuid[0] && by_uuid(info->uuid, &nd) == PG_NVML_SUCCESS) {
        unsigned int mhz = 0;
        if (clock(nd, PG_NVML_CLOCK_SM, &mhz) == PG_NVML_SUCCESS)
            info->sm_clock_mhz = (int)mhz;
        if (clock(nd, PG_NVML_CLOCK_MEM, &mhz) == PG_NVML_SUCCESS)
            info->memory_clock_mhz = (int)mhz;
        if (max_clock(nd, PG_NVML_CLOCK_SM, &mhz) == PG_NVML_SUCCESS)
            info->max_sm_clock_mhz = (int)mhz;
        if (max_clock(nd, PG_NVML_CLOCK_MEM, &mhz) == PG_NVML_SUCCESS)
            info->max_memory_clock_mhz = (int)mhz;
        unsigned int mw = 0;
        if (power_limit && power_limit(nd, &mw) == PG_NVML_SUCCESS && mw > 0)
            info->power_limit_w = mw / 1000.0;
        /* nvmlEnableState_t: NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1. GPUs without ECC
         * answer NVML_ERROR_NOT_SUPPORTED: unknown. */
        int current = -1, pending = -1;
        if (ecc && ecc(nd, &current, &pending) == PG_NVML_SUCCESS &&
            (current == 0 || current == 1))
            info->ecc = current;
    }
    shutdown();
unload:
    dlclose(lib);
}

pg_status pg_fingerprint_read(pg_device *dev, int ordinal, pg_diag *d)
{
    const pg_cu_api *cu = dev->cu;
    pg_device_info *info = &dev->info;
    memset(info, 0, sizeof(*info));
    info->ordinal = ordinal;
    info->ecc = -1;

    pg_status st = pg_dev_check(dev, cu->DeviceGetName(info->name, (int)sizeof(info->name),
                                                       dev->device),
                                PG_ERR_INFRA, "cuDeviceGetName", d);
    if (st != PG_OK)
        return st;
    CUuuid u;
    st = pg_dev_check(dev, cu->DeviceGetUuid(&u, dev->device), PG_ERR_INFRA, "cuDeviceGetUuid",
                      d);
    if (st != PG_OK)
        return st;
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(info->uuid, sizeof(info->uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    /* The bus id is informative only; some virtualised setups refuse it. */
    if (cu->DeviceGetPCIBusId(info->pci_bus_id, (int)sizeof(info->pci_bus_id), dev->device) !=
        CUDA_SUCCESS)
        info->pci_bus_id[0] = '\0';

    static const struct {
        CUdevice_attribute attr;
        size_t offset;
    } attrs[] = {
#define PG_ATTR(a, f) {a, offsetof(pg_device_info, f)}
        PG_ATTR(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cc_major),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cc_minor),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, sm_count),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, max_threads_per_block),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, max_block_dim[0]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, max_block_dim[1]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, max_block_dim[2]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, max_grid_dim[0]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, max_grid_dim[1]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, max_grid_dim[2]),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, max_shared_per_block),
        PG_ATTR(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, max_shared_per_block_optin),
#undef PG_ATTR
    };
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        int v = 0;
        st = pg_dev_check(dev, cu->DeviceGetAttribute(&v, attrs[i].attr, dev->device),
                          PG_ERR_INFRA, "cuDeviceGetAttribute", d);
        if (st != PG_OK)
            return st;
        memcpy((char *)info + attrs[i].offset, &v, sizeof(v));
    }
    int l2 = 0;
    st = pg_dev_check(dev, cu->DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                                  dev->device),
                      PG_ERR_INFRA, "cuDeviceGetAttribute(L2_CACHE_SIZE)", d);
    if (st != PG_OK)
        return st;
    info->l2_bytes = l2;
    size_t total = 0;
    st = pg_dev_check(dev, cu->DeviceTotalMem(&total, dev->device), PG_ERR_INFRA,
                      "cuDeviceTotalMem", d);
    if (st != PG_OK)
        return st;
    info->memory_bytes = (long long)total;
    st = pg_dev_check(dev, cu->DriverGetVersion(&info->driver_api_version), PG_ERR_INFRA,
                      "cuDriverGetVersion", d);
    if (st != PG_OK)
        return st;
    read_nvml(info);
    return PG_OK;
}
