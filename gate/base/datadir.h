/* Where ptxgate's data folders are: one resolver for the tasks, the PTX → SASS tables, the CUPTI
 * metric lists, the schemas and the shipped baselines, used by every command and the worker. */
#ifndef PG_BASE_DATADIR_H
#define PG_BASE_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    PG_DATA_TASKS,      /* <id>/task.json                        share/ptxgate/tasks     */
    PG_DATA_ARCH,       /* <arch>.json, the PTX → SASS tables      share/ptxgate/arch      */
    PG_DATA_METRICS,    /* <chip>.json, the CUPTI metric lists     share/ptxgate/metrics   */
    PG_DATA_SCHEMAS,    /* results, baseline, JUnit schemas        share/ptxgate/schemas   */
    PG_DATA_BASELINES,  /* the shipped <gpu-key>/<task>.json       share/ptxgate/baselines */
    PG_DATA_KINDS
} pg_data_kind;

/* Where a folder was found. */
typedef enum {
    PG_DATA_NOT_FOUND,
    PG_DATA_FROM_ENV,       /* the kind's environment variable */
    PG_DATA_FROM_ARCH_ENV,  /* metrics only: ../metrics next to $PTXGATE_ARCH_DATA */
    PG_DATA_FROM_INSTALL,   /* <exe dir>/../share/ptxgate/<name> */
    PG_DATA_FROM_SOURCE,    /* the source tree named by <exe dir>/ptxgate-source-root */
} pg_data_origin;

/* The kind's environment variable ("PTXGATE_TASKS", "PTXGATE_ARCH_DATA", "PTXGATE_METRICS_DATA",
 * "PTXGATE_SCHEMAS", "PTXGATE_BASELINES") and its folder name under share/ptxgate ("tasks",
 * "arch", "metrics", "schemas", "baselines"). Static strings. */
const char *pg_data_env_name(pg_data_kind k);
const char *pg_data_name(pg_data_kind k);
/* "environment", "installed", "source tree", "not found" (static). */
const char *pg_data_origin_name(pg_data_origin o);

/* Resolve the kind's folder for the program at exe (an absolute path, e.g. /proc/self/exe's
 * target) into out (n bytes), first match wins:
 *   1. the environment variable, when set and not empty (taken as given, even if missing, so a
 *      typo fails loudly where the folder is read; "none" for baselines is left to the caller);
 *      for metrics, else <$PTXGATE_ARCH_DATA>/../metrics when that is a folder;
 *   2. <dir of exe>/../share/ptxgate/<name> when it is a folder (cmake --install, the package);
 *   3. <root>/<subdir> of the source tree when the file <dir of exe>/ptxgate-source-root exists
 *      (written by CMake into the build folder, never installed): its first line is <root>, and
 *      <subdir> is tasks, data/arch, data/metrics, schemas or baselines.
 * No path is compiled into the binary. Returns the origin; PG_DATA_NOT_FOUND leaves out "".
 * Pure except for reading the environment and the file system; never prints. */
pg_data_origin pg_data_resolve(pg_data_kind k, const char *exe, char *out, size_t n);

/* pg_data_resolve for this process (/proc/self/exe), cached per kind after the first call (not
 * thread-safe on the first call: call it before starting threads). Returns a static string, or
 * NULL when the folder is not found; *origin (may be NULL) says where it was found. */
const char *pg_data_dir(pg_data_kind k, pg_data_origin *origin);

/* The fix to print when the kind's folder was not found (static string). */
const char *pg_data_missing_fix(pg_data_kind k);

#endif
