/* Submitted modules: loading a cubin, fatbin or PTX image (JIT logs captured), and looking up
 * kernels by entry name. */
#include "device_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_kernel {
    pg_module *module;
    CUfunction function;
    pg_kernel *next;
    char entry[];
};

struct pg_module {
    pg_device *dev;
    CUmodule module;
    pg_kernel *kernels; /* handed out by pg_module_get_kernel, freed with the module */
};

/* JIT logs are captured into buffers of this size, then copied into the caller's. */
#define PG_JIT_LOG_BYTES (64 * 1024)
/* How much of the error log's end goes into the diag message. */
#define PG_JIT_TAIL_BYTES 1500

/* A cubin (ELF) or fatbin is binary; everything else is taken as PTX text, which the driver
 * reads up to a NUL. */
static bool is_binary_image(const unsigned char *p, size_t len)
{
    static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
    static const unsigned char fatbin[4] = {0x50, 0xed, 0x55, 0xba}; /* 0xBA55ED50, LE */
    static const unsigned char wrapper[4] = {0xb1, 0x43, 0x62, 0x46}; /* 0x466243B1, LE */
    return len >= 4 && (!memcmp(p, elf, 4) || !memcmp(p, fatbin, 4) || !memcmp(p, wrapper, 4));
}

/* The end of the error log (where ptxas puts its verdict), cut at a line start, on one line:
 * newlines become " | " so the diag message stays a single line. */
static void log_tail(const char *log, char *out, size_t n)
{
    size_t len = strlen(log);
    const char *t = log;
    if (len > PG_JIT_TAIL_BYTES) {
        t = log + len - PG_JIT_TAIL_BYTES;
        const char *nl = strchr(t, '\n');
        if (nl && nl[1])
            t = nl + 1;
    }
    size_t used = 0;
    for (; *t && used + 4 < n; t++) {
        if (*t == '\n') {
            if (t[1])
                used += (size_t)snprintf(out + used, n - used, " | ");
        } else if (*t != '\r') {
            out[used++] = *t;
        }
    }
    out[used] = '\0';
}

static void copy_logs(char *log, size_t log_len, const char *err, const char *info)
{
    if (!log || log_len == 0)
        return;
    snprintf(log, log_len, "%s%s%s", err, err[0] && info[0] ? "\n" : "", info);
}

pg_status pg_module_load(pg_device *dev, const void *image, size_t len, pg_module **out, char *log,
                         size_t log_len, pg_diag *d)
{
    *out = NULL;
    if (log && log_len)
        log[0] = '\0';
    pg_status st = pg_dev_enter(dev, d);
    if (st != PG_OK)
        return st;
    if (!image || len == 0)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL, "empty module image");

    char *err_log = calloc(1, PG_JIT_LOG_BYTES);
    char *info_log = calloc(1, PG_JIT_LOG_BYTES);
    char *text = NULL; /* a NUL-terminated copy of PTX that came without its NUL */
    pg_module *m = calloc(1, sizeof(*m));
    if (!err_log || !info_log || !m) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
        goto done;
    }
    const void *data = image;
    if (!is_binary_image(image, len) && !memchr(image, '\0', len)) {
        text = malloc(len + 1);
        if (!text) {
            st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
            goto done;
        }
        memcpy(text, image, len);
        text[len] = '\0';
        data = text;
    }

    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_LOG_VERBOSE};
    /* Sizes and flags travel as integers cast to pointers, as cuda.h prescribes. The sizes
     * leave room for the NUL the driver may not write when the log fills the buffer. */
    void *vals[] = {err_log, (void *)(uintptr_t)(PG_JIT_LOG_BYTES - 1), info_log,
                    (void *)(uintptr_t)(PG_JIT_LOG_BYTES - 1), (void *)(uintptr_t)1};
    CUresult r = dev->cu->ModuleLoadDataEx(&m->module, data, sizeof(opts) / sizeof(opts[0]),
                                           opts, vals);
    err_log[PG_JIT_LOG_BYTES - 1] = '\0';
    info_log[PG_JIT_LOG_BYTES - 1] = '\0';
    copy_logs(log, log_len, err_log, info_log);
    if (r != CUDA_SUCCESS) {
        if (pg_cu_is_sticky(r)) {
            st = pg_dev_check(dev, r, PG_FAIL_KERNEL, "cuModuleLoadDataEx", d);
            goto done;
        }
        char name[512], tail[PG_JIT_TAIL_BYTES + 256];
        pg_cu_describe(dev->cu, r, name, sizeof(name));
        log_tail(err_log, tail, sizeof(tail));
        st = pg_diag_set(d, PG_FAIL_KERNEL, NULL, 0, NULL, "%s%s%s", name, tail[0] ? ": " : "",
                         tail);
        goto done;
    }
    m->dev = dev;
    *out = m;
    m = NULL;
done:
    free(m);
    free(text);
    free(err_log);
    free(info_log);
    return st;
}

void pg_module_unload(pg_module *m)
{
    if (!m)
        return;
    /* A hung context is left alone (see pg_device_close); a broken one still frees. */
    if (!m->dev->hung && m->dev->cu->CtxSetCurrent(m->dev->ctx) == CUDA_SUCCESS)
        m->dev->cu->ModuleUnload(m->module);
    for (pg_kernel *k = m->kernels, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    free(m);
}

pg_status pg_module_get_kernel(pg_module *m, const char *entry, pg_kernel **out, pg_diag *d)
{
    *out = NULL;
    for (pg_kernel *k = m->kernels; k; k = k->next)
        if (!strcmp(k->entry, entry)) {
            *out = k;
            return PG_OK;
        }
    pg_status st = pg_dev_enter(m->dev, d);
    if (st != PG_OK)
        return st;
    CUfunction f = NULL;
    CUresult r = m->dev->cu->ModuleGetFunction(&f, m->module, entry);
    if (r == CUDA_ERROR_NOT_FOUND)
        return pg_diag_set(d, PG_ERR_INPUT, NULL, 0, NULL,
                           "kernel '%s' is not an entry of the loaded module", entry);
    st = pg_dev_check(m->dev, r, PG_ERR_INPUT, "cuModuleGetFunction", d);
    if (st != PG_OK)
        return st;
    size_t n = strlen(entry);
    pg_kernel *k = malloc(sizeof(*k) + n + 1);
    if (!k)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of host memory");
    k->module = m;
    k->function = f;
    memcpy(k->entry, entry, n + 1);
    k->next = m->kernels;
    m->kernels = k;
    *out = k;
    return PG_OK;
}

CUfunction pg_kernel_function(const pg_kernel *k, pg_device **dev)
{
    *dev = k->module->dev;
    return k->function;
}
