/* The GPU key that names a folder of stored baselines (baselines/<gpu-key>/<task>.json): one key
 * per kind of GPU whose numbers are comparable, derived from the device name the driver reports
 * (docs/baselines.md gives the rule and examples; `--gpu-key` overrides it). */
#ifndef PG_MODEL_GPU_KEY_H
#define PG_MODEL_GPU_KEY_H

#include <stdbool.h>
#include <stddef.h>

/* Longest key, NUL included. */
#define PG_GPU_KEY_MAX 64

/* Derive the key from a device name such as "NVIDIA H200" (cuDeviceGetName):
 *   1. lower-case; every run of characters other than [a-z0-9] is one '-'; a leading "nvidia"
 *      word is dropped;
 *   2. memory words are dropped: "<digits>gb" and "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e";
 *   3. the form factor words "sxm", "sxm2".."sxm5", "pcie" and "nvl" are taken out and put
 *      last as "-sxm", "-pcie" or "-nvl";
 *   4. a data-center GPU named without a form factor (a first word a100, h100, h200, h20, b100,
 *      b200 or b300) is the SXM module: "-sxm" is added.
 * So "NVIDIA H200" → "h200-sxm", "NVIDIA H100 80GB HBM3" → "h100-sxm", "NVIDIA H100 PCIe" →
 * "h100-pcie", "NVIDIA A100-SXM4-80GB" → "a100-sxm", "NVIDIA H200 NVL" → "h200-nvl",
 * "NVIDIA GeForce RTX 4090" → "geforce-rtx-4090". Returns false (out "") when nothing usable is
 * left or the key would exceed n - 1 bytes. */
bool pg_gpu_key_from_name(const char *name, char *out, size_t n);

/* A usable key (also for --gpu-key): 1..PG_GPU_KEY_MAX-1 characters of [a-z0-9._-], starting
 * with a letter or digit; so a key is always one plain folder name. */
bool pg_gpu_key_valid(const char *key);

#endif
