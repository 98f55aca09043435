/* Private to gate/device: the driver entry points loaded at run time, the device structure and
 * the helpers every device file shares (entering the context, classifying CUDA errors,
 * waiting with a deadline). Never included outside gate/device. */
#ifndef PG_DEVICE_DEVICE_INTERNAL_H
#define PG_DEVICE_DEVICE_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <pthread.h>

#include "device.h"

/* The driver ABI version asked of cuGetProcAddress. Each typedef below is the newest version of
 * its function at or below this number, so the pointer the driver returns matches the type. */
#define PG_CU_ABI_VERSION 12080

/* Every driver function the device layer calls: X(field, symbol, typedef). */
#define PG_CU_FUNCTIONS(X)                                                                     \
    X(Init, cuInit, PFN_cuInit_v2000)                                                          \
    X(DriverGetVersion, cuDriverGetVersion, PFN_cuDriverGetVersion_v2020)                      \
    X(GetErrorName, cuGetErrorName, PFN_cuGetErrorName_v6000)                                  \
    X(GetErrorString, cuGetErrorString, PFN_cuGetErrorString_v6000)                            \
    X(DeviceGetCount, cuDeviceGetCount, PFN_cuDeviceGetCount_v2000)                            \
    X(DeviceGet, cuDeviceGet, PFN_cuDeviceGet_v2000)                                           \
    X(DeviceGetName, cuDeviceGetName, PFN_cuDeviceGetName_v2000)                               \
    X(DeviceGetUuid, cuDeviceGetUuid, PFN_cuDeviceGetUuid_v11040)                              \
    X(DeviceGetAttribute, cuDeviceGetAttribute, PFN_cuDeviceGetAttribute_v2000)                \
    X(DeviceTotalMem, cuDeviceTotalMem, PFN_cuDeviceTotalMem_v3020)                            \
    X(DeviceGetPCIBusId, cuDeviceGetPCIBusId, PFN_cuDeviceGetPCIBusId_v4010)                   \
    X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, PFN_cuDevicePrimaryCtxRetain_v7000)    \
    X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, PFN_cuDevicePrimaryCtxRelease_v11000) \
    X(CtxSetCurrent, cuCtxSetCurrent, PFN_cuCtxSetCurrent_v4000)                               \
    X(StreamCreate, cuStreamCreate, PFN_cuStreamCreate_v2000)                                  \
    X(StreamDestroy, cuStreamDestroy, PFN_cuStreamDestroy_v4000)                               \
    X(StreamQuery, cuStreamQuery, PFN_cuStreamQuery_v2000)                                     \
    X(ModuleLoadData, cuModuleLoadData, PFN_cuModuleLoadData_v2000)                            \
    X(ModuleLoadDataEx, cuModuleLoadDataEx, PFN_cuModuleLoadDataEx_v2010)                      \
    X(ModuleUnload, cuModuleUnload, PFN_cuModuleUnload_v2000)                                  \
    X(ModuleGetFunction, cuModuleGetFunction, PFN_cuModuleGetFunction_v2000)                   \
    X(FuncGetAttribute, cuFuncGetAttribute, PFN_cuFuncGetAttribute_v2020)                      \
    X(FuncSetAttribute, cuFuncSetAttribute, PFN_cuFuncSetAttribute_v9000)                      \
    X(LaunchKernel, cuLaunchKernel, PFN_cuLaunchKernel_v4000)                                  \
    X(LaunchKernelEx, cuLaunchKernelEx, PFN_cuLaunchKernelEx_v11060)                           \
    X(OccupancyMaxActiveClusters, cuOccupancyMaxActiveClusters,                               \
      PFN_cuOccupancyMaxActiveClusters_v11070)                                                 \
    X(MemAlloc, cuMemAlloc, PFN_cuMemAlloc_v3020)                                              \
    X(MemFree, cuMemFree, PFN_cuMemFree_v3020)                                                 \
    X(MemsetD8Async, cuMemsetD8Async, PFN_cuMemsetD8Async_v3020)                               \
    X(MemsetD32Async, cuMemsetD32Async, PFN_cuMemsetD32Async_v3020)                            \
    X(MemcpyDtoHAsync, cuMemcpyDtoHAsync, PFN_cuMemcpyDtoHAsync_v3020)                         \
    X(MemcpyDtoDAsync, cuMemcpyDtoDAsync, PFN_cuMemcpyDtoDAsync_v3020)                         \
    X(MemcpyHtoDAsync, cuMemcpyHtoDAsync, PFN_cuMemcpyHtoDAsync_v3020)                         \
    X(EventCreate, cuEventCreate, PFN_cuEventCreate_v2000)                                     \
    X(EventDestroy, cuEventDestroy, PFN_cuEventDestroy_v4000)                                  \
    X(EventRecord, cuEventRecord, PFN_cuEventRecord_v2000)                                     \
    X(EventQuery, cuEventQuery, PFN_cuEventQuery_v2000)                                        \
    X(EventElapsedTime, cuEventElapsedTime, PFN_cuEventElapsedTime_v12080)                    \
    X(StreamBeginCapture, cuStreamBeginCapture, PFN_cuStreamBeginCapture_v10010)              \
    X(StreamEndCapture, cuStreamEndCapture, PFN_cuStreamEndCapture_v10000)                    \
    X(GraphInstantiateWithFlags, cuGraphInstantiateWithFlags,                                 \
      PFN_cuGraphInstantiateWithFlags_v11040)                                                  \
    X(GraphUpload, cuGraphUpload, PFN_cuGraphUpload_v11010)                                   \
    X(GraphLaunch, cuGraphLaunch, PFN_cuGraphLaunch_v10000)                                   \
    X(GraphExecDestroy, cuGraphExecDestroy, PFN_cuGraphExecDestroy_v10000)                    \
    X(GraphDestroy, cuGraphDestroy, PFN_cuGraphDestroy_v10000)                                \
    X(TensorMapEncodeTiled, cuTensorMapEncodeTiled, PFN_cuTensorMapEncodeTiled_v12000)        \
    X(MemAddressReserve, cuMemAddressReserve, PFN_cuMemAddressReserve_v10020)                 \
    X(MemAddressFree, cuMemAddressFree, PFN_cuMemAddressFree_v10020)                          \
    X(MemCreate, cuMemCreate, PFN_cuMemCreate_v10020)                                         \
    X(MemRelease, cuMemRelease, PFN_cuMemRelease_v10020)                                      \
    X(MemMap, cuMemMap, PFN_cuMemMap_v10020)                                                  \
    X(MemUnmap, cuMemUnmap, PFN_cuMemUnmap_v10020)                                            \
    X(MemSetAccess, cuMemSetAccess, PFN_cuMemSetAccess_v10020)                                \
    X(MemGetAllocationGranularity, cuMemGetAllocationGranularity,                             \
      PFN_cuMemGetAllocationGranularity_v10020)                                                \
    X(CtxSetLimit, cuCtxSetLimit, PFN_cuCtxSetLimit_v3010)                                    \
    X(CtxResetPersistingL2Cache, cuCtxResetPersistingL2Cache,                                 \
      PFN_cuCtxResetPersistingL2Cache_v11000)

typedef struct {
#define PG_CU_FIELD(field, sym, type) type field;
    PG_CU_FUNCTIONS(PG_CU_FIELD)
#undef PG_CU_FIELD
} pg_cu_api;

/* cuda_loader.c. Load libcuda.so.1, fetch every function above and run cuInit(0), once per
 * process; later calls return the same result (the same reason on failure). The driver stays
 * loaded for the life of the process, as the CUDA runtime does. PG_ERR_INFRA with a one-line
 * reason when there is no driver, a driver too old, or no device. */
pg_status pg_cu_load(const pg_cu_api **out, pg_diag *d);
/* cuda_loader.c. The outcome of a library loader that runs once per process (the driver's and
 * cuDNN's): run init once through once, then PG_OK when *status (set by init) is PG_OK, else
 * PG_ERR_INFRA with reason (init's one-line message) as the message. no_once names the library
 * in the message when pthread_once itself fails ("no cuDNN"). */
pg_status pg_load_once(pthread_once_t *once, void (*init)(void), const pg_status *status,
                       const char *reason, const char *no_once, pg_diag *d);
/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" into buf. */
void pg_cu_describe(const pg_cu_api *cu, CUresult r, char *buf, size_t n);
/* Errors after which the context can run nothing more. */
bool pg_cu_is_sticky(CUresult r);

/* The reference and fill kernels of kernels/reference.cu, by pg_ref_kernel index. */
enum {
    PG_REF_FILL_BF16,
    PG_REF_FILL_FP16,
    PG_REF_FILL_FP32,
    PG_REF_FILL_E4M3,
    PG_REF_FILL_E5M2,
    PG_REF_FILL_SCALE,
    PG_REF_DEQUANT_FP8,
    /* the reference GEMM by operand contiguity: A's k or m, B's k or n (reference.cu) */
    PG_REF_GEMM_AK_BK,
    PG_REF_GEMM_AK_BN,
    PG_REF_GEMM_AM_BK,
    PG_REF_GEMM_AM_BN,
    PG_REF_SPIN,
    /* attention reference (kernels/attention.cuh, driven by reference_mha.c) */
    PG_REF_BGEMM_BF16_KK,
    PG_REF_BGEMM_FP16_KK,
    PG_REF_BGEMM_F32_BF16_KN,
    PG_REF_BGEMM_F32_FP16_KN,
    PG_REF_BGEMM_F32_BF16_MN,
    PG_REF_BGEMM_F32_FP16_MN,
    PG_REF_MHA_SOFTMAX_FWD,
    PG_REF_MHA_SOFTMAX_BWD,
    PG_REF_MHA_ROWDOT_BF16,
    PG_REF_MHA_ROWDOT_FP16,
    PG_REF_MHA_GROUP_SUM,
    PG_REF_SCALE_F32,
    PG_REF_CONVERT_F32_BF16,
    PG_REF_CONVERT_F32_FP16,
    PG_REF_CHECK_CHECKSUM,
    PG_REF_CHECK_ACCURACY,
    PG_REF_CHECK_DIFFERENCES,
    PG_REF_COUNT
};

struct cublasLtContext; /* cublasLtHandle_t is a pointer to it */
struct pg_cudnn_state;  /* cudnn_sdpa.c */

struct pg_device {
    const pg_cu_api *cu;
    CUdevice device;
    CUcontext ctx;        /* the primary context, retained by us when non-NULL */
    CUstream stream;      /* the one stream all work goes to */
    bool broken;          /* a sticky error or a timeout: nothing more may run */
    bool hung;            /* a kernel may still be running: close leaves the context alone */
    char broken_reason[512];
    pg_device_info info;

    CUmodule ref_module;  /* embedded reference/fill kernels (reference.c) */
    CUfunction ref[PG_REF_COUNT];

    CUevent *events;      /* timing.c: created once, grown on demand, 2 per arm */
    size_t n_events;
    CUdeviceptr flush;    /* timing.c: the L2 flush buffer, allocated on first use */
    uint32_t flush_value; /* changes with every flush so no memset can be skipped */

    struct cublasLtContext *blaslt; /* blaslt.c: created on first use */
    struct pg_cudnn_state *cudnn;   /* cudnn_sdpa.c: handle and plan cache, on first use */

    struct pg_envwatch *envwatch; /* envwatch.c: the open watch, NULL when none */
    bool activity_open;           /* activity.c: a pg_activity window is open */
    char chip[64];                /* rangeprof.c: CUPTI's chip name once read, else "" */
    uint64_t activity_ns0;        /* activity.c: collector totals at the window's begin */
    uint64_t activity_kernels0;
};

/* Poll periods of pg_dev_wait. */
#define PG_WAIT_FIRST_SLEEP_US 50
#define PG_WAIT_MAX_SLEEP_US 2000
/* Safety deadline for waits the caller gave no timeout for (download, fills). */
#define PG_DEVICE_SAFETY_TIMEOUT_S 600.0

/* device.c */
/* PG_ERR_INFRA when broken; otherwise make the device's context current on this thread. */
pg_status pg_dev_enter(pg_device *dev, pg_diag *d);
/* PG_OK for CUDA_SUCCESS. A sticky error marks the device broken and is PG_FAIL_KERNEL (a
 * kernel that ran earlier faulted); any other error is `fail` with "NAME: string (what)". */
pg_status pg_dev_check(pg_device *dev, CUresult r, pg_status fail, const char *what, pg_diag *d);
/* Mark the device unusable, keeping the first reason. */
void pg_dev_mark_broken(pg_device *dev, bool hung, const char *reason);
/* Monotonic seconds. */
double pg_dev_now(void);
/* Poll the stream (ev == NULL) or the event until done or `deadline` (pg_dev_now() seconds).
 * On timeout: PG_FAIL_KERNEL "TIMEOUT: kernel still running after <timeout_s> s", device marked
 * broken and hung. A fault: PG_FAIL_KERNEL with the CUDA error name. */
pg_status pg_dev_wait(pg_device *dev, CUevent ev, double deadline, double timeout_s, pg_diag *d);

/* module.c: a kernel's function and the device its module lives on (pg_kernel is private to
 * module.c). */
CUfunction pg_kernel_function(const pg_kernel *k, pg_device **dev);

/* buffer.c: the device a buffer lives on. */
pg_device *pg_buffer_device(const pg_buffer *b);

/* reference.c: load the embedded module at open; fills and GEMM. */
pg_status pg_ref_load(pg_device *dev, pg_diag *d);
void pg_ref_unload(pg_device *dev);
/* Enqueue reference kernel `which` (a PG_REF_* index) on the device stream with a grid of
 * gx x gy x gz CTAs of `threads` threads and no dynamic shared memory. PG_ERR_INFRA naming the
 * kernel when the driver refuses the launch. */
pg_status pg_ref_launch(pg_device *dev, int which, unsigned gx, unsigned gy, unsigned gz,
                        unsigned threads, void **args, pg_diag *d);

/* fingerprint.c: fill dev->info (driver attributes, then NVML when present). */
pg_status pg_fingerprint_read(pg_device *dev, int ordinal, pg_diag *d);

/* timing.c: release events and the flush buffer. */
void pg_timing_release(pg_device *dev);

/* blaslt.c: destroy the cuBLASLt handle. */
void pg_blaslt_release(pg_device *dev);

/* cudnn_sdpa.c: destroy the cached plans and the cuDNN handle. */
void pg_cudnn_release(pg_device *dev);

/* sustained.c: the timing resources of timing.c (dev->events grown to at least n, the L2 flush
 * buffer allocated on first use, released by pg_timing_release) and one flush. They repeat
 * timing.c's static helpers of the same purpose. */
pg_status pg_tm_ensure_events(pg_device *dev, size_t n, pg_diag *d);
pg_status pg_tm_flush_l2(pg_device *dev, pg_diag *d);

/* activity.c: the process's one CUPTI kernel-activity collector, shared by pg_activity_* and
 * pg_device_time_arm. start/stop nest (a depth count): the activity kind is enabled at the
 * first start and disabled at the last stop, and the collector serves one device at a time
 * (PG_ERR_INPUT for another). read delivers every record so far (the caller waits for the GPU
 * first) and returns running totals since the first start: kernel nanoseconds and count. */
pg_status pg_act_start(pg_device *dev, pg_diag *d);
pg_status pg_act_read(pg_device *dev, uint64_t *kernel_ns, uint64_t *kernels, pg_diag *d);
pg_status pg_act_stop(pg_device *dev, pg_diag *d);
/* CUPTI's clock (ns), the one kernel records are stamped in. */
pg_status pg_act_now(uint64_t *ts, pg_diag *d);
/* While on (between start and stop), the collector also keeps every kernel's (start, end);
 * turning it on clears the list. take hands the list to the caller (free()), after a read;
 * PG_ERR_INFRA when spans were lost (cap of 2^20, host memory). */
typedef struct {
    uint64_t start, end; /* CUPTI ns */
} pg_act_span;
void pg_act_keep_spans(bool on);
pg_status pg_act_take_spans(pg_act_span **spans, size_t *n, pg_diag *d);

/* Release hooks that pg_device_close calls: end an open environment
 * watch (joining its thread) and close an open activity window. */
void pg_envwatch_release(pg_device *dev);
void pg_activity_release(pg_device *dev);

#endif
