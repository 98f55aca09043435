/* GPU test of tensor maps end to end: ptxgate's device layer encodes maps (pg_tensor_map_encode)
 * into 128-byte argument slots that launches pass by value, and the probe kernels of
 * tma_probe.cu check on the hardware the layout facts the wgmma + TMA example relies on:
 *   1. TMA with swizzle 128B puts element (row r, k) of a box at byte r·128 + 2k of a 1024-byte
 *      aligned tile with the 16-byte chunk index XORed with r % 8, and fills elements outside
 *      the tensor with zeros;
 *   2. wgmma m64n256k16 through the example's descriptors (SBO 1024, 128B swizzle, +32 bytes per
 *      k16 step) computes A·Bᵀ with the accumulator layout of sm90_ptx.cuh.
 * Also: an address breaking the 16-byte rule is refused before the driver is called.
 * usage: tma_smoke PROBE.cubin. Without a GPU, or on a GPU below compute capability 9.0, it
 * prints "SKIP: <reason>" and exits 77. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "device/device.h"

static pg_device *g_dev;
static pg_diag g_d;
static int g_failures;

static void die(const char *what)
{
    char buf[4096];
    printf("FAIL: %s: %s\n", what, pg_diag_format(&g_d, buf, sizeof buf));
    exit(1);
}

static void ok(pg_status st, const char *what)
{
    if (st != PG_OK)
        die(what);
}

static float bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The 128B swizzle on a byte offset inside a 1024-byte aligned tile. */
static unsigned swz128(unsigned off)
{
    return off ^ (((off >> 7) & 7u) << 4);
}

/* A rank-2 bf16 map of a row-major [rows][cols] tensor, box (box0 cols, box1 rows), 128B. */
static pg_tensor_map_desc map2d(uint64_t cols, uint64_t rows, int box0, int box1)
{
    pg_tensor_map_desc m;
    memset(&m, 0, sizeof m);
    m.dtype = PG_DTYPE_BF16;
    m.rank = 2;
    m.global_dim[0] = cols;
    m.global_dim[1] = rows;
    m.global_stride[0] = cols * 2;
    m.box_dim[0] = box0;
    m.box_dim[1] = box1;
    m.element_stride[0] = m.element_stride[1] = 1;
    m.swizzle = PG_TMAP_SWIZZLE_128B;
    snprintf(m.field, sizeof m.field, "probe.tensor_map");
    snprintf(m.tensor, sizeof m.tensor, "X");
    return m;
}

static pg_buffer *alloc(size_t bytes)
{
    pg_buffer *b = NULL;
    ok(pg_buffer_alloc(g_dev, bytes, &b, &g_d), "pg_buffer_alloc");
    return b;
}

static void *download(pg_buffer *b, size_t bytes)
{
    void *h = malloc(bytes);
    if (!h) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    ok(pg_buffer_download(b, h, bytes, &g_d), "pg_buffer_download");
    return h;
}

static void run(pg_kernel *k, void **args, const char *what)
{
    pg_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = k;
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = 128;
    l.block[1] = l.block[2] = 1;
    l.args = args;
    ok(pg_device_launch(g_dev, &l, 1, &g_d), what);
    ok(pg_device_sync(g_dev, 60.0, &g_d), what);
}

/* Probe 1: X [70 rows][40 cols] bf16, box (64 cols, 64 rows) at (c0, c1). */
static void check_tma_layout(pg_kernel *k, unsigned char *slot, int c0, int c1)
{
    const unsigned R = 70, C = 40;
    pg_buffer *x = alloc(R * C * 2), *out = alloc(64 * 64 * 2);
    ok(pg_buffer_fill_normal(x, PG_DTYPE_BF16, R * C, 7, &g_d), "fill X");
    ok(pg_buffer_fill_poison(out, &g_d), "poison out");
    uint16_t *xh = download(x, R * C * 2);
    pg_tensor_map_desc m = map2d(C, R, 64, 64);
    char what[256];
    pg_tensor_map_describe(&m, what, sizeof what);
    ok(pg_tensor_map_encode(g_dev, &m, pg_buffer_address(x), slot, &g_d), "encode probe map");
    uint64_t o = pg_buffer_address(out);
    void *args[] = {slot, &o, &c0, &c1};
    run(k, args, "pg_probe_tma");
    uint16_t *got = download(out, 64 * 64 * 2);
    int bad = 0;
    for (unsigned r = 0; r < 64; r++)
        for (unsigned c = 0; c < 64; c++) {
            unsigned gr = r + (unsigned)c1, gc = c + (unsigned)c0;
            uint16_t want = gr < R && gc < C ? xh[gr * C + gc] : 0;
            uint16_t have = got[swz128(r * 128 + c * 2) / 2];
            if (have != want && bad++ < 5)
                printf("  TMA box (%d, %d) row %u col %u: want 0x%04x at swizzled byte %u, found "
                       "0x%04x (unswizzled byte %u holds 0x%04x)\n",
                       c0, c1, r, c, want, swz128(r * 128 + c * 2), have, r * 128 + c * 2,
                       got[(r * 128 + c * 2) / 2]);
        }
    printf("%s TMA 128B-swizzle layout and zero fill, box at (%d, %d) of a 40 x 70 tensor (%s): "
           "%d of 4096 elements wrong\n",
           bad ? "FAIL" : "ok  ", c0, c1, what, bad);
    g_failures += bad != 0;
    free(xh);
    free(got);
    pg_buffer_free(x);
    pg_buffer_free(out);
}

/* Probe 2: A [64][64], B [256][64] bf16; D = A·Bᵀ (64 x 256) from 4 wgmma m64n256k16. */
static void check_wgmma(pg_kernel *k, unsigned char *slots)
{
    pg_buffer *a = alloc(64 * 64 * 2), *b = alloc(256 * 64 * 2), *out = alloc(128 * 128 * 4);
    ok(pg_buffer_fill_normal(a, PG_DTYPE_BF16, 64 * 64, 11, &g_d), "fill A");
    ok(pg_buffer_fill_normal(b, PG_DTYPE_BF16, 256 * 64, 12, &g_d), "fill B");
    ok(pg_buffer_fill_poison(out, &g_d), "poison out");
    uint16_t *ah = download(a, 64 * 64 * 2), *bh = download(b, 256 * 64 * 2);
    pg_tensor_map_desc ma = map2d(64, 64, 64, 64), mb = map2d(64, 256, 64, 256);
    ok(pg_tensor_map_encode(g_dev, &ma, pg_buffer_address(a), slots, &g_d), "encode A map");
    ok(pg_tensor_map_encode(g_dev, &mb, pg_buffer_address(b), slots + 128, &g_d), "encode B map");
    uint64_t o = pg_buffer_address(out);
    void *args[] = {slots, slots + 128, &o};
    run(k, args, "pg_probe_wgmma");
    float *got = download(out, 128 * 128 * 4);
    int bad = 0;
    double max_err = 0;
    for (unsigned t = 0; t < 128; t++)
        for (unsigned j = 0; j < 32; j++)
            for (unsigned h = 0; h < 2; h++)
                for (unsigned e = 0; e < 2; e++) {
                    unsigned row = 16 * (t / 32) + (t % 32) / 4 + 8 * h;
                    unsigned col = 8 * j + 2 * (t % 4) + e;
                    double ref = 0;
                    for (unsigned kk = 0; kk < 64; kk++)
                        ref += (double)bf16(ah[row * 64 + kk]) * bf16(bh[col * 64 + kk]);
                    double have = got[t * 128 + 4 * j + 2 * h + e];
                    double err = fabs(have - ref);
                    max_err = err > max_err || isnan(err) ? err : max_err;
                    if (!(err <= 1e-3 + 1e-3 * fabs(ref)) && bad++ < 5)
                        printf("  wgmma D[%u][%u] (thread %u, register %u): want %.6f, found %.6f\n",
                               row, col, t, 4 * j + 2 * h + e, ref, have);
                }
    printf("%s wgmma m64n256k16 from TMA tiles (SBO 1024, 128B swizzle, +32 B per k16): %d of "
           "16384 accumulators wrong, max |err| %.3g\n",
           bad ? "FAIL" : "ok  ", bad, max_err);
    g_failures += bad != 0;
    free(ah);
    free(bh);
    free(got);
    pg_buffer_free(a);
    pg_buffer_free(b);
    pg_buffer_free(out);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2) {
        fprintf(stderr, "usage: tma_smoke PROBE.cubin\n");
        return 2;
    }
    pg_status st = pg_device_open(0, &g_dev, &g_d);
    if (st == PG_ERR_INFRA) {
        printf("SKIP: %s\n", g_d.message);
        return 77;
    }
    ok(st, "pg_device_open");
    const pg_device_info *in = pg_device_get_info(g_dev);
    if (in->cc_major < 9) {
        printf("SKIP: %s has compute capability %d.%d; TMA and wgmma need 9.0\n", in->name,
               in->cc_major, in->cc_minor);
        return 77;
    }
    char *image = NULL, log[8192] = "";
    size_t len = 0;
    ok(pg_file_read(argv[1], 64u << 20, &image, &len, &g_d), "read the probe cubin");
    pg_module *mod = NULL;
    pg_kernel *k_tma = NULL, *k_wgmma = NULL;
    ok(pg_module_load(g_dev, image, len, &mod, log, sizeof log, &g_d), "load the probe cubin");
    ok(pg_module_get_kernel(mod, "pg_probe_tma", &k_tma, &g_d), "pg_probe_tma");
    ok(pg_module_get_kernel(mod, "pg_probe_wgmma", &k_wgmma, &g_d), "pg_probe_wgmma");

    /* Argument slots as pg_binding_args lays them out: 128 bytes, 128-byte aligned. */
    unsigned char *slots = aligned_alloc(128, 2 * 128);
    if (!slots)
        die("aligned_alloc");

    /* The address rule is checked before the driver sees the map. */
    pg_buffer *x = alloc(4096);
    pg_tensor_map_desc m = map2d(40, 20, 64, 16);
    st = pg_tensor_map_encode(g_dev, &m, pg_buffer_address(x) + 8, slots, &g_d);
    if (st != PG_ERR_INPUT || !strstr(g_d.message, "16-byte aligned")) {
        printf("FAIL: a misaligned address: want PG_ERR_INPUT naming the 16-byte rule, got %d: "
               "%s\n", (int)st, g_d.message);
        g_failures++;
    } else {
        printf("ok   misaligned address refused: %s\n", g_d.message);
    }
    pg_buffer_free(x);

    check_tma_layout(k_tma, slots, 0, 8);   /* rows 8..71: rows 70, 71 outside */
    check_tma_layout(k_tma, slots, 16, 0);  /* cols 16..79: cols 40..79 outside */
    check_wgmma(k_wgmma, slots);

    if (pg_device_is_broken(g_dev)) {
        printf("FAIL: the device is broken at the end\n");
        g_failures++;
    }
    free(slots);
    free(image);
    pg_module_unload(mod);
    pg_device_close(g_dev);
    printf("%s\n", g_failures ? "FAIL" : "PASS");
    return g_failures ? 1 : 0;
}
