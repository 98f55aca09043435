/* Finding the CUDA command-line tools (ptxas, nvcc, nvdisasm, cuobjdump, compute-sanitizer) and
 * the ptxas version.
 *
 * Search order for a tool: its environment variable (PTXGATE_PTXAS, PTXGATE_NVCC,
 * PTXGATE_NVDISASM, PTXGATE_CUOBJDUMP, PTXGATE_COMPUTE_SANITIZER), then $PATH, then
 * $CUDA_HOME/bin, then /usr/local/cuda/bin, and for nvdisasm, cuobjdump and compute-sanitizer
 * also the folder of the ptxas that was found (and of its real path when that is a link);
 * compute-sanitizer is also looked for in ../compute-sanitizer/ of each of those toolkit
 * folders. A set, non-empty variable is final: if it does not name an executable
 * file the tool counts as absent, so a broken override is never silently replaced. */
#ifndef PG_TOOL_TOOLCHAIN_H
#define PG_TOOL_TOOLCHAIN_H

#include <stdbool.h>
#include <stddef.h>

/* Find tool ("ptxas", "nvcc", "nvdisasm", "cuobjdump" or "compute-sanitizer"; anything else is
 * never found) and write
 * its path into path_out (n bytes, NUL-terminated). Returns false when it is not found or the path
 * does not fit; path_out is then "". */
bool pg_toolchain_find(const char *tool, char *path_out, size_t n);

/* Run "<ptxas> --version" (30 s limit) and write its version ("13.0.88") into out (n bytes).
 * Returns false when ptxas is absent, does not run, or prints no version; out is then "". */
bool pg_toolchain_ptxas_version(char *out, size_t n);

#endif
