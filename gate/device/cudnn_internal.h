/* Private to gate/device: cuDNN loaded at run time (cudnn_loader.c) and a small builder for
 * backend graphs (cudnn_graph.c) that the SDPA baseline (cudnn_sdpa.c) uses. ptxgate never
 * links libcudnn: the headers (9.19 on the build machine) only give the C types and enum
 * values, which are stable across cuDNN 9 releases; the library found at run time (9.14 on
 * the H200) is asked its version. */
#ifndef PG_DEVICE_CUDNN_INTERNAL_H
#define PG_DEVICE_CUDNN_INTERNAL_H

#include <cudnn_graph.h>

#include "device_internal.h"

/* Every cuDNN function ptxgate calls: X(field, symbol, return type, parameters). */
#define PG_DNN_FUNCTIONS(X)                                                                    \
    X(GetVersion, cudnnGetVersion, size_t, (void))                                             \
    X(GetErrorString, cudnnGetErrorString, const char *, (cudnnStatus_t))                      \
    X(GetLastErrorString, cudnnGetLastErrorString, void, (char *, size_t))                     \
    X(Create, cudnnCreate, cudnnStatus_t, (cudnnHandle_t *))                                   \
    X(Destroy, cudnnDestroy, cudnnStatus_t, (cudnnHandle_t))                                   \
    X(SetStream, cudnnSetStream, cudnnStatus_t, (cudnnHandle_t, cudaStream_t))                 \
    X(CreateDescriptor, cudnnBackendCreateDescriptor, cudnnStatus_t,                           \
      (cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *))                              \
    X(DestroyDescriptor, cudnnBackendDestroyDescriptor, cudnnStatus_t,                         \
      (cudnnBackendDescriptor_t))                                                              \
    X(Finalize, cudnnBackendFinalize, cudnnStatus_t, (cudnnBackendDescriptor_t))               \
    X(SetAttribute, cudnnBackendSetAttribute, cudnnStatus_t,                                   \
      (cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t,     \
       int64_t, const void *))                                                                 \
    X(GetAttribute, cudnnBackendGetAttribute, cudnnStatus_t,                                   \
      (cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t,                            \
       cudnnBackendAttributeType_t, int64_t, int64_t *, void *))                               \
    X(Execute, cudnnBackendExecute, cudnnStatus_t,                                             \
      (cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t))

typedef struct {
#define PG_DNN_FIELD(field, sym, ret, params) ret(*field) params;
    PG_DNN_FUNCTIONS(PG_DNN_FIELD)
#undef PG_DNN_FIELD
    long version; /* cudnnGetVersion(), e.g. 91400 */
} pg_dnn_api;

/* cudnn_loader.c. dlopen libcudnn.so.9 (then libcudnn_graph.so.9) once per process and fetch
 * every function above; later calls return the same outcome. PG_ERR_INFRA with a one-line
 * reason ("no cuDNN: libcudnn.so.9 not found (...)", "cuDNN 8.9.7 is too old: ptxgate needs
 * cuDNN 9") otherwise. */
pg_status pg_dnn_load(const pg_dnn_api **out, pg_diag *d);
/* "CUDNN_STATUS_NOT_SUPPORTED: <cudnnGetErrorString>; <cudnnGetLastErrorString>" into buf. */
void pg_dnn_describe(const pg_dnn_api *api, cudnnStatus_t s, char *buf, size_t n);
/* "9.14.0" from 91400. */
void pg_dnn_version_text(long version, char *buf, size_t n);

/* ---- cudnn_graph.c: building one backend graph with a sticky first error ----
 * Every descriptor made through a builder is owned by it (pg_dnn_graph_release destroys them
 * all). After the first failure every further call does nothing and returns NULL, so graph
 * code reads as a straight list of operations; pg_dnn_graph_error gives the failure. */
/* Tensors and operations (about 80 for the causal backward) plus, per heuristics mode, up to 64
 * configurations and 64 plans. */
#define PG_DNN_MAX_DESCS 512
#define PG_DNN_MAX_OPS 40
typedef struct {
    const pg_dnn_api *api;
    cudnnBackendDescriptor_t descs[PG_DNN_MAX_DESCS];
    int n_descs;
    cudnnBackendDescriptor_t ops[PG_DNN_MAX_OPS];
    int n_ops;
    cudnnStatus_t status;  /* first failure; CUDNN_STATUS_SUCCESS while none */
    char failed_step[256]; /* what was being done: "finalize pointwise EXP 'exp_s'" */
    char failed_text[512]; /* pg_dnn_describe of the failure */
} pg_dnn_graph;

void pg_dnn_graph_init(pg_dnn_graph *g, const pg_dnn_api *api);
void pg_dnn_graph_release(pg_dnn_graph *g);
/* "finalize pointwise EXP 'exp_s': CUDNN_STATUS_...: ..." */
const char *pg_dnn_graph_error(const pg_dnn_graph *g, char *buf, size_t n);

/* A tensor of nd (<= 8) dims with the given strides (elements), 16-byte alignment. */
cudnnBackendDescriptor_t pg_dnn_tensor(pg_dnn_graph *g, int64_t uid, cudnnDataType_t type, int nd,
                                       const int64_t *dims, const int64_t *strides,
                                       bool is_virtual, bool by_value);
/* Operations (each finalized and appended to the graph's operation list). b and t may be NULL
 * for pointwise modes with fewer inputs; axis < 0 leaves the pointwise axis unset. */
void pg_dnn_matmul(pg_dnn_graph *g, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                   cudnnBackendDescriptor_t c, const char *name);
void pg_dnn_pointwise(pg_dnn_graph *g, cudnnPointwiseMode_t mode, cudnnDataType_t precision,
                      cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                      cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y, int64_t axis,
                      const char *name);
void pg_dnn_reduction(pg_dnn_graph *g, cudnnReduceTensorOp_t op, cudnnBackendDescriptor_t x,
                      cudnnBackendDescriptor_t y, const char *name);
void pg_dnn_reshape(pg_dnn_graph *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y,
                    const char *name);
/* The fused forward: SDPA_FWD with Q, K, V, O, stats and the by-value scale. */
void pg_dnn_sdpa_fwd(pg_dnn_graph *g, cudnnBackendDescriptor_t q, cudnnBackendDescriptor_t k,
                     cudnnBackendDescriptor_t v, cudnnBackendDescriptor_t o,
                     cudnnBackendDescriptor_t stats, cudnnBackendDescriptor_t scale);

/* Finalize the operation graph of g's operations for handle, then ask the heuristics (mode A,
 * then the fallback list) for engine configurations and keep the first of at most max_configs
 * whose execution plan finalizes; with pin, that configuration only (engine by global index,
 * knob choices), no heuristics. *plan is owned by g. info gets engine id and knobs
 * (info->config; the graph field is the caller's), heuristics mode ("pinned" with a pin), counts
 * and the workspace size. PG_ERR_INFRA naming the step when none finalizes; PG_ERR_INPUT naming
 * the configuration when cuDNN refuses the pin. */
pg_status pg_dnn_plan(pg_dnn_graph *g, cudnnHandle_t handle, int max_configs,
                      const pg_cudnn_config *pin, cudnnBackendDescriptor_t *plan,
                      pg_cudnn_sdpa_info *info, pg_diag *d);

/* A variant pack binding n (uid, pointer) pairs and the workspace. The caller destroys it with
 * api->DestroyDescriptor. */
pg_status pg_dnn_variant_pack(const pg_dnn_api *api, const int64_t *uids, void *const *ptrs,
                              int n, void *workspace, cudnnBackendDescriptor_t *out, pg_diag *d);

#endif
