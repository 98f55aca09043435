// The checks that run on the GPU right after a submission's launches completed (included by
// reference.cu): the keyed input checksum, the tolerance comparison of an output against the
// fp32 reference, and the bitwise difference count of the determinism check. Each replaces a
// download of the whole tensor and a single-threaded host loop (issue 18: 43 s of checksums and
// 32 s of comparisons in the PTXBench suite). checks.c launches them and combines the
// per-block results on the host in block order, so every result is deterministic.

// Must match checks.c.
#define PG_CHECK_THREADS 256

// The block's sum of v (one per thread, all PG_CHECK_THREADS threads calling) added to *out by
// thread 0, through part (the block's shared scratch). Sums modulo 2^64 are order-free, so the
// atomics of the blocks keep the total deterministic.
__device__ __forceinline__ void pg_check_block_add(unsigned long long *part, unsigned long long v,
                                                   unsigned long long *out)
{
    part[threadIdx.x] = v;
    __syncthreads();
    for (int s = PG_CHECK_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, part[0]);
}

// ---- Keyed checksum ------------------------------------------------------------------------
// Word i (8 bytes, little-endian; the last partial word zero-padded) contributes
// f(w, i) = splitmix64(splitmix64(w + key) ^ (i * golden + key)); the words' contributions are
// summed modulo 2^64 (order-free, so atomics keep it deterministic). The key is a random
// 64-bit value drawn once per process: a kernel, which runs before the checksum and never sees
// the key, can change an input and keep the sum only with probability 2^-64 per attempt.
__device__ __forceinline__ unsigned long long pg_check_word(unsigned long long w,
                                                            unsigned long long i,
                                                            unsigned long long key)
{
    return pg_splitmix64(pg_splitmix64(w + key) ^ (i * 0x9E3779B97F4A7C15ull + key));
}

extern "C" __global__ void __launch_bounds__(PG_CHECK_THREADS)
    pg_check_checksum(const unsigned char *p, unsigned long long bytes, unsigned long long key,
                      unsigned long long *sum)
{
    __shared__ unsigned long long part[PG_CHECK_THREADS];
    const unsigned long long words = bytes / 8;
    const unsigned long long *w = (const unsigned long long *)p; // cuMemAlloc: 256-byte aligned
    unsigned long long acc = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < words; i += (unsigned long long)gridDim.x * blockDim.x)
        acc += pg_check_word(w[i], i, key);
    if (blockIdx.x == 0 && threadIdx.x == 0 && (bytes & 7)) {
        unsigned long long last = 0;
        for (unsigned long long b = 0; b < (bytes & 7); b++)
            last |= (unsigned long long)p[words * 8 + b] << (8 * b);
        acc += pg_check_word(last, words, key);
    }
    pg_check_block_add(part, acc, sum);
}

// ---- Tolerance comparison ------------------------------------------------------------------
// The same arithmetic as gate/stats/accuracy.c pg_accuracy_compare, element by element, in
// double precision; per block the sums, maxima, counts and the first bad index go to
// partial[blockIdx.x] (the layout of pg_accuracy_sums in gate/stats/accuracy.h).
struct pg_check_partial {
    double err2, ref2, max_abs, max_rel;
    unsigned long long bad, nonfinite, unwritten;
    long long first_bad; // -1: none
};

__device__ __forceinline__ float pg_check_bf16(unsigned short h)
{
    return __uint_as_float((unsigned)h << 16);
}

__device__ __forceinline__ float pg_check_fp16(unsigned short h)
{
    int sign = (h >> 15) & 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? __int_as_float(0x7fc00000) : __int_as_float(0x7f800000);
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return sign ? -v : v;
}

__device__ __forceinline__ float pg_check_e4m3(unsigned char x)
{
    int sign = x >> 7, e = (x >> 3) & 0xf, m = x & 7;
    float v;
    if (e == 15 && m == 7)
        v = __int_as_float(0x7fc00000);
    else if (e == 0)
        v = ldexpf((float)m, -9);
    else
        v = ldexpf((float)(m | 8), e - 10);
    return sign ? -v : v;
}

// dtype codes: 0 bf16, 1 fp16, 2 fp32, 3 e4m3, 4 e5m2 (checks.c maps pg_dtype onto them).
__device__ __forceinline__ float pg_check_element(const void *out, int dtype,
                                                  unsigned long long i, bool *poison)
{
    switch (dtype) {
    case 0: {
        unsigned short h = ((const unsigned short *)out)[i];
        *poison = h == 0xffff;
        return pg_check_bf16(h);
    }
    case 1: {
        unsigned short h = ((const unsigned short *)out)[i];
        *poison = h == 0xffff;
        return pg_check_fp16(h);
    }
    case 2: {
        unsigned u = ((const unsigned *)out)[i];
        *poison = u == 0xffffffffu;
        return __uint_as_float(u);
    }
    case 3: {
        unsigned char x = ((const unsigned char *)out)[i];
        *poison = x == 0xff;
        return pg_check_e4m3(x);
    }
    default: {
        unsigned char x = ((const unsigned char *)out)[i];
        *poison = x == 0xff;
        return pg_check_fp16((unsigned short)(x << 8));
    }
    }
}

extern "C" __global__ void __launch_bounds__(PG_CHECK_THREADS)
    pg_check_accuracy(const void *out, int dtype, const float *ref, unsigned long long count,
                      double atol, double rtol, pg_check_partial *partial)
{
    __shared__ pg_check_partial part[PG_CHECK_THREADS];
    pg_check_partial a = {0, 0, 0, 0, 0, 0, 0, -1};
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < count; i += (unsigned long long)gridDim.x * blockDim.x) {
        double y = ref[i];
        bool poison = false;
        double x = pg_check_element(out, dtype, i, &poison);
        a.ref2 += y * y;
        if (!isfinite(x)) {
            a.nonfinite++;
            a.unwritten += poison;
            a.bad++;
            if (a.first_bad < 0)
                a.first_bad = (long long)i;
            continue;
        }
        double e = fabs(x - y);
        a.err2 += e * e;
        if (e > a.max_abs)
            a.max_abs = e;
        if (y != 0.0 && e / fabs(y) > a.max_rel)
            a.max_rel = e / fabs(y);
        if (!(e <= atol + rtol * fabs(y))) {
            a.bad++;
            if (a.first_bad < 0)
                a.first_bad = (long long)i;
        }
    }
    part[threadIdx.x] = a;
    __syncthreads();
    for (int s = PG_CHECK_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            pg_check_partial *p = &part[threadIdx.x];
            const pg_check_partial *q = &part[threadIdx.x + s];
            p->err2 += q->err2;
            p->ref2 += q->ref2;
            p->max_abs = q->max_abs > p->max_abs ? q->max_abs : p->max_abs;
            p->max_rel = q->max_rel > p->max_rel ? q->max_rel : p->max_rel;
            p->bad += q->bad;
            p->nonfinite += q->nonfinite;
            p->unwritten += q->unwritten;
            if (q->first_bad >= 0 && (p->first_bad < 0 || q->first_bad < p->first_bad))
                p->first_bad = q->first_bad;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = part[0];
}

// ---- Determinism: elements whose bytes differ ----------------------------------------------
extern "C" __global__ void __launch_bounds__(PG_CHECK_THREADS)
    pg_check_differences(const unsigned char *a, const unsigned char *b, unsigned long long count,
                         unsigned elem_size, unsigned long long *differ)
{
    __shared__ unsigned long long part[PG_CHECK_THREADS];
    unsigned long long n = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < count; i += (unsigned long long)gridDim.x * blockDim.x) {
        bool same = true;
        for (unsigned k = 0; k < elem_size; k++)
            same &= a[i * elem_size + k] == b[i * elem_size + k];
        n += !same;
    }
    pg_check_block_add(part, n, differ);
}
