// harness.cpp — runs one GEMM example (MODEL_KERNEL, its .cu included below) on the CPU through
// shim/cuda_model.h over a list of ragged shapes, against a double-precision reference on the
// same inputs, in both cp.async modes. Guards: every tensor ends at (or, for sizes that are not
// a multiple of 256 bytes, within 255 canary bytes of) an unmapped page and starts 256-byte
// aligned after canary bytes, as ptxgate's guarded buffers do; outputs are poisoned with NaN,
// shared memory with 0xFF bytes (NaN in bf16 and fp32) before every CTA. Exit 0 when every
// shape of every mode matches, 1 otherwise.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <unistd.h>
#include <sys/mman.h>

#include <cuda_bf16.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#include STR(MODEL_SOURCE)

extern "C" {
alignas(1024) unsigned char gemm_smem[256 * 1024];
}

namespace {

// ---- guarded host buffers -------------------------------------------------------------------

struct Guarded {
    uint8_t *map = nullptr, *p = nullptr;
    size_t map_len = 0, bytes = 0, body = 0;
};

const size_t kPage = 4096;

Guarded guarded(size_t bytes)
{
    Guarded g;
    g.bytes = bytes;
    const size_t r256 = (bytes + 255) / 256 * 256;
    g.body = (r256 + kPage - 1) / kPage * kPage;
    g.map_len = g.body + 2 * kPage;
    void *m = mmap(nullptr, g.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect((uint8_t *)m + kPage, g.body, PROT_READ | PROT_WRITE) != 0) {
        std::perror("mmap");
        std::exit(2);
    }
    g.map = (uint8_t *)m;
    g.p = g.map + kPage + g.body - r256;
    std::memset(g.map + kPage, 0xC3, g.body);
    return g;
}

bool canaries_ok(const Guarded &g)
{
    for (uint8_t *q = g.map + kPage; q < g.map + kPage + g.body; ++q)
        if ((q < g.p || q >= g.p + g.bytes) && *q != 0xC3)
            return false;
    return true;
}

void release(Guarded &g) { munmap(g.map, g.map_len); }

void on_segv(int)
{
    static const char msg[] = "model error: memory fault (an access outside a tensor)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

// ---- launching ------------------------------------------------------------------------------

template <class F> bool launch(dim3 grid, unsigned threads, size_t smem, F body)
{
    if (smem > sizeof gemm_smem) {
        std::fprintf(stderr, "model error: %zu bytes of shared memory requested\n", smem);
        return false;
    }
    gridDim = grid;
    blockDim = dim3{threads, 1, 1};
    bool ok = true;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                std::memset(gemm_smem, 0xFF, sizeof gemm_smem);
                model::smem = gemm_smem;
                model::smem_bytes = smem;
                std::barrier<> cta((ptrdiff_t)threads);
                std::vector<model::Warp> warps(threads / 32);
                model::cta = &cta;
                model::warps = warps.data();
                std::vector<long> syncs(threads);
                std::vector<int> pending(threads);
                std::vector<std::thread> pool;
                for (unsigned t = 0; t < threads; ++t)
                    pool.emplace_back([&, t] {
                        threadIdx = dim3{t, 0, 0};
                        blockIdx = dim3{x, y, z};
                        model::syncs = 0;
                        model::groups.clear();
                        model::open.clear();
                        body();
                        syncs[t] = model::syncs;
                        size_t n = model::open.size();
                        for (auto &grp : model::groups) n += grp.size();
                        pending[t] = (int)n;
                    });
                for (auto &th : pool) th.join();
                for (unsigned t = 0; t < threads; ++t) {
                    if (syncs[t] != syncs[0]) {
                        std::fprintf(stderr, "model error: thread %u passed %ld barriers, thread 0 %ld\n",
                                     t, syncs[t], syncs[0]);
                        ok = false;
                    }
                    if (pending[t]) {
                        std::fprintf(stderr, "model error: thread %u exited with %d cp.async pending\n",
                                     t, pending[t]);
                        ok = false;
                    }
                }
            }
    return ok && model::errors.load() == 0;
}

// ---- problems -------------------------------------------------------------------------------

struct Shape {
    unsigned batch, M, N, K;
    float alpha, beta;
};

std::mt19937 rng(12345);

float draw() { return std::normal_distribution<float>(0.0f, 1.0f)(rng); }

unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

// Element x of an input of type T (the value it holds, as float).
float as_float(float x) { return x; }
float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }
void set(float &d, float v) { d = v; }
void set(__nv_bfloat16 &d, float v) { d = __float2bfloat16_rn(v); }

// Fill an input with N(0,1) values, rounded to T.
template <class T> T *fill(Guarded &g, size_t n)
{
    T *p = (T *)g.p;
    for (size_t i = 0; i < n; ++i) set(p[i], draw());
    return p;
}

// out (type TO, dense [batch, M, N]) against ref: |out - ref| <= abs_err · sum_abs + rel · |ref|.
template <class TO>
bool compare(const char *what, const TO *out, const std::vector<double> &ref,
             const std::vector<double> &sum_abs, double rel, double abs_err)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double o = as_float(out[i]);
        const double lim = abs_err * sum_abs[i] + rel * std::fabs(ref[i]) + 1e-30;
        if (!std::isfinite(o) || std::fabs(o - ref[i]) > lim) {
            if (!bad) first = i;
            bad++;
        }
    }
    if (bad)
        std::fprintf(stderr, "  %s: %zu of %zu elements wrong, first at %zu: %g vs %g\n", what, bad,
                     ref.size(), first, (double)as_float(out[first]), ref[first]);
    return bad == 0;
}

double tf32_rna(float x) { return __uint_as_float(msp::cvt_tf32(__float_as_uint(x))); }

// One shape of the example under test. TI: input type, TO: output type; A is stored [M,K]; b_nk:
// B stored [N,K] (else [K,N]); has_c: a C input and a separate output D; tf32: the reference
// rounds the inputs as cvt.rna.tf32.f32 does; rel: the output's rounding allowance.
template <class TI, class TO, class Launch>
bool run_shape(const Shape &s, bool b_nk, bool has_c, bool tf32, double rel, Launch go)
{
    const size_t nA = (size_t)s.batch * s.M * s.K, nB = (size_t)s.batch * s.N * s.K,
                 nC = (size_t)s.batch * s.M * s.N;
    Guarded gA = guarded(nA * sizeof(TI)), gB = guarded(nB * sizeof(TI));
    Guarded gC = guarded(nC * sizeof(TO)), gD = guarded(has_c ? nC * sizeof(TO) : 16);
    TI *A = fill<TI>(gA, nA), *B = fill<TI>(gB, nB);
    TO *C = (TO *)gC.p, *D = has_c ? (TO *)gD.p : C;
    if (has_c) {
        for (size_t i = 0; i < nC; ++i) set(C[i], draw());
        if (s.beta == 0.0f)   // never read: NaN in it must not reach D
            std::memset(C, 0xFF, nC * sizeof(TO));
    }
    std::memset(D, 0xFF, nC * sizeof(TO));   // poison (NaN)
    const std::vector<uint8_t> A_copy((uint8_t *)A, (uint8_t *)(A + nA)),
        B_copy((uint8_t *)B, (uint8_t *)(B + nB)),
        C_copy((uint8_t *)C, (uint8_t *)(C + (has_c ? nC : 0)));

    auto val = [&](const TI *X, size_t i) { return tf32 ? tf32_rna(as_float(X[i])) : (double)as_float(X[i]); };
    std::vector<double> ref(nC), sum_abs(nC);
    for (unsigned b = 0; b < s.batch; ++b)
        for (unsigned i = 0; i < s.M; ++i)
            for (unsigned j = 0; j < s.N; ++j) {
                double acc = 0, mag = 0;
                for (unsigned k = 0; k < s.K; ++k) {
                    const double a = val(A, ((size_t)b * s.M + i) * s.K + k);
                    const double bb = b_nk ? val(B, ((size_t)b * s.N + j) * s.K + k)
                                           : val(B, ((size_t)b * s.K + k) * s.N + j);
                    acc += a * bb;
                    mag += std::fabs(a * bb);
                }
                const size_t o = ((size_t)b * s.M + i) * s.N + j;
                double r = s.alpha * acc, m = std::fabs(s.alpha) * mag;
                if (has_c && s.beta != 0.0f) {
                    r += s.beta * (double)as_float(C[o]);
                    m += std::fabs(s.beta * (double)as_float(C[o]));
                }
                ref[o] = r;
                sum_abs[o] = m;
            }

    const bool launched = go(A, B, C, D, s);
    char what[160];
    std::snprintf(what, sizeof what, "batch %u M %u N %u K %u alpha %g beta %g", s.batch, s.M, s.N,
                  s.K, s.alpha, s.beta);
    // fp32 accumulation of at most a few hundred products: well below 2e-5 of sum |a·b|; a
    // wrong or missing product is about sum |a·b| / K.
    bool ok = launched && compare(what, D, ref, sum_abs, rel, 2e-5);
    if (!canaries_ok(gA) || !canaries_ok(gB) || !canaries_ok(gC) || (has_c && !canaries_ok(gD))) {
        std::fprintf(stderr, "  %s: a canary byte around a tensor changed\n", what);
        ok = false;
    }
    if (std::memcmp(A, A_copy.data(), nA * sizeof(TI)) || std::memcmp(B, B_copy.data(), nB * sizeof(TI)) ||
        (has_c && std::memcmp(C, C_copy.data(), nC * sizeof(TO)))) {
        std::fprintf(stderr, "  %s: an input changed\n", what);
        ok = false;
    }
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    release(gA);
    release(gB);
    release(gC);
    release(gD);
    return ok;
}

}  // namespace

int main(int argc, char **argv)
{
    std::signal(SIGSEGV, on_segv);
    std::signal(SIGBUS, on_segv);
    if (argc != 2 || (std::strcmp(argv[1], "immediate") && std::strcmp(argv[1], "deferred"))) {
        std::fprintf(stderr, "usage: %s immediate|deferred\n", argv[0]);
        return 2;
    }
    model::deferred = std::strcmp(argv[1], "deferred") == 0;
    std::printf("cp.async copies: %s\n", argv[1]);
    bool ok = true;

#if MODEL_KERNEL == 1   // gemm_fp32_nn simt_sgemm: any M, N, K
    const Shape shapes[] = {{1, 1, 1, 1, 1, 0},       {1, 129, 131, 37, 1, 0},
                            {1, 256, 132, 8, 1, 0},   {1, 1100, 130, 20, 1, 0},
                            {1, 257, 516, 41, 1, 0}};
    for (const Shape &s : shapes)
        ok &= run_shape<float, float>(s, false, false, false, 1e-6, [](float *A, float *B, float *, float *C, const Shape &s) {
            return launch(dim3{cdiv(s.N, 128), cdiv(s.M, 128), 1}, 256, SG_SMEM_BYTES,
                          [&] { gemm_fp32_nn_simt(A, B, C, s.M, s.N, s.K); });
        });
#elif MODEL_KERNEL == 2   // gemm_tf32_tn mma_tf32: K % 4 == 0
    const Shape shapes[] = {{1, 130, 136, 100, 1, 0}, {1, 257, 129, 36, 1, 0},
                            {1, 64, 520, 32, 1, 0},   {1, 1100, 20, 8, 1, 0},
                            {1, 3, 5, 4, 1, 0}};
    for (const Shape &s : shapes)
        ok &= run_shape<float, float>(s, true, false, true, 1e-6, [](float *A, float *B, float *, float *C, const Shape &s) {
            return launch(dim3{cdiv(s.N, 128), cdiv(s.M, 128), 1}, 256, TF_SMEM_BYTES,
                          [&] { gemm_tf32_tn_mma(A, B, C, s.M, s.N, s.K); });
        });
#elif MODEL_KERNEL == 3   // gemm_bf16_nn_beta mma_bf16_nn: K % 8 == 0, N % 8 == 0
    const Shape shapes[] = {{1, 130, 136, 200, 1.5f, -0.5f}, {1, 257, 264, 72, 1.5f, -0.5f},
                            {1, 1100, 8, 16, 1.5f, -0.5f},   {1, 130, 136, 200, 1.0f, 0.0f},
                            {1, 5, 8, 8, -2.0f, 3.0f}};
    for (const Shape &s : shapes)
        ok &= run_shape<__nv_bfloat16, __nv_bfloat16>(
            s, false, true, false, 1.0 / 128,
            [](__nv_bfloat16 *A, __nv_bfloat16 *B, __nv_bfloat16 *C, __nv_bfloat16 *D, const Shape &s) {
                return launch(dim3{cdiv(s.N, 128), cdiv(s.M, 128), 1}, 256, NN_SMEM_BYTES, [&] {
                    gemm_bf16_nn_beta_mma(A, B, C, D, s.M, s.N, s.K, s.alpha, s.beta);
                });
            });
#elif MODEL_KERNEL == 4   // gemm_bf16_nt_batched tiled_mma_batched: K % 8 == 0
    const Shape shapes[] = {{3, 130, 131, 136, 1, 0}, {2, 257, 64, 8, 1, 0},
                            {1, 1100, 136, 64, 1, 0}, {5, 7, 9, 16, 1, 0}};
    for (const Shape &s : shapes)
        ok &= run_shape<__nv_bfloat16, __nv_bfloat16>(
            s, true, false, false, 1.0 / 128,
            [](__nv_bfloat16 *A, __nv_bfloat16 *B, __nv_bfloat16 *, __nv_bfloat16 *C, const Shape &s) {
                return launch(dim3{cdiv(s.N, 128), cdiv(s.M, 128), s.batch}, 256, BT_SMEM_BYTES,
                              [&] { gemm_bf16_nt_batched_mma(A, B, C, s.M, s.N, s.K); });
            });
#else
#error "MODEL_KERNEL must be 1..4"
#endif
    return ok ? 0 : 1;
}
