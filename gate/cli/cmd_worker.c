/* `ptxgate worker`: the hidden command an isolated `ptxgate check` runs once per submission (and
 * once as a GPU probe) to keep each submission's GPU work in its own process. Not for people:
 * the job file and the status channel are made by the parent (gate/pipeline/worker.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "options.h"
#include "pipeline/worker.h"

static pg_option k_options[] = {
    {"job", "FILE", "The job file the parent wrote.", NULL},
    {"status", "FIFO", "The status channel (a FIFO the parent reads).", NULL},
    {"probe", NULL, "Only open the GPU and report its fingerprint.", NULL},
    {"device", "N", "CUDA device ordinal for --probe. Default: 0.", NULL},
    {"heat", NULL, "With --probe: then keep the GPU busy with bf16 GEMMs until stopped.", NULL},
    {0},
};

static pg_command_spec k_spec = {
    "worker",
    "ptxgate worker --status FIFO (--job FILE | --probe [--device N] [--heat])",
    "Run one submission's GPU stages for an isolated 'ptxgate check' (internal).",
    "Started by 'ptxgate check'; see docs/isolation.md for the protocol.",
    NULL,
    k_options,
};

int pg_cmd_worker(int argc, char **argv)
{
    int npos = 0, rc;
    if (!pg_options_parse_flags(&k_spec, argc, argv, &npos, &rc))
        return rc;
    const char *status = pg_option_value(&k_spec, "status");
    const char *job = pg_option_value(&k_spec, "job");
    bool probe = pg_option_value(&k_spec, "probe") != NULL;
    if (!status || probe == (job != NULL) || npos != 0) {
        fprintf(stderr, "ptxgate worker: expected --status and exactly one of --job, --probe\n");
        return 2;
    }
    long device = 0;
    if (!pg_option_int(&k_spec, "device", 0, 1024, &device))
        return 2;
    pg_diag d;
    pg_diag_clear(&d);
    bool heat = pg_option_value(&k_spec, "heat") != NULL;
    pg_status st = probe ? pg_worker_probe_main((int)device, heat, status, &d)
                         : pg_worker_main(job, status, &d);
    return st == PG_OK ? 0 : pg_cli_fail(&d);
}
