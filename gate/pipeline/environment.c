/* The environment fingerprint of a run: host, GPU, driver, CUDA, ptxas, disassembler, cuBLASLt
 * and cuDNN versions, clocks, power limit and ECC mode; as results JSON and as the model's pg_fingerprint. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool/toolchain.h"
#include "run.h"

json_t *pg_environment_json(const pg_run *run)
{
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    char ptxas[64] = "";
    bool has_ptxas = pg_toolchain_ptxas_version(ptxas, sizeof ptxas);
    json_t *env = json_object();
    json_object_set_new(env, "hostname", json_string(host));
    if (run->have_info) {
        const pg_device_info *i = &run->info;
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", i->cc_major, i->cc_minor);
        json_t *gpu = json_pack(
            "{s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i, s:i, s:I, s:I}", "name", i->name, "uuid",
            i->uuid, "pci_bus_id", i->pci_bus_id, "ordinal", i->ordinal, "compute_capability", cc,
            "sm_count", i->sm_count, "sm_clock_mhz", i->sm_clock_mhz, "max_sm_clock_mhz",
            i->max_sm_clock_mhz, "memory_clock_mhz", i->memory_clock_mhz, "l2_bytes",
            (json_int_t)i->l2_bytes, "memory_bytes", (json_int_t)i->memory_bytes);
        json_object_set_new(env, "gpu", gpu);
        json_object_set_new(gpu, "max_memory_clock_mhz", json_integer(i->max_memory_clock_mhz));
        json_object_set_new(gpu, "power_limit_w",
                            i->power_limit_w > 0 ? json_real(i->power_limit_w) : json_null());
        json_object_set_new(gpu, "ecc", i->ecc < 0 ? json_null() : json_boolean(i->ecc == 1));
        json_object_set_new(env, "gpu_skip_reason", json_null());
        json_object_set_new(env, "driver_version",
                            i->driver_version[0] ? json_string(i->driver_version) : json_null());
        json_object_set_new(env, "cuda_driver_api_version",
                            i->driver_api_version ? json_integer(i->driver_api_version)
                                                  : json_null());
        json_object_set_new(env, "cublaslt_version",
                            i->cublaslt_version ? json_integer(i->cublaslt_version) : json_null());
        json_object_set_new(env, "cudnn_version",
                            i->cudnn_version ? json_integer(i->cudnn_version) : json_null());
        json_object_set_new(env, "gpu_heater_s", json_real(run->heater_seconds));
    } else {
        json_object_set_new(env, "gpu", json_null());
        json_object_set_new(env, "gpu_skip_reason",
                            run->dev_tried ? json_string(run->gpu_skip_reason)
                                           : json_string("not opened: no submission reached a GPU stage"));
        json_object_set_new(env, "driver_version", json_null());
        json_object_set_new(env, "cuda_driver_api_version", json_null());
        json_object_set_new(env, "cublaslt_version", json_null());
        json_object_set_new(env, "cudnn_version", json_null());
    }
    if (run->n_dev_infos > 1) {
        /* --devices: every device of the run (one GPU model, checked at the start). */
        json_t *devs = json_array();
        for (int k = 0; k < run->n_dev_infos; k++) {
            const pg_device_info *i = &run->dev_infos[k];
            json_array_append_new(devs, json_pack("{s:i, s:s, s:s, s:s}", "ordinal", i->ordinal,
                                                  "name", i->name, "uuid", i->uuid,
                                                  "pci_bus_id", i->pci_bus_id));
        }
        json_object_set_new(env, "devices", devs);
    }
    json_object_set_new(env, "ptxas_version", has_ptxas ? json_string(ptxas) : json_null());
    /* The SASS half of the instructions stage depends on it (docs/instructions.md). */
    char dis_tool[16], dis_version[64];
    if (pg_toolchain_disassembler(dis_tool, sizeof dis_tool, dis_version, sizeof dis_version))
        json_object_set_new(env, "disassembler",
                            json_pack("{s:s, s:o}", "tool", dis_tool, "version",
                                      dis_version[0] ? json_string(dis_version) : json_null()));
    else
        json_object_set_new(env, "disassembler", json_null());
    return env;
}

void pg_run_fingerprint(const pg_run *run, pg_fingerprint *out)
{
    pg_fingerprint_init(out);
    pg_toolchain_ptxas_version(out->ptxas_version, sizeof out->ptxas_version);
    if (!run->have_info)
        return;
    const pg_device_info *i = &run->info;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", i->name);
    snprintf(out->compute_capability, sizeof out->compute_capability, "%d.%d", i->cc_major,
             i->cc_minor);
    out->sm_count = i->sm_count;
    snprintf(out->driver_version, sizeof out->driver_version, "%s", i->driver_version);
    out->cuda_driver_api_version = i->driver_api_version;
    out->cublaslt_version = i->cublaslt_version;
    out->cudnn_version = i->cudnn_version;
    out->max_sm_clock_mhz = i->max_sm_clock_mhz;
    out->max_memory_clock_mhz = i->max_memory_clock_mhz;
    out->power_limit_w = i->power_limit_w;
    out->ecc = i->ecc;
}
