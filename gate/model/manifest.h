/* Submission manifests (docs/formats.md "Submission manifest"): parsing and validating a manifest
 * on its own, then cross-checking it against its task. Expressions stay text here; plan.h
 * evaluates them for one workload. */
#ifndef PG_MODEL_MANIFEST_H
#define PG_MODEL_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "compile_options.h"
#include "task.h"
#include "tensor_map_spec.h"

#define PG_MAX_WORKSPACES 8
/* Most launches in one manifest and parameters in one launch. */
#define PG_MAX_LAUNCHES 64
#define PG_MAX_PARAMS 256

typedef enum {
    PG_PARAM_TENSOR,    /* {"tensor": "A"}: device address of a task tensor */
    PG_PARAM_VALUE,     /* {"value": expr, "type": "u32"}: an integer expression */
    PG_PARAM_SCALAR,    /* {"scalar": 1.0, "type": "f32"}: a floating-point constant */
    PG_PARAM_WORKSPACE, /* {"workspace": "ws"}: device address of a declared workspace */
    PG_PARAM_TENSOR_MAP,/* {"tensor_map": {...}}: a TMA tensor map passed by value (128 bytes) */
    PG_PARAM_STRUCT,    /* {"struct": {"size", "align", "fields"}}: a by-value struct whose
                           fields are bindings of the kinds above at byte offsets */
    PG_PARAM_ZERO,      /* struct fields only: {"offset": 24, "zero": 8}, explicit zero bytes */
    PG_PARAM_DEVICE_STRUCT /* {"device_struct": {...as struct...}}: the struct's bytes in a
                              device buffer ptxgate owns; the parameter is its 8-byte address */
} pg_param_kind;

typedef enum {
    PG_PTYPE_U32,
    PG_PTYPE_S32,
    PG_PTYPE_U64,
    PG_PTYPE_S64,
    PG_PTYPE_F32,
    PG_PTYPE_F64,
    PG_PTYPE_PTR, /* tensor and workspace addresses: 8 bytes */
    PG_PTYPE_TMAP, /* tensor map: 128 bytes */
    PG_PTYPE_BYTES /* struct and zero padding: the binding's `bytes` */
} pg_param_type;

/* Largest by-value struct: 32764 bytes, the kernel parameter limit of CUDA 12.1 and later on
 * Volta and newer (CUDA C++ Programming Guide, "Function Parameters"); most fields in one. */
#define PG_MAX_STRUCT_BYTES 32764
#define PG_MAX_STRUCT_FIELDS 256
/* Alignment a tensor map needs wherever it lies (CUtensorMap is declared 64-byte aligned). */
#define PG_TMAP_FIELD_ALIGN 64
/* Most device_struct parameters in one manifest (each is one device buffer per workload). */
#define PG_MAX_DEVICE_STRUCTS 16

/* One kernel parameter, or one field of a struct parameter. Which members are meaningful
 * depends on kind:
 * TENSOR: ref = tensor name, type PTR. WORKSPACE: ref = workspace name, type PTR.
 * VALUE: expr, type U32/S32/U64/S64. SCALAR: scalar, type F32/F64.
 * TENSOR_MAP: tmap (its tensor names the task tensor), type TMAP.
 * STRUCT: type BYTES, bytes = the struct's size, align = its alignment, fields = n_fields
 * bindings (owned; none is a STRUCT) in the manifest's order, each with its offset.
 * ZERO (struct fields only): type BYTES, bytes = how many zero bytes.
 * DEVICE_STRUCT: as STRUCT, but type PTR: the parameter is the address of a device buffer
 * holding the struct's bytes.
 * offset: byte offset inside the enclosing struct (struct fields only, else 0). */
typedef struct pg_param_binding {
    pg_param_kind kind;
    char name[64];   /* optional "name" of the manifest; "" when absent */
    char ref[64];
    char expr[256];
    pg_param_type type;
    double scalar;
    pg_tensor_map_spec tmap;
    uint32_t offset;
    uint32_t bytes;
    uint32_t align;
    struct pg_param_binding *fields;
    int n_fields;
    char field[160]; /* JSON path, e.g. "launches[0].params[3]", "...params[0].struct.fields[2]" */
} pg_param_binding;

/* One launch; expressions are text (grid, block, cluster: x, y, z). */
typedef struct {
    char entry[256];
    char grid[3][128];
    char block[3][128];
    char cluster[3][128];          /* meaningful when has_cluster */
    bool has_cluster;
    char dynamic_shared_bytes[128];/* "0" when absent */
    pg_param_binding *params;      /* n_params entries, owned */
    int n_params;
    char field[64];                /* "launches[0]" */
} pg_launch_spec;

typedef struct {
    char name[64];
    char bytes[256];  /* expression */
    bool poison;      /* init "poison" (else "zero") */
    bool setup;       /* bound by a setup launch: initialised once, before the setup launches,
                         then kept for the submission's launches (never re-initialised) */
} pg_workspace_spec;

typedef struct {
    char file[1024];   /* manifest path as given */
    char dir[1024];    /* its folder */
    char name[256];    /* file name without .json */
    char task[128];
    char source[1024]; /* source resolved against dir */
    char source_field_value[1024]; /* as written */
    char arch[32];     /* "" = the task's default_arch */
    char description[512];
    char supports[256]; /* "supports": the shape constraint over task symbols; "" = every
                           workload */
    pg_compile_options compile; /* "compile"; all empty when absent */
    pg_workspace_spec ws[PG_MAX_WORKSPACES]; /* in the manifest's order */
    int n_ws;
    pg_launch_spec *launches; /* n_launches (>= 1) entries, then the n_setup setup launches
                                 ("setup", fields "setup[i]..."), owned */
    int n_launches;
    int n_setup;              /* 0..PG_MAX_LAUNCHES; they are launches[n_launches ..] */
} pg_manifest;

/* Parse and validate the manifest at path on its own. *out is owned by the caller
 * (pg_manifest_free); NULL on error.
 * Errors (PG_ERR_INPUT naming path, the JSON path of the field and what was expected): missing
 * file, malformed JSON, unknown keys, wrong types, schema_version other than 1, source not ending
 * in .ptx or .cu, source file missing or not a regular file, arch not sm_XX[a], workspace names
 * (identifiers), init other than zero/poison, 1..PG_MAX_LAUNCHES launches, entry names, grid/
 * block/cluster not arrays of 3 expressions, expression syntax, a param without exactly one kind
 * key, a param type not allowed for its kind (value: u32/s32/u64/s64 required; scalar: f32/f64
 * required, value finite and within f32 range for f32; tensor/workspace/tensor_map: no type), a
 * workspace param naming an undeclared workspace, a malformed tensor_map object (see
 * pg_tensor_map_spec_from_json; fields "launches[i].params[j].tensor_map.<key>"), a param with
 * a "layout", "strides", "stride" or "transpose" key (a manifest cannot choose a layout: tensors
 * are passed as the task declares them), and a declared workspace no launch parameter uses
 * (field "workspaces.<name>").
 * Struct params ("launches[i].params[j].struct"): size 1..PG_MAX_STRUCT_BYTES, align a power of
 * two 1..128 dividing size, 1..PG_MAX_STRUCT_FIELDS fields (".struct.fields[k]"), each with an
 * integer "offset" and one kind key (tensor, value, scalar, workspace, tensor_map, or "zero":
 * a byte count; never a nested struct); a field that runs past the end, overlaps an earlier
 * one, sits at an offset that is not a multiple of its natural alignment (its size; 64 for a
 * tensor map, whose struct must then be 64-byte aligned) is an error naming the field. An
 * "offset" outside a struct, or "zero" as a parameter of its own, is an error.
 * device_struct params: the same rules under ".device_struct"; never a struct field; at most
 * PG_MAX_DEVICE_STRUCTS in the manifest (field of the one over).
 * "setup": 0..PG_MAX_LAUNCHES launches of the same form (fields "setup[i]..."), whose bindings
 * (struct fields included) may not name a task tensor (tensor or tensor_map: field of the
 * binding); a workspace they bind is marked setup.
 * "supports": an optional expression (syntax checked here; symbols by pg_manifest_check_task).
 * "compile": see pg_compile_options_from_json; std, flags and include_dirs only for a .cu source
 * (field "compile.std" / ".flags" / ".include_dirs"). */
pg_status pg_manifest_load(const char *path, pg_manifest **out, pg_diag *d);
/* The "task" string of a manifest that did not load (the results name its task), when the file
 * reads as JSON and the string is plain (letters, digits, '_', '-', '.'; shorter than 128
 * bytes and than n); else "unknown". Written into out[n] (n >= 8). */
void pg_manifest_task_of_unloadable(const char *path, char *out, size_t n);

/* Cross-check m with its task t. Errors (PG_ERR_INPUT, file = m->file, field = the manifest
 * field): m->task differs from t->id (field "task"), a tensor param naming no task tensor
 * (field "launches[i].params[j].tensor"), an expression using a symbol that is neither a task
 * symbol nor a device symbol (device_symbols.h; not in tensor_map expressions)
 * (e.g. field "launches[0].grid[1]", "workspaces.ws.bytes"), a tensor_map that does not fit its
 * tensor (pg_tensor_map_spec_check), an output tensor that no launch parameter binds (field
 * "launches": the kernel could never write it; a tensor or tensor_map binding, also as a struct
 * field, binds it: an output written only through TMA stores is bound by its map). */
pg_status pg_manifest_check_task(const pg_manifest *m, const pg_task *t, pg_diag *d);

/* Whether m supports workload w of t: its "supports" expression (checked with
 * pg_manifest_check_task) is nonzero for w's symbols; true when m has none.
 * Errors (PG_ERR_INPUT, file = m->file, field "supports", naming the workload): evaluation
 * errors (division by zero, overflow). */
pg_status pg_manifest_supports(const pg_manifest *m, const pg_task *t, const pg_workload *w,
                               bool *out, pg_diag *d);

/* Free m and what it owns. m may be NULL. */
void pg_manifest_free(pg_manifest *m);

/* Size in bytes of a parameter of type t: 4, 4, 8, 8, 4, 8, 8 (ptr), 128 (tensor map); 0 for
 * BYTES (the size is the binding's). */
unsigned pg_param_type_size(pg_param_type t);

/* Size in bytes of binding b: b->bytes for a struct or zero padding, else its type's size. */
unsigned pg_param_binding_size(const pg_param_binding *b);

/* Manifest name of t: "u32", "s32", "u64", "s64", "f32", "f64", "ptr", "tensor_map". Static. */
const char *pg_param_type_name(pg_param_type t);  /* "bytes" for BYTES */

#endif
