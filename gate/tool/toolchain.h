/* Finding the CUDA command-line tools (ptxas, nvcc, nvdisasm, cuobjdump, compute-sanitizer) and
 * the ptxas version.
 *
 * Search order for a tool: its environment variable (PTXGATE_PTXAS, PTXGATE_NVCC,
 * PTXGATE_NVDISASM, PTXGATE_CUOBJDUMP, PTXGATE_COMPUTE_SANITIZER), then $PATH, then
 * $CUDA_HOME/bin, then /usr/local/cuda/bin, and for nvdisasm, cuobjdump and compute-sanitizer
 * also the folder of the ptxas that was found (and of its real path when that is a link);
 * compute-sanitizer is also looked for in ../compute-sanitizer/ of each of those toolkit
 * folders. nvdisasm and cuobjdump, last, also in the tools venv's bin folder
 * (pg_toolchain_tools_venv_bin), where scripts/sass-tools.sh links the pinned NVIDIA wheels for
 * a toolkit that lacks them. A set, non-empty variable is final: if it does not name an
 * executable file the tool counts as absent, so a broken override is never silently replaced. */
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

/* The tools venv's bin folder into out (n bytes): $PTXGATE_TOOLS_VENV/bin, else
 * $XDG_CACHE_HOME/ptxgate/tools-venv/bin, else $HOME/.cache/ptxgate/tools-venv/bin (the venv
 * scripts/setup.sh creates). Returns false (out "") when none of those variables is set or the
 * path does not fit. The folder need not exist. */
bool pg_toolchain_tools_venv_bin(char *out, size_t n);

/* The disassembler pg_disassemble would run (nvdisasm, else cuobjdump; tool/disasm.h) into
 * tool_out ("nvdisasm", "cuobjdump"; "" when none) and its "<tool> --version" version
 * ("13.2.86"; "" when it prints none) into version_out. Returns false when neither is found. */
bool pg_toolchain_disassembler(char *tool_out, size_t tool_n, char *version_out, size_t version_n);

#endif
