/* Disassembling a cubin into a SASS listing with the CUDA toolkit's disassembler, as a child
 * process (process.h): `nvdisasm --print-code CUBIN` when nvdisasm is found, else
 * `cuobjdump -sass CUBIN` (toolchain.h says where each is looked for, including next to
 * ptxas). The listing is parsed by ptx/sass_listing.h. */
#ifndef PG_TOOL_DISASM_H
#define PG_TOOL_DISASM_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* Listing kept from one run (bytes); a longer one is an error, never a silently cut listing. */
#define PG_DISASM_MAX_OUTPUT (64u << 20)

typedef struct {
    bool tool_found;       /* nvdisasm or cuobjdump was found */
    char tool[16];         /* "nvdisasm" or "cuobjdump"; "" when none */
    char tool_path[1024];
    char command[2048];    /* as run, for the report */
    bool ok;               /* exit 0, not timed out, output complete */
    bool timed_out;
    int exit_code;         /* -1 when killed or not run */
    char *output;          /* the listing (stdout and stderr together); NULL when not run;
                              freed by pg_disasm_result_free */
    size_t output_len;
    double wall_s;
} pg_disasm_result;

/* Disassemble cubin_path (timeout_s: wall-clock limit, <= 0 none). *out is always initialized;
 * release it with pg_disasm_result_free. Returns PG_OK whenever a disassembler ran, whatever it
 * said (see ok, exit_code, output). Errors: PG_ERR_INPUT for an empty path or one starting with
 * '-'; PG_ERR_INFRA when no disassembler is found (tool_found false; the message names both
 * tools and the variables PTXGATE_NVDISASM and PTXGATE_CUOBJDUMP) or it cannot be started. */
pg_status pg_disassemble(const char *cubin_path, double timeout_s, pg_disasm_result *out,
                         pg_diag *d);

void pg_disasm_result_free(pg_disasm_result *r);

#endif
