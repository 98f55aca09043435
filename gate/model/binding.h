/* A manifest's parameter bindings against the PTX .entry signatures, and the kernel argument
 * blocks (cuLaunchKernel's kernelParams) built from an evaluated launch plan. */
#ifndef PG_MODEL_BINDING_H
#define PG_MODEL_BINDING_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../ptx/signature.h"
#include "manifest.h"
#include "plan.h"

/* Check every launch of m against sig (parsed from ptx_file, named in messages; generated: the
 * PTX is what nvcc made of the .cu ptx_file, so lines are named "PTX line N (generated from
 * ptx_file)", never as lines of the .cu): the entry
 * exists, the parameter count matches, each binding's size equals the PTX parameter's size,
 * integer bindings meet integer (or untyped .b) parameters and floating bindings floating ones,
 * and tensor maps are 128 bytes declared with .align >= 64 (`.param .align 64 .b8 x[128]`, what
 * nvcc emits for a __grid_constant__ CUtensorMap; CUtensorMap is 64-byte aligned).
 * Errors: PG_ERR_INPUT with file = the manifest and field = "launches[i].entry",
 * "launches[i].params" or "launches[i].params[j]", naming the parameter and its PTX line. */
pg_status pg_binding_check(const pg_manifest *m, const pg_ptx_module_info *sig,
                           const char *ptx_file, bool generated, pg_diag *d);

/* Argument storage for one launch: args[i] points at parameter i's value inside storage (one
 * 128-byte-aligned slot per parameter: 128 bytes, large enough for a tensor map, or a struct's
 * size rounded up to 128). Owned by the holder: release with pg_arg_block_free. */
typedef struct {
    unsigned char *storage;
    void **args;
} pg_arg_block;

/* Lay out lv's parameter values; tensor and workspace parameters take the device addresses
 * tensor_addr[ref_index] / ws_addr[ref_index]. Tensor-map slots are left zeroed: the caller
 * encodes each map (pg_tensor_map_encode) straight into args[i], a 128-byte, 128-byte-aligned
 * slot that cuLaunchKernel copies by value; a tensor-map field of a struct parameter likewise
 * into args[i] + the field's offset (64-byte aligned, as the struct's checks ensure). A struct
 * is packed with pg_binding_pack_struct. A device_struct slot is left zeroed too: the caller
 * packs the struct (pg_binding_pack_struct) into a device buffer and writes the buffer's 8-byte
 * address into args[i]. Returns PG_ERR_INFRA on out-of-memory. */
pg_status pg_binding_args(const pg_launch_values *lv, const uint64_t *tensor_addr,
                          const uint64_t *ws_addr, pg_arg_block *out);
void pg_arg_block_free(pg_arg_block *b);

/* Write struct value sv (kind STRUCT or DEVICE_STRUCT) into out[0 .. sv->bytes): zero first, then each field at
 * its offset (tensor and workspace fields as 8-byte device addresses from tensor_addr /
 * ws_addr, values in their type's size, little-endian as the host stores them). Tensor-map
 * fields and zero padding stay zero; the caller encodes each map at out + its offset. */
void pg_binding_pack_struct(const pg_param_value *sv, const uint64_t *tensor_addr,
                            const uint64_t *ws_addr, unsigned char *out);

#endif
