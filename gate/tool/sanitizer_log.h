/* compute-sanitizer's text report, parsed into findings per kernel. The report is a sequence of
 * records, each a header line ("========= Invalid __global__ write of size 4 bytes") followed by
 * indented detail lines ("=========     at gemm(...)+0x70 in k.cu:5", "by thread ...",
 * "Address ... is out of bounds"), records separated by a bare "=========" line; summary lines
 * close it ("ERROR SUMMARY: 2 errors", "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0
 * warnings)"). Older releases wrote locations as "at 0x70 in file.cu:5:kernel(int*)"; both are
 * read. Pure: the caller runs the tool with --log-file and passes the file's text. */
#ifndef PG_TOOL_SANITIZER_LOG_H
#define PG_TOOL_SANITIZER_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

typedef enum {
    PG_SAN_ERROR,   /* a memory, race, initialization or synchronization error in a kernel */
    PG_SAN_WARNING, /* racecheck's "Warning:" hazards */
    PG_SAN_API,     /* "Program hit ... on CUDA API call to ...": a host API call failed (most
                       often the consequence of a kernel error reported before it) */
    PG_SAN_TOOL     /* the tool itself failed ("Error: ..." without a location) */
} pg_san_kind;

typedef struct {
    pg_san_kind kind;
    char what[192];   /* the header without the prefix, "Error: " or "Warning: " */
    char kernel[128]; /* the kernel the first location names; "" when none */
    char detail[192]; /* the first detail line that is not a location or a thread, e.g.
                         "Address 0x7f... is out of bounds"; "" when none */
    int count;        /* records with the same kind, what and kernel, merged */
} pg_san_finding;

typedef struct {
    pg_san_finding *items; /* in order of first appearance; owned (pg_san_report_free) */
    int n;
    int records;           /* records parsed, before merging */
    long long summary_errors; /* from "ERROR SUMMARY: N" or racecheck's "(E errors"; -1 none */
    bool truncated;        /* more than PG_SAN_MAX_FINDINGS distinct findings: the rest counted
                              in `records` only */
} pg_san_report;

#define PG_SAN_MAX_FINDINGS 256

/* Parse log (NUL-terminated). Lines not starting with "=========" (the application's own
 * output) are ignored. Errors: PG_ERR_INFRA when out of memory. */
pg_status pg_san_parse(const char *log, pg_san_report *out, pg_diag *d);
void pg_san_report_free(pg_san_report *r);

#endif
