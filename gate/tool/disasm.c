/* Running nvdisasm or cuobjdump on a cubin (see disasm.h). */
#include "disasm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process.h"
#include "toolchain.h"

pg_status pg_disassemble(const char *cubin_path, double timeout_s, pg_disasm_result *out,
                         pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    if (!cubin_path || !cubin_path[0] || cubin_path[0] == '-')
        return pg_diag_set(d, PG_ERR_INPUT, cubin_path, 0, NULL,
                           "the cubin path must be non-empty and must not start with '-'");
    const char *flag = NULL;
    if (pg_toolchain_find("nvdisasm", out->tool_path, sizeof out->tool_path)) {
        snprintf(out->tool, sizeof out->tool, "nvdisasm");
        flag = "--print-code";
    } else if (pg_toolchain_find("cuobjdump", out->tool_path, sizeof out->tool_path)) {
        snprintf(out->tool, sizeof out->tool, "cuobjdump");
        flag = "-sass";
    } else {
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL,
                           "no disassembler: neither nvdisasm nor cuobjdump was found (set "
                           "PTXGATE_NVDISASM or PTXGATE_CUOBJDUMP, put one on PATH, install "
                           "it next to ptxas, or run scripts/sass-tools.sh)");
    }
    out->tool_found = true;
    snprintf(out->command, sizeof out->command, "%s %s %s", out->tool_path, flag, cubin_path);
    const char *argv[] = {out->tool_path, flag, cubin_path, NULL};
    pg_process_result r;
    pg_status st = pg_process_run(argv, timeout_s, PG_DISASM_MAX_OUTPUT, &r, d);
    if (st == PG_OK) {
        out->output = r.output;
        out->output_len = r.output_len;
        r.output = NULL;
        out->exit_code = r.exit_code;
        out->timed_out = r.timed_out;
        out->wall_s = r.wall_s;
        out->ok = !r.timed_out && r.exit_code == 0 && !r.output_truncated;
        if (r.output_truncated)
            st = pg_diag_set(d, PG_ERR_INFRA, cubin_path, 0, NULL,
                             "the %s listing is longer than %u MiB", out->tool,
                             PG_DISASM_MAX_OUTPUT >> 20);
    }
    pg_process_result_free(&r);
    return st;
}

void pg_disasm_result_free(pg_disasm_result *r)
{
    if (!r)
        return;
    free(r->output);
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
}
