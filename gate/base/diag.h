/* Located diagnostics: every library error carries the file, line, JSON field and a message.
 * The library never prints or exits; it fills a pg_diag and returns a pg_status. The CLI turns
 * pg_status into the process exit code (see docs/exit-codes.md). */
#ifndef PG_BASE_DIAG_H
#define PG_BASE_DIAG_H

#include <stddef.h>

/* Every status a ptxgate function returns. PG_OK, PG_FAIL_KERNEL, PG_ERR_INPUT and PG_ERR_INFRA
 * equal the process exit codes they map to (docs/exit-codes.md: 0 pass, 1 gate failure, 2 usage
 * or input, 3 infrastructure), so the CLI can exit with a status as it is. PG_ERR_UNAVAILABLE
 * never reaches the CLI: the pipeline records it as an "unknown" stage and maps it by policy. */
typedef enum {
    PG_OK = 0,
    /* The submitted kernel failed at run time: a fault, a trap, a launch the driver refused, a
     * timeout (the device layer, device/device.h; the message starts with the CUDA error name or
     * "TIMEOUT"). A result about the kernel, judged as a gate failure, not a crash of ptxgate. */
    PG_FAIL_KERNEL = 1,
    PG_ERR_INPUT = 2, /* usage or input error: a file, a field or a flag is wrong */
    PG_ERR_INFRA = 3, /* infrastructure: no GPU, driver, library or tool failure */
    /* Profiling cannot run here (CUPTI: no permission for the performance counters, counters
     * busy, another profiler, a virtual or MIG device, a chip CUPTI does not know); the message
     * is "CUPTI_ERROR_NAME in call: why; fix: what to do" (device/device.h). Not an exit code. */
    PG_ERR_UNAVAILABLE = 4
} pg_status;

typedef struct {
    pg_status status;
    char file[1024];   /* file the problem is in; "" when none */
    long line;         /* 1-based line in that file; 0 when unknown */
    char field[256];   /* JSON path ("launches[0].grid[1]") or flag name; "" when none */
    char message[2048];/* what was found and what was expected */
} pg_diag;

/* Clear d to "no error". d may be NULL. */
void pg_diag_clear(pg_diag *d);

/* Fill d (when non-NULL) and return st. file/field may be NULL. printf-style message. */
pg_status pg_diag_set(pg_diag *d, pg_status st, const char *file, long line, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Render "FILE:LINE: field 'F': MESSAGE" (parts omitted when empty) into buf (always
 * NUL-terminated). Returns buf. */
char *pg_diag_format(const pg_diag *d, char *buf, size_t n);

#endif
