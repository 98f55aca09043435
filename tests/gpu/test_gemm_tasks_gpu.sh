#!/usr/bin/env bash
# GPU test of the "gemm" tasks (gemm_fp32_nn, gemm_tf32_tn, gemm_bf16_nn_beta,
# gemm_bf16_nt_batched, gemm_e4m3_tn, gemm_e4m3_tn_block) with their examples, every workload, default settings: each example is
# correct, executes its task's targets (tensor-core examples with work coverage >= 0.99), passes
# the performance stage and the verify stage. It also prints, per workload, the numbers the
# tasks' READMEs ask to confirm on a GPU: the largest errors against the tolerances and the
# speedup against min_speedup (tests/gpu/expect_gemm_tasks.py). Exits 77 (skipped) with the
# reason without a GPU.
# usage: test_gemm_tasks_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
"$bin" check --quiet --if-no-gpu fail --output "$out" \
  tasks/gemm_fp32_nn/examples tasks/gemm_tf32_tn/examples tasks/gemm_bf16_nn_beta/examples \
  tasks/gemm_bf16_nt_batched/examples tasks/gemm_e4m3_tn/examples \
  tasks/gemm_e4m3_tn_block/examples >"$out/stdout" 2>"$out/stderr"
rc=$?
echo "ptxgate exit code: $rc (expected 0)"
python3 "$root/tests/gpu/expect_gemm_tasks.py" "$out/results.json" || exit 1
[[ $rc == 0 ]] || { echo "FAIL: exit code $rc, expected 0"; tail -n 20 "$out/stderr"; exit 1; }
