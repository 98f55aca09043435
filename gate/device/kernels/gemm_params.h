/* The parameters of the reference GEMM kernels (reference.cu, "Reference GEMM"), passed by value
 * as one struct: included by reference.cu (device side) and reference.c (the launcher), so both
 * sides see one layout. Only fixed-width members whose sizes are multiples of 4 bytes, 8-byte
 * members first: the host compiler and nvcc lay it out alike (nvcc follows the host ABI for
 * structs). Never included outside gate/device. */
#ifndef PG_DEVICE_KERNELS_GEMM_PARAMS_H
#define PG_DEVICE_KERNELS_GEMM_PARAMS_H

/* Element type codes of the operands. */
#define PG_REF_ELEM_FP32 0
#define PG_REF_ELEM_BF16 1
#define PG_REF_ELEM_FP16 2

/* Strides in elements, [0] batch, [1] row, [2] column of the operand's logical matrix (A: M x K,
 * B: K x N, C and D: M x N; gemm_problem.h). d is the fp32 result, written at D's strides. */
typedef struct {
    unsigned long long a, b, c, d; /* device addresses; c is 0 when has_c is 0 */
    long long M, N, K;
    long long sa[3], sb[3], sc[3], sd[3];
    int ta, tb, tc;                /* PG_REF_ELEM_* of A, B and C */
    int has_c;                     /* 1: D = fl(alpha·acc) + beta·C (one fmaf); 0: fl(alpha·acc) */
    float alpha, beta;
} pg_ref_gemm_params;

#endif
