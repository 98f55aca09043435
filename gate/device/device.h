/* The one narrow interface between ptxgate and the GPU. CUDA-free: no CUDA header is included
 * here, so pure modules cannot reach CUDA by accident. Everything behind it (driver loaded at run
 * time with dlopen, cuBLASLt, ptxgate's reference and fill kernels) lives in the .c files of gate/device.
 *
 * Calling sequence: pg_device_open → pg_module_load / pg_buffer_alloc → fill → pg_device_launch →
 * pg_device_sync → pg_buffer_download ... → pg_device_close. One device = one CUDA context (the
 * primary context of the ordinal) and one stream; all work is enqueued on that stream.
 *
 * Errors: functions return PG_OK, PG_FAIL_KERNEL (the submitted kernel failed at run time: a
 * result, not a crash; the diag message starts with the CUDA error name, e.g.
 * "CUDA_ERROR_ILLEGAL_ADDRESS: ..."), PG_ERR_INPUT (a launch the device cannot take, e.g. above
 * its limits) or PG_ERR_INFRA (no driver, no GPU, library failure). After PG_FAIL_KERNEL with a
 * sticky error the context is unusable: pg_device_is_broken() says so and later calls return
 * PG_ERR_INFRA. */
#ifndef PG_DEVICE_DEVICE_H
#define PG_DEVICE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../model/blaslt_algo.h"
#include "../model/cudnn_config.h"
#include "../model/dtype.h"
#include "../model/gemm_problem.h"
#include "../model/mha_problem.h"
#include "../model/tensor_map.h"
#include "../stats/accuracy.h"

/* PG_FAIL_KERNEL (the submitted kernel failed at run time: fault, trap, launch failure,
 * timeout) and PG_ERR_UNAVAILABLE (profiling cannot run here) are pg_status values
 * (base/diag.h). */

typedef struct pg_device pg_device;
typedef struct pg_module pg_module;
typedef struct pg_kernel pg_kernel;
typedef struct pg_buffer pg_buffer;

/* Environment fingerprint of the device and its software. Strings are "" when unknown,
 * numbers 0. */
typedef struct {
    char name[256];            /* e.g. "NVIDIA H200" */
    char uuid[64];             /* "GPU-xxxxxxxx-..." */
    char pci_bus_id[32];
    int ordinal;
    int cc_major, cc_minor;    /* compute capability, 9.0 on H100/H200 */
    int sm_count;
    int sm_clock_mhz;          /* current SM clock at open time (NVML), 0 if unknown */
    int max_sm_clock_mhz;      /* maximum SM clock (NVML), 0 if unknown */
    int memory_clock_mhz;      /* current memory clock (NVML), 0 if unknown */
    int max_memory_clock_mhz;  /* maximum memory clock (NVML), 0 if unknown */
    double power_limit_w;      /* enforced power limit (NVML, mW / 1000), 0 if unknown */
    int ecc;                   /* current ECC mode (NVML): 1 on, 0 off, -1 unknown */
    long long l2_bytes;
    long long memory_bytes;    /* total device memory */
    int driver_api_version;    /* cuDriverGetVersion, e.g. 13000 */
    char driver_version[64];   /* NVML system driver version, e.g. "580.159.04" */
    long cublaslt_version;     /* cublasLtGetVersion, e.g. 130100 */
    long cudnn_version;        /* cudnnGetVersion of the libcudnn.so.9 found, e.g. 91400; 0 when
                                  cuDNN cannot be loaded */
    /* Launch limits (cuDeviceGetAttribute). */
    int max_threads_per_block;
    int max_block_dim[3];
    int max_grid_dim[3];
    int max_shared_per_block;        /* bytes without opt-in (48 KiB) */
    int max_shared_per_block_optin;  /* bytes with the opt-in attribute (227 KiB on H100) */
} pg_device_info;

/* Open GPU `ordinal`: dlopen libcuda.so.1, cuInit, retain the primary context, create a stream,
 * read the fingerprint. *out is owned by the caller (pg_device_close).
 * Errors: PG_ERR_INFRA with a one-line reason usable as a skip reason, e.g.
 * "no GPU driver: libcuda.so.1 not found (...)" or "no CUDA device: cuInit returned
 * CUDA_ERROR_NO_DEVICE". */
pg_status pg_device_open(int ordinal, pg_device **out, pg_diag *d);
void pg_device_close(pg_device *dev);
const pg_device_info *pg_device_get_info(const pg_device *dev);
bool pg_device_is_broken(const pg_device *dev);

/* Load a module image: a cubin/fatbin, or NUL-terminated PTX text (then the driver JIT compiles
 * it). log receives the JIT error log, then the info log (NUL-terminated, truncated to log_len).
 * Errors: PG_FAIL_KERNEL when the driver rejects the image (message names the CUresult),
 * PG_ERR_INFRA when the device is broken. */
pg_status pg_module_load(pg_device *dev, const void *image, size_t len, pg_module **out, char *log,
                         size_t log_len, pg_diag *d);
void pg_module_unload(pg_module *m);
/* Look up a kernel by its exact entry name. Borrowed from m. Error: PG_ERR_INPUT naming it. */
pg_status pg_module_get_kernel(pg_module *m, const char *entry, pg_kernel **out, pg_diag *d);

/* Device memory. Sizes in bytes. */
pg_status pg_buffer_alloc(pg_device *dev, size_t bytes, pg_buffer **out, pg_diag *d);
void pg_buffer_free(pg_buffer *b);
uint64_t pg_buffer_address(const pg_buffer *b); /* CUdeviceptr value, for kernel parameters */
size_t pg_buffer_bytes(const pg_buffer *b);
/* Fill `count` elements of `dtype` with N(0,1) samples (Box–Muller over a counter-based hash of
 * (seed, index)) rounded to the dtype; deterministic for a seed on any GPU. Never zeros. */
pg_status pg_buffer_fill_normal(pg_buffer *b, pg_dtype dtype, size_t count, uint64_t seed,
                                pg_diag *d);
/* Fill `count` fp32 elements with positive scales 0.25 + |N(0,1)|/2 (the samples of
 * pg_buffer_fill_normal's fp32 fill, folded): the per-tensor scales of an fp8 GEMM. */
pg_status pg_buffer_fill_scale(pg_buffer *b, size_t count, uint64_t seed, pg_diag *d);
/* Fill every byte of the buffer with the poison pattern 0xFF (a NaN in bf16, fp16 and fp32), so
 * elements a kernel never wrote are found as NaN with the exact pattern. */
pg_status pg_buffer_fill_poison(pg_buffer *b, pg_diag *d);
#define PG_POISON_BYTE 0xFF
pg_status pg_buffer_zero(pg_buffer *b, pg_diag *d);
/* Synchronous copy of `bytes` from the start of b into host memory. */
pg_status pg_buffer_download(pg_buffer *b, void *host, size_t bytes, pg_diag *d);
/* Synchronous copy of `bytes` of host memory into the start of b (bytes <= the buffer's size,
 * else PG_ERR_INPUT); waits for the work before it with the same deadline as a download. */
pg_status pg_buffer_upload(pg_buffer *b, const void *host, size_t bytes, pg_diag *d);

/* Encode the tiled TMA tensor map m (validated with pg_tensor_map_validate) for the tensor at
 * device address `address` with cuTensorMapEncodeTiled, writing the 128-byte opaque map to out
 * (PG_TMAP_BYTES bytes, at least PG_TMAP_ALIGN-byte aligned, e.g. a slot of pg_binding_args).
 * No GPU work is enqueued. Errors: PG_ERR_INPUT for an address breaking the alignment rule
 * (pg_tensor_map_check_address) or a map the driver rejects (the message names m->field, the
 * CUresult and every parameter passed: a rule ptxgate does not know), PG_ERR_INFRA when the
 * device is broken or out is misaligned. */
pg_status pg_tensor_map_encode(pg_device *dev, const pg_tensor_map_desc *m, uint64_t address,
                               void *out, pg_diag *d);

/* ---- Guarded buffers: the tensors and workspaces a submitted kernel touches ----
 * pg_buffer_alloc_guarded places the buffer in its own virtual-memory mapping (CUDA VMM:
 * cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess) with PG_GUARD_BYTES of reserved,
 * unmapped addresses before and after it, and the buffer's end at the mapping's end when its
 * size is a multiple of 256 (layout: gate/base/guard.h). The mapped bytes around the buffer
 * are canaries, set to PG_CANARY_BYTE at allocation. A kernel writing past either end of the
 * buffer thus faults (CUDA_ERROR_ILLEGAL_ADDRESS) or changes a canary. Without VMM support the
 * buffer gets PG_CANARY_FALLBACK_BYTES of canary on each side of a cuMemAlloc allocation
 * instead (guard.vmm false). The start is 256-byte aligned either way. Free with
 * pg_buffer_free. Errors as pg_buffer_alloc. */
#define PG_CANARY_BYTE 0xC3
#define PG_GUARD_BYTES ((size_t)64 << 20)
#define PG_CANARY_FALLBACK_BYTES ((size_t)64 << 10)
pg_status pg_buffer_alloc_guarded(pg_device *dev, size_t bytes, pg_buffer **out, pg_diag *d);
typedef struct {
    bool guarded;              /* allocated by pg_buffer_alloc_guarded */
    bool vmm;                  /* unmapped guard regions around the mapping */
    size_t front_canary_bytes; /* canary bytes right before the buffer */
    size_t back_canary_bytes;  /* canary bytes right after its end (0: the end is the
                                  mapping's end, the next byte faults) */
    size_t guard_bytes;        /* unmapped bytes reserved on each side (0 without VMM) */
} pg_buffer_guard;
void pg_buffer_guard_info(const pg_buffer *b, pg_buffer_guard *out);
/* Canary bytes that changed since allocation (or the last re-arm). front_nearest: distance
 * before the buffer's start of the changed byte nearest to it (1 = the byte just before);
 * back_first / back_last: offsets after the buffer's end of the first and last changed byte
 * (0 = the byte right after the end). */
typedef struct {
    size_t front_changed, back_changed;
    size_t front_nearest, back_first, back_last;
} pg_canary_report;
/* Wait for the device stream, download both canaries and scan them. Not guarded: all zero.
 * Errors: PG_FAIL_KERNEL / PG_ERR_INFRA from the wait, as pg_buffer_download. */
pg_status pg_buffer_check_canaries(pg_buffer *b, pg_canary_report *r, pg_diag *d);
/* Set every canary byte back to PG_CANARY_BYTE (enqueued). */
pg_status pg_buffer_rearm_canaries(pg_buffer *b, pg_diag *d);
/* ---- Checks on the GPU (checks.c, kernels/checks.cuh) ----
 * Each waits for the stream first (the submission's work is over before its buffers are
 * read), runs one of ptxgate's kernels and brings back a few bytes per block. Errors:
 * PG_FAIL_KERNEL / PG_ERR_INFRA from the wait or the launch, PG_ERR_INPUT for sizes the
 * buffers do not hold. */
/* A keyed 64-bit checksum of the buffer's bytes: Σ over 8-byte words of a keyed mix of (word,
 * index) modulo 2^64, then the length and the splitmix64 finalizer. The key is random per
 * process, so sums are comparable only within one process (which is where they are compared:
 * an input's checksum after its fill against the same input after the kernel ran). */
pg_status pg_buffer_checksum(pg_buffer *b, uint64_t *sum, pg_diag *d);
/* The tolerance comparison of `count` elements of out (dtype: bf16, fp16, fp32, e4m3, e5m2)
 * against ref (fp32, same layout), element rule as pg_accuracy_compare (stats/accuracy.h),
 * summed in double per block and combined in block order into *sums; the caller finishes with
 * pg_accuracy_from_sums. */
pg_status pg_buffer_compare_accuracy(pg_buffer *out, pg_dtype dtype, pg_buffer *ref,
                                     size_t count, double atol, double rtol,
                                     pg_accuracy_sums *sums, pg_diag *d);
/* The number of the first `count` elements of elem_size bytes whose bytes differ between a and
 * b (the determinism check). */
pg_status pg_buffer_count_differences(pg_buffer *a, pg_buffer *b, size_t count,
                                      size_t elem_size, uint64_t *differ, pg_diag *d);
/* Copy `bytes` from src to dst on the device (enqueued). */
pg_status pg_buffer_copy(pg_buffer *dst, pg_buffer *src, size_t bytes, pg_diag *d);


/* ---- Launch hygiene ----
 * pg_device_open sets CU_LIMIT_PRINTF_FIFO_SIZE to PG_PRINTF_FIFO_BYTES (device printf output
 * per synchronisation is bounded; the rest is dropped by the driver) and the persisting-L2
 * limit to 0 where the device has one. pg_device_reset_l2_persistence sets that limit to 0
 * again and resets every persisting L2 line to normal (cuCtxResetPersistingL2Cache), so no
 * line a kernel marked persisting can survive into timed launches. Errors: PG_ERR_INFRA. */
#define PG_PRINTF_FIFO_BYTES ((size_t)64 << 10)
pg_status pg_device_reset_l2_persistence(pg_device *dev, pg_diag *d);

/* One kernel launch. args[i] points at the value of parameter i, laid out as the PTX .param
 * expects (cuLaunchKernel's kernelParams). cluster {0,0,0} or {1,1,1} means no cluster. */
typedef struct {
    pg_kernel *kernel;
    unsigned grid[3];
    unsigned block[3];
    unsigned cluster[3];
    unsigned dynamic_shared_bytes; /* above 48 KiB the opt-in attribute is set automatically */
    void **args;
} pg_launch;

/* Enqueue launches in order on the device stream. Errors: PG_ERR_INPUT when a launch is above
 * the device limits (names which), PG_FAIL_KERNEL when the driver refuses it
 * (CUDA_ERROR_INVALID_VALUE, out of resources ...). */
pg_status pg_device_launch(pg_device *dev, const pg_launch *launches, size_t n, pg_diag *d);
/* How many clusters of cluster_size blocks (along x) of kernel k, with block threads per block
 * and dynamic_shared_bytes of dynamic shared memory each, can be resident on k's device at once:
 * cuOccupancyMaxActiveClusters (CUDA Driver API, "Occupancy"), after the same shared-memory
 * opt-in and non-portable cluster permission that a launch gets. *out >= 0 (0: not even one
 * cluster fits). Errors: PG_ERR_INPUT when the driver refuses the configuration (the message
 * names it), PG_ERR_INFRA when the device is unusable. */
pg_status pg_kernel_max_active_clusters(pg_kernel *k, const unsigned block[3],
                                        unsigned cluster_size, unsigned dynamic_shared_bytes,
                                        int *out, pg_diag *d);
/* Wait for the stream, at most timeout_s seconds (polling). A fault is PG_FAIL_KERNEL with the
 * CUDA error name; a timeout is PG_FAIL_KERNEL "TIMEOUT: ..." and marks the device broken. */
pg_status pg_device_sync(pg_device *dev, double timeout_s, pg_diag *d);

/* The scales of an fp8 GEMM in device memory (gemm_problem.h): one fp32 each
 * (PG_GEMM_SCALE_TENSOR), or scale_A [ceil(K/128), M] and scale_B [ceil(N/128), ceil(K/128)]
 * fp32 (PG_GEMM_SCALE_BLOCK); borrowed. */
typedef struct {
    const pg_buffer *a, *b; /* scale_A, scale_B */
} pg_gemm_scales;

/* Reference GEMM (docs/correctness.md), ptxgate's own CUDA kernel (kernels/reference.cu),
 * independent of cuBLAS: for every batch b < p->batch, row i < M and column j < N
 *   ref[b·d.batch_stride + i·d.row_stride + j·d.col_stride] =
 *       fl(alpha · acc) (no C), or fmaf(beta, C(b, i, j), fl(alpha · acc)) (p->has_c),
 *   acc = the fp32 chain acc ← fmaf(A(b, i, k), B(b, k, j), acc) for k = 0, 1, ..., K-1 from 0,
 * with every operand element X(b, r, c) at b·x.batch_stride + r·x.row_stride + c·x.col_stride
 * of its buffer (gemm_problem.h) and converted exactly to fp32 (A, B and C each fp32, bf16 or
 * fp16, A and B may differ; never tf32: p->compute concerns the vendor baseline only). The
 * result is fp32, written with the strides of operand d (its dtype is not used), so it lies
 * element for element where the output tensor's elements lie; other elements of ref are not
 * written. One FMA per product in k order: the summation order (and so every bit) of the
 * historic gemm_nt reference. A and B must be given; C only when p->has_c (else ignored, may
 * be NULL). Enqueued; call pg_device_sync. Errors: PG_ERR_INPUT for a dtype outside fp32,
 * bf16, fp16, sizes outside 0..2^31-1, a batch above the device's grid z limit, negative
 * strides, an A or B with neither stride 1 (C and D may have any strides), or a buffer
 * smaller than its operand's span (gemm_blas.h pg_gemm_operand_span; the
 * message names the operand); PG_ERR_INFRA when the launch is refused.
 * fp8 A or B (e4m3, e5m2): each fp8 operand is first dequantized into an fp32 copy (exact
 * conversion, times its scale: the per-tensor one, or with PG_GEMM_SCALE_BLOCK A(m, k) times
 * scale_A[k/128][m] and B(k, n) times scale_B[n/128][k/128]; one rounding), then multiplied
 * as above; the copies are freed after a device synchronization (at most 120 s), so this call
 * returns with the work done. scales: the scale_A and scale_B buffers when p->scale.mode is
 * not NONE (1, or ceil(K/128)·M and ceil(N/128)·ceil(K/128), fp32 values), else NULL; a
 * missing or small one is PG_ERR_INPUT, as are block scales on a batched problem or on A or B
 * without K contiguous. */
pg_status pg_reference_gemm(pg_device *dev, const pg_gemm_problem *p, const pg_buffer *A,
                            const pg_buffer *B, const pg_buffer *C, const pg_gemm_scales *scales,
                            pg_buffer *ref, pg_diag *d);

/* The historic form: C[M,N] (fp32, row-major) = A[M,K] · B[N,K]ᵀ with A, B row-major of
 * in_dtype (bf16 or fp16): pg_reference_gemm of pg_gemm_problem_nt (gemm_blas.h). C must hold
 * M*N*4 bytes. Errors as pg_reference_gemm, and PG_ERR_INPUT for another in_dtype. */
pg_status pg_reference_gemm_nt(pg_device *dev, pg_dtype in_dtype, const pg_buffer *A,
                               const pg_buffer *B, pg_buffer *C, int64_t M, int64_t N, int64_t K,
                               pg_diag *d);

/* ---- Attention (docs/attention.md) ----
 * The problem (sizes, GQA heads, per-tensor BHSD/BSHD strides, bottom-right causal mask, softmax
 * scale, LSE convention) is model/mha_problem.h's pg_mha_problem; every tensor is addressed
 * through its strides there. LSE and the row sums Δ are [B,H,S_q] dense. */

/* Reference forward, ptxgate's own fp32 kernels (kernels/attention.cuh), independent of cuDNN:
 * O (fp32, at p->o's strides) = softmax(scale · Q·Kᵀ) · V and, when LSE is not NULL, LSE (fp32
 * [B,H,S_q], in p's convention: pg_mha_lse_factor) from Q, K, V of dtype (bf16 or fp16). Method:
 * heads in chunks whose fp32 score matrices fit 1 GiB (16 heads at S_q = S_kv = 4096); per chunk
 * a batched fp32 GEMM scores = scale · Q·Kᵀ on CUDA cores (fp32 FMA in k order; K of KV head
 * h / (H/H_kv)), a row pass (m = max, l = Σ exp(s − m) over the visible keys, LSE = m + log l,
 * P = exp(s − m) / l, 0 for masked keys), and a batched GEMM O = P·V. Synchronous: returns after
 * the GPU finished (waiting at most timeout_s), then frees its scratch (score chunk, an LSE
 * when none was given). Errors: PG_ERR_INPUT for a dtype, size or buffer that does not fit
 * (names which); PG_ERR_INFRA for allocation and launch failures; PG_FAIL_KERNEL (fault,
 * TIMEOUT) from the wait. */
pg_status pg_reference_mha_fwd(pg_device *dev, pg_dtype dtype, const pg_mha_problem *p,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               pg_buffer *O, pg_buffer *LSE, double timeout_s, pg_diag *d);

/* Reference backward (same kernels and chunking, two score buffers per head): dQ, dK, dV (fp32,
 * at p's dq, dk, dv strides) from Q, K, V, O, dO (dtype) and LSE (fp32, p's convention).
 * Δ = rowsum(dO ⊙ O) from the given O; per chunk S = scale · Q·Kᵀ, dP = dO·Vᵀ,
 * P = exp(S − LSE), dS = P ⊙ (dP − Δ) · scale (P and dS are 0 for masked keys), dV = Pᵀ·dO,
 * dQ = dS·K, dK = dSᵀ·Q; under GQA (H_kv < H) dK and dV of a KV head are the sums over its
 * query heads (per-head products into a chunk scratch, then added in head order: deterministic).
 * Synchronous as the forward; the same errors. */
pg_status pg_reference_mha_bwd(pg_device *dev, pg_dtype dtype, const pg_mha_problem *p,
                               const pg_buffer *Q, const pg_buffer *K, const pg_buffer *V,
                               const pg_buffer *O, const pg_buffer *dO, const pg_buffer *LSE,
                               pg_buffer *dQ, pg_buffer *dK, pg_buffer *dV, double timeout_s,
                               pg_diag *d);

/* Enqueue x[i] *= factor for the first count fp32 elements of x (e.g. an LSE from the natural
 * convention into a task's, model/mha_problem.h). Errors: PG_ERR_INPUT when x holds fewer. */
pg_status pg_buffer_scale_f32(pg_buffer *x, size_t count, float factor, pg_diag *d);

/* Enqueue the conversion of `count` fp32 elements of src into dst as dtype (bf16 or fp16, round
 * to nearest even; e.g. the reference O that becomes the backward's O input). Errors:
 * PG_ERR_INPUT for another dtype or buffers too small. */
pg_status pg_buffer_convert(pg_buffer *dst, pg_dtype dtype, const pg_buffer *src, size_t count,
                            pg_diag *d);

/* cuDNN scaled-dot-product attention baseline (cudnn_sdpa.c), backend graph API from C.
 * libcudnn.so.9 is loaded with dlopen on first use, so ptxgate runs without cuDNN (the baseline
 * is then an infrastructure error); cudnnGetVersion() is read at run time and recorded.
 * Graphs (docs/attention.md): the forward is the fused SDPA_FWD operation when the runtime has
 * it (>= 9.13.1) and the pass is not causal, else the composite graph cuDNN's frontend builds
 * (matmul, scale, causal mask, softmax with stats, matmul); the backward is the composite graph
 * (rowsum(dO ⊙ O), recomputed P, five matmuls, fp32 dQ accumulator). The environment variable
 * PTXGATE_CUDNN_SDPA_GRAPH=composite or =fused forces one forward graph. Heuristics mode A (then
 * the fallback list) ranks engine configurations; the first of at most max_configs whose
 * execution plan finalizes is kept. With args.pin (a stored baseline's configuration) the graph,
 * engine and knob choices are re-created as given instead, and no heuristics run. Plans are
 * cached per device, shape, graph and pin: preparing the same shape again reuses the plan. */
typedef struct pg_cudnn_sdpa pg_cudnn_sdpa;
typedef struct {
    bool backward;
    pg_dtype dtype;          /* of Q, K, V, O, dO, dQ, dK, dV: bf16 or fp16 */
    pg_mha_problem problem;  /* sizes, strides, mask, scale; LSE in p's convention */
    int max_configs;         /* engine configurations tried at most, 1..64 */
    const pg_buffer *Q, *K, *V;
    pg_buffer *O, *LSE;      /* forward: outputs (LSE may be NULL: cuDNN's stats go to a scratch
                                buffer); backward: inputs (O dtype, LSE fp32) */
    const pg_buffer *dO;     /* backward only */
    pg_buffer *dQ, *dK, *dV; /* backward only: outputs */
    const pg_cudnn_config *pin; /* NULL: heuristics choose; else this configuration (borrowed) */
} pg_sdpa_args;
typedef struct {
    long version;            /* cudnnGetVersion() at run time, e.g. 91400 = 9.14.0 */
    long header_version;     /* CUDNN_VERSION of the headers ptxgate was built with */
    char graph[64];          /* "fused SDPA_FWD" or "composite (N operations)" */
    pg_cudnn_config config;  /* graph, engine (CUDNN_ATTR_ENGINE_GLOBAL_INDEX; -1 when it could
                                not be read) and knob choices of the chosen configuration */
    char heuristics[16];     /* "mode A", "fallback" or "pinned" */
    int configs_returned;    /* by the heuristics that produced the plan */
    int configs_tried;       /* execution plans finalized or attempted until one succeeded */
    size_t workspace_bytes;  /* cuDNN's workspace */
    size_t scratch_bytes;    /* graph buffers ptxgate provides (backward: softmax sum, fp32 dQ
                                accumulator) */
    bool cached;             /* the plan came from the cache */
} pg_cudnn_sdpa_info;
/* Build (or reuse) the plan for args and bind it to args' buffers; *out is owned by the caller
 * (pg_cudnn_sdpa_free), info (caller-owned) describes the choice. Errors: PG_ERR_INPUT for
 * arguments out of range (dtype, sizes, buffers too small); PG_ERR_INFRA when cuDNN is absent or
 * older than 9; PG_ERR_UNAVAILABLE when cuDNN rejects every graph for the configuration
 * (NOT_SUPPORTED: the caller decides whether that is fatal, task baseline.optional): the
 * message names the operation, problem and cuDNN version, e.g. "cuDNN 9.14.0 cannot run SDPA
 * backward (bf16, causal, B=4 H=48 H_kv=48 S_q=4096 S_kv=4096 D=256 D_v=256): no engine
 * configuration finalized (16 tried; last CUDNN_STATUS_NOT_SUPPORTED: ...)". A pinned
 * configuration that cuDNN refuses (another version, graph or shape) is PG_ERR_INPUT naming it,
 * so the caller can fall back to the heuristics. */
pg_status pg_cudnn_sdpa_prepare(pg_device *dev, const pg_sdpa_args *args, pg_cudnn_sdpa **out,
                                pg_cudnn_sdpa_info *info, pg_diag *d);
/* Enqueue one execution on the device stream (backward on cuDNN < 9.6: first zero the dQ
 * accumulator, as cuDNN's frontend does). Only enqueues, so it can be timed and captured. */
pg_status pg_cudnn_sdpa_enqueue(pg_cudnn_sdpa *p, pg_diag *d);
void pg_cudnn_sdpa_free(pg_cudnn_sdpa *p);
/* cudnnGetVersion() of the loaded library (loading it if needed); 0 when it cannot be loaded,
 * with the reason in *reason (may be NULL) of n bytes. */
long pg_cudnn_version(char *reason, size_t n);

/* cuBLASLt baseline for a GEMM problem p (gemm_problem.h): D = alpha·A·B + beta·C (C only
 * when p->has_c, a buffer distinct from D), batched when p->batch > 1. Descriptors
 * (gemm_blas.h pg_gemm_blas_of): column-major layouts with transposes matching every operand's
 * strides, A/B/C/D types CUDA_R_32F / CUDA_R_16BF / CUDA_R_16F of their dtypes, compute
 * CUBLAS_COMPUTE_32F (p->compute fp32) or CUBLAS_COMPUTE_32F_FAST_TF32 (tf32: fp32 A and B
 * only), scale type CUDA_R_32F with host alpha and beta, strided batch
 * (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, STRIDED_BATCH_OFFSET) set only when batch > 1. A
 * gemm_nt problem (pg_gemm_problem_nt) gets exactly the descriptors of the historic baseline.
 * prepare asks the heuristic for up to max_candidates algorithms, times each (a few launches
 * each, median, L2 flushed) and keeps the fastest; prepare_pinned re-creates a stored
 * algorithm instead (docs/baselines.md). Type combinations are those of cuBLASLt's
 * cublasLtMatmul table for 32-bit compute and scale (cuBLAS documentation, "cublasLtMatmul"):
 * A = B bf16 with C = D bf16 or fp32; A = B fp16 with C = D fp16 or fp32; A = B fp32 with
 * C = D fp32 (also for tf32); another is PG_ERR_INPUT, as are strides cuBLASLt cannot
 * describe (pg_gemm_blas_of) and buffers smaller than their operand's span. */
typedef struct pg_blaslt_gemm pg_blaslt_gemm;
typedef struct {
    int candidates_returned; /* by the heuristic (0 when pinned) */
    int candidates_timed;    /* that ran without error (0 when pinned) */
    int chosen_index;        /* heuristic rank of the fastest (0 = heuristic's first; -1 pinned) */
    double chosen_median_ms; /* from the selection timing (NaN when pinned) */
    char algorithm[256];     /* pg_blaslt_algo_format of config: "algo_id=.. tile=.. stages=..
                                splitk=.. reduction=.. swizzle=.. custom=.. inner_shape=..
                                cluster_shape=.." */
    pg_blaslt_algo config;   /* the algorithm's configuration attributes */
    bool pinned;             /* re-created from a stored configuration, not searched */
    bool config_reproduces;  /* searched: re-creating config with cublasLtMatmulAlgoInit +
                                ConfigSetAttribute gives the heuristic's opaque algorithm bytes,
                                so the stored form is complete; pinned: cuBLASLt kept every
                                attribute as it was set */
    size_t workspace_bytes;
    /* The problem as cuBLASLt was given it. */
    bool plain_nt;           /* pg_gemm_problem_is_plain_nt: the historic gemm_nt descriptors */
    char compute[32];        /* "fp32" (CUBLAS_COMPUTE_32F) or "tf32" (..._32F_FAST_TF32) */
    char layouts[512];       /* "m=513 n=257 k=1000, column-major: A = our B bf16 1000x513 ld
                                1000 op T; B = our A bf16 1000x257 ld 1000 op N; C = our D ...;
                                D = our D bf16 513x257 ld 513" (+ "; batch 3, batch strides A ..
                                B .. C .. D .." when batched) */
} pg_blaslt_choice;
pg_status pg_blaslt_gemm_prepare(pg_device *dev, const pg_gemm_problem *p, const pg_buffer *A,
                                 const pg_buffer *B, const pg_buffer *C, pg_buffer *D,
                                 int max_candidates, pg_blaslt_gemm **out,
                                 pg_blaslt_choice *choice, pg_diag *d);
/* The same GEMM with a stored algorithm: cublasLtMatmulAlgoInit(algo->algo_id) for this
 * problem's compute and types, every other attribute of algo set with
 * cublasLtMatmulAlgoConfigSetAttribute, then cublasLtMatmulAlgoCheck on this problem;
 * workspace_bytes (at most 4 GiB) of workspace are allocated and handed to cuBLASLt, as when it
 * was stored. Nothing is timed; choice->pinned. Errors: PG_ERR_INPUT when cuBLASLt refuses the
 * configuration for this problem and device (the message names the call and the cuBLASLt
 * status; the caller may search instead), or when it needs more workspace than
 * workspace_bytes, or for a problem prepare refuses; PG_ERR_INFRA for device and library
 * failures. */
pg_status pg_blaslt_gemm_prepare_pinned(pg_device *dev, const pg_gemm_problem *p,
                                        const pg_buffer *A, const pg_buffer *B,
                                        const pg_buffer *C, pg_buffer *D,
                                        const pg_blaslt_algo *algo, size_t workspace_bytes,
                                        pg_blaslt_gemm **out, pg_blaslt_choice *choice,
                                        pg_diag *d);
/* The scales of an fp8 problem for every later matmul of g (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
 * and _B_SCALE_POINTER; per-tensor: cuBLASLt's D = alpha·scale_A·scale_B·A·B + beta·C; block,
 * PG_GEMM_SCALE_BLOCK: CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F for our A and BLK128x128_32F for
 * our B, set at prepare, which then owns buffers of 1.0 for the search); until set, cuBLASLt
 * multiplies with scale 1. s->a and s->b borrowed: keep them alive while g is used.
 * PG_ERR_INPUT when g's A and B are not fp8, for only one buffer, or one smaller than the
 * scales it must hold. */
pg_status pg_blaslt_gemm_set_scales(pg_blaslt_gemm *g, const pg_gemm_scales *s, pg_diag *d);
/* Enqueue one matmul with the chosen algorithm. */
pg_status pg_blaslt_gemm_enqueue(pg_blaslt_gemm *g, pg_diag *d);
/* The same matmul (same algorithm and workspace) on other buffers of at least the prepared
 * sizes: sustained mode's rotated input copies. C is read only when the problem has a C (it
 * may be NULL otherwise); scales (NULL: those of pg_blaslt_gemm_set_scales) are this call's
 * per-tensor scales of an fp8 problem. Buffers from pg_buffer_alloc keep the 256-byte alignment
 * the algorithm was chosen for. PG_ERR_INPUT for a buffer smaller than prepared, a missing C
 * or a bad pair of scales. */
pg_status pg_blaslt_gemm_enqueue_on(pg_blaslt_gemm *g, const pg_buffer *A, const pg_buffer *B,
                                    const pg_buffer *C, const pg_gemm_scales *scales,
                                    pg_buffer *D, pg_diag *d);
void pg_blaslt_gemm_free(pg_blaslt_gemm *g);

/* Enqueue a one-warp kernel that waits `ns` nanoseconds of the GPU's global timer: a calibrated
 * delay for the timing benchmark (bench/), which injects known slowdowns with it. The timer's
 * update granularity bounds its precision (about 1 µs or finer on Hopper; the benchmark measures
 * the injected ratio rather than trusting ns). */
pg_status pg_device_spin(pg_device *dev, uint64_t ns, pg_diag *d);

/* Timing. An arm is one thing being timed: a callback that enqueues its work on the device
 * stream. pg_device_time runs `warmup` untimed rounds, then `reps` timed rounds; in each round
 * the arms run in turn (arm order alternates between rounds so neither arm always runs
 * first); each timed launch is bracketed by CUDA events, preceded (outside the events) by an
 * L2 flush when flush_l2: a memset of a buffer of max(2 × L2 size, 256 MiB) bytes.
 * times_ms[a * reps + r] receives arm a's time of round r in milliseconds (event resolution
 * about 0.5 µs per the CUDA documentation of cuEventElapsedTime). */
typedef pg_status (*pg_enqueue_fn)(void *ctx, pg_diag *d);
typedef struct {
    pg_enqueue_fn enqueue;
    void *ctx;
    /* Optional (NULL: none): enqueued before each launch of the arm, warm-up and timed, outside
     * its events and before the L2 flush, so it is never timed and leaves nothing in L2. The
     * candidate's poisons its outputs and re-initializes its workspaces here, so every launch
     * must compute its result afresh. pg_device_time and pg_device_time_arm call it; sustained
     * mode does not. */
    pg_enqueue_fn prepare;
} pg_arm;
pg_status pg_device_time(pg_device *dev, const pg_arm *arms, size_t n_arms, int warmup, int reps,
                         bool flush_l2, double timeout_s, double *times_ms, pg_diag *d);
/* Bytes of the L2 flush buffer pg_device_time uses. */
size_t pg_device_flush_bytes(const pg_device *dev);
/* The same for a device with l2_bytes of L2: max(2 × L2, 256 MiB). */
size_t pg_flush_bytes_for_l2(long long l2_bytes);

/* ---- Measurement primitives of the performance protocol (docs: gate/device/README.md) ----
 * Three instruments the block protocol combines: an environment watch (NVML), GPU time from
 * CUPTI activity records, and two timed modes of one arm (cold launches with both timers;
 * sustained CUDA graphs). None of them prints; all report through pg_status + pg_diag. */

/* Environment watch. NVML (libnvidia-ml.so.1, loaded with dlopen on first use, never linked) is
 * optional: without it, or without the device in NVML, a watch still opens and ends with
 * available = false. While a watch is open a background thread samples about every 2 ms
 * (NVML calls permitting): SM clock, clock-event reasons, temperature, power. Energy is read at
 * begin and end; the compute processes on the GPU are listed once, at begin.
 * Fields NVML could not give: 0 for clocks and `samples`, -1 for temperature_c_max,
 * power_w_mean, energy_j and other_compute_processes. */
typedef struct {
    bool available;                 /* NVML loaded and the device found in it (by UUID) */
    int samples;                    /* SM clock samples taken */
    double sm_clock_mhz_median;     /* MHz, over the samples (mean of the two middle ones for
                                       an even count) */
    int sm_clock_mhz_min, sm_clock_mhz_max;
    unsigned long long clock_event_reasons; /* OR over samples of PG_CLOCK_EVENT_* bits */
    bool hw_slowdown;               /* HW_SLOWDOWN, HW_THERMAL or HW_POWER_BRAKE seen */
    bool thermal_slowdown;          /* SW_THERMAL or HW_THERMAL seen */
    bool power_cap;                 /* SW_POWER_CAP seen */
    int temperature_c_max;          /* GPU core, degrees C */
    double power_w_mean;            /* mean of the power samples, W. NVML documents its power
                                       reading as a 1 s average on Ampere and newer (except
                                       GA100): a trend, not per-launch power */
    double energy_j;                /* total-energy counter at end minus at begin, J. It moves
                                       in steps (windows of ~10 ms read 0 J or ~40 J on the
                                       H200): use it over >= 1 s, e.g. summed over blocks */
    int other_compute_processes;    /* compute processes on the GPU at begin other than us;
                                       -1 (unknown) also when NVML's list lacks our own pid,
                                       as in a container's PID namespace: see the README */
    double wall_s;                  /* seconds between begin and end (host monotonic clock) */
} pg_env_watch;
/* The NVML clock-event (formerly "throttle") reason bits, as nvml.h defines them. */
#define PG_CLOCK_EVENT_GPU_IDLE 0x1ULL
#define PG_CLOCK_EVENT_APP_CLOCKS 0x2ULL
#define PG_CLOCK_EVENT_SW_POWER_CAP 0x4ULL
#define PG_CLOCK_EVENT_HW_SLOWDOWN 0x8ULL
#define PG_CLOCK_EVENT_SYNC_BOOST 0x10ULL
#define PG_CLOCK_EVENT_SW_THERMAL 0x20ULL
#define PG_CLOCK_EVENT_HW_THERMAL 0x40ULL
#define PG_CLOCK_EVENT_HW_POWER_BRAKE 0x80ULL
#define PG_CLOCK_EVENT_DISPLAY_CLOCKS 0x100ULL
/* Open the device's one watch. PG_OK also when NVML is absent. Errors: PG_ERR_INPUT when a watch
 * is already open on dev; PG_ERR_INFRA when the sampling thread cannot start. Needs no CUDA
 * call, so it works on a broken device too. End it before pg_device_close. */
pg_status pg_envwatch_begin(pg_device *dev, pg_diag *d);
/* Stop sampling, read the energy counter, fill *out (caller-owned) and close the watch.
 * Error: PG_ERR_INPUT when no watch is open (then *out is zeroed with available = false). */
pg_status pg_envwatch_end(pg_device *dev, pg_env_watch *out, pg_diag *d);

/* GPU time from CUPTI activity records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, which does not
 * serialise kernels): *gpu_ms = the sum of (end - start) over every kernel of this device's
 * context that was launched between begin and end, on any stream, and *kernels their count.
 * Memsets and copies are not kernels and are not counted. begin waits for the device stream
 * (so earlier work is not counted), enables the activity kind and delivers pending records;
 * end waits for the stream (safety deadline 600 s: sync first with your own timeout), delivers
 * every record, and disables the kind again. The first launches after begin pay CUPTI's
 * set-up on the host (milliseconds after enabling; ~0.2-0.3 ms after a delivery): warm up
 * inside the window before taking event times there. Once warm, event times inside a window
 * matched those outside on the H200 (copy arm 0.0432 vs 0.0433 ms, L2 flushed).
 * Never use in a process that profiles (range profiler, SASS patching, ncu, nsys): a process
 * with CUDA_INJECTION64_PATH set is refused. One window per process at a time.
 * Errors: PG_ERR_INPUT when a window is already open (begin) or none is (end); PG_ERR_INFRA
 * "CUPTI_ERROR_...: ... (cuptiCall)" naming the CUPTI error and the call, also for records
 * CUPTI dropped or delivered incomplete; PG_FAIL_KERNEL / PG_ERR_INFRA from the waits as for
 * pg_device_sync. */
pg_status pg_activity_begin(pg_device *dev, pg_diag *d);
pg_status pg_activity_end(pg_device *dev, double *gpu_ms, int *kernels, pg_diag *d);

/* One arm with both timers: `warmup` untimed launch groups, then `reps` timed ones; before each
 * group (warm-up too) an L2 flush when flush_l2 (the memset pg_device_time uses, outside the
 * events). Every group is waited for before the next starts, under one deadline of timeout_s
 * for the whole call (TIMEOUT as for pg_device_time). events_ms[r] (reps entries, caller-owned)
 * receives the CUDA-event time of timed group r; gpu_ms[r], when gpu_ms is not NULL, the CUPTI
 * time of the same group: the sum of the durations of its kernels (the flush memset is not a
 * kernel). gpu_ms = NULL leaves CUPTI off. With gpu_ms, CUPTI is enabled for the whole call
 * (nested inside an open pg_activity window is allowed: that window counts these kernels too).
 * Errors: PG_ERR_INPUT for counts/pointers out of range; the arm's own errors as it returns
 * them; CUPTI and driver errors as above. */
pg_status pg_device_time_arm(pg_device *dev, const pg_arm *arm, int warmup, int reps,
                             bool flush_l2, double timeout_s, double *events_ms, double *gpu_ms,
                             pg_diag *d);

/* Sustained mode. enqueue(ctx, rotation, d) enqueues one launch of the arm on the device stream;
 * rotation is the launch's index inside the graph (0 .. k-1; 0 .. 3 in the probe), so the arm
 * can rotate between input copies (rotation % copies). It must only enqueue work (kernels,
 * cuBLASLt with its fixed workspace, memsets): no allocation, no synchronisation, since it is
 * also called under stream capture (thread-local mode).
 * Steps: one untimed launch, a probe of 3 launches with events for a first per-launch estimate,
 * then a graph of k = ceil(min_graph_ms / estimate) launches captured from the device stream
 * (at most PG_SUSTAINED_MAX_LAUNCHES), instantiated, uploaded and launched once as warm-up with
 * events; a graph shorter than min_graph_ms is captured again with a k scaled up (at most twice
 * more). Then `reps` timed graph launches, each waited for; per_launch_ms[r] (caller-owned,
 * reps entries) = graph time / k; *launches_per_graph = k. No L2 flush: the graph's launches run
 * back to back. One deadline of timeout_s for the whole call.
 * Errors: PG_ERR_INPUT for arguments out of range (min_graph_ms in (0, 10000], reps >= 1); the
 * arm's errors (the capture is ended and discarded first, so the stream is usable afterwards);
 * PG_FAIL_KERNEL / PG_ERR_INFRA "CUDA_ERROR_...: ... (cuStreamBeginCapture ...)" from the
 * driver, e.g. for work that cannot be captured. */
typedef pg_status (*pg_enqueue_rot_fn)(void *ctx, int rotation, pg_diag *d);
#define PG_SUSTAINED_MAX_LAUNCHES 20000
pg_status pg_device_time_sustained(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx,
                                   double min_graph_ms, int reps, double timeout_s,
                                   double *per_launch_ms, int *launches_per_graph, pg_diag *d);

/* The same graph kept as an arm of the block protocol (sustained mode of the performance
 * stage): build probes, captures and sizes it exactly as above (k launches, at least
 * min_graph_ms, one warm-up launch), under one deadline of timeout_s; pg_sgraph_enqueue (a
 * pg_enqueue_fn) launches the whole graph on the device stream, so one "launch" of the arm is
 * k launches of the work: divide its times by pg_sgraph_launches. *out is caller-owned, freed
 * with pg_sgraph_free (which leaves a hung device's graph alone). Errors as above. */
typedef struct pg_sgraph pg_sgraph;
pg_status pg_sgraph_build(pg_device *dev, pg_enqueue_rot_fn enqueue, void *ctx,
                          double min_graph_ms, double timeout_s, pg_sgraph **out, pg_diag *d);
int pg_sgraph_launches(const pg_sgraph *g);
pg_status pg_sgraph_enqueue(void *graph, pg_diag *d);
void pg_sgraph_free(pg_sgraph *g);

/* ==== Executed-instruction counts: the CUPTI range profiler (docs/instructions-runtime.md) ====
 * A verification run separate from every timing run: one user range around the submission's
 * launches, replayed once per counter pass, then the profiler torn down completely. Time only
 * after pg_device_count_metrics has returned (on any path): nothing of the profiler stays
 * enabled, and tests/gpu/rangeprof_calibration.c checks that a kernel times the same before
 * and after. Not reentrant: one call at a time per process; never inside a pg_activity window
 * or under another profiler (ncu, nsys, compute-sanitizer). */

/* PG_ERR_UNAVAILABLE (base/diag.h): profiling cannot run here: no permission for the
 * performance counters, counters busy, another profiler in the process, a virtual or MIG
 * device, a chip this CUPTI does not know. Not an exit code: the pipeline records the stage as
 * "unknown" (never a pass) and its policy maps it (default: infrastructure, exit 3). The
 * message is "CUPTI_ERROR_NAME in call: why; fix: what to do", e.g.
 * "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES in cuptiProfilerGetCounterAvailability: ...; fix: run as
 * root ... or ... NVreg_RestrictProfilingToAdminUsers=0 ...". */
/* Most metrics in one pg_device_count_metrics or pg_metrics_host_check call. */
#define PG_RANGEPROF_MAX_METRICS 64
/* Most replay passes pg_device_count_metrics runs before giving up (CUPTI asked for 1-8 for
 * the lists of data/metrics/). */
#define PG_RANGEPROF_MAX_PASSES 32

/* The chip name CUPTI uses for the device, e.g. "GH100" on H100/H200, "GB100" on B200: the key
 * of data/metrics/<chip>.json. Initializes and deinitializes CUPTI's profiler around the
 * first query of a device (or the first pg_device_count_metrics); later calls answer from the
 * name kept in the device. Errors: PG_ERR_UNAVAILABLE as above (also when CUDA_INJECTION64_PATH is set);
 * PG_ERR_INPUT when len is too small;
 * PG_ERR_INFRA for other CUPTI failures ("CUPTI_ERROR_... in cuptiDeviceGetChipName: ..."). */
pg_status pg_device_chip_name(pg_device *dev, char *out, size_t len, pg_diag *d);

/* Where one pg_device_count_metrics call's wall time went, in seconds (host clock): profiler
 * initialize, device support, chip name and counter availability (init); the config image for
 * the metrics (config); enable, counter-data image and set config (enable); the replay passes
 * with their restores (passes); decode and evaluate (read); disable and deinitialize
 * (teardown). Written on every path that returns (zeros for steps not reached); the
 * instructions stage records them as details.runtime.phases_s (docs/results.md). */
typedef struct {
    double init_s, config_s, enable_s, passes_s, read_s, teardown_s;
} pg_rp_times;

/* Count `metrics` (n of them, CUPTI metric names with rollup, e.g.
 * "sm__sass_inst_executed_op_shared_gmma.sum") over everything `enqueue` puts on the device
 * stream, as one user range. Steps: wait for earlier work (not counted); profiler initialize;
 * device support; chip name; counter availability; config image for the metrics; enable on the
 * device's context; counter-data image; set config (user range, user replay, 1 nesting level,
 * 1 range); then per pass { restore (passes after the first, outside the range, waited for);
 * start; push range; enqueue; wait (timeout_s); pop range; stop } until CUPTI says every pass
 * is submitted; decode; evaluate; disable; deinitialize.
 * enqueue(ctx, d) runs once per pass and must enqueue the same work each time. restore
 * (may be NULL) re-initialises buffers the work updates in place, so every pass sees the same
 * inputs; its work is not counted. values[i] (caller-owned, n entries) receives metric i for
 * the range: counts are warp instructions or math ops, summed over the device. *passes (may be
 * NULL) receives the number of passes run, *times (may be NULL) the time per step.
 * Errors: PG_ERR_INPUT for arguments out of range, an open pg_activity window, or a metric the
 * chip does not know (field "metrics[i]"); PG_ERR_UNAVAILABLE as above (also when
 * CUDA_INJECTION64_PATH is set: another tool injected into the process); the callbacks' own
 * errors as they return them (PG_FAIL_KERNEL from a faulting kernel or a TIMEOUT after
 * timeout_s, as for pg_device_sync); PG_ERR_INFRA for CUPTI failures, dropped ranges, or more
 * than PG_RANGEPROF_MAX_PASSES passes. The profiler is torn down on every path but one: after
 * a TIMEOUT the device is hung, CUPTI's teardown would wait for the kernel, and the process
 * must end. */
pg_status pg_device_count_metrics(pg_device *dev, pg_enqueue_fn enqueue, void *ctx,
                                  pg_enqueue_fn restore, void *restore_ctx,
                                  const char *const *metrics, size_t n, double timeout_s,
                                  double *values, int *passes, pg_rp_times *times, pg_diag *d);

/* Without a GPU: check that CUPTI's host API accepts every metric for `chip` and give the
 * number of replay passes the list needs (*passes, may be NULL). CI runs it over every
 * data/metrics/ file. Errors: PG_ERR_INPUT naming the first unknown metric ("metric 'x' is not
 * known for chip GH100 ..."); PG_ERR_UNAVAILABLE for a chip this CUPTI does not know;
 * PG_ERR_INFRA when CUPTI's host library (libnvperf_host.so) cannot be used. */
pg_status pg_metrics_host_check(const char *chip, const char *const *metrics, size_t n,
                                int *passes, pg_diag *d);

/* What `ptxgate doctor` reports about the libraries a GPU run needs, read without a GPU and
 * without creating a CUDA context: each entry's path ("" when not found), its version as text
 * ("" when unknown) and, when it is missing, the reason (dlerror's or the call that failed). */
typedef struct {
    char path[1024];
    char version[64];
    char reason[512];
} pg_library_probe;
typedef struct {
    pg_library_probe driver;    /* libcuda.so.1, cuDriverGetVersion (no cuInit), e.g. "13.0" */
    pg_library_probe nvml;      /* libnvidia-ml.so.1, nvmlSystemGetDriverVersion ("580.159.04") */
    pg_library_probe cublaslt;  /* linked: cublasLtGetVersion, e.g. "13.1.0" */
    pg_library_probe cupti;     /* linked: cuptiGetVersion (the CUPTI API version, e.g. "130001") */
    pg_library_probe cudnn;     /* libcudnn.so.9 (dlopen), cudnnGetVersion, e.g. "9.14.0" */
} pg_libraries_probe;
/* Fill *out (every field; never fails: what cannot be loaded has its reason). Loads the driver
 * and NVML with dlopen and unloads them again; cuDNN stays loaded (as for the baseline). */
void pg_libraries_probe_run(pg_libraries_probe *out);

#endif
