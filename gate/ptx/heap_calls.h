/* Calls into the device heap (malloc, free) in PTX text. A kernel that allocates from the
 * device heap on every launch keeps that memory after the launch, so repeated launches leak it
 * (and a cache kept there outlives the call); ptxgate refuses such PTX before loading it. */
#ifndef PG_PTX_HEAP_CALLS_H
#define PG_PTX_HEAP_CALLS_H

#include <stdbool.h>
#include <stddef.h>

/* Find the first `call` instruction whose callee is malloc, free or __nv_aligned_device_malloc
 * (the device heap functions nvcc emits for device-side new/delete and malloc/free), ignoring
 * comments. Returns true when one exists, with the callee's name in callee (n bytes) and the
 * 1-based line of the callee token in *line. text is NUL-terminated PTX. */
bool pg_ptx_find_heap_call(const char *text, char *callee, size_t n, int *line);

#endif
